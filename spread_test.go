package kgmem_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kgmem/kgmem"
)

// spreadFixture is a memory as a model's open extraction builds it: a
// film's page, the page of its director, which shares no word with the
// question about the director's spouse, and thirty pages that cite the
// generic nodes "director" and "spouse", with relation types from types.
func spreadFixture(t *testing.T, types func(i int) string) (*kgmem.InMemoryKnowledgeStore, *kgmem.InMemoryGraph) {
	t.Helper()
	ctx := context.Background()
	s, g := kgmem.NewInMemoryKnowledgeStore(), kgmem.NewInMemoryGraph()
	ingest := func(page kgmem.KnowledgePage, rels ...[3]string) {
		t.Helper()
		require.NoError(t, s.Put(ctx, page))
		var x kgmem.Extraction
		seen := map[string]bool{}
		for _, r := range rels {
			x.Relations = append(x.Relations, kgmem.ExtractedRelation{Source: r[0], Type: r[1], Target: r[2]})
			for _, n := range []string{r[0], r[2]} {
				if !seen[n] {
					seen[n] = true
					x.Entities = append(x.Entities, kgmem.ExtractedEntity{Name: n})
				}
			}
		}
		_, err := kgmem.Ingest(ctx, g, x, kgmem.WithSource(page.ID))
		require.NoError(t, err)
	}
	ingest(kgmem.KnowledgePage{ID: "film", Title: "Big Eye", Content: "Big Eye is a 2001 film; its director was Jon Vale."},
		[3]string{"Big Eye", types(0), "Jon Vale"}, [3]string{"Big Eye", types(1), "director"})
	ingest(kgmem.KnowledgePage{ID: "jon", Title: "Jon Vale", Content: "Jon Vale married Mia Roe in 1990 in Lyon."},
		[3]string{"Jon Vale", types(2), "Mia Roe"}, [3]string{"Jon Vale", types(3), "Lyon"})
	for i := range 30 {
		name := fmt.Sprintf("Film %02d", i)
		ingest(kgmem.KnowledgePage{ID: fmt.Sprintf("filler%02d", i), Content: fmt.Sprintf("%s had a director whose spouse acted in it.", name)},
			[3]string{name, types(4 + 2*i), "director"}, [3]string{name, types(5 + 2*i), "spouse"})
	}
	return s, g
}

func pageRank(res kgmem.RetrievalResult, id string) int {
	var pages []string
	for _, it := range res.Items {
		if it.Kind == kgmem.ItemPage {
			pages = append(pages, it.Page.ID)
		}
	}
	return slices.Index(pages, id)
}

func itemIDs(items []kgmem.RetrievalItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID()
	}
	return out
}

// TestPageSpreading: the question names Big Eye; page spreading follows
// its relations to Jon Vale and ranks Jon Vale's page among the first ten,
// after the film's, although it shares no word with the question, above
// most of the thirty pages that match the question's words and cite its
// generic nodes; the text search alone never returns it. SpreadAuto spreads over a graph whose relation
// types are free text, and not over one with one type per kind of fact,
// unless SpreadOn says so.
func TestPageSpreading(t *testing.T) {
	ctx := context.Background()
	const q = "Who is the spouse of the director of Big Eye?"
	freeText := func(i int) string { return fmt.Sprintf("was credited in role %d as", i) }
	fixed := func(i int) string { return []string{"directed_by", "has_role", "married", "lived_in"}[min(i, 3)] }
	retrieve := func(t *testing.T, s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph, cfg kgmem.RetrieverConfig, opts ...kgmem.RetrieverOption) kgmem.RetrievalResult {
		t.Helper()
		cfg.MaxResults = 100
		res, err := kgmem.NewMemoryRetriever(s, cfg, append([]kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)}, opts...)...).Retrieve(ctx, q)
		require.NoError(t, err)
		return res
	}
	for _, tc := range []struct {
		name   string
		types  func(int) string
		mode   kgmem.SpreadMode
		spread bool
	}{
		{"free text, auto", freeText, kgmem.SpreadAuto, true},
		{"free text, on", freeText, kgmem.SpreadOn, true},
		{"free text, off", freeText, kgmem.SpreadOff, false},
		{"fixed types, auto", fixed, kgmem.SpreadAuto, false},
		{"fixed types, on", fixed, kgmem.SpreadOn, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, g := spreadFixture(t, tc.types)
			text := retrieve(t, s, g, kgmem.RetrieverConfig{}, kgmem.WithStrategy(kgmem.KnowledgeOnly))
			require.Equal(t, -1, pageRank(text, "jon"), "the text search alone")
			require.Equal(t, 0, pageRank(text, "film"), "the text search alone")
			hybrid := retrieve(t, s, g, kgmem.RetrieverConfig{Spread: tc.mode})
			for _, it := range hybrid.Items {
				require.True(t, it.Score >= 0 && it.Score <= 1, "score %v of %s", it.Score, it.ID())
			}
			r := pageRank(hybrid, "jon")
			if !tc.spread {
				require.True(t, r == -1 || r > 10, "without page spreading, Jon Vale's page is page %d", r)
				return
			}
			require.Equal(t, 0, pageRank(hybrid, "film"), "the best text hit keeps its place")
			require.True(t, r > 0 && r <= 10, "Jon Vale's page is page %d, want one of the first ten after the film's", r)
			again := retrieve(t, s, g, kgmem.RetrieverConfig{Spread: tc.mode})
			require.Equal(t, itemIDs(hybrid.Items), itemIDs(again.Items), "deterministic")
		})
	}
}

