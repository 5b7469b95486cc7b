package main

import (
	"context"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/benchgraph"
)

// buildKgmemRelated loads the graph into a kgmem InMemoryGraph and times
// InMemoryGraph.Related with the workload's depth and direction and no
// limit: the same entities, order, scores and parent links as GetRelated,
// as a compact snapshot (IDs, scores, hops, parent links, relation keys),
// without copies of entities, paths or relations.
func buildKgmemRelated(gg benchgraph.Graph) (reachFunc, error) {
	g, err := loadKgmem(gg)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ids := gg.IDs
	return func(start, depth int, dir kgmem.Direction) (int, error) {
		res, err := g.Related(ctx, ids[start], kgmem.TraverseOptions{Depth: depth, Direction: dir})
		if err != nil {
			return 0, err
		}
		return res.Len(), nil
	}, nil
}

// csrGraph is the static-graph bound: entity indexes as dense integers and
// adjacency in compressed sparse rows (one offset array per direction,
// targets and weights in flat arrays), the fastest layout for a graph that
// never changes.
type csrGraph struct {
	outOff, inOff []int32
	outTo, inTo   []int32
	outW, inW     []float64
	stamp         []uint32
	epoch         uint32
	score         []float64
	parent        []int32
	frontier      []int32
	next          []int32
}

func newCSR(gg benchgraph.Graph) *csrGraph {
	n, m := len(gg.IDs), len(gg.Relations)
	c := &csrGraph{outOff: make([]int32, n+1), inOff: make([]int32, n+1),
		outTo: make([]int32, m), inTo: make([]int32, m), outW: make([]float64, m), inW: make([]float64, m),
		stamp: make([]uint32, n), score: make([]float64, n), parent: make([]int32, n)}
	for _, r := range gg.Relations {
		c.outOff[r.Source+1]++
		c.inOff[r.Target+1]++
	}
	for i := range n {
		c.outOff[i+1] += c.outOff[i]
		c.inOff[i+1] += c.inOff[i]
	}
	outPos, inPos := slices.Clone(c.outOff[:n]), slices.Clone(c.inOff[:n])
	for _, r := range gg.Relations {
		s, t := int32(r.Source), int32(r.Target)
		c.outTo[outPos[s]], c.outW[outPos[s]] = t, r.Weight
		outPos[s]++
		c.inTo[inPos[t]], c.inW[inPos[t]] = s, r.Weight
		inPos[t]++
	}
	return c
}

// buildCSRVisit times a level-by-level BFS over the CSR graph that keeps,
// like GetRelated, each entity's fewest-hop distance and its best-scoring
// path's score and parent (ties: first found), and builds no result: the
// bound a traversal over an interned static layout reaches.
func buildCSRVisit(gg benchgraph.Graph) (reachFunc, error) {
	c := newCSR(gg)
	return func(start, depth int, dir kgmem.Direction) (int, error) {
		return c.bfs(int32(start), depth, dir), nil
	}, nil
}

// bfs returns how many entities other than start lie within depth hops.
func (c *csrGraph) bfs(s int32, depth int, dir kgmem.Direction) int {
	base := c.epoch + 1
	c.epoch += uint32(depth) + 1
	c.stamp[s], c.score[s], c.parent[s] = base, 1, -1
	frontier := append(c.frontier[:0], s)
	reached := 0
	for hop := 1; hop <= depth && len(frontier) > 0; hop++ {
		cur := base + uint32(hop)
		next := c.next[:0]
		visit := func(u int32, su float64, to []int32, w []float64) {
			for i, v := range to {
				sc := su * w[i]
				switch st := c.stamp[v]; {
				case st < base:
					c.stamp[v], c.score[v], c.parent[v] = cur, sc, u
					next = append(next, v)
				case st == cur && sc > c.score[v]:
					c.score[v], c.parent[v] = sc, u
				}
			}
		}
		for _, u := range frontier {
			su := c.score[u]
			if dir != kgmem.Incoming {
				lo, hi := c.outOff[u], c.outOff[u+1]
				visit(u, su, c.outTo[lo:hi], c.outW[lo:hi])
			}
			if dir != kgmem.Outgoing {
				lo, hi := c.inOff[u], c.inOff[u+1]
				visit(u, su, c.inTo[lo:hi], c.inW[lo:hi])
			}
		}
		reached += len(next)
		frontier, c.next = next, frontier
	}
	c.frontier = frontier
	return reached
}
