// Command persist keeps an agent's memory on disk: it opens a durable graph,
// writes a few facts, closes it, opens it again as a restarted agent would,
// prints what survived, then compacts the journal into the snapshot.
//
//	go run ./examples/persist
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kgmem/kgmem"
)

func main() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kgmem-persist-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.kg")

	// First run: every write is in the journal, synced, before it returns.
	g, err := kgmem.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	err = g.AddBatch(ctx,
		[]kgmem.Entity{
			{ID: "person:alice", Name: "Alice", Type: "person"},
			{ID: "project:apollo", Name: "Project Apollo", Type: "project", Tags: []string{"Space"}},
			{ID: "tech:raft", Name: "Raft", Type: "concept"},
		},
		[]kgmem.Relation{
			{SourceID: "person:alice", TargetID: "project:apollo", Type: "leads", Weight: 0.9},
			{SourceID: "project:apollo", TargetID: "tech:raft", Type: "uses", Weight: 0.8},
		})
	if err != nil {
		log.Fatal(err)
	}
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "person:bob", Name: "Bob", Type: "person"}); err != nil {
		log.Fatal(err)
	}
	if err := g.RemoveEntity(ctx, "person:bob"); err != nil {
		log.Fatal(err)
	}
	if err := g.Close(); err != nil {
		log.Fatal(err)
	}

	// Second run: the journal is replayed.
	g, err = kgmem.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	st := g.Stats()
	fmt.Printf("reopened: %d entities, %d relations, %d journal records replayed\n",
		st.Entities, st.Relations, g.Recovery().Replayed)
	related, err := g.GetRelated(ctx, "person:alice", kgmem.TraverseOptions{Depth: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range related {
		unit := "hops"
		if r.Hops() == 1 {
			unit = "hop"
		}
		fmt.Printf("  %.2f  %s (%d %s)\n", r.Score, r.Entity.Name, r.Hops(), unit)
	}

	// Fold the journal into a new snapshot; the next Open reads only that.
	if err := g.Compact(); err != nil {
		log.Fatal(err)
	}
	js := g.JournalStats()
	fmt.Printf("compacted: the snapshot holds writes 1-%d\n", js.SnapshotSeq)
	if err := g.Close(); err != nil {
		log.Fatal(err)
	}

	g, err = kgmem.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	e, _, err := g.GetEntity(ctx, "project:apollo")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("after compaction: %d entities, %d records replayed, %s tagged %v\n",
		g.Stats().Entities, g.Recovery().Replayed, e.Name, e.Tags)
}
