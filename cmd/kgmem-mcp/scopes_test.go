package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openMemories(t *testing.T) *kgmem.Memories {
	t.Helper()
	ms, err := kgmem.OpenMemories(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { ms.Close() })
	return ms
}

// scoped returns args with scope set, or args alone for scope "".
func scoped(scope string, args map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	if scope != "" {
		out["scope"] = scope
	}
	return out
}

type scopedItem struct{ scope, id string }

func recallItems(t *testing.T, rec RecallOutput) []scopedItem {
	t.Helper()
	var items []scopedItem
	for _, it := range rec.Items {
		items = append(items, scopedItem{it.Scope, it.ID})
	}
	return items
}

func TestScopesIsolated(t *testing.T) {
	ms := openMemories(t)
	srv, err := NewScopedServer(ms, "", ScopeOptions{})
	require.NoError(t, err)
	cs := connectServer(t, srv)

	call(t, cs, "create_entities", scoped("a", map[string]any{"entities": []any{
		map[string]any{"name": "Alice", "entityType": "person", "observations": []any{"Speaks fluent Spanish"}},
		map[string]any{"name": "Bob", "entityType": "person", "observations": []any{}},
	}}), nil)
	call(t, cs, "create_relations", scoped("a", map[string]any{"relations": []any{
		map[string]any{"from": "Alice", "to": "Bob", "relationType": "knows"},
	}}), nil)
	call(t, cs, "create_entities", scoped("b", map[string]any{"entities": []any{
		map[string]any{"name": "Carol", "entityType": "person", "observations": []any{"Speaks Spanish at home"}},
	}}), nil)

	var graphA, graphB KnowledgeGraph
	call(t, cs, "read_graph", scoped("a", nil), &graphA)
	assert.Equal(t, KnowledgeGraph{
		Entities: []RefEntity{
			{Name: "Alice", EntityType: "person", Observations: []string{"Speaks fluent Spanish"}},
			{Name: "Bob", EntityType: "person", Observations: []string{}},
		},
		Relations: []RefRelation{{From: "Alice", To: "Bob", RelationType: "knows"}},
	}, graphA)
	call(t, cs, "read_graph", scoped("b", nil), &graphB)
	carol := KnowledgeGraph{Entities: []RefEntity{{Name: "Carol", EntityType: "person", Observations: []string{"Speaks Spanish at home"}}}, Relations: []RefRelation{}}
	assert.Equal(t, carol, graphB)

	// Nothing of scope a is visible through scope b, by any tool.
	var found KnowledgeGraph
	call(t, cs, "search_nodes", scoped("b", map[string]any{"query": "Spanish"}), &found)
	assert.Equal(t, carol, found)
	call(t, cs, "search_nodes", scoped("b", map[string]any{"query": "Alice"}), &found)
	assert.Equal(t, KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}, found)
	call(t, cs, "open_nodes", scoped("b", map[string]any{"names": []any{"Alice", "Bob"}}), &found)
	assert.Equal(t, KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}, found)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"related", map[string]any{"entity_id": "Alice"}},
		{"paths", map[string]any{"from": "Alice", "to": "Bob"}},
		{"history", map[string]any{"entity": "Alice"}},
		{"draw", map[string]any{"entity_id": "Alice"}},
	} {
		assert.Contains(t, callErr(t, cs, c.tool, scoped("b", c.args)), "Alice", c.tool)
		assert.NotContains(t, callErr(t, cs, c.tool, scoped("b", c.args)), "person:alice", c.tool)
		call(t, cs, c.tool, scoped("a", c.args), nil)
	}
	var rel RelatedOutput
	call(t, cs, "related", scoped("a", map[string]any{"entity_id": "Alice"}), &rel)
	require.Len(t, rel.Entities, 1)
	assert.Equal(t, "Bob", rel.Entities[0].Name)

	// recall in one scope returns that scope's items only, each saying it.
	var recA, recB RecallOutput
	call(t, cs, "recall", scoped("a", map[string]any{"query": "Who speaks Spanish?"}), &recA)
	call(t, cs, "recall", scoped("b", map[string]any{"query": "Who speaks Spanish?"}), &recB)
	require.NotEmpty(t, recA.Items)
	require.NotEmpty(t, recB.Items)
	for _, it := range recA.Items {
		assert.Equal(t, "a", it.Scope)
		assert.NotContains(t, it.ID, "carol")
	}
	for _, it := range recB.Items {
		assert.Equal(t, "b", it.Scope)
		assert.NotContains(t, it.ID, "alice")
	}
	assert.NotContains(t, recB.Context, "Alice")
	assert.NotContains(t, recA.Context, "Carol")

	// Cross-scope recall finds both, each item with its scope.
	var both RecallOutput
	text := call(t, cs, "recall", map[string]any{"query": "Who speaks Spanish?", "scopes": []any{"b", "a"}}, &both)
	got := recallItems(t, both)
	want := append(recallItems(t, recA), recallItems(t, recB)...)
	scopes := map[string]bool{}
	for _, it := range got {
		assert.Contains(t, want, it)
		scopes[it.scope] = true
	}
	assert.Equal(t, map[string]bool{"a": true, "b": true}, scopes)
	assert.Contains(t, text, "Alice")
	assert.Contains(t, text, "Carol")
	assert.Contains(t, text, "\n- a: ")
	assert.Contains(t, text, "\n- b: ")

	assert.Contains(t, callErr(t, cs, "recall", map[string]any{"query": "Spanish", "scope": "a", "scopes": []any{"b"}}), "give scope or scopes, not both")
	assert.Contains(t, callErr(t, cs, "recall", map[string]any{"query": "Spanish", "scopes": []any{"a", "nowhere"}}), `scope "nowhere"`)
	assert.Contains(t, callErr(t, cs, "recall", map[string]any{"query": "Spanish", "scopes": []any{}}), "scopes is empty")
	// scopes is recall's alone.
	callErr(t, cs, "read_graph", map[string]any{"scopes": []any{"a"}})
}

