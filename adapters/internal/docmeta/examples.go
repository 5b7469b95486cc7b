package docmeta

import "github.com/kgmem/kgmem"

// Examples returns retrieval items that, together, set every metadata key,
// plus one item that maps to no document (the last), for the adapters'
// tests: each adapter's documents for them carry exactly the metadata
// FromItem gives.
func Examples() []kgmem.RetrievalItem {
	worksOn := kgmem.Relation{SourceID: "person:ada", TargetID: "project:apollo", Type: "works_on"}
	return []kgmem.RetrievalItem{
		{Kind: kgmem.ItemPage, Score: 0.5, Page: &kgmem.KnowledgePage{ID: "p2", Content: "text"}, Source: "store"},
		{Kind: kgmem.ItemPage, Score: 0.75, Source: "store",
			Page: &kgmem.KnowledgePage{ID: "p1", Title: "Weekly", Content: "Ada works on Apollo.", Metadata: map[string]string{"lang": "en"}},
			Path: []string{"person:ada", "project:apollo"}, PathNames: []string{"Ada", "Apollo"}, Relations: []kgmem.Relation{worksOn}},
		{Kind: kgmem.ItemEntity, Score: 1.25, Source: "graph",
			Entity: &kgmem.Entity{ID: "person:ada", Name: "Ada", Type: "person", Description: "engineer"},
			Path:   []string{"person:ada"}, PathNames: []string{"Ada"}},
		{Kind: kgmem.ItemEntity, Score: 0.4, Entity: &kgmem.Entity{ID: "project:apollo", Name: "Apollo"},
			Path: []string{"person:ada", "project:apollo"}, PathNames: []string{"Ada", "Apollo"}, Relations: []kgmem.Relation{worksOn},
			Matched: []string{"works"}, AsOfLabel: "2023", AsOfCue: "in 2023"},
		{Kind: kgmem.ItemEntity},
	}
}
