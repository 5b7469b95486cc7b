package kgmem

import (
	"context"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/question"
)

// timeGraph is Maria's timeline: Berlin 2019 → 2024-03, then Lisbon;
// Acme 2020 → 2024-06, then Globex; and an entity named "Now You See Me".
func timeGraph(t *testing.T) *InMemoryGraph {
	t.Helper()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := NewInMemoryGraph(WithClock(func() time.Time { return now }))
	ctx := context.Background()
	for _, e := range []Entity{
		{ID: "p:maria", Name: "Maria", Type: "person", Aliases: []string{"玛丽亚"}},
		{ID: "c:berlin", Name: "Berlin", Type: "city", Aliases: []string{"柏林"}},
		{ID: "c:lisbon", Name: "Lisbon", Type: "city", Aliases: []string{"里斯本"}},
		{ID: "o:acme", Name: "Acme", Type: "company"},
		{ID: "o:globex", Name: "Globex", Type: "company"},
		{ID: "f:now", Name: "Now You See Me", Type: "film"},
		{ID: "y:1994", Name: "1994", Type: "year"},
	} {
		if err := g.AddEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	d := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
	for _, r := range []Relation{
		{SourceID: "p:maria", TargetID: "c:berlin", Type: "lives_in", Weight: 1, ValidFrom: d(2019, 1), ValidTo: d(2024, 3)},
		{SourceID: "p:maria", TargetID: "c:lisbon", Type: "lives_in", Weight: 1, ValidFrom: d(2024, 3)},
		{SourceID: "p:maria", TargetID: "o:acme", Type: "works_at", Weight: 1, ValidFrom: d(2020, 1), ValidTo: d(2024, 6)},
		{SourceID: "p:maria", TargetID: "o:globex", Type: "works_at", Weight: 1, ValidFrom: d(2024, 6)},
	} {
		if err := g.AddRelation(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestReadTime(t *testing.T) {
	g := timeGraph(t)
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g))
	at := func(s string) AsOf {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return At(tm)
	}
	all := AsOf{AllTime: true}
	none := AsOf{}
	for _, tc := range []struct {
		query, label, words string
		asOf                AsOf
		masked              string // the query as the walk reads it; "" for unchanged
	}{
		// Periods.
		{"Where did Maria live in 2023?", "2023", "in 2023", at("2023-07-02T12:00:00Z"), "Where did Maria live        ?"},
		{"Where did Maria live in March 2021?", "2021-03", "in March 2021", at("2021-03-16T12:00:00Z"), ""},
		{"Where did Maria live on 15 March 2021?", "2021-03-15", "on 15 March 2021", at("2021-03-15T12:00:00Z"), ""},
		{"Where did Maria live on March 15th, 2021?", "2021-03-15", "on March 15th, 2021", at("2021-03-15T12:00:00Z"), ""},
		{"Where did Maria live on 2021-03-15?", "2021-03-15", "on 2021-03-15", at("2021-03-15T12:00:00Z"), ""},
		{"Where did Maria live in 2021-03?", "2021-03", "in 2021-03", at("2021-03-16T12:00:00Z"), ""},
		{"Where did Maria live in early 2022?", "early 2022", "in early 2022", at("2022-03-02T20:00:00Z"), ""},
		{"Where did Maria live at the end of 2022?", "end 2022", "the end of 2022", at("2022-11-01T04:00:00Z"), ""},
		{"Where did Maria live in the 1990s?", "1990s", "in the 1990s", at("1995-01-01T00:00:00Z"), ""},
		{"Where did Maria live last year?", "2025", "last year", at("2025-07-02T12:00:00Z"), "Where did Maria live          ?"},
		{"Where did Maria live this year?", "2026", "this year", at("2026-12-01T12:00:00Z"), ""},
		{"Where did Maria live last month?", "2026-11", "last month", at("2026-11-16T00:00:00Z"), ""},
		{"Where did Maria live two years ago?", "2024-12-01", "two years ago", at("2024-12-01T12:00:00Z"), ""},
		{"Where did Maria live 3 years ago?", "2023-12-01", "3 years ago", at("2023-12-01T12:00:00Z"), ""},
		{"Where did Maria live a couple of years ago?", "2024-12-01", "a couple of years ago", at("2024-12-01T12:00:00Z"), ""},
		{"Where did Maria live the year before last?", "2024", "the year before last", at("2024-07-02T00:00:00Z"), ""},
		{"Maria 2023年住在哪里？", "2023", "2023年", at("2023-07-02T12:00:00Z"), "Maria        住在哪里？"},
		{"Maria在2021年3月住在哪里？", "2021-03", "在2021年3月", at("2021-03-16T12:00:00Z"), ""},
		{"Maria二〇二一年住在哪里？", "2021", "二〇二一年", at("2021-07-02T12:00:00Z"), ""},
		{"Maria 2022年初住在哪里？", "2022", "2022年初", at("2022-03-02T20:00:00Z"), ""},
		{"Maria去年住在哪里？", "2025", "去年", at("2025-07-02T12:00:00Z"), "Maria      住在哪里？"},
		{"Maria前年住在哪里？", "2024", "前年", at("2024-07-02T00:00:00Z"), ""},
		{"Maria三年前住在哪里？", "2023-12-01", "三年前", at("2023-12-01T12:00:00Z"), ""},
		{"Maria两年前在哪里工作？", "2024-12-01", "两年前", at("2024-12-01T12:00:00Z"), ""},
		// Orders relative to a time.
		{"Where did Maria live before 2022?", "just before 2022", "before 2022", at("2021-12-31T23:59:59.999999Z"), ""},
		{"Where did Maria live after 2023?", "after 2023", "after 2023", at("2024-01-01T00:00:00Z"), ""},
		{"Where did Maria live until 2020?", "just before 2020", "until 2020", at("2019-12-31T23:59:59.999999Z"), ""},
		{"Where did Maria live prior to 2022?", "just before 2022", "prior to 2022", at("2021-12-31T23:59:59.999999Z"), ""},
		{"Maria 2022年以前住在哪里？", "just before 2022", "2022年以前", at("2021-12-31T23:59:59.999999Z"), ""},
		{"Maria 2022年前住在哪里？", "just before 2022", "2022年前", at("2021-12-31T23:59:59.999999Z"), ""},
		{"Maria 2023年以后住在哪里？", "after 2023", "2023年以后", at("2024-01-01T00:00:00Z"), ""},
		// Orders relative to a fact.
		{"Where did Maria live before Lisbon?", "just before 2024-03", "before Lisbon", at("2024-02-29T23:59:59.999999Z"), "Where did Maria live              ?"},
		{"Where did Maria live after Berlin?", "2024-03", "after Berlin", at("2024-03-01T00:00:00Z"), ""},
		{"Where did Maria work after she left Acme?", "2024-06", "after she left Acme", at("2024-06-01T00:00:00Z"), "Where did Maria work                    ?"},
		{"Where did Maria live after she joined Globex?", "2024-06", "after she joined Globex", at("2024-06-01T00:00:00Z"), ""},
		{"Where did Maria live before she left Acme?", "just before 2024-06", "before she left Acme", at("2024-05-31T23:59:59.999999Z"), ""},
		{"Before she moved to Lisbon, where did Maria live?", "just before 2024-03", "Before she moved to Lisbon", at("2024-02-29T23:59:59.999999Z"), ""},
		{"Where did Maria work while she lived in Berlin?", "during 2019 → 2024-03", "while she lived in Berlin", at("2021-08-01T00:00:00Z"), ""},
		{"Maria在里斯本之前住在哪里？", "just before 2024-03", "在里斯本之前", at("2024-02-29T23:59:59.999999Z"), "Maria                  住在哪里？"},
		{"离开Acme以后，Maria在哪里工作？", "2024-06", "离开Acme以后", at("2024-06-01T00:00:00Z"), ""},
		{"Maria加入Globex之前在哪里工作？", "just before 2024-06", "加入Globex之前", at("2024-05-31T23:59:59.999999Z"), ""},
		{"Maria住在柏林的时候在哪里工作？", "during 2019 → 2024-03", "住在柏林的时候", at("2021-08-01T00:00:00Z"), ""},
		// History.
		{"Where has Maria lived?", "all time", "has lived", all, "Where     Maria lived?"},
		{"Where have Maria and Bob worked?", "all time", "have worked", all, ""},
		{"Where did Maria use to live?", "all time", "use to", all, ""},
		{"Where did Maria ever live?", "all time", "ever", all, ""},
		{"Where did Maria live previously?", "all time", "previously", all, ""},
		{"What are Maria's former employers?", "all time", "former", all, ""},
		{"Where did Maria live in the past?", "all time", "in the past", all, ""},
		{"Where did Maria live over the years?", "all time", "over the years", all, ""},
		{"Has Maria lived in Berlin before?", "all time", "Has lived", all, ""},
		{"Maria曾经住在哪里？", "all time", "曾经", all, ""},
		{"Maria都在哪些城市住过？", "all time", "都 过", all, "Maria   在哪些城市住   ？"},
		{"Maria在哪里工作过？", "all time", "过", all, ""},
		{"Maria以前住在哪里？", "all time", "以前", all, ""},
		{"Maria之前住在哪里？", "all time", "之前", all, ""},
		// Now.
		{"Where does Maria live now?", "now", "now", none, "Where does Maria live    ?"},
		{"Where does Maria currently work?", "now", "currently", none, ""},
		{"Where does Maria live at the moment?", "now", "at the moment", none, ""},
		{"Maria现在住在哪里？", "now", "现在", none, ""},
		{"Maria目前在哪里工作？", "now", "目前", none, ""},
		// No time words, or time words that are a name.
		{"Where does Maria live?", "", "", none, ""},
		{"Who directed Now You See Me?", "", "", none, ""},
		{"Which films were released in 1994?", "", "", none, ""},
		{"When did Maria move to Lisbon?", "", "", none, ""},
		{"What language is used to write Acme?", "", "", none, ""},
		{"Maria通过谁认识Acme？", "", "", none, ""},
		{"Where did Maria live before she retired?", "", "", none, ""},
	} {
		qt, err := r.readTime(context.Background(), g, tc.query)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if qt.read.label != tc.label || qt.read.words != tc.words {
			t.Errorf("%q: read %q ← %q, want %q ← %q", tc.query, qt.read.label, qt.read.words, tc.label, tc.words)
		}
		if qt.asOf != tc.asOf {
			t.Errorf("%q: as of %v, want %v", tc.query, qt.asOf, tc.asOf)
		}
		if qt.set != (tc.asOf != none) {
			t.Errorf("%q: set %v", tc.query, qt.set)
		}
		want := tc.masked
		if want == "" && tc.label == "" {
			want = tc.query
		}
		if want != "" && qt.query != want {
			t.Errorf("%q: the walk reads %q, want %q", tc.query, qt.query, want)
		}
	}
}

// TestReadTimeExplicitAsOf: WithAsOf wins over the question's words, which
// are still hidden from the walk.
func TestReadTimeExplicitAsOf(t *testing.T) {
	g := timeGraph(t)
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithAsOf(AsOf{AllTime: true}))
	qt, err := r.readTime(context.Background(), g, "Where did Maria live in 2023?")
	if err != nil {
		t.Fatal(err)
	}
	if qt.set || qt.read != (timeRead{}) || qt.query != "Where did Maria live        ?" {
		t.Errorf("readTime with WithAsOf: %+v", qt)
	}
}

// BenchmarkTimeScan is what reading time and shape costs a question that
// has neither: the scan that finds no time word and no connection word.
func BenchmarkTimeScan(b *testing.B) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{"what is the nationality of the spouse of barack_obama", "张三负责的项目由谁领导？"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				units := splitUnits(q)
				if len(question.ParseTime(q, units, now)) != 0 || asksConnection(q, units) {
					b.Fatal("a cue in a question without one")
				}
			}
		})
	}
}

// BenchmarkTimeScanSplit is the cut into units alone, which linking pays
// for every question too: the reference for BenchmarkTimeScan.
func BenchmarkTimeScanSplit(b *testing.B) {
	q := "what is the nationality of the spouse of barack_obama"
	b.ReportAllocs()
	for b.Loop() {
		_ = splitUnits(q)
	}
}
