package pgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/hashembed"
)

// testEmbedder is a deterministic embedder: feature hashing of words and
// trigrams (internal/hashembed), of 36 dimensions by default (not a
// multiple of 8, so that dot products have a tail), under a model name of
// its own. calls counts its Embed calls; fail makes them fail.
type testEmbedder struct {
	name  string
	dims  int
	calls atomic.Int64
	fail  atomic.Bool
}

func newTestEmbedder(name string, dims int) *testEmbedder {
	return &testEmbedder{name: name, dims: dims}
}

func (e *testEmbedder) Model() kgmem.EmbeddingModel {
	return kgmem.EmbeddingModel{Name: e.name, Dimensions: e.dims}
}

var errTestEmbed = errors.New("test embedder down")

func (e *testEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	if e.fail.Load() {
		return nil, errTestEmbed
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashembed.Embed(t, e.dims)
	}
	return out, nil
}

// newVectorStore returns a Store of namespace ns with embedder e (none
// when nil), clearing the namespace when the test ends.
func newVectorStore(tb testing.TB, ns string, e kgmem.Embedder) *Store {
	tb.Helper()
	s, err := NewStore(context.Background(), needDB(tb), WithNamespace(ns), WithEmbedder(e))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Clear(context.Background()) })
	return s
}

// vectorRows returns the number of vectors stored for ns.
func vectorRows(t *testing.T, ns string) int {
	t.Helper()
	var n int
	if err := needDB(t).QueryRow(t.Context(), "SELECT count(*) FROM "+vectorsTable+" WHERE namespace = $1", ns).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStoreVectorsMatchInMemory applies one random sequence of puts,
// batches, deletes and searches to kgmem's in-memory store and to a Store,
// both with the same embedder, and requires every answer to be the same:
// the same pages in the same order, scores within 1e-12. Writes go through
// two Stores of the namespace, so that each must notice the other's writes
// before it searches with the vectors it keeps. Queries include words no
// page has, which only the vectors can match.
func TestStoreVectorsMatchInMemory(t *testing.T) {
	ctx := t.Context()
	for history := range uint64(3) {
		t.Run(fmt.Sprint("history=", history), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(history, 0x7ec))
			e := newTestEmbedder("hash-36", 36)
			ref := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e))
			ns := randomNamespace("vectors")
			stores := []*Store{newVectorStore(t, ns, e), newVectorStore(t, ns, e)}
			page := func() kgmem.KnowledgePage {
				p := kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", rng.IntN(80)), Content: randomPageText(rng, 1+rng.IntN(40))}
				if rng.IntN(3) > 0 {
					p.Title = randomPageText(rng, 1+rng.IntN(5))
				}
				return p
			}
			unseen := []string{"quantum", "lattice", "graphing", "agentic", "知识", "retriever", "policys"}
			searches, results, denseOnly := 0, 0, 0
			for step := range 300 {
				s := stores[rng.IntN(len(stores))]
				switch op := rng.IntN(10); {
				case op < 3:
					p := page()
					if err, gerr := ref.Put(ctx, p), s.Put(ctx, p); (err == nil) != (gerr == nil) {
						t.Fatalf("step %d: Put: %v, want %v", step, gerr, err)
					}
				case op < 4:
					var ps []kgmem.KnowledgePage
					for range rng.IntN(8) {
						ps = append(ps, page())
					}
					if err, gerr := ref.PutBatch(ctx, ps), s.PutBatch(ctx, ps); (err == nil) != (gerr == nil) {
						t.Fatalf("step %d: PutBatch: %v, want %v", step, gerr, err)
					}
				case op < 5:
					id := fmt.Sprintf("p%d", rng.IntN(80))
					err, gerr := ref.Delete(ctx, id), s.Delete(ctx, id)
					if errors.Is(err, kgmem.ErrNotFound) != errors.Is(gerr, kgmem.ErrNotFound) || (err == nil) != (gerr == nil) {
						t.Fatalf("step %d: Delete(%q): %v, want %v", step, id, gerr, err)
					}
				case op < 6:
					q := unseen[rng.IntN(len(unseen))] + " " + unseen[rng.IntN(len(unseen))]
					searches++
					n := sameSearch(t, ref, s, q, rng.IntN(15))
					results += n
					denseOnly += n
				default:
					searches++
					results += sameSearch(t, ref, s, randomPageText(rng, 1+rng.IntN(6)), rng.IntN(15))
				}
			}
			if n := vectorRows(t, ns); n != ref.Len() {
				t.Fatalf("%d vectors stored for %d pages", n, ref.Len())
			}
			if results == 0 || denseOnly == 0 {
				t.Fatalf("%d searches found %d pages, %d by their vectors alone", searches, results, denseOnly)
			}
			t.Logf("%d searches compared, %d pages found (%d by their vectors alone)", searches, results, denseOnly)
		})
	}
}

