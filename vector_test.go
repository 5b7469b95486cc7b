package kgmem_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/vectest"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

// tableEmbedder returns the vector its table holds for each text, and
// counts the texts it embeds.
type tableEmbedder struct {
	name  string
	dims  int
	table map[string][]float32
	texts atomic.Int64
}

func (e *tableEmbedder) Model() kgmem.EmbeddingModel {
	return kgmem.EmbeddingModel{Name: e.name, Dimensions: e.dims}
}

func (e *tableEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.table[t]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", t)
		}
		out[i] = v
	}
	e.texts.Add(int64(len(texts)))
	return out, nil
}

// TestDenseFusionByHand checks every score against the formula
// (1 − a·w)·bm25 + a·w·max(0, cos) worked out from a store without an
// embedder and vectors chosen by hand, a being the agreement of BM25's top
// 10 with the 100 nearest by vector.
func TestDenseFusionByHand(t *testing.T) {
	ctx := context.Background()
	s2 := float32(1 / math.Sqrt2)
	pages := []kgmem.KnowledgePage{
		{ID: "a", Content: "rocket launch"},   // cos 1
		{ID: "b", Content: "rocket engine"},   // cos 0.6
		{ID: "c", Content: "spacecraft"},      // cos 1/√2, no query term
		{ID: "d", Content: "banana bread"},    // cos -1: never returned
		{ID: "e", Content: "tomato soup mix"}, // cos 0: never returned
	}
	e := &tableEmbedder{name: "hand", dims: 2, table: map[string][]float32{
		"rocket launch":   {1, 0},
		"rocket engine":   {3, 4}, // scaled to (0.6, 0.8)
		"spacecraft":      {s2, s2},
		"banana bread":    {-1, 0},
		"tomato soup mix": {0, 1},
		"rocket":          {2, 0}, // the query, scaled to (1, 0)
	}}
	cos := map[string]float64{"a": 1, "b": 0.6, "c": float64(s2), "d": 0, "e": 0}

	plain := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, plain.PutBatch(ctx, pages))
	bm := map[string]float64{}
	hits, err := plain.Search(ctx, "rocket", 10)
	require.NoError(t, err)
	for _, h := range hits {
		bm[h.Page.ID] = h.Score
	}
	require.Len(t, bm, 2)

	for _, w := range []float64{0.3, 0, 0.5, 1} {
		s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e), kgmem.WithDenseWeight(w))
		require.NoError(t, s.PutBatch(ctx, pages))
		got, err := s.Search(ctx, "rocket", 10)
		require.NoError(t, err)
		type ws struct {
			id    string
			score float64
		}
		var want []ws
		for _, p := range pages {
			if sc := (1-w)*bm[p.ID] + w*cos[p.ID]; sc > 0 {
				want = append(want, ws{p.ID, sc})
			}
		}
		slices.SortStableFunc(want, func(a, b ws) int { return cmp.Compare(b.score, a.score) })
		require.Len(t, got, len(want), "w=%v", w)
		for i := range want {
			require.Equal(t, want[i].id, got[i].Page.ID, "w=%v rank %d", w, i)
			require.InDelta(t, want[i].score, got[i].Score, 1e-6, "w=%v %s", w, want[i].id)
		}
	}
	// The agreement gate: BM25's top pages for "tomato rocket" are a, b and
	// e, and e (cos 0) is not among the nearest by vector, so the dense
	// weight is scaled by 2/3.
	e.table["tomato rocket"] = []float32{1, 0}
	hits2, err := plain.Search(ctx, "tomato rocket", 10)
	require.NoError(t, err)
	require.Len(t, hits2, 3)
	bm2 := map[string]float64{}
	for _, h := range hits2 {
		bm2[h.Page.ID] = h.Score
	}
	s3 := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e), kgmem.WithDenseWeight(0.6))
	require.NoError(t, s3.PutBatch(ctx, pages))
	got3, err := s3.Search(ctx, "tomato rocket", 10)
	require.NoError(t, err)
	wq := 0.6 * 2 / 3
	require.Len(t, got3, 4) // a, b, c, e
	for _, g := range got3 {
		require.InDelta(t, (1-wq)*bm2[g.Page.ID]+wq*cos[g.Page.ID], g.Score, 1e-6, g.Page.ID)
	}

	// w = 0 is BM25 exactly.
	s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e), kgmem.WithDenseWeight(0))
	require.NoError(t, s.PutBatch(ctx, pages))
	got, err := s.Search(ctx, "rocket", 10)
	require.NoError(t, err)
	require.Equal(t, hits, got)
}

