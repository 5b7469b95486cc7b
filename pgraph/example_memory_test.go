package pgraph_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/pgraph"
)

// ExampleOpenMemory is kgmem's ExampleOpenMemory on PostgreSQL: the same
// Ingest and Retrieve, with the memory of a namespace that every process
// opening it shares. It needs a database, so it is compiled but not run by
// go test.
func ExampleOpenMemory() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("KGMEM_PG_DSN")) // postgres://user@host:5432/db
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	mem, err := pgraph.OpenMemory(ctx, pool, pgraph.WithNamespace("agent-7")) // migrates the schema
	if err != nil {
		log.Fatal(err)
	}

	// The page and what the model extracted from it: one transaction.
	page := kgmem.KnowledgePage{ID: "chat-42", Title: "周会", Content: "张三负责项目A，项目A隶属基础架构部。"}
	_, err = mem.Ingest(ctx, page, kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "张三", Type: "person"}, {Name: "项目A", Type: "project"}, {Name: "基础架构部", Type: "team"},
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "张三", Target: "项目A", Type: "works_on"},
			{Source: "项目A", Target: "基础架构部", Type: "part_of"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := mem.Retriever().Retrieve(ctx, "张三负责什么项目？")
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range res.Items {
		fmt.Printf("%.2f %-6s %s\n", it.Score, it.Kind, it.Explain())
	}
	// Forgetting the page: what only it stated goes with it.
	if _, err := mem.Graph().RemoveSource(ctx, "chat-42"); err != nil {
		log.Fatal(err)
	}
	if err := mem.Store().Delete(ctx, "chat-42"); err != nil {
		log.Fatal(err)
	}
}
