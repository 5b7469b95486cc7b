package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/multi"
	"gonum.org/v1/gonum/graph/traverse"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/benchgraph"
)

// reachFunc answers one workload from one start entity (an index into the
// generated graph's entities) and returns how many entities other than the
// start lie within depth hops in direction dir.
type reachFunc func(start, depth int, dir kgmem.Direction) (int, error)

// impl is one of the compared implementations: build turns a generated
// graph into the implementation's own structure and returns the traversal
// over it.
type impl struct {
	name  string
	build func(gg benchgraph.Graph) (reachFunc, error)
}

// impls are the compared implementations, kgmem first: ratios in the table
// are relative to it.
var impls = []impl{
	{name: "kgmem", build: buildKgmem},
	{name: "gonum", build: buildGonum},
	{name: "map-visit", build: buildMapVisit},
	{name: "map+result", build: buildMapResult},
	{name: "kgmem-related", build: buildKgmemRelated},
	{name: "csr-visit", build: buildCSRVisit},
}

// buildKgmem loads the graph into a kgmem InMemoryGraph and times
// GetRelated with the workload's depth and direction and no limit: the full
// result, each entity with its score, best path and the relations along it,
// sorted.
func buildKgmem(gg benchgraph.Graph) (reachFunc, error) {
	g, err := loadKgmem(gg)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ids := gg.IDs
	return func(start, depth int, dir kgmem.Direction) (int, error) {
		res, err := g.GetRelated(ctx, ids[start], kgmem.TraverseOptions{Depth: depth, Direction: dir})
		return len(res), err
	}, nil
}

// buildGonum loads the graph into two gonum multigraphs with node ID =
// entity index and one weighted line per relation: a
// multi.WeightedDirectedGraph for Outgoing, and a
// multi.WeightedUndirectedGraph built from the same relations for Both (an
// undirected line can be walked either way, which is what Both means).
//
// The traversal is traverse.BreadthFirst.Walk with no Traverse filter and
// the depth limit in the until callback. Walk dequeues nodes in hop order
// and passes each one's depth, so the walk stops at the first node deeper
// than the limit, by which time every node within it has been counted. By
// then it has also scanned the neighbours of the last level within the
// limit and queued the next level, which is what limiting the depth through
// until costs. It computes reachability only: no scores, paths or result
// values.
func buildGonum(gg benchgraph.Graph) (reachFunc, error) {
	out := multi.NewWeightedDirectedGraph()
	both := multi.NewWeightedUndirectedGraph()
	for i := range gg.IDs {
		out.AddNode(multi.Node(i))
		both.AddNode(multi.Node(i))
	}
	for _, r := range gg.Relations {
		s, t := multi.Node(r.Source), multi.Node(r.Target)
		out.SetWeightedLine(out.NewWeightedLine(s, t, r.Weight))
		both.SetWeightedLine(both.NewWeightedLine(s, t, r.Weight))
	}
	return func(start, depth int, dir kgmem.Direction) (int, error) {
		var g traverse.Graph
		switch dir {
		case kgmem.Outgoing:
			g = out
		case kgmem.Both:
			g = both
		default:
			return 0, fmt.Errorf("gonum: direction %v is not compared", dir)
		}
		n := 0
		var bf traverse.BreadthFirst
		bf.Walk(g, multi.Node(start), func(_ graph.Node, d int) bool {
			if d > depth {
				return true
			}
			if d > 0 {
				n++
			}
			return false
		})
		return n, nil
	}, nil
}

// mapGraph is the layout many hand-written graph stores use: entities by
// ID, a relation slice and, per entity ID, the indexes of the relations that
// leave it (out) and arrive at it (in).
type mapGraph struct {
	entities map[string]kgmem.Entity
	rels     []kgmem.Relation
	out, in  map[string][]int
}

// mapVisit is what the map traversal keeps for a reached entity: the hop it
// was reached at and its best path's score, parent and last relation.
type mapVisit struct {
	hop    int
	score  float64
	parent string
	rel    int
}

// newMapGraph loads gg into a mapGraph.
func newMapGraph(gg benchgraph.Graph) *mapGraph {
	m := &mapGraph{
		entities: make(map[string]kgmem.Entity, len(gg.IDs)),
		rels:     make([]kgmem.Relation, len(gg.Relations)),
		out:      make(map[string][]int, len(gg.IDs)),
		in:       make(map[string][]int, len(gg.IDs)),
	}
	for i, id := range gg.IDs {
		m.entities[id] = kgmem.Entity{ID: id, Name: gg.Names[i]}
	}
	for i, r := range gg.Relations {
		s, t := gg.IDs[r.Source], gg.IDs[r.Target]
		m.rels[i] = kgmem.Relation{SourceID: s, TargetID: t, Type: r.Type, Weight: r.Weight}
		m.out[s] = append(m.out[s], i)
		m.in[t] = append(m.in[t], i)
	}
	return m
}

