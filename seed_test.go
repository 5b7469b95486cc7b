package kgmem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/citeindex"
	"github.com/stretchr/testify/require"
)

// checkSourceIndex compares g's page → citer index with a scan.
func checkSourceIndex(t *testing.T, g *InMemoryGraph) {
	t.Helper()
	g.mu.RLock()
	defer g.mu.RUnlock()
	ents, rels := map[string][]int32{}, map[string][]int32{}
	for s := range g.nodes {
		if n := &g.nodes[s]; n.live() && n.more != nil {
			for _, p := range n.more.sourceIDs {
				if !slices.Contains(ents[p], int32(s)) {
					ents[p] = append(ents[p], int32(s))
				}
			}
		}
	}
	for i := range g.rels {
		if r := &g.rels[i]; r.live() && r.more != nil {
			for _, p := range r.more.sourceIDs {
				if !slices.Contains(rels[p], int32(i)) {
					rels[p] = append(rels[p], int32(i))
				}
			}
		}
	}
	got := func(m map[string]map[int32]struct{}) map[string][]int32 {
		out := map[string][]int32{}
		for p, set := range m {
			require.NotEmpty(t, set, "empty set for %q", p)
			out[p] = citeindex.Index(m).Slots(p)
		}
		return out
	}
	require.Equal(t, ents, got(g.sources.ents), "entity citations")
	require.Equal(t, rels, got(g.sources.rels), "relation citations")
}

// TestSourceIndexMatchesScan applies random writes, RemoveSource and
// ReadFrom, and checks the index and EntitiesCitedBy against a scan after
// each.
func TestSourceIndexMatchesScan(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 9))
	g := NewInMemoryGraph()
	pages := []string{"p0", "p1", "p2", "p3", "p4"}
	srcs := func() []string {
		var out []string
		for range rng.IntN(3) {
			out = append(out, pages[rng.IntN(len(pages))])
		}
		return out
	}
	ids := []string{"a", "b", "c", "d", "e", "f"}
	steps := 1000
	if testing.Short() {
		steps = 300
	}
	for step := range steps {
		switch op := rng.IntN(11); {
		case op < 3:
			require.NoError(t, g.AddEntity(ctx, Entity{ID: ids[rng.IntN(len(ids))], SourceIDs: srcs()}))
		case op == 10: // one more page states it, as ingest writes it
			id := ids[rng.IntN(len(ids))]
			e, ok, err := g.GetEntity(ctx, id)
			require.NoError(t, err)
			if ok {
				e.SourceIDs = append(e.SourceIDs, pages[rng.IntN(len(pages))])
				require.NoError(t, g.AddEntity(ctx, e))
			}
			if rels, err := g.Relations(ctx); err == nil && len(rels) > 0 {
				r := rels[rng.IntN(len(rels))]
				r.SourceIDs = append(r.SourceIDs, pages[rng.IntN(len(pages))])
				require.NoError(t, g.AddRelation(ctx, r))
			}
		case op < 6:
			err := g.AddRelation(ctx, Relation{SourceID: ids[rng.IntN(len(ids))], TargetID: ids[rng.IntN(len(ids))], Type: "r", SourceIDs: srcs()})
			if err != nil {
				require.ErrorIs(t, err, ErrNotFound)
			}
		case op == 6:
			_ = g.RemoveEntity(ctx, ids[rng.IntN(len(ids))])
		case op == 7:
			_ = g.RemoveRelation(ctx, ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))], "r")
		case op == 8:
			_, err := g.RemoveSource(ctx, pages[rng.IntN(len(pages))])
			require.NoError(t, err)
		default:
			var buf bytes.Buffer
			_, err := g.WriteTo(&buf)
			require.NoError(t, err)
			_, err = g.ReadFrom(&buf)
			require.NoError(t, err)
		}
		checkSourceIndex(t, g)
		cited, err := g.EntitiesCitedBy(ctx, pages)
		require.NoError(t, err)
		ents, err := g.Entities(ctx)
		require.NoError(t, err)
		want := map[string][]string{}
		for _, e := range ents {
			for _, p := range e.SourceIDs {
				if !slices.Contains(want[p], e.ID) {
					want[p] = append(want[p], e.ID)
				}
			}
		}
		for _, v := range want {
			slices.Sort(v)
		}
		require.Equal(t, want, cited, "step %d", step)
	}
}

