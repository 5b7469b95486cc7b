package kgmemeino_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cloudwego/eino/components/embedding"
	"github.com/cloudwego/eino/components/indexer"
	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/schema"
	"github.com/kgmem/kgmem"
	kgmemeino "github.com/kgmem/kgmem/adapters/eino"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Compile-time checks against Eino's own interfaces.
var (
	_ retriever.Retriever = (*kgmemeino.Retriever)(nil)
	_ indexer.Indexer     = (*kgmemeino.Indexer)(nil)
	_ kgmem.Embedder      = (*kgmemeino.Embedder)(nil)
)

// memory returns a memory holding the README's meeting: 张三 works on
// 项目A, which is part of 基础架构部.
func memory(t *testing.T) *kgmem.Memory {
	t.Helper()
	mem, err := kgmem.OpenMemory(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	_, err = mem.Ingest(context.Background(),
		kgmem.KnowledgePage{ID: "chat-42", Title: "周会", Content: "张三负责项目A，项目A隶属基础架构部。", Metadata: map[string]string{"lang": "zh"}},
		kgmem.Extraction{
			Entities: []kgmem.ExtractedEntity{
				{Name: "张三", Type: "person", Description: "工程师"}, {Name: "项目A", Type: "project"}, {Name: "基础架构部", Type: "team"},
			},
			Relations: []kgmem.ExtractedRelation{
				{Source: "张三", Target: "项目A", Type: "works_on"},
				{Source: "项目A", Target: "基础架构部", Type: "part_of"},
			},
		})
	require.NoError(t, err)
	return mem
}

func newRetriever(t *testing.T, mem *kgmem.Memory) *kgmemeino.Retriever {
	t.Helper()
	r, err := kgmemeino.NewRetriever(kgmemeino.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	require.NoError(t, err)
	return r
}

type docView struct {
	ID, Kind string
	Score    float64
}

func views(docs []*schema.Document) []docView {
	out := make([]docView, len(docs))
	for i, d := range docs {
		out[i] = docView{d.ID, d.MetaData[kgmemeino.MetaKind].(string), math.Round(d.Score()*100) / 100}
	}
	return out
}

// The adapter returns exactly what kgmem's retriever returns for the same
// settings, item for item.
func TestRetrieverMatchesKgmem(t *testing.T) {
	mem := memory(t)
	ctx := context.Background()
	const q = "张三负责什么项目？"
	want, err := mem.Retriever().Retrieve(ctx, q)
	require.NoError(t, err)
	docs, err := newRetriever(t, mem).Retrieve(ctx, q)
	require.NoError(t, err)
	require.Len(t, docs, len(want.Items))
	for i, it := range want.Items {
		assert.Equal(t, kgmemeino.Document(it), docs[i], "item %d", i)
		assert.Equal(t, it.Score, docs[i].Score())
	}
}

func TestRetrieverOptions(t *testing.T) {
	mem := memory(t)
	r := newRetriever(t, mem)
	ctx := context.Background()
	const q = "张三负责什么项目？"
	graphOnly := kgmem.WithStrategy(kgmem.GraphOnly)
	expansion := func(depth int, types ...string) kgmem.RetrieverOption {
		return kgmem.WithExpansion(kgmem.TraverseOptions{Depth: depth, Direction: kgmem.Both, RelationTypes: types})
	}
	tests := []struct {
		name string
		opts []retriever.Option
		want []docView
		// the same call made to kgmem directly
		cfg   kgmem.RetrieverConfig
		kopts []kgmem.RetrieverOption
	}{
		{"default", nil, []docView{
			{"chat-42", "page", 0.63}, {"project:项目a", "entity", 0.6}, {"person:张三", "entity", 0.42}, {"team:基础架构部", "entity", 0.12}}, kgmem.RetrieverConfig{}, nil},
		{"top k", []retriever.Option{retriever.WithTopK(2)}, []docView{
			{"chat-42", "page", 0.63}, {"project:项目a", "entity", 0.6}}, kgmem.RetrieverConfig{MaxResults: 2}, nil},
		{"threshold", []retriever.Option{retriever.WithScoreThreshold(0.5)}, []docView{
			{"chat-42", "page", 0.63}, {"project:项目a", "entity", 0.6}}, kgmem.RetrieverConfig{MaxResults: 2}, nil},
		{"graph only", []retriever.Option{kgmemeino.WithStrategy(kgmem.GraphOnly)}, []docView{
			{"project:项目a", "entity", 0.85}, {"person:张三", "entity", 0.6}, {"team:基础架构部", "entity", 0.17}}, kgmem.RetrieverConfig{}, []kgmem.RetrieverOption{graphOnly}},
		{"knowledge only", []retriever.Option{kgmemeino.WithStrategy(kgmem.KnowledgeOnly)}, []docView{
			{"chat-42", "page", 0.5}}, kgmem.RetrieverConfig{}, []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.KnowledgeOnly)}},
		{"depth 1", []retriever.Option{kgmemeino.WithStrategy(kgmem.GraphOnly), kgmemeino.WithDepth(1)}, []docView{
			{"project:项目a", "entity", 0.85}, {"person:张三", "entity", 0.6}}, kgmem.RetrieverConfig{}, []kgmem.RetrieverOption{graphOnly, expansion(1)}},
		{"no expansion", []retriever.Option{kgmemeino.WithStrategy(kgmem.GraphOnly), kgmemeino.WithNoExpansion()}, []docView{
			{"person:张三", "entity", 0.6}}, kgmem.RetrieverConfig{NoExpansion: true}, []kgmem.RetrieverOption{graphOnly}},
		{"relation types", []retriever.Option{kgmemeino.WithStrategy(kgmem.GraphOnly), kgmemeino.WithRelationTypes("part_of")}, []docView{
			{"person:张三", "entity", 0.6}}, kgmem.RetrieverConfig{}, []kgmem.RetrieverOption{graphOnly, expansion(kgmem.DefaultWalkHops, "part_of")}},
		{"ignored common options", []retriever.Option{retriever.WithIndex("x"), retriever.WithSubIndex("y"), retriever.WithTopK(1)}, []docView{
			{"chat-42", "page", 0.63}}, kgmem.RetrieverConfig{MaxResults: 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := r.Retrieve(ctx, q, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, views(docs))
			kopts := append([]kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(mem.Graph())}, tt.kopts...)
			res, err := kgmem.NewMemoryRetriever(mem.Store(), tt.cfg, kopts...).Retrieve(ctx, q)
			require.NoError(t, err)
			want := make([]*schema.Document, len(res.Items))
			for i, it := range res.Items {
				want[i] = kgmemeino.Document(it)
			}
			assert.Equal(t, want, docs)
		})
	}
}

