package kgmem

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/question"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/spread"
	"golang.org/x/sync/errgroup"
)

// Retriever defaults.
const (
	// defaultMaxResults is RetrieverConfig.MaxResults when it is 0.
	defaultMaxResults = 10
	// defaultMaxConcurrency is RetrieverConfig.MaxConcurrency when it is 0.
	defaultMaxConcurrency = 8
	// defaultProvenanceWeight is RetrieverConfig.ProvenanceWeight when it is 0.
	defaultProvenanceWeight = 0.8
)

// defaultExpansion is how the graph channel expands the entities a query
// names unless WithExpansion says otherwise (see WithExpansion).
var defaultExpansion = TraverseOptions{Depth: DefaultWalkHops, Direction: Both}

// RetrieverConfig configures a MemoryRetriever. The zero value is valid:
// every zero field means the documented default. A field outside its
// range (a negative count, an unknown Fusion) makes every Retrieve of the
// retriever fail with an error wrapping ErrInvalidArgument that names it;
// see NewMemoryRetriever.
type RetrieverConfig struct {
	// MaxResults is how many items Retrieve returns at most. 0 means 10.
	// WithMaxResults sets it.
	MaxResults int
	// Strategy is what Retrieve searches: Hybrid, the zero value, fuses
	// the content and graph channels; KnowledgeOnly and GraphOnly run one
	// of them. WithStrategy sets it.
	Strategy RetrievalStrategy
	// Expansion is how the graph channel walks from the entities a query
	// names, read as GetRelated reads it (Depth 0 is one hop, the zero
	// Direction is Outgoing; Limit is ignored: each graph keeps Candidates
	// entities). nil, the default, walks up to DefaultWalkHops hops in
	// both directions on every relation type: Both, unlike GetRelated,
	// because a question may name either end of a relation and its words,
	// not a default, decide each hop's direction. WithExpansion, WithDepth
	// and WithRelationTypes set it; NewMemoryRetriever copies it.
	Expansion *TraverseOptions
	// AsOf, when not nil, is the instant the graph channel answers at
	// (only relations valid then are walked), whatever Expansion's AsOf
	// and the question's time words say. nil, the default: Expansion's
	// AsOf when it has one, else the time the question's words give
	// ("in 2023"), else now. WithAsOf sets it.
	AsOf *AsOf
	// Reranker, when not nil, reorders the best RerankTopN items after
	// fusion (see WithReranker, which sets both). RerankTopN 0 means
	// MaxResults.
	Reranker   Reranker
	RerankTopN int
	// Fusion is how Hybrid merges the channels. The zero value is
	// FusionDefault.
	Fusion Fusion
	// Candidates is how many items each source contributes before fusion:
	// pages asked of each store, entities kept per graph. 0 means
	// 3 × MaxResults.
	Candidates int
	// SourceTimeout bounds each store's or graph's part of a call; a source
	// that runs over becomes a Warning. 0 means no bound beyond ctx.
	SourceTimeout time.Duration
	// MaxConcurrency is how many sources are searched at once. 0 means 8.
	// A value of 1 searches them one after another. Page spreading (see
	// SpreadMode) runs in one goroutine of its own beside them.
	MaxConcurrency int
	// ProvenanceWeight scales the score of the entity that cites a page into
	// the score of that page when Hybrid surfaces it (see Retrieve). 0 means
	// 0.8; it must not exceed 1.
	ProvenanceWeight float64
	// NoProvenance turns off surfacing pages that entities cite.
	NoProvenance bool
	// NoExpansion makes the graph channel return only the entities the
	// query names, without following any relation from them.
	NoExpansion bool
	// Vocabulary registers words for the graph's relation and entity types
	// that questions use but their names and kgmem's built-in lexicon do
	// not cover. The zero value registers none.
	Vocabulary Vocabulary
	// Seed says when Hybrid seeds the graph channel with the entities the
	// top content hits cite (see SeedMode). The zero value is
	// SeedDefault, which means SeedWhenUnlinked (SeedOff with FusionRRF).
	Seed SeedMode
	// Spread says when Hybrid ranks pages by page spreading as well as by
	// text (see SpreadMode). The zero value is SpreadAuto: over graphs
	// whose relation types read as free text.
	Spread SpreadMode
	// SeedPages is how many of the best content hits seed the graph
	// channel. 0 means 3.
	SeedPages int
	// MaxSeeds is how many entities those pages seed at most, per graph:
	// the best by their page's score, then ID. 0 means 8.
	MaxSeeds int
	// MMRLambda in (0,1) reorders the result by maximal marginal
	// relevance: among the best 3 × MaxResults items, Retrieve picks one
	// at a time the item with the highest λ·Score − (1−λ)·(its greatest
	// similarity to the items already picked), similarity being the
	// Jaccard index of the items' word sets (Tokenize over
	// RetrievalItem.Text; 1 for the same item). Items keep their Score, so
	// the list is in MMR order, not by Score; ties keep the earlier item.
	// 0, the default, turns MMR off, and so does 1 (relevance alone): on
	// kgmem's evaluation, whose questions have few relevant items, MMR
	// lowers nDCG@10 (0.846 → 0.824 at λ 0.7). It must be in [0,1].
	MMRLambda float64
}

// RetrieverOption configures NewMemoryRetriever, and, for the options
// that say so, one Retrieve call. Every setting is a field of
// RetrieverConfig, where its default is stated: WithStrategy,
// WithExpansion, WithDepth, WithRelationTypes, WithAsOf, WithMaxResults,
// WithNoExpansion and WithReranker each set one, for every call when
// passed to NewMemoryRetriever (after cfg, so the option wins) and for one
// call when passed to Retrieve, so that one retriever, built once with its
// sources and their caches, serves every call. The options that add
// sources or an embedder (WithKnowledgeGraph, WithNamedKnowledgeGraph,
// WithKnowledgeStore, WithLinkEmbedder) are wiring, not settings, and are
// for NewMemoryRetriever only. Like every option type of kgmem it is made
// only by the With… functions that return it.
type RetrieverOption interface {
	applyRetriever(*MemoryRetriever)
	// perCall names the option when it cannot apply to one call, "" when
	// it can.
	perCall() string
}

// retrieverOptionFunc is an option that can apply to one call.
type retrieverOptionFunc func(*MemoryRetriever)