func TestEntitiesCitedByRejectsBadIDs(t *testing.T) {
	g := NewInMemoryGraph()
	for _, id := range []string{"", "  ", "\xff"} {
		_, err := g.EntitiesCitedBy(context.Background(), []string{"ok", id})
		require.ErrorIs(t, err, ErrInvalidArgument, "%q", id)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := g.EntitiesCitedBy(ctx, []string{"p"})
	require.ErrorIs(t, err, context.Canceled)
	got, err := g.EntitiesCitedBy(context.Background(), nil)
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestEntityChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := NewInMemoryGraph()
	ids := func(es []Entity) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.ID
		}
		return out
	}
	ch, err := g.EntityChanges(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, EntityChanges{Version: 0, Reset: true, Changed: []Entity{}}, ch)

	require.NoError(t, g.AddEntity(ctx, Entity{ID: "b"}))
	require.NoError(t, g.AddEntity(ctx, Entity{ID: "a"}))
	ch, err = g.EntityChanges(ctx, 0)
	require.NoError(t, err)
	require.True(t, ch.Reset)
	require.Equal(t, []string{"a", "b"}, ids(ch.Changed))
	v1 := ch.Version
	require.EqualValues(t, 2, v1)

	ch, err = g.EntityChanges(ctx, v1)
	require.NoError(t, err)
	require.Equal(t, EntityChanges{Version: v1}, ch)

	require.NoError(t, g.AddEntity(ctx, Entity{ID: "a", Name: "A"}))
	require.NoError(t, g.RemoveEntity(ctx, "b"))
	require.NoError(t, g.AddEntity(ctx, Entity{ID: "c", SourceIDs: []string{"p"}}))
	_, err = g.SetEntityTags(ctx, "c", []string{"t"})
	require.NoError(t, err)
	ch, err = g.EntityChanges(ctx, v1)
	require.NoError(t, err)
	require.False(t, ch.Reset)
	require.Equal(t, []string{"a", "c"}, ids(ch.Changed))
	require.Equal(t, "A", ch.Changed[0].Name)
	require.Equal(t, []string{"t"}, ch.Changed[1].Tags)
	require.Equal(t, []string{"b"}, ch.Removed)
	v2 := ch.Version

	// RemoveSource rewrites or removes the entities citing the page.
	_, err = g.RemoveSource(ctx, "p")
	require.NoError(t, err)
	ch, err = g.EntityChanges(ctx, v2)
	require.NoError(t, err)
	require.Equal(t, []string{"c"}, ch.Removed)

	// A version no write reached, and ReadFrom, give a Reset.
	ch, err = g.EntityChanges(ctx, ch.Version+5)
	require.NoError(t, err)
	require.True(t, ch.Reset)
	var buf bytes.Buffer
	_, err = g.WriteTo(&buf)
	require.NoError(t, err)
	before := ch.Version
	_, err = g.ReadFrom(&buf)
	require.NoError(t, err)
	ch, err = g.EntityChanges(ctx, before)
	require.NoError(t, err)
	require.True(t, ch.Reset)
	require.Equal(t, []string{"a"}, ids(ch.Changed))

	// More writes than the log keeps: a Reset.
	old := ch.Version
	ents := make([]Entity, 2*maxChangeLog+1)
	for i := range ents {
		ents[i] = Entity{ID: fmt.Sprintf("x%06d", i)}
	}
	require.NoError(t, g.AddBatch(ctx, ents, nil))
	ch, err = g.EntityChanges(ctx, old)
	require.NoError(t, err)
	require.True(t, ch.Reset)
	require.Len(t, ch.Changed, len(ents)+1)
	g.mu.RLock()
	require.LessOrEqual(t, len(g.changes.events), 2*maxChangeLog)
	g.mu.RUnlock()

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = g.EntityChanges(cctx, 0)
	require.ErrorIs(t, err, context.Canceled)
}

