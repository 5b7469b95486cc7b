package kgmem_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// memoryFixture is a small memory: a graph about people and projects, and
// pages, some of which only the graph can reach (doc-hr shares no words
// with the questions about 张三).
func memoryFixture(t *testing.T) (*kgmem.InMemoryGraph, *kgmem.InMemoryKnowledgeStore) {
	t.Helper()
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, e := range []kgmem.Entity{
		{ID: "p:zs", Name: "张三", Type: "person", SourceIDs: []string{"doc-hr"}},
		{ID: "prj:a", Name: "项目A", Type: "project", Description: "支付系统重构"},
		{ID: "dept:infra", Name: "基础架构部", Type: "team"},
		{ID: "project:apollo", Name: "Project Apollo", Aliases: []string{"Apollo"}, Type: "project", SourceIDs: []string{"doc-apollo"}},
		{ID: "p:alice", Name: "Alice", Type: "person"},
	} {
		require.NoError(t, g.AddEntity(ctx, e))
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "p:zs", TargetID: "prj:a", Type: "works_on", Weight: 0.9},
		{SourceID: "prj:a", TargetID: "dept:infra", Type: "part_of", Weight: 0.8},
		{SourceID: "p:alice", TargetID: "project:apollo", Type: "leads", Weight: 1},
	} {
		require.NoError(t, g.AddRelation(ctx, r))
	}
	s := kgmem.NewInMemoryKnowledgeStore()
	for _, p := range []kgmem.KnowledgePage{
		{ID: "doc-1", Title: "项目A 周报", Content: "张三负责项目A的支付模块"},
		{ID: "doc-hr", Title: "人事档案", Content: "员工编号 1024"},
		{ID: "doc-apollo", Title: "Launch plan", Content: "The launch plan for the new rocket."},
		{ID: "doc-go", Title: "Go tips", Content: "Use errgroup for fan-out in Go programs."},
	} {
		require.NoError(t, s.Put(ctx, p))
	}
	return g, s
}

func ids(items []kgmem.RetrievalItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Kind.String()+":"+it.ID())
	}
	return out
}

func requireWellFormed(t *testing.T, res kgmem.RetrievalResult) {
	t.Helper()
	for i, it := range res.Items {
		require.GreaterOrEqual(t, it.Score, 0.0)
		require.LessOrEqual(t, it.Score, 1.0)
		require.Greater(t, it.Score, 0.0, "a constant or zero score would mean nothing was computed")
		if i > 0 {
			require.GreaterOrEqual(t, res.Items[i-1].Score, it.Score, "items are sorted best first")
		}
		switch it.Kind {
		case kgmem.ItemPage:
			require.NotNil(t, it.Page)
			require.Nil(t, it.Entity)
		case kgmem.ItemEntity:
			require.NotNil(t, it.Entity)
			require.Nil(t, it.Page)
			require.NotEmpty(t, it.Path)
			require.Equal(t, it.Entity.ID, it.Path[len(it.Path)-1])
			require.Len(t, it.Relations, len(it.Path)-1)
			require.Len(t, it.PathNames, len(it.Path))
		}
		if len(it.Path) > 0 {
			require.Len(t, it.Relations, len(it.Path)-1)
		}
	}
}

