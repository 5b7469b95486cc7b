package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/kgmem/kgmem/internal/quote"
)

// Linking by meaning defaults.
const (
	// DefaultLinkThreshold is the least cosine similarity between the
	// question's vector and an entity's for WithLinkEmbedder to link the
	// entity, when its threshold is 0. It is chosen by measurement
	// (TestMeaningParaphraseEvaluation, with the Universal Sentence Encoder
	// lite): 30 questions that paraphrase a project's description without
	// sharing a word with it, and 15 off-topic questions. At 0.35 two in
	// three paraphrases link their project and no off-topic question links
	// anything; 0.3 links five in six but an off-topic question in eight,
	// 0.4 only half the paraphrases. Models differ: tune it for yours.
	DefaultLinkThreshold = 0.35
	// maxMeaningLinks is how many entities linking by meaning links at
	// most: the most similar, above the threshold.
	maxMeaningLinks = 3
	// meaningBatch is how many entity texts go to one Embed call.
	meaningBatch = 64
)

// WithLinkEmbedder turns on linking by meaning, a fallback of entity
// linking: when the query names no entity of a graph exactly (by name or
// alias), the query's vector is compared with each entity's, and the
// (at most 3) entities whose cosine similarity reaches threshold become
// the starts of that graph's walks, with link quality equal to the
// similarity, so "who runs the rocket program?" reaches "Project Apollo"
// when its description says it is one. threshold 0 means
// DefaultLinkThreshold (0.35); it must be in [0,1]. A nil e turns it off.
//
// An entity's vector is the embedding of its name, aliases and description
// (see EntityText). The retriever keeps one vector per entity per graph,
// float32 and unit length, maintained on writes rather than per query:
// before each fallback it asks the graph's EntityChangeFeed for the
// entities written since its last refresh and embeds only those (in
// batches of 64, honouring ctx; on failure the index stays as it was and
// the fallback is skipped with a warning). Memory is entities ×
// Model().Dimensions × 4 bytes per graph; a fallback costs one Embed call
// for the query and a scan of the vectors. Graphs that do not implement
// EntityChangeFeed (pgraph.Graph) are not linked by meaning.
func WithLinkEmbedder(e Embedder, threshold float64) RetrieverOption {
	return retrieverOptionFunc(func(r *MemoryRetriever) {
		r.linkEmbedder, r.linkThreshold = e, threshold
	})
}

// EntityText is the text linking by meaning embeds for an entity: its
// name, its aliases after "also:", and its description, each part that is
// not empty on a line of its own.
func EntityText(e Entity) string {
	var parts []string
	if n := strings.TrimSpace(e.Name); n != "" {
		parts = append(parts, n)
	}
	if len(e.Aliases) > 0 {
		parts = append(parts, "also: "+strings.Join(e.Aliases, ", "))
	}
	if d := strings.TrimSpace(e.Description); d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, "\n")
}

// meaningLinker links by meaning over the graphs of a retriever: one
// vector index per graph, by position in MemoryRetriever.graphs.
type meaningLinker struct {
	emb       Embedder
	threshold float64
	indexes   []*entityVectors
}

func newMeaningLinker(e Embedder, threshold float64, graphs int) *meaningLinker {
	m := &meaningLinker{emb: e, threshold: threshold, indexes: make([]*entityVectors, graphs)}
	for i := range m.indexes {
		m.indexes[i] = &entityVectors{refresh: make(chan struct{}, 1), pos: map[string]int{}}
	}
	return m
}

// entityVectors holds the unit vectors of a graph's entities.
//
// refresh is a one-slot semaphore held by the call that brings the index
// up to date (waiting for it honours ctx); mu guards the fields below it,
// which that call replaces only once its embedding succeeded. Lock order:
// refresh, then mu.
type entityVectors struct {
	refresh chan struct{}

	mu      sync.RWMutex
	version uint64 // of the graph's change feed, as of the last refresh
	ready   bool   // a refresh has succeeded
	dims    int
	ids     []string       // entity IDs; ids[i] owns vecs[i*dims:(i+1)*dims]
	sums    []uint64       // hash of the text each vector embeds
	vecs    []float32      // unit vectors, dims each
	pos     map[string]int // ID → index in ids
}

// link returns the entities of graph gi whose vectors are most similar to
// query's, at least the threshold, best first (ties: ID).
func (m *meaningLinker) link(ctx context.Context, gi int, g KnowledgeGraph, query string) ([]seedLink, error) {
	feed, ok := g.(EntityChangeFeed)
	if !ok {
		return nil, nil
	}
	x := m.indexes[gi]
	if err := x.update(ctx, feed, m.emb); err != nil {
		return nil, err
	}
	q, err := embedOne(ctx, m.emb, query)
	if err != nil {
		return nil, err
	}
	return x.nearest(q, m.threshold, maxMeaningLinks), nil
}