func (f retrieverOptionFunc) applyRetriever(r *MemoryRetriever) { f(r) }
func (retrieverOptionFunc) perCall() string                     { return "" }

// constructOption is an option for NewMemoryRetriever only.
type constructOption struct {
	name  string
	apply func(*MemoryRetriever)
}

func (o constructOption) applyRetriever(r *MemoryRetriever) { o.apply(r) }
func (o constructOption) perCall() string                   { return o.name }

// WithKnowledgeGraph adds a knowledge graph, named "graph" in warnings.
func WithKnowledgeGraph(g KnowledgeGraph) RetrieverOption {
	return WithNamedKnowledgeGraph("graph", g)
}

// WithNamedKnowledgeGraph adds a knowledge graph under a name that warnings
// and RetrievalItem.Source use; a retriever may hold several, one per
// knowledge base. A nil g is ignored.
func WithNamedKnowledgeGraph(name string, g KnowledgeGraph) RetrieverOption {
	return constructOption{"WithNamedKnowledgeGraph", func(r *MemoryRetriever) {
		if g != nil {
			r.graphs = append(r.graphs, namedGraph{name, g})
		}
	}}
}

// WithKnowledgeStore adds a knowledge store besides the one given to
// NewMemoryRetriever, under a name that warnings and RetrievalItem.Source
// use. A nil s is ignored.
func WithKnowledgeStore(name string, s KnowledgeStore) RetrieverOption {
	return constructOption{"WithKnowledgeStore", func(r *MemoryRetriever) {
		if s != nil {
			r.stores = append(r.stores, namedStore{name, s})
		}
	}}
}

// WithStrategy sets the strategy; the default is Hybrid. An unknown
// strategy makes Retrieve fail with ErrInvalidArgument.
func WithStrategy(s RetrievalStrategy) RetrieverOption {
	return retrieverOptionFunc(func(r *MemoryRetriever) { r.raw.Strategy = s })
}

// WithExpansion sets RetrieverConfig.Expansion, for the retriever or for
// one call: how the graph channel expands the entities a query names
// (walk length, direction, relation types), read as GetRelated reads it.
// A value GetRelated rejects makes Retrieve fail with ErrInvalidArgument.
// To return only the named entities, use WithNoExpansion.
func WithExpansion(opts TraverseOptions) RetrieverOption {
	e := cloneExpansion(opts) // the caller's slice may change after
	return retrieverOptionFunc(func(r *MemoryRetriever) { r.raw.Expansion = e })
}

// cloneExpansion returns a copy of e that shares nothing with it, Depth 0
// read as one hop.
func cloneExpansion(e TraverseOptions) *TraverseOptions {
	e.RelationTypes = slices.Clone(e.RelationTypes)
	if e.Depth == 0 {
		e.Depth = 1
	}
	return &e
}

// expansion returns the expansion of c, the default when c has none.
func (c *RetrieverConfig) expansion() TraverseOptions {
	if c.Expansion == nil {
		return defaultExpansion
	}
	return *c.Expansion
}

// WithAsOf sets RetrieverConfig.AsOf, for the retriever or for one call:
// the graph channel answers as of a (only relations valid at that instant
// are walked, see AsOf), whatever Expansion's AsOf and the question's time
// words say. Without it the channel reads as of Expansion's AsOf, else of
// the time the question's words give, else now, so a relation that has
// ended is never walked.
func WithAsOf(a AsOf) RetrieverOption {
	return retrieverOptionFunc(func(r *MemoryRetriever) { r.raw.AsOf = &a })
}

// WithMaxResults sets RetrieverConfig.MaxResults, for the retriever or
// for one call: how many items Retrieve returns at most (0: the default,
// 10). Candidates, when the configuration leaves it 0, follows it.
func WithMaxResults(n int) RetrieverOption {
	return retrieverOptionFunc(func(r *MemoryRetriever) { r.raw.MaxResults = n })
}

// WithDepth sets the Depth of RetrieverConfig.Expansion, for the
// retriever or for one call: how many hops the graph channel walks from
// the entities a query names (0 is one hop), keeping the rest of the
// expansion.
func WithDepth(n int) RetrieverOption {
	if n == 0 {
		n = 1
	}
	return retrieverOptionFunc(func(r *MemoryRetriever) {
		e := cloneExpansion(r.raw.expansion())
		e.Depth = n // a negative n fails the expansion's check
		r.raw.Expansion = e
	})
}

// WithRelationTypes sets the RelationTypes of RetrieverConfig.Expansion,
// for the retriever or for one call: the graph channel walks only these
// relation types (none: every type), keeping the rest of the expansion.
func WithRelationTypes(types ...string) RetrieverOption {
	types = slices.Clone(types)
	return retrieverOptionFunc(func(r *MemoryRetriever) {
		e := cloneExpansion(r.raw.expansion())
		e.RelationTypes = slices.Clone(types)
		r.raw.Expansion = e
	})
}

// WithNoExpansion sets RetrieverConfig.NoExpansion, for the retriever or
// for one call: the graph channel returns only the entities the query
// names, without following any relation from them.
func WithNoExpansion() RetrieverOption {
	return retrieverOptionFunc(func(r *MemoryRetriever) { r.raw.NoExpansion = true })
}

// forCall returns a copy of r with opts applied for one call, sharing its
// sources and caches, or an error naming an option that cannot apply to a
// call or an invalid setting.
func (r *MemoryRetriever) forCall(opts []RetrieverOption) (*MemoryRetriever, error) {
	c := *r
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("kgmem: retrieve: option %d is nil: %w", i, ErrInvalidArgument)
		}
		if name := o.perCall(); name != "" {
			return nil, fmt.Errorf("kgmem: retrieve: option %d: %s configures NewMemoryRetriever, not one call: %w", i, name, ErrInvalidArgument)
		}
		o.applyRetriever(&c)
	}
	c.cfg = c.raw
	var err error
	if c.cfg, err = c.config(); err != nil {
		return nil, err
	}
	return &c, nil
}

// asOf is the instant the graph channel answers at, as the retriever's
// settings give it (the question's time words aside).
func (r *MemoryRetriever) asOf() AsOf {
	if r.cfg.AsOf != nil {
		return *r.cfg.AsOf
	}
	return r.cfg.expansion().AsOf
}

