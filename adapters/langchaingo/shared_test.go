package kgmemlangchain_test

import (
	"context"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/adapters/internal/adaptertest"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	kgmemlangchain "github.com/kgmem/kgmem/adapters/langchaingo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/schema"
)

// The Meta* constants are the keys every kgmem adapter uses.
func TestMetaKeys(t *testing.T) {
	assert.Equal(t, docmeta.Keys(), []string{
		kgmemlangchain.MetaID, kgmemlangchain.MetaKind, kgmemlangchain.MetaScore, kgmemlangchain.MetaExplanation, kgmemlangchain.MetaPath,
		kgmemlangchain.MetaRelations, kgmemlangchain.MetaTitle, kgmemlangchain.MetaEntityType, kgmemlangchain.MetaEntityName,
		kgmemlangchain.MetaSource, kgmemlangchain.MetaPageMetadata, kgmemlangchain.MetaAsOf, kgmemlangchain.MetaAsOfCue,
	})
}

// A document carries the shared mapping's content, score and metadata.
func TestDocumentIsTheSharedMapping(t *testing.T) {
	for i, it := range docmeta.Examples() {
		want, ok := docmeta.FromItem(it)
		d, got := kgmemlangchain.Document(it)
		require.Equal(t, ok, got, "item %d", i)
		if !ok {
			assert.Equal(t, schema.Document{}, d, "item %d", i)
			continue
		}
		assert.Equal(t, schema.Document{PageContent: want.Content, Score: float32(want.Score), Metadata: want.Meta}, d, "item %d", i)
	}
}

// A Retriever over a ready kgmem retriever, its Options applied to each
// call, returns the same documents as one built with the same options.
func TestRetrieverOverReadyRetriever(t *testing.T) {
	mem := openMemory(t)
	ctx := context.Background()
	for name, opts := range map[string][]kgmem.RetrieverOption{
		"default":        nil,
		"max results":    {kgmem.WithMaxResults(2)},
		"graph only":     {kgmem.WithStrategy(kgmem.GraphOnly)},
		"knowledge only": {kgmem.WithStrategy(kgmem.KnowledgeOnly)},
		"depth 1":        {kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithDepth(1)},
		"no expansion":   {kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithNoExpansion()},
		"relation types": {kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithRelationTypes("part_of")},
	} {
		built, err := kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph(), Options: opts})
		require.NoError(t, err, name)
		ready, err := kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Retriever: mem.Retriever(), Options: opts})
		require.NoError(t, err, name)
		want, err := built.GetRelevantDocuments(ctx, question)
		require.NoError(t, err, name)
		require.NotEmpty(t, want, name)
		got, err := ready.GetRelevantDocuments(ctx, question)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
}

func TestRetrieverConfigConflicts(t *testing.T) {
	mem := openMemory(t)
	for name, cfg := range map[string]kgmemlangchain.RetrieverConfig{
		"retriever and store":  {Retriever: mem.Retriever(), Store: mem.Store()},
		"retriever and graph":  {Retriever: mem.Retriever(), Graph: mem.Graph()},
		"retriever and config": {Retriever: mem.Retriever(), Config: kgmem.RetrieverConfig{MaxResults: 3}},
		"nothing":              {},
	} {
		_, err := kgmemlangchain.NewRetriever(cfg)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
		assert.Regexp(t, `^kgmemlangchain: new retriever: `, err.Error(), name)
	}
	// A ready retriever's sources are its own: an option that adds one
	// fails the call.
	r, err := kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Retriever: mem.Retriever(),
		Options: []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(mem.Graph())}})
	require.NoError(t, err)
	_, err = r.GetRelevantDocuments(context.Background(), question)
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	assert.Regexp(t, `^kgmemlangchain: retrieve: .*WithNamedKnowledgeGraph configures NewMemoryRetriever`, err.Error())
}

