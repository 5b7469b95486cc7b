package kgmem

// Regression tests for inputs that once cost time or memory quadratic in
// their size, or out of proportion to it. Each bound is generous (the
// machine may be a loaded 2-core CI runner under -race) yet far below
// what the old code needed; the benchmarks in bench_test.go give the
// exact costs. Where the work allocates, the bound is on TotalAlloc,
// which does not depend on the machine.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// costOf runs f and returns how long it took and how many bytes it
// allocated.
func costOf(f func()) (time.Duration, uint64) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return elapsed, after.TotalAlloc - before.TotalAlloc
}

// costLimit is the wall-clock bound of the tests below. The inputs are
// sized so that the quadratic code they guard against needed from 25 s to
// several minutes on a fast machine without -race.
const costLimit = 10 * time.Second

// manyTypes returns two entities and n relations between them, each of its
// own type.
func manyTypes(n int) ([]Entity, []Relation) {
	rels := make([]Relation, n)
	for i := range rels {
		rels[i] = Relation{SourceID: "a", TargetID: "b", Type: fmt.Sprintf("type%06d", i), Weight: 0.5}
	}
	return []Entity{{ID: "a"}, {ID: "b"}}, rels
}

// TestAddBatchManyTypesIsLinear adds 100,000 relations of distinct types in
// one batch, then reads a snapshot of them. AddBatch used to look each type
// up in a list of the batch's types, under the write lock: 27 s for each.
func TestAddBatchManyTypesIsLinear(t *testing.T) {
	ents, rels := manyTypes(100_000)
	g := NewInMemoryGraph()
	elapsed, _ := costOf(func() { require.NoError(t, g.AddBatch(context.Background(), ents, rels)) })
	t.Logf("AddBatch: %v", elapsed)
	require.Less(t, elapsed, costLimit)
	require.Equal(t, 100_000, g.Stats().Relations)
	r, ok, err := g.GetRelation(context.Background(), "a", "b", "type099999")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 0.5, r.Weight)

	var snap bytes.Buffer
	_, err = g.WriteTo(&snap)
	require.NoError(t, err)
	h := NewInMemoryGraph()
	elapsed, _ = costOf(func() {
		_, err := h.ReadFrom(bytes.NewReader(snap.Bytes()))
		require.NoError(t, err)
	})
	t.Logf("ReadFrom of %.1f MB: %v", float64(snap.Len())/1e6, elapsed)
	require.Less(t, elapsed, costLimit)
	require.Equal(t, snapshotBytes(t, g), snapshotBytes(t, h))
}

// TestReadFromManyTagsLine reads a snapshot line of 100,000 tags (0.9 MB),
// with the default tag limit and with one that keeps them all. Tags were
// normalised quadratically before the limit rejected them: 32 s.
func TestReadFromManyTagsLine(t *testing.T) {
	for _, n := range []int{100_000} {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = fmt.Sprintf("t%d", i)
		}
		line, err := json.Marshal(Entity{ID: "a", Tags: tags})
		require.NoError(t, err)
		in := `{"format":"kgmem-graph","version":1,"entities":1,"relations":0}` + "\n" + string(line) + "\n"
		for _, max := range []int{0, n} {
			g := NewInMemoryGraph(WithTagConstraints(TagConstraints{MaxTagsPerEntity: max}))
			elapsed, _ := costOf(func() { _, err = g.ReadFrom(strings.NewReader(in)) })
			t.Logf("%d tags, limit %d: %v", n, max, elapsed)
			require.Less(t, elapsed, costLimit)
			if max == 0 {
				require.ErrorIs(t, err, ErrInvalidArgument)
				require.ErrorContains(t, err, fmt.Sprintf(`snapshot line 2: entity "a" has %d distinct tags, more than MaxTagsPerEntity (8)`, n))
				continue
			}
			require.NoError(t, err)
			e, _, _ := g.GetEntity(context.Background(), "a")
			require.Equal(t, tags, e.Tags)
		}
	}
}

// TestReadFromLyingHeader reads 32 MB snapshots whose header announces
// 10¹² entities or relations and whose second line is garbage. The reader
// used to reserve room for as many lines as the input could hold at 10
// bytes a line, an entity struct and a map entry each: 0.5 GiB for 32 MB,
// 3.7 GiB for 200 MB, before failing at line 2. Now what it reserves grows
// with the lines it has read.
func TestReadFromLyingHeader(t *testing.T) {
	const size = 32 << 20
	for _, counts := range []string{`"entities":1000000000000,"relations":0`, `"entities":0,"relations":1000000000000`} {
		in := make([]byte, size)
		h := `{"format":"kgmem-graph","version":1,` + counts + "}\nxx\n"
		copy(in, h)
		for i := len(h); i < len(in); i++ {
			in[i] = '\n'
		}
		path := filepath.Join(t.TempDir(), "lying.kg")
		require.NoError(t, os.WriteFile(path, in, 0o600))
		for name, read := range map[string]func() error{
			"ReadFrom": func() error { _, err := NewInMemoryGraph().ReadFrom(bytes.NewReader(in)); return err },
			"LoadFile": func() error { return NewInMemoryGraph().LoadFile(path) },
			"Open": func() error {
				g, err := Open(path)
				if err == nil {
					g.Close()
				}
				return err
			},
		} {
			var err error
			_, alloc := costOf(func() { err = read() })
			t.Logf("%s, %s: %d KiB allocated", counts, name, alloc>>10)
			require.ErrorIs(t, err, ErrInvalidArgument, name)
			require.ErrorContains(t, err, "line 2: ", name)
			require.Less(t, alloc, uint64(4<<20), "%s: bytes allocated", name)
		}
	}
}
