package kgmemlangchain

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/tmc/langchaingo/schema"
)

// Metadata keys of the documents Retriever returns.
const (
	// MetaID holds the page ID or entity ID.
	MetaID = "kgmem_id"
	// MetaKind holds "page" or "entity" (kgmem.ItemKind.String).
	MetaKind = "kgmem_kind"
	// MetaExplanation holds kgmem.RetrievalItem.Explain: the path that
	// explains the item, as one readable line.
	MetaExplanation = "kgmem_explanation"
	// MetaPath holds the entity IDs of the item's path ([]string); absent
	// when the item has no path.
	MetaPath = "kgmem_path"
	// MetaTitle holds a page's title; absent when it has none.
	MetaTitle = "kgmem_title"
	// MetaEntityType holds an entity's type; absent when it has none.
	MetaEntityType = "kgmem_entity_type"
	// MetaEntityName holds an entity's name.
	MetaEntityName = "kgmem_entity_name"
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
	// Config configures kgmem's retriever (MaxResults: how many documents
	// at most, 0 meaning 10).
	Config kgmem.RetrieverConfig
	// Options are passed to kgmem.NewMemoryRetriever after the graph:
	// kgmem.WithStrategy, kgmem.WithExpansion and the others.
	Options []kgmem.RetrieverOption
	// ScoreThreshold drops documents scoring below it; 0 keeps all. It
	// must be in [0,1].
	ScoreThreshold float64
}

// Retriever is a langchaingo schema.Retriever over kgmem's hybrid
// retriever.
type Retriever struct {
	r         *kgmem.MemoryRetriever
	threshold float64
}

var _ schema.Retriever = (*Retriever)(nil)

// NewRetriever returns a Retriever. It fails with an error wrapping
// kgmem.ErrInvalidArgument when cfg sets neither Store nor Graph, or a
// threshold outside [0,1]; other invalid settings are reported by
// GetRelevantDocuments, as kgmem reports them.
func NewRetriever(cfg RetrieverConfig) (*Retriever, error) {
	if cfg.Store == nil && cfg.Graph == nil {
		return nil, fmt.Errorf("kgmemlangchain: new retriever: neither Store nor Graph is set: %w", kgmem.ErrInvalidArgument)
	}
	if !(cfg.ScoreThreshold >= 0 && cfg.ScoreThreshold <= 1) {
		return nil, fmt.Errorf("kgmemlangchain: new retriever: score threshold %v outside [0,1]: %w", cfg.ScoreThreshold, kgmem.ErrInvalidArgument)
	}
	var opts []kgmem.RetrieverOption
	if cfg.Graph != nil {
		opts = append(opts, kgmem.WithKnowledgeGraph(cfg.Graph))
	}
	opts = append(opts, cfg.Options...)
	return &Retriever{r: kgmem.NewMemoryRetriever(cfg.Store, cfg.Config, opts...), threshold: cfg.ScoreThreshold}, nil
}

// GetRelevantDocuments answers query with kgmem's retriever and returns one
// document per item, best first. A page becomes its content; an entity
// becomes the path that explains it and, on the next line, its
// description. Score is the item's score, in [0,1]; Metadata holds the
// Meta* keys. kgmem's errors are returned wrapped (a cancelled ctx returns
// ctx.Err()).
func (r *Retriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	res, err := r.r.Retrieve(ctx, query)
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
// page nor an entity.
func Document(it kgmem.RetrievalItem) (d schema.Document, ok bool) {
	meta := map[string]any{
		MetaID:          it.ID(),
		MetaKind:        it.Kind.String(),
		MetaExplanation: it.Explain(),
	}
	if len(it.Path) > 0 {
		meta[MetaPath] = slices.Clone(it.Path)
	}
	d = schema.Document{Metadata: meta, Score: float32(math.Min(1, math.Max(0, it.Score)))}
	switch {
	case it.Kind == kgmem.ItemPage && it.Page != nil:
		d.PageContent = it.Page.Content
		if it.Page.Title != "" {
			meta[MetaTitle] = it.Page.Title
		}
	case it.Kind == kgmem.ItemEntity && it.Entity != nil:
		d.PageContent = it.Explain()
		if desc := strings.TrimSpace(it.Entity.Description); desc != "" {
			d.PageContent += "\n" + desc
		}
		meta[MetaEntityName] = it.Entity.Name
		if it.Entity.Type != "" {
			meta[MetaEntityType] = it.Entity.Type
		}
	default:
		return schema.Document{}, false
	}
	return d, true
}