func TestRetrieveStrategies(t *testing.T) {
	ctx := context.Background()
	g, s := memoryFixture(t)
	tests := []struct {
		name     string
		store    kgmem.KnowledgeStore
		opts     []kgmem.RetrieverOption
		query    string
		strategy kgmem.RetrievalStrategy
		want     []string
	}{
		{
			name: "hybrid", store: s, opts: []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)},
			query: "张三负责什么项目？", strategy: kgmem.Hybrid,
			// Weighted fusion, best content score 0.486 → λ = 0.3. Graph
			// scores: 项目A, the answer, 0.85 (负责 names works_on through the
			// lexicon) × √0.9 (weight); 张三, the named entity, 0.6 (context);
			// doc-hr, cited by 张三, 0.8 × 0.6 × 0.5 (a page merely naming an
			// entity the question only used as context); 基础架构部 0.806 ×
			// 0.4 (part_of, which no word names) × √0.8 × 0.5 (a team, not the
			// 项目 asked for). Each times 0.7; the text hit doc-1 at 0.486 ×
			// 0.3.
			want: []string{"entity:prj:a", "entity:p:zs", "page:doc-hr", "page:doc-1", "entity:dept:infra"},
		},
		{
			name: "graph only returns entities only", store: s,
			opts:  []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.GraphOnly)},
			query: "张三负责什么项目？", strategy: kgmem.GraphOnly,
			want: []string{"entity:prj:a", "entity:p:zs", "entity:dept:infra"},
		},
		{
			name: "knowledge only", store: s,
			opts:  []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.KnowledgeOnly)},
			query: "张三负责什么项目？", strategy: kgmem.KnowledgeOnly,
			want: []string{"page:doc-1"},
		},
		{
			name: "hybrid without a graph runs knowledge only", store: s,
			query: "张三负责什么项目？", strategy: kgmem.KnowledgeOnly,
			want: []string{"page:doc-1"},
		},
		{
			name: "hybrid without a store runs graph only", store: nil,
			opts:  []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)},
			query: "who leads project apollo", strategy: kgmem.GraphOnly,
			want: []string{"entity:p:alice", "entity:project:apollo"},
		},
		{
			name: "alias links, provenance page surfaces", store: s,
			opts:  []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)},
			query: "status of Apollo", strategy: kgmem.Hybrid,
			// No page matches the words; best content score 0 → λ = 0.3. No
			// word names a relation, so the named entity leads (0.9 alias ×
			// 0.6), then the page Apollo cites (0.8 × 0.54), then Alice (0.9
			// × 0.4, leads unnamed).
			want: []string{"entity:project:apollo", "page:doc-apollo", "entity:p:alice"},
		},
		{
			name: "empty query", store: s, opts: []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)},
			query: "  ", strategy: kgmem.Hybrid, want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := kgmem.NewMemoryRetriever(tt.store, kgmem.RetrieverConfig{}, tt.opts...)
			res, err := r.Retrieve(ctx, tt.query)
			require.NoError(t, err)
			require.Equal(t, tt.strategy, res.Strategy)
			require.Equal(t, tt.query, res.Query)
			require.Equal(t, tt.want, ids(res.Items))
			require.Empty(t, res.Warnings)
			requireWellFormed(t, res)
		})
	}
}

func TestRetrieveHybridScoresAndExplanations(t *testing.T) {
	g, s := memoryFixture(t)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	res, err := r.Retrieve(context.Background(), "张三负责什么项目？")
	require.NoError(t, err)
	byID := map[string]kgmem.RetrievalItem{}
	for _, it := range res.Items {
		byID[it.ID()] = it
	}
	answer := 0.85 * math.Sqrt(0.9) // 负责 names works_on through the lexicon, times √weight
	require.InDelta(t, answer, byID["prj:a"].GraphScore, 1e-12)
	require.Equal(t, 0.6, byID["p:zs"].GraphScore, "the named entity is context: 0.6 × its link quality, below the answer")
	require.InDelta(t, answer*0.4*math.Sqrt(0.8)*0.5, byID["dept:infra"].GraphScore, 1e-12,
		"part_of, which no word names, and a team where the question asks for a project")
	require.InDelta(t, 0.8*0.6*0.5, byID["doc-hr"].GraphScore, 1e-12,
		"provenance: 0.8 × the citing entity's 0.6 × 0.5, for a page that merely names an entity used as context")
	require.Zero(t, byID["doc-hr"].TextScore, "the text search did not find doc-hr")
	require.Zero(t, byID["doc-1"].GraphScore, "no entity cites doc-1")
	require.Greater(t, byID["doc-1"].TextScore, 0.0)
	require.Equal(t, []string{"负责"}, byID["prj:a"].Matched)
	require.Equal(t, "项目", byID["prj:a"].TypeCue)
	require.Equal(t, `张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")`, byID["prj:a"].Explain())
	require.Equal(t, `张三 —works_on→ 项目A —part_of→ 基础架构部 (works_on ← "负责")`, byID["dept:infra"].Explain())
	require.Equal(t, []string{"负责", ""}, byID["dept:infra"].Matched)
	require.Equal(t, "张三 —mentioned_in→ 人事档案", byID["doc-hr"].Explain())
	require.Equal(t, "项目A 周报", byID["doc-1"].Explain())
	require.Equal(t, 1, res.Stats.Linked)
	require.Equal(t, 1, res.Stats.Surfaced)
	require.Equal(t, 1, res.Stats.Content.Sources)
	require.Equal(t, 1, res.Stats.Graph.Sources)
	require.Equal(t, 3, res.Stats.Graph.Candidates)
}

