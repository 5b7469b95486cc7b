package kgmem_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// A store with an embedder ranks by BM25 fused with the cosine similarity
// of page and query vectors, so it also finds pages that share no term
// with the query. kgmemtest.HashEmbedder stands in for a real model here.
func ExampleWithEmbedder() {
	ctx := context.Background()
	s := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(kgmemtest.HashEmbedder{}))
	err := s.PutBatch(ctx, []kgmem.KnowledgePage{
		{ID: "n1", Title: "Launch", Content: "Alice leads the Apollo launch team."},
		{ID: "n2", Title: "Budget", Content: "Finance cut the marketing budget."},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range []string{"Apollo launch", "launching"} { // "launching" is no term of n1
		hits, err := s.Search(ctx, q, 10)
		if err != nil {
			log.Fatal(err)
		}
		for _, h := range hits {
			fmt.Printf("%s: %s %.2f\n", q, h.Page.ID, h.Score)
		}
	}
	// Output:
	// Apollo launch: n1 0.61
	// launching: n1 0.06
}

// A memory opened with an embedder runs the whole recall pipeline: pages
// ranked by text and meaning, the entities the best pages mention seeding
// the graph channel, and entities linked by meaning when the question
// names none. The question below names no entity and shares no word with
// the page that states the answer: the page is found by its vector, and
// the two entities it mentions start the walks that answer.
func ExampleOpenMemory_embedder() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kgmem-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	mem, err := kgmem.OpenMemory(dir, kgmem.WithEmbedder(kgmemtest.HashEmbedder{})) // your model here
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()
	page := kgmem.KnowledgePage{ID: "chat-7", Content: "Alice Smith heads Project Apollo, the crewed lunar programme."}
	_, err = mem.Ingest(ctx, page, kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "Alice Smith", Type: "person"},
			{Name: "Project Apollo", Type: "project", Description: "crewed moon landing programme"},
		},
		Relations: []kgmem.ExtractedRelation{{Source: "Alice Smith", Target: "Project Apollo", Type: "leads"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := mem.Retriever().Retrieve(ctx, "who leads the moon landings?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("linked by meaning:", res.Stats.LinkedByMeaning, "seeded:", res.Stats.Seeded)
	for _, it := range res.Items {
		fmt.Printf("%.2f %-6s %s\n", it.Score, it.Kind, it.Explain())
	}
	// Output:
	// linked by meaning: 0 seeded: 2
	// 0.05 page   Project Apollo ←leads— Alice Smith —mentioned_in→ chat-7 (leads ← "leads")
	// 0.04 entity Project Apollo ←leads— Alice Smith (leads ← "leads"; person ← "who")
	// 0.02 entity Project Apollo
}
