package kgmemlangchain_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	kgmemlangchain "github.com/kgmem/kgmem/adapters/langchaingo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"
)

// Compile-time checks against langchaingo's own interfaces.
var (
	_ schema.Retriever = (*kgmemlangchain.Retriever)(nil)
	_ schema.Memory    = (*kgmemlangchain.Memory)(nil)
	_ kgmem.Embedder   = (*kgmemlangchain.Embedder)(nil)
)

const question = "张三负责什么项目？"

func openMemory(t *testing.T) *kgmem.Memory {
	t.Helper()
	mem, err := kgmem.OpenMemory(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	_, err = mem.Ingest(context.Background(),
		kgmem.KnowledgePage{ID: "chat-42", Title: "周会", Content: "张三负责项目A，项目A隶属基础架构部。"},
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

func TestRetriever(t *testing.T) {
	mem := openMemory(t)
	ctx := context.Background()
	r, err := kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	require.NoError(t, err)
	docs, err := r.GetRelevantDocuments(ctx, question)
	require.NoError(t, err)
	want, err := mem.Retriever().Retrieve(ctx, question)
	require.NoError(t, err)
	require.Len(t, docs, len(want.Items))
	for i, it := range want.Items {
		d, ok := kgmemlangchain.Document(it)
		require.True(t, ok)
		assert.Equal(t, d, docs[i])
		assert.Equal(t, float32(it.Score), docs[i].Score)
	}
	assert.Equal(t, schema.Document{
		PageContent: "张三负责项目A，项目A隶属基础架构部。",
		Score:       docs[0].Score,
		Metadata: map[string]any{
			kgmemlangchain.MetaID: "chat-42", kgmemlangchain.MetaKind: "page", kgmemlangchain.MetaTitle: "周会",
			kgmemlangchain.MetaExplanation: `张三 —works_on→ 项目A —mentioned_in→ 周会 (works_on ← "负责")`,
			kgmemlangchain.MetaPath:        []string{"person:张三", "project:项目a"},
			kgmemlangchain.MetaRelations:   []string{"works_on"}, kgmemlangchain.MetaSource: "store",
			kgmemlangchain.MetaScore: want.Items[0].Score,
		},
	}, docs[0])
	assert.Equal(t, `张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")`, docs[1].PageContent)
	assert.Equal(t, "project", docs[1].Metadata[kgmemlangchain.MetaEntityType])

	// Options reach kgmem; the threshold drops low scores.
	r, err = kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Graph: mem.Graph(), Config: kgmem.RetrieverConfig{NoExpansion: true},
		Options: []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.GraphOnly)}})
	require.NoError(t, err)
	docs, err = r.GetRelevantDocuments(ctx, "张三")
	require.NoError(t, err)
	require.Len(t, docs, 1)
	assert.Equal(t, "张三\n工程师", docs[0].PageContent)
	r, _ = kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Graph: mem.Graph(), ScoreThreshold: 0.9})
	docs, err = r.GetRelevantDocuments(ctx, "张三")
	require.NoError(t, err)
	assert.Empty(t, docs)

	// Errors.
	for name, cfg := range map[string]kgmemlangchain.RetrieverConfig{
		"no source":     {},
		"threshold > 1": {Store: mem.Store(), ScoreThreshold: 1.5},
		"threshold NaN": {Store: mem.Store(), ScoreThreshold: math.NaN()},
		"threshold < 0": {Store: mem.Store(), ScoreThreshold: -0.1},
	} {
		_, err := kgmemlangchain.NewRetriever(cfg)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
	}
	r, _ = kgmemlangchain.NewRetriever(kgmemlangchain.RetrieverConfig{Store: mem.Store(), Config: kgmem.RetrieverConfig{MaxResults: -1}})
	_, err = r.GetRelevantDocuments(ctx, "x")
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	assert.Regexp(t, "^kgmemlangchain: retrieve: retriever config: negative MaxResults", err.Error())
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = r.GetRelevantDocuments(cctx, "x")
	assert.Error(t, err)
	_, ok := kgmemlangchain.Document(kgmem.RetrievalItem{Kind: kgmem.ItemPage})
	assert.False(t, ok)
}