type namedGraph struct {
	name string
	g    KnowledgeGraph
}

type namedStore struct {
	name string
	s    KnowledgeStore
}

// MemoryRetriever answers a query from knowledge stores (the content
// channel: "what is X") and knowledge graphs (the graph channel: "what is
// related to X"), in parallel, as one ranked list. It is safe for
// concurrent use; its configuration is fixed at construction.
type MemoryRetriever struct {
	cfg    RetrieverConfig // defaults applied
	raw    RetrieverConfig // as given, WithMaxResults applied: what a call's options start from
	err    error           // the first invalid setting; every Retrieve returns it
	vocab  *question.Vocab // cfg.Vocabulary, compiled
	stores []namedStore
	graphs []namedGraph

	linkEmbedder  Embedder       // WithLinkEmbedder
	linkThreshold float64        // WithLinkEmbedder
	meaning       *meaningLinker // built from the two above; nil when off
}

// NewMemoryRetriever returns a retriever over store (named "store" in
// warnings; nil for none) configured by cfg and opts.
//
// NewMemoryRetriever checks cfg and opts once. It cannot return an error,
// so an invalid value (see RetrieverConfig and each option) is kept
// instead, and every Retrieve returns it, wrapping ErrInvalidArgument; a
// nil option is such a value. This is kgmem's one policy for a bad
// option: never ignored and never a panic, but an error from the
// constructor when it can return one (OpenGraph, OpenStore, OpenMemory)
// and from the first call otherwise.
func NewMemoryRetriever(store KnowledgeStore, cfg RetrieverConfig, opts ...RetrieverOption) *MemoryRetriever {
	if cfg.Expansion != nil {
		cfg.Expansion = cloneExpansion(*cfg.Expansion)
	}
	if cfg.AsOf != nil {
		a := *cfg.AsOf
		cfg.AsOf = &a
	}
	r := &MemoryRetriever{raw: cfg, vocab: compileVocabulary(cfg.Vocabulary)}
	if store != nil {
		r.stores = append(r.stores, namedStore{"store", store})
	}
	for i, o := range opts {
		if o == nil {
			if r.err == nil {
				r.err = fmt.Errorf("kgmem: retriever config: option %d is nil: %w", i, ErrInvalidArgument)
			}
			continue
		}
		o.applyRetriever(r)
	}
	r.cfg = r.raw
	if r.err == nil {
		r.cfg, r.err = r.config()
	}
	if r.linkEmbedder != nil && len(r.graphs) > 0 {
		r.meaning = newMeaningLinker(r.linkEmbedder, r.linkThreshold, len(r.graphs))
		if r.meaning.threshold == 0 {
			r.meaning.threshold = defaultLinkThreshold
		}
	}
	return r
}