// TestExactVectorSearchMatchesBruteForce checks the default index (dense
// weight 1: rank by cosine alone) against sorting every page by a float64
// dot product, for dimensions that exercise the unrolled loop and its
// tail, after updates and deletions.
func TestExactVectorSearchMatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	for _, d := range []int{1, 7, 8, 9, 64, 100} {
		r := rand.New(rand.NewPCG(uint64(d), 1))
		n := 300
		e := &tableEmbedder{name: "random", dims: d, table: map[string][]float32{}}
		s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e), kgmem.WithDenseWeight(1))
		vecs := map[string][]float32{}
		for i := range n {
			id := fmt.Sprintf("p%03d", i)
			text := "text " + id
			e.table[text] = vectest.Unit(r, d)
			require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: id, Content: text}))
			vecs[id] = e.table[text]
		}
		for i := 0; i < n; i += 7 { // delete some, replace others
			id := fmt.Sprintf("p%03d", i)
			if i%2 == 0 {
				require.NoError(t, s.Delete(ctx, id))
				delete(vecs, id)
				continue
			}
			text := "new text " + id
			e.table[text] = vectest.Unit(r, d)
			require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: id, Content: text}))
			vecs[id] = e.table[text]
		}
		for q := range 20 {
			query := fmt.Sprintf("query%d", q)
			qv := vectest.Unit(r, d)
			e.table[query] = qv
			type ref struct {
				id  string
				cos float64
			}
			var want []ref
			for id, v := range vecs {
				c := 0.0
				for i := range v {
					c += float64(v[i]) * float64(qv[i])
				}
				if c > 0 {
					want = append(want, ref{id, c})
				}
			}
			slices.SortFunc(want, func(a, b ref) int {
				if c := cmp.Compare(b.cos, a.cos); c != 0 {
					return c
				}
				return strings.Compare(a.id, b.id)
			})
			got, err := s.Search(ctx, query, 10)
			require.NoError(t, err)
			require.Len(t, got, min(10, len(want)))
			for i := range got {
				require.InDelta(t, want[i].cos, got[i].Score, 1e-5, "d=%d query %d rank %d", d, q, i)
				if i+1 < len(want) && want[i].cos-want[i+1].cos > 1e-5 && (i == 0 || want[i-1].cos-want[i].cos > 1e-5) {
					require.Equal(t, want[i].id, got[i].Page.ID, "d=%d query %d rank %d", d, q, i)
				}
			}
		}
	}
}

// faultyEmbedder returns what its mode says for the texts of its second
// call onwards (the first call succeeds, so that a batch fails midway).
type faultyEmbedder struct {
	mode  string
	calls atomic.Int64
}

var errModelDown = errors.New("model down")

func (f *faultyEmbedder) Model() kgmem.EmbeddingModel {
	return kgmem.EmbeddingModel{Name: "faulty", Dimensions: 4}
}

func (f *faultyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	good := f.calls.Add(1) == 1
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 2, 3, 4}
	}
	if good {
		return out, nil
	}
	switch f.mode {
	case "error":
		return nil, errModelDown
	case "count":
		return out[:len(out)-1], nil
	case "length":
		out[0] = []float32{1, 2, 3}
	case "nan":
		out[0] = []float32{1, float32(math.NaN()), 0, 0}
	case "inf":
		out[0] = []float32{float32(math.Inf(1)), 0, 0, 0}
	case "zero":
		out[0] = make([]float32, 4)
	}
	return out, nil
}

// TestEmbeddingFailureLeavesStoreUnchanged: a failing embedder, or one
// that returns unusable vectors, makes Put and PutBatch fail with
// ErrEmbedding and store nothing, and Search fail the same way.
func TestEmbeddingFailureLeavesStoreUnchanged(t *testing.T) {
	ctx := context.Background()
	batch := make([]kgmem.KnowledgePage, embedBatch+5)
	for i := range batch {
		batch[i] = kgmem.KnowledgePage{ID: fmt.Sprintf("b%d", i), Content: "page"}
	}
	for _, mode := range []string{"error", "count", "length", "nan", "inf", "zero"} {
		t.Run(mode, func(t *testing.T) {
			f := &faultyEmbedder{mode: mode}
			s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(f))
			require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "kept", Content: "kept page"}))
			before := snapshot(t, s)

			err := s.PutBatch(ctx, batch) // the second call of the batch fails
			require.ErrorIs(t, err, kgmem.ErrEmbedding)
			require.True(t, strings.HasPrefix(err.Error(), "kgmem: "), err.Error())
			require.Equal(t, 1, strings.Count(err.Error(), "kgmem: "), err.Error())
			if mode == "error" {
				require.ErrorIs(t, err, errModelDown)
			}
			require.Equal(t, before, snapshot(t, s))

			err = s.Put(ctx, kgmem.KnowledgePage{ID: "new", Content: "x"})
			require.ErrorIs(t, err, kgmem.ErrEmbedding)
			require.ErrorContains(t, err, `"new"`)
			require.Equal(t, before, snapshot(t, s))

			_, err = s.Search(ctx, "kept", 10)
			require.ErrorIs(t, err, kgmem.ErrEmbedding)
		})
	}
}

