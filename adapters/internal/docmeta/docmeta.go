// Package docmeta is what the kgmem adapters (eino, genkit, langchaingo)
// share: the one mapping from a kgmem.RetrievalItem to a framework's
// document (its ID, its text, its score and the metadata keys, the same in
// every adapter), and the one retriever an adapter answers with.
package docmeta

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
)

// The metadata keys of a document, in the order Keys lists them.
const (
	// ID holds the page ID or entity ID (string).
	ID = "kgmem_id"
	// Kind holds "page" or "entity" (kgmem.ItemKind.String).
	Kind = "kgmem_kind"
	// Score holds the item's score (float64, in [0,1]).
	Score = "kgmem_score"
	// Explanation holds kgmem.RetrievalItem.Explain: the path that
	// explains the item, as one readable line (string).
	Explanation = "kgmem_explanation"
	// Path holds the entity IDs of the item's path ([]string); absent when
	// the item has no path.
	Path = "kgmem_path"
	// Relations holds the relation types along the path ([]string, one
	// fewer than Path); absent when the item has no path.
	Relations = "kgmem_relations"
	// Title holds a page's title (string); absent when it has none.
	Title = "kgmem_title"
	// EntityType holds an entity's type (string); absent when it has none.
	EntityType = "kgmem_entity_type"
	// EntityName holds an entity's name (string); entities only.
	EntityName = "kgmem_entity_name"
	// Source names the knowledge store or graph the item came from
	// (string); absent when unnamed.
	Source = "kgmem_source"
	// PageMetadata holds a page's Metadata (map[string]string, a copy);
	// absent when it has none.
	PageMetadata = "kgmem_page_metadata"
	// AsOf holds kgmem.RetrievalItem.AsOfLabel, the time the query's words
	// made the graph channel walk at (string); absent when none.
	AsOf = "kgmem_as_of"
	// AsOfCue holds kgmem.RetrievalItem.AsOfCue, the query's words that
	// set AsOf (string); absent when none.
	AsOfCue = "kgmem_as_of_cue"
)

// Keys returns every metadata key, in the order the documentation lists
// them.
func Keys() []string {
	return []string{ID, Kind, Score, Explanation, Path, Relations, Title, EntityType, EntityName, Source, PageMetadata, AsOf, AsOfCue}
}

// Doc is what one retrieval item becomes, before an adapter puts it into
// its framework's document type.
type Doc struct {
	ID      string         // the page ID or entity ID
	Content string         // a page's content; an entity's EntityContent
	Score   float64        // the item's score clamped to [0,1] (0 for NaN)
	Meta    map[string]any // the metadata, under the keys above
}

// FromItem maps one retrieval item; ok is false for an item that holds
// neither a page nor an entity. The result shares nothing with it: slices
// and maps are copies.
func FromItem(it kgmem.RetrievalItem) (d Doc, ok bool) {
	switch {
	case it.Kind == kgmem.ItemPage && it.Page != nil:
		d.ID, d.Content = it.Page.ID, it.Page.Content
	case it.Kind == kgmem.ItemEntity && it.Entity != nil:
		d.ID, d.Content = it.Entity.ID, EntityContent(it)
	default:
		return Doc{}, false
	}
	d.Score = ClampScore(it.Score)
	meta := map[string]any{
		ID:          d.ID,
		Kind:        it.Kind.String(),
		Score:       d.Score,
		Explanation: it.Explain(),
	}
	if len(it.Path) > 0 {
		meta[Path] = slices.Clone(it.Path)
		types := make([]string, len(it.Relations))
		for i, rel := range it.Relations {
			types[i] = rel.Type
		}
		meta[Relations] = types
	}
	if it.Source != "" {
		meta[Source] = it.Source
	}
	if it.AsOfLabel != "" {
		meta[AsOf] = it.AsOfLabel
	}
	if it.AsOfCue != "" {
		meta[AsOfCue] = it.AsOfCue
	}
	if it.Kind == kgmem.ItemPage {
		if it.Page.Title != "" {
			meta[Title] = it.Page.Title
		}
		if len(it.Page.Metadata) > 0 {
			meta[PageMetadata] = maps.Clone(it.Page.Metadata)
		}
	} else {
		meta[EntityName] = it.Entity.Name
		if it.Entity.Type != "" {
			meta[EntityType] = it.Entity.Type
		}
	}
	d.Meta = meta
	return d, true
}

// EntityContent is the text an entity item becomes: the explanation of its
// path (kgmem.RetrievalItem.Explain) and, on the next line, its
// description when it has one.
func EntityContent(it kgmem.RetrievalItem) string {
	s := it.Explain()
	if it.Entity != nil {
		if desc := strings.TrimSpace(it.Entity.Description); desc != "" {
			s += "\n" + desc
		}
	}
	return s
}

// ClampScore returns s clamped to [0,1], and 0 for NaN.
func ClampScore(s float64) float64 {
	if math.IsNaN(s) {
		return 0
	}
	return math.Min(1, math.Max(0, s))
}
