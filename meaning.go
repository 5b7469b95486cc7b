package kgmem

import (
	"context"
	"hash/fnv"
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
// batches of DefaultEmbedBatch, honouring ctx; on failure the index stays
// as it was and the fallback is skipped with a warning, whose error in
// RetrievalResult.Errors wraps ErrEmbedding). The embedder's answers are
// checked as the store checks them (see ErrEmbedding), except that a zero
// vector is kept: its entity, or the query, links nothing. An embedder
// whose Model WithEmbedder would refuse makes the retriever's
// configuration invalid (ErrInvalidArgument). Memory is entities ×
// Model().Dimensions × 4 bytes per graph; a fallback costs one Embed call
// for the query and a scan of the vectors. InMemoryGraph and pgraph.Graph
// implement EntityChangeFeed, which keeps the vectors fresh by embedding
// only what changed; a graph that does not implement it is not linked by
// meaning.
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
	model     EmbeddingModel // emb.Model(), which never changes
	threshold float64
	indexes   []*entityVectors
}

func newMeaningLinker(e Embedder, threshold float64, graphs int) *meaningLinker {
	m := &meaningLinker{emb: e, model: e.Model(), threshold: threshold, indexes: make([]*entityVectors, graphs)}
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
	if err := x.update(ctx, feed, m.emb, m.model); err != nil {
		return nil, err
	}
	q, err := embedTexts(ctx, m.emb, m.model, []string{query}, func(int) string { return "query " + quote.Value(query) }, keepZero)
	if err != nil {
		return nil, err
	}
	return x.nearest(q[0], m.threshold, maxMeaningLinks), nil
}

func textSum(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// update brings the index up to date with the graph's writes since the
// last refresh, embedding only entities whose text changed, with e, whose
// model is m. Vectors are checked as the store checks its own (see
// embedTexts), except that a zero vector is kept: its entity links nothing.
func (x *entityVectors) update(ctx context.Context, feed EntityChangeFeed, e Embedder, m EmbeddingModel) error {
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
	texts := make([]string, len(jobs))
	for i, j := range jobs {
		texts[i] = j.text
	}
	vecs, err := embedTexts(ctx, e, m, texts, func(i int) string { return "entity " + quote.Value(jobs[i].id) }, keepZero)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dims = m.Dimensions
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
		c := float64(dot(q, x.vecs[i*x.dims:(i+1)*x.dims]))
		if c >= threshold && c > 0 {
			out = append(out, seedLink{id: id, quality: min(c, 1)})
		}
	}
	slices.SortFunc(out, bestSeedFirst)
	if len(out) > k {
		out = out[:k]
	}
	return out
}