// seedMemory is a small memory where the question "who leads the rocket
// program" names no entity: the page about the rocket program is cited by
// Project Apollo, whose lead is stated by the charter page.
func seedMemory(t *testing.T) (*InMemoryGraph, *InMemoryKnowledgeStore) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []Entity{
		{ID: "apollo", Name: "Project Apollo", Type: "project", Description: "NASA's crewed rocket program", SourceIDs: []string{"overview"}},
		{ID: "alice", Name: "Alice Smith", Type: "person"},
		{ID: "bob", Name: "Bob Jones", Type: "person"},
	}, []Relation{
		{SourceID: "alice", TargetID: "apollo", Type: "leads", SourceIDs: []string{"charter"}},
		{SourceID: "bob", TargetID: "apollo", Type: "funds", Weight: 0.5},
	}))
	s := NewInMemoryKnowledgeStore()
	for _, p := range []KnowledgePage{
		{ID: "overview", Title: "The rocket program", Content: "A crewed rocket program that flew to the Moon."},
		{ID: "charter", Title: "Charter", Content: "Headed by Alice Smith since 1961."},
		{ID: "noise", Title: "Weather", Content: "Rain later today."},
	} {
		require.NoError(t, s.Put(ctx, p))
	}
	return g, s
}

func itemByID(res RetrievalResult, kind ItemKind, id string) *RetrievalItem {
	for i := range res.Items {
		if res.Items[i].Kind == kind && res.Items[i].ID() == id {
			return &res.Items[i]
		}
	}
	return nil
}

func TestContentSeededExpansion(t *testing.T) {
	ctx := context.Background()
	g, s := seedMemory(t)
	const q = "who leads the rocket program"
	r := NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g))
	res, err := r.Retrieve(ctx, q)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	require.Equal(t, 0, res.Stats.Linked)
	require.Equal(t, 1, res.Stats.Seeded)

	overview := itemByID(res, ItemPage, "overview")
	require.NotNil(t, overview)
	// The seed's link quality is seedWeight × the page's text score: the
	// seeded walks score exactly as walks from a start of that quality.
	cfg := r.walkConfig()
	cfg.hops = seedHops
	want, _, err := g.answerFrom(ctx, q, cfg, nil, 30, []seedLink{{"apollo", seedWeight * overview.TextScore}})
	require.NoError(t, err)
	unit, _, err := g.answerFrom(ctx, q, cfg, nil, 30, []seedLink{{"apollo", 1}})
	require.NoError(t, err)
	require.Equal(t, len(unit), len(want))
	for i := range want {
		require.Equal(t, unit[i].entity.ID, want[i].entity.ID)
		require.InDelta(t, seedWeight*overview.TextScore*unit[i].score, want[i].score, 1e-12)
		it := itemByID(res, ItemEntity, want[i].entity.ID)
		require.NotNil(t, it, want[i].entity.ID)
		require.InDelta(t, want[i].score, it.GraphScore, 1e-12)
	}
	alice := itemByID(res, ItemEntity, "alice")
	require.Equal(t, []string{"apollo", "alice"}, alice.Path)
	require.Equal(t, []string{"leads"}, alice.Matched)
	// The question's relation word picks Alice over Bob.
	bob := itemByID(res, ItemEntity, "bob")
	require.Greater(t, alice.GraphScore, bob.GraphScore)
	// The charter, which shares no word with the question, surfaces.
	charter := itemByID(res, ItemPage, "charter")
	require.NotNil(t, charter)
	require.Zero(t, charter.TextScore)
	require.Equal(t, []string{"apollo", "alice"}, charter.Path)

	// Off, nothing of the graph answers.
	off := NewMemoryRetriever(s, RetrieverConfig{Seed: SeedOff}, WithKnowledgeGraph(g))
	res, err = off.Retrieve(ctx, q)
	require.NoError(t, err)
	require.Zero(t, res.Stats.Seeded)
	require.Nil(t, itemByID(res, ItemPage, "charter"))
}