// config returns the configuration with defaults applied, or an error
// naming the first invalid field.
func (r *MemoryRetriever) config() (RetrieverConfig, error) {
	c := r.cfg
	bad := func(format string, args ...any) (RetrieverConfig, error) {
		return c, fmt.Errorf("kgmem: retriever config: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
	switch {
	case c.MaxResults < 0:
		return bad("negative MaxResults %d", c.MaxResults)
	case c.Candidates < 0:
		return bad("negative Candidates %d", c.Candidates)
	case c.MaxConcurrency < 0:
		return bad("negative MaxConcurrency %d", c.MaxConcurrency)
	case c.SourceTimeout < 0:
		return bad("negative SourceTimeout %v", c.SourceTimeout)
	case !(c.ProvenanceWeight >= 0 && c.ProvenanceWeight <= 1):
		return bad("ProvenanceWeight %v outside [0,1]", c.ProvenanceWeight)
	case c.Fusion > FusionWeighted:
		return bad("unknown fusion %v", c.Fusion)
	case c.Strategy > GraphOnly:
		return bad("unknown strategy %v", c.Strategy)
	case c.Seed > SeedAlways:
		return bad("unknown seed mode %v", c.Seed)
	case c.Spread > SpreadOn:
		return bad("unknown spread mode %v", c.Spread)
	case c.SeedPages < 0:
		return bad("negative SeedPages %d", c.SeedPages)
	case c.MaxSeeds < 0:
		return bad("negative MaxSeeds %d", c.MaxSeeds)
	case !(c.MMRLambda >= 0 && c.MMRLambda <= 1):
		return bad("MMRLambda %v outside [0,1]", c.MMRLambda)
	case !(r.linkThreshold >= 0 && r.linkThreshold <= 1):
		return bad("link threshold %v outside [0,1]", r.linkThreshold)
	case r.linkEmbedder != nil && modelProblem(r.linkEmbedder.Model()) != "":
		return bad("WithLinkEmbedder: %s", modelProblem(r.linkEmbedder.Model()))
	case c.RerankTopN < 0:
		return bad("negative reranker topN %d", c.RerankTopN)
	}
	if c.Expansion == nil {
		e := defaultExpansion
		c.Expansion = &e
	}
	if err := validateTraverse(c.Expansion); err != nil {
		return c, errmsg.Wrap("kgmem: retriever config: expansion", err)
	}
	if c.AsOf != nil {
		if err := checkAsOf(*c.AsOf); err != nil {
			return c, errmsg.Wrap("kgmem: retriever config: AsOf", err)
		}
	}
	if err := c.Vocabulary.validate(); err != nil {
		return c, err
	}
	if c.MaxResults == 0 {
		c.MaxResults = defaultMaxResults
	}
	if c.Candidates == 0 {
		c.Candidates = 3 * c.MaxResults
	}
	if c.MaxConcurrency == 0 {
		c.MaxConcurrency = defaultMaxConcurrency
	}
	if c.ProvenanceWeight == 0 {
		c.ProvenanceWeight = defaultProvenanceWeight
	}
	if c.SeedPages == 0 {
		c.SeedPages = defaultSeedPages
	}
	if c.MaxSeeds == 0 {
		c.MaxSeeds = defaultMaxSeeds
	}
	return c, nil
}

// sourceRun is the outcome of one source's part of a call; each goroutine
// writes only its own.
type sourceRun struct {
	name       string
	index      int // in stores or graphs
	content    bool
	pages      []ScoredPage
	hits       []graphHit
	linked     int
	meaning    int   // of linked, entities linked by meaning
	seeded     int   // entities the content hits seeded (see seed.go)
	soft       error // a part of the source failed; its answer stands
	err        error
	start, end time.Time
	time       *timeReading // a graph's: the question's time words, read once
}

// graphHit is an entity the graph channel found.
type graphHit struct {
	entity  Entity
	score   float64
	path    []string
	rels    []Relation
	names   []string
	matched []string // by hop: the query words that asked for it
	typeCue string   // the query words naming the entity's type
	asOf    timeRead // the time the question's words set (see timeq.go)
}

// Retrieve answers query. Depending on the strategy (see WithStrategy) it
// runs the content channel (every store's Search), the graph channel (in
// every graph: link the entities the query names and follow the relations
// it asks about from them, see the package documentation), or both at the
// same time, and returns one list, best first, of at most MaxResults items.
//
// Graph items are entities, each once with its best walk and the query
// words that chose each hop; the entities the query names are items too,
// ranked as context below the answers their walks found. In Hybrid, pages
// that state the relations of an entity's walk (Relation.SourceIDs) or that
// the found entities cite (Entity.SourceIDs) but the text search missed are
// added with a graph score derived from the entity's, so the graph can
// surface text that shares no words with the query; the channels are then
// merged by cfg.Fusion. Scores are in [0,1].
//
// opts override the retriever's settings for this call only (see
// RetrieverOption for the options that can); an option that cannot, or an
// invalid setting, returns ErrInvalidArgument.
//
// Hybrid without a graph runs KnowledgeOnly, and without a store GraphOnly;
// Result.Strategy says what ran. An empty query returns an empty result.
//
// Sources are isolated: a source that fails, panics (a *PanicError with the
// stack) or runs over SourceTimeout while another source of the strategy
// answers becomes a Warning naming it, with its error in Errors, and so
// does a page a store returns with a blank ID or a score that is not a
// number (scores outside [0,1] are clamped). When every source fails,
// Retrieve returns an error joining their errors. Retrieve stops waiting
// for a source at SourceTimeout, or when ctx is done, even if the source
// ignores its context: such a source's goroutine runs on until it returns,
// and its late result is dropped. Without a SourceTimeout, kgmem's own
// in-process stores (without an embedder) and graphs (without
// WithLinkEmbedder) are searched on the calling goroutine instead, since
// they check ctx themselves and a goroutine costs more than a small
// memory's search. A cancelled ctx returns ctx.Err(). A
// query that is not valid UTF-8, an invalid configuration or a strategy
// without the sources it needs returns ErrInvalidArgument.
func (r *MemoryRetriever) Retrieve(ctx context.Context, query string, opts ...RetrieverOption) (RetrievalResult, error) {
	return r.retrieve(ctx, query, opts, false)
}

// retrieve is Retrieve. With oneByOne, the sources are searched one after
// the other on the calling goroutine, as a cross-scope Retrieve asks each
// scope to: its scopes already run in parallel, and a goroutine per source
// would cost more than a small scope's search.
func (r *MemoryRetriever) retrieve(ctx context.Context, query string, opts []RetrieverOption, oneByOne bool) (RetrievalResult, error) {
	begin := time.Now()
	if err := ctx.Err(); err != nil {
		return RetrievalResult{}, err
	}
	if r.err != nil {
		return RetrievalResult{}, r.err
	}
	if len(opts) > 0 {
		call, err := r.forCall(opts)
		if err != nil {
			return RetrievalResult{}, err
		}
		r = call
	}
	cfg := r.cfg
	if !utf8.ValidString(query) {
		return RetrievalResult{}, fmt.Errorf("kgmem: retrieve: query %s is not valid UTF-8: %w", quote.Value(query), ErrInvalidArgument)
	}
	strategy, err := r.effectiveStrategy()
	if err != nil {
		return RetrievalResult{}, err
	}
	res := RetrievalResult{Query: query, Strategy: strategy}
	if strings.TrimSpace(query) == "" {
		return res, nil
	}

	runs := r.plan(strategy)
	// contentDone is closed once every content run has answered.
	contentDone := make(chan struct{})
	var contentLeft atomic.Int32
	for i := range runs {
		if runs[i].content {
			contentLeft.Add(1)
		}
	}
	if contentLeft.Load() == 0 {
		close(contentDone)
	}
	// Page spreading reads the graph and the question (or, where the
	// question names no entity, the best text hits), and so runs beside
	// the channels (one goroutine more than MaxConcurrency).
	var early *earlySpread
	spreading := strategy == Hybrid && cfg.Spread != SpreadOff && r.spreads(cfg)
	if spreading {
		early = r.startSpread(ctx, cfg, query, runs, contentDone)
		defer early.wait() // Retrieve leaves no goroutine behind
	}
	var g errgroup.Group
	g.SetLimit(cfg.MaxConcurrency)
	for i := range runs {
		search := func() error {
			r.runSource(ctx, cfg, query, &runs[i])
			if runs[i].content && contentLeft.Add(-1) == 0 {
				close(contentDone)
			}
			return nil
		}
		if oneByOne {
			_ = search()
		} else {
			g.Go(search)
		}
	}
	_ = g.Wait() // sources report through runs, never through the group
	if err := ctx.Err(); err != nil {
		return RetrievalResult{}, err
	}
	var seedErrs []error
	if strategy == Hybrid {
		if res.Stats.Seed, seedErrs, err = r.seedGraphs(ctx, cfg, query, runs); err != nil {
			return RetrievalResult{}, err
		}
	}

	var causes []error
	contentOK, graphOK := false, false
	for i := range runs {
		run := &runs[i]
		st := &res.Stats.Graph
		if run.content {
			st = &res.Stats.Content
		}
		st.Sources++
		if run.err != nil {
			st.Failed++
			kind := "graph"
			if run.content {
				kind = "store"
			}
			causes = append(causes, fmt.Errorf("%s %s: %w", kind, quote.Value(run.name), run.err))
			continue
		}
		if run.content {
			contentOK = true
		} else {
			graphOK = true
		}
	}
	res.Stats.Content.Duration = span(runs, true)
	res.Stats.Graph.Duration = span(runs, false)
	if !contentOK && !graphOK {
		return RetrievalResult{}, fmt.Errorf("kgmem: retrieve %s: every source failed: %w", quote.Value(query), errors.Join(causes...))
	}
	for _, c := range causes {
		res.warn(c)
	}
	for i := range runs {
		if run := &runs[i]; run.err == nil && run.soft != nil {
			res.warn(fmt.Errorf("graph %q: %w", run.name, run.soft))
		}
	}
	for _, e := range seedErrs {
		res.warn(e)
	}

	extra := 0 // the pages surfacing and page spreading may add, each at most cfg.Candidates
	if strategy == Hybrid {
		extra = 2 * cfg.Candidates
	}
	c := r.collect(runs, &res, extra)
	if strategy == Hybrid && !cfg.NoProvenance {
		n, err := r.surface(ctx, runs, c, cfg)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return RetrievalResult{}, ctxErr
			}
			res.warn(err)
		}
		res.Stats.Surfaced = n
	}
	spread := false
	if spreading {
		n, err := r.spreadGraphs(ctx, cfg, query, runs, c, early)
		spread = n > 0
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return RetrievalResult{}, ctxErr
			}
			res.warn(err)
		}
	}
	c.fuse(strategy, cfg.Fusion, spread)
	items := c.best(ranked(cfg))
	c.release()
	n, err := r.rerank(ctx, cfg, query, items)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return RetrievalResult{}, ctxErr
		}
		res.warn(err)
	}
	res.Stats.Reranked = n
	mmr(items, cfg.MMRLambda, cfg.MaxResults)
	if len(items) > cfg.MaxResults {
		items = items[:cfg.MaxResults]
	}
	res.Items = items
	res.Stats.Total = time.Since(begin)
	return res, nil
}

