package kgmemlangchain

import (
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/tmc/langchaingo/schema"
)

// Metadata keys of the documents Retriever returns: the same keys, with
// the same values, in every kgmem adapter (see the package
// documentation).
const (
	// MetaID ("kgmem_id") holds the page ID or entity ID.
	MetaID = docmeta.ID
	// MetaKind ("kgmem_kind") holds "page" or "entity"
	// (kgmem.ItemKind.String).
	MetaKind = docmeta.Kind
	// MetaScore ("kgmem_score") holds the item's score (float64, in
	// [0,1]); Document.Score holds it as a float32.
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
	// Graph and Config must be empty, and Options apply to each call.
	Retriever *kgmem.MemoryRetriever
	// Store is the content channel; nil for none. Without Retriever,
	// NewRetriever builds one kgmem.MemoryRetriever over Store and Graph.
	Store kgmem.KnowledgeStore
	// Graph is the graph channel; nil for none.
	Graph kgmem.KnowledgeGraph
	// Config configures the retriever NewRetriever builds (MaxResults: how
	// many documents at most, 0 meaning 10).
	Config kgmem.RetrieverConfig
	// Options configure kgmem's retriever: kgmem.WithStrategy,
	// kgmem.WithExpansion, kgmem.WithMaxResults and the others. Without
	// Retriever they are passed to kgmem.NewMemoryRetriever after the
	// graph; with Retriever they are passed to each of its Retrieve calls,
	// where only kgmem's per-call options are accepted (any other makes
	// GetRelevantDocuments fail with an error wrapping
	// kgmem.ErrInvalidArgument).
	Options []kgmem.RetrieverOption
	// ScoreThreshold drops documents scoring below it; 0 keeps all. It
	// must be in [0,1].
	ScoreThreshold float64
}

// Retriever is a langchaingo schema.Retriever over one
// kgmem.MemoryRetriever, the configuration's or the one NewRetriever
// built.
type Retriever struct {
	r         *kgmem.MemoryRetriever
	call      []kgmem.RetrieverOption // options of each call
	threshold float64
}

var _ schema.Retriever = (*Retriever)(nil)

// NewRetriever returns a Retriever. It fails with an error wrapping
// kgmem.ErrInvalidArgument when cfg sets neither Retriever, Store nor
// Graph, sets Retriever with Store, Graph or Config, or sets a threshold
// outside [0,1]; other invalid settings are reported by
// GetRelevantDocuments, as kgmem reports them.
func NewRetriever(cfg RetrieverConfig) (*Retriever, error) {
	if !(cfg.ScoreThreshold >= 0 && cfg.ScoreThreshold <= 1) {
		return nil, fmt.Errorf("kgmemlangchain: new retriever: score threshold %v outside [0,1]: %w", cfg.ScoreThreshold, kgmem.ErrInvalidArgument)
	}
	var built, call []kgmem.RetrieverOption
	if cfg.Retriever == nil {
		built = cfg.Options
	} else {
		call = slices.Clone(cfg.Options)
	}
	r, err := docmeta.Retriever("kgmemlangchain: new retriever", cfg.Retriever, cfg.Store, cfg.Graph, cfg.Config, built...)
	if err != nil {
		return nil, err
	}
	return &Retriever{r: r, call: call, threshold: cfg.ScoreThreshold}, nil
}

// GetRelevantDocuments answers query with kgmem's retriever and returns one
// document per item, best first (see Document). kgmem's errors are
// returned wrapped (a cancelled ctx returns ctx.Err()).
func (r *Retriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	res, err := r.r.Retrieve(ctx, query, r.call...)
	if err != nil {
		if ctx.Err() != nil && err == ctx.Err() {
			return nil, err
		}
		return nil, errmsg.Wrap("kgmemlangchain: retrieve", err)
	}
	docs := make([]schema.Document, 0, len(res.Items))
	for _, it := range res.Items {
		if it.Score < r.threshold {
			continue
		}
		if d, ok := Document(it); ok {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// Document converts one retrieval item into a langchaingo document, as
// GetRelevantDocuments does; ok is false for an item that holds neither a
// page nor an entity. Its PageContent, Score and Metadata are those of
// every kgmem adapter (see the package documentation).
func Document(it kgmem.RetrievalItem) (d schema.Document, ok bool) {
	m, ok := docmeta.FromItem(it)
	if !ok {
		return schema.Document{}, false
	}
	return schema.Document{PageContent: m.Content, Score: float32(m.Score), Metadata: m.Meta}, true
}
