package kgmem_test

import (
	"context"
	"errors"
	"testing"
	"time"

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

// reverseReranker scores items by their position reversed, so that it
// visibly reorders what it is given.
type reverseReranker struct{}

func (reverseReranker) Rerank(_ context.Context, _ string, items []kgmem.RetrievalItem) ([]float64, error) {
	out := make([]float64, len(items))
	for i := range items {
		out[i] = float64(i+1) / float64(len(items)+1)
	}
	return out, nil
}

// TestRetrieverOptionsAreConfigFields: every setting option sets one field
// of RetrieverConfig, so a retriever built with the option answers as one
// built with the field; NewMemoryRetriever copies what the fields point
// to, and a bad value in a field fails as the option's does.
func TestRetrieverOptionsAreConfigFields(t *testing.T) {
	ctx := context.Background()
	s, g := callFixture(t)
	at := kgmem.At(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		name  string
		field kgmem.RetrieverConfig
		opts  []kgmem.RetrieverOption
	}{
		{"strategy", kgmem.RetrieverConfig{Strategy: kgmem.GraphOnly}, []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly)}},
		{"expansion", kgmem.RetrieverConfig{Strategy: kgmem.GraphOnly, Expansion: &kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Outgoing}},
			[]kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithExpansion(kgmem.TraverseOptions{Depth: 1})}},
		{"depth", kgmem.RetrieverConfig{Strategy: kgmem.GraphOnly, Expansion: &kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both}},
			[]kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithDepth(1)}},
		{"relation types", kgmem.RetrieverConfig{Strategy: kgmem.GraphOnly, Expansion: &kgmem.TraverseOptions{Depth: kgmem.DefaultWalkHops, Direction: kgmem.Both, RelationTypes: []string{"uses"}}},
			[]kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithRelationTypes("uses")}},
		{"as of", kgmem.RetrieverConfig{Strategy: kgmem.GraphOnly, AsOf: &at}, []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithAsOf(at)}},
		{"reranker", kgmem.RetrieverConfig{Reranker: reverseReranker{}, RerankTopN: 4}, []kgmem.RetrieverOption{kgmem.WithReranker(reverseReranker{}, 4)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range []string{"what does Apollo use?", "Apollo notes", "who leads Apollo"} {
				want, err := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, append([]kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)}, tc.opts...)...).Retrieve(ctx, q)
				require.NoError(t, err)
				got, err := kgmem.NewMemoryRetriever(s, tc.field, kgmem.WithKnowledgeGraph(g)).Retrieve(ctx, q)
				require.NoError(t, err)
				require.Equal(t, itemIDs(want.Items), itemIDs(got.Items), q)
				require.Equal(t, want.Strategy, got.Strategy, q)
				require.Equal(t, want.Stats.Reranked, got.Stats.Reranked, q)
			}
		})
	}

	t.Run("the expansion is copied", func(t *testing.T) {
		e := &kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both, RelationTypes: []string{"uses"}}
		r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Strategy: kgmem.GraphOnly, Expansion: e}, kgmem.WithKnowledgeGraph(g))
		before, err := r.Retrieve(ctx, "what does Apollo use?")
		require.NoError(t, err)
		e.Depth, e.RelationTypes[0] = 3, "leads"
		after, err := r.Retrieve(ctx, "what does Apollo use?")
		require.NoError(t, err)
		require.Equal(t, itemIDs(before.Items), itemIDs(after.Items))
		require.Contains(t, itemIDs(after.Items), "go")
	})

	t.Run("bad fields", func(t *testing.T) {
		for _, cfg := range []kgmem.RetrieverConfig{
			{Strategy: kgmem.RetrievalStrategy(9)},
			{Expansion: &kgmem.TraverseOptions{Depth: -1}},
			{Expansion: &kgmem.TraverseOptions{RelationTypes: []string{" "}}},
			{AsOf: &kgmem.AsOf{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}, // outside the years valid time takes
			{RerankTopN: -1},
		} {
			_, err := kgmem.NewMemoryRetriever(s, cfg, kgmem.WithKnowledgeGraph(g)).Retrieve(ctx, "Apollo")
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument, "%+v", cfg)
		}
	})
}