// ranked is how many of the best items Retrieve's last steps read: the
// MaxResults it returns, the items a Reranker scores, and the pool MMR
// chooses from.
func ranked(cfg RetrieverConfig) int {
	n := cfg.MaxResults
	if cfg.Reranker != nil {
		n = max(n, cfg.RerankTopN)
	}
	if cfg.MMRLambda > 0 && cfg.MMRLambda < 1 {
		n = max(n, mmrPool*cfg.MaxResults)
	}
	return n
}

// effectiveStrategy returns the strategy that will run given the sources.
func (r *MemoryRetriever) effectiveStrategy() (RetrievalStrategy, error) {
	hasStores, hasGraphs := len(r.stores) > 0, len(r.graphs) > 0
	switch {
	case r.cfg.Strategy == Hybrid && hasStores && hasGraphs:
		return Hybrid, nil
	case (r.cfg.Strategy == Hybrid || r.cfg.Strategy == KnowledgeOnly) && hasStores:
		return KnowledgeOnly, nil
	case (r.cfg.Strategy == Hybrid || r.cfg.Strategy == GraphOnly) && hasGraphs:
		return GraphOnly, nil
	case r.cfg.Strategy == KnowledgeOnly:
		return 0, fmt.Errorf("kgmem: retrieve: strategy %v needs a knowledge store: %w", r.cfg.Strategy, ErrInvalidArgument)
	case r.cfg.Strategy == GraphOnly:
		return 0, fmt.Errorf("kgmem: retrieve: strategy %v needs a knowledge graph: %w", r.cfg.Strategy, ErrInvalidArgument)
	}
	return 0, fmt.Errorf("kgmem: retrieve: no knowledge store or graph: %w", ErrInvalidArgument)
}

// plan lists the sources the strategy asks.
func (r *MemoryRetriever) plan(strategy RetrievalStrategy) []sourceRun {
	var runs []sourceRun
	if strategy != GraphOnly {
		for i, s := range r.stores {
			runs = append(runs, sourceRun{name: s.name, index: i, content: true})
		}
	}
	if strategy != KnowledgeOnly {
		for i, g := range r.graphs {
			runs = append(runs, sourceRun{name: g.name, index: i, time: new(timeReading)})
		}
	}
	return runs
}

// runSource searches one source and records the outcome in run. The
// source runs guarded (see guarded): Retrieve stops waiting for it at
// SourceTimeout or when ctx is done, whether or not it honours its
// context, and a panic in it becomes its error. Without a SourceTimeout,
// kgmem's own in-process sources run on the calling goroutine instead
// (see callSource): they check ctx themselves, and a goroutine of their own
// would cost more than a small memory's search.
func (r *MemoryRetriever) runSource(ctx context.Context, cfg RetrieverConfig, query string, run *sourceRun) {
	run.start = time.Now()
	defer func() { run.end = time.Now() }()
	if run.content {
		store := r.stores[run.index].s
		search := func(ctx context.Context) ([]ScoredPage, error) {
			return store.Search(ctx, query, cfg.Candidates)
		}
		run.pages, run.err = callSource(ctx, cfg.SourceTimeout, ownStore(store), search)
	} else {
		g := r.graphs[run.index].g
		search := func(ctx context.Context) (graphAnswer, error) {
			return r.searchGraph(ctx, run.index, run.time, g, query, cfg.Candidates)
		}
		a, err := callSource(ctx, cfg.SourceTimeout, r.meaning == nil && ownGraph(g), search)
		run.hits, run.linked, run.meaning, run.soft, run.err = a.hits, a.linked, a.meaning, a.soft, err
	}
	if run.err != nil && errors.Is(run.err, context.DeadlineExceeded) && cfg.SourceTimeout > 0 && ctx.Err() == nil {
		run.err = fmt.Errorf("timed out after %v: %w", cfg.SourceTimeout, run.err)
	}
}

// ownStore reports whether s is one of kgmem's in-process stores without
// an embedder (a vector index is used only with one): its Search runs no
// code of the user's and checks ctx itself.
func ownStore(s KnowledgeStore) bool {
	var st *InMemoryKnowledgeStore
	switch s := s.(type) {
	case *InMemoryKnowledgeStore:
		st = s
	case *DurableKnowledgeStore:
		if s == nil {
			return false
		}
		st = s.InMemoryKnowledgeStore
	default:
		return false
	}
	return st != nil && st.embedder == nil
}

// ownGraph reports whether g is one of kgmem's in-process graphs, whose
// graph channel (without linking by meaning) runs no code of the user's
// and checks ctx itself.
func ownGraph(g KnowledgeGraph) bool {
	switch g := g.(type) {
	case *InMemoryGraph:
		return g != nil
	case *DurableGraph:
		return g != nil && g.InMemoryGraph != nil
	}
	return false
}