func TestRetrieveIncomingPathExplanation(t *testing.T) {
	g, s := memoryFixture(t)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.GraphOnly))
	res, err := r.Retrieve(context.Background(), "Apollo")
	require.NoError(t, err)
	require.Equal(t, "Project Apollo ←leads— Alice", res.Items[1].Explain())
}

func TestRetrieveMaxResults(t *testing.T) {
	g, s := memoryFixture(t)
	for _, n := range []int{1, 2, 3} {
		r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: n}, kgmem.WithKnowledgeGraph(g))
		res, err := r.Retrieve(context.Background(), "张三负责什么项目？")
		require.NoError(t, err)
		require.Len(t, res.Items, n)
	}
}

func TestFusionMethods(t *testing.T) {
	g, s := memoryFixture(t)
	query := "张三负责什么项目？"
	hits, err := s.Search(context.Background(), query, 10)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	text := hits[0].Score // doc-1, the only page the text search finds
	require.Less(t, text, 0.5, "the best text score selects λ = 0.3 below")
	answer, named := 0.85*math.Sqrt(0.9), 0.6
	infra, hr := answer*0.4*math.Sqrt(0.8)*0.5, 0.8*named*0.5
	tests := []struct {
		fusion kgmem.Fusion
		want   []string
		scores []float64
	}{
		{
			// The larger channel score: 项目A the answer's, 张三 the named
			// entity's, doc-1 its text score, doc-hr 0.8 × 0.5 × 张三's (it
			// cites doc-hr), 基础架构部 two hops away.
			fusion: kgmem.FusionScoreSort,
			want:   []string{"entity:prj:a", "entity:p:zs", "page:doc-1", "page:doc-hr", "entity:dept:infra"},
			scores: []float64{answer, named, text, hr, infra},
		},
		{
			// RRF: half of (k+1)/(k+rank) per channel. doc-1 is first in the
			// text channel and ties with 项目A, first in the graph channel; at
			// equal score the shorter path (none) comes first.
			fusion: kgmem.FusionRRF,
			want:   []string{"page:doc-1", "entity:prj:a", "entity:p:zs", "page:doc-hr", "entity:dept:infra"},
			scores: []float64{0.5, 0.5, 61.0 / 62 / 2, 61.0 / 63 / 2, 61.0 / 64 / 2},
		},
		{
			// λ = 0.3: graph items 0.7 × their graph score, doc-1 0.3 × text.
			fusion: kgmem.FusionWeighted,
			want:   []string{"entity:prj:a", "entity:p:zs", "page:doc-hr", "page:doc-1", "entity:dept:infra"},
			scores: []float64{0.7 * answer, 0.7 * named, 0.7 * hr, 0.3 * text, 0.7 * infra},
		},
	}
	for _, tt := range tests {
		t.Run(tt.fusion.String(), func(t *testing.T) {
			r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Fusion: tt.fusion}, kgmem.WithKnowledgeGraph(g))
			res, err := r.Retrieve(context.Background(), query)
			require.NoError(t, err)
			require.Equal(t, tt.want, ids(res.Items))
			for i, want := range tt.scores {
				require.InDelta(t, want, res.Items[i].Score, 1e-12, "item %d", i)
			}
			requireWellFormed(t, res)
		})
	}
}

