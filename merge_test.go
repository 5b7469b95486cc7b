package kgmem_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// mergeFixture is a graph in which "ACME Corporation" (from) and "Acme"
// (into) are one company: they share a neighbour through the same relation
// type, each has relations of its own, they are related to each other, and
// from has a self-loop.
func mergeFixture(t *testing.T, g kgmem.KnowledgeGraph) {
	t.Helper()
	ctx := context.Background()
	jan := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range []kgmem.Entity{
		{ID: "acme", Name: "Acme", Type: "company", Aliases: []string{"Acme Inc"}, Tags: []string{"client"}, SourceIDs: []string{"p1"},
			Properties: map[string]string{"hq": "Berlin"}},
		{ID: "acme_corp", Name: "ACME Corporation", Type: "organization", Aliases: []string{"Acme Inc", "ACME"}, Tags: []string{"vendor", "client"},
			Description: "makes anvils", SourceIDs: []string{"p2", "p1"}, Properties: map[string]string{"hq": "Paris", "founded": "1949"}},
		{ID: "tom", Name: "Tom", Type: "person"},
		{ID: "ann", Name: "Ann", Type: "person"},
	} {
		require.NoError(t, g.AddEntity(ctx, e))
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "tom", TargetID: "acme", Type: "works_at", Weight: 0.9, SourceIDs: []string{"p1"}},
		{SourceID: "tom", TargetID: "acme_corp", Type: "works_at", Weight: 0.5, SourceIDs: []string{"p2"}, Properties: map[string]string{"role": "cto"}},
		{SourceID: "ann", TargetID: "acme_corp", Type: "works_at", Weight: 0.7, ValidFrom: jan},
		{SourceID: "acme_corp", TargetID: "ann", Type: "sponsors", Weight: 0.4},
		{SourceID: "acme_corp", TargetID: "acme", Type: "same_as", Weight: 1},
		{SourceID: "acme_corp", TargetID: "acme_corp", Type: "owns", Weight: 0.2},
	} {
		require.NoError(t, g.AddRelation(ctx, r))
	}
}

// relations lists every relation of id, both directions, by key.
func mergeRelations(t *testing.T, g kgmem.KnowledgeGraph, id string) map[kgmem.RelationKey]kgmem.Relation {
	t.Helper()
	hist, err := kgmem.History(context.Background(), g, id, kgmem.HistoryOptions{Direction: kgmem.Both})
	require.NoError(t, err)
	out := make(map[kgmem.RelationKey]kgmem.Relation, len(hist))
	for _, r := range hist {
		out[r.Key()] = r
	}
	return out
}

// checkMerged checks the fixture after merging acme_corp into acme.
func checkMerged(t *testing.T, g kgmem.KnowledgeGraph) {
	t.Helper()
	ctx := context.Background()
	_, ok, err := g.GetEntity(ctx, "acme_corp")
	require.NoError(t, err)
	require.False(t, ok, "from is removed")
	e, ok, err := g.GetEntity(ctx, "acme")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "Acme", e.Name)
	require.Equal(t, "company", e.Type)
	require.Equal(t, "makes anvils", e.Description)
	require.Equal(t, []string{"Acme Inc", "ACME Corporation"}, e.Aliases) // "ACME" is the name, folded
	require.Equal(t, []string{"client", "vendor"}, e.Tags)
	require.Equal(t, []string{"p1", "p2"}, e.SourceIDs)
	require.Equal(t, map[string]string{"hq": "Berlin", "founded": "1949"}, e.Properties)
	jan := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	want := map[kgmem.RelationKey]kgmem.Relation{
		{SourceID: "tom", TargetID: "acme", Type: "works_at"}: {SourceID: "tom", TargetID: "acme", Type: "works_at", Weight: 0.9,
			SourceIDs: []string{"p1", "p2"}, Properties: map[string]string{"role": "cto"}},
		{SourceID: "ann", TargetID: "acme", Type: "works_at"}: {SourceID: "ann", TargetID: "acme", Type: "works_at", Weight: 0.7, ValidFrom: jan},
		{SourceID: "acme", TargetID: "ann", Type: "sponsors"}: {SourceID: "acme", TargetID: "ann", Type: "sponsors", Weight: 0.4},
		{SourceID: "acme", TargetID: "acme", Type: "owns"}:    {SourceID: "acme", TargetID: "acme", Type: "owns", Weight: 0.2},
	}
	got := mergeRelations(t, g, "acme")
	require.Len(t, got, len(want))
	for k, w := range want {
		r, ok := got[k]
		require.True(t, ok, "%v", k)
		require.Equal(t, w.Weight, r.Weight, "%v", k)
		require.ElementsMatch(t, w.SourceIDs, r.SourceIDs, "%v", k)
		require.Equal(t, len(w.Properties), len(r.Properties), "%v", k)
		for pk, pv := range w.Properties {
			require.Equal(t, pv, r.Properties[pk], "%v", k)
		}
		require.True(t, w.ValidFrom.Equal(r.ValidFrom), "%v: %v", k, r.ValidFrom)
	}
	require.Empty(t, mergeRelations(t, g, "tom")[kgmem.RelationKey{SourceID: "tom", TargetID: "acme_corp", Type: "works_at"}])
}

