package kgmem_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// scanNeighborhood is the plainest possible backend: a list of relations
// scanned on every request, and a map of entities. It counts requests.
type scanNeighborhood struct {
	entities  map[string]kgmem.Entity
	relations []kgmem.Relation
	hops      int
}

func (n *scanNeighborhood) Neighbors(_ context.Context, ids []string, dir kgmem.Direction, types []string, visit func(int, kgmem.Relation)) error {
	n.hops++
	if len(ids) != len(slices.Compact(slices.Sorted(slices.Values(ids)))) {
		return fmt.Errorf("duplicate IDs in %q", ids)
	}
	for i, id := range ids {
		for _, r := range n.relations {
			if len(types) > 0 && !slices.Contains(types, r.Type) {
				continue
			}
			if dir != kgmem.Incoming && r.SourceID == id {
				visit(i, r)
			}
			if dir != kgmem.Outgoing && r.TargetID == id && (dir != kgmem.Both || r.SourceID != id) {
				visit(i, r)
			}
		}
	}
	return nil
}

func (n *scanNeighborhood) Entities(_ context.Context, ids []string) ([]kgmem.Entity, error) {
	out := make([]kgmem.Entity, len(ids))
	for i, id := range ids {
		e, ok := n.entities[id]
		if !ok {
			return nil, fmt.Errorf("entity %q: %w", id, kgmem.ErrNotFound)
		}
		out[i] = e
	}
	return out, nil
}

// TestTraverseMatchesInMemoryGraph runs the exported traversal over a
// scanning backend and InMemoryGraph's own methods on the same random
// multigraphs: every answer must be identical.
func TestTraverseMatchesInMemoryGraph(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 12))
	for round := range 150 {
		g, ids, rels := randomMultigraph(t, rng)
		n := &scanNeighborhood{entities: map[string]kgmem.Entity{}, relations: rels}
		for _, id := range ids {
			e, _, _ := g.GetEntity(ctx, id)
			n.entities[id] = e
		}
		for range 8 {
			src, dst := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			dir := kgmem.Direction(rng.IntN(3))
			var types []string
			if rng.IntN(3) == 0 {
				types = []string{"a", "c"}
			}
			topts := kgmem.TraverseOptions{Depth: rng.IntN(5), Direction: dir, RelationTypes: types,
				MaxNodesPerHop: rng.IntN(3), Limit: rng.IntN(4)}
			want, werr := g.GetRelated(ctx, src, topts)
			got, gerr := kgmem.TraverseRelated(ctx, n, src, topts)
			require.Equal(t, werr, gerr)
			require.Equal(t, want, got, "round %d GetRelated(%s, %+v)", round, src, topts)

			popts := kgmem.PathOptions{MaxHops: rng.IntN(6), Direction: dir, RelationTypes: types, MaxPaths: rng.IntN(4)}
			wantP, werr := g.FindPaths(ctx, src, dst, popts)
			gotP, gerr := kgmem.TraversePaths(ctx, n, src, dst, popts, 0)
			require.Equal(t, werr, gerr)
			require.Equal(t, wantP, gotP, "round %d FindPaths(%s, %s, %+v)", round, src, dst, popts)
		}
	}
}

func TestTraverseAsksOncePerHop(t *testing.T) {
	ctx := context.Background()
	n := &scanNeighborhood{entities: map[string]kgmem.Entity{}}
	for _, id := range []string{"a", "b", "c", "d"} {
		n.entities[id] = kgmem.Entity{ID: id}
	}
	n.relations = []kgmem.Relation{
		{SourceID: "a", TargetID: "b", Type: "t", Weight: 1},
		{SourceID: "a", TargetID: "c", Type: "t", Weight: 1},
		{SourceID: "b", TargetID: "d", Type: "t", Weight: 1},
	}
	res, err := kgmem.TraverseRelated(ctx, n, "a", kgmem.TraverseOptions{Depth: 5})
	require.NoError(t, err)
	require.Len(t, res, 3)
	require.Equal(t, 3, n.hops, "hops 1 and 2 find entities, hop 3 finds the frontier exhausted")
}

// brokenNeighborhood reports relations that do not touch the entity asked
// about, or have impossible weights.
type brokenNeighborhood struct {
	scanNeighborhood
	bad kgmem.Relation
}

func (n *brokenNeighborhood) Neighbors(_ context.Context, _ []string, _ kgmem.Direction, _ []string, visit func(int, kgmem.Relation)) error {
	visit(0, n.bad)
	return nil
}

func TestTraverseRejectsMisbehavingBackends(t *testing.T) {
	ctx := context.Background()
	ents := map[string]kgmem.Entity{"a": {ID: "a"}, "b": {ID: "b"}, "x": {ID: "x"}}
	for name, bad := range map[string]kgmem.Relation{
		"unrelated relation": {SourceID: "x", TargetID: "b", Type: "t", Weight: 1},
		"NaN weight":         {SourceID: "a", TargetID: "b", Type: "t", Weight: math.NaN()},
		"weight above one":   {SourceID: "a", TargetID: "b", Type: "t", Weight: 2},
	} {
		n := &brokenNeighborhood{scanNeighborhood{entities: ents}, bad}
		_, err := kgmem.TraverseRelated(ctx, n, "a", kgmem.TraverseOptions{Depth: 2})
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
		_, err = kgmem.TraversePaths(ctx, n, "a", "b", kgmem.PathOptions{MaxHops: 2}, 0)
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
	}
	n := &scanNeighborhood{entities: ents}
	_, err := kgmem.TraverseRelated(ctx, n, "missing", kgmem.TraverseOptions{Depth: 1})
	require.ErrorIs(t, err, kgmem.ErrNotFound)
	_, err = kgmem.TraversePaths(ctx, n, "a", "missing", kgmem.PathOptions{MaxHops: 1}, 0)
	require.ErrorIs(t, err, kgmem.ErrNotFound)
}