// TestFusionCombinesBothChannels checks a page that the text search finds
// and an entity cites: it carries both scores and every method combines
// them.
func TestFusionCombinesBothChannels(t *testing.T) {
	ctx := context.Background()
	g, s := memoryFixture(t)
	require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "doc-apollo", Title: "Apollo launch plan", Content: "The launch plan."}))
	query := "Apollo launch plan"
	hits, err := s.Search(ctx, query, 10)
	require.NoError(t, err)
	require.Equal(t, "doc-apollo", hits[0].Page.ID)
	text := hits[0].Score
	graph := 0.8 * 0.9 * 0.6 // ProvenanceWeight × Project Apollo's score: alias link quality × 0.6, the named entity as context
	for _, tt := range []struct {
		fusion kgmem.Fusion
		want   float64
	}{
		{kgmem.FusionScoreSort, max(text, graph)},
		{kgmem.FusionWeighted, func() float64 {
			lambda := 0.3
			if text >= 0.8 {
				lambda = 0.8
			} else if text >= 0.5 {
				lambda = 0.5
			}
			return lambda*text + (1-lambda)*graph
		}()},
	} {
		r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Fusion: tt.fusion}, kgmem.WithKnowledgeGraph(g))
		res, err := r.Retrieve(ctx, query)
		require.NoError(t, err)
		var page *kgmem.RetrievalItem
		for i := range res.Items {
			if res.Items[i].ID() == "doc-apollo" {
				page = &res.Items[i]
			}
		}
		require.NotNil(t, page, tt.fusion.String())
		require.Equal(t, text, page.TextScore)
		require.InDelta(t, graph, page.GraphScore, 1e-12)
		require.InDelta(t, tt.want, page.Score, 1e-12, tt.fusion.String())
		require.Equal(t, "Project Apollo —mentioned_in→ Apollo launch plan", page.Explain())
		require.Equal(t, 0, res.Stats.Surfaced, "the page was found, not fetched")
	}
}

// rendezvousStore and rendezvousGraph each wait, inside their search, for
// the other to have started: Retrieve can only finish when both channels run
// at the same time.
type rendezvous struct {
	storeStarted, graphStarted chan struct{}
}

type rendezvousStore struct {
	kgmem.KnowledgeStore
	rv *rendezvous
}