func TestDocumentFields(t *testing.T) {
	mem := memory(t)
	docs, err := newRetriever(t, mem).Retrieve(context.Background(), "张三负责什么项目？")
	require.NoError(t, err)
	page, ent := docs[0], docs[1]
	assert.Equal(t, "张三负责项目A，项目A隶属基础架构部。", page.Content)
	assert.Equal(t, map[string]any{
		kgmemeino.MetaID:           "chat-42",
		kgmemeino.MetaKind:         "page",
		kgmemeino.MetaScore:        page.Score(),
		kgmemeino.MetaExplanation:  `张三 —works_on→ 项目A —mentioned_in→ 周会 (works_on ← "负责")`,
		kgmemeino.MetaPath:         []string{"person:张三", "project:项目a"},
		kgmemeino.MetaRelations:    []string{"works_on"},
		kgmemeino.MetaTitle:        "周会",
		kgmemeino.MetaSource:       "store",
		kgmemeino.MetaPageMetadata: map[string]string{"lang": "zh"},
		"_score":                   page.Score(),
	}, page.MetaData)
	assert.Equal(t, `张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")`, ent.Content)
	assert.Equal(t, "project", ent.MetaData[kgmemeino.MetaEntityType])
	assert.Equal(t, "项目A", ent.MetaData[kgmemeino.MetaEntityName])

	// An entity's description follows its explanation.
	docs, err = newRetriever(t, mem).Retrieve(context.Background(), "张三", kgmemeino.WithNoExpansion(), kgmemeino.WithStrategy(kgmem.GraphOnly))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	assert.Equal(t, "张三\n工程师", docs[0].Content)

	assert.Nil(t, kgmemeino.Document(kgmem.RetrievalItem{Kind: kgmem.ItemEntity}))
}