// embedOne embeds one text and returns its unit vector.
func embedOne(ctx context.Context, e Embedder, text string) ([]float32, error) {
	vs, err := embedChecked(ctx, e, []string{text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// embedChecked calls e.Embed and checks its answer: one vector per text,
// each of Model().Dimensions finite values; each is scaled to unit length
// (a zero vector stays zero and matches nothing).
func embedChecked(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	dims := e.Model().Dimensions
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts: %w", len(vs), len(texts), ErrInvalidArgument)
	}
	out := make([][]float32, len(vs))
	for i, v := range vs {
		if len(v) != dims {
			return nil, fmt.Errorf("embedder returned a vector of %d values for %s, want %d: %w",
				len(v), quote.Value(texts[i]), dims, ErrInvalidArgument)
		}
		var norm float64
		for _, f := range v {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("embedder returned a value that is not finite for %s: %w", quote.Value(texts[i]), ErrInvalidArgument)
			}
			norm += float64(f) * float64(f)
		}
		u := make([]float32, dims)
		if norm > 0 {
			inv := 1 / math.Sqrt(norm)
			for j, f := range v {
				u[j] = float32(float64(f) * inv)
			}
		}
		out[i] = u
	}
	return out, nil
}

func textSum(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// update brings the index up to date with the graph's writes since the
// last refresh, embedding only entities whose text changed.
func (x *entityVectors) update(ctx context.Context, feed EntityChangeFeed, e Embedder) error {
	select {
	case x.refresh <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-x.refresh }()
	x.mu.RLock()
	since, ready := x.version, x.ready
	x.mu.RUnlock()
	if !ready {
		since = 0
	}
	ch, err := feed.EntityChanges(ctx, since)
	if err != nil {
		return err
	}
	if ready && !ch.Reset && len(ch.Changed) == 0 && len(ch.Removed) == 0 {
		x.mu.Lock()
		x.version = ch.Version
		x.mu.Unlock()
		return nil
	}
	// Embed what is new or changed, outside mu: readers keep the old index.
	type job struct {
		id   string
		text string
		sum  uint64
	}
	var jobs []job
	x.mu.RLock()
	for _, ent := range ch.Changed {
		t := EntityText(ent)
		sum := textSum(t)
		// A vector whose text did not change is kept, after a Reset too.
		if i, ok := x.pos[ent.ID]; ok && x.sums[i] == sum {
			continue
		}
		jobs = append(jobs, job{ent.ID, t, sum})
	}
	x.mu.RUnlock()
	dims := e.Model().Dimensions
	vecs := make([][]float32, len(jobs))
	for lo := 0; lo < len(jobs); lo += meaningBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+meaningBatch, len(jobs))
		texts := make([]string, hi-lo)
		for i := range texts {
			texts[i] = jobs[lo+i].text
		}
		vs, err := embedChecked(ctx, e, texts)
		if err != nil {
			return err
		}
		copy(vecs[lo:hi], vs)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dims = dims // the Embedder's Model never changes
	if ch.Reset {
		keep := make(map[string]bool, len(ch.Changed))
		for _, ent := range ch.Changed {
			keep[ent.ID] = true
		}
		for _, id := range slices.Clone(x.ids) {
			if !keep[id] {
				x.remove(id)
			}
		}
	}
	for _, id := range ch.Removed {
		x.remove(id)
	}
	for k, j := range jobs {
		x.put(j.id, j.sum, vecs[k])
	}
	x.version, x.ready = ch.Version, true
	return nil
}

// put stores the vector of entity id; the caller holds mu.
func (x *entityVectors) put(id string, sum uint64, v []float32) {
	if i, ok := x.pos[id]; ok {
		x.sums[i] = sum
		copy(x.vecs[i*x.dims:(i+1)*x.dims], v)
		return
	}
	x.pos[id] = len(x.ids)
	x.ids = append(x.ids, id)
	x.sums = append(x.sums, sum)
	x.vecs = append(x.vecs, v...)
}

// remove drops entity id, moving the last entry into its place; the
// caller holds mu.
func (x *entityVectors) remove(id string) {
	i, ok := x.pos[id]
	if !ok {
		return
	}
	last := len(x.ids) - 1
	if i != last {
		x.ids[i], x.sums[i] = x.ids[last], x.sums[last]
		copy(x.vecs[i*x.dims:(i+1)*x.dims], x.vecs[last*x.dims:(last+1)*x.dims])
		x.pos[x.ids[i]] = i
	}
	x.ids, x.sums, x.vecs = x.ids[:last], x.sums[:last], x.vecs[:last*x.dims]
	delete(x.pos, id)
}

// nearest returns the at most k entities whose cosine with q, a unit
// vector, is at least threshold, best first (ties: ID), the cosine as
// quality. Cost: O(entities × dims).
func (x *entityVectors) nearest(q []float32, threshold float64, k int) []seedLink {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(q) != x.dims {
		return nil
	}
	var out []seedLink
	for i, id := range x.ids {
		v := x.vecs[i*x.dims : (i+1)*x.dims]
		v = v[:len(q)]
		var d0, d1, d2, d3 float32 // four sums, in a fixed order: deterministic
		j := 0
		for ; j+4 <= len(v); j += 4 {
			d0 += v[j] * q[j]
			d1 += v[j+1] * q[j+1]
			d2 += v[j+2] * q[j+2]
			d3 += v[j+3] * q[j+3]
		}
		for ; j < len(v); j++ {
			d0 += v[j] * q[j]
		}
		dot := float64((d0 + d1) + (d2 + d3))
		if dot >= threshold && dot > 0 {
			out = append(out, seedLink{id: id, quality: min(dot, 1)})
		}
	}
	slices.SortFunc(out, func(a, b seedLink) int {
		if c := cmp.Compare(b.quality, a.quality); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}
