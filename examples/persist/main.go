// Command persist keeps an agent's memory on disk: it opens a durable
// memory, ingests a page with what a model extracted from it, writes a
// fact by hand, closes it, opens it again as a restarted agent would, asks
// it a question, then compacts the journal into the snapshot.
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
	tmp, err := os.MkdirTemp("", "kgmem-persist-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "memory")

	// First run: every write is in the journal, synced, before it returns.
	mem, err := kgmem.OpenMemory(dir)
	if err != nil {
		log.Fatal(err)
	}
	page := kgmem.KnowledgePage{
		ID:      "standup-2026-11-30",
		Title:   "Standup",
		Content: "Alice leads Project Apollo, which uses Raft for its metadata store.",
	}
	// The page and the entities and relations extracted from it are one
	// journal record: after a crash they come back together or not at all.
	rep, err := mem.Ingest(ctx, page, kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "Alice", Type: "person"},
			{Name: "Project Apollo", Type: "project", Tags: []string{"Space"}},
			{Name: "Raft", Type: "concept"},
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "Alice", Target: "Project Apollo", Type: "leads"},
			{Source: "Project Apollo", Target: "Raft", Type: "uses"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ingested: %d entities, %d relations, 1 page\n", rep.EntitiesCreated, rep.RelationsCreated)
	if err := mem.Graph().AddEntity(ctx, kgmem.Entity{ID: "person:bob", Name: "Bob", Type: "person"}); err != nil {
		log.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		log.Fatal(err)
	}

	// Second run: the journal is replayed.
	mem, err = kgmem.OpenMemory(dir)
	if err != nil {
		log.Fatal(err)
	}
	st := mem.Graph().Stats()
	fmt.Printf("reopened: %d entities, %d relations and %d page, %d journal records replayed\n",
		st.Entities, st.Relations, mem.Store().Len(), mem.Recovery().Replayed)
	res, err := mem.Retriever().Retrieve(ctx, "What does Project Apollo use?")
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range res.Items[:min(3, len(res.Items))] {
		fmt.Printf("  %.2f  %s\n", it.Score, it.Explain())
	}

	// Fold the journal into a new snapshot; the next Open reads only that.
	if err := mem.Compact(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("compacted: the snapshot holds writes 1-%d\n", mem.JournalStats().SnapshotSeq)
	if err := mem.Close(); err != nil {
		log.Fatal(err)
	}

	mem, err = kgmem.OpenMemory(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()
	e, _, err := mem.Graph().GetEntity(ctx, "project:project_apollo")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("after compaction: %d entities, %d records replayed, %s tagged %v, cited by %v\n",
		mem.Graph().Stats().Entities, mem.Recovery().Replayed, e.Name, e.Tags, e.SourceIDs)
}
