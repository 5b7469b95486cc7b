package kgmem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestHubKeyIndex grows and shrinks one entity's outgoing relations across
// the thresholds at which it builds and drops its key index, with upserts,
// removals and type changes, checking every invariant after each step and
// that every relation is still found by its key.
func TestHubKeyIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := NewInMemoryGraph()
	const targets = 30
	if err := g.AddEntity(ctx, Entity{ID: "hub"}); err != nil {
		t.Fatal(err)
	}
	for i := range targets {
		if err := g.AddEntity(ctx, Entity{ID: fmt.Sprintf("t%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	model := map[RelationKey]float64{}
	rng := rand.New(rand.NewPCG(4, 4))
	types := []string{"a", "b", "c"}
	for step := range 3000 {
		k := RelationKey{"hub", fmt.Sprintf("t%02d", rng.IntN(targets)), types[rng.IntN(len(types))]}
		// Grow for a while, then shrink, then grow again, so the degree
		// crosses both thresholds several times.
		grow := (step/500)%2 == 0
		if grow == (rng.IntN(4) != 0) {
			w := float64(rng.IntN(5)) / 4
			if err := g.AddRelation(ctx, Relation{SourceID: k.SourceID, TargetID: k.TargetID, Type: k.Type, Weight: w}); err != nil {
				t.Fatal(err)
			}
			model[k] = storedWeight(w) // 0 is stored as 1
		} else if _, ok := model[k]; ok {
			if err := g.RemoveRelation(ctx, k.SourceID, k.TargetID, k.Type); err != nil {
				t.Fatal(err)
			}
			delete(model, k)
		}
		if err := g.checkInvariants(); err != nil {
			t.Fatalf("step %d (%d relations): %v", step, len(model), err)
		}
		if step%100 == 0 {
			for mk, w := range model {
				r, ok, err := g.GetRelation(ctx, mk.SourceID, mk.TargetID, mk.Type)
				if err != nil || !ok || r.Weight != w {
					t.Fatalf("step %d: GetRelation(%v) = %v, %v, %v; want weight %v", step, mk, r, ok, err, w)
				}
			}
			if got := g.Stats().Relations; got != len(model) {
				t.Fatalf("step %d: %d relations, want %d", step, got, len(model))
			}
		}
	}
	if err := g.RemoveEntity(ctx, "hub"); err != nil {
		t.Fatal(err)
	}
	if err := g.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}
