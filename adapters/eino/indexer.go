package kgmemeino

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/indexer"
	"github.com/cloudwego/eino/schema"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

// ExtractFunc returns what a model extracted from a document: the entities
// and relations to ingest with it. A nil error with an empty Extraction
// stores the page alone.
type ExtractFunc func(ctx context.Context, doc *schema.Document) (kgmem.Extraction, error)

// ExtractJSON returns an ExtractFunc that asks fn for a model's raw
// extraction output for a document and reads it with kgmem.ParseExtraction,
// which accepts the shapes models produce (prose around the JSON, synonyms
// for the keys, triples).
func ExtractJSON(fn func(ctx context.Context, doc *schema.Document) ([]byte, error)) ExtractFunc {
	return func(ctx context.Context, doc *schema.Document) (kgmem.Extraction, error) {
		out, err := fn(ctx, doc)
		if err != nil {
			return kgmem.Extraction{}, err
		}
		return kgmem.ParseExtraction(out)
	}
}

// Indexer is an Eino indexer.Indexer that stores documents as knowledge
// pages of a kgmem.Memory and, when it has an ExtractFunc, ingests what was
// extracted from each page with it (kgmem.Memory.Ingest: the page and its
// entities and relations in one journal record).
type Indexer struct {
	mem     *kgmem.Memory
	extract ExtractFunc
}

var _ indexer.Indexer = (*Indexer)(nil)

// NewIndexer returns an Indexer writing to mem; extract may be nil, to
// store pages only. A nil mem fails with an error wrapping
// kgmem.ErrInvalidArgument.
func NewIndexer(mem *kgmem.Memory, extract ExtractFunc) (*Indexer, error) {
	if mem == nil {
		return nil, fmt.Errorf("kgmemeino: new indexer: nil memory: %w", kgmem.ErrInvalidArgument)
	}
	return &Indexer{mem: mem, extract: extract}, nil
}

// GetType names the component in Eino's callbacks: "KGMem".
func (ix *Indexer) GetType() string { return "KGMem" }

// TitleKey is the MetaData key whose string value, when present, Store
// uses as the page's title.
const TitleKey = "title"

// Page converts an Eino document into the knowledge page Store writes: ID
// and Content as they are, the title from MetaData[TitleKey], and every
// other MetaData value that is a string in Metadata.
func Page(doc *schema.Document) kgmem.KnowledgePage {
	p := kgmem.KnowledgePage{ID: doc.ID, Content: doc.Content}
	for k, v := range doc.MetaData {
		s, ok := v.(string)
		switch {
		case !ok:
		case k == TitleKey:
			p.Title = s
		default:
			if p.Metadata == nil {
				p.Metadata = map[string]string{}
			}
			p.Metadata[k] = s
		}
	}
	return p
}

// Store writes each document as a page (see Page), in order, and returns
// their IDs. Before writing anything it checks that every document is
// non-nil and has a non-blank ID, and that no ID repeats; otherwise it
// fails with an error wrapping kgmem.ErrInvalidArgument and writes
// nothing. A page is an upsert: storing a document again replaces the
// page, and its extraction is merged into the graph as kgmem.Ingest
// merges. When a write or an extraction fails, Store returns the IDs
// written before it and the error; those writes stay. Eino's indexer
// options (sub-indexes, embedding) have no kgmem meaning and are ignored.
func (ix *Indexer) Store(ctx context.Context, docs []*schema.Document, _ ...indexer.Option) ([]string, error) {
	seen := make(map[string]int, len(docs))
	for i, d := range docs {
		if d == nil {
			return nil, fmt.Errorf("kgmemeino: store: document %d is nil: %w", i, kgmem.ErrInvalidArgument)
		}
		if strings.TrimSpace(d.ID) == "" {
			return nil, fmt.Errorf("kgmemeino: store: document %d has a blank ID: %w", i, kgmem.ErrInvalidArgument)
		}
		if j, ok := seen[d.ID]; ok {
			return nil, fmt.Errorf("kgmemeino: store: documents %d and %d share the ID %s: %w", j, i, quote.Value(d.ID), kgmem.ErrInvalidArgument)
		}
		seen[d.ID] = i
	}
	ids := make([]string, 0, len(docs))
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return ids, err
		}
		page := Page(d)
		if ix.extract == nil {
			if err := ix.mem.Store().Put(ctx, page); err != nil {
				return ids, errmsg.Wrapf(err, "kgmemeino: store document %s", quote.Value(d.ID))
			}
		} else {
			x, err := ix.extract(ctx, d)
			if err != nil {
				return ids, fmt.Errorf("kgmemeino: extract from document %s: %w", quote.Value(d.ID), err)
			}
			if _, err := ix.mem.Ingest(ctx, page, x); err != nil {
				return ids, errmsg.Wrapf(err, "kgmemeino: store document %s", quote.Value(d.ID))
			}
		}
		ids = append(ids, d.ID)
	}
	return ids, nil
}