// graphAnswer is the graph channel's answer over one graph.
type graphAnswer struct {
	hits    []graphHit
	linked  int   // entities the query named that the answer used
	meaning int   // of them, entities linked by meaning (see WithLinkEmbedder)
	soft    error // linking by meaning was skipped or incomplete; the answer stands
}

// searchGraph is the graph channel over one graph (the gi-th): link the
// entities the query names, or, when it names none and linking by meaning
// is on, the entities it means; follow the relations the query asks about
// from them (see walk.go), and return the best keep entities, each once
// with its best walk, and how many linked entities the answer used.
func (r *MemoryRetriever) searchGraph(ctx context.Context, gi int, tr *timeReading, g KnowledgeGraph, query string, keep int) (graphAnswer, error) {
	var a graphAnswer
	var err error
	a.hits, a.linked, err = r.walkFromNames(ctx, tr, g, query, keep)
	if err != nil || a.linked > 0 || r.meaning == nil {
		return a, err
	}
	// Linking by meaning that is skipped or incomplete (an embedder
	// failure, or its share of the deadline spent) warns and links with
	// the vectors it has; a done ctx is the call's end.
	seeds, err := r.meaning.link(ctx, gi, g, query)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return a, ctxErr
		}
		a.soft = errmsg.Wrap("linking by meaning", err)
	}
	if len(seeds) == 0 {
		return a, nil
	}
	a.hits, a.linked, err = r.walkFromSeeds(ctx, tr, g, query, seeds, keep, 0)
	a.meaning = a.linked
	return a, err
}

// walkConfig returns the search configuration of the graph channel.
func (r *MemoryRetriever) walkConfig() walkConfig {
	cfg := walkConfig{hops: r.cfg.Expansion.Depth, dir: r.cfg.Expansion.Direction, vocab: r.vocab, asOf: r.asOf()}
	if r.cfg.NoExpansion {
		cfg.hops = 0
	}
	return cfg
}

// questionAnswerer is implemented by InMemoryGraph, and so by every type
// that embeds it (DurableGraph among them): it runs the graph channel's
// search over the graph's own storage under one read lock. Every other
// graph runs the same search (answerQuestion) through a Neighborhood: its
// own when it is a NeighborhoodReader, else one read through GetRelated
// and FindPaths. The answers are the same whichever route a graph takes;
// only the cost differs. Page spreading (spread) runs over these graphs
// only.
type questionAnswerer interface {
	answer(ctx context.Context, query string, cfg walkConfig, types []string, keep int) ([]graphHit, int, error)
	answerFrom(ctx context.Context, query string, cfg walkConfig, types []string, keep int, seeds []seedLink) ([]graphHit, int, error)
	spread(ctx context.Context, query string, content func() []ScoredPage, mode SpreadMode, asOf AsOf, limit int) ([]spread.PageMass, error)
	spreads(mode SpreadMode) bool
}

// walkNamed searches walks from the entities the query names (see
// walkFromNames).
func (r *MemoryRetriever) walkNamed(ctx context.Context, g KnowledgeGraph, query string, cfg walkConfig, keep int) ([]graphHit, int, error) {
	if qa, ok := g.(questionAnswerer); ok {
		return qa.answer(ctx, query, cfg, r.cfg.Expansion.RelationTypes, keep)
	}
	var mentions []EntityMention
	var err error
	if l, ok := g.(EntityLinker); ok {
		mentions, err = l.LinkEntities(ctx, query)
	} else {
		mentions, err = LinkWithKeywords(ctx, g, query)
	}
	if err != nil || len(mentions) == 0 {
		return nil, 0, err
	}
	return r.walkGeneric(ctx, g, query, cfg, keep, func(st *neighborStep) []questionLink {
		links := make([]questionLink, len(mentions))
		for i, m := range mentions {
			links[i] = questionLink{node: st.intern(m.Entity.ID), start: m.Start, end: m.End, quality: m.Quality,
				weak: weakMention(m.Text, spells(m.Entity.Name, m.Entity.Aliases, m.Alias, m.Text))}
		}
		return links
	})
}

// walkSeeded searches walks from seeds, entities that no words of the
// query spell (see spanless); seeds absent from the graph are skipped.
// maxHops, when positive, shortens the walks to at most that many hops.
func (r *MemoryRetriever) walkSeeded(ctx context.Context, g KnowledgeGraph, query string, cfg walkConfig, seeds []seedLink, keep, maxHops int) ([]graphHit, int, error) {
	if maxHops > 0 && cfg.hops > maxHops {
		cfg.hops = maxHops
	}
	if qa, ok := g.(questionAnswerer); ok {
		return qa.answerFrom(ctx, query, cfg, r.cfg.Expansion.RelationTypes, keep, seeds)
	}
	// Seeds come from the graph's own SourceIndex or from its entities'
	// vectors, but may have been removed since: keep the ones that exist.
	var live []seedLink
	for _, sd := range seeds {
		_, ok, err := g.GetEntity(ctx, sd.id)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			live = append(live, sd)
		}
	}
	if len(live) == 0 {
		return nil, 0, nil
	}
	return r.walkGeneric(ctx, g, query, cfg, keep, func(st *neighborStep) []questionLink {
		links := make([]questionLink, len(live))
		for i, sd := range live {
			links[i] = questionLink{node: st.intern(sd.id), start: spanless, end: spanless, quality: sd.quality}
		}
		return links
	})
}

// walkGeneric runs the search over a graph through its Neighborhood (or
// GetRelated), from the links makeLinks returns.
func (r *MemoryRetriever) walkGeneric(ctx context.Context, g KnowledgeGraph, query string, cfg walkConfig, keep int, makeLinks func(*neighborStep) []questionLink) ([]graphHit, int, error) {
	var hits []graphHit
	var linked int
	read := func(n Neighborhood) error {
		st := newNeighborStep(n, r.cfg.Expansion.RelationTypes, cfg.asOf)
		var err error
		hits, linked, err = answerQuestion(ctx, nil, st, query, makeLinks(st), cfg, keep)
		return err
	}
	var err error
	if nr, ok := g.(NeighborhoodReader); ok {
		err = nr.ReadNeighborhood(ctx, read)
	} else {
		err = read(relatedNeighborhood{g, cfg.asOf})
	}
	return hits, linked, err
}