// With a memory's retriever, a question that names no entity is linked by
// meaning with the memory's embedder, and the entity vectors are embedded
// once, not on every call; a retriever built over the memory's store and
// graph does not link by meaning.
func TestRetrieverUsesMemoryLinkEmbedder(t *testing.T) {
	ctx := context.Background()
	mem, emb := adaptertest.Memory(t)
	require.Equal(t, adaptertest.Embedded(0), emb.EntityTexts(mem))
	opts := []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly)}

	built, err := kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph(), Options: opts})
	require.NoError(t, err)
	_, err = built.GetRelevantDocuments(ctx, "who is the engineer")
	require.NoError(t, err)
	assert.Equal(t, adaptertest.Embedded(0), emb.EntityTexts(mem), "a built retriever has no link embedder")

	ready, err := kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Retriever: mem.Retriever(), Options: opts})
	require.NoError(t, err)
	for call := 1; call <= 3; call++ {
		_, err = ready.GetRelevantDocuments(ctx, "who is the engineer")
		require.NoError(t, err)
		assert.Equal(t, adaptertest.Embedded(1), emb.EntityTexts(mem), "call %d", call)
	}
}

// A Memory whose retrieval settings are only MaxResults and NoExpansion
// answers with the memory's own retriever (linking by meaning, the entity
// vectors embedded once); other settings build a retriever of their own.
func TestMemoryUsesMemoryRetriever(t *testing.T) {
	ctx := context.Background()
	const q = question // names 张三: the context block is not empty
	own := func(opts ...kgmem.RetrieverOption) func(*kgmem.Memory) (kgmem.RetrievalResult, error) {
		return func(mem *kgmem.Memory) (kgmem.RetrievalResult, error) {
			return mem.Retriever().Retrieve(ctx, q, opts...)
		}
	}
	for name, c := range map[string]struct {
		cfg      kgmem.RetrieverConfig
		same     func(*kgmem.Memory) (kgmem.RetrievalResult, error) // the same retrieval, made directly
		embedded map[string]int
	}{
		"default":      {kgmem.RetrieverConfig{}, own(), adaptertest.Embedded(1)},
		"max results":  {kgmem.RetrieverConfig{MaxResults: 1}, own(kgmem.WithMaxResults(1)), adaptertest.Embedded(1)},
		"no expansion": {kgmem.RetrieverConfig{NoExpansion: true}, own(kgmem.WithNoExpansion()), adaptertest.Embedded(1)},
		"a setting of its own": {kgmem.RetrieverConfig{MaxResults: 3, Fusion: kgmem.FusionRRF}, func(mem *kgmem.Memory) (kgmem.RetrievalResult, error) {
			return kgmem.NewMemoryRetriever(mem.Store(), kgmem.RetrieverConfig{MaxResults: 3, Fusion: kgmem.FusionRRF}, kgmem.WithKnowledgeGraph(mem.Graph())).Retrieve(ctx, q)
		}, adaptertest.Embedded(0)},
	} {
		mem, emb := adaptertest.Memory(t)
		m, err := kgmemlangchain.NewMemory(mem, kgmemlangchain.MemoryConfig{Retriever: c.cfg, NoSave: true})
		require.NoError(t, err, name)
		for call := 1; call <= 2; call++ {
			// A question that names no entity: linked by meaning, if at all.
			_, err := m.LoadMemoryVariables(ctx, map[string]any{"input": "who is the engineer"})
			require.NoError(t, err, name)
			assert.Equal(t, c.embedded, emb.EntityTexts(mem), "%s, call %d", name, call)
			vars, err := m.LoadMemoryVariables(ctx, map[string]any{"input": q})
			require.NoError(t, err, name)
			want, err := c.same(mem)
			require.NoError(t, err, name)
			require.NotEmpty(t, want.Items, name)
			assert.Equal(t, map[string]any{"history": want.ContextBlock(0)}, vars, name)
		}
	}
}
