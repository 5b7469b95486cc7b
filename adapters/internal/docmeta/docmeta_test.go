package docmeta_test

import (
	"math"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func worksOn() kgmem.Relation {
	return kgmem.Relation{SourceID: "person:ada", TargetID: "project:apollo", Type: "works_on"}
}

func TestFromItem(t *testing.T) {
	ada := &kgmem.Entity{ID: "person:ada", Name: "Ada", Type: "person", Description: "  engineer  "}
	apollo := &kgmem.Entity{ID: "project:apollo", Name: "Apollo"}
	page := &kgmem.KnowledgePage{ID: "p1", Title: "Weekly", Content: "Ada works on Apollo.", Metadata: map[string]string{"lang": "en"}}
	for _, c := range []struct {
		name string
		item kgmem.RetrievalItem
		want docmeta.Doc
	}{{
		name: "page the text search found",
		item: kgmem.RetrievalItem{Kind: kgmem.ItemPage, Score: 0.5, Page: &kgmem.KnowledgePage{ID: "p2", Content: "text"}, Source: "store"},
		want: docmeta.Doc{ID: "p2", Content: "text", Score: 0.5, Meta: map[string]any{
			docmeta.ID: "p2", docmeta.Kind: "page", docmeta.Score: 0.5, docmeta.Explanation: "p2", docmeta.Source: "store",
		}},
	}, {
		name: "page an entity cites",
		item: kgmem.RetrievalItem{Kind: kgmem.ItemPage, Score: 0.75, Page: page, Source: "store",
			Path: []string{"person:ada", "project:apollo"}, PathNames: []string{"Ada", "Apollo"}, Relations: []kgmem.Relation{worksOn()}},
		want: docmeta.Doc{ID: "p1", Content: "Ada works on Apollo.", Score: 0.75, Meta: map[string]any{
			docmeta.ID: "p1", docmeta.Kind: "page", docmeta.Score: 0.75,
			docmeta.Explanation:  "Ada —works_on→ Apollo —mentioned_in→ Weekly",
			docmeta.Path:         []string{"person:ada", "project:apollo"},
			docmeta.Relations:    []string{"works_on"},
			docmeta.Title:        "Weekly",
			docmeta.Source:       "store",
			docmeta.PageMetadata: map[string]string{"lang": "en"},
		}},
	}, {
		name: "entity named by the query, with a description",
		item: kgmem.RetrievalItem{Kind: kgmem.ItemEntity, Score: 1, Entity: ada, Path: []string{"person:ada"}, PathNames: []string{"Ada"}, Source: "graph"},
		want: docmeta.Doc{ID: "person:ada", Content: "Ada\nengineer", Score: 1, Meta: map[string]any{
			docmeta.ID: "person:ada", docmeta.Kind: "entity", docmeta.Score: 1.0, docmeta.Explanation: "Ada",
			docmeta.Path: []string{"person:ada"}, docmeta.Relations: []string{},
			docmeta.EntityName: "Ada", docmeta.EntityType: "person", docmeta.Source: "graph",
		}},
	}, {
		name: "entity a walk reached, at a time",
		item: kgmem.RetrievalItem{Kind: kgmem.ItemEntity, Score: 0.4, Entity: apollo,
			Path: []string{"person:ada", "project:apollo"}, PathNames: []string{"Ada", "Apollo"}, Relations: []kgmem.Relation{worksOn()},
			Matched: []string{"works"}, AsOfLabel: "2023", AsOfCue: "in 2023"},
		want: docmeta.Doc{ID: "project:apollo", Content: `Ada —works_on→ Apollo (works_on ← "works"; as of 2023 ← "in 2023")`, Score: 0.4, Meta: map[string]any{
			docmeta.ID: "project:apollo", docmeta.Kind: "entity", docmeta.Score: 0.4,
			docmeta.Explanation: `Ada —works_on→ Apollo (works_on ← "works"; as of 2023 ← "in 2023")`,
			docmeta.Path:        []string{"person:ada", "project:apollo"}, docmeta.Relations: []string{"works_on"},
			docmeta.EntityName: "Apollo", docmeta.AsOf: "2023", docmeta.AsOfCue: "in 2023",
		}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := docmeta.FromItem(c.item)
			require.True(t, ok)
			assert.Equal(t, c.want, got)
			for k := range got.Meta {
				assert.Contains(t, docmeta.Keys(), k)
			}
		})
	}
}

func TestFromItemRejects(t *testing.T) {
	for name, it := range map[string]kgmem.RetrievalItem{
		"page kind without a page":      {Kind: kgmem.ItemPage, Entity: &kgmem.Entity{ID: "e"}},
		"entity kind without an entity": {Kind: kgmem.ItemEntity, Page: &kgmem.KnowledgePage{ID: "p"}},
		"unknown kind":                  {Kind: kgmem.ItemKind(7), Page: &kgmem.KnowledgePage{ID: "p"}},
	} {
		d, ok := docmeta.FromItem(it)
		assert.False(t, ok, name)
		assert.Equal(t, docmeta.Doc{}, d, name)
	}
}

func TestClampScore(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{-0.25, 0}, {0, 0}, {0.3, 0.3}, {1, 1}, {1.5, 1}, {math.Inf(1), 1}, {math.Inf(-1), 0}, {math.NaN(), 0},
	} {
		assert.Equal(t, c.want, docmeta.ClampScore(c.in), "%v", c.in)
		d, ok := docmeta.FromItem(kgmem.RetrievalItem{Kind: kgmem.ItemPage, Score: c.in, Page: &kgmem.KnowledgePage{ID: "p"}})
		require.True(t, ok)
		assert.Equal(t, c.want, d.Score, "%v", c.in)
		assert.Equal(t, c.want, d.Meta[docmeta.Score], "%v", c.in)
	}
}

// The document shares no slice or map with the item.
func TestFromItemCopies(t *testing.T) {
	page := &kgmem.KnowledgePage{ID: "p", Metadata: map[string]string{"k": "v"}}
	it := kgmem.RetrievalItem{Kind: kgmem.ItemPage, Page: page, Path: []string{"a"}}
	d, ok := docmeta.FromItem(it)
	require.True(t, ok)
	page.Metadata["k"] = "changed"
	it.Path[0] = "changed"
	assert.Equal(t, map[string]string{"k": "v"}, d.Meta[docmeta.PageMetadata])
	assert.Equal(t, []string{"a"}, d.Meta[docmeta.Path])
}

func TestKeysAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range docmeta.Keys() {
		assert.False(t, seen[k], k)
		assert.Regexp(t, `^kgmem_[a-z_]+$`, k)
		seen[k] = true
	}
	assert.Len(t, seen, 13)
}

// The examples the adapters test with set every key between them.
func TestExamplesSetEveryKey(t *testing.T) {
	ex := docmeta.Examples()
	set := map[string]bool{}
	for _, it := range ex[:len(ex)-1] {
		d, ok := docmeta.FromItem(it)
		require.True(t, ok)
		for k := range d.Meta {
			set[k] = true
		}
	}
	for _, k := range docmeta.Keys() {
		assert.True(t, set[k], k)
	}
	_, ok := docmeta.FromItem(ex[len(ex)-1])
	assert.False(t, ok)
}
