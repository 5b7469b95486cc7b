package kgmemtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// runFindPaths holds the FindPaths part of the contract: simple paths within
// MaxHops (0 meaning 4) by direction and type filters, the MaxPaths best of
// them (0 meaning 3), parallel relations as distinct paths, ErrNoPath,
// ErrNotFound for unknown endpoints, the zero-hop path from an entity to
// itself, and cancellation.
func runFindPaths(t *testing.T, newGraph func(t *testing.T) kgmem.KnowledgeGraph) {
	t.Run("FindPaths", func(t *testing.T) {
		for _, c := range findPathsChecks() {
			t.Run(c.name, func(t *testing.T) { c.run(t, newGraph(t)) })
		}
	})
}

// CheckPath reports, with t.Errorf, every way in which p breaks the
// invariants of a FindPaths answer from source to target under opts: it
// starts at source and ends at target, repeats no entity, has at most
// opts.MaxHops relations (MaxHops 0 meaning 4) and
// len(Relations) == len(EntityIDs)-1, each
// relation joins consecutive entities in a direction opts.Direction allows
// and has a type opts.RelationTypes allows, and Score is the product of the
// weights multiplied from the source outwards.
func CheckPath(t testing.TB, source, target string, opts kgmem.PathOptions, p kgmem.Path) {
	t.Helper()
	opts = withPathDefaults(opts)
	desc := strings.Join(p.EntityIDs, " ")
	if len(p.EntityIDs) == 0 || p.EntityIDs[0] != source || p.EntityIDs[len(p.EntityIDs)-1] != target {
		t.Errorf("path %q does not run from %q to %q", desc, source, target)
		return
	}
	if len(p.Relations) != len(p.EntityIDs)-1 {
		t.Errorf("path %q has %d relations", desc, len(p.Relations))
		return
	}
	if len(p.Relations) > opts.MaxHops && source != target {
		t.Errorf("path %q has %d hops, MaxHops is %d", desc, len(p.Relations), opts.MaxHops)
	}
	seen := map[string]bool{}
	score := 1.0
	for i, id := range p.EntityIDs {
		if seen[id] {
			t.Errorf("path %q visits %q twice", desc, id)
		}
		seen[id] = true
		if i == 0 {
			continue
		}
		r := p.Relations[i-1]
		if !joins(r, p.EntityIDs[i-1], id, opts.Direction) {
			t.Errorf("path %q: relation %s does not lead from %q to %q walking %v",
				desc, describeRelation(r), p.EntityIDs[i-1], id, opts.Direction)
		}
		if len(opts.RelationTypes) > 0 && !slices.Contains(opts.RelationTypes, r.Type) {
			t.Errorf("path %q: relation type %q is not in %q", desc, r.Type, opts.RelationTypes)
		}
		score *= r.Weight
	}
	if p.Score != score {
		t.Errorf("path %q: score %v, product of weights %v", desc, p.Score, score)
	}
}

// comparePaths is FindPaths' documented order: score descending, then fewer
// hops, then entity IDs, then relation keys, position by position.
func comparePaths(a, b kgmem.Path) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Relations), len(b.Relations)); c != 0 {
		return c
	}
	if c := slices.Compare(a.EntityIDs, b.EntityIDs); c != 0 {
		return c
	}
	for i := range a.Relations {
		ka, kb := a.Relations[i].Key(), b.Relations[i].Key()
		if c := slices.Compare([]string{ka.SourceID, ka.TargetID, ka.Type}, []string{kb.SourceID, kb.TargetID, kb.Type}); c != 0 {
			return c
		}
	}
	return 0
}

