package kgmem_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

// randomMultigraph builds a seeded random multigraph with frequent score ties:
// self-loops, parallel relations of several types in both directions.
func randomMultigraph(t *testing.T, rng *rand.Rand) (kgmem.KnowledgeGraph, []string, []kgmem.Relation) {
	t.Helper()
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	n := 2 + rng.IntN(9)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("e%02d", rng.IntN(40))
		if slices.Contains(ids[:i], ids[i]) {
			ids[i] += fmt.Sprint(i)
		}
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: ids[i]}))
	}
	weights := []float64{0, 0.25, 0.5, 0.5, 1, 1}
	types := []string{"a", "b", "c"}
	byKey := map[kgmem.RelationKey]kgmem.Relation{}
	for range rng.IntN(4 * n) {
		r := kgmem.Relation{
			SourceID: ids[rng.IntN(n)],
			TargetID: ids[rng.IntN(n)],
			Type:     types[rng.IntN(len(types))],
			Weight:   weights[rng.IntN(len(weights))],
		}
		if rng.IntN(4) == 0 {
			r.Weight = rng.Float64()
		}
		require.NoError(t, g.AddRelation(ctx, r))
		byKey[r.Key()] = r
	}
	rels := make([]kgmem.Relation, 0, len(byKey))
	for _, r := range byKey {
		rels = append(rels, r)
	}
	slices.SortFunc(rels, func(a, b kgmem.Relation) int {
		return slices.Compare([]string{a.SourceID, a.TargetID, a.Type}, []string{b.SourceID, b.TargetID, b.Type})
	})
	return g, ids, rels
}

func TestFindPathsMatchesExhaustiveReference(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	checked, withPaths := 0, 0
	for graphNo := range 400 {
		g, ids, rels := randomMultigraph(t, rng)
		for range 6 {
			src, dst := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			opts := kgmem.PathOptions{
				MaxHops:   1 + rng.IntN(6),
				Direction: kgmem.Direction(rng.IntN(3)),
				MaxPaths:  1 + rng.IntN(5),
			}
			if rng.IntN(3) == 0 {
				opts.RelationTypes = []string{"a", "b"}[:1+rng.IntN(2)]
			}
			want := kgmemtest.ReferencePaths(rels, src, dst, opts)
			if len(want) > opts.MaxPaths {
				want = want[:opts.MaxPaths]
			}
			got, err := g.FindPaths(ctx, src, dst, opts)
			name := fmt.Sprintf("graph %d %s->%s %+v", graphNo, src, dst, opts)
			checked++
			if len(want) == 0 {
				require.ErrorIs(t, err, kgmem.ErrNoPath, name)
				require.Contains(t, err.Error(), fmt.Sprintf("%q", src), name)
				require.Contains(t, err.Error(), fmt.Sprintf("%q", dst), name)
				require.Empty(t, got.Paths, name)
				continue
			}
			withPaths++
			require.NoError(t, err, name)
			require.False(t, got.Truncated, name)
			require.Equal(t, want, got.Paths, name)
			for _, p := range got.Paths {
				kgmemtest.CheckPath(t, src, dst, opts, p)
			}
		}
	}
	t.Logf("%d queries, %d with paths", checked, withPaths)
	require.Greater(t, withPaths, checked/3, "the random graphs should connect most queries")
}

