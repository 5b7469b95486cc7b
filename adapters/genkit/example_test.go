package kgmemgenkit_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/kgmem/kgmem"
	kgmemgenkit "github.com/kgmem/kgmem/adapters/genkit"
)

// A Genkit retriever over a kgmem memory, called the way a flow calls any
// retriever; no model is involved.
func ExampleDefineRetriever() {
	dir, err := os.MkdirTemp("", "kgmemgenkit-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	mem, err := kgmem.OpenMemory(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()
	ctx := context.Background()
	_, err = mem.Ingest(ctx, kgmem.KnowledgePage{ID: "chat-42", Content: "张三负责项目A。"}, kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "张三", Type: "person"}, {Name: "项目A", Type: "project"}},
		Relations: []kgmem.ExtractedRelation{{Source: "张三", Target: "项目A", Type: "works_on"}},
	})
	if err != nil {
		log.Fatal(err)
	}

	g := genkit.Init(ctx)
	kgmemgenkit.DefineRetriever(g, "kgmem/memory", kgmemgenkit.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	resp, err := genkit.Retrieve(ctx, g, ai.WithRetrieverName("kgmem/memory"),
		ai.WithTextDocs("张三负责什么项目？"), ai.WithConfig(&kgmemgenkit.Options{K: 2}))
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range resp.Documents {
		fmt.Printf("%.2f %s\n", d.Metadata[kgmemgenkit.MetaScore], d.Metadata[kgmemgenkit.MetaExplanation])
	}
	// Output:
	// 0.61 张三 —works_on→ 项目A —mentioned_in→ chat-42 (works_on ← "负责")
	// 0.59 张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")
}