// ReferencePaths is FindPaths by exhaustive enumeration, for comparing
// implementations on small graphs: every simple path of at most
// opts.MaxHops relations (0 meaning 4) from src to dst over the plain list
// of relations, each counted as stored (a zero weight as 1), walking
// opts.Direction and opts.RelationTypes, sorted in FindPaths' order (score
// descending, fewer hops, entity IDs, relation keys). It ignores MaxPaths
// and MaxNodesPerHop; cut the result to the k you asked for. Its cost is
// exponential in MaxHops.
func ReferencePaths(rels []kgmem.Relation, src, dst string, opts kgmem.PathOptions) []kgmem.Path {
	opts = withPathDefaults(opts)
	rels = storedAll(rels)
	if src == dst {
		return []kgmem.Path{{EntityIDs: []string{src}, Score: 1}}
	}
	var out []kgmem.Path
	var walk func(ids []string, path []kgmem.Relation, score float64)
	walk = func(ids []string, path []kgmem.Relation, score float64) {
		at := ids[len(ids)-1]
		if at == dst {
			out = append(out, kgmem.Path{EntityIDs: slices.Clone(ids), Relations: slices.Clone(path), Score: score})
			return
		}
		if len(path) == opts.MaxHops {
			return
		}
		for _, r := range rels {
			if len(opts.RelationTypes) > 0 && !slices.Contains(opts.RelationTypes, r.Type) {
				continue
			}
			var next []string
			if opts.Direction != kgmem.Incoming && r.SourceID == at {
				next = append(next, r.TargetID)
			}
			if opts.Direction != kgmem.Outgoing && r.TargetID == at && r.SourceID != at {
				next = append(next, r.SourceID)
			}
			for _, n := range next {
				if !slices.Contains(ids, n) {
					walk(append(ids, n), append(path, r), score*r.Weight)
				}
			}
		}
	}
	walk([]string{src}, nil, 1)
	slices.SortFunc(out, comparePaths)
	return out
}

// withPathDefaults returns opts with the documented defaults of its zero
// fields: MaxHops 4, MaxPaths 3.
func withPathDefaults(opts kgmem.PathOptions) kgmem.PathOptions {
	if opts.MaxHops == 0 {
		opts.MaxHops = 4
	}
	if opts.MaxPaths == 0 {
		opts.MaxPaths = 3
	}
	return opts
}

func describePaths(ps []kgmem.Path) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\n\t%v %q", p.Score, p.EntityIDs)
		for _, r := range p.Relations {
			b.WriteString(" " + describeRelation(r))
		}
	}
	return b.String()
}

func findPaths(t testing.TB, g kgmem.KnowledgeGraph, src, dst string, opts kgmem.PathOptions) kgmem.PathResult {
	t.Helper()
	res, err := g.FindPaths(t.Context(), src, dst, opts)
	if err != nil {
		t.Fatalf("FindPaths(%q, %q, %+v): %v", src, dst, opts, err)
	}
	for _, p := range res.Paths {
		CheckPath(t, src, dst, opts, p)
	}
	return res
}

func requirePaths(t testing.TB, what string, want, got []kgmem.Path) {
	t.Helper()
	if w, g := describePaths(want), describePaths(got); w != g {
		t.Fatalf("%s:\ngot:%s\nwant:%s", what, g, w)
	}
}

