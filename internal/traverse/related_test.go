package traverse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// listGraph is a Lister over adjacency lists, as the in-memory graph's.
type listGraph struct {
	ids     []string
	out, in [][]Adj
	keys    []string // by relation handle
}

func (g *listGraph) Unfiltered() bool              { return true }
func (g *listGraph) Lists(n int32) (out, in []Adj) { return g.out[n], g.in[n] }
func (g *listGraph) ID(n int32) string             { return g.ids[n] }
func (g *listGraph) CompareRels(a, b int32) int    { return strings.Compare(g.keys[a], g.keys[b]) }
func (g *listGraph) add(src, dst int32, w float64) {
	r := int32(len(g.keys))
	g.keys = append(g.keys, g.ids[src]+">"+g.ids[dst])
	g.out[src] = append(g.out[src], Adj{To: dst, Rel: r, W: w})
	g.in[dst] = append(g.in[dst], Adj{To: src, Rel: r, W: w})
}

// Expand visits the lists in order, a self-loop once under Both.
func (g *listGraph) Expand(ctx context.Context, frontier []int32, dir Dir, limit int, visit func(int, int32, int32, float64)) (int, bool, error) {
	scanned := 0
	for i, u := range frontier {
		for d, list := range [2][]Adj{g.out[u], g.in[u]} {
			if d == 0 && dir == In || d == 1 && dir == Out {
				continue
			}
			for _, a := range list {
				if d == 1 && dir == Both && a.To == u {
					continue
				}
				if scanned == limit {
					return scanned, true, nil
				}
				scanned++
				visit(i, a.To, a.Rel, a.W)
			}
		}
	}
	return scanned, false, ctx.Err()
}

// stepOnly hides a Stepper's other methods, so that Rank takes its
// general path.
type stepOnly struct{ Stepper }

// randomLists has n entities and 4n relations, weights drawn from weights
// (uniform in (0,1] when nil), IDs not in handle order.
func randomLists(rng *rand.Rand, n int, weights []float64) *listGraph {
	g := &listGraph{out: make([][]Adj, n), in: make([][]Adj, n)}
	for i := range n {
		g.ids = append(g.ids, fmt.Sprintf("e%05d", (i*7919)%n))
	}
	seen := map[[2]int32]bool{}
	for range 4 * n {
		src, dst := int32(rng.IntN(n)), int32(rng.IntN(n))
		if seen[[2]int32{src, dst}] {
			continue
		}
		seen[[2]int32{src, dst}] = true
		w := 1 - rng.Float64()
		if weights != nil {
			w = weights[rng.IntN(len(weights))]
		}
		g.add(src, dst, w)
	}
	return g
}

// TestRankPathsAgree: Rank over a Lister's lists gives the same ranking
// and the same links as over Expand; the order is the comparison order of
// the reached entities (so the radix sort of long results agrees with it);
// and a Traversal reused across calls answers as a new one.
func TestRankPathsAgree(t *testing.T) {
	ctx := context.Background()
	reused := new(Traversal)
	radix := false
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 300 + rng.IntN(1500)
		g := randomLists(rng, n, [][]float64{{1}, {0.5, 1}, {0.25, 0.5, 0.75, 1}, nil}[seed%4])
		for _, dir := range []Dir{Out, In, Both} {
			for depth := 1; depth <= 3; depth++ {
				q := RelatedQuery{Depth: depth, Dir: dir}
				if seed == 5 {
					q.MaxNodesPerHop, q.Limit = 40, 100
				}
				start := int32(rng.IntN(n))
				var results [3][]Ranked
				var links [3][][2]int32
				for k, run := range []struct {
					st Stepper
					t  *Traversal
				}{{g, new(Traversal)}, {stepOnly{g}, new(Traversal)}, {g, reused}} {
					run.t.Grow(n)
					ranked, hop, err := run.t.Rank(ctx, run.st, start, q)
					if err != nil {
						t.Fatal(err)
					}
					results[k] = slices.Clone(ranked)
					for _, r := range ranked {
						p, rel := run.t.Via(r.N)
						links[k] = append(links[k], [2]int32{p, rel})
					}
					if k == 0 {
						// The comparison order of the reached handles, gathered
						// hop by hop as Rank gathers them.
						want := make([]Ranked, 0, len(run.t.reached))
						for _, v := range run.t.reached {
							want = append(want, Ranked{Score: run.t.score[v], Hop: run.t.stamp[v] - run.t.base, N: v})
						}
						if err := compareSort(ctx, g, want); err != nil {
							t.Fatal(err)
						}
						if q.Limit > 0 && len(want) > q.Limit {
							want = want[:q.Limit]
						}
						if !slices.Equal(want, ranked) {
							t.Fatalf("seed %d, %+v: rank order differs from the comparison order", seed, q)
						}
						radix = radix || len(run.t.reached) >= radixMin
					}
					run.t.End(hop)
				}
				for k := 1; k < 3; k++ {
					if !slices.Equal(results[0], results[k]) || !slices.Equal(links[0], links[k]) {
						t.Fatalf("seed %d, %+v: run %d differs from the lists' run", seed, q, k)
					}
				}
			}
		}
	}
	if !radix {
		t.Error("no result was long enough for the radix sort")
	}
}

// TestRankCancelled returns ctx.Err().
func TestRankCancelled(t *testing.T) {
	g := randomLists(rand.New(rand.NewPCG(1, 1)), 500, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr := new(Traversal)
	tr.Grow(500)
	_, hop, err := tr.Rank(ctx, g, 0, RelatedQuery{Depth: 3, Dir: Both})
	tr.End(hop)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Rank = %v, want context.Canceled", err)
	}
}

// TestSortCtx: sortCtx sorts like slices.SortFunc at every length around
// its chunk size, with duplicates, and stops when its context is cancelled.
func TestSortCtx(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	ctx := context.Background()
	for _, n := range []int{0, 1, 100, SortChunk - 1, SortChunk, SortChunk + 1, 2 * SortChunk, 3*SortChunk + 17, 8*SortChunk - 1} {
		for _, shape := range []string{"random", "sorted", "reversed", "few"} {
			xs := make([]int, n)
			for i := range xs {
				switch shape {
				case "random":
					xs[i] = rng.IntN(1 << 30)
				case "sorted":
					xs[i] = i
				case "reversed":
					xs[i] = n - i
				case "few":
					xs[i] = rng.IntN(3)
				}
			}
			want := slices.Sorted(slices.Values(xs))
			if err := sortCtx(ctx, xs, func(a, b int) int { return a - b }); err != nil || !slices.Equal(xs, want) {
				t.Fatalf("n %d %s: %v, sorted %v", n, shape, err, slices.Equal(xs, want))
			}
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	calls := 0
	xs := make([]int, 200_000) // 3.5M comparisons when not cancelled
	for i := range xs {
		xs[i] = rng.Int()
	}
	err := sortCtx(cctx, xs, func(a, b int) int {
		if calls++; calls == 100_000 {
			cancel()
		}
		return cmp.Compare(a, b)
	})
	if !errors.Is(err, context.Canceled) || calls > 100_000+SortChunk*20 {
		t.Fatalf("cancelled after 100k comparisons: %v after %d", err, calls)
	}
}