// TestSpreadModeValidated: an unknown mode is an invalid configuration.
func TestSpreadModeValidated(t *testing.T) {
	r := kgmem.NewMemoryRetriever(kgmem.NewInMemoryKnowledgeStore(), kgmem.RetrieverConfig{Spread: kgmem.SpreadOn + 1})
	_, err := r.Retrieve(context.Background(), "anything")
	require.True(t, errors.Is(err, kgmem.ErrInvalidArgument), "%v", err)
	require.ErrorContains(t, err, "spread mode SpreadMode(3)")
	require.Equal(t, "auto", kgmem.SpreadAuto.String())
	require.Equal(t, "off", kgmem.SpreadOff.String())
	require.Equal(t, "on", kgmem.SpreadOn.String())
}

// TestPageSpreadingReadsQuestionTime: page spreading walks the graph as of
// the time the question's words say, as the graph channel's walk does.
// Maria's move from Berlin to Lisbon is the only way to their pages, which
// share no word with the questions; "in 2023" ranks Berlin's page above
// Lisbon's, the present tense Lisbon's above Berlin's, and an explicit
// WithAsOf wins over the words.
func TestPageSpreadingReadsQuestionTime(t *testing.T) {
	ctx := context.Background()
	day := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
	g := kgmem.NewInMemoryGraph(kgmem.WithClock(func() time.Time { return day(2026, time.June) }))
	s := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, s.PutBatch(ctx, []kgmem.KnowledgePage{
		{ID: "maria", Content: "Maria Costa is a violinist."},
		{ID: "berlin", Content: "The capital of Germany on the Spree."},
		{ID: "lisbon", Content: "The capital of Portugal on the Tagus."},
	}))
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "maria", Name: "Maria Costa", SourceIDs: []string{"maria"}},
		{ID: "berlin", Name: "Berlin", SourceIDs: []string{"berlin"}},
		{ID: "lisbon", Name: "Lisbon", SourceIDs: []string{"lisbon"}},
	}, []kgmem.Relation{
		{SourceID: "maria", TargetID: "berlin", Type: "lives_in", ValidFrom: day(2019, time.January), ValidTo: day(2024, time.March)},
		{SourceID: "maria", TargetID: "lisbon", Type: "lives_in", ValidFrom: day(2024, time.March)},
	}))
	for _, tc := range []struct {
		q      string
		opts   []kgmem.RetrieverOption
		before string
		after  string
	}{
		{"Where did Maria Costa live in 2023?", nil, "berlin", "lisbon"},
		{"Where does Maria Costa live?", nil, "lisbon", "berlin"},
		{"Where did Maria Costa live in 2023?", []kgmem.RetrieverOption{kgmem.WithAsOf(kgmem.At(day(2025, time.January)))}, "lisbon", "berlin"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			opts := append([]kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(g)}, tc.opts...)
			res, err := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Spread: kgmem.SpreadOn, MaxResults: 20}, opts...).Retrieve(ctx, tc.q)
			require.NoError(t, err)
			b := pageRank(res, tc.before)
			require.GreaterOrEqual(t, b, 0, "%s's page is missing: %v", tc.before, itemIDs(res.Items))
			if a := pageRank(res, tc.after); a >= 0 {
				require.Less(t, b, a, "%s's page ranks below %s's: %v", tc.before, tc.after, itemIDs(res.Items))
			}
		})
	}
}

