package kgmemeino_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/kgmem/kgmem"
	kgmemeino "github.com/kgmem/kgmem/adapters/eino"
	"github.com/kgmem/kgmem/adapters/internal/adaptertest"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Meta* constants are the keys every kgmem adapter uses.
func TestMetaKeys(t *testing.T) {
	assert.Equal(t, docmeta.Keys(), []string{
		kgmemeino.MetaID, kgmemeino.MetaKind, kgmemeino.MetaScore, kgmemeino.MetaExplanation, kgmemeino.MetaPath,
		kgmemeino.MetaRelations, kgmemeino.MetaTitle, kgmemeino.MetaEntityType, kgmemeino.MetaEntityName,
		kgmemeino.MetaSource, kgmemeino.MetaPageMetadata, kgmemeino.MetaAsOf, kgmemeino.MetaAsOfCue,
	})
}

// A document carries the shared mapping's ID, content, score and metadata
// (and Eino's own "_score", which Document.Score reads).
func TestDocumentIsTheSharedMapping(t *testing.T) {
	for i, it := range docmeta.Examples() {
		want, ok := docmeta.FromItem(it)
		d := kgmemeino.Document(it)
		if !ok {
			assert.Nil(t, d, "item %d", i)
			continue
		}
		require.NotNil(t, d, "item %d", i)
		assert.Equal(t, want.ID, d.ID, "item %d", i)
		assert.Equal(t, want.Content, d.Content, "item %d", i)
		assert.Equal(t, want.Score, d.Score(), "item %d", i)
		meta := map[string]any{}
		for k, v := range d.MetaData {
			if k != "_score" {
				meta[k] = v
			}
		}
		assert.Equal(t, want.Meta, meta, "item %d", i)
	}
}

// A Retriever over a ready kgmem retriever returns the same documents as
// one built over the same store and graph, for every option.
func TestRetrieverOverReadyRetriever(t *testing.T) {
	mem := memory(t)
	ctx := context.Background()
	built := newRetriever(t, mem)
	ready, err := kgmemeino.NewRetriever(kgmemeino.RetrieverConfig{Retriever: mem.Retriever()})
	require.NoError(t, err)
	for name, opts := range map[string][]retriever.Option{
		"default":        nil,
		"top k":          {retriever.WithTopK(2)},
		"threshold":      {retriever.WithScoreThreshold(0.5)},
		"graph only":     {kgmemeino.WithStrategy(kgmem.GraphOnly)},
		"knowledge only": {kgmemeino.WithStrategy(kgmem.KnowledgeOnly)},
		"depth 1":        {kgmemeino.WithStrategy(kgmem.GraphOnly), kgmemeino.WithDepth(1)},
		"no expansion":   {kgmemeino.WithStrategy(kgmem.GraphOnly), kgmemeino.WithNoExpansion()},
		"relation types": {kgmemeino.WithStrategy(kgmem.GraphOnly), kgmemeino.WithRelationTypes("part_of")},
	} {
		want, err := built.Retrieve(ctx, "张三负责什么项目？", opts...)
		require.NoError(t, err, name)
		require.NotEmpty(t, want, name)
		got, err := ready.Retrieve(ctx, "张三负责什么项目？", opts...)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
}

// The configuration's Strategy and Expansion apply to a ready retriever's
// calls, as the same kgmem per-call options do; a zero Strategy keeps the
// retriever's own.
func TestRetrieverReadyStrategy(t *testing.T) {
	mem := memory(t)
	ctx := context.Background()
	graphOnly := kgmem.NewMemoryRetriever(mem.Store(), kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(mem.Graph()), kgmem.WithStrategy(kgmem.GraphOnly))
	oneHop := kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both}
	for name, c := range map[string]struct {
		cfg   kgmemeino.RetrieverConfig
		kopts []kgmem.RetrieverOption // the same call made to kgmem directly
		kind  string                  // of every document
	}{
		"retriever's own":   {kgmemeino.RetrieverConfig{Retriever: graphOnly}, nil, "entity"},
		"configured":        {kgmemeino.RetrieverConfig{Retriever: graphOnly, Strategy: kgmem.KnowledgeOnly}, []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.KnowledgeOnly)}, "page"},
		"configured, 1 hop": {kgmemeino.RetrieverConfig{Retriever: graphOnly, Expansion: &oneHop}, []kgmem.RetrieverOption{kgmem.WithExpansion(oneHop)}, "entity"},
	} {
		r, err := kgmemeino.NewRetriever(c.cfg)
		require.NoError(t, err, name)
		docs, err := r.Retrieve(ctx, "张三")
		require.NoError(t, err, name)
		res, err := graphOnly.Retrieve(ctx, "张三", c.kopts...)
		require.NoError(t, err, name)
		require.NotEmpty(t, res.Items, name)
		want := make([]docView, len(res.Items))
		for i, it := range res.Items {
			want[i] = views([]*schema.Document{kgmemeino.Document(it)})[0]
			assert.Equal(t, c.kind, want[i].Kind, name)
		}
		assert.Equal(t, want, views(docs), name)
	}
	// One hop finds fewer entities than the default walk.
	all, err := graphOnly.Retrieve(ctx, "张三")
	require.NoError(t, err)
	short, err := graphOnly.Retrieve(ctx, "张三", kgmem.WithExpansion(oneHop))
	require.NoError(t, err)
	assert.Less(t, len(short.Items), len(all.Items))
}

func TestRetrieverConfigConflicts(t *testing.T) {
	mem := memory(t)
	for name, cfg := range map[string]kgmemeino.RetrieverConfig{
		"retriever and store":  {Retriever: mem.Retriever(), Store: mem.Store()},
		"retriever and graph":  {Retriever: mem.Retriever(), Graph: mem.Graph()},
		"retriever and config": {Retriever: mem.Retriever(), Config: kgmem.RetrieverConfig{MaxResults: 3}},
		"nothing":              {},
	} {
		_, err := kgmemeino.NewRetriever(cfg)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
		assert.Regexp(t, `^kgmemeino: new retriever: `, err.Error(), name)
	}
}

// With a memory's retriever, a question that names no entity is linked by
// meaning with the memory's embedder, and the entity vectors are embedded
// once, not on every call; a retriever built over the memory's store and
// graph does not link by meaning.
func TestRetrieverUsesMemoryLinkEmbedder(t *testing.T) {
	ctx := context.Background()
	mem, emb := adaptertest.Memory(t)
	none, once := adaptertest.Embedded(0), adaptertest.Embedded(1)
	require.Equal(t, none, emb.EntityTexts(mem))

	built, err := kgmemeino.NewRetriever(kgmemeino.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	require.NoError(t, err)
	_, err = built.Retrieve(ctx, "who is the engineer")
	require.NoError(t, err)
	assert.Equal(t, none, emb.EntityTexts(mem), "a built retriever has no link embedder")

	ready, err := kgmemeino.NewRetriever(kgmemeino.RetrieverConfig{Retriever: mem.Retriever()})
	require.NoError(t, err)
	for call := 1; call <= 3; call++ {
		_, err = ready.Retrieve(ctx, "who is the engineer", retriever.WithTopK(5), kgmemeino.WithStrategy(kgmem.GraphOnly))
		require.NoError(t, err)
		assert.Equal(t, once, emb.EntityTexts(mem), "call %d", call)
	}
}