func (s rendezvousStore) Search(ctx context.Context, q string, limit int) ([]kgmem.ScoredPage, error) {
	close(s.rv.storeStarted)
	select {
	case <-s.rv.graphStarted:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.KnowledgeStore.Search(ctx, q, limit)
}

type rendezvousGraph struct {
	kgmem.KnowledgeGraph
	rv *rendezvous
}

func (g rendezvousGraph) FindByKeywords(ctx context.Context, kw []string) ([]kgmem.Entity, error) {
	close(g.rv.graphStarted)
	select {
	case <-g.rv.storeStarted:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.KnowledgeGraph.FindByKeywords(ctx, kw)
}

func TestRetrieveRunsChannelsConcurrently(t *testing.T) {
	g, s := memoryFixture(t)
	rv := &rendezvous{storeStarted: make(chan struct{}), graphStarted: make(chan struct{})}
	r := kgmem.NewMemoryRetriever(rendezvousStore{s, rv}, kgmem.RetrieverConfig{},
		kgmem.WithKnowledgeGraph(rendezvousGraph{g, rv}))
	// The deadline only turns a deadlock (channels run one after the other)
	// into a failure instead of a hang; it does not measure anything.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := r.Retrieve(ctx, "张三负责什么项目？")
	require.NoError(t, err)
	require.Equal(t, kgmem.Hybrid, res.Strategy)
	require.Contains(t, ids(res.Items), "page:doc-1")
	require.Contains(t, ids(res.Items), "entity:p:zs")
}

type failingStore struct{ err error }

func (s failingStore) Search(context.Context, string, int) ([]kgmem.ScoredPage, error) {
	return nil, s.err
}

type failingGraph struct {
	kgmem.KnowledgeGraph
	err error
}

func (g failingGraph) FindByKeywords(context.Context, []string) ([]kgmem.Entity, error) {
	return nil, g.err
}

type blockingStore struct{}

func (blockingStore) Search(ctx context.Context, _ string, _ int) ([]kgmem.ScoredPage, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestRetrieveDegradation(t *testing.T) {
	ctx := context.Background()
	g, s := memoryFixture(t)
	storeErr := errors.New("disk on fire")
	graphErr := errors.New("graph offline")

	t.Run("failing store becomes a warning", func(t *testing.T) {
		r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{},
			kgmem.WithKnowledgeStore("kb2", failingStore{storeErr}), kgmem.WithKnowledgeGraph(g))
		res, err := r.Retrieve(ctx, "张三负责什么项目？")
		require.NoError(t, err)
		require.Equal(t, []string{`store "kb2": disk on fire`}, res.Warnings)
		require.Contains(t, ids(res.Items), "page:doc-1", "the healthy store still answers")
		require.Equal(t, 1, res.Stats.Content.Failed)
		require.Equal(t, 2, res.Stats.Content.Sources)
	})
	t.Run("failing graph keeps content results intact", func(t *testing.T) {
		r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithNamedKnowledgeGraph("kg", failingGraph{g, graphErr}))
		res, err := r.Retrieve(ctx, "张三负责什么项目？")
		require.NoError(t, err)
		require.Equal(t, kgmem.Hybrid, res.Strategy)
		require.Equal(t, []string{`graph "kg": graph offline`}, res.Warnings)
		require.Equal(t, []string{"page:doc-1"}, ids(res.Items))
	})
	t.Run("timed out store becomes a warning", func(t *testing.T) {
		r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{SourceTimeout: 20 * time.Millisecond},
			kgmem.WithKnowledgeStore("slow", blockingStore{}), kgmem.WithKnowledgeGraph(g))
		res, err := r.Retrieve(ctx, "张三负责什么项目？")
		require.NoError(t, err)
		require.Len(t, res.Warnings, 1)
		require.Contains(t, res.Warnings[0], `store "slow": timed out after 20ms`)
		require.Contains(t, ids(res.Items), "page:doc-1")
	})
	t.Run("every source failing is an error wrapping the causes", func(t *testing.T) {
		r := kgmem.NewMemoryRetriever(failingStore{storeErr}, kgmem.RetrieverConfig{},
			kgmem.WithKnowledgeGraph(failingGraph{g, graphErr}))
		_, err := r.Retrieve(ctx, "张三负责什么项目？")
		require.ErrorIs(t, err, storeErr)
		require.ErrorIs(t, err, graphErr)
	})
	t.Run("knowledge only with its only store failing", func(t *testing.T) {
		r := kgmem.NewMemoryRetriever(failingStore{storeErr}, kgmem.RetrieverConfig{},
			kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.KnowledgeOnly))
		_, err := r.Retrieve(ctx, "anything")
		require.ErrorIs(t, err, storeErr)
	})
	t.Run("cancelled context", func(t *testing.T) {
		r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := r.Retrieve(cctx, "张三")
		require.ErrorIs(t, err, context.Canceled)
	})
	t.Run("cancelled while a source blocks", func(t *testing.T) {
		r := kgmem.NewMemoryRetriever(blockingStore{}, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
		cctx, cancel := context.WithCancel(ctx)
		go func() { time.Sleep(10 * time.Millisecond); cancel() }()
		_, err := r.Retrieve(cctx, "张三")
		require.ErrorIs(t, err, context.Canceled)
	})
}

