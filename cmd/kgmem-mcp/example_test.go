package main

import (
	"context"
	"fmt"
	"log"
	"os"

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
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "related", Arguments: map[string]any{"entity_id": "entity:张三"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 1.00 张三 —works_on→ 项目A [entity:项目a]
}