func TestRetrieverErrors(t *testing.T) {
	mem := memory(t)
	r := newRetriever(t, mem)
	ctx := context.Background()
	_, err := kgmemeino.NewRetriever(kgmemeino.RetrieverConfig{})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	for name, opts := range map[string][]retriever.Option{
		"negative top k":     {retriever.WithTopK(-1)},
		"NaN threshold":      {retriever.WithScoreThreshold(math.NaN())},
		"infinite threshold": {retriever.WithScoreThreshold(math.Inf(1))},
		"negative depth":     {kgmemeino.WithDepth(-1)},
		"unknown strategy":   {kgmemeino.WithStrategy(kgmem.RetrievalStrategy(9))},
	} {
		_, err := r.Retrieve(ctx, "张三", opts...)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
		assert.Regexp(t, `^kgmemeino: retrieve: `, err.Error(), name)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = r.Retrieve(cctx, "张三")
	assert.ErrorIs(t, err, context.Canceled)
}

// The configuration is copied: changing the caller's Expansion later
// changes nothing.
func TestRetrieverCopiesExpansion(t *testing.T) {
	mem := memory(t)
	exp := kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both, RelationTypes: []string{"works_on"}}
	r, err := kgmemeino.NewRetriever(kgmemeino.RetrieverConfig{Graph: mem.Graph(), Expansion: &exp, Strategy: kgmem.GraphOnly})
	require.NoError(t, err)
	exp.Depth = 3
	exp.RelationTypes[0] = "part_of"
	docs, err := r.Retrieve(context.Background(), "张三")
	require.NoError(t, err)
	assert.Equal(t, []docView{{"person:张三", "entity", 0.6}, {"project:项目a", "entity", 0.4}}, views(docs))
}

func TestIndexer(t *testing.T) {
	ctx := context.Background()
	mem, err := kgmem.OpenMemory(t.TempDir())
	require.NoError(t, err)
	defer mem.Close()
	calls := 0
	ix, err := kgmemeino.NewIndexer(mem, func(_ context.Context, d *schema.Document) (kgmem.Extraction, error) {
		calls++
		if d.ID == "bad" {
			return kgmem.Extraction{}, errors.New("model offline")
		}
		return kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Alice", Type: "person"}}}, nil
	})
	require.NoError(t, err)

	ids, err := ix.Store(ctx, []*schema.Document{
		{ID: "a", Content: "Alice wrote this.", MetaData: map[string]any{"title": "A", "lang": "en", "n": 3}},
		{ID: "b", Content: "More."},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, ids)
	p, ok, err := mem.Store().Get(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, kgmem.KnowledgePage{ID: "a", Title: "A", Content: "Alice wrote this.", Metadata: map[string]string{"lang": "en"}}, p)
	e, ok, err := mem.Graph().GetEntity(ctx, "person:alice")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []string{"a", "b"}, e.SourceIDs)

	// Invalid batches write nothing.
	for name, docs := range map[string][]*schema.Document{
		"nil":       {{ID: "c"}, nil},
		"blank ID":  {{ID: "c"}, {ID: " "}},
		"duplicate": {{ID: "c"}, {ID: "c"}},
	} {
		before := calls
		ids, err := ix.Store(ctx, docs)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
		assert.Nil(t, ids, name)
		assert.Equal(t, before, calls, name)
		_, ok, _ := mem.Store().Get(ctx, "c")
		assert.False(t, ok, name)
	}

	// A failed extraction stops the batch; earlier writes stay.
	ids, err = ix.Store(ctx, []*schema.Document{{ID: "c", Content: "x"}, {ID: "bad", Content: "y"}, {ID: "d", Content: "z"}})
	assert.EqualError(t, err, `kgmemeino: extract from document "bad": model offline`)
	assert.Equal(t, []string{"c"}, ids)
	_, ok, _ = mem.Store().Get(ctx, "d")
	assert.False(t, ok)

	// Without an ExtractFunc, pages only; kgmem's validation comes through.
	ix, err = kgmemeino.NewIndexer(mem, nil)
	require.NoError(t, err)
	_, err = ix.Store(ctx, []*schema.Document{{ID: "e", Content: "\xff"}})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	assert.Regexp(t, `^kgmemeino: store document "e": `, err.Error())

	_, err = kgmemeino.NewIndexer(nil, nil)
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)

	// ExtractJSON reports kgmem's parse errors.
	ix, _ = kgmemeino.NewIndexer(mem, kgmemeino.ExtractJSON(func(context.Context, *schema.Document) ([]byte, error) {
		return []byte(`{"entities": 7}`), nil
	}))
	_, err = ix.Store(ctx, []*schema.Document{{ID: "f", Content: "x"}})
	var pe *kgmem.ParseError
	assert.ErrorAs(t, err, &pe)
}

