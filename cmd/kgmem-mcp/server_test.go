package main

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connect serves mem over the SDK's in-memory transports and returns a
// client session.
func connect(t *testing.T, mem *kgmem.Memory) *mcp.ClientSession {
	t.Helper()
	return connectServer(t, NewServer(mem, ""))
}

// connectServer serves srv over the SDK's in-memory transports and
// returns a client session.
func connectServer(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func openMemory(t *testing.T) *kgmem.Memory {
	t.Helper()
	mem, err := kgmem.OpenMemory(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	return mem
}

// call calls a tool that must succeed and decodes its structured result
// into out; it returns the text content.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	text := textOf(res)
	require.False(t, res.IsError, "%s: %s", name, text)
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, out))
	}
	return text
}

// callErr calls a tool that must fail and returns the error text.
func callErr(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err.Error() // rejected by the SDK's schema validation
	}
	require.True(t, res.IsError, "%s succeeded: %s", name, textOf(res))
	return textOf(res)
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

const meeting = `{"entities": [{"name": "张三", "type": "person"}, {"name": "项目A", "type": "project"}, {"name": "基础架构部", "type": "team"}],
 "relations": [["张三", "works_on", "项目A"], {"source": "项目A", "type": "part_of", "target": "基础架构部"}]}`

func remember(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	var out RememberOutput
	call(t, cs, "remember", map[string]any{"page_id": "chat-42", "title": "周会", "content": "张三负责项目A，项目A隶属基础架构部。", "extraction_text": meeting}, &out)
	assert.Equal(t, RememberOutput{PageStored: true, EntityIDs: []string{"person:张三", "project:项目a", "team:基础架构部"},
		EntitiesCreated: 3, RelationsCreated: 2, Skipped: []string{}}, out)
}

func TestTools(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, []string{"remember", "recall", "related", "paths", "history", "forget", "draw",
		"create_entities", "create_relations", "add_observations", "delete_entities", "delete_observations", "delete_relations",
		"read_graph", "search_nodes", "open_nodes"}, names)
	// No tool takes a file system location: everything goes into the one
	// memory directory given on the command line.
	for _, tool := range tools.Tools {
		b, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(b, &schema))
		for prop := range schema.Properties {
			assert.NotRegexp(t, `(?i)^(path|file|dir|directory|folder)$|_(path|file|dir|directory|folder)$`, prop, "tool %s", tool.Name)
		}
	}

	remember(t, cs)

	// recall returns kgmem's context block as text and the items as data.
	var rec RecallOutput
	text := call(t, cs, "recall", map[string]any{"query": "张三负责什么项目？", "max_results": 2}, &rec)
	want, err := kgmem.NewMemoryRetriever(mem.Store(), kgmem.RetrieverConfig{MaxResults: 2}, kgmem.WithKnowledgeGraph(mem.Graph())).
		Retrieve(ctx, "张三负责什么项目？")
	// Scores are rounded to 4 decimals.
	require.NotEqual(t, want.Items[0].Score, math.Round(want.Items[0].Score*10000)/10000, "a score with more decimals")
	require.NoError(t, err)
	assert.Equal(t, want.ContextBlock(0), text)
	assert.Equal(t, want.ContextBlock(0), rec.Context)
	require.Len(t, rec.Items, 2)
	assert.Equal(t, Item{Kind: "page", ID: "chat-42", Score: math.Round(want.Items[0].Score*10000) / 10000, Name: "周会",
		Explanation: `张三 —works_on→ 项目A —mentioned_in→ 周会 (works_on ← "负责")`, Path: []string{"person:张三", "project:项目a"}}, rec.Items[0])
	assert.Equal(t, "project:项目a", rec.Items[1].ID)
	assert.Equal(t, "project", rec.Items[1].Type)

	call(t, cs, "recall", map[string]any{"query": "张三", "strategy": "graph"}, &rec)
	for _, it := range rec.Items {
		assert.Equal(t, "entity", it.Kind)
	}
	text = call(t, cs, "recall", map[string]any{"query": "quantum chromodynamics"}, &rec)
	assert.Equal(t, "Nothing in memory matches the question.", text)
	assert.Empty(t, rec.Items)

	// related
	var rel RelatedOutput
	text = call(t, cs, "related", map[string]any{"entity_id": "person:张三", "depth": 2}, &rel)
	assert.Equal(t, []Related{
		{ID: "project:项目a", Name: "项目A", Type: "project", Score: 1, Path: []string{"person:张三", "project:项目a"}, Explanation: "张三 —works_on→ 项目A"},
		{ID: "team:基础架构部", Name: "基础架构部", Type: "team", Score: 1, Path: []string{"person:张三", "project:项目a", "team:基础架构部"},
			Explanation: "张三 —works_on→ 项目A —part_of→ 基础架构部"},
	}, rel.Entities)
	assert.Equal(t, "1.0000 张三 —works_on→ 项目A [project:项目a]\n1.0000 张三 —works_on→ 项目A —part_of→ 基础架构部 [team:基础架构部]\n", text)
	call(t, cs, "related", map[string]any{"entity_id": "team:基础架构部", "direction": "outgoing"}, &rel)
	assert.Empty(t, rel.Entities)

	// paths
	var ps PathsOutput
	text = call(t, cs, "paths", map[string]any{"from": "team:基础架构部", "to": "person:张三"}, &ps)
	assert.Equal(t, PathsOutput{Paths: []FoundPath{{EntityIDs: []string{"team:基础架构部", "project:项目a", "person:张三"},
		Relations: []string{"part_of", "works_on"}, Score: 1, Explanation: "基础架构部 ←part_of— 项目A ←works_on— 张三"}}}, ps)
	assert.Equal(t, "1.0000 基础架构部 ←part_of— 项目A ←works_on— 张三\n", text)
	text = call(t, cs, "paths", map[string]any{"from": "team:基础架构部", "to": "person:张三", "direction": "outgoing"}, &ps)
	assert.Empty(t, ps.Paths)
	assert.Equal(t, "No path between them within max_hops.", text)

	// draw, three ways
	var d DrawOutput
	text = call(t, cs, "draw", map[string]any{"entity_id": "person:张三"}, &d)
	assert.Contains(t, d.Mermaid, "flowchart LR")
	assert.Contains(t, d.Mermaid, "works_on")
	assert.Equal(t, "```mermaid\n"+d.Mermaid+"```\n", text)
	call(t, cs, "draw", map[string]any{"from": "person:张三", "to": "team:基础架构部"}, &d)
	assert.Contains(t, d.Mermaid, "part_of")
	call(t, cs, "draw", map[string]any{"query": "张三负责什么项目？"}, &d)
	assert.Contains(t, d.Mermaid, "周会")

	// forget a page: the page and everything only it supports.
	var f ForgetOutput
	call(t, cs, "forget", map[string]any{"page_id": "chat-42"}, &f)
	assert.Equal(t, ForgetOutput{PageRemoved: true, EntitiesRemoved: 3, RelationsRemoved: 2}, f)
	_, ok, _ := mem.Store().Get(ctx, "chat-42")
	assert.False(t, ok)
	ents, _ := mem.Graph().Entities(ctx)
	assert.Empty(t, ents)

	// forget an entity.
	remember(t, cs)
	call(t, cs, "forget", map[string]any{"entity_id": "project:项目a"}, &f)
	assert.Equal(t, ForgetOutput{EntitiesRemoved: 1}, f)
	rels, _ := mem.Graph().Relations(ctx)
	assert.Empty(t, rels)
}

