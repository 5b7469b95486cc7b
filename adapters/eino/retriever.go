package kgmemeino

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	"github.com/kgmem/kgmem/internal/errmsg"
)

// MetaData keys of the documents Retriever returns: the same keys, with
// the same values, in every kgmem adapter (see the package
// documentation).
const (
	// MetaID ("kgmem_id") holds the page ID or entity ID.
	MetaID = docmeta.ID
	// MetaKind ("kgmem_kind") holds "page" or "entity"
	// (kgmem.ItemKind.String).
	MetaKind = docmeta.Kind
	// MetaScore ("kgmem_score") holds the item's score (float64, in
	// [0,1]), as Document.Score does.
	MetaScore = docmeta.Score
	// MetaExplanation ("kgmem_explanation") holds
	// kgmem.RetrievalItem.Explain: the path that explains the item, as one
	// readable line.
	MetaExplanation = docmeta.Explanation
	// MetaPath ("kgmem_path") holds the entity IDs of the item's path
	// ([]string); absent when the item has no path.
	MetaPath = docmeta.Path
	// MetaRelations ("kgmem_relations") holds the relation types along the
	// path ([]string); absent when the item has no path.
	MetaRelations = docmeta.Relations
	// MetaTitle ("kgmem_title") holds a page's title; absent when it has
	// none.
	MetaTitle = docmeta.Title
	// MetaEntityType ("kgmem_entity_type") holds an entity's type; absent
	// when it has none.
	MetaEntityType = docmeta.EntityType
	// MetaEntityName ("kgmem_entity_name") holds an entity's name.
	MetaEntityName = docmeta.EntityName
	// MetaSource ("kgmem_source") names the knowledge store or graph the
	// item came from.
	MetaSource = docmeta.Source
	// MetaPageMetadata ("kgmem_page_metadata") holds a page's Metadata
	// (map[string]string); absent when it has none.
	MetaPageMetadata = docmeta.PageMetadata
	// MetaAsOf ("kgmem_as_of") holds kgmem.RetrievalItem.AsOfLabel, the
	// time the query's words made the graph channel walk at; absent when
	// none.
	MetaAsOf = docmeta.AsOf
	// MetaAsOfCue ("kgmem_as_of_cue") holds kgmem.RetrievalItem.AsOfCue,
	// the words that set it; absent when none.
	MetaAsOfCue = docmeta.AsOfCue
)

// RetrieverConfig says what a Retriever searches and how: either a ready
// Retriever, or at least one of Store and Graph.
type RetrieverConfig struct {
	// Retriever is the kgmem retriever to answer with: mem.Retriever() for
	// a kgmem.Memory, which links by meaning with the memory's embedder and
	// keeps its entity vectors from call to call. When it is set, Store,
	// Graph and Config must be empty.
	Retriever *kgmem.MemoryRetriever
	// Store is the content channel; nil for none. Without Retriever,
	// NewRetriever builds one kgmem.MemoryRetriever over Store and Graph.
	Store kgmem.KnowledgeStore
	// Graph is the graph channel; nil for none.
	Graph kgmem.KnowledgeGraph
	// Config configures the retriever NewRetriever builds;
	// retriever.WithTopK overrides its MaxResults for one call.
	Config kgmem.RetrieverConfig
	// Strategy is the default strategy (the zero value is kgmem.Hybrid);
	// WithStrategy overrides it for one call. With Retriever, the zero
	// value keeps that retriever's strategy.
	Strategy kgmem.RetrievalStrategy
	// Expansion is how the graph channel expands the entities a query
	// names (see kgmem.WithExpansion); nil means the retriever's own
	// (kgmem's default: walks of up to kgmem.DefaultWalkHops hops in both
	// directions). WithDepth and WithRelationTypes override its fields for
	// one call.
	Expansion *kgmem.TraverseOptions
}

// Retriever is an Eino retriever.Retriever over one kgmem.MemoryRetriever,
// the configuration's or the one NewRetriever built; the options of a call
// become kgmem's per-call options (kgmem.WithMaxResults, WithStrategy,
// WithDepth, …) of that retriever.
type Retriever struct {
	r    *kgmem.MemoryRetriever
	base []kgmem.RetrieverOption // Strategy and Expansion, applied to every call
}

var _ retriever.Retriever = (*Retriever)(nil)

// NewRetriever returns a Retriever. It fails with an error wrapping
// kgmem.ErrInvalidArgument when cfg sets neither Retriever, Store nor
// Graph, or sets Retriever with Store, Graph or Config; other invalid
// settings are reported by Retrieve, as kgmem reports them.
func NewRetriever(cfg RetrieverConfig) (*Retriever, error) {
	r, err := docmeta.Retriever("kgmemeino: new retriever", cfg.Retriever, cfg.Store, cfg.Graph, cfg.Config)
	if err != nil {
		return nil, err
	}
	var base []kgmem.RetrieverOption
	if cfg.Retriever == nil || cfg.Strategy != kgmem.Hybrid {
		base = append(base, kgmem.WithStrategy(cfg.Strategy))
	}
	if cfg.Expansion != nil {
		exp := *cfg.Expansion
		exp.RelationTypes = slices.Clone(exp.RelationTypes) // the caller may change theirs later
		base = append(base, kgmem.WithExpansion(exp))
	}
	return &Retriever{r: r, base: base}, nil
}