func TestRetrieveInvalidInput(t *testing.T) {
	ctx := context.Background()
	g, s := memoryFixture(t)
	for name, r := range map[string]*kgmem.MemoryRetriever{
		"negative MaxResults":  kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: -1}),
		"bad provenance":       kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{ProvenanceWeight: 2}),
		"unknown fusion":       kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Fusion: 9}),
		"unknown strategy":     kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithStrategy(9)),
		"graph only, no graph": kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithStrategy(kgmem.GraphOnly)),
		"no sources":           kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{}),
		"bad expansion": kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{},
			kgmem.WithKnowledgeGraph(g), kgmem.WithExpansion(kgmem.TraverseOptions{Depth: -1})),
		"nil option": kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g), nil),
	} {
		_, err := r.Retrieve(ctx, "张三")
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
	}
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	_, err := r.Retrieve(ctx, "\xff")
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}

func TestRetrieveExpansionOptions(t *testing.T) {
	g, s := memoryFixture(t)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g),
		kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithExpansion(kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both}))
	res, err := r.Retrieve(context.Background(), "张三")
	require.NoError(t, err)
	require.Equal(t, []string{"entity:p:zs", "entity:prj:a"}, ids(res.Items))

	// Depth 0 is one hop, as in GetRelated, and the zero Direction is
	// Outgoing: 张三 works on the project, so it is still reached.
	r = kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g),
		kgmem.WithStrategy(kgmem.GraphOnly), kgmem.WithExpansion(kgmem.TraverseOptions{}))
	res, err = r.Retrieve(context.Background(), "张三")
	require.NoError(t, err)
	require.Equal(t, []string{"entity:p:zs", "entity:prj:a"}, ids(res.Items))

	r = kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{NoExpansion: true}, kgmem.WithKnowledgeGraph(g),
		kgmem.WithStrategy(kgmem.GraphOnly))
	res, err = r.Retrieve(context.Background(), "张三 and Alice")
	require.NoError(t, err)
	require.Equal(t, []string{"entity:p:alice", "entity:p:zs"}, ids(res.Items))
}

// TestRetrieveEntityReachedTwiceKeepsBest names two entities that reach the
// same third one; it appears once, with the better of the two scores.
func TestRetrieveEntityReachedTwiceKeepsBest(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, id := range []string{"Ann", "Bob", "Carol"} {
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: strings.ToLower(id), Name: id}))
	}
	require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "ann", TargetID: "carol", Type: "knows", Weight: 0.4}))
	require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "bob", TargetID: "carol", Type: "knows", Weight: 0.7}))
	r := kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	res, err := r.Retrieve(ctx, "ann and bob")
	require.NoError(t, err)
	require.Equal(t, []string{"entity:ann", "entity:bob", "entity:carol"}, ids(res.Items))
	require.Equal(t, 0.4*math.Sqrt(0.7), res.Items[2].Score, "a hop no word names (0.4) times √ the better weight")
	require.Equal(t, []string{"bob", "carol"}, res.Items[2].Path)
}

func TestRetrieveSeveralGraphsAndStores(t *testing.T) {
	ctx := context.Background()
	g1, s1 := memoryFixture(t)
	g2 := kgmem.NewInMemoryGraph()
	require.NoError(t, g2.AddEntity(ctx, kgmem.Entity{ID: "p:zs", Name: "张三"}))
	require.NoError(t, g2.AddEntity(ctx, kgmem.Entity{ID: "city:bj", Name: "北京"}))
	require.NoError(t, g2.AddRelation(ctx, kgmem.Relation{SourceID: "p:zs", TargetID: "city:bj", Type: "lives_in", Weight: 0.5}))
	s2 := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, s2.Put(ctx, kgmem.KnowledgePage{ID: "doc-bj", Content: "张三住在北京"}))
	r := kgmem.NewMemoryRetriever(s1, kgmem.RetrieverConfig{MaxResults: 20, MaxConcurrency: 1},
		kgmem.WithKnowledgeStore("kb2", s2),
		kgmem.WithNamedKnowledgeGraph("work", g1), kgmem.WithNamedKnowledgeGraph("life", g2))
	res, err := r.Retrieve(ctx, "张三")
	require.NoError(t, err)
	got := ids(res.Items)
	require.Contains(t, got, "entity:city:bj")
	require.Contains(t, got, "entity:prj:a")
	require.Contains(t, got, "page:doc-bj")
	count := 0
	for _, it := range res.Items {
		if it.ID() == "p:zs" {
			count++
		}
		if it.ID() == "city:bj" {
			require.Equal(t, "life", it.Source)
		}
	}
	require.Equal(t, 1, count, "an entity two graphs hold appears once")
	require.Equal(t, 2, res.Stats.Graph.Sources)
	require.Equal(t, 2, res.Stats.Content.Sources)
}

