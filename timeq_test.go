package kgmem_test

import (
	"context"
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

func TestTimeQuestionDebug(t *testing.T) {
	m := openMaria(t)
	for _, q := range []string{
		"Where did Maria live in 2023?", "Maria 2023年住在哪里？", "Where did Maria live before Lisbon?",
		"Where did Maria work before Globex?", "How is Maria related to 李雷?", "Alice和Carol是什么关系？",
		"What is the relationship between Bob and Carol?", "Where does Maria live?", "Where has Maria lived?",
		"Where did Maria work after she left Acme?", "Maria在里斯本之前住在哪里？", "Maria去年住在哪里？",
	} {
		res, err := m.Retriever().Retrieve(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", q)
		for i, it := range res.Items {
			if i < 4 {
				t.Logf("   %.3f %s %s", it.Score, it.Kind, it.Explain())
			}
		}
	}
}
