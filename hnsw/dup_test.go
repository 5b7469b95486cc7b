package hnsw_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/hnsw"
	"github.com/kgmem/kgmem/internal/vectest"
	"github.com/stretchr/testify/require"
)

// brute is the exact search the tests compare an Index with: the vectors
// it holds, by ID, in the order they were added.
type brute struct {
	ids  []string
	vecs map[string][]float32
}

func (b *brute) add(id string, v []float32) {
	if _, ok := b.vecs[id]; !ok {
		b.ids = append(b.ids, id)
	}
	b.vecs[id] = v
}

func (b *brute) remove(id string) {
	delete(b.vecs, id)
	b.ids = slices.DeleteFunc(b.ids, func(x string) bool { return x == id })
}

func sim(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// recall returns the fraction of the exact top k of q that got holds,
// where a vector as similar as the exact k-th counts as one of the top k:
// among identical vectors any k are the right answer.
func (b *brute) recall(q []float32, got []string, k int) float64 {
	sims := make([]float64, 0, len(b.ids))
	for _, id := range b.ids {
		sims = append(sims, sim(q, b.vecs[id]))
	}
	slices.Sort(sims)
	slices.Reverse(sims)
	k = min(k, len(sims))
	if k == 0 {
		return 1
	}
	kth := sims[k-1]
	hit := 0
	for _, id := range got {
		if v, ok := b.vecs[id]; ok && sim(q, v) >= kth-1e-6 {
			hit++
		}
	}
	return float64(min(hit, k)) / float64(k)
}

// TestDuplicates: 200 pages of one vector, then 50 of distinct vectors.
// Each distinct vector is found first by itself; a search for the
// repeated vector returns its pages in the order they were added, before
// and after the first 100 of them are deleted; recall@10 against exact
// search is at least 0.95 throughout.
func TestDuplicates(t *testing.T) {
	const d = 64
	r := rand.New(rand.NewPCG(7, 8))
	x := hnsw.New(d, hnsw.Options{})
	b := &brute{vecs: map[string][]float32{}}
	dup := vectest.Unit(r, d)
	for i := range 200 {
		id := fmt.Sprintf("dup%03d", i)
		x.Add(id, dup)
		b.add(id, dup)
	}
	distinct := map[string][]float32{}
	for i := range 50 {
		id := fmt.Sprintf("d%02d", i)
		distinct[id] = vectest.Unit(r, d)
		x.Add(id, distinct[id])
		b.add(id, distinct[id])
	}
	require.Equal(t, 250, x.Len())

	missed := func() int {
		n := 0
		for id, v := range distinct {
			got, err := x.Search(v, 10)
			require.NoError(t, err)
			if len(got) == 0 || got[0] != id {
				n++
			}
		}
		return n
	}
	queries := [][]float32{dup}
	for _, v := range distinct {
		queries = append(queries, v)
	}
	for range 50 {
		queries = append(queries, vectest.Unit(r, d))
	}
	meanRecall := func() float64 {
		total := 0.0
		for _, q := range queries {
			got, err := x.Search(q, 10)
			require.NoError(t, err)
			total += b.recall(q, got, 10)
		}
		return total / float64(len(queries))
	}

	require.Equal(t, 0, missed(), "distinct vectors not found first by themselves")
	got, err := x.Search(dup, 10)
	require.NoError(t, err)
	require.Equal(t, []string{"dup000", "dup001", "dup002", "dup003", "dup004", "dup005", "dup006", "dup007", "dup008", "dup009"}, got)
	require.GreaterOrEqual(t, meanRecall(), 0.95)

	for i := range 100 {
		id := fmt.Sprintf("dup%03d", i)
		x.Delete(id)
		b.remove(id)
	}
	require.Equal(t, 150, x.Len())
	got, err = x.Search(dup, 10)
	require.NoError(t, err)
	require.Equal(t, []string{"dup100", "dup101", "dup102", "dup103", "dup104", "dup105", "dup106", "dup107", "dup108", "dup109"}, got)
	require.Equal(t, 0, missed(), "distinct vectors not found first by themselves after the deletions")
	require.GreaterOrEqual(t, meanRecall(), 0.95)
}

// TestRecallDuplicateHeavy: 2,000 pages, 1,300 of them copies of 23
// clustered vectors (3 with 300 copies, 20 with 20), the rest distinct,
// added in a random order. Recall@10 against exact search is at least
// 0.95, and every distinct vector is found first by itself, after the adds
// and again after deleting a run of duplicates (the first 200 copies of
// each vector with 300, every copy of 5 of those with 20). Two indexes
// given the same calls return the same results.
func TestRecallDuplicateHeavy(t *testing.T) {
	const d = 64
	type op struct {
		id  string
		vec []float32
	}
	r := rand.New(rand.NewPCG(9, 10))
	next := vectest.Clustered(r, d)
	var ops []op
	repeated := make([][]float32, 23)
	copies := func(g int) int {
		if g < 3 {
			return 300
		}
		return 20
	}
	for g := range repeated {
		repeated[g] = next()
		for c := range copies(g) {
			ops = append(ops, op{fmt.Sprintf("g%02d-%03d", g, c), repeated[g]})
		}
	}
	distinct := map[string][]float32{}
	for i := range 700 {
		id := fmt.Sprintf("d%03d", i)
		distinct[id] = next()
		ops = append(ops, op{id, distinct[id]})
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	// The copies of each repeated vector in the order they were added.
	order := map[int][]string{}
	for _, o := range ops {
		var g, c int
		if _, err := fmt.Sscanf(o.id, "g%d-%d", &g, &c); err == nil {
			order[g] = append(order[g], o.id)
		}
	}
	var deletions []string
	for g := range repeated {
		switch {
		case g < 3:
			deletions = append(deletions, order[g][:200]...)
		case g < 8:
			deletions = append(deletions, order[g]...)
		}
	}

	build := func() *hnsw.Index {
		x := hnsw.New(d, hnsw.Options{})
		for _, o := range ops {
			x.Add(o.id, o.vec)
		}
		return x
	}
	x, twin := build(), build()
	b := &brute{vecs: map[string][]float32{}}
	for _, o := range ops {
		b.add(o.id, o.vec)
	}
	var queries [][]float32
	for range 50 {
		queries = append(queries, next())
	}
	queries = append(queries, repeated...)
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range distinct {
			if !yield(id) {
				return
			}
		}
	})[:20] {
		queries = append(queries, distinct[id])
	}
	check := func(stage string) {
		total := 0.0
		for _, q := range queries {
			got, err := x.Search(q, 10)
			require.NoError(t, err)
			again, err := twin.Search(q, 10)
			require.NoError(t, err)
			require.Equal(t, got, again, "%s: the same calls give the same results", stage)
			require.Len(t, got, 10)
			total += b.recall(q, got, 10)
		}
		rec := total / float64(len(queries))
		t.Logf("%s: recall@10 %.4f over %d pages", stage, rec, x.Len())
		require.GreaterOrEqual(t, rec, 0.95, stage)
		missed := 0
		for id, v := range distinct {
			got, err := x.Search(v, 1)
			require.NoError(t, err)
			if len(got) == 0 || got[0] != id {
				missed++
			}
		}
		require.Equal(t, 0, missed, "%s: distinct vectors not found first by themselves", stage)
	}
	check("after the adds")
	for _, id := range deletions {
		x.Delete(id)
		twin.Delete(id)
		b.remove(id)
	}
	require.Equal(t, 2000-len(deletions), x.Len())
	check("after the deletions")
}

