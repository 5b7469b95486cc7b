package kgmemlangchain_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/kgmem/kgmem"
	kgmemlangchain "github.com/kgmem/kgmem/adapters/langchaingo"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/fake"
)

// A conversation chain whose memory is kgmem: the prompt's {{.history}} is
// what the memory knows about the question, and the turn is saved as a
// page. A fake model stands in for a real one.
func Example() {
	dir, err := os.MkdirTemp("", "kgmemlangchain-example-")
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

	memory, _ := kgmemlangchain.NewMemory(mem, kgmemlangchain.MemoryConfig{Retriever: kgmem.RetrieverConfig{MaxResults: 2}})
	vars, _ := memory.LoadMemoryVariables(ctx, map[string]any{"input": "张三负责什么项目？"})
	fmt.Print(vars["history"])

	chain := chains.NewConversation(fake.NewFakeLLM([]string{"项目A。"}), memory)
	answer, err := chains.Run(ctx, chain, "张三负责什么项目？")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", answer)
	// Output:
	// [1] page chat-42
	// surfaced by: 张三 —works_on→ 项目A —mentioned_in→ chat-42
	//   张三负责项目A。
	//
	// [2] entity 项目A (project)
	// path: 张三 —works_on→ 项目A
	//
	// answer: 项目A。
}
