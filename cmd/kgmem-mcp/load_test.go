package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadRun is what one client of runLoad did.
type loadRun struct {
	observations []string // acknowledged observations of Shared, in order
	entities     []string // acknowledged entities
	latency      map[string][]time.Duration
	err          error
}

// runLoad runs clients concurrent clients over streamable HTTP with the
// token against one server, each making iters rounds of calls: an
// observation of a shared entity, an entity of its own with an
// observation, a relation from it to the shared entity, and the reads
// (search_nodes, open_nodes, recall, read_graph every tenth round).
func runLoad(t *testing.T, clients, iters int) []loadRun {
	t.Helper()
	_, url := startHTTP(t, httpOptions{token: testToken})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	connectClient := func() *mcp.ClientSession {
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: authorized{"Bearer " + testToken, tr}}, DisableStandaloneSSE: true}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	first := connectClient()
	call(t, first, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Shared", "entityType": "hub", "observations": []any{}}}}, nil)

	runs := make([]loadRun, clients)
	sessions := make([]*mcp.ClientSession, clients)
	for c := range sessions {
		sessions[c] = connectClient()
	}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := &runs[c]
			run.latency = map[string][]time.Duration{}
			cs := sessions[c]
			do := func(tool string, args map[string]any) bool {
				begin := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				run.latency[tool] = append(run.latency[tool], time.Since(begin))
				switch {
				case err != nil:
					run.err = fmt.Errorf("%s: %v", tool, err)
				case res.IsError:
					run.err = fmt.Errorf("%s: %s", tool, textOf(res))
				}
				return run.err == nil
			}
			for i := range iters {
				obs := fmt.Sprintf("client %d says %d", c, i)
				if !do("add_observations", map[string]any{"observations": []any{
					map[string]any{"entityName": "Shared", "contents": []any{obs}}}}) {
					return
				}
				run.observations = append(run.observations, obs)
				name := fmt.Sprintf("E%d_%d", c, i)
				if !do("create_entities", map[string]any{"entities": []any{
					map[string]any{"name": name, "entityType": "node", "observations": []any{"made by client " + strconv.Itoa(c)}}}}) {
					return
				}
				run.entities = append(run.entities, name)
				if !do("create_relations", map[string]any{"relations": []any{
					map[string]any{"from": name, "to": "Shared", "relationType": "links_to"}}}) {
					return
				}
				if !do("search_nodes", map[string]any{"query": obs}) ||
					!do("open_nodes", map[string]any{"names": []any{name, "Shared"}}) ||
					!do("recall", map[string]any{"query": "what does client " + strconv.Itoa(c) + " say?"}) {
					return
				}
				if i%10 == 9 && !do("read_graph", map[string]any{}) {
					return
				}
			}
		}()
	}
	wg.Wait()

	// No acknowledged write is lost: every observation, in each client's
	// order, every entity and every relation.
	var g KnowledgeGraph
	call(t, first, "read_graph", map[string]any{}, &g)
	byName := map[string]RefEntity{}
	for _, e := range g.Entities {
		byName[e.Name] = e
	}
	shared := byName["Shared"].Observations
	for c, run := range runs {
		require.NoError(t, run.err, "client %d", c)
		var got []string
		for _, o := range shared {
			if slices.Contains(run.observations, o) {
				got = append(got, o)
			}
		}
		assert.Equal(t, run.observations, got, "client %d's observations of Shared, in order", c)
		for _, name := range run.entities {
			assert.Equal(t, []string{"made by client " + strconv.Itoa(c)}, byName[name].Observations, name)
			assert.Contains(t, g.Relations, RefRelation{From: name, To: "Shared", RelationType: "links_to"})
		}
	}
	assert.Len(t, shared, clients*iters)
	assert.Len(t, g.Entities, 1+clients*iters)
	assert.Len(t, g.Relations, clients*iters)
	return runs
}

// Concurrent clients lose no acknowledged write.
func TestConcurrentClients(t *testing.T) {
	runLoad(t, 4, 10)
}

// The latency of each tool under concurrent clients over loopback HTTP,
// p50 and p99; run with KGMEM_EVAL=1 go test -run TestLoad -v.
func TestLoad(t *testing.T) {
	if os.Getenv("KGMEM_EVAL") == "" {
		t.Skip("an evaluation: set KGMEM_EVAL=1")
	}
	const clients, iters = 8, 50
	runs := runLoad(t, clients, iters)
	all := map[string][]time.Duration{}
	for _, run := range runs {
		for tool, ds := range run.latency {
			all[tool] = append(all[tool], ds...)
		}
	}
	tools := make([]string, 0, len(all))
	for tool := range all {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	t.Logf("%d clients × %d rounds over loopback HTTP with a bearer token", clients, iters)
	for _, tool := range tools {
		ds := all[tool]
		slices.Sort(ds)
		pct := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
		t.Logf("%-17s calls %4d  p50 %8v  p99 %8v", tool, len(ds), pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond))
	}
}