// fakeEmbedder is an Eino embedding.Embedder returning canned vectors.
type fakeEmbedder struct {
	out [][]float64
	err error
}

func (f fakeEmbedder) EmbedStrings(_ context.Context, texts []string, _ ...embedding.Option) ([][]float64, error) {
	return f.out, f.err
}

func TestEmbedder(t *testing.T) {
	ctx := context.Background()
	model := kgmem.EmbeddingModel{Name: "fake", Dimensions: 2}
	e, err := kgmemeino.NewEmbedder(fakeEmbedder{out: [][]float64{{1, 0.5}, {-2, 0}}}, model)
	require.NoError(t, err)
	assert.Equal(t, model, e.Model())
	got, err := e.Embed(ctx, []string{"a", "b"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{1, 0.5}, {-2, 0}}, got)
	got, err = e.Embed(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, got)

	// kgmem checks the vectors where it uses them.
	pages := []kgmem.KnowledgePage{{ID: "a", Content: "a"}, {ID: "b", Content: "b"}}
	for name, out := range map[string][][]float64{
		"count":    {{1, 2}},
		"length":   {{1, 2}, {3}},
		"NaN":      {{1, 2}, {math.NaN(), 0}},
		"overflow": {{1, 2}, {1e300, 0}},
	} {
		e, _ := kgmemeino.NewEmbedder(fakeEmbedder{out: out}, model)
		err := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e)).PutBatch(ctx, pages)
		assert.ErrorIs(t, err, kgmem.ErrEmbedding, name)
	}
	boom := errors.New("boom")
	e, _ = kgmemeino.NewEmbedder(fakeEmbedder{err: boom}, model)
	_, err = e.Embed(ctx, []string{"a"})
	assert.ErrorIs(t, err, boom)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = e.Embed(cctx, []string{"a"})
	assert.ErrorIs(t, err, context.Canceled)

	for name, m := range map[string]kgmem.EmbeddingModel{
		"blank name": {Name: " ", Dimensions: 2}, "zero dims": {Name: "x"}, "negative dims": {Name: "x", Dimensions: -1},
		"too many dims": {Name: "x", Dimensions: 1<<16 + 1}, "invalid UTF-8": {Name: "\xff", Dimensions: 2},
	} {
		_, err := kgmemeino.NewEmbedder(fakeEmbedder{}, m)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
	}
	_, err = kgmemeino.NewEmbedder(nil, model)
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}
