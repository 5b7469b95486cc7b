package pgraph

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/kgmem/kgmem"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equal(t *testing.T, want, got any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

func TestEntitiesCitedByMatchesInMemory(t *testing.T) {
	ctx := context.Background()
	g := newTestGraph(t)
	mem := kgmem.NewInMemoryGraph()
	ents := []kgmem.Entity{
		{ID: "a", SourceIDs: []string{"p1", "p2"}},
		{ID: "b", SourceIDs: []string{"p2"}},
		{ID: "c", SourceIDs: []string{"p2", "p2"}},
		{ID: "d"},
	}
	for _, kg := range []interface {
		AddBatch(context.Context, []kgmem.Entity, []kgmem.Relation) error
	}{g, mem} {
		must(t, kg.AddBatch(ctx, ents, nil))
	}
	must(t, g.AddEntity(ctx, kgmem.Entity{ID: "b", SourceIDs: []string{"p3"}}))
	must(t, mem.AddEntity(ctx, kgmem.Entity{ID: "b", SourceIDs: []string{"p3"}}))
	must(t, g.RemoveEntity(ctx, "c"))
	must(t, mem.RemoveEntity(ctx, "c"))
	pages := []string{"p1", "p2", "p3", "p4", "p2", "nul\x00"}
	got, err := g.EntitiesCitedBy(ctx, pages)
	must(t, err)
	want, err := mem.EntitiesCitedBy(ctx, pages)
	must(t, err)
	equal(t, want, got)
	equal(t, map[string][]string{"p1": {"a"}, "p2": {"a"}, "p3": {"b"}}, got)

	for _, bad := range []string{"", " ", "\xff"} {
		_, err := g.EntitiesCitedBy(ctx, []string{bad})
		if !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = g.EntitiesCitedBy(cctx, []string{"p1"})
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// TestRetrieverSeedsFromPostgres runs content-seeded expansion over a
// pgraph.Graph, as over an InMemoryGraph.
func TestRetrieverSeedsFromPostgres(t *testing.T) {
	ctx := context.Background()
	g := newTestGraph(t)
	mem := kgmem.NewInMemoryGraph()
	ents := []kgmem.Entity{
		{ID: "apollo", Name: "Project Apollo", Type: "project", SourceIDs: []string{"overview"}},
		{ID: "alice", Name: "Alice Smith", Type: "person"},
	}
	rels := []kgmem.Relation{{SourceID: "alice", TargetID: "apollo", Type: "leads", SourceIDs: []string{"charter"}}}
	must(t, g.AddBatch(ctx, ents, rels))
	must(t, mem.AddBatch(ctx, ents, rels))
	s := kgmem.NewInMemoryKnowledgeStore()
	must(t, s.Put(ctx, kgmem.KnowledgePage{ID: "overview", Content: "the crewed rocket program"}))
	must(t, s.Put(ctx, kgmem.KnowledgePage{ID: "charter", Content: "Headed by Alice Smith."}))
	var results []kgmem.RetrievalResult
	for _, kg := range []kgmem.KnowledgeGraph{g, mem} {
		res, err := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(kg)).Retrieve(ctx, "who leads the rocket program")
		must(t, err)
		equal(t, []string(nil), res.Warnings)
		equal(t, 1, res.Stats.Seeded)
		res.Stats = kgmem.RetrievalStats{}
		results = append(results, res)
	}
	equal(t, results[1], results[0])
}
