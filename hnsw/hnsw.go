// Package hnsw is an approximate [kgmem.VectorIndex] for large knowledge
// stores: a Hierarchical Navigable Small World graph (Malkov and
// Yashunin), from github.com/coder/hnsw. It lives in a module of its own
// so that users of kgmem's core never download it.
//
//	store := kgmem.NewInMemoryKnowledgeStore(
//		kgmem.WithEmbedder(myEmbedder),
//		kgmem.WithVectorIndex(hnsw.Factory(hnsw.Options{})),
//	)
//
// # Accuracy
//
// Search is approximate: it may miss some of the nearest vectors. With the
// default Options, on 384-dimension random unit vectors (the hardest case:
// real embeddings cluster, which helps), the store's top 10 by cosine
// similarity holds at least 95% of the exact top 10 (see
// TestRecallAgainstExact). The graph's entry point is picked anew at each
// search, so two searches for the same vector may differ in what they
// miss; what they return is always ranked by exact similarity by the
// store.
//
// # Deletion
//
// The graph is never edited in place for a deletion or a replacement: the
// old node is marked dead and skipped, and once dead nodes outnumber live
// ones the graph is rebuilt from the live vectors. Rebuilding costs
// O(n log n) distance computations, amortised over the n deletions that
// led to it.
//
// # Concurrency
//
// An Index is safe for the store's use: any number of concurrent
// Searches, or one Add or Delete at a time with no Search (the store's
// lock ensures that). Used on its own, it needs the same discipline.
package hnsw

import (
	"math/rand"

	"github.com/coder/hnsw"
	"github.com/kgmem/kgmem"
	"github.com/viterin/vek/vek32"
)

// Defaults of Options.
const (
	// DefaultM is the number of neighbours a node keeps.
	DefaultM = 16
	// DefaultEfSearch is the size of the candidate list of a search.
	DefaultEfSearch = 100
	// DefaultMinK is the least number of neighbours a search looks for,
	// whatever k it is asked for: a wider search, for a better recall of
	// the first few.
	DefaultMinK = 100
)

// Options tune an Index. Zero fields mean their defaults.
type Options struct {
	// M is the number of neighbours each node keeps (default DefaultM):
	// higher is more accurate, larger and slower to build.
	M int
	// EfSearch is the candidate list size of a search (default
	// DefaultEfSearch): higher is more accurate and slower.
	EfSearch int
	// MinK is the least number of neighbours a search looks for (default
	// DefaultMinK), trimmed to the k asked for afterwards.
	MinK int
	// Seed seeds the random levels of the nodes (default 1), so that the
	// same insertions build the same graph.
	Seed int64
}

// Index is an HNSW graph of unit vectors keyed by page ID; it implements
// [kgmem.VectorIndex].
type Index struct {
	opts Options
	dims int
	g    *hnsw.Graph[uint32]
	// live maps a page ID to its node's key; ids[key] is the page ID of
	// node key, or "" for a dead node; vecs[key] its vector.
	live map[string]uint32
	ids  []string
	vecs [][]float32
	dead int
}

var _ kgmem.VectorIndex = (*Index)(nil)

// New returns an empty index of vectors of dims dimensions.
func New(dims int, o Options) *Index {
	if o.M <= 0 {
		o.M = DefaultM
	}
	if o.EfSearch <= 0 {
		o.EfSearch = DefaultEfSearch
	}
	if o.MinK <= 0 {
		o.MinK = DefaultMinK
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	x := &Index{opts: o, dims: dims}
	x.reset()
	return x
}

// Factory returns a constructor for kgmem.WithVectorIndex.
func Factory(o Options) func(dims int) kgmem.VectorIndex {
	return func(dims int) kgmem.VectorIndex { return New(dims, o) }
}

func (x *Index) reset() {
	g := hnsw.NewGraph[uint32]()
	g.M = x.opts.M
	g.EfSearch = x.opts.EfSearch
	g.Rng = rand.New(rand.NewSource(x.opts.Seed))
	g.Distance = dotDistance
	x.g, x.live, x.ids, x.vecs, x.dead = g, map[string]uint32{}, nil, nil, 0
}

// dotDistance is the cosine distance of unit vectors.
func dotDistance(a, b []float32) float32 { return 1 - vek32.Dot(a, b) }

// Len returns the number of live vectors.
func (x *Index) Len() int { return len(x.live) }

// Add stores vec (of the index's dimensions; kept, not copied) under id,
// replacing what id held.
func (x *Index) Add(id string, vec []float32) {
	if len(vec) != x.dims {
		panic("hnsw: vector of the wrong dimensions") // the store checks them
	}
	x.Delete(id)
	key := uint32(len(x.ids))
	x.ids = append(x.ids, id)
	x.vecs = append(x.vecs, vec)
	x.live[id] = key
	x.g.Add(hnsw.MakeNode(key, vec))
}

// Delete marks id's node dead; an absent id is not an error.
func (x *Index) Delete(id string) {
	key, ok := x.live[id]
	if !ok {
		return
	}
	delete(x.live, id)
	x.ids[key] = ""
	x.vecs[key] = nil
	x.dead++
	if x.dead > len(x.live) && x.dead > 64 {
		x.rebuild()
	}
}

// rebuild makes a new graph of the live nodes, in key order.
func (x *Index) rebuild() {
	ids, vecs := x.ids, x.vecs
	x.reset()
	for k, id := range ids {
		if id != "" {
			x.Add(id, vecs[k])
		}
	}
}

// Search returns the IDs of up to k live vectors nearest query, nearest
// first.
func (x *Index) Search(query []float32, k int) ([]string, error) {
	if k <= 0 || len(x.live) == 0 {
		return nil, nil
	}
	want := max(k, x.opts.MinK) + x.dead
	nodes := x.g.Search(query, min(want, len(x.ids)))
	out := make([]string, 0, k)
	for _, n := range nodes {
		if id := x.ids[n.Key]; id != "" {
			out = append(out, id)
			if len(out) == k {
				break
			}
		}
	}
	return out, nil
}
