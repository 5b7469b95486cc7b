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

// sized returns full under KGMEM_LONG, or short otherwise: the regression
// tests below shrink their inputs in the default run, keeping every check,
// so that it stays quick; the long run (CI runs it once, without -race)
// keeps the sizes that made the old code take seconds to minutes.
func sized(full, short int) int {
	if long() {
		return full
	}
	return short
}

// costLimit is the wall-clock bound of the tests below. The inputs are
// sized so that the quadratic code they guard against needed from 25 s to
// several minutes on a fast machine without -race.
const costLimit = 10 * time.Second

// repeatedEntityOutput is a model response that names one entity copies
// times, each time with aliases new aliases.
func repeatedEntityOutput(copies, aliases int) []byte {
	type entity struct {
		Name    string   `json:"name"`
		Type    string   `json:"type"`
		Aliases []string `json:"aliases"`
	}
	var x struct {
		Entities []entity `json:"entities"`
	}
	for i := range copies {
		e := entity{Name: "Project Apollo", Type: "project"}
		for j := range aliases {
			e.Aliases = append(e.Aliases, fmt.Sprintf("apollo %d-%d", i, j))
		}
		x.Entities = append(x.Entities, e)
	}
	b, err := json.Marshal(x)
	if err != nil {
		panic(err)
	}
	return b
}

// TestIngestRepeatedEntityIsLinear ingests 2,000 mentions of one entity
// with 20 new aliases each. Merging used to rebuild the entity's alias set
// and re-file every alias on each mention: 51 s and 9 GiB allocated.
func TestIngestRepeatedEntityIsLinear(t *testing.T) {
	copies := sized(2000, 500)
	out := repeatedEntityOutput(copies, 20)
	g := NewInMemoryGraph()
	var rep IngestReport
	elapsed, alloc := costOf(func() {
		x, err := ParseExtraction(out)
		require.NoError(t, err)
		rep, err = Ingest(context.Background(), g, x)
		require.NoError(t, err)
	})
	t.Logf("%d KB of model output: %v, %d MiB allocated", len(out)>>10, elapsed, alloc>>20)
	require.Equal(t, 1, rep.EntitiesCreated)
	require.Equal(t, copies-1, rep.EntitiesDeduplicated)
	e, ok, err := g.GetEntity(context.Background(), "project:project_apollo")
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, e.Aliases, copies*20)
	require.Equal(t, "apollo 0-0", e.Aliases[0])
	require.Equal(t, fmt.Sprintf("apollo %d-19", copies-1), e.Aliases[len(e.Aliases)-1])
	require.Less(t, elapsed, costLimit)
	require.Less(t, alloc, uint64(1<<30), "bytes allocated")
}

// TestIngestManyTagsIsLinear ingests one entity with 200,000 tags, and
// another mentioned 9,999 times with 10 new tags each. Tags used to be
// de-duplicated by scanning the list for each one: 4 s for 40,000 tags,
// about 25 times as long for 200,000.
func TestIngestManyTagsIsLinear(t *testing.T) {
	tags := make([]string, sized(200_000, 50_000))
	for i := range tags {
		tags[i] = fmt.Sprintf("Tag%d", i)
	}
	x := Extraction{Entities: []ExtractedEntity{{Name: "x", Tags: tags}}}
	mentions := sized(MaxExtractedEntities-1, 2_000)
	for i := range mentions {
		x.Entities = append(x.Entities, ExtractedEntity{Name: "y", Tags: tags[i*10 : i*10+10]})
	}
	g := NewInMemoryGraph(WithTagConstraints(TagConstraints{MaxTagsPerEntity: 1 << 30}))
	var rep IngestReport
	elapsed, _ := costOf(func() {
		var err error
		rep, err = Ingest(context.Background(), g, x)
		require.NoError(t, err)
	})
	t.Logf("%v", elapsed)
	require.Equal(t, 2, rep.EntitiesCreated)
	for id, n := range map[string]int{"entity:x": len(tags), "entity:y": mentions * 10} {
		e, _, err := g.GetEntity(context.Background(), id)
		require.NoError(t, err)
		require.Len(t, e.Tags, n, id)
		require.Equal(t, "tag0", e.Tags[0])
	}
	require.Less(t, elapsed, costLimit)
}

