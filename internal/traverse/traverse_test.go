package traverse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// rel is a relation of a testGraph.
type rel struct {
	src, dst int32
	w        float64
	typ      string
}

// testGraph is a Stepper over a relation list, the reference the searches
// are checked against.
type testGraph struct {
	ids  []string
	rels []rel
}

func (g *testGraph) Expand(ctx context.Context, frontier []int32, dir Dir, limit int, visit func(int, int32, int32, float64)) (int, bool, error) {
	scanned := 0
	for i, u := range frontier {
		for r, x := range g.rels {
			var to int32
			switch {
			case dir != In && x.src == u:
				to = x.dst
			case dir != Out && x.dst == u:
				to = x.src
			default:
				continue
			}
			if scanned == limit {
				return scanned, true, nil
			}
			if err := ctx.Err(); err != nil {
				return scanned, false, err
			}
			scanned++
			visit(i, to, int32(r), x.w)
		}
	}
	return scanned, false, nil
}

func (g *testGraph) ID(n int32) string { return g.ids[n] }

func (g *testGraph) CompareRels(a, b int32) int {
	x, y := g.rels[a], g.rels[b]
	return cmp.Or(strings.Compare(g.ids[x.src], g.ids[y.src]), strings.Compare(x.typ, y.typ), strings.Compare(g.ids[x.dst], g.ids[y.dst]))
}

// compare orders paths as FindPaths documents: score descending, then
// fewer hops, then entity IDs and relation keys position by position.
func (g *testGraph) compare(x, y Path) int {
	if c := cmp.Compare(y.Score, x.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(len(x.Rels), len(y.Rels)); c != 0 {
		return c
	}
	if c := slices.CompareFunc(x.Nodes, y.Nodes, func(a, b int32) int { return strings.Compare(g.ids[a], g.ids[b]) }); c != 0 {
		return c
	}
	return slices.CompareFunc(x.Rels, y.Rels, g.CompareRels)
}

// randomGraph has n entities and m relations of two types, weights from a
// few values so that paths tie, parallel relations and self-loops.
func randomGraph(rng *rand.Rand, n, m int) *testGraph {
	g := &testGraph{}
	for i := range n {
		g.ids = append(g.ids, fmt.Sprintf("e%02d", (i*7)%n)) // IDs not in handle order
	}
	weights := []float64{1, 0.5, 0.25, 0.8}
	seen := map[rel]bool{}
	for len(g.rels) < m {
		r := rel{src: int32(rng.IntN(n)), dst: int32(rng.IntN(n)), w: weights[rng.IntN(len(weights))], typ: []string{"a", "b"}[rng.IntN(2)]}
		key := rel{src: r.src, dst: r.dst, typ: r.typ}
		if !seen[key] {
			seen[key] = true
			g.rels = append(g.rels, r)
		}
	}
	return g
}

// allPaths enumerates every simple path from src to dst of at most
// maxHops relations walked in dir, depth first.
func allPaths(g *testGraph, src, dst int32, maxHops int, dir Dir) []Path {
	var out []Path
	nodes := []int32{src}
	var rels []int32
	var walk func(score float64)
	walk = func(score float64) {
		at := nodes[len(nodes)-1]
		if at == dst {
			out = append(out, Path{Nodes: slices.Clone(nodes), Rels: slices.Clone(rels), Score: score})
			return
		}
		if len(rels) == maxHops {
			return
		}
		g.Expand(context.Background(), []int32{at}, dir, 1<<30, func(_ int, to, r int32, w float64) {
			if slices.Contains(nodes, to) {
				return
			}
			nodes, rels = append(nodes, to), append(rels, r)
			walk(score * w)
			nodes, rels = nodes[:len(nodes)-1], rels[:len(rels)-1]
		})
	}
	walk(1)
	return out
}

// TestPathSearchAgreesWithEnumeration: on random small graphs, with no
// cap and an ample budget, Find returns exactly the first k of every
// simple path sorted by Compare, for each direction, k and hop count; and
// a PathSearch reused across searches answers as a new one.
func TestPathSearchAgreesWithEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	reused := new(PathSearch)
	for trial := range 300 {
		n := 2 + rng.IntN(9)
		g := randomGraph(rng, n, rng.IntN(3*n))
		src, dst := int32(rng.IntN(n)), int32(rng.IntN(n))
		if src == dst {
			continue
		}
		q := PathQuery{MaxHops: 1 + rng.IntN(5), MaxPaths: 1 + rng.IntN(4), Dir: Dir(rng.IntN(3)), Budget: 1 << 20}
		all := allPaths(g, src, dst, q.MaxHops, q.Dir)
		slices.SortFunc(all, g.compare)
		want := all[:min(len(all), q.MaxPaths)]
		for _, ps := range []*PathSearch{new(PathSearch), reused} {
			got, truncated, err := ps.Find(context.Background(), g, src, dst, q)
			if err != nil || truncated {
				t.Fatalf("trial %d: %v, truncated %v", trial, err, truncated)
			}
			if len(want) == 0 && len(got) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d, %+v, %d → %d over %v:\n got %v\nwant %v", trial, q, src, dst, g.rels, got, want)
			}
		}
	}
}