func snapshot(t *testing.T, s *kgmem.InMemoryKnowledgeStore) string {
	t.Helper()
	var b bytes.Buffer
	_, err := s.WriteTo(&b)
	require.NoError(t, err)
	return b.String()
}

// cancellingEmbedder cancels its context on its first call.
type cancellingEmbedder struct {
	kgmemtest.HashEmbedder
	cancel context.CancelFunc
}

func (c cancellingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.cancel()
	return c.HashEmbedder.Embed(context.Background(), texts)
}

func TestEmbeddingCancelled(t *testing.T) {
	pages := make([]kgmem.KnowledgePage, 3*embedBatch)
	for i := range pages {
		pages[i] = kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", i), Content: "some text"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(cancellingEmbedder{cancel: cancel}))
	require.ErrorIs(t, s.PutBatch(ctx, pages), context.Canceled)
	require.Zero(t, s.Len())
	require.ErrorIs(t, s.Put(ctx, pages[0]), context.Canceled)
	_, err := s.Search(ctx, "text", 5)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, s.Len())

	// An invalid page is reported before anything is embedded.
	e := &tableEmbedder{name: "t", dims: 2, table: map[string][]float32{}}
	s = kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e))
	err = s.PutBatch(context.Background(), []kgmem.KnowledgePage{{ID: "ok"}, {ID: " "}})
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.ErrorContains(t, err, "page 1")
	require.Zero(t, e.texts.Load())
}

func TestInvalidEmbeddingModel(t *testing.T) {
	ctx := context.Background()
	for _, m := range []kgmem.EmbeddingModel{{Name: "", Dimensions: 4}, {Name: " ", Dimensions: 4}, {Name: "m", Dimensions: 0}, {Name: "m", Dimensions: -1}} {
		e := &tableEmbedder{name: m.Name, dims: m.Dimensions}
		s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e))
		require.ErrorIs(t, s.Put(ctx, kgmem.KnowledgePage{ID: "a"}), kgmem.ErrInvalidArgument, "%+v", m)
		_, err := s.Search(ctx, "apollo", 1)
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
		_, err = kgmem.OpenStore(t.TempDir(), kgmem.WithEmbedder(e))
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
		_, err = kgmem.OpenMemory(t.TempDir(), kgmem.WithEmbedder(e))
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	}
}

// TestVectorSnapshotRoundTrip: a store with vectors reads back into an
// equal store that searches the same, without embedding a page again;
// reading vectors into a store of another model, or without an embedder,
// or pages without vectors into a store with one, fails with
// ErrEmbeddingModel and changes nothing.
func TestVectorSnapshotRoundTrip(t *testing.T) {
	ctx := context.Background()
	h := kgmemtest.HashEmbedder{Dimensions: 16}
	src := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(h))
	require.NoError(t, src.PutBatch(ctx, []kgmem.KnowledgePage{
		{ID: "a", Title: "Apollo", Content: "rocket launch"},
		{ID: "b", Content: "mission control"},
	}))
	snap := snapshot(t, src)
	require.Contains(t, snap, `"version":3`)
	require.Contains(t, snap, `"model":{"name":"kgmemtest-hash-v1","dimensions":16}`)

	counting := &countingEmbedder{Embedder: h}
	dst := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(counting))
	_, err := dst.ReadFrom(strings.NewReader(snap))
	require.NoError(t, err)
	require.Zero(t, counting.texts.Load(), "reading embeds nothing")
	require.Equal(t, snap, snapshot(t, dst))
	want, err := src.Search(ctx, "apollo missions", 10)
	require.NoError(t, err)
	got, err := dst.Search(ctx, "apollo missions", 10)
	require.NoError(t, err)
	require.Equal(t, want, got)

	plain := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, plain.Put(ctx, kgmem.KnowledgePage{ID: "p", Content: "plain"}))
	plainSnap := snapshot(t, plain)
	require.Contains(t, plainSnap, `"version":2`)
	for name, c := range map[string]struct {
		store *kgmem.InMemoryKnowledgeStore
		snap  string
	}{
		"no embedder":    {kgmem.NewInMemoryKnowledgeStore(), snap},
		"other name":     {kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(&tableEmbedder{name: "other", dims: 16})), snap},
		"other dims":     {kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(kgmemtest.HashEmbedder{Dimensions: 8})), snap},
		"pages, no vecs": {kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(h)), plainSnap},
	} {
		before := snapshot(t, c.store)
		_, err := c.store.ReadFrom(strings.NewReader(c.snap))
		require.ErrorIs(t, err, kgmem.ErrEmbeddingModel, name)
		require.Equal(t, before, snapshot(t, c.store), name)
	}
	// An empty snapshot without a model reads into a store with one.
	empty := snapshot(t, kgmem.NewInMemoryKnowledgeStore())
	_, err = kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(h)).ReadFrom(strings.NewReader(empty))
	require.NoError(t, err)

	// Damaged vectors are refused.
	for name, bad := range map[string]string{
		"not unit": strings.Replace(snap, `"vector":"`, `"vector":"AAAAQA`, 1),
		"base64":   strings.Replace(snap, `"vector":"`, `"vector":"!`, 1),
		"missing":  strings.Replace(snap, `,"vector":"`, `,"x":"`, 1),
		"v2 model": strings.Replace(snap, `"version":3`, `"version":2`, 1),
	} {
		_, err := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(h)).ReadFrom(strings.NewReader(bad))
		require.Error(t, err, name)
	}
}

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	kgmem.Embedder
	texts atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