// recordingLLM is an llms.Model that records the prompts it is given and
// answers with a canned text.
type recordingLLM struct {
	prompts []string
	answer  string
}

func (l *recordingLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tc, ok := p.(llms.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
	}
	l.prompts = append(l.prompts, b.String())
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: l.answer}}}, nil
}

func (l *recordingLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, l, prompt, opts...)
}

// In a real conversation chain, the prompt holds kgmem's context block for
// the question, and the turn is saved as a page with its extraction.
func TestMemoryInChain(t *testing.T) {
	mem := openMemory(t)
	ctx := context.Background()
	var extracted []string
	m, err := kgmemlangchain.NewMemory(mem, kgmemlangchain.MemoryConfig{
		Retriever: kgmem.RetrieverConfig{MaxResults: 2},
		Extract: func(_ context.Context, in, out string) (kgmem.Extraction, error) {
			extracted = append(extracted, in+" | "+out)
			return kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "李四", Type: "person"}}}, nil
		},
	})
	require.NoError(t, err)
	llm := &recordingLLM{answer: "项目A"}
	answer, err := chains.Run(ctx, chains.NewConversation(llm, m), question)
	require.NoError(t, err)
	assert.Equal(t, "项目A", answer)

	want, err := kgmem.NewMemoryRetriever(mem.Store(), kgmem.RetrieverConfig{MaxResults: 2}, kgmem.WithKnowledgeGraph(mem.Graph())).Retrieve(ctx, question)
	require.NoError(t, err)
	require.Len(t, llm.prompts, 1)
	assert.Contains(t, llm.prompts[0], want.ContextBlock(0))
	assert.Equal(t, []string{question + " | 项目A"}, extracted)

	page := kgmemlangchain.TurnPage(question, "项目A")
	got, ok, err := mem.Store().Get(ctx, page.ID)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, page, got)
	assert.Equal(t, "Human: "+question+"\nAI: 项目A", got.Content)
	e, ok, _ := mem.Graph().GetEntity(ctx, "person:李四")
	require.True(t, ok)
	assert.Equal(t, []string{page.ID}, e.SourceIDs)
	assert.Equal(t, page.ID, kgmemlangchain.TurnPage(question, "项目A").ID)
	assert.NotEqual(t, page.ID, kgmemlangchain.TurnPage(question+"项目", "A").ID)
}

func TestMemoryVariables(t *testing.T) {
	mem := openMemory(t)
	ctx := context.Background()
	m, err := kgmemlangchain.NewMemory(mem, kgmemlangchain.MemoryConfig{MemoryKey: "facts", InputKey: "question", OutputKey: "text", MaxChars: 60, NoSave: true})
	require.NoError(t, err)
	assert.Equal(t, "facts", m.GetMemoryKey(ctx))
	assert.Equal(t, []string{"facts"}, m.MemoryVariables(ctx))
	vars, err := m.LoadMemoryVariables(ctx, map[string]any{"question": question, "other": 1})
	require.NoError(t, err)
	res, _ := mem.Retriever().Retrieve(ctx, question)
	assert.Equal(t, map[string]any{"facts": res.ContextBlock(60)}, vars)
	vars, err = m.LoadMemoryVariables(ctx, map[string]any{"question": "nothing known"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"facts": ""}, vars)

	_, err = m.LoadMemoryVariables(ctx, map[string]any{"input": question})
	assert.ErrorIs(t, err, memory.ErrInvalidInputValues)
	_, err = m.LoadMemoryVariables(ctx, map[string]any{"question": 7})
	assert.ErrorIs(t, err, memory.ErrInvalidInputValues)

	// NoSave and Clear change nothing.
	before, _ := mem.Graph().Entities(ctx)
	require.NoError(t, m.SaveContext(ctx, map[string]any{"question": "q"}, map[string]any{"text": "a"}))
	require.NoError(t, m.Clear(ctx))
	after, _ := mem.Graph().Entities(ctx)
	assert.Equal(t, before, after)
	_, ok, _ := mem.Store().Get(ctx, kgmemlangchain.TurnPage("q", "a").ID)
	assert.False(t, ok)

	// Errors.
	_, err = kgmemlangchain.NewMemory(nil, kgmemlangchain.MemoryConfig{})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	_, err = kgmemlangchain.NewMemory(mem, kgmemlangchain.MemoryConfig{MaxChars: -1})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	m, _ = kgmemlangchain.NewMemory(mem, kgmemlangchain.MemoryConfig{Extract: func(context.Context, string, string) (kgmem.Extraction, error) {
		return kgmem.Extraction{}, errors.New("model offline")
	}})
	assert.EqualError(t, m.SaveContext(ctx, map[string]any{"input": "q"}, map[string]any{"text": "a"}), "kgmemlangchain: extract from turn: model offline")
	assert.ErrorIs(t, m.SaveContext(ctx, map[string]any{"a": "q", "b": "r"}, map[string]any{"text": "a"}), memory.ErrInvalidInputValues)
	assert.ErrorIs(t, m.SaveContext(ctx, map[string]any{"input": "q"}, map[string]any{}), memory.ErrInvalidInputValues)
	m, _ = kgmemlangchain.NewMemory(mem, kgmemlangchain.MemoryConfig{Retriever: kgmem.RetrieverConfig{MaxResults: -1}})
	_, err = m.LoadMemoryVariables(ctx, map[string]any{"input": "q"})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}

