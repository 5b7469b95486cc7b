package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server's tools as an MCP client calls them; here the client runs in
// the same process, over the SDK's in-memory transport. A client such as
// an IDE starts the kgmem-mcp binary instead and speaks over its stdio.
func ExampleNewServer() {
	dir, err := os.MkdirTemp("", "kgmem-mcp-example-")
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

	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := NewServer(mem, dir).Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{
		"page_id": "chat-42", "content": "张三负责项目A。",
		"extraction_text": `{"entities": ["张三", "项目A"], "relations": [["张三", "works_on", "项目A"]]}`,
	}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "related", Arguments: map[string]any{"entity_id": "张三"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 1.0000 张三 —works_on→ 项目A [entity:项目a]
}

// A client written for the reference memory server calls its tools; the
// observation it stores is a page that recall finds.
func ExampleNewServer_referenceTools() {
	dir, err := os.MkdirTemp("", "kgmem-mcp-example-")
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
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := NewServer(mem, dir).Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{"entities": []any{
		map[string]any{"name": "John_Smith", "entityType": "person", "observations": []any{"Speaks fluent Spanish"}},
	}}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "Who speaks Spanish?", "max_results": 1}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.TrimSpace(res.Content[0].(*mcp.TextContent).Text))
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_nodes", Arguments: map[string]any{"names": []any{"john smith"}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.TrimSpace(res.Content[0].(*mcp.TextContent).Text))
	// Output:
	// [1] page obs:677265c85c56456f799b0db6 "John_Smith"
	// surfaced by: John_Smith —mentioned_in→ John_Smith
	//   Speaks fluent Spanish
	// {
	//   "entities": [
	//     {
	//       "name": "John_Smith",
	//       "entityType": "person",
	//       "observations": [
	//         "Speaks fluent Spanish"
	//       ]
	//     }
	//   ],
	//   "relations": []
	// }
}