// span is the wall time from the first start to the last end of one
// channel's sources.
func span(runs []sourceRun, content bool) time.Duration {
	var first, last time.Time
	for _, run := range runs {
		if run.content != content {
			continue
		}
		if first.IsZero() || run.start.Before(first) {
			first = run.start
		}
		if run.end.After(last) {
			last = run.end
		}
	}
	return last.Sub(first)
}

// collect gathers the sources' answers as candidates, each page and each
// entity once.
//
// A page from a store with an empty ID, an ID that is not valid UTF-8, or a
// score that is NaN or infinite is dropped with a warning naming the store;
// a finite score outside [0,1] is clamped into it.
func (r *MemoryRetriever) collect(runs []sourceRun, res *RetrievalResult, extra int) *candidates {
	// Room for every page and hit of the runs, an upper bound of the items
	// they make once merged, and for the extra pages surfacing and page
	// spreading may add, so that the items are not copied as they grow.
	n := extra
	for i := range runs {
		n += len(runs[i].pages) + len(runs[i].hits)
	}
	c := getCandidates(n)
	stats := &res.Stats
	for i := range runs {
		run := &runs[i]
		if run.err != nil {
			continue
		}
		if run.content {
			stats.Content.Candidates += len(run.pages)
			pages := make([]KnowledgePage, len(run.pages)) // the items' pages, in one allocation
			for i, p := range run.pages {
				switch {
				case !validPageID(p.Page.ID):
					res.warn(fmt.Errorf("store %s: dropped a page with the ID %s: %w", quote.Value(run.name), quote.Value(p.Page.ID), ErrInvalidArgument))
					continue
				case math.IsNaN(p.Score) || math.IsInf(p.Score, 0):
					res.warn(fmt.Errorf("store %s: dropped page %s with the score %v: %w", quote.Value(run.name), quote.Value(p.Page.ID), p.Score, ErrInvalidArgument))
					continue
				}
				pages[i] = p.Page
				c.addText(RetrievalItem{Kind: ItemPage, Page: &pages[i], Source: run.name}, clamp01(p.Score))
			}
			continue
		}
		stats.Graph.Candidates += len(run.hits)
		stats.Linked += run.linked
		stats.LinkedByMeaning += run.meaning
		stats.Seeded += run.seeded
		ents := make([]Entity, len(run.hits)) // the items' entities, in one allocation
		for i, h := range run.hits {
			ents[i] = h.entity
			c.addGraph(RetrievalItem{
				Kind: ItemEntity, Entity: &ents[i], Path: h.path, Relations: h.rels, PathNames: h.names, Matched: h.matched, TypeCue: h.typeCue,
				AsOfCue: h.asOf.words, AsOfLabel: h.asOf.label, Source: run.name,
			}, clamp01(h.score))
		}
	}
	return c
}

// surface gives the pages that entity candidates cite a graph score:
// ProvenanceWeight × the best citing entity's score, and the path to that
// entity. Pages the text search missed are fetched from the stores that
// implement PageGetter, at most cfg.Candidates of them. It returns how many
// pages it added.
func (r *MemoryRetriever) surface(ctx context.Context, runs []sourceRun, c *candidates, cfg RetrieverConfig) (int, error) {
	// The entity items that cite pages, by index: offering pages appends
	// to c.items, never changing an entity item.
	var citing []int32
	for i := range c.items {
		if it := &c.items[i]; it.Kind == ItemEntity && (len(it.Entity.SourceIDs) > 0 || citesRelations(it.Relations)) {
			citing = append(citing, int32(i))
		}
	}
	slices.SortFunc(citing, func(a, b int32) int {
		x, y := &c.items[a], &c.items[b]
		return compareItems(x, y, x.GraphScore, y.GraphScore)
	})
	f := r.pageFetcher(ctx, runs, c, cfg)
	offer := func(e *RetrievalItem, id string, score float64) {
		probe, ok := f.find(id)
		if !ok {
			return
		}
		probe.Path, probe.Relations, probe.PathNames, probe.Matched, probe.Source = e.Path, e.Relations, e.PathNames, e.Matched, e.Source
		probe.AsOfCue, probe.AsOfLabel = e.AsOfCue, e.AsOfLabel
		c.addGraph(probe, score)
	}
	// Did the graph find what the question asks about (a hop that a word
	// of the question chose)? Then the entities it named are context.
	asked := slices.ContainsFunc(c.items, func(it RetrievalItem) bool {
		return it.Kind == ItemEntity && slices.ContainsFunc(it.Matched, func(m string) bool { return m != "" })
	})
	n := 0
	for _, ci := range citing {
		e := &c.items[ci]
		for _, rel := range e.Relations {
			n += len(rel.SourceIDs)
		}
		n += len(e.Entity.SourceIDs)
	}
	ids := make([]string, 0, n) // the pages offered below, in order
	for _, ci := range citing {
		e := &c.items[ci]
		for _, rel := range e.Relations {
			ids = append(ids, rel.SourceIDs...)
		}
		ids = append(ids, e.Entity.SourceIDs...)
	}
	f.prefetch(ids)
	for _, ci := range citing {
		e := c.items[ci] // a copy: offer appends to c.items
		// The pages that state the relations of the entity's path are its
		// evidence; the pages that merely mention an entity weigh less,
		// unless the question is about an entity it named.
		for _, rel := range e.Relations {
			for _, id := range rel.SourceIDs {
				offer(&e, id, cfg.ProvenanceWeight*e.GraphScore)
			}
		}
		mentioned := cfg.ProvenanceWeight * e.GraphScore
		if asked || len(e.Path) > 1 {
			mentioned *= answerPagesWeight
		}
		for _, id := range e.Entity.SourceIDs {
			offer(&e, id, mentioned)
		}
	}
	return f.added, f.err("surfacing cited pages")
}

// pageFetcher finds the candidates of the pages that the graph leads to,
// fetching the pages the text search missed from the stores that
// implement PageGetter, at most limit of them.
type pageFetcher struct {
	r       *MemoryRetriever
	ctx     context.Context
	runs    []sourceRun
	c       *candidates
	timeout time.Duration
	limit   int
	added   int
	missing map[string]bool  // pages no store holds, or that failed
	fetched map[string]int32 // a position in pages
	pages   []fetchedPage
	errs    []error
}

