package kgmemeino

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
)

// MetaData keys of the documents Retriever returns.
const (
	// MetaKind holds "page" or "entity" (kgmem.ItemKind.String).
	MetaKind = "kgmem_kind"
	// MetaExplanation holds kgmem.RetrievalItem.Explain: the path that
	// explains the item, as one readable line.
	MetaExplanation = "kgmem_explanation"
	// MetaPath holds the entity IDs of the item's path ([]string); absent
	// when the item has no path.
	MetaPath = "kgmem_path"
	// MetaRelations holds the relation types along the path ([]string);
	// absent when the item has no path.
	MetaRelations = "kgmem_relations"
	// MetaTitle holds a page's title; absent when it has none.
	MetaTitle = "kgmem_title"
	// MetaEntityType holds an entity's type; absent when it has none.
	MetaEntityType = "kgmem_entity_type"
	// MetaEntityName holds an entity's name.
	MetaEntityName = "kgmem_entity_name"
	// MetaSource names the knowledge store or graph the item came from.
	MetaSource = "kgmem_source"
	// MetaPageMetadata holds a page's Metadata (map[string]string); absent
	// when it has none.
	MetaPageMetadata = "kgmem_page_metadata"
)

// RetrieverConfig says what a Retriever searches and how. At least one of
// Store and Graph must be set.
type RetrieverConfig struct {
	// Store is the content channel; nil for none. For a kgmem.Memory, use
	// mem.Store().
	Store kgmem.KnowledgeStore
	// Graph is the graph channel; nil for none. For a kgmem.Memory, use
	// mem.Graph().
	Graph kgmem.KnowledgeGraph
	// Config configures kgmem's retriever; retriever.WithTopK overrides its
	// MaxResults for one call.
	Config kgmem.RetrieverConfig
	// Strategy is the default strategy (the zero value is kgmem.Hybrid);
	// WithStrategy overrides it for one call.
	Strategy kgmem.RetrievalStrategy
	// Expansion is how the graph channel expands the entities a query
	// names (see kgmem.WithExpansion); nil means kgmem's default, walks of
	// up to kgmem.DefaultWalkHops hops in both directions. WithDepth and
	// WithRelationTypes override its fields for one call.
	Expansion *kgmem.TraverseOptions
}

// Retriever is an Eino retriever.Retriever over kgmem's hybrid retriever.
// Each call builds a kgmem.MemoryRetriever from the configuration and the
// call's options and runs its Retrieve; building one is cheap and holds no
// data.
type Retriever struct {
	cfg RetrieverConfig
}

var _ retriever.Retriever = (*Retriever)(nil)

// NewRetriever returns a Retriever. It fails with an error wrapping
// kgmem.ErrInvalidArgument when cfg sets neither Store nor Graph; other
// invalid settings are reported by Retrieve, as kgmem reports them.
func NewRetriever(cfg RetrieverConfig) (*Retriever, error) {
	if cfg.Store == nil && cfg.Graph == nil {
		return nil, fmt.Errorf("kgmemeino: new retriever: neither Store nor Graph is set: %w", kgmem.ErrInvalidArgument)
	}
	if cfg.Expansion != nil {
		exp := *cfg.Expansion
		exp.RelationTypes = slices.Clone(exp.RelationTypes)
		cfg.Expansion = &exp
	}
	return &Retriever{cfg: cfg}, nil
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
	cfg := r.cfg.Config
	if common.TopK != nil {
		if *common.TopK < 0 {
			return nil, fmt.Errorf("kgmemeino: retrieve: negative TopK %d: %w", *common.TopK, kgmem.ErrInvalidArgument)
		}
		cfg.MaxResults = *common.TopK
	}
	threshold := math.Inf(-1)
	if common.ScoreThreshold != nil {
		threshold = *common.ScoreThreshold
		if math.IsNaN(threshold) || math.IsInf(threshold, 0) {
			return nil, fmt.Errorf("kgmemeino: retrieve: score threshold %v is not a finite number: %w", threshold, kgmem.ErrInvalidArgument)
		}
	}
	strategy := r.cfg.Strategy
	if own.strategy != nil {
		strategy = *own.strategy
	}
	if own.noExpansion {
		cfg.NoExpansion = true
	}
	kopts := []kgmem.RetrieverOption{kgmem.WithStrategy(strategy)}
	if r.cfg.Expansion != nil || own.depth != nil || own.typesSet {
		// kgmem's default, which WithDepth and WithRelationTypes modify.
		exp := kgmem.TraverseOptions{Depth: kgmem.DefaultWalkHops, Direction: kgmem.Both}
		if r.cfg.Expansion != nil {
			exp = *r.cfg.Expansion
		}
		if own.depth != nil {
			exp.Depth = *own.depth
		}
		if own.typesSet {
			exp.RelationTypes = own.relationTypes
		}
		kopts = append(kopts, kgmem.WithExpansion(exp))
	}
	if r.cfg.Graph != nil {
		kopts = append(kopts, kgmem.WithKnowledgeGraph(r.cfg.Graph))
	}
	res, err := kgmem.NewMemoryRetriever(r.cfg.Store, cfg, kopts...).Retrieve(ctx, query)
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
// does; it returns nil for an item that holds neither a page nor an entity.
func Document(it kgmem.RetrievalItem) *schema.Document {
	meta := map[string]any{
		MetaKind:        it.Kind.String(),
		MetaExplanation: it.Explain(),
	}
	if it.Source != "" {
		meta[MetaSource] = it.Source
	}
	if len(it.Path) > 0 {
		meta[MetaPath] = slices.Clone(it.Path)
		types := make([]string, len(it.Relations))
		for i, rel := range it.Relations {
			types[i] = rel.Type
		}
		meta[MetaRelations] = types
	}
	d := &schema.Document{MetaData: meta}
	switch {
	case it.Kind == kgmem.ItemPage && it.Page != nil:
		d.ID, d.Content = it.Page.ID, it.Page.Content
		if it.Page.Title != "" {
			meta[MetaTitle] = it.Page.Title
		}
		if len(it.Page.Metadata) > 0 {
			m := make(map[string]string, len(it.Page.Metadata))
			for k, v := range it.Page.Metadata {
				m[k] = v
			}
			meta[MetaPageMetadata] = m
		}
	case it.Kind == kgmem.ItemEntity && it.Entity != nil:
		d.ID = it.Entity.ID
		d.Content = EntityContent(it)
		meta[MetaEntityName] = it.Entity.Name
		if it.Entity.Type != "" {
			meta[MetaEntityType] = it.Entity.Type
		}
	default:
		return nil
	}
	return d.WithScore(it.Score)
}

// EntityContent is the text an entity item becomes: the explanation of its
// path (kgmem.RetrievalItem.Explain) and, on the next line, its
// description when it has one.
func EntityContent(it kgmem.RetrievalItem) string {
	s := it.Explain()
	if it.Entity != nil {
		if d := strings.TrimSpace(it.Entity.Description); d != "" {
			s += "\n" + d
		}
	}
	return s
}