// buildMapVisit loads the graph into a mapGraph and times its traversal
// alone: a level-by-level BFS keyed by string ID that keeps, like
// GetRelated, each entity's fewest-hop distance and its best-scoring path's
// parent and relation, but builds no result values and does not sort.
func buildMapVisit(gg benchgraph.Graph) (reachFunc, error) {
	m := newMapGraph(gg)
	ids := gg.IDs
	return func(start, depth int, dir kgmem.Direction) (int, error) {
		if dir != kgmem.Outgoing && dir != kgmem.Both {
			return 0, fmt.Errorf("map: direction %v is not compared", dir)
		}
		return len(m.bfs(ids[start], depth, dir)) - 1, nil
	}, nil
}

// buildMapResult loads the graph into a mapGraph and times its traversal
// followed by building GetRelated's result from it: the reached entities
// sorted by score, hops and ID, each with a copy of the entity, its path
// and the relations along it.
func buildMapResult(gg benchgraph.Graph) (reachFunc, error) {
	m := newMapGraph(gg)
	ids := gg.IDs
	return func(start, depth int, dir kgmem.Direction) (int, error) {
		if dir != kgmem.Outgoing && dir != kgmem.Both {
			return 0, fmt.Errorf("map: direction %v is not compared", dir)
		}
		return len(m.related(ids[start], depth, dir)), nil
	}, nil
}

// bfs runs the map traversal and returns what it kept for every entity it
// reached, the start included (at hop 0).
func (m *mapGraph) bfs(start string, depth int, dir kgmem.Direction) map[string]mapVisit {
	seen := map[string]mapVisit{start: {score: 1, rel: -1}}
	frontier := []string{start}
	var next []string
	for hop := 1; hop <= depth && len(frontier) > 0; hop++ {
		next = next[:0]
		offer := func(from, to string, su float64, rel int) {
			score := su * m.rels[rel].Weight
			v, ok := seen[to]
			switch {
			case !ok:
				seen[to] = mapVisit{hop: hop, score: score, parent: from, rel: rel}
				next = append(next, to)
			case v.hop == hop && score > v.score:
				seen[to] = mapVisit{hop: hop, score: score, parent: from, rel: rel}
			}
		}
		for _, u := range frontier {
			su := seen[u].score
			for _, ri := range m.out[u] {
				offer(u, m.rels[ri].TargetID, su, ri)
			}
			if dir == kgmem.Both {
				for _, ri := range m.in[u] {
					offer(u, m.rels[ri].SourceID, su, ri)
				}
			}
		}
		frontier, next = next, frontier
	}
	return seen
}

// related runs the map traversal and builds GetRelated's output from it.
func (m *mapGraph) related(start string, depth int, dir kgmem.Direction) []kgmem.ScoredEntity {
	seen := m.bfs(start, depth, dir)
	ids := make([]string, 0, len(seen)-1)
	for id := range seen {
		if id != start {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int {
		va, vb := seen[a], seen[b]
		if c := cmp.Compare(vb.score, va.score); c != 0 {
			return c
		}
		if c := cmp.Compare(va.hop, vb.hop); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	out := make([]kgmem.ScoredEntity, len(ids))
	for i, id := range ids {
		v := seen[id]
		path, rels := make([]string, v.hop+1), make([]kgmem.Relation, v.hop)
		for n, j := id, v.hop; j >= 0; j-- {
			path[j] = n
			if j > 0 {
				step := seen[n]
				rels[j-1] = m.rels[step.rel]
				n = step.parent
			}
		}
		out[i] = kgmem.ScoredEntity{Entity: m.entities[id], Score: v.score, Path: path, Relations: rels}
	}
	return out
}

// loadKgmem loads the graph into a kgmem InMemoryGraph with one AddBatch.
func loadKgmem(gg benchgraph.Graph) (*kgmem.InMemoryGraph, error) {
	entities := make([]kgmem.Entity, len(gg.IDs))
	for i, id := range gg.IDs {
		entities[i] = kgmem.Entity{ID: id, Name: gg.Names[i]}
	}
	relations := make([]kgmem.Relation, len(gg.Relations))
	for i, r := range gg.Relations {
		relations[i] = kgmem.Relation{SourceID: gg.IDs[r.Source], TargetID: gg.IDs[r.Target], Type: r.Type, Weight: r.Weight}
	}
	g := kgmem.NewInMemoryGraph()
	if err := g.AddBatch(context.Background(), entities, relations); err != nil {
		return nil, err
	}
	return g, nil
}
