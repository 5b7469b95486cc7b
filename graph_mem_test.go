package kgmem_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

func TestAddRelationStoresNegativeZeroAsZero(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{{ID: "a"}, {ID: "b"}}, nil))
	require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: math.Copysign(0, -1)}))
	require.NoError(t, g.AddBatch(ctx, nil, []kgmem.Relation{{SourceID: "b", TargetID: "a", Type: "t", Weight: math.Copysign(0, -1)}}))
	for _, k := range []kgmem.RelationKey{{SourceID: "a", TargetID: "b", Type: "t"}, {SourceID: "b", TargetID: "a", Type: "t"}} {
		r, ok, err := g.GetRelation(ctx, k.SourceID, k.TargetID, k.Type)
		require.NoError(t, err)
		require.True(t, ok)
		require.False(t, math.Signbit(r.Weight), "%v holds -0", k)
	}
}

func TestAddBatch(t *testing.T) {
	ctx := context.Background()

	t.Run("applies entities then relations, later items win", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "old"}))
		err := g.AddBatch(ctx,
			[]kgmem.Entity{{ID: "a", Name: "first"}, {ID: "b"}, {ID: "a", Name: "second", Tags: []string{" Go "}}},
			[]kgmem.Relation{
				{SourceID: "a", TargetID: "b", Type: "t", Weight: 0.5},
				{SourceID: "old", TargetID: "a", Type: "t", Weight: 1},
				{SourceID: "a", TargetID: "b", Type: "t", Weight: 0.25},
			})
		require.NoError(t, err)
		e, ok, err := g.GetEntity(ctx, "a")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "second", e.Name)
		require.Equal(t, []string{"go"}, e.Tags)
		r, ok, err := g.GetRelation(ctx, "a", "b", "t")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, 0.25, r.Weight)
		require.Equal(t, kgmem.GraphStats{Entities: 3, Relations: 2, Tags: 1}, g.Stats())
	})

	t.Run("a bad item applies nothing and is named by index", func(t *testing.T) {
		for name, tc := range map[string]struct {
			entities  []kgmem.Entity
			relations []kgmem.Relation
			sentinel  error
			msg       string
		}{
			"bad entity": {
				entities: []kgmem.Entity{{ID: "x"}, {ID: ""}},
				sentinel: kgmem.ErrInvalidArgument, msg: "batch entity 1",
			},
			"bad weight": {
				entities:  []kgmem.Entity{{ID: "x"}},
				relations: []kgmem.Relation{{SourceID: "x", TargetID: "x", Type: "t", Weight: math.NaN()}},
				sentinel:  kgmem.ErrInvalidArgument, msg: "batch relation 0",
			},
			"missing endpoint": {
				entities: []kgmem.Entity{{ID: "x"}},
				relations: []kgmem.Relation{
					{SourceID: "x", TargetID: "x", Type: "t", Weight: 1},
					{SourceID: "x", TargetID: "nowhere", Type: "t", Weight: 1},
				},
				sentinel: kgmem.ErrNotFound, msg: `kgmem: batch relation 1: "x" -["t"]-> "nowhere": entity "nowhere": not found`,
			},
		} {
			t.Run(name, func(t *testing.T) {
				g := kgmem.NewInMemoryGraph()
				require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "keep", Tags: []string{"t"}}))
				err := g.AddBatch(ctx, tc.entities, tc.relations)
				require.ErrorIs(t, err, tc.sentinel)
				require.Contains(t, err.Error(), tc.msg)
				require.Equal(t, kgmem.GraphStats{Entities: 1, Tags: 1}, g.Stats())
				_, ok, _ := g.GetEntity(ctx, "x")
				require.False(t, ok)
			})
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		require.ErrorIs(t, g.AddBatch(cctx, []kgmem.Entity{{ID: "a"}}, nil), context.Canceled)
		require.Equal(t, kgmem.GraphStats{}, g.Stats())
	})
}

func TestFindByKeywordsTrimsKeywords(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "lang:go", Name: "Go"}))
	got, err := g.FindByKeywords(ctx, []string{"  GO\t", "   "})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "lang:go", got[0].ID)
}

// TestAddBatchLargeReportsFirstError checks the batch size at which
// validation runs on several cores: the error still names the lowest bad
// index and nothing is applied.
func TestAddBatchLargeReportsFirstError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{{ID: "a"}, {ID: "b"}}, nil))
	rels := make([]kgmem.Relation, 20_000)
	for i := range rels {
		rels[i] = kgmem.Relation{SourceID: "a", TargetID: "b", Type: fmt.Sprintf("t%d", i), Weight: 0.5}
	}
	rels[17_000].Weight = 2
	rels[12_345].Type = ""
	err := g.AddBatch(ctx, nil, rels)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.Contains(t, err.Error(), "batch relation 12345:")
	require.Equal(t, 0, g.Stats().Relations)

	rels[12_345].Type, rels[17_000].Weight = "fixed", 1
	require.NoError(t, g.AddBatch(ctx, nil, rels))
	require.Equal(t, len(rels), g.Stats().Relations)
}

// TestGraphInvalidOptions pins the policy for a bad option: never ignored,
// never a panic. NewInMemoryGraph keeps the error and every method but
// Close returns it; OpenGraph refuses at once.
func TestGraphInvalidOptions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []kgmem.Option
		msg  string
	}{
		{"nil option", []kgmem.Option{nil}, "kgmem: graph option: option 0 is nil: invalid argument"},
		{"negative budget", []kgmem.Option{kgmem.WithPathBudget(-1)}, "kgmem: graph option: WithPathBudget: negative budget -1: invalid argument"},
		{"negative tags", []kgmem.Option{kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: -2})},
			"kgmem: graph option: WithTagConstraints: negative MaxTagsPerEntity -2: invalid argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := kgmem.NewInMemoryGraph(tc.opts...)
			errs := map[string]error{
				"add entity": g.AddEntity(ctx, kgmem.Entity{ID: "a"}),
				"add batch":  g.AddBatch(ctx, []kgmem.Entity{{ID: "b"}}, nil),
			}
			_, _, errs["get entity"] = g.GetEntity(ctx, "a")
			_, errs["related"] = g.GetRelated(ctx, "a", kgmem.TraverseOptions{})
			_, errs["paths"] = g.FindPaths(ctx, "a", "b", kgmem.PathOptions{})
			_, errs["keywords"] = g.FindByKeywords(ctx, []string{"a"})
			for call, err := range errs {
				require.EqualError(t, err, tc.msg, call)
				require.ErrorIs(t, err, kgmem.ErrInvalidArgument, call)
			}
			require.NoError(t, g.Close())
			require.ErrorIs(t, g.Close(), kgmem.ErrClosed)

			opts := make([]kgmem.DurableOption, len(tc.opts))
			for i, o := range tc.opts {
				if o != nil {
					opts[i] = o
				}
			}
			_, err := kgmem.OpenGraph(t.TempDir(), opts...)
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
		})
	}
	// 0 means the default, never "none".
	g := kgmem.NewInMemoryGraph(kgmem.WithPathBudget(0), kgmem.WithTagConstraints(kgmem.TagConstraints{}))
	require.Equal(t, 8, g.TagConstraints().MaxTagsPerEntity)
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "a"}))
}
