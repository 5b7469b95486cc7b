package kgmem

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/walk"
)

// Linking by meaning defaults.
const (
	// defaultLinkThreshold is the least cosine similarity between the
	// question's vector and an entity's for WithLinkEmbedder to link the
	// entity, when its threshold is 0. It is chosen by measurement
	// (TestMeaningParaphraseEvaluation, with the Universal Sentence Encoder
	// lite): 30 questions that paraphrase a project's description without
	// sharing a word with it, and 15 off-topic questions. At 0.35 two in
	// three paraphrases link their project and no off-topic question links
	// anything; 0.3 links five in six but an off-topic question in eight,
	// 0.4 only half the paraphrases. Models differ: tune it for yours.
	defaultLinkThreshold = 0.35
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
// 0.35 (chosen by measurement, see defaultLinkThreshold); it must be in [0,1]. A nil e turns it off.
//
// An entity's vector is the embedding of its name, aliases and description
// (see EntityText). The retriever keeps one vector per entity per graph,
// float32 and unit length, maintained on writes rather than per query:
// each fallback asks the graph's EntityChangeFeed for the entities written
// since the last time and embeds only those whose text changed, in ID
// order, in batches of 64, storing each batch as soon as it
// is embedded. InMemoryGraph and pgraph.Graph implement EntityChangeFeed;
// a graph that does not is not linked by meaning.
//
// A fallback costs one Embed call for the query, the refresh (nothing
// once the vectors are up to date; every entity the first time, and after
// the graph's contents were replaced) and a scan of the vectors. When the
// query's context has a deadline (its ctx's, or SourceTimeout's if that
// comes first), the fallback may spend half the time left when it starts;
// the refresh does not start a batch it expects to run past that (it
// expects a batch to take as long as the last one did). Queries that need
// a refresh at the same time take turns, each waiting within its own half.
// When the half is spent, or the embedder or the change feed fails, the
// fallback links among the vectors it has, those it embedded before it
// stopped included, and the result carries a Warning, with its error in
// RetrievalResult.Errors:
//
//	graph "g": linking by meaning: incomplete: 1536 of 12000 entities embedded: context deadline exceeded
//	graph "g": linking by meaning: skipped: embed query "…": context deadline exceeded
//
// "incomplete" when the refresh stopped (an entity whose text changed is
// linked by its older vector meanwhile), "skipped" when the query could
// not be embedded. The error wraps context.DeadlineExceeded for the time
// budget, ErrEmbedding for an embedder failure, the feed's error for the
// feed's. The rest of the answer (the content channel, entities linked by
// name) stands, and the next query's refresh goes on where this one
// stopped, so a large graph is embedded over the first few queries;
// RefreshEntityVectors embeds it ahead of them. A query without a deadline
// refreshes to the end. A ctx that is done (cancelled, or past its own
// deadline, as an embedder that ignores ctx can make it) ends Retrieve
// with ctx.Err(), keeping the batches already embedded.
//
// The embedder's answers are checked as the store checks them (see
// ErrEmbedding), except that a zero vector is kept: its entity, or the
// query, links nothing. An embedder whose Model WithEmbedder would refuse
// makes the retriever's configuration invalid (ErrInvalidArgument). Memory
// is entities × Model().Dimensions × 4 bytes per graph, plus the text of
// each entity still to embed.
func WithLinkEmbedder(e Embedder, threshold float64) RetrieverOption {
	return constructOption{"WithLinkEmbedder", func(r *MemoryRetriever) {
		r.linkEmbedder, r.linkThreshold = e, threshold
	}}
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

// RefreshEntityVectors brings the entity vectors of linking by meaning
// (see WithLinkEmbedder) up to date with the writes of every graph of the
// retriever that implements EntityChangeFeed, as a query's refresh does
// but bounded by ctx alone, not by a share of a query's time. Call it
// after loading a large graph, or on a schedule, so that queries find the
// vectors ready instead of building them a share of their deadline at a
// time. It is safe to call while queries run: refreshes of a graph take
// turns. What was embedded before a failure or the end of ctx is kept. It
// returns nil when linking by meaning is off, and stops at the first graph
// whose refresh fails, with an error naming it that wraps ctx.Err() for a
// done ctx, ErrEmbedding for a failing embedder, or the change feed's
// error. An invalid configuration returns Retrieve's error
// (ErrInvalidArgument).
func (r *MemoryRetriever) RefreshEntityVectors(ctx context.Context) error {
	if r.err != nil {
		return r.err
	}
	if r.meaning == nil {
		return nil
	}
	for gi, g := range r.graphs {
		feed, ok := g.g.(EntityChangeFeed)
		if !ok {
			continue
		}
		if err := r.meaning.indexes[gi].update(ctx, feed, r.meaning.emb, r.meaning.model); err != nil {
			return errmsg.Wrapf(err, "kgmem: refresh entity vectors: graph %s", quote.Value(g.name))
		}
	}
	return nil
}

// meaningShare is the share of the time left before a query's deadline
// (its ctx's, or SourceTimeout's when sooner) that linking by meaning may
// spend on one graph: embedding the query, refreshing the entity vectors
// and scanning them.
const meaningShare = 0.5

// meaningBudget returns ctx bounded to meaningShare of the time it has
// left, and the function that releases it. A ctx without a deadline is
// returned as it is.
func meaningBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	now := time.Now()
	return context.WithDeadline(ctx, now.Add(time.Duration(float64(deadline.Sub(now))*meaningShare)))
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
		m.indexes[i] = &entityVectors{
			refresh: make(chan struct{}, 1),
			pending: map[string]pendingText{},
			dims:    m.model.Dimensions,
			pos:     map[string]int{},
		}
	}
	return m
}

