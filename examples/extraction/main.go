// Command extraction fills an agent's memory from a language model's
// extraction output: it parses a realistic, messy response (prose around a
// fenced JSON block, key synonyms, string weights, one person under two
// spellings, a relation to an entity the model forgot to list), ingests it
// with the page it came from as source, and answers a question from the
// result.
//
//	go run ./examples/extraction
package main

import (
	"context"
	_ "embed"
	"fmt"
	"log"
	"strings"

	"github.com/kgmem/kgmem"
)

//go:embed testdata/model_output.txt
var modelOutput []byte

// page is the knowledge page the model read.
var page = kgmem.KnowledgePage{
	ID:    "weekly-2024-23",
	Title: "Apollo weekly report, week 23",
	Content: "张三 (Zhang San) 本周完成了支付模块的重构，对账服务已上线。" +
		"Alice Chen leads Project Apollo and manages the payments work; the beta ships next month.",
}

func main() {
	ctx := context.Background()

	x, err := kgmem.ParseExtraction(modelOutput)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("parsed %d entities and %d relations\n", len(x.Entities), len(x.Relations))

	g := kgmem.NewInMemoryGraph()
	rep, err := kgmem.Ingest(ctx, g, x, kgmem.WithSource(page.ID))
	if err != nil {
		log.Fatal(err)
	}
	printReport("first ingest", rep)
	for _, s := range rep.Skipped {
		fmt.Println("skipped", s)
	}

	entities, _ := g.Entities(ctx)
	for _, e := range entities {
		fmt.Printf("entity %s %q aliases=%q sources=%v\n", e.ID, e.Name, e.Aliases, e.SourceIDs)
		if len(e.Properties) > 0 {
			fmt.Printf("  properties %v\n", e.Properties)
		}
	}
	relations, _ := g.Relations(ctx)
	for _, r := range relations {
		fmt.Printf("relation %s -[%s %.2f]-> %s\n", r.SourceID, r.Type, r.Weight, r.TargetID)
	}

	// The same response ingested again changes nothing, and the report says
	// so: every entity and relation is found unchanged, and none is written.
	rep, err = kgmem.Ingest(ctx, g, x, kgmem.WithSource(page.ID))
	if err != nil {
		log.Fatal(err)
	}
	printReport("second ingest", rep)

	store := kgmem.NewInMemoryKnowledgeStore()
	if err := store.Put(ctx, page); err != nil {
		log.Fatal(err)
	}
	r := kgmem.NewMemoryRetriever(store, kgmem.RetrieverConfig{MaxResults: 5}, kgmem.WithKnowledgeGraph(g))
	q := "What is Zhang San working on?"
	res, err := r.Retrieve(ctx, q)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Q: %s  (%s)\n", q, res.Strategy)
	for _, it := range res.Items {
		fmt.Printf("  %.2f  %-6s %s\n", it.Score, it.Kind, it.Explain())
	}
}

func printReport(label string, rep kgmem.IngestReport) {
	fmt.Printf("%s: entities %s; relations %s; placeholders %d; weights clamped %d\n", label,
		counts("created", rep.EntitiesCreated, "merged", rep.EntitiesMerged, "unchanged", rep.EntitiesUnchanged,
			"deduplicated", rep.EntitiesDeduplicated, "skipped", rep.EntitiesSkipped),
		counts("created", rep.RelationsCreated, "updated", rep.RelationsUpdated, "unchanged", rep.RelationsUnchanged,
			"deduplicated", rep.RelationsDeduplicated, "skipped", rep.RelationsSkipped),
		rep.PlaceholdersCreated, rep.WeightsClamped)
}

// counts renders name/value pairs as "created 4, merged 0".
func counts(pairs ...any) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, fmt.Sprintf("%v %v", pairs[i], pairs[i+1]))
	}
	return strings.Join(parts, ", ")
}
