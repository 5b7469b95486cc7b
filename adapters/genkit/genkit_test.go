package kgmemgenkit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/kgmem/kgmem"
	kgmemgenkit "github.com/kgmem/kgmem/adapters/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// define registers the retriever with a fresh Genkit instance.
func define(t *testing.T, mem *kgmem.Memory) (*genkit.Genkit, ai.Retriever) {
	t.Helper()
	g := genkit.Init(context.Background())
	r, err := kgmemgenkit.DefineRetriever(g, "kgmem/test", kgmemgenkit.RetrieverConfig{Store: mem.Store(), Graph: mem.Graph()})
	require.NoError(t, err)
	return g, r
}

func retrieve(t *testing.T, g *genkit.Genkit, opts any) ([]*ai.Document, error) {
	t.Helper()
	resp, err := genkit.Retrieve(context.Background(), g, ai.WithRetrieverName("kgmem/test"), ai.WithTextDocs(question), ai.WithConfig(opts))
	if err != nil {
		return nil, err
	}
	return resp.Documents, nil
}

func ids(docs []*ai.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.Metadata[kgmemgenkit.MetaID].(string)
	}
	return out
}

func TestRetrieverMatchesKgmem(t *testing.T) {
	mem := openMemory(t)
	g, r := define(t, mem)
	assert.Equal(t, "kgmem/test", r.Name())
	require.NotNil(t, genkit.LookupRetriever(g, "kgmem/test"))
	docs, err := retrieve(t, g, nil)
	require.NoError(t, err)
	want, err := mem.Retriever().Retrieve(context.Background(), question)
	require.NoError(t, err)
	require.Len(t, docs, len(want.Items))
	for i, it := range want.Items {
		assert.Equal(t, kgmemgenkit.Document(it), docs[i])
	}
	page := docs[0]
	require.Len(t, page.Content, 1)
	assert.Equal(t, "张三负责项目A，项目A隶属基础架构部。", page.Content[0].Text)
	assert.Equal(t, map[string]any{
		kgmemgenkit.MetaScore: want.Items[0].Score, kgmemgenkit.MetaID: "chat-42", kgmemgenkit.MetaKind: "page",
		kgmemgenkit.MetaExplanation: `张三 —works_on→ 项目A —mentioned_in→ 周会 (works_on ← "负责")`,
		kgmemgenkit.MetaPath:        []string{"person:张三", "project:项目a"}, kgmemgenkit.MetaTitle: "周会",
		kgmemgenkit.MetaRelations: []string{"works_on"}, kgmemgenkit.MetaSource: "store",
	}, page.Metadata)
	assert.Equal(t, `张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")`, docs[1].Content[0].Text)
	assert.Equal(t, "project", docs[1].Metadata[kgmemgenkit.MetaEntityType])
	assert.Nil(t, kgmemgenkit.Document(kgmem.RetrievalItem{Kind: kgmem.ItemEntity}))
}

func TestOptions(t *testing.T) {
	mem := openMemory(t)
	g, _ := define(t, mem)
	tests := []struct {
		name string
		opts any
		want []string
	}{
		{"nil", nil, []string{"chat-42", "project:项目a", "person:张三", "team:基础架构部"}},
		{"k", kgmemgenkit.Options{K: 1}, []string{"chat-42"}},
		{"pointer", &kgmemgenkit.Options{K: 2}, []string{"chat-42", "project:项目a"}},
		{"graph", &kgmemgenkit.Options{Strategy: "graph"}, []string{"project:项目a", "person:张三", "team:基础架构部"}},
		{"knowledge", &kgmemgenkit.Options{Strategy: "knowledge"}, []string{"chat-42"}},
		{"depth 1", &kgmemgenkit.Options{Strategy: "graph", Depth: 1}, []string{"project:项目a", "person:张三"}},
		{"no expansion", &kgmemgenkit.Options{Strategy: "graph", NoExpansion: true}, []string{"person:张三"}},
		{"relation types", &kgmemgenkit.Options{Strategy: "graph", RelationTypes: []string{"part_of"}}, []string{"person:张三"}},
		{"threshold", &kgmemgenkit.Options{ScoreThreshold: 0.5}, []string{"chat-42", "project:项目a"}},
		{"JSON object", map[string]any{"k": 1, "strategy": "graph"}, []string{"project:项目a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := retrieve(t, g, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.want, ids(docs))
		})
	}
}

// The retriever as Genkit's developer UI and other JSON callers run it:
// request and options as JSON.
func TestJSONRequest(t *testing.T) {
	mem := openMemory(t)
	_, r := define(t, mem)
	var req ai.RetrieverRequest
	require.NoError(t, json.Unmarshal([]byte(`{"query": {"content": [{"text": "张三负责什么项目？"}]}, "options": {"k": 1}}`), &req))
	resp, err := r.Retrieve(context.Background(), &req)
	require.NoError(t, err)
	assert.Equal(t, []string{"chat-42"}, ids(resp.Documents))
}

func TestErrors(t *testing.T) {
	mem := openMemory(t)
	g, r := define(t, mem)
	for name, opts := range map[string]any{
		"negative k":       kgmemgenkit.Options{K: -1},
		"unknown strategy": kgmemgenkit.Options{Strategy: "magic"},
		"threshold":        kgmemgenkit.Options{ScoreThreshold: 2},
		"negative depth":   map[string]any{"depth": -1},
	} {
		_, err := retrieve(t, g, opts)
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
	}
	// Genkit checks JSON options against the schema the retriever
	// registered; the retriever checks them again for direct callers.
	fn, err := kgmemgenkit.Func(kgmemgenkit.RetrieverConfig{Store: mem.Store()})
	require.NoError(t, err)
	for name, opts := range map[string]any{
		"unknown field": map[string]any{"top": 3},
		"wrong type":    map[string]any{"k": "three"},
	} {
		_, err := retrieve(t, g, opts)
		assert.ErrorContains(t, err, "did not match expected schema", name)
		_, err = fn(context.Background(), &ai.RetrieverRequest{Query: ai.DocumentFromText(question, nil), Options: opts})
		assert.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
	}
	_, err = fn(context.Background(), &ai.RetrieverRequest{Query: ai.DocumentFromText(question, nil), Options: func() {}})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	_, err = r.Retrieve(context.Background(), &ai.RetrieverRequest{})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)

	_, err = kgmemgenkit.DefineRetriever(g, "x", kgmemgenkit.RetrieverConfig{})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	_, err = kgmemgenkit.DefineRetriever(g, " ", kgmemgenkit.RetrieverConfig{Store: mem.Store()})
	assert.ErrorIs(t, err, kgmem.ErrInvalidArgument)

	// Func works with ai.NewRetriever, unregistered.
	fn, err = kgmemgenkit.Func(kgmemgenkit.RetrieverConfig{Store: mem.Store()})
	require.NoError(t, err)
	resp, err := ai.NewRetriever("plain", nil, fn).Retrieve(context.Background(), &ai.RetrieverRequest{Query: ai.DocumentFromText(question, nil)})
	require.NoError(t, err)
	assert.Equal(t, []string{"chat-42"}, ids(resp.Documents))
}