func TestScopesDefault(t *testing.T) {
	ms := openMemories(t)
	srv, err := NewScopedServer(ms, "", ScopeOptions{})
	require.NoError(t, err)
	cs := connectServer(t, srv)

	var ce CreateEntitiesOutput
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Dana", "entityType": "person", "observations": []any{"Lives in Oslo"}},
	}}, &ce)
	dana := KnowledgeGraph{Entities: []RefEntity{{Name: "Dana", EntityType: "person", Observations: []string{"Lives in Oslo"}}}, Relations: []RefRelation{}}
	var g KnowledgeGraph
	call(t, cs, "read_graph", nil, &g)
	assert.Equal(t, dana, g)
	call(t, cs, "read_graph", scoped(DefaultScope, nil), &g)
	assert.Equal(t, dana, g)
	call(t, cs, "read_graph", scoped("other", nil), &g)
	assert.Equal(t, KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}, g)
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "Who lives in Oslo?"}, &rec)
	require.NotEmpty(t, rec.Items)
	for _, it := range rec.Items {
		assert.Equal(t, DefaultScope, it.Scope)
	}

	got, err := ms.Scopes(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{DefaultScope, "other"}, got)
	// Every lease was released.
	n := ms.NumOpen()
	require.NoError(t, ms.Remove(context.Background(), "other"))
	assert.Equal(t, n-1, ms.NumOpen())

	// Another default.
	ms2 := openMemories(t)
	srv, err = NewScopedServer(ms2, "", ScopeOptions{Default: "team"})
	require.NoError(t, err)
	cs = connectServer(t, srv)
	call(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "Eve", "entityType": "person", "observations": []any{}}}}, nil)
	call(t, cs, "read_graph", scoped("team", nil), &g)
	assert.Equal(t, []RefEntity{{Name: "Eve", EntityType: "person", Observations: []string{}}}, g.Entities)
}

func TestScopesAllowed(t *testing.T) {
	ctx := context.Background()
	ms := openMemories(t)
	secret, release, err := ms.Memory(ctx, "secret")
	require.NoError(t, err)
	_, err = secret.Ingest(ctx, kgmem.KnowledgePage{ID: "p", Title: "Plans", Content: "Frank speaks Spanish."},
		kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Frank", Type: "person"}}})
	require.NoError(t, err)
	release()

	_, err = NewScopedServer(ms, "", ScopeOptions{Allowed: []string{"a"}})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument) // the default scope is not allowed
	srv, err := NewScopedServer(ms, "", ScopeOptions{Default: "a", Allowed: []string{"a", "b"}})
	require.NoError(t, err)
	cs := connectServer(t, srv)
	call(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "Gil", "entityType": "person", "observations": []any{"Speaks Spanish"}}}}, nil)

	// A scope outside the allowed ones, existing or not, is refused with
	// one error that names neither, by every tool that takes a scope.
	calls := scopeCalls
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, len(calls)+1) // and list_scopes, which takes no scope
	var list ListScopesOutput
	call(t, cs, "list_scopes", nil, &list)
	assert.Equal(t, ListScopesOutput{Scopes: []string{"a", "b"}, Default: "a"}, list)
	for _, c := range calls {
		for _, scope := range []string{"secret", "nowhere"} {
			assert.Equal(t, c.tool+": "+errScopeRefused, callErr(t, cs, c.tool, scoped(scope, c.args)), c.tool)
		}
	}
	for _, scopes := range [][]any{{"a", "secret"}, {"nowhere"}} {
		assert.Equal(t, "recall: "+errScopeRefused, callErr(t, cs, "recall", map[string]any{"query": "Spanish", "scopes": scopes}))
	}
	// Nothing was created, read or changed outside a and b.
	got, err := ms.Scopes(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "secret"}, got)
	secret, release, err = ms.Memory(ctx, "secret")
	require.NoError(t, err)
	defer release()
	_, ok, err := secret.Store().Get(ctx, "p")
	require.NoError(t, err)
	assert.True(t, ok)
	ents, err := secret.Graph().Entities(ctx)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	assert.Equal(t, "Frank", ents[0].Name)

	// The allowed ones work.
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "Who speaks Spanish?", "scopes": []any{"a"}}, &rec)
	require.NotEmpty(t, rec.Items)
	for _, it := range rec.Items {
		assert.Equal(t, "a", it.Scope)
	}
}

