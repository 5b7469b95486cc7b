package kgmem_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// FuzzRetrieveQuestion: any question text — time words, connection
// wording, Chinese, control bytes, invalid UTF-8 — gets an answer or
// ErrInvalidArgument (for text that is not UTF-8), never a panic; the
// same question asked again gets the same items; every score is a finite
// number in [0, 1]; every graph item's path starts at an entity of the
// graph. It runs over a memory of moves and jobs with valid times and a
// single-valued type, with and without page spreading.
func FuzzRetrieveQuestion(f *testing.F) {
	for _, q := range []string{
		"Where did Maria live in 2023?", "Maria 2023年住在哪里？", "Where did Maria live before Lisbon?",
		"Where did Maria work before Globex?", "How is Maria related to 李雷?", "Maria和李雷是什么关系？",
		"where has Maria lived", "Maria曾经住在哪里", "where did she live two years ago", "去年 Maria 在哪里工作",
		"in March 2021", "2021年3月", "after he left Acme", "now", "", " ", "\x00", "\xff\xfe", "in 99999999999",
		"before before before Lisbon Lisbon", "how is how is related to related to",
	} {
		f.Add(q)
	}
	ctx := context.Background()
	clock := func() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) }
	g := kgmem.NewInMemoryGraph(kgmem.WithClock(clock), kgmem.WithSingleValued("lives_in", "works_at"))
	day := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
	for _, e := range []kgmem.Entity{
		{ID: "p:maria", Name: "Maria", Type: "person", SourceIDs: []string{"chat-1"}},
		{ID: "p:lilei", Name: "李雷", Type: "person"},
		{ID: "c:berlin", Name: "Berlin", Type: "city"}, {ID: "c:lisbon", Name: "Lisbon", Type: "city"},
		{ID: "o:acme", Name: "Acme", Type: "company"}, {ID: "o:globex", Name: "Globex", Type: "company", SourceIDs: []string{"chat-2"}},
	} {
		if err := g.AddEntity(ctx, e); err != nil {
			f.Fatal(err)
		}
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "p:maria", TargetID: "c:berlin", Type: "lives_in", Weight: 1, ValidFrom: day(2019, 1), ValidTo: day(2024, 3)},
		{SourceID: "p:maria", TargetID: "c:lisbon", Type: "lives_in", Weight: 1, ValidFrom: day(2024, 3)},
		{SourceID: "p:maria", TargetID: "o:acme", Type: "works_at", Weight: 1, ValidFrom: day(2020, 1), ValidTo: day(2024, 6)},
		{SourceID: "p:maria", TargetID: "o:globex", Type: "works_at", Weight: 1, ValidFrom: day(2024, 6), SourceIDs: []string{"chat-2"}},
		{SourceID: "p:maria", TargetID: "p:lilei", Type: "colleague_of", Weight: 0.8},
	} {
		if err := g.AddRelation(ctx, r); err != nil {
			f.Fatal(err)
		}
	}
	s := kgmem.NewInMemoryKnowledgeStore()
	for _, p := range []kgmem.KnowledgePage{
		{ID: "chat-1", Content: "Maria moved from Berlin to Lisbon in March 2024."},
		{ID: "chat-2", Content: "Maria joined Globex after she left Acme. 李雷 is her colleague."},
	} {
		if err := s.Put(ctx, p); err != nil {
			f.Fatal(err)
		}
	}
	var retrievers []*kgmem.MemoryRetriever
	for _, cfg := range []kgmem.RetrieverConfig{{}, {Spread: kgmem.SpreadOn}, {Strategy: kgmem.GraphOnly}} {
		retrievers = append(retrievers, kgmem.NewMemoryRetriever(s, cfg, kgmem.WithKnowledgeGraph(g)))
	}
	f.Fuzz(func(t *testing.T, q string) {
		for i, r := range retrievers {
			res, err := r.Retrieve(ctx, q)
			if !utf8.ValidString(q) {
				if !errors.Is(err, kgmem.ErrInvalidArgument) {
					t.Fatalf("retriever %d: Retrieve(%q) of text that is not UTF-8: %v, want ErrInvalidArgument", i, q, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("retriever %d: Retrieve(%q): %v", i, q, err)
			}
			again, err := r.Retrieve(ctx, q)
			if err != nil {
				t.Fatalf("retriever %d: Retrieve(%q) again: %v", i, q, err)
			}
			if len(again.Items) != len(res.Items) {
				t.Fatalf("retriever %d: Retrieve(%q): %d items, then %d", i, q, len(res.Items), len(again.Items))
			}
			for j, it := range res.Items {
				if it.Score < 0 || it.Score > 1 || math.IsNaN(it.Score) {
					t.Fatalf("retriever %d: Retrieve(%q): item %d scores %v", i, q, j, it.Score)
				}
				if got := again.Items[j]; got.Kind != it.Kind || got.Score != it.Score || got.Explain() != it.Explain() {
					t.Fatalf("retriever %d: Retrieve(%q): item %d is %q (%v), then %q (%v)", i, q, j, it.Explain(), it.Score, got.Explain(), got.Score)
				}
				if it.Kind == kgmem.ItemEntity && len(it.Path) > 0 {
					if _, found, err := g.GetEntity(ctx, it.Path[0]); !found || err != nil {
						t.Fatalf("retriever %d: Retrieve(%q): item %d's path starts at %q (found %v, %v)", i, q, j, it.Path[0], found, err)
					}
				}
			}
		}
	})
}
