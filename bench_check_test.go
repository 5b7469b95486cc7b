package kgmem

import (
	"context"
	"slices"
	"testing"
)

// TestBenchmarkBaselinesAgree checks that the benchmarks compare like with
// like: on the smallest benchmark graphs the CSR baseline reaches exactly
// the entities GetRelated returns, with the same scores, and the one-sided
// path enumeration returns exactly FindPaths' answer.
func TestBenchmarkBaselinesAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, shape := range []string{"powerlaw", "uniform"} {
		f := fixture(t, benchGraphSpec{Shape: shape, Entities: 1_000, Relations: 5_000})
		for _, dir := range []Direction{Outgoing, Incoming, Both} {
			for _, start := range f.starts[:8] {
				got, err := f.g.GetRelated(ctx, start, TraverseOptions{Depth: 3, Direction: dir})
				if err != nil {
					t.Fatal(err)
				}
				want := f.csr.related(start, 3, dir)
				if len(got) != len(want) {
					t.Fatalf("%s %v from %s: GetRelated %d entities, baseline %d", shape, dir, start, len(got), len(want))
				}
				for i := range got {
					if got[i].Entity.ID != want[i].Entity.ID || got[i].Score != want[i].Score || len(got[i].Path) != len(want[i].Path) {
						t.Fatalf("%s %v from %s: result %d differs: %v %v vs %v %v", shape, dir, start, i,
							got[i].Entity.ID, got[i].Score, want[i].Entity.ID, want[i].Score)
					}
				}
			}
			for _, hops := range []int{2, 4} {
				opts := PathOptions{MaxHops: hops, Direction: dir, MaxPaths: 5}
				for _, p := range f.pathPairs(t, hops, dir) {
					res, err := f.g.FindPaths(ctx, p[0], p[1], opts)
					if err != nil {
						t.Fatal(err)
					}
					want := toPaths(f.g.step(nil, AsOf{}), dfsPaths(f.g, p[0], p[1], opts))
					if !slices.EqualFunc(res.Paths, want, func(a, b Path) bool {
						return a.Score == b.Score && slices.Equal(a.EntityIDs, b.EntityIDs)
					}) {
						t.Fatalf("%s %v %d hops %s→%s: FindPaths %v, one-sided %v", shape, dir, hops, p[0], p[1], res.Paths, want)
					}
				}
			}
		}
	}
}