// GetType names the component in Eino's callbacks: "KGMem".
func (r *Retriever) GetType() string { return "KGMem" }

// options are the kgmem-specific options of one Retrieve call.
type options struct {
	strategy      *kgmem.RetrievalStrategy
	depth         *int
	relationTypes []string
	typesSet      bool
	noExpansion   bool
}

// WithStrategy sets the retrieval strategy of one call: kgmem.Hybrid,
// kgmem.KnowledgeOnly or kgmem.GraphOnly.
func WithStrategy(s kgmem.RetrievalStrategy) retriever.Option {
	return retriever.WrapImplSpecificOptFn(func(o *options) { o.strategy = &s })
}

// WithDepth sets how many hops the graph channel walks from the entities
// the query names, for one call, as kgmem.TraverseOptions.Depth does (0 is
// one hop). A negative depth makes Retrieve fail with
// kgmem.ErrInvalidArgument.
func WithDepth(depth int) retriever.Option {
	return retriever.WrapImplSpecificOptFn(func(o *options) { o.depth = &depth })
}

// WithNoExpansion makes the graph channel return, for one call, only the
// entities the query names (kgmem.RetrieverConfig.NoExpansion).
func WithNoExpansion() retriever.Option {
	return retriever.WrapImplSpecificOptFn(func(o *options) { o.noExpansion = true })
}

// WithRelationTypes restricts, for one call, the relation types the graph
// channel walks; no types means every type.
func WithRelationTypes(types ...string) retriever.Option {
	types = slices.Clone(types)
	return retriever.WrapImplSpecificOptFn(func(o *options) { o.relationTypes, o.typesSet = types, true })
}

// Retrieve answers query with kgmem's retriever and returns one document
// per item, best first (see the package documentation for their fields).
//
// Options: retriever.WithTopK sets how many items to return at most (0
// means kgmem's default, 10); retriever.WithScoreThreshold drops items
// scoring below it; WithStrategy, WithDepth, WithRelationTypes and
// WithNoExpansion set kgmem's own. Eino's other common options (index,
// sub-index, embedding, DSL) have no kgmem meaning and are ignored. A negative TopK or a
// threshold that is not a finite number fails with an error wrapping
// kgmem.ErrInvalidArgument; kgmem's errors (a cancelled ctx returns
// ctx.Err()) are returned wrapped.
func (r *Retriever) Retrieve(ctx context.Context, query string, opts ...retriever.Option) ([]*schema.Document, error) {
	common := retriever.GetCommonOptions(nil, opts...)
	own := retriever.GetImplSpecificOptions(&options{}, opts...)
	kopts := slices.Clone(r.base)
	if common.TopK != nil {
		if *common.TopK < 0 {
			return nil, fmt.Errorf("kgmemeino: retrieve: negative TopK %d: %w", *common.TopK, kgmem.ErrInvalidArgument)
		}
		kopts = append(kopts, kgmem.WithMaxResults(*common.TopK))
	}
	threshold := math.Inf(-1)
	if common.ScoreThreshold != nil {
		threshold = *common.ScoreThreshold
		if math.IsNaN(threshold) || math.IsInf(threshold, 0) {
			return nil, fmt.Errorf("kgmemeino: retrieve: score threshold %v is not a finite number: %w", threshold, kgmem.ErrInvalidArgument)
		}
	}
	if own.strategy != nil {
		kopts = append(kopts, kgmem.WithStrategy(*own.strategy))
	}
	if own.noExpansion {
		kopts = append(kopts, kgmem.WithNoExpansion())
	}
	if own.depth != nil {
		kopts = append(kopts, kgmem.WithDepth(*own.depth))
	}
	if own.typesSet {
		kopts = append(kopts, kgmem.WithRelationTypes(own.relationTypes...))
	}
	res, err := r.r.Retrieve(ctx, query, kopts...)
	if err != nil {
		if ctx.Err() != nil && err == ctx.Err() {
			return nil, err
		}
		return nil, errmsg.Wrap("kgmemeino: retrieve", err)
	}
	docs := make([]*schema.Document, 0, len(res.Items))
	for _, it := range res.Items {
		if it.Score < threshold {
			continue
		}
		if d := Document(it); d != nil {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// Document converts one retrieval item into an Eino document, as Retrieve
// does; it returns nil for an item that holds neither a page nor an
// entity. Its ID, Content, score and MetaData are those of every kgmem
// adapter (see the package documentation).
func Document(it kgmem.RetrievalItem) *schema.Document {
	d, ok := docmeta.FromItem(it)
	if !ok {
		return nil
	}
	return (&schema.Document{ID: d.ID, Content: d.Content, MetaData: d.Meta}).WithScore(d.Score)
}

// EntityContent is the text an entity item becomes: the explanation of its
// path (kgmem.RetrievalItem.Explain) and, on the next line, its
// description when it has one.
func EntityContent(it kgmem.RetrievalItem) string { return docmeta.EntityContent(it) }
