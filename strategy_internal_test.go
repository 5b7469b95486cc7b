package kgmem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBestMatchesFullSort checks that candidates.best, which sorts only
// the items scoring at least the n-th best score, returns the first n of
// the whole list sorted by compareItems: on random items whose scores tie
// often (and are sometimes NaN), pages and entities, paths of several
// lengths, for every n.
func TestBestMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for round := range 300 {
		c := &candidates{}
		size := rng.IntN(40)
		for range size {
			it := RetrievalItem{Score: float64(rng.IntN(6)) / 5}
			if round%10 == 0 && rng.IntN(8) == 0 {
				it.Score = math.NaN()
			}
			id := fmt.Sprintf("x%02d", rng.IntN(30))
			if rng.IntN(2) == 0 {
				it.Kind, it.Page = ItemPage, &KnowledgePage{ID: id}
			} else {
				it.Kind, it.Entity = ItemEntity, &Entity{ID: id}
				it.Path = make([]string, 1+rng.IntN(3))
			}
			c.items = append(c.items, it)
		}
		ref := slices.Clone(c.items)
		slices.SortStableFunc(ref, func(a, b RetrievalItem) int { return compareItems(&a, &b, a.Score, b.Score) })
		for n := 0; n <= size+1; n++ {
			got := c.best(n)
			want := ref[:min(n, len(ref))]
			require.Len(t, got, len(want), "round %d, n %d", round, n)
			for k := range want {
				// Items equal under compareItems may come in either order;
				// what the order decides must agree.
				require.Zero(t, compareItems(&got[k], &want[k], got[k].Score, want[k].Score), "round %d, n %d, item %d", round, n, k)
			}
		}
	}
}
