package kgmemgenkit_test

import (
	"context"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/kgmem/kgmem"
	kgmemgenkit "github.com/kgmem/kgmem/adapters/genkit"
	"github.com/kgmem/kgmem/adapters/internal/adaptertest"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Meta* constants are the keys every kgmem adapter uses.
func TestMetaKeys(t *testing.T) {
	assert.Equal(t, docmeta.Keys(), []string{
		kgmemgenkit.MetaID, kgmemgenkit.MetaKind, kgmemgenkit.MetaScore, kgmemgenkit.MetaExplanation, kgmemgenkit.MetaPath,
		kgmemgenkit.MetaRelations, kgmemgenkit.MetaTitle, kgmemgenkit.MetaEntityType, kgmemgenkit.MetaEntityName,
		kgmemgenkit.MetaSource, kgmemgenkit.MetaPageMetadata, kgmemgenkit.MetaAsOf, kgmemgenkit.MetaAsOfCue,
	})
}

// A document carries the shared mapping's content and metadata, the ID
// and the score among them.
func TestDocumentIsTheSharedMapping(t *testing.T) {
	for i, it := range docmeta.Examples() {
		want, ok := docmeta.FromItem(it)
		d := kgmemgenkit.Document(it)
		if !ok {
			assert.Nil(t, d, "item %d", i)
			continue
		}
		require.NotNil(t, d, "item %d", i)
		assert.Equal(t, ai.DocumentFromText(want.Content, want.Meta), d, "item %d", i)
		assert.Equal(t, want.ID, d.Metadata[kgmemgenkit.MetaID], "item %d", i)
		assert.Equal(t, want.Score, d.Metadata[kgmemgenkit.MetaScore], "item %d", i)
	}
}

// A retriever over a ready kgmem retriever returns the same documents as
// one built over the same store and graph, for every option.
func TestRetrieverOverReadyRetriever(t *testing.T) {
	mem := openMemory(t)
	ctx := context.Background()
	built, err := kgmemgenkit.Func(kgmemgenkit.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	require.NoError(t, err)
	ready, err := kgmemgenkit.Func(kgmemgenkit.RetrieverConfig{Retriever: mem.Retriever()})
	require.NoError(t, err)
	for name, opts := range map[string]any{
		"nil":            nil,
		"k":              kgmemgenkit.Options{K: 2},
		"graph":          kgmemgenkit.Options{Strategy: "graph"},
		"knowledge":      kgmemgenkit.Options{Strategy: "knowledge"},
		"depth 1":        kgmemgenkit.Options{Strategy: "graph", Depth: 1},
		"no expansion":   kgmemgenkit.Options{Strategy: "graph", NoExpansion: true},
		"relation types": kgmemgenkit.Options{Strategy: "graph", RelationTypes: []string{"part_of"}},
		"threshold":      kgmemgenkit.Options{ScoreThreshold: 0.5},
	} {
		req := &ai.RetrieverRequest{Query: ai.DocumentFromText(question, nil), Options: opts}
		want, err := built(ctx, req)
		require.NoError(t, err, name)
		require.NotEmpty(t, want.Documents, name)
		got, err := ready(ctx, req)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	// Registered, too.
	g := genkit.Init(ctx)
	_, err = kgmemgenkit.DefineRetriever(g, "kgmem/test", kgmemgenkit.RetrieverConfig{Retriever: mem.Retriever()})
	require.NoError(t, err)
	docs, err := retrieve(t, g, kgmemgenkit.Options{K: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"chat-42"}, ids(docs))
}

// The configuration's Strategy applies to a ready retriever's requests; a
// zero Strategy keeps the retriever's own, and a request's overrides both.
func TestRetrieverReadyStrategy(t *testing.T) {
	mem := openMemory(t)
	ctx := context.Background()
	graphOnly := kgmem.NewMemoryRetriever(mem.Store(), kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(mem.Graph()), kgmem.WithStrategy(kgmem.GraphOnly))
	kinds := func(cfg kgmemgenkit.RetrieverConfig, opts any) []string {
		fn, err := kgmemgenkit.Func(cfg)
		require.NoError(t, err)
		resp, err := fn(ctx, &ai.RetrieverRequest{Query: ai.DocumentFromText(question, nil), Options: opts})
		require.NoError(t, err)
		var out []string
		for _, d := range resp.Documents {
			out = append(out, d.Metadata[kgmemgenkit.MetaKind].(string))
		}
		return out
	}
	assert.Equal(t, []string{"entity", "entity", "entity"}, kinds(kgmemgenkit.RetrieverConfig{Retriever: graphOnly}, nil))
	assert.Equal(t, []string{"page"}, kinds(kgmemgenkit.RetrieverConfig{Retriever: graphOnly, Strategy: kgmem.KnowledgeOnly}, nil))
	assert.Equal(t, []string{"page"}, kinds(kgmemgenkit.RetrieverConfig{Retriever: graphOnly}, kgmemgenkit.Options{Strategy: "knowledge"}))
	assert.Equal(t, []string{"entity", "entity"}, kinds(kgmemgenkit.RetrieverConfig{Retriever: graphOnly,
		Expansion: &kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both}}, nil))
}

func TestRetrieverConfigConflicts(t *testing.T) {
	mem := openMemory(t)
	for name, cfg := range map[string]kgmemgenkit.RetrieverConfig{
		"retriever and store":  {Retriever: mem.Retriever(), Store: mem.Store()},
		"retriever and graph":  {Retriever: mem.Retriever(), Graph: mem.Graph()},
		"retriever and config": {Retriever: mem.Retriever(), Config: kgmem.RetrieverConfig{MaxResults: 3}},
		"nothing":              {},
	} {
		_, err := kgmemgenkit.Func(cfg)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
		assert.Regexp(t, `^kgmemgenkit: new retriever: `, err.Error(), name)
	}
}

// With a memory's retriever, a question that names no entity is linked by
// meaning with the memory's embedder, and the entity vectors are embedded
// once, not on every request; a retriever built over the memory's store
// and graph does not link by meaning.
func TestRetrieverUsesMemoryLinkEmbedder(t *testing.T) {
	ctx := context.Background()
	mem, emb := adaptertest.Memory(t)
	none, once := adaptertest.Embedded(0), adaptertest.Embedded(1)
	require.Equal(t, none, emb.EntityTexts(mem))
	req := &ai.RetrieverRequest{Query: ai.DocumentFromText("who is the engineer", nil), Options: kgmemgenkit.Options{K: 5, Strategy: "graph"}}

	built, err := kgmemgenkit.Func(kgmemgenkit.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	require.NoError(t, err)
	_, err = built(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, none, emb.EntityTexts(mem), "a built retriever has no link embedder")

	ready, err := kgmemgenkit.Func(kgmemgenkit.RetrieverConfig{Retriever: mem.Retriever()})
	require.NoError(t, err)
	for call := 1; call <= 3; call++ {
		_, err = ready(ctx, req)
		require.NoError(t, err)
		assert.Equal(t, once, emb.EntityTexts(mem), "request %d", call)
	}
}
