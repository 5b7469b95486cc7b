package kgmem_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// timeqClock is the clock of the time-question fixtures.
var timeqClock = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func ymd(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// mariaPages are the facts of the table, one page each, in an
// order that is not their time order.
func mariaExtractions() []kgmem.Extraction {
	person := func(name string, aliases ...string) kgmem.ExtractedEntity {
		return kgmem.ExtractedEntity{Name: name, Type: "person", Aliases: aliases}
	}
	city := func(name string, aliases ...string) kgmem.ExtractedEntity {
		return kgmem.ExtractedEntity{Name: name, Type: "city", Aliases: aliases}
	}
	org := func(name string) kgmem.ExtractedEntity { return kgmem.ExtractedEntity{Name: name, Type: "company"} }
	rel := func(s, st, typ, t, tt string, from time.Time) kgmem.ExtractedRelation {
		return kgmem.ExtractedRelation{Source: s, SourceType: st, Type: typ, Target: t, TargetType: tt, ValidFrom: from}
	}
	return []kgmem.Extraction{
		{Entities: []kgmem.ExtractedEntity{person("Maria", "玛丽亚"), city("Lisbon", "里斯本")},
			Relations: []kgmem.ExtractedRelation{rel("Maria", "person", "lives_in", "Lisbon", "city", ymd(2024, 3, 1))}},
		{Entities: []kgmem.ExtractedEntity{person("Maria", "玛丽亚"), org("Globex")},
			Relations: []kgmem.ExtractedRelation{rel("Maria", "person", "works_at", "Globex", "company", ymd(2024, 6, 1))}},
		{Entities: []kgmem.ExtractedEntity{person("Maria", "玛丽亚"), city("Berlin", "柏林")},
			Relations: []kgmem.ExtractedRelation{rel("Maria", "person", "lives_in", "Berlin", "city", ymd(2019, 1, 1))}},
		{Entities: []kgmem.ExtractedEntity{person("Maria", "玛丽亚"), org("Acme")},
			Relations: []kgmem.ExtractedRelation{rel("Maria", "person", "works_at", "Acme", "company", ymd(2020, 1, 1))}},
		{Entities: []kgmem.ExtractedEntity{person("Maria", "玛丽亚"), person("李雷", "Li Lei")},
			Relations: []kgmem.ExtractedRelation{{Source: "Maria", SourceType: "person", Type: "colleague_of", Target: "李雷", TargetType: "person"}}},
		{Entities: []kgmem.ExtractedEntity{person("Alice"), person("Carol"), person("Bob")},
			Relations: []kgmem.ExtractedRelation{
				{Source: "Alice", SourceType: "person", Type: "sister_of", Target: "Carol", TargetType: "person"},
				{Source: "Bob", SourceType: "person", Type: "works_with", Target: "Alice", TargetType: "person"},
			}},
	}
}

func openMaria(t *testing.T) *kgmem.Memory {
	t.Helper()
	m, err := kgmem.OpenMemory(t.TempDir(), kgmem.WithClock(func() time.Time { return timeqClock }), kgmem.WithSingleValued("lives_in", "works_at"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	for i, x := range mariaExtractions() {
		page := kgmem.KnowledgePage{ID: "note-" + string(rune('a'+i)), Title: "note", Content: "a note"}
		if _, err := m.Ingest(context.Background(), page, x); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// TestTimeAndConnectionQuestions is the table of questions an agent's
// memory gets most, over a durable memory that learned Maria's moves and
// jobs out of order: the first item answers, and says why.
func TestTimeAndConnectionQuestions(t *testing.T) {
	m := openMaria(t)
	for _, tc := range []struct{ query, first string }{
		{"Where did Maria live in 2023?", `Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "live"; city ← "Where"; as of 2023 ← "in 2023")`},
		{"Maria 2023年住在哪里？", `Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "住在"; city ← "在哪"; as of 2023 ← "2023年")`},
		{"Where did Maria live before Lisbon?", `Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "live"; city ← "Where"; as of just before 2024-03 ← "before Lisbon")`},
		{"Where did Maria work before Globex?", `Maria —works_at→ Acme (2020 → 2024-06) (works_at ← "work"; as of just before 2024-06 ← "before Globex")`},
		{"Where did Maria work after she left Acme?", `Maria —works_at→ Globex (2024-06 →) (works_at ← "work"; as of 2024-06 ← "after she left Acme")`},
		{"Maria在里斯本之前住在哪里？", `Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "住在"; city ← "在哪"; as of just before 2024-03 ← "在里斯本之前")`},
		{"Where does Maria live?", `Maria —lives_in→ Lisbon (2024-03 →) (lives_in ← "live"; city ← "Where")`},
		{"Where does Maria live now?", `Maria —lives_in→ Lisbon (2024-03 →) (lives_in ← "live"; city ← "Where"; as of now ← "now")`},
		{"How is Maria related to 李雷?", `Maria —colleague_of→ 李雷`},
		{"Alice和Carol是什么关系？", `Alice —sister_of→ Carol`},
		{"What is the relationship between Bob and Carol?", `Bob —works_with→ Alice —sister_of→ Carol`},
	} {
		res, err := m.Retriever().Retrieve(context.Background(), tc.query)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if len(res.Items) == 0 || res.Items[0].Kind != kgmem.ItemEntity || res.Items[0].Explain() != tc.first {
			t.Errorf("%q: first item %s, want %s", tc.query, firstExplain(res), tc.first)
		}
	}
	// History wording ranks every value, ended ones too, above the rest.
	for _, q := range []string{"Where has Maria lived?", "Maria都在哪些城市住过？", "Where did Maria use to live?"} {
		res, err := m.Retriever().Retrieve(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var top []string
		for _, it := range res.Items {
			if it.Kind == kgmem.ItemEntity && len(top) < 2 {
				top = append(top, it.Entity.Name)
			}
		}
		if len(top) != 2 || top[0] != "Berlin" || top[1] != "Lisbon" {
			t.Errorf("%q: first entities %v, want [Berlin Lisbon]", q, top)
		}
	}
}

func firstExplain(res kgmem.RetrievalResult) string {
	if len(res.Items) == 0 {
		return "(none)"
	}
	return res.Items[0].Kind.String() + " " + res.Items[0].Explain()
}

// TestSingleValuedAfterReopen: a reopened memory supersedes Bob's old
// city when he moves, and "where does Bob live" answers the new one.
func TestSingleValuedAfterReopen(t *testing.T) {
	t.Run("with options", func(t *testing.T) { testReopenMove(t, kgmem.WithSingleValued("lives_in")) })
	t.Run("without options", func(t *testing.T) { testReopenMove(t) })
}

func testReopenMove(t *testing.T, reopen ...kgmem.DurableOption) {
	dir := t.TempDir()
	clock := kgmem.WithClock(func() time.Time { return timeqClock })
	ctx := context.Background()
	move := func(m *kgmem.Memory, id, city string, from time.Time) {
		t.Helper()
		x := kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: "Bob", Type: "person"}, {Name: city, Type: "city"}},
			Relations: []kgmem.ExtractedRelation{{Source: "Bob", SourceType: "person", Type: "lives_in", Target: city, TargetType: "city", ValidFrom: from}},
		}
		if _, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: id, Title: "Bob lives in " + city, Content: "Bob lives in " + city + "."}, x); err != nil {
			t.Fatal(err)
		}
	}
	m, err := kgmem.OpenMemory(dir, clock, kgmem.WithSingleValued("lives_in"))
	if err != nil {
		t.Fatal(err)
	}
	move(m, "paris", "Paris", ymd(2020, 1, 1))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, err = kgmem.OpenMemory(dir, append([]kgmem.DurableOption{clock}, reopen...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	move(m, "rome", "Rome", ymd(2025, 1, 1))
	res, err := m.Retriever().Retrieve(ctx, "Where does Bob live?")
	if err != nil {
		t.Fatal(err)
	}
	if got := firstExplain(res); !strings.Contains(got, `Bob —lives_in→ Rome (2025 →)`) {
		t.Errorf("after reopen, first item %s, want Bob's walk to Rome", got)
	}
	for _, it := range res.Items {
		if strings.Contains(it.Explain(), "—lives_in→ Paris") {
			t.Errorf("after reopen, Paris is still walked: %s", it.Explain())
		}
	}
}
