package kgmemtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// ---------------------------------------------------------------------------
// Retrieve: the graph channel answers on the backend exactly as on the
// in-memory reference.

func retrieveChecks() []check {
	return []check{
		{"ParallelRelationsKeepTheAskedOne", checkRetrieveParallel},
		{"SameAsReferenceFixture", func(t *testing.T, g kgmem.KnowledgeGraph) {
			ref := kgmem.NewInMemoryGraph()
			for _, h := range []kgmem.KnowledgeGraph{g, ref} {
				addFixture(t, h)
			}
			requireSameRetrieve(t, ref, g, []string{
				"who works on project apollo?", "whom does Alice Smith know?", "who knows Bob?",
				"what does Ally work on?", "Bob", "how is Bob related to Project Apollo?",
			})
		}},
		{"SameAsReferenceRandom", checkRetrieveRandom},
		{"TimeAndConnectionQuestions", checkRetrieveTimeAndConnection},
	}
}

// checkRetrieveTimeAndConnection: questions that say when they ask about
// walk as of that time, and questions that ask how two entities are
// related answer with the path between them, as on the reference.
func checkRetrieveTimeAndConnection(t *testing.T, g kgmem.KnowledgeGraph) {
	ref := kgmem.NewInMemoryGraph()
	d := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
	for _, h := range []kgmem.KnowledgeGraph{g, ref} {
		addEntity(t, h, kgmem.Entity{ID: "person:maria", Name: "Maria", Type: "person"})
		addEntity(t, h, kgmem.Entity{ID: "person:li", Name: "李雷", Type: "person"})
		addEntity(t, h, kgmem.Entity{ID: "person:ann", Name: "Ann", Type: "person"})
		addEntity(t, h, kgmem.Entity{ID: "city:berlin", Name: "Berlin", Type: "city", Aliases: []string{"柏林"}})
		addEntity(t, h, kgmem.Entity{ID: "city:lisbon", Name: "Lisbon", Type: "city", Aliases: []string{"里斯本"}})
		addEntity(t, h, kgmem.Entity{ID: "org:acme", Name: "Acme", Type: "organization"})
		for _, r := range []kgmem.Relation{
			{SourceID: "person:maria", TargetID: "city:berlin", Type: "lives_in", Weight: 1, ValidFrom: d(2019, 1), ValidTo: d(2024, 3)},
			{SourceID: "person:maria", TargetID: "city:lisbon", Type: "lives_in", Weight: 1, ValidFrom: d(2024, 3)},
			{SourceID: "person:maria", TargetID: "person:li", Type: "colleague_of", Weight: 1},
			{SourceID: "person:maria", TargetID: "org:acme", Type: "works_at", Weight: 1, ValidFrom: d(2020, 1)},
			{SourceID: "org:acme", TargetID: "city:berlin", Type: "located_in", Weight: 1},
			{SourceID: "person:li", TargetID: "person:ann", Type: "friend_of", Weight: 0.8},
		} {
			addRelation(t, h, r)
		}
	}
	for _, c := range []struct{ query, first string }{
		{"Where did Maria live in 2023?", `Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "live"; city ← "Where"; as of 2023 ← "in 2023")`},
		{"Where did Maria live before Lisbon?", `Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "live"; city ← "Where"; as of just before 2024-03 ← "before Lisbon")`},
		{"Maria 2025年住在哪里？", `Maria —lives_in→ Lisbon (2024-03 →) (lives_in ← "住在"; city ← "在哪"; as of 2025 ← "2025年")`},
		// "Where does X work": the employer, and where it is, in both
		// languages (在哪里工作 is one phrase, not 在哪 "where" + 工作 "job").
		{"Maria在哪里工作？", `Maria —works_at→ Acme (2020 →) —located_in→ Berlin (works_at ← "在哪里工作"; city ← "在哪")`},
		{"Where does Maria work?", `Maria —works_at→ Acme (2020 →) —located_in→ Berlin (works_at ← "work"; city ← "Where")`},
		{"How is Maria related to 李雷?", `Maria —colleague_of→ 李雷`},
		{"Maria和Ann是什么关系？", `Maria —colleague_of→ 李雷 —friend_of→ Ann`},
	} {
		got := retrieveGraph(t, g, c.query)
		if len(got.Items) == 0 || got.Items[0].Explain() != c.first {
			first := "(none)"
			if len(got.Items) > 0 {
				first = got.Items[0].Explain()
			}
			t.Errorf("Retrieve(%q): first item %s, want %s", c.query, first, c.first)
		}
	}
	requireSameRetrieve(t, ref, g, []string{
		"Where did Maria live in 2023?", "Where did Maria live before Lisbon?", "Where has Maria lived?",
		"Maria在里斯本之前住在哪里？", "How is Maria related to 李雷?", "Maria和Ann是什么关系？",
		"what is the relationship between Ann and Maria?",
	})
}

