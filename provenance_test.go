package kgmem_test

import (
	"context"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

func TestRemoveSource(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "only-doc1", SourceIDs: []string{"doc1"}},
		{ID: "doc1-and-doc2", SourceIDs: []string{"doc1", "doc2"}},
		{ID: "no-sources"},
		{ID: "only-doc2", SourceIDs: []string{"doc2"}},
	}, []kgmem.Relation{
		// Goes with only-doc1 although it never cited doc1.
		{SourceID: "only-doc1", TargetID: "no-sources", Type: "r", Weight: 1},
		// Cites only doc1.
		{SourceID: "doc1-and-doc2", TargetID: "no-sources", Type: "r", Weight: 1, SourceIDs: []string{"doc1"}},
		// Cites doc1 and doc2: keeps doc2.
		{SourceID: "doc1-and-doc2", TargetID: "only-doc2", Type: "r", Weight: 1, SourceIDs: []string{"doc2", "doc1"}},
		// Never had sources: kept.
		{SourceID: "no-sources", TargetID: "only-doc2", Type: "r", Weight: 1},
		// Self-loop on an entity that goes: counted once.
		{SourceID: "only-doc1", TargetID: "only-doc1", Type: "r", Weight: 1},
	}))
	rep, err := g.RemoveSource(ctx, "doc1")
	require.NoError(t, err)
	require.Equal(t, kgmem.RemoveSourceReport{EntitiesUpdated: 1, EntitiesRemoved: 1, RelationsUpdated: 1, RelationsRemoved: 3}, rep)
	es, err := g.Entities(ctx)
	require.NoError(t, err)
	require.Equal(t, []kgmem.Entity{
		{ID: "doc1-and-doc2", SourceIDs: []string{"doc2"}},
		{ID: "no-sources"},
		{ID: "only-doc2", SourceIDs: []string{"doc2"}},
	}, es)
	rs, err := g.Relations(ctx)
	require.NoError(t, err)
	require.Equal(t, []kgmem.Relation{
		{SourceID: "doc1-and-doc2", TargetID: "only-doc2", Type: "r", Weight: 1, SourceIDs: []string{"doc2"}},
		{SourceID: "no-sources", TargetID: "only-doc2", Type: "r", Weight: 1},
	}, rs)

	rep, err = g.RemoveSource(ctx, "doc1")
	require.NoError(t, err)
	require.Zero(t, rep, "nothing cites doc1 any more")
	_, err = g.RemoveSource(ctx, "")
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)

	rep, err = g.RemoveSource(ctx, "doc2")
	require.NoError(t, err)
	require.Equal(t, kgmem.RemoveSourceReport{EntitiesRemoved: 2, RelationsRemoved: 2}, rep)
	es, _ = g.Entities(ctx)
	require.Equal(t, []kgmem.Entity{{ID: "no-sources"}}, es)
}
