package spread

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgmem/kgmem/internal/traverse"
	"github.com/stretchr/testify/require"
)

// testGraph is a Graph of entities citing pages and relations stating
// pages.
type testGraph struct {
	out, in  [][]traverse.Adj
	pages    [][]string // by entity
	relPages [][]string // by relation
	relSrc   []int32
	asks     map[int32]bool
	invalid  map[int32]bool
}

func newGraph(n int) *testGraph {
	return &testGraph{out: make([][]traverse.Adj, n), in: make([][]traverse.Adj, n), pages: make([][]string, n)}
}

func (g *testGraph) rel(src, dst int32, pages ...string) int32 {
	r := int32(len(g.relSrc))
	g.relSrc = append(g.relSrc, src)
	g.relPages = append(g.relPages, pages)
	g.out[src] = append(g.out[src], traverse.Adj{To: dst, Rel: r, W: 1})
	g.in[dst] = append(g.in[dst], traverse.Adj{To: src, Rel: r, W: 1})
	return r
}

func (g *testGraph) Lists(n int32) (out, in []traverse.Adj) { return g.out[n], g.in[n] }
func (g *testGraph) Valid(r int32) bool                     { return !g.invalid[r] }
func (g *testGraph) Asks(r int32) bool                      { return g.asks[r] }
func (g *testGraph) Pages(n int32) []string                 { return g.pages[n] }
func (g *testGraph) RelPages(r int32) []string              { return g.relPages[r] }
func (g *testGraph) RelSource(r int32) int32                { return g.relSrc[r] }
func (g *testGraph) ID(n int32) string                      { return fmt.Sprintf("e%03d", n) }

// CoCitedCount stops as early as the contract lets it: past atMost it
// returns atMost+1, so the tests see the least count Pages must refuse.
func (g *testGraph) CoCitedCount(n int32, atMost int) int {
	return min(len(g.CoCited(n, new([]Seed))), atMost+1)
}

// CoCited: the entities citing one of n's pages, by 1 / n's pages × 1 /
// the others on that page, normalised.
func (g *testGraph) CoCited(n int32, buf *[]Seed) []Seed {
	out := (*buf)[:0]
	for _, p := range g.pages[n] {
		var others []int32
		for e := range g.pages {
			if int32(e) != n && slices.Contains(g.pages[e], p) {
				others = append(others, int32(e))
			}
		}
		for _, e := range others {
			out = append(out, Seed{e, 1 / float64(len(g.pages[n])) / float64(len(others))})
		}
	}
	slices.SortFunc(out, func(a, b Seed) int { return int(a.Node - b.Node) })
	sum := 0.0
	for _, s := range out {
		sum += s.Weight
	}
	for i := range out {
		out[i].Weight /= sum
	}
	*buf = out
	return out
}

// TestPagesChain pins the arithmetic on a chain a → b: a seed passes half
// of its activation on at each step and keeps half, over three steps, and
// a relation's stating page gets Stated × the flow along it.
func TestPagesChain(t *testing.T) {
	g := newGraph(2)
	g.pages[1] = []string{"b"}
	g.rel(0, 1, "stated")
	got, err := Pages(context.Background(), g, []Seed{{0, 1}}, 0)
	require.NoError(t, err)
	flow := 0.5 + 0.25 + 0.125 // a → b, b → a, a → b
	require.Equal(t, []string{"stated", "b"}, []string{got[0].Page, got[1].Page})
	require.InDelta(t, Stated*flow, got[0].Score, 1e-12)
	require.InDelta(t, 0.5*(0.5+0.125), got[1].Score, 1e-12)
	require.Equal(t, "e001", got[1].Via)

	// A relation not valid at the question's time carries nothing.
	g.invalid = map[int32]bool{0: true}
	got, err = Pages(context.Background(), g, []Seed{{0, 1}}, 0)
	require.NoError(t, err)
	require.Empty(t, got, "a keeps everything, and cites no page")
}

// TestPagesLimit: on random graphs, a limit returns exactly the first
// pages of the whole ranking, and the ranking does not depend on the
// order of the seeds.
func TestPagesLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n := 5 + rng.IntN(60)
		g := newGraph(n)
		for e := range n {
			for range rng.IntN(3) {
				g.pages[e] = append(g.pages[e], fmt.Sprintf("p%02d", rng.IntN(20)))
			}
		}
		g.asks = map[int32]bool{}
		for range 2 * n {
			r := g.rel(int32(rng.IntN(n)), int32(rng.IntN(n)), fmt.Sprintf("p%02d", rng.IntN(20)))
			g.asks[r] = rng.IntN(4) == 0
		}
		seeds := []Seed{{int32(rng.IntN(n)), 0.6}, {int32(rng.IntN(n)), 0.4}}
		all, err := Pages(context.Background(), g, seeds, 0)
		require.NoError(t, err)
		slices.Reverse(seeds)
		again, err := Pages(context.Background(), g, seeds, 0)
		require.NoError(t, err)
		require.Equal(t, all, again, "trial %d", trial)
		for _, limit := range []int{1, 3, 10} {
			cut, err := Pages(context.Background(), g, seeds, limit)
			require.NoError(t, err)
			require.Equal(t, all[:min(limit, len(all))], cut, "trial %d, limit %d", trial, limit)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := newGraph(2)
	g.rel(0, 1)
	if _, err := Pages(ctx, g, []Seed{{0, 1}}, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