// TestStoreDuplicates: a store with the HNSW index, of 200 pages of the
// same boilerplate text and 50 of distinct texts, finds each distinct page
// first for a query of its vector (a text that shares no word with it, so
// that only the vector index can find it), as the exact index does.
func TestStoreDuplicates(t *testing.T) {
	const d = 64
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	e := &vecEmbedder{dims: d, table: map[string][]float32{"boilerplate": vectest.Unit(r, d)}}
	var pages []kgmem.KnowledgePage
	for i := range 200 {
		pages = append(pages, kgmem.KnowledgePage{ID: fmt.Sprintf("b%03d", i), Content: "boilerplate"})
	}
	for i := range 50 {
		text := fmt.Sprintf("distinct%d", i)
		e.table[text] = vectest.Unit(r, d)
		e.table[fmt.Sprintf("query%d", i)] = e.table[text]
		pages = append(pages, kgmem.KnowledgePage{ID: fmt.Sprintf("p%02d", i), Content: text})
	}
	exact := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e))
	ann := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e), kgmem.WithVectorIndex(hnsw.Factory(hnsw.Options{})))
	require.NoError(t, exact.PutBatch(ctx, pages))
	require.NoError(t, ann.PutBatch(ctx, pages))
	missed := 0
	for i := range 50 {
		text, id := fmt.Sprintf("query%d", i), fmt.Sprintf("p%02d", i)
		want, err := exact.Search(ctx, text, 10)
		require.NoError(t, err)
		require.NotEmpty(t, want)
		require.Equal(t, id, want[0].Page.ID, "the exact index finds it")
		got, err := ann.Search(ctx, text, 10)
		require.NoError(t, err)
		if len(got) == 0 || got[0].Page.ID != id {
			missed++
		}
	}
	require.Equal(t, 0, missed, "exact matches missed of 50")
}