func TestSeedModes(t *testing.T) {
	ctx := context.Background()
	g, s := seedMemory(t)
	for _, c := range []struct {
		mode   SeedMode
		fusion Fusion
		query  string
		seeded int
	}{
		{SeedDefault, FusionDefault, "who leads the rocket program", 1},
		{SeedDefault, FusionRRF, "who leads the rocket program", 0},
		{SeedWhenUnlinked, FusionRRF, "who leads the rocket program", 1},
		{SeedDefault, FusionDefault, "who leads the rocket program Alice Smith", 0},
		{SeedAlways, FusionDefault, "who leads the rocket program Alice Smith", 1},
		{SeedOff, FusionDefault, "who leads the rocket program", 0},
		{SeedAlways, FusionDefault, "weather", 0}, // the page that matches cites nothing
	} {
		r := NewMemoryRetriever(s, RetrieverConfig{Seed: c.mode, Fusion: c.fusion}, WithKnowledgeGraph(g))
		res, err := r.Retrieve(ctx, c.query)
		require.NoError(t, err)
		require.Equal(t, c.seeded, res.Stats.Seeded, "%v %v %q", c.mode, c.fusion, c.query)
	}
	// A graph without SourceIndex is not seeded, and no warning says so.
	r := NewMemoryRetriever(s, RetrieverConfig{Seed: SeedAlways}, WithKnowledgeGraph(plainGraph{g}))
	res, err := r.Retrieve(ctx, "who leads the rocket program")
	require.NoError(t, err)
	require.Zero(t, res.Stats.Seeded)
	require.Empty(t, res.Warnings)
	// SeedPages and MaxSeeds bound the seeds.
	r = NewMemoryRetriever(s, RetrieverConfig{Seed: SeedAlways, MaxSeeds: 1, SeedPages: 1}, WithKnowledgeGraph(g))
	res, err = r.Retrieve(ctx, "rocket program")
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Seeded)
	for _, bad := range []RetrieverConfig{{Seed: SeedAlways + 1}, {SeedPages: -1}, {MaxSeeds: -1}, {MMRLambda: -0.1}, {MMRLambda: 1.5}, {MMRLambda: math.NaN()}} {
		_, err := NewMemoryRetriever(s, bad, WithKnowledgeGraph(g)).Retrieve(ctx, "x")
		require.ErrorIs(t, err, ErrInvalidArgument, "%+v", bad)
	}
}

// plainGraph hides every optional interface of the graph it wraps.
type plainGraph struct{ KnowledgeGraph }

// failingIndex is a graph whose SourceIndex fails.
type failingIndex struct{ *InMemoryGraph }

func (failingIndex) EntitiesCitedBy(context.Context, []string) (map[string][]string, error) {
	return nil, errors.New("index down")
}

func TestSeedingFailureIsAWarning(t *testing.T) {
	g, s := seedMemory(t)
	r := NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(failingIndex{g}))
	res, err := r.Retrieve(context.Background(), "who leads the rocket program")
	require.NoError(t, err)
	require.Equal(t, []string{`graph "graph": content seeding: index down`}, res.Warnings)
	require.NotNil(t, itemByID(res, ItemPage, "overview"))
}

func TestSeedsSortAndCap(t *testing.T) {
	got := sortSeeds([]seedLink{{"b", 0.5}, {"a", 0.5}, {"c", 0.9}, {"a", 0.7}, {"d", 0.1}}, 3)
	require.Equal(t, []seedLink{{"c", 0.9}, {"a", 0.7}, {"b", 0.5}}, got)
}

