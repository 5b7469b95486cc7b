package timeset

import (
	"reflect"
	"slices"
	"testing"
)

func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(1), Generate(1)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two sets of the same seed differ")
	}
	if reflect.DeepEqual(a.Questions, Generate(2).Questions) {
		t.Fatal("the sets of seeds 1 and 2 are equal")
	}
}

func TestGenerateQuestions(t *testing.T) {
	s := Generate(1)
	ids := map[string]bool{}
	for _, e := range s.Entities {
		if ids[e.ID] {
			t.Fatalf("entity %s twice", e.ID)
		}
		ids[e.ID] = true
	}
	perWordingCount := map[string]int{}
	for _, q := range s.Questions {
		perWordingCount[q.Wording]++
		if len(q.Answers) == 0 || !ids[q.Subject] {
			t.Errorf("%q: answers %v, subject %q", q.Text, q.Answers, q.Subject)
		}
		for _, a := range q.Answers {
			if !ids[a] {
				t.Errorf("%q: unknown answer %q", q.Text, a)
			}
		}
		if q.Kind == "history" && len(q.Answers) < 2 {
			t.Errorf("%q: a history of %d values", q.Text, len(q.Answers))
		}
		if (q.Kind == "direct") != (q.Hops == 1) || (q.Kind == "two-hop") != (q.Hops == 2) {
			t.Errorf("%q: kind %s with %d hops", q.Text, q.Kind, q.Hops)
		}
		if slices.Contains(q.Answers, q.Subject) {
			t.Errorf("%q: the subject is its own answer", q.Text)
		}
	}
	for _, w := range wordings {
		if perWordingCount[w.text] == 0 {
			t.Errorf("no question of wording %q", w.text)
		}
	}
}