// TestDurableVectors: a durable store and a memory recover their vectors
// from the journal and from the snapshot without calling the embedder,
// and refuse to open with another model or without one.
func TestDurableVectors(t *testing.T) {
	ctx := context.Background()
	h := kgmemtest.HashEmbedder{Dimensions: 32}
	for _, compact := range []bool{false, true} {
		dir := t.TempDir()
		s, err := kgmem.OpenStore(dir, kgmem.WithEmbedder(h))
		require.NoError(t, err)
		require.NoError(t, s.PutBatch(ctx, []kgmem.KnowledgePage{
			{ID: "a", Content: "rocket launch window"},
			{ID: "b", Content: "mission control room"},
		}))
		require.NoError(t, s.Delete(ctx, "b"))
		require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "c", Content: "spacecraft"}))
		want, err := s.Search(ctx, "rockets", 10)
		require.NoError(t, err)
		wantSnap := snapshot(t, s.InMemoryKnowledgeStore)
		if compact {
			require.NoError(t, s.Compact())
		}
		require.NoError(t, s.Close())

		counting := &countingEmbedder{Embedder: h}
		s, err = kgmem.OpenStore(dir, kgmem.WithEmbedder(counting))
		require.NoError(t, err)
		require.Zero(t, counting.texts.Load(), "recovery embeds nothing")
		require.Equal(t, wantSnap, snapshot(t, s.InMemoryKnowledgeStore))
		got, err := s.Search(ctx, "rockets", 10)
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.NoError(t, s.Close())

		for name, opts := range map[string][]kgmem.DurableOption{
			"no embedder": nil,
			"other model": {kgmem.WithEmbedder(&tableEmbedder{name: "other", dims: 32})},
			"other dims":  {kgmem.WithEmbedder(kgmemtest.HashEmbedder{Dimensions: 16})},
		} {
			_, err := kgmem.OpenStore(dir, opts...)
			require.ErrorIs(t, err, kgmem.ErrEmbeddingModel, "compact %v, %s", compact, name)
			require.ErrorIs(t, err, kgmem.ErrCorrupt, "compact %v, %s", compact, name)
		}
	}

	// A memory: Ingest journals the page's vector with it.
	dir := t.TempDir()
	m, err := kgmem.OpenMemory(dir, kgmem.WithEmbedder(h))
	require.NoError(t, err)
	_, err = m.Ingest(ctx, kgmem.KnowledgePage{ID: "p", Content: "Alice leads the rocket program"},
		kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Alice", Type: "person"}}})
	require.NoError(t, err)
	wantSnap := snapshot(t, m.Store())
	require.NoError(t, m.Close())
	counting := &countingEmbedder{Embedder: h}
	m, err = kgmem.OpenMemory(dir, kgmem.WithEmbedder(counting))
	require.NoError(t, err)
	require.Zero(t, counting.texts.Load())
	require.Equal(t, wantSnap, snapshot(t, m.Store()))
	require.NoError(t, m.Close())
	_, err = kgmem.OpenMemory(dir)
	require.ErrorIs(t, err, kgmem.ErrEmbeddingModel)
}

// embedBatch is how many pages a store hands its embedder per call (see
// WithEmbedder).
const embedBatch = 64
