package pgraph

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/textrule"
)

// planNode is the part of EXPLAIN (FORMAT JSON) the tests read.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	IndexName string     `json:"Index Name"`
	Plans     []planNode `json:"Plans"`
}

// scans lists the scans of a plan as "Node Type on relation/index".
func (p planNode) scans() []string {
	var out []string
	if strings.Contains(p.NodeType, "Scan") {
		out = append(out, strings.TrimSpace(p.NodeType+" "+p.Relation+" "+p.IndexName))
	}
	for _, c := range p.Plans {
		out = append(out, c.scans()...)
	}
	return out
}

// explain returns the scans of the plan PostgreSQL chooses for sql, and
// the plan as text.
func explain(t *testing.T, g *Graph, sql string, args ...any) ([]string, string) {
	t.Helper()
	ctx := t.Context()
	var raw []byte
	if err := g.pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+sql, args...).Scan(&raw); err != nil {
		t.Fatalf("EXPLAIN %s: %v", sql, err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(raw, &plans); err != nil {
		t.Fatal(err)
	}
	rows, err := g.pool.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		text = append(text, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plans[0].Plan.scans(), strings.Join(text, "\n")
}

// TestQueriesUseIndexes loads a few thousand entities and checks, with
// EXPLAIN, that keyword search, linking, tag counts and every traversal
// direction read an index rather than scanning the table.
func TestQueriesUseIndexes(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	const n = 5000
	rng := rand.New(rand.NewPCG(5, 5))
	var es []kgmem.Entity
	var rs []kgmem.Relation
	for i := range n {
		es = append(es, kgmem.Entity{
			ID:   fmt.Sprintf("e%05d", i),
			Name: fmt.Sprintf("%s %s %d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i),
			Tags: []string{fmt.Sprintf("tag%d", i%200)},
		})
		for range 3 {
			rs = append(rs, kgmem.Relation{SourceID: es[i].ID, TargetID: fmt.Sprintf("e%05d", rng.IntN(i+1)), Type: "t", Weight: 0.5})
		}
	}
	es = append(es, kgmem.Entity{ID: "apollo", Name: "Project Apollo", Aliases: []string{"阿波罗计划"}})
	if err := g.AddBatch(ctx, es, rs); err != nil {
		t.Fatal(err)
	}
	// Plans depend on statistics, which autovacuum keeps current in
	// production; the tables are shared with other tests' namespaces, so
	// refresh them here. VACUUM also merges the GIN pending lists.
	for _, table := range []string{entitiesTable, relationsTable} {
		if _, err := g.pool.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
			t.Fatal(err)
		}
	}

	kwSQL, kwArgs := g.keywordQuery([]string{"project apollo", "阿波罗"})
	linkKeys := textrule.LinkSpanKeys("who works on project apollo?")
	frontier := []string{"e00010", "e00020", "e00030"}
	for _, c := range []struct {
		name  string
		sql   string
		args  []any
		index []string // one of these must be scanned
	}{
		{"FindByKeywords", kwSQL, kwArgs, []string{"kgmem_entities_grams"}},
		{"LinkEntities", linkQuery, []any{g.ns, linkKeys}, []string{"kgmem_entities_link_keys"}},
		{"EntityCountByTag", "SELECT count(*) FROM " + entitiesTable + " WHERE namespace = $1 AND tags @> ARRAY[$2::text]", []any{g.ns, "tag7"}, []string{"kgmem_entities_tags"}},
		{"Neighbors/Outgoing", "SELECT " + relationColumns + " FROM " + relationsTable + " WHERE namespace = $1 AND source = ANY($2)", []any{g.ns, frontier}, []string{"kgmem_relations_pkey"}},
		{"Neighbors/Incoming", "SELECT " + relationColumns + " FROM " + relationsTable + " WHERE namespace = $1 AND target = ANY($2)", []any{g.ns, frontier}, []string{"kgmem_relations_target"}},
		{"Neighbors/Both", "SELECT " + relationColumns + " FROM " + relationsTable + " WHERE namespace = $1 AND (source = ANY($2) OR target = ANY($2))", []any{g.ns, frontier}, []string{"kgmem_relations_pkey", "kgmem_relations_target"}},
		{"Entities", "SELECT " + entityColumns + " FROM " + entitiesTable + " WHERE namespace = $1 AND id = ANY($2)", []any{g.ns, frontier}, []string{"kgmem_entities_pkey"}},
	} {
		scans, plan := explain(t, g, c.sql, c.args...)
		t.Logf("%s:\n%s", c.name, plan)
		used := false
		for _, s := range scans {
			if strings.HasPrefix(s, "Seq Scan") {
				t.Errorf("%s scans the table: %q", c.name, scans)
			}
			for _, idx := range c.index {
				used = used || strings.HasSuffix(s, " "+idx)
			}
		}
		if !used {
			t.Errorf("%s uses none of the indexes %q: %q", c.name, c.index, scans)
		}
	}

	// The indexed queries answer as the in-memory graph does.
	ref := kgmem.NewInMemoryGraph()
	if err := ref.AddBatch(ctx, es, rs); err != nil {
		t.Fatal(err)
	}
	for _, kws := range [][]string{{"project apollo"}, {"阿波罗"}, {words[0], words[1]}, {"tag7"}, {"E0001"}} {
		want, _ := ref.FindByKeywords(ctx, kws)
		got, err := g.FindByKeywords(ctx, kws)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("FindByKeywords(%q): %d results, %v; want %d", kws, len(got), err, len(want))
		}
	}
	text := "who works on project apollo with " + es[42].Name
	want, _ := ref.LinkEntities(ctx, text)
	got, err := g.LinkEntities(ctx, text)
	if err != nil || !reflect.DeepEqual(got, want) || len(got) < 2 {
		t.Fatalf("LinkEntities(%q) = %+v, %v; want %+v", text, got, err, want)
	}
}

var words = []string{
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
	"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
}

// TestLinkEntitiesMatchesInMemory links random texts against random names
// (case folding, full-width forms, CJK, marks) in both graphs. It also
// counts how often kgmem.LinkWithKeywords, which finds candidates by
// substring search, misses what LinkEntities finds.
func TestLinkEntitiesMatchesInMemory(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(9, 9))
	ref := kgmem.NewInMemoryGraph()
	for i := range 300 {
		e := kgmem.Entity{ID: fmt.Sprint("e", i), Name: randomText(rng, 1+rng.IntN(3))}
		if rng.IntN(2) == 0 {
			e.Aliases = []string{randomText(rng, 1+rng.IntN(3))}
		}
		for _, kg := range []kgmem.KnowledgeGraph{ref, g} {
			if err := kg.AddEntity(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	mentions, missed := 0, 0
	for range 300 {
		text := randomText(rng, 1+rng.IntN(10))
		want, werr := ref.LinkEntities(ctx, text)
		got, gerr := g.LinkEntities(ctx, text)
		if werr != nil || gerr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("LinkEntities(%q):\ngot  %+v, %v\nwant %+v, %v", text, got, gerr, want, werr)
		}
		mentions += len(want)
		if viaKeywords, err := kgmem.LinkWithKeywords(ctx, g, text); err == nil && !reflect.DeepEqual(viaKeywords, want) {
			missed++
		}
	}
	if mentions < 100 {
		t.Fatalf("only %d mentions: the test exercises too little", mentions)
	}
	t.Logf("%d mentions identical; kgmem.LinkWithKeywords over FindByKeywords differs on %d of 300 texts", mentions, missed)
}
