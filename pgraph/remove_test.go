package pgraph

import (
	"context"
	"errors"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestRemoveSourceMatchesInMemory removes pages from a graph whose
// entities and relations cite them in every combination, and requires the
// report and what is left to be kgmem's in-memory graph's.
func TestRemoveSourceMatchesInMemory(t *testing.T) {
	ctx := t.Context()
	ents := []kgmem.Entity{
		{ID: "only-doc1", SourceIDs: []string{"doc1"}},
		{ID: "doc1-and-doc2", SourceIDs: []string{"doc1", "doc2"}},
		{ID: "doc1-twice", SourceIDs: []string{"doc1", "doc1"}},
		{ID: "no-sources"},
		{ID: "only-doc2", SourceIDs: []string{"doc2"}},
	}
	rels := []kgmem.Relation{
		{SourceID: "only-doc1", TargetID: "no-sources", Type: "r"},
		{SourceID: "doc1-and-doc2", TargetID: "no-sources", Type: "r", SourceIDs: []string{"doc1"}},
		{SourceID: "doc1-and-doc2", TargetID: "only-doc2", Type: "r", SourceIDs: []string{"doc2", "doc1"}},
		{SourceID: "no-sources", TargetID: "only-doc2", Type: "r"},
		{SourceID: "only-doc1", TargetID: "only-doc1", Type: "r"},
		{SourceID: "only-doc2", TargetID: "only-doc1", Type: "s", SourceIDs: []string{"doc2"}},
	}
	ref := kgmem.NewInMemoryGraph()
	g := newTestGraph(t)
	must(t, ref.AddBatch(ctx, ents, rels))
	must(t, g.AddBatch(ctx, ents, rels))
	for _, src := range []string{"doc1", "doc1", "doc3", "doc2", "", " ", "\xff"} {
		want, werr := ref.RemoveSource(ctx, src)
		got, gerr := g.RemoveSource(ctx, src)
		if !errors.Is(werr, kgmem.ErrInvalidArgument) && werr != nil || (werr == nil) != (gerr == nil) ||
			werr != nil && !errors.Is(gerr, kgmem.ErrInvalidArgument) {
			t.Fatalf("RemoveSource(%q): error %v, want %v", src, gerr, werr)
		}
		equal(t, want, got)
		wantEnts, err := ref.Entities(ctx)
		must(t, err)
		equal(t, wantEnts, allEntities(t, g))
		wantRels, err := ref.Relations(ctx)
		must(t, err)
		equal(t, wantRels, allRelations(t, g))
	}
}

// TestRemoveSourceIsOneTransaction cancels RemoveSource's transaction at
// its last statement and requires the namespace unchanged.
func TestRemoveSourceIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	g := newTestGraph(t)
	must(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "a", SourceIDs: []string{"p"}},
		{ID: "b", SourceIDs: []string{"p", "q"}},
	}, []kgmem.Relation{{SourceID: "b", TargetID: "a", Type: "r", SourceIDs: []string{"p", "q"}}}))
	before, beforeRels := allEntities(t, g), allRelations(t, g)
	// A failure inside the transaction, after the updates, rolls them
	// back: the same work run in a transaction that is then rolled back.
	tx, err := g.pool.Begin(ctx)
	must(t, err)
	rep, err := g.removeSource(ctx, tx, "p")
	must(t, err)
	equal(t, kgmem.RemoveSourceReport{EntitiesUpdated: 1, EntitiesRemoved: 1, RelationsUpdated: 1, RelationsRemoved: 1}, rep)
	must(t, tx.Rollback(ctx))
	equal(t, before, allEntities(t, g))
	equal(t, beforeRels, allRelations(t, g))
}

// allEntities returns the entities of g's namespace, by ID, as
// kgmem.InMemoryGraph.Entities does.
func allEntities(t *testing.T, g *Graph) []kgmem.Entity {
	t.Helper()
	rows, err := g.pool.Query(t.Context(), "SELECT "+entityColumns+" FROM "+entitiesTable+
		` WHERE namespace = $1 ORDER BY id COLLATE "C"`, g.ns)
	must(t, err)
	defer rows.Close()
	out := []kgmem.Entity{}
	for rows.Next() {
		e, err := scanEntity(rows)
		must(t, err)
		out = append(out, e)
	}
	must(t, rows.Err())
	return out
}

// allRelations returns the relations of g's namespace, by key, as
// kgmem.InMemoryGraph.Relations does.
func allRelations(t *testing.T, g *Graph) []kgmem.Relation {
	t.Helper()
	tx, err := g.pool.Begin(t.Context())
	must(t, err)
	defer tx.Rollback(t.Context()) //nolint:errcheck // read-only
	rs, err := queryRelations(t.Context(), tx, "SELECT "+relationColumns+" FROM "+relationsTable+
		` WHERE namespace = $1 ORDER BY source COLLATE "C", target COLLATE "C", type COLLATE "C"`, g.ns)
	must(t, err)
	if rs == nil {
		rs = []kgmem.Relation{}
	}
	return rs
}
