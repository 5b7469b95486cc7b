package kgmem_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kgmem/kgmem"
)

// The README's first example: a memory that survives restarts, filled
// from one model extraction and asked a question.
func ExampleOpenMemory() {
	tmp, err := os.MkdirTemp("", "kgmem-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "agent-memory")

	ctx := context.Background()
	mem, err := kgmem.OpenMemory(dir) // a directory: created if missing, reloaded after a restart
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()

	// A conversation turn, and what the model extracted from it: stored
	// together, in one journal record.
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
	// Output:
	// 0.63 page   张三 —works_on→ 项目A —mentioned_in→ 周会 (works_on ← "负责")
	// 0.59 entity 张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")
	// 0.42 entity 张三
	// 0.12 entity 张三 —works_on→ 项目A —part_of→ 基础架构部 (works_on ← "负责")
}