func TestMMROrder(t *testing.T) {
	page := func(id, text string, score float64) RetrievalItem {
		return RetrievalItem{Kind: ItemPage, Page: &KnowledgePage{ID: id, Content: text}, Score: score}
	}
	base := []RetrievalItem{
		page("a", "alpha beta gamma", 1.0),
		page("b", "alpha beta gamma", 0.9),
		page("c", "delta epsilon", 0.6),
		page("d", "alpha delta", 0.5),
	}
	ids := func(items []RetrievalItem) string {
		var out []string
		for _, it := range items {
			out = append(out, it.ID())
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		lambda float64
		k      int
		want   string
	}{
		// λ=0.5: a; then b scores 0.45−0.5, c 0.3, d 0.25−0.5·(1/4): c;
		// then b −0.05, d 0.25−0.5·max(1/4, 1/3)=0.083: d; then b.
		{0.5, 4, "a,c,d,b"},
		// λ=0.9: a; then b 0.81−0.1=0.71 beats c 0.54: b; c 0.54 beats d 0.45−0.025.
		{0.9, 4, "a,b,c,d"},
		{0.5, 2, "a,c,b,d"}, // the rest keeps its order
		{0, 4, "a,b,c,d"},   // off
		{1, 4, "a,b,c,d"},   // relevance alone
	} {
		items := slices.Clone(base)
		mmr(items, c.lambda, c.k)
		require.Equal(t, c.want, ids(items), "λ=%v k=%d", c.lambda, c.k)
	}
	// Ties go to the item ranked first.
	items := []RetrievalItem{page("x", "one", 0.5), page("y", "two", 0.5), page("z", "three", 0.5)}
	mmr(items, 0.5, 3)
	require.Equal(t, "x,y,z", ids(items))
}

func TestMMRThroughRetrieve(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	for _, p := range []KnowledgePage{
		{ID: "1", Content: "rocket launch schedule rocket launch"},
		{ID: "2", Content: "rocket launch schedule rocket launch again"},
		{ID: "3", Content: "rocket fuel chemistry"},
	} {
		require.NoError(t, s.Put(ctx, p))
	}
	plain, err := NewMemoryRetriever(s, RetrieverConfig{}).Retrieve(ctx, "rocket launch")
	require.NoError(t, err)
	div, err := NewMemoryRetriever(s, RetrieverConfig{MMRLambda: 0.3}).Retrieve(ctx, "rocket launch")
	require.NoError(t, err)
	require.Equal(t, "1", plain.Items[0].ID())
	require.Equal(t, "2", plain.Items[1].ID())
	require.Equal(t, "1", div.Items[0].ID())
	require.Equal(t, "3", div.Items[1].ID())
	require.Equal(t, plain.Items[2].Score, div.Items[1].Score) // scores are kept
}

// scriptedReranker returns fixed scores, an error or a panic.
type scriptedReranker struct {
	scores []float64
	err    error
	panic  bool
	block  bool
	got    []string
}

func (s *scriptedReranker) Rerank(ctx context.Context, _ string, items []RetrievalItem) ([]float64, error) {
	for _, it := range items {
		s.got = append(s.got, it.ID())
	}
	if s.panic {
		panic("reranker bug")
	}
	if s.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.scores, s.err
}

func TestReranker(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	for i, c := range []string{"apple apple apple", "apple apple banana", "apple banana cherry", "apple cherry date"} {
		require.NoError(t, s.Put(ctx, KnowledgePage{ID: fmt.Sprint(i), Content: c}))
	}
	base, err := NewMemoryRetriever(s, RetrieverConfig{}).Retrieve(ctx, "apple")
	require.NoError(t, err)
	order := func(res RetrievalResult) string {
		var out []string
		for _, it := range res.Items {
			out = append(out, fmt.Sprintf("%s:%.2f", it.ID(), it.Score))
		}
		return strings.Join(out, " ")
	}
	require.Equal(t, "0 1 2 3", strings.Join(func() []string {
		var ids []string
		for _, it := range base.Items {
			ids = append(ids, it.ID())
		}
		return ids
	}(), " "))

	// Top 3 rescored, clamped into [0,1]; ties keep the fused order; the
	// fourth keeps its place and score.
	rr := &scriptedReranker{scores: []float64{0.2, 1.7, 0.2}}
	res, err := NewMemoryRetriever(s, RetrieverConfig{}, WithReranker(rr, 3)).Retrieve(ctx, "apple")
	require.NoError(t, err)
	require.Equal(t, []string{"0", "1", "2"}, rr.got)
	require.Equal(t, fmt.Sprintf("1:1.00 0:0.20 2:0.20 3:%.2f", base.Items[3].Score), order(res))
	require.Equal(t, 3, res.Stats.Reranked)

	// Failures keep the fused order and warn.
	for _, c := range []struct {
		rr   *scriptedReranker
		warn string
	}{
		{&scriptedReranker{err: errors.New("api down")}, "reranker: api down"},
		{&scriptedReranker{scores: []float64{1}}, "reranker: returned 1 scores for 4 items: invalid argument"},
		{&scriptedReranker{scores: []float64{1, math.NaN(), 0, 0}}, "reranker: returned NaN for item 1: invalid argument"},
		{&scriptedReranker{panic: true}, "reranker: panic: reranker bug"},
	} {
		res, err := NewMemoryRetriever(s, RetrieverConfig{}, WithReranker(c.rr, 0)).Retrieve(ctx, "apple")
		require.NoError(t, err)
		require.Equal(t, order(base), order(res))
		require.Equal(t, []string{c.warn}, res.Warnings)
		require.Zero(t, res.Stats.Reranked)
	}
	// A reranker over SourceTimeout is a warning too; a done ctx is an error.
	res, err = NewMemoryRetriever(s, RetrieverConfig{SourceTimeout: 10 * time.Millisecond},
		WithReranker(&scriptedReranker{block: true}, 0)).Retrieve(ctx, "apple")
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	require.Contains(t, res.Warnings[0], "reranker: timed out after 10ms")
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err = NewMemoryRetriever(s, RetrieverConfig{}, WithReranker(&scriptedReranker{block: true}, 0)).Retrieve(cctx, "apple")
	require.ErrorIs(t, err, context.DeadlineExceeded)

	_, err = NewMemoryRetriever(s, RetrieverConfig{}, WithReranker(rr, -1)).Retrieve(ctx, "apple")
	require.ErrorIs(t, err, ErrInvalidArgument)
}

func TestLinkingByMeaning(t *testing.T) {
	ctx := context.Background()
	g, _ := seedMemory(t)
	emb := &wordEmbedder{dims: 256}
	const q = "who leads the crewed rocket program"
	vs, err := embedTexts(ctx, emb, emb.Model(), []string{q, EntityText(Entity{Name: "Project Apollo", Description: "NASA's crewed rocket program"})},
		func(int) string { return "text" }, keepZero)
	require.NoError(t, err)
	var cos float64
	for i := range vs[0] {
		cos += float64(vs[0][i]) * float64(vs[1][i])
	}
	require.Greater(t, cos, 0.3)

	retrieve := func(threshold float64, e Embedder, query string) RetrievalResult {
		t.Helper()
		r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(e, threshold))
		res, err := r.Retrieve(ctx, query)
		require.NoError(t, err)
		return res
	}
	// At the threshold it links; just above, it does not.
	res := retrieve(cos-1e-6, emb, q)
	require.Equal(t, 1, res.Stats.LinkedByMeaning)
	alice := itemByID(res, ItemEntity, "alice")
	require.NotNil(t, alice)
	require.Equal(t, []string{"apollo", "alice"}, alice.Path)
	apollo := itemByID(res, ItemEntity, "apollo")
	require.NotNil(t, apollo)
	res = retrieve(math.Nextafter(cos, 2)+1e-6, emb, q)
	require.Zero(t, res.Stats.LinkedByMeaning)
	require.Empty(t, res.Items)

	// Exact linking comes first: no fallback when the question names an
	// entity, and no Embed call.
	counted := &wordEmbedder{dims: 256}
	res = retrieve(0.01, counted, "who leads Project Apollo")
	require.Zero(t, res.Stats.LinkedByMeaning)
	require.Equal(t, 1, res.Stats.Linked)
	require.Zero(t, counted.calls.Load())

	// An embedder that fails: a warning wrapping ErrEmbedding, the answer
	// stands. The query is embedded first.
	offline := errors.New("model offline")
	res = retrieve(0, &wordEmbedder{dims: 8, fail: offline}, q)
	require.Equal(t, []string{`graph "graph": linking by meaning: skipped: embed query "who leads the crewed rocket program": model offline: embedding failed`}, res.Warnings)
	require.ErrorIs(t, res.Errors[0], ErrEmbedding)
	require.ErrorIs(t, res.Errors[0], offline)

	// A graph without a change feed is not linked by meaning.
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(plainGraph{g}), WithLinkEmbedder(emb, 0.01))
	res, err = r.Retrieve(ctx, q)
	require.NoError(t, err)
	require.Zero(t, res.Stats.LinkedByMeaning)

	for _, bad := range []float64{-0.1, 1.1, math.NaN()} {
		_, err := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, bad)).Retrieve(ctx, q)
		require.ErrorIs(t, err, ErrInvalidArgument)
	}
}