// TestStoreVectorsRemoved requires Delete and Clear to remove the vectors
// of the pages they remove, and Memories.Remove those of its scope.
func TestStoreVectorsRemoved(t *testing.T) {
	ctx := t.Context()
	e := newTestEmbedder("hash-36", 36)
	ns := randomNamespace("vectors")
	s := newVectorStore(t, ns, e)
	must(t, s.PutBatch(ctx, []kgmem.KnowledgePage{{ID: "a", Content: "graph memory"}, {ID: "b", Content: "agent policy"}, {ID: "c", Content: "raft"}}))
	if n := vectorRows(t, ns); n != 3 {
		t.Fatalf("%d vectors after storing 3 pages", n)
	}
	must(t, s.Put(ctx, kgmem.KnowledgePage{ID: "a", Content: "graph memory again"}))
	if n := vectorRows(t, ns); n != 3 {
		t.Fatalf("%d vectors after replacing a page of 3", n)
	}
	must(t, s.Delete(ctx, "b"))
	if n := vectorRows(t, ns); n != 2 {
		t.Fatalf("%d vectors after deleting a page of 3", n)
	}
	got, err := s.Search(ctx, "agent policy", 10)
	must(t, err)
	for _, p := range got {
		if p.Page.ID == "b" {
			t.Fatalf("Search found deleted page b: %v", pageIDs(got))
		}
	}
	must(t, s.Clear(ctx))
	if n := vectorRows(t, ns); n != 0 {
		t.Fatalf("%d vectors after Clear", n)
	}

	ms, err := OpenMemories(ctx, needDB(t), WithMemoryOptions(WithEmbedder(e)))
	must(t, err)
	scope := randomNamespace("alice")
	m, err := ms.Memory(ctx, scope)
	must(t, err)
	if _, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: "p", Content: "Alice leads Apollo"},
		kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Alice"}}}); err != nil {
		t.Fatal(err)
	}
	scopeNS := m.Graph().Namespace()
	if n := vectorRows(t, scopeNS); n != 1 {
		t.Fatalf("%d vectors after ingesting a page into a scope", n)
	}
	must(t, ms.Remove(ctx, scope))
	if n := vectorRows(t, scopeNS); n != 0 {
		t.Fatalf("%d vectors after Remove of the scope", n)
	}
}

// TestStoreModelMismatch requires a store whose model differs from that of
// the namespace's vectors to fail as kgmem's store does on reopen
// (kgmem.ErrEmbeddingModel), at NewStore and at a write, storing nothing,
// and an empty namespace to take any model.
func TestStoreModelMismatch(t *testing.T) {
	ctx := t.Context()
	pool := needDB(t)
	a := newTestEmbedder("hash-36", 36)
	for _, tt := range []struct {
		name  string
		first kgmem.Embedder // writes the namespace's pages
		then  kgmem.Embedder // opens it next
	}{
		{"another name", a, newTestEmbedder("other", 36)},
		{"other dimensions", a, newTestEmbedder("hash-36", 40)},
		{"no embedder over vectors", a, nil},
		{"an embedder over pages without vectors", nil, a},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns := randomNamespace("model")
			// A store opened while the namespace is empty accepts any
			// model, and fails at its first write once pages are there.
			early := newVectorStore(t, ns, tt.then)
			first := newVectorStore(t, ns, tt.first)
			must(t, first.Put(ctx, kgmem.KnowledgePage{ID: "a", Content: "graph memory"}))
			_, err := NewStore(ctx, pool, WithNamespace(ns), WithEmbedder(tt.then))
			if !errors.Is(err, kgmem.ErrEmbeddingModel) {
				t.Fatalf("NewStore over the other model's pages: %v, want ErrEmbeddingModel", err)
			}
			_, err = OpenMemory(ctx, pool, WithNamespace(ns), WithEmbedder(tt.then))
			if !errors.Is(err, kgmem.ErrEmbeddingModel) {
				t.Fatalf("OpenMemory over the other model's pages: %v, want ErrEmbeddingModel", err)
			}
			if err := early.Put(ctx, kgmem.KnowledgePage{ID: "b", Content: "agent"}); !errors.Is(err, kgmem.ErrEmbeddingModel) {
				t.Fatalf("Put over the other model's pages: %v, want ErrEmbeddingModel", err)
			}
			if _, err := early.Search(ctx, "graph", 10); !errors.Is(err, kgmem.ErrEmbeddingModel) {
				t.Fatalf("Search over the other model's pages: %v, want ErrEmbeddingModel", err)
			}
			if n, err := first.Len(ctx); err != nil || n != 1 {
				t.Fatalf("Len = %d, %v after the refused Put; want 1", n, err)
			}
			// Once empty, the namespace takes the other model.
			must(t, first.Delete(ctx, "a"))
			must(t, early.Put(ctx, kgmem.KnowledgePage{ID: "b", Content: "agent"}))
			if _, err := NewStore(ctx, pool, WithNamespace(ns), WithEmbedder(tt.then)); err != nil {
				t.Fatalf("NewStore with the namespace's model: %v", err)
			}
			if err := first.Put(ctx, kgmem.KnowledgePage{ID: "a", Content: "graph memory"}); !errors.Is(err, kgmem.ErrEmbeddingModel) {
				t.Fatalf("Put of the first model after the namespace changed model: %v, want ErrEmbeddingModel", err)
			}
		})
	}
}

