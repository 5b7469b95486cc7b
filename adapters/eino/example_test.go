package kgmemeino_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/kgmem/kgmem"
	kgmemeino "github.com/kgmem/kgmem/adapters/eino"
)

// A canned extraction stands in for the model that would read each document.
func extractMeeting(_ context.Context, doc *schema.Document) ([]byte, error) {
	return []byte(`{"entities": [{"name": "张三", "type": "person"}, {"name": "项目A", "type": "project"}],
	  "relations": [["张三", "works_on", "项目A"]]}`), nil
}

// Documents go in through the Indexer, with what a model extracted from
// them; questions come back through the Retriever, as Eino documents.
func Example() {
	dir, err := os.MkdirTemp("", "kgmemeino-example-")
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

	ix, _ := kgmemeino.NewIndexer(mem, kgmemeino.ExtractJSON(extractMeeting))
	_, err = ix.Store(ctx, []*schema.Document{{ID: "chat-42", Content: "张三负责项目A。"}})
	if err != nil {
		log.Fatal(err)
	}

	r, _ := kgmemeino.NewRetriever(kgmemeino.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	docs, err := r.Retrieve(ctx, "张三负责什么项目？", retriever.WithTopK(3), kgmemeino.WithDepth(1))
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range docs {
		fmt.Printf("%.2f %-6s %s\n", d.Score(), d.MetaData[kgmemeino.MetaKind], d.MetaData[kgmemeino.MetaExplanation])
	}
	// Output:
	// 0.61 page   张三 —works_on→ 项目A —mentioned_in→ chat-42 (works_on ← "负责")
	// 0.59 entity 张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")
	// 0.42 entity 张三
}