// TestIngestSharedNameIsLinear names one name 10,000 times, as entities of
// 10,000 types and as the source of 50,000 relations. Resolution used to
// read every bearer of the name for each mention, and listed all of them in
// each ambiguity it reported.
func TestIngestSharedNameIsLinear(t *testing.T) {
	var x Extraction
	entities, relations := sized(MaxExtractedEntities, 2_000), sized(MaxExtractedRelations, 10_000)
	for i := range entities {
		x.Entities = append(x.Entities, ExtractedEntity{Name: "John", Type: fmt.Sprintf("t%d", i)})
	}
	for i := range relations {
		x.Relations = append(x.Relations, ExtractedRelation{Source: "John", Target: fmt.Sprintf("t%d:John", i%entities), Type: "knows"})
	}
	g := NewInMemoryGraph()
	var rep IngestReport
	elapsed, alloc := costOf(func() {
		var err error
		rep, err = Ingest(context.Background(), g, x)
		require.NoError(t, err)
	})
	t.Logf("%v, %d MiB allocated", elapsed, alloc>>20)
	require.Equal(t, entities, rep.EntitiesCreated)
	require.Equal(t, relations, rep.RelationsSkipped)
	require.Contains(t, rep.Skipped[0].Reason, `source "John" is ambiguous: matches entities "t0:john", "t1000:john", "t1001:john"`)
	require.Contains(t, rep.Skipped[0].Reason, fmt.Sprintf("and %d more", entities-10))
	require.Less(t, elapsed, costLimit)
	require.Less(t, alloc, uint64(1<<30), "bytes allocated")
}

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
	n := sized(100_000, 25_000)
	ents, rels := manyTypes(n)
	g := NewInMemoryGraph()
	elapsed, _ := costOf(func() { require.NoError(t, g.AddBatch(context.Background(), ents, rels)) })
	t.Logf("AddBatch: %v", elapsed)
	require.Less(t, elapsed, costLimit)
	require.Equal(t, n, g.Stats().Relations)
	r, ok, err := g.GetRelation(context.Background(), "a", "b", fmt.Sprintf("type%06d", n-1))
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

// TestReadFromLyingHeader reads 8 MB snapshots (32 MB under KGMEM_LONG)
// whose header announces 10¹² entities or relations and whose second line
// is garbage. The reader used to reserve room for as many lines as the
// input could hold at 10 bytes a line, an entity struct and a map entry
// each: 0.5 GiB for 32 MB, 3.7 GiB for 200 MB, before failing at line 2.
// Now what it reserves grows with the lines it has read, and stays under
// 4 MiB.
func TestReadFromLyingHeader(t *testing.T) {
	size := sized(32<<20, 8<<20)
	for _, counts := range []string{`"entities":1000000000000,"relations":0`, `"entities":0,"relations":1000000000000`} {
		in := bytes.Repeat([]byte{'\n'}, size)
		copy(in, `{"format":"kgmem-graph","version":1,`+counts+"}\nxx\n")
		path := filepath.Join(t.TempDir(), "lying.kg")
		require.NoError(t, os.WriteFile(path, in, 0o600))
		for name, read := range map[string]func() error{
			"ReadFrom": func() error { _, err := NewInMemoryGraph().ReadFrom(bytes.NewReader(in)); return err },
			"LoadFile": func() error { return LoadFile(path, NewInMemoryGraph()) },
			"OpenGraph": func() error {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "graph.snapshot"), in, 0o600); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, "graph.journal"),
					appendFrameForTest(`{"format":"kgmem-journal","version":2,"kind":"graph","base":0}`), 0o600); err != nil {
					return err
				}
				g, err := OpenGraph(dir)
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