// TestStoreEmbedderRejects checks the embedders and embeddings a Store
// refuses: an unfit model at NewStore (kgmem.ErrInvalidArgument), a
// failing or unusable embedding at Put and Search (kgmem.ErrEmbedding),
// storing nothing.
func TestStoreEmbedderRejects(t *testing.T) {
	ctx := t.Context()
	pool := needDB(t)
	for _, e := range []kgmem.Embedder{newTestEmbedder(" ", 8), newTestEmbedder("m", 0), newTestEmbedder("m", 1<<16+1), newTestEmbedder("a\x00b", 8)} {
		if _, err := NewStore(ctx, pool, WithNamespace(randomNamespace("bad")), WithEmbedder(e)); !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Errorf("NewStore with model %+v: %v, want ErrInvalidArgument", e.Model(), err)
		}
	}
	e := newTestEmbedder("hash-36", 36)
	ns := randomNamespace("embedfail")
	s := newVectorStore(t, ns, e)
	must(t, s.Put(ctx, kgmem.KnowledgePage{ID: "a", Content: "graph"}))
	e.fail.Store(true)
	if err := s.PutBatch(ctx, []kgmem.KnowledgePage{{ID: "b", Content: "agent"}, {ID: "c", Content: "raft"}}); !errors.Is(err, kgmem.ErrEmbedding) || !errors.Is(err, errTestEmbed) {
		t.Fatalf("PutBatch with a failing embedder: %v, want ErrEmbedding wrapping the embedder's error", err)
	}
	if _, err := s.Search(ctx, "graph", 10); !errors.Is(err, kgmem.ErrEmbedding) {
		t.Fatalf("Search with a failing embedder: %v, want ErrEmbedding", err)
	}
	e.fail.Store(false)
	if n, err := s.Len(ctx); err != nil || n != 1 || vectorRows(t, ns) != 1 {
		t.Fatalf("Len = %d, %v, %d vectors after the failed PutBatch; want 1 and 1", n, err, vectorRows(t, ns))
	}
	zero := &zeroEmbedder{testEmbedder: newTestEmbedder("hash-36", 36)}
	zs := newVectorStore(t, randomNamespace("zero"), zero)
	if err := zs.Put(ctx, kgmem.KnowledgePage{ID: "a", Content: "graph"}); !errors.Is(err, kgmem.ErrEmbedding) {
		t.Fatalf("Put of a page embedded as the zero vector: %v, want ErrEmbedding", err)
	}
}

// zeroEmbedder embeds every text as the zero vector.
type zeroEmbedder struct{ *testEmbedder }

func (z *zeroEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, z.dims)
	}
	return out, nil
}

// TestMemoryVectorsMatchInProcess ingests the same pages into kgmem's
// in-process memory and a Memory, both with the same embedder, and
// requires the same retrievals: items, explanations and scores, the
// content channel fused with the vectors and entities linked by meaning.
func TestMemoryVectorsMatchInProcess(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	e := newTestEmbedder("hash-36", 36)
	rng := rand.New(rand.NewPCG(7, 0x3e3))
	ref, err := kgmem.OpenMemory(t.TempDir(), kgmem.WithEmbedder(e))
	must(t, err)
	defer ref.Close()
	ns := randomNamespace("vecmemory")
	m, err := OpenMemory(ctx, pool, WithNamespace(ns), WithEmbedder(e))
	must(t, err)
	t.Cleanup(func() {
		_ = m.Graph().Clear(context.Background())
		_ = m.Store().Clear(context.Background())
	})
	for i := range 40 {
		page, x := randomIngest(rng, rng.IntN(30))
		want, werr := ref.Ingest(ctx, page, x)
		got, gerr := m.Ingest(ctx, page, x)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("ingest %d: %v, want %v", i, gerr, werr)
		}
		equal(t, want, got)
	}
	if n := vectorRows(t, ns); n != ref.Store().Len() {
		t.Fatalf("%d vectors for %d pages", n, ref.Store().Len())
	}
	items := 0
	questions := []string{"quantum lattice", "who is the agentic leader"}
	for range 60 {
		questions = append(questions, randomQuestion(rng))
	}
	for _, q := range questions {
		want, werr := ref.Retriever().Retrieve(ctx, q)
		got, gerr := m.Retriever().Retrieve(ctx, q)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("Retrieve(%q): %v, want %v", q, gerr, werr)
		}
		wantItems, wantScores := renderItems(want)
		gotItems, gotScores := renderItems(got)
		if !reflect.DeepEqual(wantItems, gotItems) {
			t.Fatalf("Retrieve(%q):\ngot  %q\nwant %q", q, gotItems, wantItems)
		}
		for i := range wantScores {
			if math.Abs(wantScores[i]-gotScores[i]) > 1e-9 {
				t.Fatalf("Retrieve(%q): item %d scores %.17g, want %.17g", q, i, gotScores[i], wantScores[i])
			}
		}
		items += len(want.Items)
	}
	if items == 0 {
		t.Fatal("no retrieval found anything")
	}
	t.Logf("%d retrievals compared, %d items", len(questions), items)
}