// answerEmbedder returns answer(texts) from Embed.
type answerEmbedder struct {
	dims   int
	answer func(texts []string) [][]float32
}

func (e answerEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "answer", Dimensions: e.dims}
}
func (e answerEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return e.answer(texts), nil
}

// TestLinkingByMeaningChecksVectors: linking by meaning checks an
// embedder's answer as the store does: the wrong number of vectors, the
// wrong length, NaN or ±Inf are a warning wrapping ErrEmbedding and link
// nothing. A zero vector is kept and links nothing, without a warning: one
// entity's text must not stop every link. A model the store would refuse
// is an invalid option.
func TestLinkingByMeaningChecksVectors(t *testing.T) {
	ctx := context.Background()
	g, _ := seedMemory(t)
	const q = "who leads the crewed rocket program"
	words := &wordEmbedder{dims: 64}
	for _, c := range []struct {
		name  string
		spoil func(vs [][]float32) [][]float32
		warn  string
	}{
		{"count", func(vs [][]float32) [][]float32 { return vs[1:] }, "returned 2 vectors for 3 texts"},
		{"length", func(vs [][]float32) [][]float32 { vs[0] = vs[0][:3]; return vs }, "a vector of 3 dimensions, want 64"},
		{"nan", func(vs [][]float32) [][]float32 { vs[0][0] = float32(math.NaN()); return vs }, "returned NaN at index 0"},
		{"inf", func(vs [][]float32) [][]float32 { vs[0][0] = float32(math.Inf(-1)); return vs }, "returned -Inf at index 0"},
		{"zero", func(vs [][]float32) [][]float32 { clear(vs[len(vs)-1]); return vs }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := answerEmbedder{dims: 64, answer: func(texts []string) [][]float32 {
				vs, err := words.Embed(ctx, texts)
				require.NoError(t, err)
				if len(texts) > 1 { // the entities, not the query
					vs = c.spoil(vs)
				}
				return vs
			}}
			res, err := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(e, 0.01)).Retrieve(ctx, q)
			require.NoError(t, err)
			if c.warn == "" {
				require.Empty(t, res.Warnings)
				require.Positive(t, res.Stats.LinkedByMeaning)
				return
			}
			require.Zero(t, res.Stats.LinkedByMeaning)
			require.Len(t, res.Errors, 1)
			require.ErrorIs(t, res.Errors[0], ErrEmbedding)
			require.Contains(t, res.Warnings[0], c.warn)
			require.NotContains(t, res.Warnings[0], "kgmem:")
		})
	}
	for _, m := range []int{0, -1, 1<<16 + 1} {
		_, err := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(answerEmbedder{dims: m}, 0)).Retrieve(ctx, q)
		require.ErrorIs(t, err, ErrInvalidArgument)
		require.ErrorContains(t, err, "WithLinkEmbedder")
	}
}