// TestPageSpreadingCoCited: an entity that the extraction named on a page
// but left out of every triple is still reached from the page's other
// entities: the question names Big Eye, whose page also names Jon Vale
// with no relation between them, and Jon Vale's own page, which shares no
// word with the question, is ranked by page spreading; a page whose
// entities share no page with Big Eye's is not.
func TestPageSpreadingCoCited(t *testing.T) {
	ctx := context.Background()
	s, g := kgmem.NewInMemoryKnowledgeStore(), kgmem.NewInMemoryGraph()
	require.NoError(t, s.PutBatch(ctx, []kgmem.KnowledgePage{
		{ID: "film", Content: "Big Eye is a 2001 film directed by Jon Vale."},
		{ID: "jon", Content: "He married Mia Roe in Lyon."},
		{ID: "other", Content: "Ada Pike married Tom Reed in Nice."},
	}))
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "big_eye", Name: "Big Eye", SourceIDs: []string{"film"}},
		{ID: "year", Name: "2001", SourceIDs: []string{"film"}},
		{ID: "jon", Name: "Jon Vale", SourceIDs: []string{"film", "jon"}},
		{ID: "mia", Name: "Mia Roe", SourceIDs: []string{"jon"}},
		{ID: "ada", Name: "Ada Pike", SourceIDs: []string{"other"}},
		{ID: "tom", Name: "Tom Reed", SourceIDs: []string{"other"}},
	}, []kgmem.Relation{
		{SourceID: "big_eye", TargetID: "year", Type: "released in"},
		{SourceID: "jon", TargetID: "mia", Type: "married"},
		{SourceID: "ada", TargetID: "tom", Type: "married"},
	}))
	res, err := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Spread: kgmem.SpreadOn, MaxResults: 20}, kgmem.WithKnowledgeGraph(g)).
		Retrieve(ctx, "Whom did the man behind Big Eye marry?")
	require.NoError(t, err)
	require.Equal(t, 0, pageRank(res, "film"), "%v", itemIDs(res.Items))
	require.Equal(t, 1, pageRank(res, "jon"), "%v", itemIDs(res.Items))
	require.Equal(t, -1, pageRank(res, "other"), "%v", itemIDs(res.Items))
}

// TestPageSpreadingFollowsTheAskedRelation: of two relations from the
// entity the question names, Hybrid with page spreading ranks first the
// page of the one whose type shares a word with the question (the walk
// follows it, and page spreading passes it more: see
// TestSpreadPagesWeighsTheAskedRelation for the split itself).
func TestPageSpreadingFollowsTheAskedRelation(t *testing.T) {
	ctx := context.Background()
	s, g := kgmem.NewInMemoryKnowledgeStore(), kgmem.NewInMemoryGraph()
	require.NoError(t, s.PutBatch(ctx, []kgmem.KnowledgePage{
		{ID: "film", Content: "Big Eye is a 2001 film."},
		{ID: "jon", Content: "A painter turned storyteller."},
		{ID: "lyon", Content: "A city on the Rhône."},
	}))
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "big_eye", Name: "Big Eye", SourceIDs: []string{"film"}},
		{ID: "jon", Name: "Jon Vale", SourceIDs: []string{"jon"}},
		{ID: "lyon", Name: "Lyon", SourceIDs: []string{"lyon"}},
	}, []kgmem.Relation{
		{SourceID: "big_eye", TargetID: "jon", Type: "directed by"},
		{SourceID: "big_eye", TargetID: "lyon", Type: "filmed in"},
	}))
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Spread: kgmem.SpreadOn, MaxResults: 20}, kgmem.WithKnowledgeGraph(g))
	for _, tc := range []struct{ q, first, second string }{
		{"Who directed Big Eye?", "jon", "lyon"},
		{"Where was Big Eye filmed?", "lyon", "jon"},
	} {
		res, err := r.Retrieve(ctx, tc.q)
		require.NoError(t, err)
		a, b := pageRank(res, tc.first), pageRank(res, tc.second)
		require.True(t, a >= 0 && b >= 0 && a < b, "%q: %s's page at %d, %s's at %d: %v", tc.q, tc.first, a, tc.second, b, itemIDs(res.Items))
	}
}

// TestPageSpreadingConcurrent: concurrent questions over one graph, some
// writing new relation types meanwhile, give each the answer it gives
// alone (run under -race).
func TestPageSpreadingConcurrent(t *testing.T) {
	ctx := context.Background()
	freeText := func(i int) string { return fmt.Sprintf("was credited in role %d as", i) }
	s, g := spreadFixture(t, freeText)
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{Spread: kgmem.SpreadOn, MaxResults: 20}, kgmem.WithKnowledgeGraph(g))
	qs := []string{"Who is the spouse of the director of Big Eye?", "Where did Jon Vale marry?", "Film 03 director"}
	want := make([][]string, len(qs))
	for i, q := range qs {
		res, err := r.Retrieve(ctx, q)
		require.NoError(t, err)
		want[i] = itemIDs(res.Items)
	}
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			for i := range 20 {
				q := (w + i) % len(qs)
				if w == 0 {
					// A writer: relations of new types between new entities,
					// which no question reaches.
					a, b := fmt.Sprintf("x%d", i), fmt.Sprintf("y%d", i)
					if err := g.AddBatch(ctx, []kgmem.Entity{{ID: a, Name: a}, {ID: b, Name: b}},
						[]kgmem.Relation{{SourceID: a, TargetID: b, Type: fmt.Sprintf("new type %d", i)}}); err != nil {
						errs <- err
						return
					}
					continue
				}
				res, err := r.Retrieve(ctx, qs[q])
				if err == nil && !slices.Equal(itemIDs(res.Items), want[q]) {
					err = fmt.Errorf("%q: %v, alone %v", qs[q], itemIDs(res.Items), want[q])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}