func TestRunScopeFlags(t *testing.T) {
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-default-scope", "x"}), "-default-scope and -allow-scopes are for -scopes")
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-allow-scopes", "a"}), "-default-scope and -allow-scopes are for -scopes")
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-scopes", "-allow-scopes", "a,,b"}), `-allow-scopes "a,,b": an empty item`)
	assert.ErrorContains(t, run([]string{"-dir", t.TempDir(), "-scopes", "-allow-scopes", "a,b"}), `the default scope "default" is not one of the allowed scopes`)
}

// The command line's -scopes, -default-scope and -allow-scopes, through
// the binary over stdio; a restart finds each scope's memory.
func TestStdioScopes(t *testing.T) {
	bin := buildServer(t)
	dir := filepath.Join(t.TempDir(), "memories")
	session := func(args ...string) *mcp.ClientSession {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, append([]string{"-dir", dir, "-scopes"}, args...)...)}, nil)
		require.NoError(t, err)
		return cs
	}
	cs := session("-default-scope", "a")
	assert.Contains(t, cs.InitializeResult().Instructions, `optional scope (default "a")`)
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Alice", "entityType": "person", "observations": []any{"Speaks fluent Spanish"}}}}, nil)
	call(t, cs, "create_entities", scoped("b", map[string]any{"entities": []any{
		map[string]any{"name": "Bob", "entityType": "person", "observations": []any{}}}}), nil)
	require.NoError(t, cs.Close())

	cs = session("-default-scope", "b", "-allow-scopes", "b")
	defer cs.Close()
	var g KnowledgeGraph
	call(t, cs, "read_graph", nil, &g)
	assert.Equal(t, []RefEntity{{Name: "Bob", EntityType: "person", Observations: []string{}}}, g.Entities)
	assert.Equal(t, "read_graph: "+errScopeRefused, callErr(t, cs, "read_graph", scoped("a", nil)))
}

// Calls on several scopes at once, with room for one open memory: each
// call's lease keeps its memory open, and no acknowledged write is lost
// or lands in another scope.
func TestScopesConcurrent(t *testing.T) {
	ms, err := kgmem.OpenMemories(t.TempDir(), kgmem.WithMaxOpenMemories(1))
	require.NoError(t, err)
	t.Cleanup(func() { ms.Close() })
	srv, err := NewScopedServer(ms, "", ScopeOptions{})
	require.NoError(t, err)
	cs := connectServer(t, srv)

	const scopes, writes = 4, 5
	var wg sync.WaitGroup
	errs := make([]error, scopes)
	for i := range scopes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range writes {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_entities", Arguments: scoped(fmt.Sprint("s", i),
					map[string]any{"entities": []any{map[string]any{"name": fmt.Sprintf("E%d_%d", i, j), "entityType": "thing", "observations": []any{}}}})})
				if err == nil && res.IsError {
					err = errors.New(textOf(res))
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for i := range scopes {
		require.NoError(t, errs[i])
		var g KnowledgeGraph
		call(t, cs, "read_graph", scoped(fmt.Sprint("s", i), nil), &g)
		var want []RefEntity
		for j := range writes {
			want = append(want, RefEntity{Name: fmt.Sprintf("E%d_%d", i, j), EntityType: "thing", Observations: []string{}})
		}
		assert.ElementsMatch(t, want, g.Entities, "scope s%d", i)
	}
	assert.Equal(t, 1, ms.NumOpen())
}
