package docmeta_test

import (
	"context"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetriever(t *testing.T) {
	ctx := context.Background()
	s := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "p", Content: "Ada works on Apollo."}))
	g := kgmem.NewInMemoryGraph()
	ready := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{})

	got, err := docmeta.Retriever("op", ready, nil, nil, kgmem.RetrieverConfig{})
	require.NoError(t, err)
	assert.Same(t, ready, got)

	for name, c := range map[string]struct {
		store kgmem.KnowledgeStore
		graph kgmem.KnowledgeGraph
		cfg   kgmem.RetrieverConfig
		want  string
	}{
		"store":      {store: s, want: `^op: Retriever is set, and so is \[Store\] `},
		"graph":      {graph: g, want: `^op: Retriever is set, and so is \[Graph\] `},
		"config":     {cfg: kgmem.RetrieverConfig{MaxResults: 3}, want: `^op: Retriever is set, and so is \[Config\] `},
		"vocabulary": {cfg: kgmem.RetrieverConfig{Vocabulary: kgmem.Vocabulary{Types: map[string][]string{}}}, want: `\[Config\]`},
	} {
		_, err := docmeta.Retriever("op", ready, c.store, c.graph, c.cfg)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
		assert.Regexp(t, c.want, err.Error(), name)
	}
	_, err = docmeta.Retriever("op", nil, nil, nil, kgmem.RetrieverConfig{})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	assert.Regexp(t, `^op: neither Retriever, Store nor Graph is set`, err.Error())

	// Built: over the store and the graph, with cfg and the options.
	built, err := docmeta.Retriever("op", nil, s, g, kgmem.RetrieverConfig{MaxResults: 1}, kgmem.WithStrategy(kgmem.KnowledgeOnly))
	require.NoError(t, err)
	res, err := built.Retrieve(ctx, "Apollo")
	require.NoError(t, err)
	assert.Equal(t, kgmem.KnowledgeOnly, res.Strategy)
	require.Len(t, res.Items, 1)
	assert.Equal(t, "p", res.Items[0].ID())
	res, err = built.Retrieve(ctx, "Apollo", kgmem.WithStrategy(kgmem.Hybrid))
	require.NoError(t, err)
	assert.Equal(t, kgmem.Hybrid, res.Strategy, "the graph is one of its sources")
}