func TestRememberForms(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem)
	ctx := context.Background()
	var out RememberOutput

	// An extraction as a string, without a page: the graph only.
	call(t, cs, "remember", map[string]any{"extraction_text": "Here you go: " + meeting}, &out)
	assert.Equal(t, 3, out.EntitiesCreated)
	e, ok, _ := mem.Graph().GetEntity(ctx, "person:张三")
	require.True(t, ok)
	assert.Empty(t, e.SourceIDs)

	// With a page_id but no content: the entities cite the page.
	call(t, cs, "remember", map[string]any{"page_id": "p1", "extraction_text": `{"entities": ["Alice"]}`}, &out)
	e, ok, _ = mem.Graph().GetEntity(ctx, "entity:alice")
	require.True(t, ok)
	assert.Equal(t, []string{"p1"}, e.SourceIDs)

	// A page alone.
	call(t, cs, "remember", map[string]any{"page_id": "p2", "content": "plain text"}, &out)
	assert.True(t, out.PageStored)
	p, ok, _ := mem.Store().Get(ctx, "p2")
	require.True(t, ok)
	assert.Equal(t, "plain text", p.Content)

	// A typed extraction, every field used.
	call(t, cs, "remember", map[string]any{"page_id": "p3", "extraction": map[string]any{
		"entities": []any{
			map[string]any{"name": "Maria", "type": "person", "description": "an engineer", "aliases": []any{"Mia"}, "tags": []any{"team"}, "properties": map[string]any{"role": "lead"}},
			map[string]any{"name": "Lisbon", "type": "city"}},
		"relations": []any{map[string]any{"source": "Mia", "type": "lives_in", "target": "Lisbon", "weight": 0.5, "valid_from": "2024-03-01",
			"source_type": "person", "description": "moved in March", "properties": map[string]any{"how": "told"}}},
	}}, &out)
	assert.Equal(t, RememberOutput{EntityIDs: []string{"person:maria", "city:lisbon"}, EntitiesCreated: 2, RelationsCreated: 1, Skipped: []string{}}, out)
	e, ok, _ = mem.Graph().GetEntity(ctx, "person:maria")
	require.True(t, ok)
	assert.Equal(t, kgmem.Entity{ID: "person:maria", Name: "Maria", Type: "person", Description: "an engineer", Aliases: []string{"Mia"},
		Tags: []string{"team"}, Properties: map[string]string{"role": "lead"}, SourceIDs: []string{"p3"}}, e)
	r, ok, _ := mem.Graph().GetRelation(ctx, "person:maria", "city:lisbon", "lives_in")
	require.True(t, ok)
	assert.Equal(t, 0.5, r.Weight)
	assert.Equal(t, "2024-03-01T00:00:00Z", r.ValidFrom.UTC().Format(time.RFC3339))
	assert.Equal(t, map[string]string{"description": "moved in March", "how": "told"}, r.Properties)

	// Skipped items are reported.
	call(t, cs, "remember", map[string]any{"extraction": map[string]any{"relations": []any{map[string]any{"source": "nobody", "type": "knows", "target": "noone"}}}}, &out)
	assert.Len(t, out.Skipped, 1)
}

