package kgmem_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// callFixture is a store of twelve pages about Apollo and a graph in which
// Alice leads Apollo, which uses Go, which is written by Rob.
func callFixture(t *testing.T) (*kgmem.InMemoryKnowledgeStore, *kgmem.InMemoryGraph) {
	t.Helper()
	ctx := context.Background()
	s := kgmem.NewInMemoryKnowledgeStore()
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: id, Content: "Apollo notes " + id}))
	}
	g := kgmem.NewInMemoryGraph()
	for _, e := range []kgmem.Entity{{ID: "alice", Name: "Alice", Type: "person"}, {ID: "apollo", Name: "Apollo", Type: "project"},
		{ID: "go", Name: "Go", Type: "language"}, {ID: "rob", Name: "Rob", Type: "person"}} {
		require.NoError(t, g.AddEntity(ctx, e))
	}
	for _, r := range []kgmem.Relation{{SourceID: "alice", TargetID: "apollo", Type: "leads"}, {SourceID: "apollo", TargetID: "go", Type: "uses"},
		{SourceID: "rob", TargetID: "go", Type: "wrote"}} {
		require.NoError(t, g.AddRelation(ctx, r))
	}
	return s, g
}

// TestRetrievePerCallOptions: per-call options change that call only, and
// give what a retriever built with the same settings gives.
func TestRetrievePerCallOptions(t *testing.T) {
	ctx := context.Background()
	s, g := callFixture(t)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	ids := func(res kgmem.RetrievalResult) []string { return itemIDs(res.Items) }
	for _, tc := range []struct {
		name  string
		call  []kgmem.RetrieverOption
		built kgmem.RetrieverConfig
		opts  []kgmem.RetrieverOption
	}{
		{"max results", []kgmem.RetrieverOption{kgmem.WithMaxResults(3)}, kgmem.RetrieverConfig{MaxResults: 3}, nil},
		{"strategy", []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly)}, kgmem.RetrieverConfig{}, []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly)}},
		{"depth", []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithDepth(1)}, kgmem.RetrieverConfig{},
			[]kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithExpansion(kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both})}},
		{"no expansion", []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithNoExpansion()}, kgmem.RetrieverConfig{NoExpansion: true},
			[]kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly)}},
		{"relation types", []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithRelationTypes("uses")}, kgmem.RetrieverConfig{},
			[]kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithExpansion(kgmem.TraverseOptions{Depth: kgmem.DefaultWalkHops, Direction: kgmem.Both, RelationTypes: []string{"uses"}})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const q = "what does Apollo use?"
			before, err := r.Retrieve(ctx, q)
			require.NoError(t, err)
			got, err := r.Retrieve(ctx, q, tc.call...)
			require.NoError(t, err)
			want, err := kgmem.NewMemoryRetriever(s, tc.built, append([]kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)}, tc.opts...)...).Retrieve(ctx, q)
			require.NoError(t, err)
			require.Equal(t, ids(want), ids(got))
			require.Equal(t, want.Strategy, got.Strategy)
			after, err := r.Retrieve(ctx, q)
			require.NoError(t, err)
			require.Equal(t, ids(before), ids(after), "the retriever's own settings are unchanged")
		})
	}
	t.Run("no expansion returns the named entity alone", func(t *testing.T) {
		res, err := r.Retrieve(ctx, "what does Apollo use?", kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithNoExpansion())
		require.NoError(t, err)
		require.Equal(t, []string{"apollo"}, ids(res))
	})
	t.Run("max results, then none", func(t *testing.T) {
		res, err := r.Retrieve(ctx, "Apollo notes", kgmem.WithMaxResults(3))
		require.NoError(t, err)
		require.Len(t, res.Items, 3)
		res, err = r.Retrieve(ctx, "Apollo notes")
		require.NoError(t, err)
		require.Len(t, res.Items, 10)
	})
}

// TestRetrievePerCallOptionErrors: options that configure sources, nil
// options and invalid settings fail the call, not the retriever.
func TestRetrievePerCallOptionErrors(t *testing.T) {
	ctx := context.Background()
	s, g := callFixture(t)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	for _, tc := range []struct {
		name string
		opt  kgmem.RetrieverOption
		msg  string
	}{
		{"a graph", kgmem.WithKnowledgeGraph(g), "WithNamedKnowledgeGraph configures NewMemoryRetriever, not one call"},
		{"a store", kgmem.WithKnowledgeStore("more", s), "WithKnowledgeStore configures NewMemoryRetriever, not one call"},
		{"an embedder", kgmem.WithLinkEmbedder(nil, 0.5), "WithLinkEmbedder configures NewMemoryRetriever, not one call"},
		{"nil", nil, "option 0 is nil"},
		{"negative max results", kgmem.WithMaxResults(-1), "negative MaxResults -1"},
		{"negative depth", kgmem.WithDepth(-2), "expansion"},
		{"unknown strategy", kgmem.WithStrategy(kgmem.GraphOnly + 1), "unknown strategy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Retrieve(ctx, "Apollo", tc.opt)
			require.True(t, errors.Is(err, kgmem.ErrInvalidArgument), "%v", err)
			require.ErrorContains(t, err, tc.msg)
			_, err = r.Retrieve(ctx, "Apollo")
			require.NoError(t, err, "the retriever still answers")
		})
	}
}
