package kgmem_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

// updateGolden rewrites the golden files instead of comparing with them:
// KGMEM_UPDATE_GOLDEN=1 go test -run Golden .
var updateGolden = os.Getenv("KGMEM_UPDATE_GOLDEN") == "1"

// TestGoldenFiles pins the bytes kgmem writes for each durable kind: the
// journal of a list of writes that covers every record, and the snapshot
// a Compact then writes. The journal is kept as its payloads, one per line; the
// frames around them are checked against the documented framing, so
// together they pin every byte. A change here is a change of the file
// format, which needs a new version number and a reader for the old one.
func TestGoldenFiles(t *testing.T) {
	ctx := context.Background()
	for _, k := range durableKinds() {
		t.Run(k.title(), func(t *testing.T) {
			dir := t.TempDir()
			o, err := k.openDir(dir, kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(-1))
			require.NoError(t, err)
			for _, w := range k.writes {
				require.NoError(t, w(ctx, o))
			}
			journal, err := os.ReadFile(filepath.Join(dir, k.name+".journal"))
			require.NoError(t, err)
			require.NoError(t, o.compact())
			require.NoError(t, o.close())
			snap, err := os.ReadFile(filepath.Join(dir, k.name+".snapshot"))
			require.NoError(t, err)
			ps := payloads(t, journal)
			var framed []byte
			for _, p := range ps {
				framed = append(framed, frame(p)...)
			}
			require.Equal(t, framed, journal, "the journal is its payloads, framed as documented")
			journalText := strings.Join(ps, "\n") + "\n"
			body := snap[:bytes.LastIndexByte(snap[:len(snap)-1], '\n')+1]
			require.Equal(t, fmt.Sprintf(`{"crc32c":"%08x","bytes":%d}`+"\n", crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)), len(body)),
				string(snap[len(body):]), "the snapshot ends with the documented checksum line")
			require.Equal(t, bytes.Count(body, []byte(`{"format":"kgmem-`)), bytes.Count(body, []byte(`,"checksum":"crc32c"}`+"\n")),
				"every header declares the checksum")

			for _, f := range []struct {
				name string
				got  []byte
			}{{k.title() + ".snapshot", snap}, {k.title() + ".journal.txt", []byte(journalText)}} {
				path := filepath.Join("testdata", "golden", f.name)
				if updateGolden {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, f.got, 0o644))
					continue
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "golden file missing: run KGMEM_UPDATE_GOLDEN=1 go test -run Golden .")
				require.Equal(t, string(want), string(f.got), "%s differs from the golden file", f.name)
			}
		})
	}
}

// TestGoldenFilesOpen opens the golden files as they are: what this
// version wrote, it reads back to the same state, from the journal alone
// and from the snapshot with the journal it replaced (as a compaction
// interrupted between its two renames leaves them).
func TestGoldenFilesOpen(t *testing.T) {
	for _, k := range durableKinds() {
		t.Run(k.title(), func(t *testing.T) {
			openGolden(t, k, filepath.Join("testdata", "golden"))
		})
	}
}

// TestGoldenNoChecksumOpen opens the files this version wrote before
// snapshots ended with a checksum line (testdata/golden/no-checksum: the
// same writes as the golden files, graph and page snapshots of versions 2
// and 3 without "checksum" in their headers): they read to the same
// state, opening them rewrites nothing, and a compaction then writes the
// current golden snapshot.
func TestGoldenNoChecksumOpen(t *testing.T) {
	for _, k := range durableKinds() {
		t.Run(k.title(), func(t *testing.T) {
			dir := filepath.Join("testdata", "golden", "no-checksum")
			snap, err := os.ReadFile(filepath.Join(dir, k.title()+".snapshot"))
			require.NoError(t, err)
			require.NotContains(t, string(snap), `"checksum"`)
			require.NotContains(t, string(snap), `"crc32c"`)
			openGolden(t, k, dir)

			// A compaction rewrites the snapshot in the current format,
			// byte for byte the golden one.
			journal := goldenJournal(t, filepath.Join(dir, k.title()+".journal.txt"))
			tmp := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(tmp, k.name+".snapshot"), snap, 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(tmp, k.name+".journal"), journal, 0o600))
			o, err := k.openDir(tmp)
			require.NoError(t, err)
			require.NoError(t, o.compact())
			require.NoError(t, o.close())
			got, err := os.ReadFile(filepath.Join(tmp, k.name+".snapshot"))
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join("testdata", "golden", k.title()+".snapshot"))
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
		})
	}
}