func findPathsChecks() []check {
	return []check{
		{"SameEntity", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g, rel("a", "b", "r", 0.5))
			for _, hops := range []int{0, 3} {
				res := findPaths(t, g, "a", "a", kgmem.PathOptions{MaxHops: hops})
				requirePaths(t, "a to itself", []kgmem.Path{{EntityIDs: []string{"a"}, Score: 1}}, res.Paths)
			}
		}},
		{"ZeroOptions", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// The zero PathOptions: up to 4 hops, outgoing, the 3 best.
			stored := build(t, g, rel("a", "b", "r", 1), rel("b", "c", "r", 0.5), rel("c", "d", "r", 1),
				rel("d", "e", "r", 1), rel("e", "f", "r", 1), rel("f", "g", "r", 1), rel("a", "c", "s", 0.25))
			res := findPaths(t, g, "a", "b", kgmem.PathOptions{})
			requirePaths(t, "directly connected, zero options", ReferencePaths(valuesOf(stored), "a", "b", kgmem.PathOptions{MaxHops: 1}), res.Paths)
			res = findPaths(t, g, "a", "e", kgmem.PathOptions{})
			requirePaths(t, "four hops, zero options", ReferencePaths(valuesOf(stored), "a", "e", kgmem.PathOptions{MaxHops: 4}), res.Paths)
			if len(res.Paths) != 2 {
				t.Fatalf("a to e: %d paths, want 2", len(res.Paths))
			}
			res = findPaths(t, g, "a", "f", kgmem.PathOptions{})
			requirePaths(t, "a to f, zero options", ReferencePaths(valuesOf(stored), "a", "f", kgmem.PathOptions{MaxHops: 4}), res.Paths)
			_, err := g.FindPaths(t.Context(), "a", "g", kgmem.PathOptions{})
			requireErr(t, "five hops with zero options", err, kgmem.ErrNoPath, "4 hops")
			_, err = g.FindPaths(t.Context(), "b", "a", kgmem.PathOptions{})
			requireErr(t, "against the arrows with zero options", err, kgmem.ErrNoPath)
		}},
		{"SelfLoops", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// A self-loop never lies on a simple path.
			stored := build(t, g, rel("a", "a", "r", 1), rel("a", "b", "r", 0.5), rel("b", "b", "r", 1), rel("b", "c", "r", 1))
			for _, dir := range []kgmem.Direction{kgmem.Outgoing, kgmem.Both} {
				opts := kgmem.PathOptions{MaxHops: 3, Direction: dir, MaxPaths: 10}
				res := findPaths(t, g, "a", "c", opts)
				requirePaths(t, "a to c past self-loops", ReferencePaths(valuesOf(stored), "a", "c", opts), res.Paths)
				if len(res.Paths) != 1 || res.Paths[0].Hops() != 2 {
					t.Fatalf("walking %v: paths %s, want a b c only", dir, describePaths(res.Paths))
				}
			}
			res := findPaths(t, g, "a", "a", kgmem.PathOptions{Direction: kgmem.Both})
			requirePaths(t, "a to itself with a self-loop", []kgmem.Path{{EntityIDs: []string{"a"}, Score: 1}}, res.Paths)
		}},
		{"BestFirst", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// a→b→d scores 0.5·1, a→c→d 0.9·0.9, a→d 0.3, a→b→c→d 0.5·1·0.9.
			stored := build(t, g,
				rel("a", "b", "r", 0.5), rel("b", "d", "r", 1),
				rel("a", "c", "r", 0.9), rel("c", "d", "r", 0.9),
				rel("a", "d", "r", 0.3), rel("b", "c", "r", 1))
			res := findPaths(t, g, "a", "d", kgmem.PathOptions{MaxHops: 3, MaxPaths: 10})
			want := ReferencePaths(valuesOf(stored), "a", "d", kgmem.PathOptions{MaxHops: 3})
			requirePaths(t, "all paths a to d", want, res.Paths)
			if len(res.Paths) != 4 || res.Truncated {
				t.Fatalf("got %d paths, truncated %v; want 4, false", len(res.Paths), res.Truncated)
			}
			res = findPaths(t, g, "a", "d", kgmem.PathOptions{MaxHops: 3})
			requirePaths(t, "default MaxPaths is 3", want[:3], res.Paths)
			res = findPaths(t, g, "a", "d", kgmem.PathOptions{MaxHops: 1, MaxPaths: 10})
			requirePaths(t, "MaxHops 1", ReferencePaths(valuesOf(stored), "a", "d", kgmem.PathOptions{MaxHops: 1}), res.Paths)
		}},
		{"TiesByHopsThenIDs", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g,
				rel("s", "t", "r", 1), rel("s", "y", "r", 1), rel("y", "t", "r", 1),
				rel("s", "x", "r", 1), rel("x", "t", "r", 1))
			res := findPaths(t, g, "s", "t", kgmem.PathOptions{MaxHops: 2, MaxPaths: 3})
			var got []string
			for _, p := range res.Paths {
				got = append(got, strings.Join(p.EntityIDs, " "))
			}
			requireStrings(t, "paths", []string{"s t", "s x t", "s y t"}, got)
		}},
		{"ParallelRelationsAreDistinctPaths", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g, rel("a", "b", "knows", 1), rel("a", "b", "likes", 1), rel("b", "a", "knows", 1))
			opts := kgmem.PathOptions{MaxHops: 1, Direction: kgmem.Both, MaxPaths: 5}
			res := findPaths(t, g, "a", "b", opts)
			requirePaths(t, "parallel relations", ReferencePaths(valuesOf(stored), "a", "b", opts), res.Paths)
			if len(res.Paths) != 3 {
				t.Fatalf("got %d paths, want 3 (one per relation)", len(res.Paths))
			}
		}},
		{"DirectionAndTypes", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g, rel("a", "b", "r", 1), rel("c", "b", "s", 0.5), rel("c", "d", "r", 1))
			if _, err := g.FindPaths(t.Context(), "a", "d", kgmem.PathOptions{MaxHops: 3}); !errors.Is(err, kgmem.ErrNoPath) {
				t.Fatalf("Outgoing a to d: error %v, want ErrNoPath", err)
			}
			opts := kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both}
			res := findPaths(t, g, "a", "d", opts)
			requirePaths(t, "Both a to d", ReferencePaths(valuesOf(stored), "a", "d", opts), res.Paths)
			res = findPaths(t, g, "b", "a", kgmem.PathOptions{MaxHops: 1, Direction: kgmem.Incoming})
			requirePaths(t, "Incoming b to a", ReferencePaths(valuesOf(stored), "b", "a",
				kgmem.PathOptions{MaxHops: 1, Direction: kgmem.Incoming}), res.Paths)
			_, err := g.FindPaths(t.Context(), "a", "d", kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both, RelationTypes: []string{"r"}})
			if !errors.Is(err, kgmem.ErrNoPath) {
				t.Fatalf("type filter r: error %v, want ErrNoPath", err)
			}
		}},
		{"NoPath", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g, rel("a", "b", "r", 1), rel("b", "c", "r", 1))
			addEntity(t, g, kgmem.Entity{ID: "lonely"})
			for _, tc := range []struct {
				src, dst string
				opts     kgmem.PathOptions
			}{
				{"a", "lonely", kgmem.PathOptions{MaxHops: 5, Direction: kgmem.Both}},
				{"a", "c", kgmem.PathOptions{MaxHops: 1}},
				{"c", "a", kgmem.PathOptions{MaxHops: 4}},
				{"c", "a", kgmem.PathOptions{}},
			} {
				res, err := g.FindPaths(t.Context(), tc.src, tc.dst, tc.opts)
				requireErr(t, fmt.Sprintf("FindPaths(%q, %q, %+v)", tc.src, tc.dst, tc.opts), err, kgmem.ErrNoPath,
					fmt.Sprintf("%q", tc.src), fmt.Sprintf("%q", tc.dst))
				if len(res.Paths) != 0 {
					t.Fatalf("ErrNoPath came with paths %v", res.Paths)
				}
			}
		}},
		{"Errors", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g, rel("a", "b", "r", 1))
			_, err := g.FindPaths(t.Context(), "a", "missing", kgmem.PathOptions{MaxHops: 2})
			requireErr(t, "unknown target", err, kgmem.ErrNotFound, `"missing"`)
			_, err = g.FindPaths(t.Context(), "missing", "a", kgmem.PathOptions{MaxHops: 2})
			requireErr(t, "unknown source", err, kgmem.ErrNotFound, `"missing"`)
			for _, bad := range []kgmem.PathOptions{
				{MaxHops: -1},
				{MaxHops: 2, MaxPaths: -1},
				{MaxHops: 2, MaxNodesPerHop: -1},
				{MaxHops: 2, Direction: kgmem.Direction(9)},
				{MaxHops: 2, RelationTypes: []string{""}},
			} {
				_, err = g.FindPaths(t.Context(), "a", "b", bad)
				requireErr(t, fmt.Sprintf("options %+v", bad), err, kgmem.ErrInvalidArgument)
			}
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			_, err = g.FindPaths(ctx, "a", "b", kgmem.PathOptions{MaxHops: 2})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled context: error %v, want context.Canceled", err)
			}
		}},
		{"Copies", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "r", Weight: 1,
				Properties: map[string]string{"k": "v"}, SourceIDs: []string{"doc"}})
			res := findPaths(t, g, "a", "b", kgmem.PathOptions{MaxHops: 1})
			res.Paths[0].EntityIDs[0] = "scribbled"
			res.Paths[0].Relations[0].Properties["k"] = "scribbled"
			res.Paths[0].Relations[0].SourceIDs[0] = "scribbled"
			again := findPaths(t, g, "a", "b", kgmem.PathOptions{MaxHops: 1})
			r := again.Paths[0].Relations[0]
			if again.Paths[0].EntityIDs[0] != "a" || r.Properties["k"] != "v" || r.SourceIDs[0] != "doc" {
				t.Fatalf("mutating a returned path changed the graph: %+v", again.Paths[0])
			}
		}},
		{"MatchesReference", func(t *testing.T, g kgmem.KnowledgeGraph) {
			checkPathsAgainstReference(t, g)
		}},
	}
}

