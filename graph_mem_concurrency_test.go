package kgmem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentMixedOperations runs every graph method from many goroutines
// at once. Under -race it proves the locking; afterwards the invariants must
// hold and every error must be one the contract allows.
func TestConcurrentMixedOperations(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	const workers, rounds, space = 8, 300, 24
	id := func(i int) string { return fmt.Sprintf("e%d", i%space) }
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			allowed := func(err error) bool {
				return err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrNoPath)
			}
			for i := range rounds {
				a, b := id(i*7+w), id(i*3+w*5)
				var err error
				switch (i + w) % 10 {
				case 0, 1:
					err = g.AddEntity(ctx, Entity{ID: a, Name: "name " + a, Tags: []string{"t" + b}})
				case 2, 3:
					err = g.AddRelation(ctx, Relation{SourceID: a, TargetID: b, Type: "r", Weight: 0.5})
				case 4:
					err = g.RemoveEntity(ctx, a)
				case 5:
					err = g.RemoveRelation(ctx, a, b, "r")
				case 6:
					_, err = g.GetRelated(ctx, a, TraverseOptions{Depth: 3, Direction: Both})
				case 7:
					_, err = g.FindPaths(ctx, a, b, PathOptions{MaxHops: 4, Direction: Both})
				case 8:
					_, err = g.SetEntityTags(ctx, a, []string{"x", b})
				case 9:
					if _, err = g.FindByKeywords(ctx, []string{a}); err == nil {
						if _, err = g.FindTags(ctx, "t"); err == nil {
							_, err = g.EntityCountByTag(ctx, "x")
						}
					}
					if err == nil {
						_, _, err = g.GetEntity(ctx, b)
					}
				}
				if !allowed(err) {
					errs <- fmt.Errorf("worker %d round %d: %w", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := g.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}
