package kgmem

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/spread"
	"github.com/stretchr/testify/require"
)

// TestFreeTextTypes pins when SpreadAuto reads a graph's relation types as
// free text: from 50 relations, with at least 100 distinct types or more
// than one per five relations.
func TestFreeTextTypes(t *testing.T) {
	for _, tc := range []struct {
		relations, types int
		want             bool
	}{
		{49, 49, false},   // too few relations
		{50, 11, true},    // 11 > 50/5
		{50, 10, false},   // 10 = 50/5
		{1000, 99, false}, // fewer than 100 and one per ten relations
		{1000, 100, true}, // 100 types
		{1000, 201, true},
	} {
		t.Run(fmt.Sprintf("%d relations, %d types", tc.relations, tc.types), func(t *testing.T) {
			g := NewInMemoryGraph()
			var es []Entity
			var rs []Relation
			for i := 0; i <= tc.relations; i++ {
				es = append(es, Entity{ID: fmt.Sprintf("e%d", i)})
			}
			for i := 0; i < tc.relations; i++ {
				rs = append(rs, Relation{SourceID: fmt.Sprintf("e%d", i), TargetID: fmt.Sprintf("e%d", i+1), Type: fmt.Sprintf("t%d", i%tc.types)})
			}
			require.NoError(t, g.AddBatch(context.Background(), es, rs))
			require.Equal(t, tc.want, g.freeTextTypes())
		})
	}
}

// TestSpreadPagesWeighsTheAskedRelation pins page spreading's split on a
// star: Big Eye (the seed) with a relation "directed by" to Jon Vale and
// one "filmed in" to Lyon, each cited by a page of its own. All that
// reaches Jon and Lyon comes from the seed, split in proportion to the
// relations' weights: 1 + spreadAsked (2) for the type that shares a word
// with the question, 1 for the other, so their pages' masses stand 2 : 1;
// a question that shares no word with either type splits evenly.
func TestSpreadPagesWeighsTheAskedRelation(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []Entity{
		{ID: "big_eye", Name: "Big Eye", SourceIDs: []string{"film"}},
		{ID: "jon", Name: "Jon Vale", SourceIDs: []string{"jon"}},
		{ID: "lyon", Name: "Lyon", SourceIDs: []string{"lyon"}},
	}, []Relation{
		{SourceID: "big_eye", TargetID: "jon", Type: "directed by"},
		{SourceID: "big_eye", TargetID: "lyon", Type: "filmed in"},
	}))
	mass := func(q string) map[string]float64 {
		g.mu.RLock()
		defer g.mu.RUnlock()
		pages, err := g.spreadPages(ctx, q, func() []ScoredPage { return nil }, AsOf{}, 0)
		require.NoError(t, err)
		out := map[string]float64{}
		for _, p := range pages {
			out[p.Page] = p.Score
		}
		return out
	}
	got := mass("Who directed Big Eye?")
	require.InDelta(t, 2, got["jon"]/got["lyon"], 1e-9, "%v", got)
	got = mass("Where was Big Eye filmed?")
	require.InDelta(t, 2, got["lyon"]/got["jon"], 1e-9, "%v", got)
	got = mass("Tell me about Big Eye")
	require.InDelta(t, 1, got["jon"]/got["lyon"], 1e-12, "%v", got)
}

// TestEarlySpread: page spreading run beside the channels completes every
// graph run with the pages a run after the channels finds: for a question
// that names an entity without waiting for the content channel, and for
// one that names none once the content channel answered (its seeds are
// the best text hits).
func TestEarlySpread(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []Entity{
		{ID: "big_eye", Name: "Big Eye", SourceIDs: []string{"film"}},
		{ID: "jon", Name: "Jon Vale", SourceIDs: []string{"jon"}},
	}, []Relation{{SourceID: "big_eye", TargetID: "jon", Type: "directed by"}}))
	s := NewInMemoryKnowledgeStore()
	require.NoError(t, s.Put(ctx, KnowledgePage{ID: "film", Content: "Big Eye is a film."}))
	r := NewMemoryRetriever(s, RetrieverConfig{Spread: SpreadOn}, WithKnowledgeGraph(g))
	cfg := r.cfg
	for _, tc := range []struct {
		q     string
		named bool
	}{
		{"Who directed Big Eye?", true},
		{"Who made the film?", false},
	} {
		runs := r.plan(Hybrid)
		contentDone := make(chan struct{})
		e := r.startSpread(ctx, cfg, tc.q, runs, contentDone)
		if tc.named {
			// It must finish while the content channel has not answered.
			select {
			case <-e.done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: page spreading waited for the content channel", tc.q)
			}
		}
		for i := range runs {
			if runs[i].content {
				r.runSource(ctx, cfg, tc.q, &runs[i])
			}
		}
		close(contentDone)
		content := func() []ScoredPage { return seedPages(runs, spreadSeedPages) }
		if tc.named {
			content = func() []ScoredPage { t.Fatal("asked for text hits"); return nil }
		}
		for i := range runs {
			got, ok := e.get(i)
			if runs[i].content {
				require.False(t, ok, "a content run")
				continue
			}
			require.True(t, ok, tc.q)
			want, err := r.spreadRun(ctx, cfg, tc.q, &runs[i], content)
			require.NoError(t, err)
			require.NotEmpty(t, want, tc.q)
			require.Equal(t, want, got, tc.q)
		}
	}
	var none *earlySpread
	_, ok := none.get(0)
	require.False(t, ok)
}

// TestSpreadPagesCreditsStatedRelations pins the share page spreading
// hands the pages that state a relation activation flowed along: the seed
// Big Eye (cited by no page) passes spreadDamping of its weight, 1, along
// its one relation to Jon Vale, whose page cites him; the relation is
// stated by the page "credits" alone, which cites neither end, so its
// score is spreadStated × that flow, and Jon's page gets what Jon keeps
// over the last steps.
func TestSpreadPagesCreditsStatedRelations(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []Entity{
		{ID: "big_eye", Name: "Big Eye"},
		{ID: "jon", Name: "Jon Vale", SourceIDs: []string{"jon"}},
	}, []Relation{{SourceID: "big_eye", TargetID: "jon", Type: "directed by", SourceIDs: []string{"credits"}}}))
	g.mu.RLock()
	pages, err := g.spreadPages(ctx, "Who directed Big Eye?", func() []ScoredPage { return nil }, AsOf{}, 0)
	g.mu.RUnlock()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, p := range pages {
		got[p.Page] = p.Score
	}
	require.Len(t, got, 2, "%v", got)
	// Step 1: Big Eye passes 0.5 to Jon. Jon passes half of what he gets
	// back along the same relation, and so on: the flow along the relation
	// is 0.5 + 0.25 + 0.125 over the three steps; every entity keeps half of
	// what reaches it.
	flow := 0.5 + 0.25 + 0.125
	require.InDelta(t, spread.Stated*flow, got["credits"], 1e-12)
	require.InDelta(t, 0.5*(0.5+0.125), got["jon"], 1e-12)
}