// Bad input gives a tool error that says what is wrong and changes
// nothing.
func TestToolErrors(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem)
	remember(t, cs)
	ctx := context.Background()
	before, _ := mem.Graph().Entities(ctx)

	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"remember", map[string]any{}, "give content (with page_id) or an extraction"},
		{"remember", map[string]any{"content": "x"}, "page_id is required with content"},
		{"remember", map[string]any{"title": "t", "extraction_text": meeting}, "title is given without content"},
		{"remember", map[string]any{"extraction_text": "{not json"}, "extraction"},
		{"remember", map[string]any{"extraction": map[string]any{}, "extraction_text": "{}"}, "give extraction or extraction_text, not both"},
		{"remember", map[string]any{"extraction": `{"entities": []}`}, "extraction"},
		{"remember", map[string]any{"page_id": "obs:1", "content": "x"}, `IDs beginning with "obs:" are the observations'`},
		{"remember", map[string]any{"extraction": map[string]any{"entities": 7}}, "entities"},
		{"remember", map[string]any{"page_id": " ", "content": "x"}, "page_id is required"},
		{"recall", map[string]any{"query": " "}, "query is empty"},
		{"recall", map[string]any{}, "query"},
		{"recall", map[string]any{"query": "x", "max_results": 1000}, "max_results 1000 is outside [0,100]"},
		{"recall", map[string]any{"query": "x", "strategy": "magic"}, `unknown strategy "magic"`},
		{"recall", map[string]any{"query": "x", "max_chars": -1}, "max_chars -1 is negative"},
		{"related", map[string]any{"entity_id": "person:nobody"}, `unknown entity "person:nobody"`},
		{"related", map[string]any{"entity_id": ""}, "entity_id is empty"},
		{"related", map[string]any{"entity_id": "person:张三", "depth": 9}, "depth 9 is outside [0,5]"},
		{"related", map[string]any{"entity_id": "person:张三", "limit": -1}, "limit -1 is outside"},
		{"related", map[string]any{"entity_id": "person:张三", "direction": "up"}, `unknown direction "up"`},
		{"related", map[string]any{"entity_id": 7}, "entity_id"},
		{"paths", map[string]any{"from": "person:张三", "to": "x"}, `unknown entity "x" (to)`},
		{"paths", map[string]any{"from": "person:张三", "to": "team:基础架构部", "max_hops": 99}, "max_hops 99 is outside [0,8]"},
		{"paths", map[string]any{"from": "person:张三", "to": "team:基础架构部", "max_paths": 99}, "max_paths 99 is outside [0,20]"},
		{"forget", map[string]any{}, "give exactly one of page_id and entity_id"},
		{"forget", map[string]any{"page_id": "a", "entity_id": "b"}, "give exactly one"},
		{"forget", map[string]any{"page_id": "nope"}, `unknown page "nope"`},
		{"forget", map[string]any{"entity_id": "nope"}, `unknown entity "nope"`},
		{"draw", map[string]any{}, "give exactly one of entity_id, from and to, or query"},
		{"draw", map[string]any{"entity_id": "person:张三", "query": "x"}, "give exactly one"},
		{"draw", map[string]any{"from": "person:张三"}, "to is empty"},
	}
	for _, tt := range tests {
		got := callErr(t, cs, tt.tool, tt.args)
		assert.Contains(t, got, tt.want, "%s %v", tt.tool, tt.args)
	}
	after, _ := mem.Graph().Entities(ctx)
	assert.Equal(t, before, after)
	pages := 0
	for _, id := range []string{"chat-42", "p"} {
		if _, ok, _ := mem.Store().Get(ctx, id); ok {
			pages++
		}
	}
	assert.Equal(t, 1, pages)
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8931": true, "[::1]:0": true, "localhost:80": true, "127.1.2.3:9": true,
		"0.0.0.0:8931": false, ":8931": false, "192.168.1.2:80": false, "example.com:80": false, "127.0.0.1": false,
	} {
		err := checkLoopback(addr)
		assert.Equal(t, ok, err == nil, "%s: %v", addr, err)
	}
}