func TestLinkingByMeaningRefreshesIncrementally(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	var ents []Entity
	for i := range 100 {
		ents = append(ents, Entity{ID: fmt.Sprintf("e%03d", i), Name: fmt.Sprintf("Thing %d", i)})
	}
	require.NoError(t, g.AddBatch(ctx, ents, nil))
	emb := &wordEmbedder{dims: 64}
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0.5))
	const q = "the lunar rover"
	_, err := r.Retrieve(ctx, q)
	require.NoError(t, err)
	require.EqualValues(t, 101, emb.texts.Load()) // every entity, then the query
	require.EqualValues(t, 3, emb.calls.Load())   // 64 + 36 entities, the query

	require.NoError(t, g.AddEntity(ctx, Entity{ID: "rover", Name: "Moon Buggy", Description: "the lunar rover"}))
	require.NoError(t, g.AddEntity(ctx, Entity{ID: "e000", Name: "Thing 0", Tags: []string{"x"}})) // same text
	res, err := r.Retrieve(ctx, q)
	require.NoError(t, err)
	require.EqualValues(t, 103, emb.texts.Load()) // the new entity and the query
	require.Equal(t, "rover", res.Items[0].ID())

	require.NoError(t, g.RemoveEntity(ctx, "rover"))
	res, err = r.Retrieve(ctx, q)
	require.NoError(t, err)
	require.Empty(t, res.Items)
	x := r.meaning.indexes[0]
	require.Len(t, x.ids, 100)
	require.Len(t, x.vecs, 100*64)
}