// TestMerge merges on the in-memory graph, on a durable graph across a
// reopen, and on a memory's graph across a reopen.
func TestMerge(t *testing.T) {
	ctx := context.Background()
	t.Run("in-memory", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		mergeFixture(t, g)
		require.NoError(t, g.Merge(ctx, "acme_corp", "acme"))
		checkMerged(t, g)
	})
	t.Run("durable", func(t *testing.T) {
		dir := t.TempDir()
		g, err := kgmem.OpenGraph(dir)
		require.NoError(t, err)
		mergeFixture(t, g)
		before := g.JournalStats()
		require.NoError(t, g.Merge(ctx, "acme_corp", "acme"))
		after := g.JournalStats()
		require.Equal(t, before.Seq+1, after.Seq, "one journal record")
		checkMerged(t, g)
		require.NoError(t, g.Close())
		g, err = kgmem.OpenGraph(dir)
		require.NoError(t, err)
		defer g.Close()
		checkMerged(t, g)
	})
	t.Run("memory", func(t *testing.T) {
		dir := t.TempDir()
		m, err := kgmem.OpenMemory(dir)
		require.NoError(t, err)
		mergeFixture(t, m.Graph())
		require.NoError(t, m.Graph().Merge(ctx, "acme_corp", "acme"))
		checkMerged(t, m.Graph())
		require.NoError(t, m.Close())
		m, err = kgmem.OpenMemory(dir)
		require.NoError(t, err)
		defer m.Close()
		checkMerged(t, m.Graph())
	})
}

// TestMergeErrors: bad arguments leave the graph as it was.
func TestMergeErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, from, into string
		want             error
	}{
		{"into itself", "acme", "acme", kgmem.ErrInvalidArgument},
		{"empty from", "", "acme", kgmem.ErrInvalidArgument},
		{"blank into", "acme", "  ", kgmem.ErrInvalidArgument},
		{"invalid UTF-8", "acme", "\xff", kgmem.ErrInvalidArgument},
		{"unknown from", "nobody", "acme", kgmem.ErrNotFound},
		{"unknown into", "acme", "nobody", kgmem.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := kgmem.NewInMemoryGraph()
			mergeFixture(t, g)
			var before, after []byte
			var err error
			before, err = snapshotBytes(g)
			require.NoError(t, err)
			err = g.Merge(ctx, tc.from, tc.into)
			require.True(t, errors.Is(err, tc.want), "%v", err)
			after, err = snapshotBytes(g)
			require.NoError(t, err)
			require.Equal(t, string(before), string(after))
		})
	}
	t.Run("tags past the limit", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph(kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 2}))
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "a", Tags: []string{"x", "y"}}))
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "b", Tags: []string{"z"}}))
		require.NoError(t, g.Merge(ctx, "b", "a"))
		e, _, err := g.GetEntity(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, []string{"x", "y"}, e.Tags, "cut as AddEntity cuts, into's first")
	})
}

// snapshotBytes is g's snapshot, which changes with anything g holds.
func snapshotBytes(g *kgmem.InMemoryGraph) ([]byte, error) {
	var b bytes.Buffer
	_, err := g.WriteTo(&b)
	return b.Bytes(), err
}