// openGolden opens the golden snapshot and journal of k in dir, as
// TestGoldenFilesOpen describes; the snapshot of a graph or a store also
// reads with ReadFrom to the same state.
func openGolden(t *testing.T, k durableKind, golden string) {
	ctx := context.Background()
	snap, err := os.ReadFile(filepath.Join(golden, k.title()+".snapshot"))
	require.NoError(t, err)
	journal := goldenJournal(t, filepath.Join(golden, k.title()+".journal.txt"))
	want, err := k.openDir(t.TempDir(), kgmem.WithSync(kgmem.SyncNone))
	require.NoError(t, err)
	defer want.close()
	for _, w := range k.writes {
		require.NoError(t, w(ctx, want))
	}
	records := len(payloads(t, journal)) - 1
	for _, withSnapshot := range []bool{false, true} {
		dir := t.TempDir()
		if withSnapshot {
			require.NoError(t, os.WriteFile(filepath.Join(dir, k.name+".snapshot"), snap, 0o600))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, k.name+".journal"), journal, 0o600))
		got, err := k.openDir(dir)
		require.NoError(t, err)
		require.Equal(t, want.state(), got.state(), "with snapshot: %v", withSnapshot)
		rec := got.recovery()
		if withSnapshot {
			require.Equal(t, records, rec.Skipped)
			require.Zero(t, rec.Replayed)
		} else {
			require.Equal(t, records, rec.Replayed)
		}
		require.Zero(t, rec.Upgraded)
		require.NoError(t, got.close())
		if withSnapshot {
			after, err := os.ReadFile(filepath.Join(dir, k.name+".snapshot"))
			require.NoError(t, err)
			require.Equal(t, snap, after, "the snapshot was rewritten")
		}
	}
	var r io.ReaderFrom
	var state func() string
	switch {
	case want.memory != nil:
		return // a memory's snapshot is no graph or store snapshot
	case k.name == "graph":
		g := kgmem.NewInMemoryGraph()
		r, state = g, func() string { return snapshotOfGraph(g) }
	case k.variant != "":
		s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(kgmemtest.HashEmbedder{Dimensions: 8}))
		r, state = s, func() string { return snapshotOfStore(s) }
	default:
		s := kgmem.NewInMemoryKnowledgeStore()
		r, state = s, func() string { return snapshotOfStore(s) }
	}
	n, err := r.ReadFrom(bytes.NewReader(snap))
	require.NoError(t, err)
	require.Equal(t, int64(len(snap)), n)
	require.Equal(t, want.state(), state())
}