func TestRetrievalResultContextBlock(t *testing.T) {
	g, s := memoryFixture(t)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	res, err := r.Retrieve(context.Background(), "张三负责什么项目？")
	require.NoError(t, err)
	full := res.ContextBlock(0)
	require.Contains(t, full, "path: 张三 —works_on→ 项目A —part_of→ 基础架构部")
	require.Contains(t, full, "张三负责项目A的支付模块")
	for budget := 1; budget <= len([]rune(full)); budget += 7 {
		block := res.ContextBlock(budget)
		require.LessOrEqual(t, len([]rune(block)), budget)
		// Every entry is whole: it is one of the full block's entries.
		for _, entry := range strings.SplitAfter(block, "\n\n") {
			if entry == "" {
				continue
			}
			body := entry[strings.Index(entry, "]")+1:]
			require.Contains(t, full, body, "budget %d", budget)
		}
	}
}

// TestRetrieveConcurrentCalls runs Retrieve from many goroutines while the
// graph and store change, for -race.
func TestRetrieveConcurrentCalls(t *testing.T) {
	ctx := context.Background()
	g, s := memoryFixture(t)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				switch w % 3 {
				case 0:
					_, err := r.Retrieve(ctx, "张三负责什么项目？")
					require.NoError(t, err)
				case 1:
					id := fmt.Sprintf("tmp%d", i%5)
					_ = g.AddEntity(ctx, kgmem.Entity{ID: id, Name: "张三"})
					_ = g.RemoveEntity(ctx, id)
				case 2:
					_ = s.Put(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", i%5), Content: "张三 项目"})
				}
			}
		}()
	}
	wg.Wait()
}

// TestRetrieveCallsShareNothing: calls of one retriever, one after the
// other and at the same time, answer each question as a fresh retriever
// does (a call's scratch, reused by the next, leaves nothing behind).
func TestRetrieveCallsShareNothing(t *testing.T) {
	for _, spread := range []kgmem.SpreadMode{kgmem.SpreadOff, kgmem.SpreadOn} {
		t.Run(spread.String(), func(t *testing.T) { testRetrieveCallsShareNothing(t, kgmem.RetrieverConfig{Spread: spread}) })
	}
}

// testRetrieveCallsShareNothing runs TestRetrieveCallsShareNothing under
// cfg: with page spreading on, its pooled scratch space is shared too.
func testRetrieveCallsShareNothing(t *testing.T, cfg kgmem.RetrieverConfig) {
	ctx := context.Background()
	g, s := memoryFixture(t)
	questions := []string{"who leads Apollo?", "张三负责什么项目？", "Apollo launch plan", "errgroup fan-out in Go"}
	want := map[string]kgmem.RetrievalResult{}
	for _, q := range questions {
		res, err := kgmem.NewMemoryRetriever(s, cfg, kgmem.WithKnowledgeGraph(g)).Retrieve(ctx, q)
		require.NoError(t, err)
		require.NotEmpty(t, res.Items, q)
		want[q] = res
	}
	r := kgmem.NewMemoryRetriever(s, cfg, kgmem.WithKnowledgeGraph(g))
	check := func(q string) {
		res, err := r.Retrieve(ctx, q)
		require.NoError(t, err)
		require.Equal(t, want[q].Items, res.Items, q)
	}
	for range 3 {
		for _, q := range questions {
			check(q)
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				check(questions[(i+k)%len(questions)])
			}
		}()
	}
	wg.Wait()
}