func valuesOf(m map[kgmem.RelationKey]kgmem.Relation) []kgmem.Relation {
	out := make([]kgmem.Relation, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b kgmem.Relation) int { return strings.Compare(describeRelation(a), describeRelation(b)) })
	return out
}

// checkPathsAgainstReference builds random multigraphs in g and compares
// FindPaths with exhaustive enumeration of simple paths.
func checkPathsAgainstReference(t *testing.T, g kgmem.KnowledgeGraph) {
	rng := rand.New(rand.NewPCG(5, 8))
	var live []string
	rounds := 60
	if testing.Short() {
		rounds = 20
	}
	for round := range rounds {
		for _, id := range live {
			removeEntity(t, g, id)
		}
		ids, rels := randomGraph(rng)
		for _, id := range ids {
			addEntity(t, g, kgmem.Entity{ID: id, Name: "Entity " + id})
		}
		for _, r := range rels {
			addRelation(t, g, r)
		}
		live = ids
		for range 10 {
			src, dst := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			opts := kgmem.PathOptions{
				MaxHops:   rng.IntN(6),
				Direction: kgmem.Direction(rng.IntN(3)),
				MaxPaths:  rng.IntN(5),
			}
			if rng.IntN(3) == 0 {
				opts.RelationTypes = []string{"r", "s"}[:1+rng.IntN(2)]
			}
			k := opts.MaxPaths
			if k == 0 {
				k = 3
			}
			want := ReferencePaths(rels, src, dst, opts)
			if len(want) > k {
				want = want[:k]
			}
			res, err := g.FindPaths(t.Context(), src, dst, opts)
			what := fmt.Sprintf("graph %d, FindPaths(%q, %q, %+v) on relations\n\t%s", round, src, dst, opts,
				strings.Join(describeRelations(rels), "\n\t"))
			if len(want) == 0 {
				if !errors.Is(err, kgmem.ErrNoPath) {
					t.Fatalf("%s: error %v, want ErrNoPath", what, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			for _, p := range res.Paths {
				CheckPath(t, src, dst, opts, p)
			}
			requirePaths(t, what, want, res.Paths)
		}
	}
}
