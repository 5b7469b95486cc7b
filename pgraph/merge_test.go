package pgraph

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
)

// The rules of Merge are checked by kgmemtest's Merge section and by the
// differential test; these tests check what one transaction with locked
// rows gives concurrent writers.

// TestMergeConcurrentIntoOne merges many entities into one at once: every
// merge succeeds and none loses another's aliases, tags, sources or
// relations.
func TestMergeConcurrentIntoOne(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	const n = 8
	must(t, g.AddEntity(ctx, kgmem.Entity{ID: "hub", Name: "Hub"}))
	must(t, g.AddEntity(ctx, kgmem.Entity{ID: "other", Name: "Other"}))
	var wantAliases, wantTags, wantSources []string
	for i := range n {
		id := fmt.Sprintf("e%d", i)
		must(t, g.AddEntity(ctx, kgmem.Entity{ID: id, Name: "Name " + id, Tags: []string{"t" + id}, SourceIDs: []string{"p" + id}}))
		must(t, g.AddRelation(ctx, kgmem.Relation{SourceID: id, TargetID: "other", Type: "r" + id, Weight: 1}))
		must(t, g.AddRelation(ctx, kgmem.Relation{SourceID: id, TargetID: "hub", Type: "between", Weight: 1}))
		wantAliases, wantTags, wantSources = append(wantAliases, "Name "+id), append(wantTags, "t"+id), append(wantSources, "p"+id)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = g.Merge(ctx, fmt.Sprintf("e%d", i), "hub") })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Merge(e%d, hub): %v", i, err)
		}
	}
	hub, ok, err := g.GetEntity(ctx, "hub")
	if err != nil || !ok {
		t.Fatalf("GetEntity(hub) = %v, %v", ok, err)
	}
	for _, c := range []struct {
		what      string
		want, got []string
	}{
		{"aliases", wantAliases, hub.Aliases},
		{"tags", wantTags, hub.Tags},
		{"sources", wantSources, hub.SourceIDs},
	} {
		if got := slices.Sorted(slices.Values(c.got)); !slices.Equal(c.want, got) {
			t.Errorf("%s of hub after concurrent merges: %q, want %q", c.what, got, c.want)
		}
	}
	var types []string
	for _, r := range neighbours(t, g, "hub") {
		types = append(types, fmt.Sprintf("%s>%s:%s", r.SourceID, r.TargetID, r.Type))
	}
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("hub>other:re%d", i))
	}
	slices.Sort(types)
	if !slices.Equal(want, types) {
		t.Errorf("relations of hub after concurrent merges: %q, want %q", types, want)
	}
}