// checkRetrieveParallel: of two relations between the same entities, the
// one the question asks about explains the answer, although the other one
// weighs more.
func checkRetrieveParallel(t *testing.T, g kgmem.KnowledgeGraph) {
	ref := kgmem.NewInMemoryGraph()
	for _, h := range []kgmem.KnowledgeGraph{g, ref} {
		addEntity(t, h, kgmem.Entity{ID: alice, Name: "Alice", Type: "person"})
		addEntity(t, h, kgmem.Entity{ID: bob, Name: "Bob", Type: "person"})
		addEntity(t, h, kgmem.Entity{ID: apollo, Name: "Apollo", Type: "project"})
		addRelation(t, h, rel(alice, apollo, "works_on", 1))
		addRelation(t, h, rel(alice, apollo, "leads", 0.5))
		addRelation(t, h, rel(bob, apollo, "works_on", 1))
	}
	got := retrieveGraph(t, g, "who leads Apollo?")
	var found bool
	for _, it := range got.Items {
		if it.Entity != nil && it.Entity.ID == alice {
			found = true
			if len(it.Relations) != 1 || it.Relations[0].Type != "leads" {
				t.Errorf("who leads Apollo?: Alice is explained by %s, want the leads relation", fmt.Sprint(describeRelations(it.Relations)))
			}
		}
	}
	if !found {
		t.Errorf("who leads Apollo?: Alice is not among the answers: %s", describeItems(got.Items))
	}
	requireSameRetrieve(t, ref, g, []string{"who leads Apollo?", "who works on Apollo?", "what does Alice lead?"})
}

// checkRetrieveRandom compares the answers on random graphs with parallel
// relations, cycles and weights, for questions that name one entity and a
// relation, or two entities.
func checkRetrieveRandom(t *testing.T, g kgmem.KnowledgeGraph) {
	names := []string{"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"}
	types := []struct{ typ, verb string }{
		{"works_with", "works with"}, {"leads", "leads"}, {"knows", "knows"}, {"mentors", "mentors"}, {"reports_to", "reports to"},
	}
	rng := rand.New(rand.NewPCG(7, 11))
	ref := kgmem.NewInMemoryGraph()
	id := func(i int) string { return "person:" + strings.ToLower(names[i]) }
	for _, h := range []kgmem.KnowledgeGraph{g, ref} {
		for i, n := range names {
			addEntity(t, h, kgmem.Entity{ID: id(i), Name: n, Type: "person"})
		}
	}
	for range 40 {
		a, b := rng.IntN(len(names)), rng.IntN(len(names))
		if a == b {
			continue
		}
		r := rel(id(a), id(b), types[rng.IntN(len(types))].typ, float64(1+rng.IntN(8))/8)
		for _, h := range []kgmem.KnowledgeGraph{g, ref} {
			addRelation(t, h, r)
		}
	}
	var questions []string
	for range 30 {
		n, ty := names[rng.IntN(len(names))], types[rng.IntN(len(types))]
		switch rng.IntN(3) {
		case 0:
			questions = append(questions, fmt.Sprintf("who %s %s?", ty.verb, n))
		case 1:
			questions = append(questions, fmt.Sprintf("whom does %s %s?", n, strings.TrimSuffix(ty.verb, "s")))
		default:
			questions = append(questions, fmt.Sprintf("how is %s related to %s?", n, names[rng.IntN(len(names))]))
		}
	}
	requireSameRetrieve(t, ref, g, questions)
}

// retrieveGraph runs the graph channel alone over g.
func retrieveGraph(t testing.TB, g kgmem.KnowledgeGraph, query string) kgmem.RetrievalResult {
	t.Helper()
	r := kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{MaxResults: 50}, kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.GraphOnly))
	res, err := r.Retrieve(context.Background(), query)
	if err != nil {
		t.Fatalf("Retrieve(%q): %v", query, err)
	}
	if len(res.Warnings) > 0 {
		t.Fatalf("Retrieve(%q): warnings %q", query, res.Warnings)
	}
	return res
}

// requireSameRetrieve stops the test unless g answers every question with
// the items ref answers it with: the same entities in the same order, with
// the same scores (to 1e-9), paths, relations and explanations.
func requireSameRetrieve(t testing.TB, ref, g kgmem.KnowledgeGraph, questions []string) {
	t.Helper()
	for _, q := range questions {
		want, got := retrieveGraph(t, ref, q), retrieveGraph(t, g, q)
		w, h := describeItems(want.Items), describeItems(got.Items)
		if w != h {
			t.Fatalf("Retrieve(%q) differs from the in-memory reference:\nwant %s\ngot  %s", q, w, h)
		}
		for i := range want.Items {
			if d := math.Abs(want.Items[i].Score - got.Items[i].Score); d > 1e-9 {
				t.Fatalf("Retrieve(%q): item %d scores %v, the reference %v", q, i, got.Items[i].Score, want.Items[i].Score)
			}
		}
	}
}

func describeItems(items []kgmem.RetrievalItem) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %.6f path=%v rels=%s matched=%q cue=%q asof=%q←%q", it.ID(), it.Score, it.Path, fmt.Sprint(describeRelations(it.Relations)), it.Matched, it.TypeCue, it.AsOfLabel, it.AsOfCue)
	}
	return "[" + b.String() + "]"
}
