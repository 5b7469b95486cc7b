package kgmem_test

import (
	"context"
	"fmt"
	"log"

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
