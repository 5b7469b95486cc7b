package kgmem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// reseal returns body, the lines of a snapshot, with the checksum line of
// those bytes after them.
func reseal(body string) string {
	return body + fmt.Sprintf(`{"crc32c":"%08x","bytes":%d}`, crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli)), len(body)) + "\n"
}

// bodyOf returns the lines of snap before its checksum line.
func bodyOf(snap string) string {
	return snap[:strings.LastIndex(strings.TrimSuffix(snap, "\n"), "\n")+1]
}

// errReader returns its data, then err.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestSnapshotChecksum reads snapshots whose checksum line or lines were
// edited, and checks which are damaged (ErrCorrupt and ErrInvalidArgument)
// and which are only invalid, as written (ErrInvalidArgument alone).
func TestSnapshotChecksum(t *testing.T) {
	src := NewInMemoryGraph()
	_, err := src.ReadFrom(strings.NewReader(validSnapshot))
	require.NoError(t, err)
	sealed := string(snapshotBytes(t, src))
	body := bodyOf(sealed)
	require.Equal(t, reseal(body), sealed)
	line := strings.TrimSuffix(sealed[len(body):], "\n")
	size := len(body)
	checksumAt := fmt.Sprintf("snapshot line 7 (offset %d): ", size)
	unsealed := unsealed(sealed)
	dup := strings.Replace(body, `{"id":"b","name":"B"}`, `{"id":"a","name":"B"}`, 1)

	cases := []struct {
		name, input string
		corrupt     bool
		msgs        []string
	}{
		{"checksum line missing", body, true, []string{checksumAt, "the header declares a crc32c checksum, and the snapshot ends without its checksum line: it is truncated"}},
		{"checksum line cut short", sealed[:len(sealed)-5], true, []string{checksumAt, "where the checksum line should be: last line has no newline"}},
		{"data after the checksum line", sealed + "{}\n", true, []string{fmt.Sprintf("snapshot line 8 (offset %d): data after the checksum line", len(sealed))}},
		{"checksum line twice", sealed + line + "\n", true, []string{"data after the checksum line"}},
		{"a changed line", strings.Replace(sealed, `"name":"C"`, `"name":"D"`, 1), true, []string{checksumAt,
			fmt.Sprintf("checksum mismatch: the %d bytes before the checksum line have CRC-32C %08x, and it says %q",
				size, crc32.Checksum([]byte(strings.Replace(body, `"name":"C"`, `"name":"D"`, 1)), crc32.MakeTable(crc32.Castagnoli)), line[11:19])}},
		{"a wrong count", strings.Replace(sealed, fmt.Sprintf(`"bytes":%d`, size), fmt.Sprintf(`"bytes":%d`, size+1), 1), true,
			[]string{checksumAt, fmt.Sprintf("the checksum line counts %d bytes before it, and there are %d", size+1, size)}},
		{"members in another order", body + fmt.Sprintf(`{"bytes":%d,"crc32c":%q}`, size, line[11:19]) + "\n", true,
			[]string{checksumAt, "the checksum line is not written as kgmem writes it"}},
		{"not a checksum line", body + `{"id":"d"}` + "\n", true, []string{checksumAt, `not a checksum line: "{\"id\":\"d\"}"`}},
		{"an invalid line, damaged", dup + line + "\n", true, []string{"snapshot line 3: duplicate entity \"a\", and the snapshot is damaged: line 7 (offset ",
			"checksum mismatch"}},
		{"header damaged", "x" + sealed[1:], true, []string{"snapshot line 1: header: invalid character 'x'", "and the snapshot is damaged: line 7", "checksum mismatch"}},
		{"checksum name damaged", strings.Replace(sealed, `"checksum":"crc32c"`, `"checksum":"crc32d"`, 1), true,
			[]string{"unsupported checksum \"crc32d\"", "and the snapshot is damaged"}},

		// Invalid as written: the checksum holds, and the error is the
		// line's own.
		{"an invalid line, as written", reseal(dup), false, []string{"snapshot line 3: duplicate entity \"a\": invalid argument"}},
		{"unsupported checksum", reseal(strings.Replace(body, `"checksum":"crc32c"`, `"checksum":"sha256"`, 1)), false,
			[]string{"snapshot line 1: header: unsupported checksum \"sha256\", want \"crc32c\": invalid argument"}},
		{"a checksum line, and no checksum declared", unsealed + line + "\n", false, []string{"snapshot line 7: data after the last line the header announces"}},
		{"no snapshot", "hello\nworld\n", false, []string{"snapshot line 1: header: invalid character 'h'"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := randomGraph(t, 3, 10, 30)
			before := snapshotBytes(t, g)
			n, err := g.ReadFrom(strings.NewReader(c.input))
			require.ErrorIs(t, err, ErrInvalidArgument)
			if c.corrupt {
				require.ErrorIs(t, err, ErrCorrupt)
				require.True(t, strings.HasSuffix(err.Error(), ": corrupt (invalid argument)"), "%v", err)
			} else {
				require.NotErrorIs(t, err, ErrCorrupt)
			}
			for _, m := range c.msgs {
				require.ErrorContains(t, err, m)
			}
			require.Equal(t, int64(len(c.input)), n, "the snapshot is read to its end")
			require.Equal(t, before, snapshotBytes(t, g), "the graph changed")
		})
	}

	t.Run("unsealed reads", func(t *testing.T) {
		g := NewInMemoryGraph()
		n, err := g.ReadFrom(strings.NewReader(unsealed))
		require.NoError(t, err)
		require.Equal(t, int64(len(unsealed)), n)
		requireSameGraph(t, src, g)
	})
	t.Run("sealed reads", func(t *testing.T) {
		g := NewInMemoryGraph()
		n, err := g.ReadFrom(strings.NewReader(sealed))
		require.NoError(t, err)
		require.Equal(t, int64(len(sealed)), n)
		requireSameGraph(t, src, g)
	})

	// A reader that fails: its error is returned, with nothing said of
	// damage, whether it fails among the lines or after an invalid one.
	boom := errors.New("boom")
	for _, in := range []string{sealed[:40], dup[:len(dup)-5]} {
		_, err := NewInMemoryGraph().ReadFrom(&errReader{data: []byte(in), err: boom})
		require.NotErrorIs(t, err, ErrCorrupt)
		if in == sealed[:40] {
			require.ErrorIs(t, err, boom)
		} else {
			require.ErrorContains(t, err, "duplicate entity")
		}
	}

	// A valid snapshot that the reader's rules refuse is no damage.
	tagged := NewInMemoryGraph()
	require.NoError(t, tagged.AddEntity(context.Background(), Entity{ID: "a", Tags: []string{"x", "y", "z"}}))
	_, err = NewInMemoryGraph(WithTagConstraints(TagConstraints{MaxTagsPerEntity: 2})).ReadFrom(bytes.NewReader(snapshotBytes(t, tagged)))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.NotErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "MaxTagsPerEntity")
}