func TestFindPathsEdgeCases(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, id := range []string{"a", "b", "c", "lonely"} {
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: id}))
	}
	require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 0.5}))
	require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "b", TargetID: "c", Type: "t", Weight: 0.5}))

	res, err := g.FindPaths(ctx, "a", "a", kgmem.PathOptions{})
	require.NoError(t, err)
	require.Equal(t, []kgmem.Path{{EntityIDs: []string{"a"}, Score: 1}}, res.Paths)

	// MaxHops 0 means 4: the zero options find what is directly connected.
	res, err = g.FindPaths(ctx, "a", "c", kgmem.PathOptions{MaxHops: 0})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, res.Paths[0].EntityIDs)
	res, err = g.FindPaths(ctx, "a", "b", kgmem.PathOptions{})
	require.NoError(t, err)
	require.Len(t, res.Paths, 1)
	_, err = g.FindPaths(ctx, "a", "c", kgmem.PathOptions{MaxHops: 1})
	require.ErrorIs(t, err, kgmem.ErrNoPath)
	require.EqualError(t, err, `kgmem: find paths from "a" to "c" within 1 hops: no path`)
	_, err = g.FindPaths(ctx, "a", "lonely", kgmem.PathOptions{Direction: kgmem.Both})
	require.EqualError(t, err, `kgmem: find paths from "a" to "lonely" within 4 hops: no path`)
	_, err = g.FindPaths(ctx, "a", "c", kgmem.PathOptions{MaxHops: 1})
	require.ErrorIs(t, err, kgmem.ErrNoPath)
	_, err = g.FindPaths(ctx, "c", "a", kgmem.PathOptions{MaxHops: 4})
	require.ErrorIs(t, err, kgmem.ErrNoPath, "Outgoing does not walk relations backwards")
	_, err = g.FindPaths(ctx, "a", "lonely", kgmem.PathOptions{MaxHops: 4, Direction: kgmem.Both})
	require.ErrorIs(t, err, kgmem.ErrNoPath)
	res, err = g.FindPaths(ctx, "c", "a", kgmem.PathOptions{MaxHops: 2, Direction: kgmem.Incoming})
	require.NoError(t, err)
	require.Equal(t, []string{"c", "b", "a"}, res.Paths[0].EntityIDs)
	require.Equal(t, 0.25, res.Paths[0].Score)

	_, err = g.FindPaths(ctx, "a", "missing", kgmem.PathOptions{MaxHops: 2})
	require.ErrorIs(t, err, kgmem.ErrNotFound)
	require.Contains(t, err.Error(), `"missing"`)
	_, err = g.FindPaths(ctx, "missing", "a", kgmem.PathOptions{MaxHops: 2})
	require.ErrorIs(t, err, kgmem.ErrNotFound)

	for _, bad := range []kgmem.PathOptions{
		{MaxHops: -1},
		{MaxHops: 2, MaxPaths: -1},
		{MaxHops: 2, MaxNodesPerHop: -1},
		{MaxHops: 2, Direction: kgmem.Direction(3)},
		{MaxHops: 2, RelationTypes: []string{""}},
	} {
		_, err = g.FindPaths(ctx, "a", "c", bad)
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument, "%+v", bad)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = g.FindPaths(cctx, "a", "c", kgmem.PathOptions{MaxHops: 2})
	require.True(t, errors.Is(err, context.Canceled))
}

func TestFindPathsHubTruncates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "hub"}))
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "target"}))
	const spokes = 10000
	for i := range spokes {
		id := fmt.Sprintf("s%05d", i)
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: id}))
		require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "hub", TargetID: id, Type: "t", Weight: 0.5}))
		// Only the weakest spokes reach the target, so a cap that keeps the
		// best spokes cuts every path.
		if i >= spokes-3 {
			require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: id, TargetID: "target", Type: "t", Weight: 1}))
		}
	}
	// Without a cap all three paths are found.
	res, err := g.FindPaths(ctx, "hub", "target", kgmem.PathOptions{MaxHops: 2})
	require.NoError(t, err)
	require.Len(t, res.Paths, 3)
	require.False(t, res.Truncated)
	require.Equal(t, []string{"hub", "s09997", "target"}, res.Paths[0].EntityIDs)

	// Under a cap of 2 the search, growing from the target's side (3
	// spokes, where the hub's side has 10,000), keeps 2 spokes and reports
	// the cut.
	res, err = g.FindPaths(ctx, "hub", "target", kgmem.PathOptions{MaxHops: 4, Direction: kgmem.Both, MaxNodesPerHop: 2})
	require.True(t, res.Truncated)
	if err != nil {
		require.ErrorIs(t, err, kgmem.ErrNoPath)
	}

	// A small budget truncates too, and never loses exactness among what
	// it explored: whatever it returns is a valid path.
	small := kgmem.NewInMemoryGraph(kgmem.WithPathBudget(100))
	require.NoError(t, small.AddEntity(ctx, kgmem.Entity{ID: "hub"}))
	require.NoError(t, small.AddEntity(ctx, kgmem.Entity{ID: "target"}))
	for i := range 1000 {
		id := fmt.Sprintf("s%04d", i)
		require.NoError(t, small.AddEntity(ctx, kgmem.Entity{ID: id}))
		require.NoError(t, small.AddRelation(ctx, kgmem.Relation{SourceID: "hub", TargetID: id, Type: "t", Weight: 1}))
		require.NoError(t, small.AddRelation(ctx, kgmem.Relation{SourceID: id, TargetID: "target", Type: "t", Weight: 1}))
	}
	res, err = small.FindPaths(ctx, "hub", "target", kgmem.PathOptions{MaxHops: 4, Direction: kgmem.Both, MaxPaths: 5})
	require.True(t, res.Truncated)
	if err == nil {
		for _, p := range res.Paths {
			kgmemtest.CheckPath(t, "hub", "target", kgmem.PathOptions{MaxHops: 4, Direction: kgmem.Both}, p)
		}
	}
}