// TestPathSearchBudget: a budget the search exhausts truncates it, never
// scans more relations than it allows, and keeps the best paths among
// those explored.
func TestPathSearchBudget(t *testing.T) {
	// src → m_i → dst for 50 middles, weights falling with i.
	g := &testGraph{ids: []string{"src", "dst"}}
	for i := range 50 {
		g.ids = append(g.ids, fmt.Sprintf("m%02d", i))
		w := 1 - float64(i)/100
		g.rels = append(g.rels, rel{src: 0, dst: int32(i + 2), w: w, typ: "a"}, rel{src: int32(i + 2), dst: 1, w: 1, typ: "a"})
	}
	ps := new(PathSearch)
	// 10 relations: the forward side grows ten middles, and the backward
	// side nothing, so no path is found.
	got, truncated, err := ps.Find(context.Background(), g, 0, 1, PathQuery{MaxHops: 2, MaxPaths: 2, Budget: 10})
	if err != nil || !truncated || len(got) != 0 {
		t.Fatalf("budget 10: %v, %v, truncated %v", got, err, truncated)
	}
	if s := ps.Stats(); s.ScansLeft != 0 || s.Partials != 10+2 {
		t.Errorf("budget 10: %+v", s)
	}
	// 60: all 50 forward, and the first 10 relations into dst.
	got, truncated, err = ps.Find(context.Background(), g, 0, 1, PathQuery{MaxHops: 2, MaxPaths: 2, Budget: 60})
	if err != nil || !truncated {
		t.Fatalf("budget 60: %v, truncated %v", err, truncated)
	}
	if len(got) != 2 || g.ids[got[0].Nodes[1]] != "m00" || g.ids[got[1].Nodes[1]] != "m01" {
		t.Errorf("budget 60: %v", got)
	}
	if s := ps.Stats(); s.ScansLeft != 0 || s.Partials > 60+2 {
		t.Errorf("budget 60: %+v", s)
	}
	_, truncated, _ = ps.Find(context.Background(), g, 0, 1, PathQuery{MaxHops: 2, MaxPaths: 2, Budget: 1000})
	if truncated {
		t.Error("budget 1000: truncated")
	}
}

// TestPathSearchCancelled returns ctx.Err() when ctx is done.
func TestPathSearchCancelled(t *testing.T) {
	g := randomGraph(rand.New(rand.NewPCG(1, 2)), 8, 20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := new(PathSearch).Find(ctx, g, 0, 1, PathQuery{MaxHops: 4, MaxPaths: 3, Budget: 1 << 20})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Find = %v, want context.Canceled", err)
	}
}

// TestBestArenaStaysSmall offers paths of rising score, so that every one
// is kept and pushes an earlier one out, except one early path, which
// beats them all: the arena must recycle the space of those that dropped
// out and keep the survivors intact.
func TestBestArenaStaysSmall(t *testing.T) {
	g := &testGraph{}
	for i := range 50 {
		g.ids = append(g.ids, fmt.Sprintf("e%02d", i))
	}
	var b Best
	b.Reset(g, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	var all []Path
	for i := range 20_000 {
		p := Path{Score: float64(i) / 20_000}
		if i == 100 {
			p.Score = 2
		}
		for range 2 + rng.IntN(8) {
			p.Nodes = append(p.Nodes, int32(rng.IntN(len(g.ids))))
		}
		p.Rels = make([]int32, len(p.Nodes)-1)
		all = append(all, p)
		scratch := Path{Nodes: slices.Clone(p.Nodes), Rels: slices.Clone(p.Rels), Score: p.Score}
		b.Add(scratch)
		clear(scratch.Nodes) // the arena holds copies
	}
	slices.SortFunc(all, g.compare)
	if !reflect.DeepEqual(all[:3], b.Paths()) {
		t.Fatalf("best %v, want %v", b.Paths(), all[:3])
	}
	if n := b.arenaCap(); n > 1024 {
		t.Errorf("the arena holds %d handles for 3 paths of at most 19", n)
	}
	if b.Add(Path{Nodes: []int32{1, 2}, Rels: []int32{0}, Score: 0.5}) {
		t.Error("a path below the third best was kept")
	}
}

// TestDirReverse swaps Out and In and keeps Both.
func TestDirReverse(t *testing.T) {
	if Out.Reverse() != In || In.Reverse() != Out || Both.Reverse() != Both {
		t.Error("Reverse")
	}
}