// TestStoreSnapshotChecksum checks a page snapshot's checksum: vectors of
// another model are the reader's mismatch, not damage, and a changed
// vector is damage.
func TestStoreSnapshotChecksum(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore(WithEmbedder(hashTestEmbedder{dims: 8}))
	require.NoError(t, s.Put(ctx, KnowledgePage{ID: "a", Content: "raft consensus"}))
	require.NoError(t, s.Put(ctx, KnowledgePage{ID: "b", Content: "leader election"}))
	snap := storeSnapshot(t, s)
	require.Contains(t, string(snap), `"checksum":"crc32c"}`+"\n")

	_, err := NewInMemoryKnowledgeStore().ReadFrom(bytes.NewReader(snap))
	require.ErrorIs(t, err, ErrEmbeddingModel)
	require.NotErrorIs(t, err, ErrCorrupt)

	i := bytes.Index(snap, []byte(`"vector":"`)) + 12
	damaged := bytes.Clone(snap)
	damaged[i] ^= 0x01
	l := NewInMemoryKnowledgeStore(WithEmbedder(hashTestEmbedder{dims: 8}))
	_, err = l.ReadFrom(bytes.NewReader(damaged))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Zero(t, l.Len())

	l = NewInMemoryKnowledgeStore(WithEmbedder(hashTestEmbedder{dims: 8}))
	_, err = l.ReadFrom(bytes.NewReader(snap))
	require.NoError(t, err)
	require.Equal(t, snap, storeSnapshot(t, l))
}

// TestMemorySnapshotHeaders opens a memory whose snapshot's page header,
// alone, declares no checksum: the two headers of one snapshot must agree.
func TestMemorySnapshotHeaders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := OpenMemory(dir, WithSync(SyncNone))
	require.NoError(t, err)
	require.NoError(t, m.Graph().AddEntity(ctx, Entity{ID: "a"}))
	require.NoError(t, m.Store().Put(ctx, KnowledgePage{ID: "p", Content: "x"}))
	require.NoError(t, m.Compact())
	require.NoError(t, m.Close())
	path := filepath.Join(dir, "memory.snapshot")
	snap, err := os.ReadFile(path)
	require.NoError(t, err)
	body := bodyOf(string(snap))
	i := strings.Index(body, `{"format":"kgmem-pages"`)
	require.Positive(t, i)
	edited := reseal(body[:i] + strings.Replace(body[i:], `,"checksum":"crc32c"`, "", 1))
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))
	_, err = OpenMemory(dir)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, path+`: snapshot line 3: header: checksum "", and the snapshot's first header declares "crc32c"`)

	require.NoError(t, os.WriteFile(path, []byte(reseal(body)), 0o600))
	m, err = OpenMemory(dir)
	require.NoError(t, err)
	require.Equal(t, 1, m.Store().Len())
	require.NoError(t, m.Close())
}

// TestSnapshotVerifyBounded gives a snapshot that declares a checksum, an
// invalid second line and then 64 MiB without a newline: the reader reads
// it all to look for the checksum line, and holds little of it.
func TestSnapshotVerifyBounded(t *testing.T) {
	head := `{"format":"kgmem-graph","version":2,"entities":1,"relations":0,"checksum":"crc32c"}` + "\nnot json\n"
	const rest = 64 << 20
	g := NewInMemoryGraph()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := g.ReadFrom(io.MultiReader(strings.NewReader(head), &repeatReader{b: 'x', n: rest}))
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "snapshot line 2: entity: invalid character 'o'")
	require.ErrorContains(t, err, "the input does not end with a checksum line")
	require.Equal(t, int64(len(head)+rest), n)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "bytes allocated")
}
