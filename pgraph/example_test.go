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

// Example opens a graph in its own namespace, migrates the schema and
// asks what an entity is related to. It needs a database, so it is
// compiled but not run by go test.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("KGMEM_PG_DSN")) // postgres://user@host:5432/db
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	g, err := pgraph.New(ctx, pool, pgraph.WithNamespace("team-alpha"))
	if err != nil {
		log.Fatal(err)
	}
	err = g.Migrate(ctx) // idempotent, versioned, safe from every process at start-up
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range []kgmem.Entity{
		{ID: "person:alice", Name: "Alice"},
		{ID: "project:apollo", Name: "Project Apollo"},
	} {
		if err := g.AddEntity(ctx, e); err != nil {
			log.Fatal(err)
		}
	}
	if err := g.AddRelation(ctx, kgmem.Relation{
		SourceID: "person:alice", TargetID: "project:apollo", Type: "works_on", Weight: 0.9,
	}); err != nil {
		log.Fatal(err)
	}

	related, err := g.GetRelated(ctx, "project:apollo", kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range related {
		fmt.Printf("%s %.2f %v\n", r.Entity.Name, r.Score, r.Path)
	}

	// The retriever's graph channel reads a pgraph.Graph as it reads an
	// in-memory one.
	store := kgmem.NewInMemoryKnowledgeStore()
	r := kgmem.NewMemoryRetriever(store, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	res, err := r.Retrieve(ctx, "who works on Project Apollo?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Items[0].Explain())
}