// fakeEmbedder is a langchaingo embeddings.Embedder with canned vectors.
type fakeEmbedder struct {
	out [][]float32
	err error
}

func (f fakeEmbedder) EmbedDocuments(context.Context, []string) ([][]float32, error) {
	return f.out, f.err
}
func (f fakeEmbedder) EmbedQuery(context.Context, string) ([]float32, error) { return nil, f.err }

var _ embeddings.Embedder = fakeEmbedder{}

func TestEmbedder(t *testing.T) {
	ctx := context.Background()
	model := kgmem.EmbeddingModel{Name: "fake", Dimensions: 2}
	src := [][]float32{{1, 0.5}, {-2, 0}}
	e, err := kgmemlangchain.NewEmbedder(fakeEmbedder{out: src}, model)
	require.NoError(t, err)
	assert.Equal(t, model, e.Model())
	got, err := e.Embed(ctx, []string{"a", "b"})
	require.NoError(t, err)
	assert.Equal(t, src, got)

	// kgmem checks the vectors where it uses them.
	pages := []kgmem.KnowledgePage{{ID: "a", Content: "a"}, {ID: "b", Content: "b"}}
	nan := float32(math.NaN())
	for name, out := range map[string][][]float32{
		"count":  {{1, 2}},
		"length": {{1, 2}, {3}},
		"NaN":    {{1, 2}, {nan, 0}},
		"Inf":    {{1, 2}, {float32(math.Inf(1)), 0}},
	} {
		e, _ := kgmemlangchain.NewEmbedder(fakeEmbedder{out: out}, model)
		err := kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e)).PutBatch(ctx, pages)
		assert.ErrorIs(t, err, kgmem.ErrEmbedding, name)
	}
	boom := errors.New("boom")
	e, _ = kgmemlangchain.NewEmbedder(fakeEmbedder{err: boom}, model)
	_, err = e.Embed(ctx, []string{"a"})
	assert.ErrorIs(t, err, boom)
	got, err = e.Embed(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = e.Embed(cctx, []string{"a"})
	assert.ErrorIs(t, err, context.Canceled)
	for name, m := range map[string]kgmem.EmbeddingModel{"blank": {Name: "", Dimensions: 1}, "dims": {Name: "x"}, "too many dims": {Name: "x", Dimensions: 1<<16 + 1}} {
		_, err := kgmemlangchain.NewEmbedder(fakeEmbedder{}, m)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
	}
	_, err = kgmemlangchain.NewEmbedder(nil, model)
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}
