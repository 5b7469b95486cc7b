package kgmem_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// answerGraph builds a graph of typed entities (ID = Name) and unweighted
// relations given as "source relation target".
func answerGraph(t *testing.T, types map[string]string, relations ...[3]string) *kgmem.InMemoryGraph {
	t.Helper()
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for name, typ := range types {
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: name, Name: name, Type: typ}))
	}
	for _, r := range relations {
		require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: r[0], Type: r[1], TargetID: r[2], Weight: 1}))
	}
	return g
}

// firstAnswer returns the best entity the graph channel reached through a
// relation, and its explanation.
func firstAnswer(t *testing.T, r *kgmem.MemoryRetriever, question string) (string, string) {
	t.Helper()
	res, err := r.Retrieve(context.Background(), question)
	require.NoError(t, err)
	for _, it := range res.Items {
		if it.Kind == kgmem.ItemEntity && len(it.Path) > 1 {
			return it.Entity.ID, it.Explain()
		}
	}
	return "", ""
}

func graphOnlyRetriever(g kgmem.KnowledgeGraph, cfg kgmem.RetrieverConfig) *kgmem.MemoryRetriever {
	return kgmem.NewMemoryRetriever(nil, cfg, kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.GraphOnly))
}

// TestRetrieveFollowsTheWording checks that the graph channel walks the
// relation a question asks about, in the direction its wording gives, on a
// graph where every entity is a person so that only the words decide.
func TestRetrieveFollowsTheWording(t *testing.T) {
	people := map[string]string{"Ann": "person", "Bob": "person", "Cid": "person", "Dee": "person", "Eve": "person"}
	g := answerGraph(t, people,
		[3]string{"Ann", "reports_to", "Bob"},
		[3]string{"Cid", "reports_to", "Ann"},
		[3]string{"Ann", "spouse", "Dee"},
		[3]string{"Dee", "parents", "Eve"},
		[3]string{"Ann", "parents", "Cid"},
		[3]string{"Cid", "spouse", "Eve"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	tests := []struct{ question, want string }{
		{"who does Ann report to?", "Bob"},
		{"who reports to Ann?", "Cid"},
		{"who is Ann's manager?", "Bob"},
		{"who is the boss of Ann?", "Bob"},
		{"who manages Ann?", "Bob"},     // "manage" is "report to" read backwards
		{"who does Ann manage?", "Cid"}, // and as a verb only
		{"name Ann's subordinates", "Cid"},
		{"who is Ann's wife?", "Dee"},
		{"who is Ann's wife's mother?", "Eve"},      // spouse, then parents
		{"who is the mother of Ann's wife?", "Eve"}, // the same, worded the other way
		{"who is the wife of Ann's father?", "Eve"}, // parents, then spouse
		{"whose child is Cid?", "Ann"},              // parents walked backwards
	}
	for _, tt := range tests {
		got, why := firstAnswer(t, r, tt.question)
		require.Equal(t, tt.want, got, "%s: %s", tt.question, why)
	}
}

func TestRetrievePivotsThroughSharedNeighbour(t *testing.T) {
	g := answerGraph(t, map[string]string{"Alien": "movie", "Aliens": "movie", "Heat": "movie", "Sigourney": "person", "Al": "person"},
		[3]string{"Alien", "starred_actors", "Sigourney"},
		[3]string{"Aliens", "starred_actors", "Sigourney"},
		[3]string{"Heat", "starred_actors", "Al"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	got, why := firstAnswer(t, r, "which movies share actors with Alien?")
	require.Equal(t, "Aliens", got, why)
	require.Equal(t, `Alien —starred_actors→ Sigourney ←starred_actors— Aliens (starred_actors ← "actors"; starred_actors ← "actors"; movie ← "movies")`, why)
	got, _ = firstAnswer(t, r, "who starred in Alien?")
	require.Equal(t, "Sigourney", got)
}

// TestRetrievePivotsOnce: a question asking for a shared neighbour ("other
// films by Alpha's writer") pivots once. Walking the same relation back
// out a second time (film → writer → film → another writer of that film)
// is a hop no word of the question names, not a second reading of
// "writer": no explanation gives one word to three hops, and the walk
// that does so no longer answers first.
func TestRetrievePivotsOnce(t *testing.T) {
	g := answerGraph(t, map[string]string{"Alpha": "film", "Beta": "film", "Wes": "person", "Wren": "person", "Cole": "person"},
		[3]string{"Alpha", "writer", "Wes"},
		[3]string{"Beta", "writer", "Wes"},
		[3]string{"Beta", "writer", "Wren"},
		[3]string{"Beta", "composer", "Cole"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	q := "name the musicians behind other films by Alpha's writer"
	res, err := r.Retrieve(context.Background(), q)
	require.NoError(t, err)
	for _, it := range res.Items {
		require.LessOrEqual(t, strings.Count(it.Explain(), `writer ← "writer"`), 2, it.Explain())
	}
	got, why := firstAnswer(t, r, q)
	require.NotEqual(t, "Wren", got, why)
	got, why = firstAnswer(t, r, "what are the other films by Alpha's writer?")
	require.Equal(t, "Beta", got, why)
}

// TestRetrieveRelativeClauseOrder: in "the movies the director of X
// penned", the verb after the mention ends a relative clause whose subject
// is "the director of X", so the walk reads director first, then penned;
// after an auxiliary ("… of X were directed by whom") the verb stays the
// main clause's.
func TestRetrieveRelativeClauseOrder(t *testing.T) {
	g := answerGraph(t, map[string]string{
		"Joan's Century": "movie", "Alpha": "movie", "Beta": "movie",
		"Dana": "person", "Carl": "person", "French": "language", "English": "language",
	},
		[3]string{"Dana", "directed", "Joan's Century"},
		[3]string{"Joan's Century", "writer", "Carl"},
		[3]string{"Alpha", "writer", "Dana"},
		[3]string{"Carl", "directed", "Beta"},
		[3]string{"Alpha", "original_language", "French"},
		[3]string{"Beta", "original_language", "English"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	got, why := firstAnswer(t, r, "What language are the movies the director of Joan's Century penned in?")
	require.Equal(t, "French", got, why)
	require.Equal(t, `Joan's Century ←directed— Dana ←writer— Alpha —original_language→ French (directed ← "director"; writer ← "penned"; original_language ← "language"; language ← "language")`, why)
	got, why = firstAnswer(t, r, "What language are the movies the writer of Joan's Century directed in?")
	require.Equal(t, "English", got, why)
}

func TestRetrieveRelativeClauseIsNotTheAnswerType(t *testing.T) {
	// The "who" of a relative clause ("the films produced by the people who
	// starred in X") and the subject after "what do" ("what do people
	// speak") name no answer type: each question's three-hop answer must
	// rank above a person that a walk of as many named hops reaches
	// (Delta —follows→ Zeta —producer→ Carl; Gamma —producer→ Dana).
	g := answerGraph(t, map[string]string{
		"Alpha": "movie", "Beta": "movie", "Gamma": "movie", "Delta": "movie", "Epsilon": "movie", "Zeta": "movie",
		"Dana": "person", "Carl": "person", "French": "language",
	},
		[3]string{"Alpha", "producer", "Dana"},
		[3]string{"Beta", "writer", "Carl"},
		[3]string{"Beta", "producer", "Dana"},
		[3]string{"Carl", "directed", "Gamma"},
		[3]string{"Gamma", "original_language", "French"},
		[3]string{"Delta", "acted_in", "Dana"},
		[3]string{"Epsilon", "producer", "Dana"},
		[3]string{"Epsilon", "follows", "Alpha"},
		[3]string{"Delta", "follows", "Zeta"},
		[3]string{"Zeta", "producer", "Carl"},
		[3]string{"Gamma", "producer", "Dana"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	got, why := firstAnswer(t, r, "What do people speak in the films directed by the people who penned Beta?")
	require.Equal(t, "French", got, why)
	got, why = firstAnswer(t, r, "What is the prequel to the films produced by the people who starred in Delta?")
	require.Equal(t, "Alpha", got, why)
}

func TestRetrievePivotsOverTheCompoundsRelation(t *testing.T) {
	// "Dana's co-stars" are who acted with Dana: the walk pivots over
	// acted_in, right after the hop "stars" names, and then follows
	// "wrote". A pivot after "wrote" (Dana —acted_in→ Alpha ←writer— Carl
	// —writer→ Gamma, another film by Alpha's writer) reads the same words,
	// and with Erin's writing credit weighted 0.7 it would rank first if the
	// walk could pivot there.
	g := answerGraph(t, map[string]string{
		"Alpha": "movie", "Beta": "movie", "Gamma": "movie",
		"Dana": "person", "Carl": "person", "Erin": "person",
	},
		[3]string{"Dana", "acted_in", "Alpha"},
		[3]string{"Erin", "acted_in", "Alpha"},
		[3]string{"Carl", "writer", "Alpha"},
		[3]string{"Carl", "writer", "Gamma"},
	)
	require.NoError(t, g.AddRelation(context.Background(), kgmem.Relation{SourceID: "Erin", Type: "writer", TargetID: "Beta", Weight: 0.7}))
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	got, why := firstAnswer(t, r, "What are the movies Dana's co-stars wrote?")
	require.Equal(t, "Beta", got, why)
}

func TestRetrievePivotsAfterAVerbWith(t *testing.T) {
	// "the people who acted with Dana" are who acted in Dana's films: a
	// pivot over acted_in right after the hop "acted" names, though the
	// question has no word for something shared. Without it the best walk
	// reads "directed" for the second hop and lands on another film of
	// Alpha's director over a hop no word names.
	g := answerGraph(t, map[string]string{
		"Alpha": "movie", "Beta": "movie", "Gamma": "movie",
		"Dana": "person", "Carl": "person", "Erin": "person",
	},
		[3]string{"Dana", "acted_in", "Alpha"},
		[3]string{"Erin", "acted_in", "Alpha"},
		[3]string{"Erin", "directed", "Beta"},
		[3]string{"Carl", "directed", "Alpha"},
		[3]string{"Carl", "directed", "Gamma"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	got, why := firstAnswer(t, r, "Tell me the films directed by the people who acted with Dana")
	require.Equal(t, "Beta", got, why)
}

func TestRetrieveAttributeQuestions(t *testing.T) {
	// "how good" and "how old" ask for a film's rating and release year.
	g := answerGraph(t, map[string]string{
		"Alpha": "movie", "Beta": "movie", "7.3": "rating", "1999": "year",
	},
		[3]string{"Beta", "follows", "Alpha"},
		[3]string{"Beta", "rated", "7.3"},
		[3]string{"Beta", "released", "1999"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	for question, want := range map[string]string{
		"How good is the follow-up to Alpha?": "7.3",
		"How old is the follow-up to Alpha?":  "1999",
	} {
		got, why := firstAnswer(t, r, question)
		require.Equal(t, want, got, "%s: %s", question, why)
	}
}

func TestRetrieveAnswerTypeNamesAnUnnamedHop(t *testing.T) {
	// "what team is Ann in" names no relation: the type decides.
	g := answerGraph(t, map[string]string{"Ann": "person", "Payments": "team", "Apollo": "project", "Berlin": "city"},
		[3]string{"Ann", "member_of", "Payments"},
		[3]string{"Ann", "assigned", "Apollo"},
		[3]string{"Ann", "based_in", "Berlin"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	for question, want := range map[string]string{
		"what team is Ann in?":        "Payments",
		"which project is Ann on?":    "Apollo",
		"Ann在哪个团队":                    "Payments",
		"where is Ann based?":         "Berlin",
		"list the cities of Ann":      "Berlin",
		"Ann is on which project now": "Apollo",
	} {
		got, why := firstAnswer(t, r, question)
		require.Equal(t, want, got, "%s: %s", question, why)
	}
}

func TestRetrieveIssueExample(t *testing.T) {
	// 张三负责什么项目？ with MaxResults 5: the project 张三 works on first,
	// above 张三 himself, an unweighted owns neighbour, a manager and the
	// pages that cite him.
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, e := range []kgmem.Entity{
		{ID: "p:zs", Name: "张三", Type: "person", SourceIDs: []string{"hr", "review"}},
		{ID: "prj:a", Name: "项目A", Type: "project"},
		{ID: "laptop", Name: "笔记本电脑", Type: "asset"},
		{ID: "p:li", Name: "李四", Type: "person"},
	} {
		require.NoError(t, g.AddEntity(ctx, e))
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "p:zs", TargetID: "prj:a", Type: "works_on", Weight: 0.9},
		{SourceID: "p:zs", TargetID: "laptop", Type: "owns"},
		{SourceID: "p:zs", TargetID: "p:li", Type: "reports_to", Weight: 1},
	} {
		require.NoError(t, g.AddRelation(ctx, r))
	}
	s := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "hr", Title: "人事档案", Content: "入职 2021"}))
	require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "review", Title: "年度评估", Content: "表现良好"}))
	r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: 5}, kgmem.WithKnowledgeGraph(g))
	res, err := r.Retrieve(ctx, "张三负责什么项目？")
	require.NoError(t, err)
	require.Equal(t, "prj:a", res.Items[0].ID(), res.ContextBlock(0))
	require.Equal(t, []string{"负责"}, res.Items[0].Matched)
}

func TestRetrieveWeakMentions(t *testing.T) {
	// "the score" is also a film's title, and "gender" an entity's name:
	// plain words of the question when it names something else.
	g := answerGraph(t, map[string]string{
		"Roy's Carnival": "movie", "The Score": "movie", "5.8": "rating", "Gender": "concept", "Drama": "genre",
	},
		[3]string{"Roy's Carnival", "rated", "5.8"},
		[3]string{"Roy's Carnival", "genre", "Drama"},
		[3]string{"The Score", "rated", "5.8"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	res, err := r.Retrieve(context.Background(), "what is the score of roy's carnival")
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Linked)
	got, why := firstAnswer(t, r, "what is the score of roy's carnival")
	require.Equal(t, "5.8", got, why)
	// Named alone, a weak mention still counts.
	res, err = r.Retrieve(context.Background(), "the score")
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Linked)
	require.Equal(t, "The Score", res.Items[0].ID())
}

func TestRetrieveVocabulary(t *testing.T) {
	g := answerGraph(t, map[string]string{"Alien": "flick", "Ridley": "person", "Jerry": "person", "Ann": "person", "Bo": "person"},
		[3]string{"Alien", "dir", "Ridley"},
		[3]string{"Alien", "prod", "Jerry"},
		[3]string{"Ann", "parent_of", "Bo"},
	)
	plain := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	got, _ := firstAnswer(t, plain, "who was behind the camera of Alien?")
	require.Equal(t, "Jerry", got, "without a vocabulary the two relations tie, broken by ID")
	v := kgmem.Vocabulary{
		Relations:        map[string][]string{"dir": {"behind the camera", "导演"}},
		InverseRelations: map[string][]string{"parent_of": {"mother"}},
		Types:            map[string][]string{"flick": {"film", "电影"}},
	}
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{Vocabulary: v})
	got, why := firstAnswer(t, r, "who was behind the camera of Alien?")
	require.Equal(t, "Ridley", got, why)
	require.Contains(t, why, `dir ← "behind the camera"`)
	got, _ = firstAnswer(t, r, "Alien的导演是谁")
	require.Equal(t, "Ridley", got)
	got, why = firstAnswer(t, r, "who is Bo's mother?")
	require.Equal(t, "Ann", got, why)
	got, _ = firstAnswer(t, r, "which film did Ridley make?")
	require.Equal(t, "Alien", got)

	bad := graphOnlyRetriever(g, kgmem.RetrieverConfig{Vocabulary: kgmem.Vocabulary{Relations: map[string][]string{"": {"x"}}}})
	_, err := bad.Retrieve(context.Background(), "Alien")
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}

func TestRetrieveHubCostsTheBudget(t *testing.T) {
	t.Parallel()
	// A genre with 20,000 films: a question through it follows at most the
	// fan-out budget of them and still answers.
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	es := make([]kgmem.Entity, 0, 20_002)
	rs := make([]kgmem.Relation, 0, 20_001)
	es = append(es, kgmem.Entity{ID: "Drama", Name: "Drama", Type: "genre"}, kgmem.Entity{ID: "Ann", Name: "Ann", Type: "person"})
	for i := range 20_000 {
		id := fmt.Sprintf("film-%05d", i)
		es = append(es, kgmem.Entity{ID: id, Name: id, Type: "movie"})
		rs = append(rs, kgmem.Relation{SourceID: id, TargetID: "Drama", Type: "genre", Weight: 1})
	}
	rs = append(rs, kgmem.Relation{SourceID: "film-00042", TargetID: "Ann", Type: "directed_by", Weight: 1})
	require.NoError(t, g.AddBatch(ctx, es, rs))
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{MaxResults: 100})
	res, err := r.Retrieve(ctx, "which Drama movies are there?")
	require.NoError(t, err)
	films := 0
	for _, it := range res.Items {
		if it.Entity.Type == "movie" {
			films++
		}
	}
	require.Equal(t, 32, films, "the fan-out budget: 32 relations of one type and direction per walk")
	got, _ := firstAnswer(t, r, "who directed film-00042?")
	require.Equal(t, "Ann", got)
}
