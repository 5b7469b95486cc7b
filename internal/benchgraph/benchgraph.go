// Package benchgraph generates the synthetic graphs kgmem's benchmarks run
// on, from fixed seeds, so that kgmem's own benchmarks and the comparison
// with other graph libraries time exactly the same workloads.
package benchgraph

import (
	"fmt"
	"math/rand/v2"
)

// Spec describes a generated graph.
type Spec struct {
	Shape     string // "powerlaw" or "uniform"
	Entities  int
	Relations int
}

// String names the graph for benchmark names: "graph=powerlaw/relations=100k".
func (s Spec) String() string {
	return fmt.Sprintf("graph=%s/relations=%s", s.Shape, ShortCount(s.Relations))
}

// ShortCount writes 1000 as 1k and 1000000 as 1e6.
func ShortCount(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%de6", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// Sizes are the entity and relation counts the traversal benchmarks use,
// smallest first.
var Sizes = [][2]int{{1_000, 5_000}, {10_000, 100_000}, {100_000, 1_000_000}}

// Types are the relation types generated graphs use.
var Types = []string{"knows", "works_on", "part_of", "uses", "located_in"}

// Relation is one generated relation between entity indexes.
type Relation struct {
	Source, Target int
	Type           string
	Weight         float64
}

// Graph is a generated graph: entity i has ID IDs[i] and name Names[i].
type Graph struct {
	IDs, Names []string
	Relations  []Relation
}

// Generate builds the graph spec describes. In the power-law shape one
// endpoint of each relation is drawn from a Zipf distribution over a
// shuffled order of the entities, so a few hubs carry many relations; in the
// uniform shape both endpoints are uniform. Weights are uniform in (0,1]. A
// drawn key that already exists, or a self-loop, is redrawn, so the graph
// has exactly spec.Relations relations with distinct keys. The same spec
// always gives the same graph.
func Generate(spec Spec) Graph {
	rng := rand.New(rand.NewPCG(uint64(spec.Entities), uint64(spec.Relations)))
	g := Graph{IDs: make([]string, spec.Entities), Names: make([]string, spec.Entities)}
	for i := range g.IDs {
		g.IDs[i] = fmt.Sprintf("e%06d", i)
		g.Names[i] = fmt.Sprintf("n%06d", i)
	}
	perm := rng.Perm(spec.Entities)
	zipf := rand.NewZipf(rng, 1.1, 4, uint64(spec.Entities-1))
	pick := func() int {
		if spec.Shape == "uniform" {
			return rng.IntN(spec.Entities)
		}
		return perm[zipf.Uint64()]
	}
	type key struct{ s, t, typ int }
	seen := make(map[key]bool, spec.Relations)
	g.Relations = make([]Relation, 0, spec.Relations)
	for len(g.Relations) < spec.Relations {
		k := key{pick(), rng.IntN(spec.Entities), rng.IntN(len(Types))}
		if rng.IntN(2) == 0 {
			k.s, k.t = k.t, k.s
		}
		if k.s == k.t || seen[k] {
			continue
		}
		seen[k] = true
		g.Relations = append(g.Relations, Relation{Source: k.s, Target: k.t, Type: Types[k.typ], Weight: 1 - rng.Float64()})
	}
	return g
}