// TestMergeConcurrentOpposite merges a into b and b into a at once: one
// merge wins whole, the other finds its entity gone and changes nothing,
// and no deadlock reaches the caller.
func TestMergeConcurrentOpposite(t *testing.T) {
	ctx := t.Context()
	for round := range 6 {
		g := newTestGraph(t)
		must(t, g.AddEntity(ctx, kgmem.Entity{ID: "a", Name: "A", Tags: []string{"ta"}}))
		must(t, g.AddEntity(ctx, kgmem.Entity{ID: "b", Name: "B", Tags: []string{"tb"}}))
		must(t, g.AddEntity(ctx, kgmem.Entity{ID: "c", Name: "C"}))
		must(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "c", Type: "r", Weight: 0.5}))
		must(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "c", TargetID: "b", Type: "s", Weight: 0.25}))
		must(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 1}))
		var errAB, errBA error
		var wg sync.WaitGroup
		wg.Go(func() { errAB = g.Merge(ctx, "a", "b") })
		wg.Go(func() { errBA = g.Merge(ctx, "b", "a") })
		wg.Wait()
		winner, loser, lost := "b", "a", errBA // a merged into b
		if errAB != nil {
			winner, loser, lost = "a", "b", errAB
		}
		if (errAB == nil) == (errBA == nil) || !errors.Is(lost, kgmem.ErrNotFound) {
			t.Fatalf("round %d: Merge(a, b) = %v and Merge(b, a) = %v, want one nil and one ErrNotFound", round, errAB, errBA)
		}
		if _, ok, err := g.GetEntity(ctx, loser); ok || err != nil {
			t.Fatalf("round %d: %s still exists (%v) after being merged into %s", round, loser, err, winner)
		}
		e, ok, err := g.GetEntity(ctx, winner)
		if err != nil || !ok {
			t.Fatalf("round %d: GetEntity(%s) = %v, %v", round, winner, ok, err)
		}
		wantTags := []string{"t" + winner, "t" + loser}
		if want := []string{map[string]string{"a": "B", "b": "A"}[winner]}; !slices.Equal(e.Aliases, want) {
			t.Fatalf("round %d: aliases of %s = %q, want %q", round, winner, e.Aliases, want)
		}
		if !slices.Equal(e.Tags, wantTags) {
			t.Fatalf("round %d: tags of %s = %q, want %q", round, winner, e.Tags, wantTags)
		}
		var got []string
		for _, r := range neighbours(t, g, "c") {
			got = append(got, fmt.Sprintf("%s>%s:%s", r.SourceID, r.TargetID, r.Type))
		}
		slices.Sort(got)
		if want := []string{winner + ">c:r", "c>" + winner + ":s"}; !slices.Equal(want, got) {
			t.Fatalf("round %d: relations of c = %q, want %q", round, got, want)
		}
		if rels := neighbours(t, g, winner); len(rels) != 2 {
			t.Fatalf("round %d: %s has %d relations, want 2 (the one between the two dropped)", round, winner, len(rels))
		}
	}
}

// TestMergeRacesAddRelation adds relations to from while it is merged: each
// AddRelation either commits first, and its relation is moved to into, or
// finds from gone; none is left behind.
func TestMergeRacesAddRelation(t *testing.T) {
	ctx := t.Context()
	g := newTestGraph(t)
	must(t, g.AddEntity(ctx, kgmem.Entity{ID: "from", Name: "From"}))
	must(t, g.AddEntity(ctx, kgmem.Entity{ID: "into", Name: "Into"}))
	const n = 8
	for i := range n {
		must(t, g.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprintf("x%d", i)}))
	}
	errs := make([]error, n)
	var merr error
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = g.AddRelation(ctx, kgmem.Relation{SourceID: fmt.Sprintf("x%d", i), TargetID: "from", Type: "r", Weight: 1})
		})
	}
	wg.Go(func() { merr = g.Merge(ctx, "from", "into") })
	wg.Wait()
	if merr != nil {
		t.Fatalf("Merge: %v", merr)
	}
	var want []string
	for i, err := range errs {
		switch {
		case err == nil:
			want = append(want, fmt.Sprintf("x%d>into:r", i))
		case !errors.Is(err, kgmem.ErrNotFound):
			t.Fatalf("AddRelation(x%d -> from) racing the merge: %v, want nil or ErrNotFound", i, err)
		}
	}
	var got []string
	for _, r := range neighbours(t, g, "into") {
		got = append(got, fmt.Sprintf("%s>%s:%s", r.SourceID, r.TargetID, r.Type))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Fatalf("relations of into = %q, want those of the AddRelation calls that succeeded, %q", got, want)
	}
	var left int
	if err := g.pool.QueryRow(ctx, "SELECT count(*) FROM "+relationsTable+
		" WHERE namespace = $1 AND (source = 'from' OR target = 'from')", g.ns).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d relations of from left (%v)", left, err)
	}
}

// neighbours returns every relation around id, both directions.
func neighbours(t *testing.T, g *Graph, id string) []kgmem.Relation {
	t.Helper()
	var out []kgmem.Relation
	err := g.ReadNeighborhood(t.Context(), func(n kgmem.Neighborhood) error {
		return n.Neighbors(t.Context(), []string{id}, kgmem.Both, nil, func(_ int, r kgmem.Relation) { out = append(out, r) })
	})
	if err != nil {
		t.Fatalf("reading the relations of %q: %v", id, err)
	}
	return out
}