// entityVectors holds the unit vectors of a graph's entities, and the
// entities read from the graph's change feed whose vector is still to be
// made.
//
// refresh is a one-slot semaphore held by the call that brings the index
// up to date (waiting for it honours ctx); that call alone reads and
// writes the fields between refresh and mu. mu guards the fields below
// it: the refreshing call writes them under mu, one batch at a time, so
// that readers link with every vector made so far, and, being their only
// writer, reads them without it. Lock order: refresh, then mu.
type entityVectors struct {
	refresh chan struct{}

	read    bool                   // the feed was read, as of version
	version uint64                 // the feed's Version at its last read
	pending map[string]pendingText // entity ID → its text now, to embed
	order   []string               // the keys of pending, sorted
	batch   time.Duration          // how long the next batch is expected to take

	mu    sync.RWMutex
	dims  int
	ids   []string       // entity IDs; ids[i] owns vecs[i*dims:(i+1)*dims]
	sums  []uint64       // hash of the text each vector embeds
	vecs  []float32      // unit vectors, dims each
	pos   map[string]int // ID → index in ids
	known int            // entities in the graph as of the last read of the feed
	fresh int            // of them, those whose vector embeds their text now
}

// pendingText is the text of an entity whose vector is missing or embeds
// an older text.
type pendingText struct {
	text string
	sum  uint64
}

// link returns the entities of graph gi whose vectors are most similar to
// query's, at least the threshold, best first (ties: ID), spending at most
// meaningBudget of ctx. A non-nil error says linking by meaning was
// skipped (no seeds) or incomplete (seeds among the entities embedded so
// far); the caller tells a done ctx from the budget by ctx.Err().
func (m *meaningLinker) link(ctx context.Context, gi int, g KnowledgeGraph, query string) ([]seedLink, error) {
	feed, ok := g.(EntityChangeFeed)
	if !ok {
		return nil, nil
	}
	ctx, cancel := meaningBudget(ctx)
	defer cancel()
	q, err := embedTexts(ctx, m.emb, m.model, []string{query}, func(int) string { return "query " + quote.Value(query) }, keepZero)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return nil, fmt.Errorf("skipped: embed query %s: %w", quote.Value(query), err)
		}
		return nil, errmsg.Wrap("skipped", err)
	}
	x := m.indexes[gi]
	err = x.update(ctx, feed, m.emb, m.model)
	return x.nearest(q[0], m.threshold, maxMeaningLinks), err
}

