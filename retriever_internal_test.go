package kgmem

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOwnSources pins which sources a Retrieve without SourceTimeout runs
// on the calling goroutine: kgmem's own in-process stores and graphs, and
// not a store that calls the user's embedder or vector index, nor any
// type of the user's, even one that embeds kgmem's (its methods may
// block without looking at ctx).
func TestOwnSources(t *testing.T) {
	type wrappedStore struct{ *InMemoryKnowledgeStore }
	type wrappedGraph struct{ *InMemoryGraph }
	for _, c := range []struct {
		name string
		s    KnowledgeStore
		own  bool
	}{
		{"in-memory", NewInMemoryKnowledgeStore(), true},
		{"durable", &DurableKnowledgeStore{InMemoryKnowledgeStore: NewInMemoryKnowledgeStore()}, true},
		{"durable without its store", &DurableKnowledgeStore{}, false},
		{"nil durable", (*DurableKnowledgeStore)(nil), false},
		{"nil", (*InMemoryKnowledgeStore)(nil), false},
		{"embedder", NewInMemoryKnowledgeStore(WithEmbedder(hashTestEmbedder{dims: 4})), false},
		{"vector index, never used without an embedder", NewInMemoryKnowledgeStore(WithVectorIndex(func(int) VectorIndex { return nil })), true},
		{"embedder and vector index", NewInMemoryKnowledgeStore(WithEmbedder(hashTestEmbedder{dims: 4}), WithVectorIndex(func(int) VectorIndex { return nil })), false},
		{"the user's", wrappedStore{NewInMemoryKnowledgeStore()}, false},
	} {
		require.Equal(t, c.own, ownStore(c.s), c.name)
	}
	for _, c := range []struct {
		name string
		g    KnowledgeGraph
		own  bool
	}{
		{"in-memory", NewInMemoryGraph(), true},
		{"durable", &DurableGraph{InMemoryGraph: NewInMemoryGraph()}, true},
		{"durable without its graph", &DurableGraph{}, false},
		{"nil durable", (*DurableGraph)(nil), false},
		{"nil", (*InMemoryGraph)(nil), false},
		{"the user's", wrappedGraph{NewInMemoryGraph()}, false},
	} {
		require.Equal(t, c.own, ownGraph(c.g), c.name)
	}
}