// fetchedPage is a page prefetch fetched, and the store it came from.
type fetchedPage struct {
	page   KnowledgePage
	source string
}

func (r *MemoryRetriever) pageFetcher(ctx context.Context, runs []sourceRun, c *candidates, cfg RetrieverConfig) *pageFetcher {
	return &pageFetcher{r: r, ctx: ctx, runs: runs, c: c, timeout: cfg.SourceTimeout, limit: cfg.Candidates, missing: make(map[string]bool)}
}

// find returns an item for page id: a probe naming it when it is a
// candidate already, else the page fetched from a store; false when no
// store holds it, its fetch failed, or limit pages were fetched.
func (f *pageFetcher) find(id string) (RetrievalItem, bool) {
	if j, ok := f.c.pages[id]; ok {
		return RetrievalItem{Kind: ItemPage, Page: f.c.items[j].Page}, true
	}
	if f.missing[id] || f.added == f.limit {
		return RetrievalItem{}, false
	}
	if i, ok := f.fetched[id]; ok {
		f.added++
		got := &f.pages[i]
		return RetrievalItem{Kind: ItemPage, Page: &got.page, Source: got.source}, true
	}
	page, source, err := f.r.getPage(f.ctx, f.timeout, f.runs, id)
	if err != nil {
		f.errs = append(f.errs, err)
	}
	if source == "" {
		f.missing[id] = true
		return RetrievalItem{}, false
	}
	f.added++
	return RetrievalItem{Kind: ItemPage, Page: &page, Source: source}, true
}

// prefetch fetches the pages of ids that are not candidates, in order and
// at most as many as find may still add, with one guarded call per store
// rather than one per page; find then takes them from what it fetched. A
// store's failure or timeout leaves its remaining pages to the next store,
// and is reported as find's errors are.
func (f *pageFetcher) prefetch(ids []string) {
	var want []string
	seen := make(map[string]bool, max(0, min(len(ids), f.limit-f.added)))
	for _, id := range ids {
		if _, ok := f.c.pages[id]; ok || seen[id] || f.missing[id] {
			continue
		}
		if _, ok := f.fetched[id]; ok {
			continue
		}
		seen[id] = true
		if want = append(want, id); len(want) == f.limit-f.added {
			break
		}
	}
	if len(want) == 0 {
		return
	}
	if f.fetched == nil {
		f.fetched = make(map[string]int32, len(want))
	}
	for _, run := range f.runs {
		if len(want) == 0 {
			break
		}
		if !run.content || run.err != nil {
			continue
		}
		pg, ok := f.r.stores[run.index].s.(PageGetter)
		if !ok {
			continue
		}
		type held struct {
			page  KnowledgePage
			found bool
		}
		ask := slices.Clone(want) // the call may run on past a timeout; want changes below
		got, err := callSource(f.ctx, f.timeout, ownStore(f.r.stores[run.index].s), func(ctx context.Context) ([]held, error) {
			out := make([]held, 0, len(ask))
			for _, id := range ask {
				page, found, err := pg.Get(ctx, id)
				if err != nil {
					return out, err
				}
				out = append(out, held{page, found})
			}
			return out, nil
		})
		if err != nil { // at the first page it did not return
			f.errs = append(f.errs, fmt.Errorf("store %s: page %s: %w", quote.Value(run.name), quote.Value(want[min(len(got), len(want)-1)]), err))
		}
		f.pages = slices.Grow(f.pages, len(got))
		rest := want[:0]
		for i, id := range want {
			switch {
			case i >= len(got) || !got[i].found:
				rest = append(rest, id) // the next store may hold it
			case !validPageID(got[i].page.ID):
				f.errs = append(f.errs, fmt.Errorf("store %s: page %s: returned a page with the ID %s: %w",
					quote.Value(run.name), quote.Value(id), quote.Value(got[i].page.ID), ErrInvalidArgument))
				f.missing[id] = true
			default:
				f.fetched[id] = int32(len(f.pages))
				f.pages = append(f.pages, fetchedPage{got[i].page, run.name})
			}
		}
		want = rest
	}
	for _, id := range want {
		f.missing[id] = true
	}
}

// err joins the fetch errors under what, or returns nil.
func (f *pageFetcher) err(what string) error {
	if len(f.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", what, errors.Join(f.errs...))
}

// answerPagesWeight scales the pages that mention an entity the graph
// channel reached (rather than one the question named) when they surface.
const answerPagesWeight = 0.5

func citesRelations(rels []Relation) bool {
	return slices.ContainsFunc(rels, func(r Relation) bool { return len(r.SourceIDs) > 0 })
}

// getPage fetches page id from the first answering store that holds it;
// source is "" when none does.
func (r *MemoryRetriever) getPage(ctx context.Context, timeout time.Duration, runs []sourceRun, id string) (KnowledgePage, string, error) {
	for _, run := range runs {
		if !run.content || run.err != nil {
			continue
		}
		pg, ok := r.stores[run.index].s.(PageGetter)
		if !ok {
			continue
		}
		type got struct {
			page  KnowledgePage
			found bool
		}
		g, err := callSource(ctx, timeout, ownStore(r.stores[run.index].s), func(ctx context.Context) (got, error) {
			page, found, err := pg.Get(ctx, id)
			return got{page, found}, err
		})
		page, found := g.page, g.found
		if err == nil && found && !validPageID(page.ID) {
			err = fmt.Errorf("returned a page with the ID %s: %w", quote.Value(page.ID), ErrInvalidArgument)
		}
		if err != nil {
			return KnowledgePage{}, "", fmt.Errorf("store %s: page %s: %w", quote.Value(run.name), quote.Value(id), err)
		}
		if found {
			return page, run.name, nil
		}
	}
	return KnowledgePage{}, "", nil
}

// validPageID reports whether a store's page ID can stand for a page: not
// blank, and valid UTF-8.
func validPageID(id string) bool {
	return strings.TrimSpace(id) != "" && utf8.ValidString(id)
}

func clamp01(x float64) float64 {
	switch {
	case x > 1:
		return 1
	case x >= 0:
		return x
	}
	return 0 // negative or NaN from a misbehaving store
}