// update brings the index up to date with the graph's writes since the
// last read of its feed, embedding with e, whose model is m, only the
// entities whose text changed, 64 at a time in ID order.
// Each batch is stored as soon as it is embedded, so a refresh cut short
// keeps what it made and the next one goes on from there. When ctx has a
// deadline, a batch is not started once the time left is shorter than the
// last batch took (an expectation halved each time it stops a refresh).
// When entities still wait to be embedded, it returns why (see incomplete): a done ctx or a deadline too near, a failing feed
// or embedder. Vectors are checked as the store checks its own (see
// embedTexts), except that a zero vector is kept: its entity links
// nothing.
func (x *entityVectors) update(ctx context.Context, feed EntityChangeFeed, e Embedder, m EmbeddingModel) error {
	select {
	case x.refresh <- struct{}{}:
	case <-ctx.Done():
		return x.incomplete(ctx.Err())
	}
	defer func() { <-x.refresh }()
	since := x.version
	if !x.read {
		since = 0
	}
	ch, err := feed.EntityChanges(ctx, since)
	if err != nil {
		return x.incomplete(err)
	}
	x.apply(ch)
	for len(x.order) > 0 {
		if err := ctx.Err(); err != nil {
			return x.incomplete(err)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < x.batch {
			// Halved, so that one slow batch cannot keep every later
			// query from trying one.
			x.batch /= 2
			return x.incomplete(context.DeadlineExceeded)
		}
		batch := x.order[:min(len(x.order), defaultEmbedBatch)]
		texts := make([]string, len(batch))
		for i, id := range batch {
			texts[i] = x.pending[id].text
		}
		start := time.Now()
		vecs, err := embedTexts(ctx, e, m, texts, func(i int) string { return "entity " + quote.Value(batch[i]) }, keepZero)
		if err != nil {
			return x.incomplete(err)
		}
		x.batch = time.Since(start)
		x.mu.Lock()
		for i, id := range batch {
			x.put(id, x.pending[id].sum, vecs[i])
			delete(x.pending, id)
		}
		x.fresh = x.known - len(x.pending)
		x.mu.Unlock()
		x.order = x.order[len(batch):]
	}
	return nil
}

// apply records the changes ch reports: it forgets the vectors of removed
// entities (of every entity ch does not list, after a Reset) and marks
// those whose text changed as pending. The caller holds refresh.
func (x *entityVectors) apply(ch EntityChanges) {
	x.version, x.read = ch.Version, true
	if !ch.Reset && len(ch.Changed) == 0 && len(ch.Removed) == 0 {
		return
	}
	gone := ch.Removed
	if ch.Reset {
		keep := make(map[string]bool, len(ch.Changed))
		for _, ent := range ch.Changed {
			keep[ent.ID] = true
		}
		gone = nil
		for _, id := range x.ids {
			if !keep[id] {
				gone = append(gone, id)
			}
		}
		clear(x.pending)
	}
	for _, id := range gone {
		delete(x.pending, id)
	}
	for _, ent := range ch.Changed {
		t := EntityText(ent)
		sum := walk.IDHash(t) // FNV-1a, of the text here
		// A vector whose text did not change is kept, after a Reset too.
		if i, ok := x.pos[ent.ID]; ok && x.sums[i] == sum {
			delete(x.pending, ent.ID)
			continue
		}
		x.pending[ent.ID] = pendingText{t, sum}
	}
	x.order = slices.Sorted(maps.Keys(x.pending))
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range gone {
		x.remove(id)
	}
	x.known = len(x.ids)
	for _, id := range x.order {
		if _, ok := x.pos[id]; !ok {
			x.known++
		}
	}
	x.fresh = x.known - len(x.pending)
}

// incomplete returns the error of a refresh that stopped for cause before
// every entity was embedded, with how many were.
func (x *entityVectors) incomplete(cause error) error {
	x.mu.RLock()
	fresh, known := x.fresh, x.known
	x.mu.RUnlock()
	if known == 0 {
		return errmsg.Wrap("incomplete: no entity embedded yet", cause)
	}
	return errmsg.Wrapf(cause, "incomplete: %d of %d entities embedded", fresh, known)
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
