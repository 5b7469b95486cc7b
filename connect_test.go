package kgmem_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// connectGraph: Alice and Carol are sisters and work at Acme; Bob works
// with Alice; Dan worked at Acme until 2022.
func connectGraph(t *testing.T, g kgmem.KnowledgeGraph) {
	t.Helper()
	ctx := context.Background()
	for _, e := range []kgmem.Entity{
		{ID: "p:alice", Name: "Alice", Type: "person"}, {ID: "p:bob", Name: "Bob", Type: "person"},
		{ID: "p:carol", Name: "Carol", Type: "person"}, {ID: "p:dan", Name: "Dan", Type: "person"},
		{ID: "o:acme", Name: "Acme", Type: "company"},
	} {
		if err := g.AddEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "p:alice", TargetID: "p:carol", Type: "sister_of", Weight: 1},
		{SourceID: "p:alice", TargetID: "o:acme", Type: "works_at", Weight: 0.9},
		{SourceID: "p:carol", TargetID: "o:acme", Type: "works_at", Weight: 0.9},
		{SourceID: "p:bob", TargetID: "p:alice", Type: "works_with", Weight: 1},
		{SourceID: "p:dan", TargetID: "o:acme", Type: "works_at", Weight: 1, ValidFrom: ymd(2018, 1, 1), ValidTo: ymd(2022, 1, 1)},
	} {
		if err := g.AddRelation(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConnectionQuestions(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []struct {
		name string
		g    kgmem.KnowledgeGraph
	}{
		{"InMemoryGraph", kgmem.NewInMemoryGraph(kgmem.WithClock(func() time.Time { return timeqClock }))},
		{"interface only", interfaceOnly{kgmem.NewInMemoryGraph()}},
	} {
		t.Run(backend.name, func(t *testing.T) {
			connectGraph(t, backend.g)
			r := kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(backend.g))
			for _, tc := range []struct {
				query string
				want  []string // the first items' explanations
			}{
				// The best path is the second entity's item, the second
				// best the first entity's, read from the second.
				{"How is Alice related to Carol?", []string{"Alice —sister_of→ Carol", "Carol —works_at→ Acme ←works_at— Alice"}},
				{"Alice和Carol是什么关系？", []string{"Alice —sister_of→ Carol", "Carol —works_at→ Acme ←works_at— Alice"}},
				{"Alice与Carol有什么关系？", []string{"Alice —sister_of→ Carol", "Carol —works_at→ Acme ←works_at— Alice"}},
				{"What is the relationship between Bob and Carol?", []string{"Bob —works_with→ Alice —sister_of→ Carol", "Carol —works_at→ Acme ←works_at— Alice ←works_with— Bob"}},
				{"How are Carol and Bob connected?", []string{"Carol ←sister_of— Alice ←works_with— Bob", "Bob —works_with→ Alice —works_at→ Acme ←works_at— Carol"}},
				// An ended relation connects only as of a time it held.
				{"How is Dan related to Carol?", []string{"Carol", "Dan"}},
				{"How was Dan related to Carol in 2020?", []string{`Dan —works_at→ Acme (2018 → 2022) ←works_at— Carol (as of 2020 ← "in 2020")`}},
			} {
				res, err := r.Retrieve(ctx, tc.query)
				if err != nil {
					t.Fatalf("%q: %v", tc.query, err)
				}
				for i, want := range tc.want {
					if i >= len(res.Items) || res.Items[i].Explain() != want {
						got := "(none)"
						if i < len(res.Items) {
							got = res.Items[i].Explain()
						}
						t.Errorf("%q: item %d is %s, want %s", tc.query, i, got, want)
					}
				}
			}
		})
	}
}

// TestConnectionQuestionShapes: a question about a third entity walks as
// before, and a cancelled call returns the context's error.
func TestConnectionQuestionShapes(t *testing.T) {
	g := kgmem.NewInMemoryGraph()
	connectGraph(t, g)
	r := kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	res, err := r.Retrieve(context.Background(), "Who is related to both Alice and Carol?")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Entity != nil && len(it.Path) > 1 && it.Path[0] == "p:alice" && it.Path[len(it.Path)-1] == "p:carol" && it.Score > 0.6 {
			t.Errorf("a question for a third entity answered with the pair's path: %s", it.Explain())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Retrieve(ctx, "How is Alice related to Carol?"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	// NoExpansion returns the named entities only.
	r = kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{NoExpansion: true}, kgmem.WithKnowledgeGraph(g))
	res, err = r.Retrieve(context.Background(), "How is Alice related to Carol?")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if len(it.Path) > 1 {
			t.Errorf("NoExpansion: %s", it.Explain())
		}
	}
}