// blockingEmbedder blocks until ctx is done.
type blockingEmbedder struct{ started chan struct{} }

func (blockingEmbedder) Model() EmbeddingModel { return EmbeddingModel{Name: "block", Dimensions: 4} }
func (b blockingEmbedder) Embed(ctx context.Context, _ []string) ([][]float32, error) {
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestPipelineHonoursContextAndLeavesNoGoroutines(t *testing.T) {
	g, s := seedMemory(t)
	before := runtime.NumGoroutine()
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		emb := blockingEmbedder{started: make(chan struct{}, 1)}
		r := NewMemoryRetriever(s, RetrieverConfig{MMRLambda: 0.5}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0),
			WithReranker(&scriptedReranker{scores: nil}, 0))
		done := make(chan error, 1)
		go func() {
			_, err := r.Retrieve(ctx, "who leads the rocket program")
			done <- err
		}()
		<-emb.started
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	}
	// Cancelled before the seeded pass.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewMemoryRetriever(s, RetrieverConfig{Seed: SeedAlways}, WithKnowledgeGraph(g)).Retrieve(ctx, "rocket")
	require.ErrorIs(t, err, context.Canceled)
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before)
}

func TestPipelineIsDeterministic(t *testing.T) {
	g, s := seedMemory(t)
	r := NewMemoryRetriever(s, RetrieverConfig{Seed: SeedAlways, MMRLambda: 0.7}, WithKnowledgeGraph(g),
		WithLinkEmbedder(&wordEmbedder{dims: 64}, 0.1), WithNamedKnowledgeGraph("second", g))
	var first string
	for i := range 20 {
		res, err := r.Retrieve(context.Background(), "who leads the rocket program")
		require.NoError(t, err)
		var b strings.Builder
		for _, it := range res.Items {
			fmt.Fprintf(&b, "%s %s %v %s|", it.Kind, it.ID(), it.Score, it.Source)
		}
		if i == 0 {
			first = b.String()
			continue
		}
		require.Equal(t, first, b.String())
	}
}

// TestSeededWalksReadAsOf: walks from seeds read the graph as of the
// retriever's instant, like walks from named entities: a relation that has
// ended is not walked by default, and is as of an instant inside it.
func TestSeededWalksReadAsOf(t *testing.T) {
	ctx := context.Background()
	g, s := seedMemory(t)
	start, end := time.Date(1961, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1972, 12, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, g.AddRelation(ctx, Relation{SourceID: "alice", TargetID: "apollo", Type: "leads",
		SourceIDs: []string{"charter"}, ValidFrom: start, ValidTo: end}))
	const q = "who leads the rocket program"

	res, err := NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g)).Retrieve(ctx, q)
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Seeded)
	require.Nil(t, itemByID(res, ItemEntity, "alice"), "the ended relation was walked")

	res, err = NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithAsOf(At(time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC)))).Retrieve(ctx, q)
	require.NoError(t, err)
	alice := itemByID(res, ItemEntity, "alice")
	require.NotNil(t, alice)
	require.Equal(t, []string{"apollo", "alice"}, alice.Path)
}

// TestMemoryRetrieverUsesTheEmbedder: a memory opened with an embedder
// links by meaning with it, at the default threshold; without one it
// does not.
func TestMemoryRetrieverUsesTheEmbedder(t *testing.T) {
	emb := &wordEmbedder{dims: 64}
	m, err := OpenMemory(t.TempDir(), WithEmbedder(emb))
	require.NoError(t, err)
	defer m.Close()
	require.NotNil(t, m.Retriever().meaning)
	require.Same(t, emb, m.Retriever().linkEmbedder)
	require.Zero(t, m.Retriever().linkThreshold, "0 means defaultLinkThreshold")

	plain, err := OpenMemory(t.TempDir())
	require.NoError(t, err)
	defer plain.Close()
	require.Nil(t, plain.Retriever().meaning)
}