// TestOpenVersion1 opens the files kgmem's first format wrote (Open's
// snapshot and journal, and SaveFile's graph and page snapshots, checked
// in under testdata/v1): they read to the state they held, and a durable
// graph is rewritten in the current format on the way.
func TestOpenVersion1(t *testing.T) {
	ctx := context.Background()
	v1 := filepath.Join("testdata", "v1")
	dir := t.TempDir()
	for from, to := range map[string]string{"graph.kg": "graph.snapshot", "graph.kg.journal": "graph.journal"} {
		b, err := os.ReadFile(filepath.Join(v1, from))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, to), b, 0o600))
	}
	want := kgmem.NewInMemoryGraph()
	require.NoError(t, kgmem.LoadFile(filepath.Join(v1, "graph.want"), want))
	require.NotZero(t, want.Stats().Relations)

	g, err := kgmem.OpenGraph(dir)
	require.NoError(t, err)
	requireSame(t, want, g.InMemoryGraph)
	rec := g.Recovery()
	require.Equal(t, 1, rec.Upgraded)
	require.NotZero(t, rec.SnapshotSeq)
	require.NotZero(t, rec.Replayed)
	journal, err := os.ReadFile(filepath.Join(dir, "graph.journal"))
	require.NoError(t, err)
	require.Equal(t, []string{`{"format":"kgmem-journal","version":2,"kind":"graph","base":` +
		jsonUint(g.JournalStats().Seq) + `}`}, payloads(t, journal), "the journal was rewritten in version 2")
	snap, err := os.ReadFile(filepath.Join(dir, "graph.snapshot"))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(snap, []byte(`{"format":"kgmem-graph","version":2,"seq":`)), "%.80s", snap)

	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "after-upgrade", Name: "new"}))
	require.NoError(t, want.AddEntity(ctx, kgmem.Entity{ID: "after-upgrade", Name: "new"}))
	require.NoError(t, g.Close())
	g, err = kgmem.OpenGraph(dir)
	require.NoError(t, err)
	defer g.Close()
	requireSame(t, want, g.InMemoryGraph)
	require.Zero(t, g.Recovery().Upgraded)

	// Plain snapshots of version 1 load as they are, under the current
	// write rules: the same as adding their lines one by one.
	plain := kgmem.NewInMemoryGraph()
	require.NoError(t, kgmem.LoadFile(filepath.Join(v1, "plain.kg"), plain))
	ents, rels := readSnapshotLines(t, filepath.Join(v1, "plain.kg"))
	built := kgmem.NewInMemoryGraph()
	require.NoError(t, built.AddBatch(ctx, ents, rels))
	requireSame(t, built, plain)

	pages := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, kgmem.LoadFile(filepath.Join(v1, "pages.kg"), pages))
	require.Equal(t, 3, pages.Len())
	p, ok, err := pages.Get(ctx, "page-2")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, map[string]string{"lang": "mixed", "source": "chat"}, p.Metadata)
}

// readSnapshotLines decodes the entity and relation lines of a graph
// snapshot.
func readSnapshotLines(t *testing.T, path string) ([]kgmem.Entity, []kgmem.Relation) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	require.True(t, sc.Scan())
	var h struct{ Entities, Relations int }
	require.NoError(t, json.Unmarshal(sc.Bytes(), &h))
	ents := make([]kgmem.Entity, h.Entities)
	for i := range ents {
		require.True(t, sc.Scan())
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ents[i]))
	}
	rels := make([]kgmem.Relation, h.Relations)
	for i := range rels {
		require.True(t, sc.Scan())
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rels[i]))
	}
	require.False(t, sc.Scan())
	return ents, rels
}

func jsonUint(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestGoldenVersion2Open opens the memory files this version wrote before
// valid times existed (testdata/golden/v2: a version 2 graph snapshot and
// journal): they read to the state of the same writes, the two with valid
// times left out, without being rewritten.
func TestGoldenVersion2Open(t *testing.T) {
	ctx := context.Background()
	var k durableKind
	for _, kk := range durableKinds() {
		if kk.name == "memory" && kk.variant == "" {
			k = kk
		}
	}
	writes := k.writes[:len(k.writes)-2] // the last two carry valid times
	snap, err := os.ReadFile(filepath.Join("testdata", "golden", "v2", "memory.snapshot"))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(snap, []byte(`{"format":"kgmem-graph","version":2,`)))
	journal := goldenJournal(t, filepath.Join("testdata", "golden", "v2", "memory.journal.txt"))
	want, err := k.openDir(t.TempDir(), kgmem.WithSync(kgmem.SyncNone))
	require.NoError(t, err)
	defer want.close()
	for _, w := range writes {
		require.NoError(t, w(ctx, want))
	}
	for _, withSnapshot := range []bool{false, true} {
		dir := t.TempDir()
		if withSnapshot {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "memory.snapshot"), snap, 0o600))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "memory.journal"), journal, 0o600))
		got, err := k.openDir(dir)
		require.NoError(t, err)
		require.Equal(t, want.state(), got.state(), "with snapshot: %v", withSnapshot)
		require.Zero(t, got.recovery().Upgraded)
		require.NoError(t, got.close())
	}
}

// goldenJournal reads a golden journal kept as text, one record a line,
// and returns it framed as a journal file holds it.
func goldenJournal(t *testing.T, path string) []byte {
	t.Helper()
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	var journal []byte
	for _, p := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		journal = append(journal, frame(p)...)
	}
	return journal
}
