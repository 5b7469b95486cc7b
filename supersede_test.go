package kgmem

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// timeline renders where alice lives, oldest first.
func timeline(t *testing.T, g KnowledgeGraph, typ string) []string {
	t.Helper()
	rs, err := History(context.Background(), g, "person:alice", HistoryOptions{RelationTypes: []string{typ}})
	require.NoError(t, err)
	var out []string
	for _, r := range rs {
		out = append(out, strings.TrimPrefix(r.TargetID, "city:")+" "+r.ValidityString())
	}
	return out
}

func livesIn(city string, from, to string) ExtractedRelation {
	r := ExtractedRelation{Source: "Alice", SourceType: "person", Target: city, TargetType: "city", Type: "lives in"}
	if from != "" {
		r.ValidFrom, _ = ParseValidTime(from)
	}
	if to != "" {
		r.ValidTo, _ = ParseValidTime(to)
	}
	return r
}

func aliceIn(rels ...ExtractedRelation) Extraction {
	x := Extraction{Entities: []ExtractedEntity{{Name: "Alice", Type: "person"}}, Relations: rels}
	for _, r := range rels {
		x.Entities = append(x.Entities, ExtractedEntity{Name: r.Target, Type: "city"})
	}
	return x
}

func endedNames(rs []Relation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, strings.TrimPrefix(r.TargetID, "city:")+" "+r.ValidityString())
	}
	return out
}

// TestSupersession pins single-valued supersession step by step: new
// values end the current one, re-ingests are no-ops, late arrivals go into
// the history, and a move back needs a date.
func TestSupersession(t *testing.T) {
	ctx := context.Background()
	now := day(2026, 1, 10)
	type step struct {
		name      string
		x         Extraction
		wantEnded []string
		wantLine  []string
		unchanged bool // nothing written
		skipped   int
	}
	steps := []step{
		{name: "first value, dated", x: aliceIn(livesIn("Berlin", "2019", "")),
			wantLine: []string{"berlin 2019 →"}},
		{name: "a new value ends the current one at its start", x: aliceIn(livesIn("Lisbon", "2024-05", "")),
			wantEnded: []string{"berlin 2019 → 2024-05"},
			wantLine:  []string{"berlin 2019 → 2024-05", "lisbon 2024-05 →"}},
		{name: "re-ingesting the same fact is a no-op", x: aliceIn(livesIn("Lisbon", "2024-05", "")),
			wantLine: []string{"berlin 2019 → 2024-05", "lisbon 2024-05 →"}, unchanged: true},
		{name: "restating without dates is a no-op", x: aliceIn(livesIn("Lisbon", "", "")),
			wantLine: []string{"berlin 2019 → 2024-05", "lisbon 2024-05 →"}, unchanged: true},
		{name: "restating the ended value without dates is a no-op", x: aliceIn(livesIn("Berlin", "", "")),
			wantLine: []string{"berlin 2019 → 2024-05", "lisbon 2024-05 →"}, unchanged: true},
		{name: "an older fact arriving late goes into the history", x: aliceIn(livesIn("Paris", "2015-09", "")),
			wantLine: []string{"paris 2015-09 → 2019", "berlin 2019 → 2024-05", "lisbon 2024-05 →"}},
		{name: "a late fact between two others ends at the next", x: aliceIn(livesIn("Rome", "2024-02", "")),
			wantLine: []string{"paris 2015-09 → 2019", "berlin 2019 → 2024-05", "rome 2024-02 → 2024-05", "lisbon 2024-05 →"}},
		{name: "an undated new value is news: it starts now", x: aliceIn(livesIn("Oslo", "", "")),
			wantEnded: []string{"lisbon 2024-05 → 2026-01-10"},
			wantLine:  []string{"paris 2015-09 → 2019", "berlin 2019 → 2024-05", "rome 2024-02 → 2024-05", "lisbon 2024-05 → 2026-01-10", "oslo 2026-01-10 →"}},
		{name: "a move back, dated, is a new stint", x: aliceIn(livesIn("Berlin", "2026-03", "")),
			wantEnded: []string{"oslo 2026-01-10 → 2026-03"},
			wantLine:  []string{"paris 2015-09 → 2019", "rome 2024-02 → 2024-05", "lisbon 2024-05 → 2026-01-10", "oslo 2026-01-10 → 2026-03", "berlin 2026-03 →"}},
		{name: "an earlier stint of a held key is skipped", x: aliceIn(livesIn("Berlin", "2010", "2011")),
			wantLine:  []string{"paris 2015-09 → 2019", "rome 2024-02 → 2024-05", "lisbon 2024-05 → 2026-01-10", "oslo 2026-01-10 → 2026-03", "berlin 2026-03 →"},
			unchanged: true, skipped: 1},
	}
	g := NewInMemoryGraph(WithClock(fixedClock(now)), WithSingleValued("lives_in"))
	for _, s := range steps {
		rep, err := Ingest(ctx, g, s.x)
		require.NoError(t, err, s.name)
		require.Equal(t, s.wantEnded, endedNames(rep.Ended), s.name)
		require.Equal(t, s.wantLine, timeline(t, g, "lives_in"), s.name)
		if s.unchanged {
			require.Zero(t, rep.RelationsCreated+rep.RelationsUpdated, "%s: %+v", s.name, rep)
		}
		require.Equal(t, s.skipped, rep.RelationsSkipped, s.name)
		require.NoError(t, g.checkInvariants())
	}
	// Reads as of now and as of the past.
	at := func(a AsOf) []string {
		got, err := g.GetRelated(ctx, "person:alice", TraverseOptions{RelationTypes: []string{"lives_in"}, AsOf: a})
		require.NoError(t, err)
		var out []string
		for _, s := range got {
			out = append(out, s.Entity.ID)
		}
		return out
	}
	require.Equal(t, []string{"city:oslo"}, at(AsOf{}))
	require.Equal(t, []string{"city:berlin"}, at(At(day(2026, 4, 1))))
	require.Equal(t, []string{"city:paris"}, at(At(day(2017, 1, 1))))
	require.Empty(t, at(At(day(2014, 1, 1))))
}

// TestSupersessionOptions: the Ingest option declares single-valued types
// as the graph option does, types normalised; other types are never
// superseded; one extraction with several values orders them by start.
func TestSupersessionOptions(t *testing.T) {
	ctx := context.Background()
	now := day(2026, 1, 10)
	g := NewInMemoryGraph(WithClock(fixedClock(now)))
	_, err := Ingest(ctx, g, aliceIn(livesIn("Berlin", "2019", "")))
	require.NoError(t, err)
	rep, err := Ingest(ctx, g, aliceIn(livesIn("Lisbon", "2024", "")))
	require.NoError(t, err)
	require.Empty(t, rep.Ended, "not declared: two values")
	require.Equal(t, []string{"berlin 2019 →", "lisbon 2024 →"}, timeline(t, g, "lives_in"))
	rep, err = Ingest(ctx, g, aliceIn(livesIn("Madrid", "2025", "")), WithSingleValuedTypes("Lives In"))
	require.NoError(t, err)
	require.Equal(t, []string{"berlin 2019 → 2025", "lisbon 2024 → 2025"}, endedNames(rep.Ended))

	h := NewInMemoryGraph(WithClock(fixedClock(now)))
	rep, err = Ingest(ctx, h, aliceIn(livesIn("Lisbon", "2024", ""), livesIn("Berlin", "2019", ""), livesIn("Paris", "", "2010")),
		WithSingleValuedTypes("lives_in"))
	require.NoError(t, err)
	require.Equal(t, []string{"paris → 2010", "berlin 2019 → 2024", "lisbon 2024 →"}, timeline(t, h, "lives_in"))
	require.Equal(t, []string{"berlin 2019 → 2024"}, endedNames(rep.Ended))
	require.Equal(t, 3, rep.RelationsCreated)

	// Ended: true with no date ends the fact now.
	rep, err = Ingest(ctx, h, aliceIn(ExtractedRelation{Source: "Alice", Target: "Lisbon", TargetType: "city", Type: "lives_in", Ended: true}))
	require.NoError(t, err)
	require.Equal(t, 1, rep.RelationsUpdated)
	require.Equal(t, []string{"paris → 2010", "berlin 2019 → 2024", "lisbon 2024 → 2026-01-10"}, timeline(t, h, "lives_in"))
	got, err := h.GetRelated(ctx, "person:alice", TraverseOptions{})
	require.NoError(t, err)
	require.Empty(t, got, "nowhere, now")

	// A bad interval is skipped with the reason.
	rep, err = Ingest(ctx, h, aliceIn(ExtractedRelation{Source: "Alice", Target: "Rome", TargetType: "city", Type: "lives_in",
		ValidFrom: day(2020, 1, 1), ValidTo: day(2019, 1, 1)}))
	require.NoError(t, err)
	require.Equal(t, 1, rep.RelationsSkipped)
	require.Contains(t, rep.Skipped[0].Reason, "valid_to 2019-01-01T00:00:00Z is before valid_from 2020-01-01T00:00:00Z")
}

// TestSupersessionAnyGraph runs supersession over a graph that offers only
// KnowledgeGraph's methods, with the same result as InMemoryGraph.
func TestSupersessionAnyGraph(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph(WithClock(fixedClock(day(2026, 1, 10))))
	any := onlyGraph{g}
	for _, x := range []Extraction{
		aliceIn(livesIn("Berlin", "2019", "")),
		aliceIn(livesIn("Lisbon", "2024-05", "")),
		aliceIn(livesIn("Paris", "2015", "")),
	} {
		_, err := Ingest(ctx, any, x, WithSingleValuedTypes("lives_in"))
		require.NoError(t, err)
	}
	require.Equal(t, []string{"paris 2015 → 2019", "berlin 2019 → 2024-05", "lisbon 2024-05 →"}, timeline(t, g, "lives_in"))
	rep, err := Ingest(ctx, any, aliceIn(livesIn("Lisbon", "2024-05", "")), WithSingleValuedTypes("lives_in"))
	require.NoError(t, err)
	require.Zero(t, rep.RelationsUpdated+rep.RelationsCreated)
}

func TestParseValidTime(t *testing.T) {
	utc := func(y int, m time.Month, d, h, min, s, ns int) time.Time {
		return time.Date(y, m, d, h, min, s, ns, time.UTC)
	}
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2024", day(2024, 1, 1)},
		{" 2024-03 ", day(2024, 3, 1)},
		{"2024/03", day(2024, 3, 1)},
		{"2024-03-15", day(2024, 3, 15)},
		{"2024/03/15", day(2024, 3, 15)},
		{"2024-03-15T10:30:00Z", utc(2024, 3, 15, 10, 30, 0, 0)},
		{"2024-03-15T10:30:00.1234567+02:00", utc(2024, 3, 15, 8, 30, 0, 123456000)},
		{"2024-03-15T10:30:00", utc(2024, 3, 15, 10, 30, 0, 0)},
		{"2024-03-15T10:30", utc(2024, 3, 15, 10, 30, 0, 0)},
		{"2024-03-15 10:30", utc(2024, 3, 15, 10, 30, 0, 0)},
		{"2024-03-15 10:30:05", utc(2024, 3, 15, 10, 30, 5, 0)},
		{"", time.Time{}},
		{"present", time.Time{}},
		{"Present", time.Time{}},
		{"now", time.Time{}},
		{"ongoing", time.Time{}},
		{"null", time.Time{}},
	} {
		got, err := ParseValidTime(c.in)
		require.NoError(t, err, c.in)
		require.True(t, c.want.Equal(got) && got.Location() == time.UTC || c.want.IsZero() && got.IsZero(), "%q: %v", c.in, got)
	}
	for _, c := range []struct{ in, msg string }{
		{"March 2024", `kgmem: cannot read date "March 2024": want RFC 3339, 2024-03-01, 2024-03 or 2024: invalid argument`},
		{"2024-13", "cannot read date"},
		{"2024-02-30", "cannot read date"},
		{"24", "cannot read date"},
		{"0001", "is the zero time"},
		{"0000", "outside the years 1 to 9999"},
		{"yesterday", "cannot read date"},
	} {
		_, err := ParseValidTime(c.in)
		require.ErrorIs(t, err, ErrInvalidArgument, c.in)
		require.Contains(t, err.Error(), c.msg, c.in)
	}
}

func FuzzParseValidTime(f *testing.F) {
	for _, s := range []string{"2024", "2024-03", "2024-03-01", "2024-03-01T10:00:00Z", "2024-03-01T10:00:00.5-07:00", "present", "", "9999-12-31T23:59:59.999999999Z", "0001-01-01T00:00:00.000001Z", "2024/3/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseValidTime(s)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidArgument)
			require.True(t, strings.HasPrefix(err.Error(), "kgmem: "))
			return
		}
		if got.IsZero() {
			return
		}
		require.Equal(t, time.UTC, got.Location())
		require.Zero(t, got.Nanosecond()%1000, "truncated to the microsecond")
		require.True(t, got.Year() >= 1 && got.Year() <= 9999)
		// What kgmem writes reads back to the same instant.
		for _, text := range []string{got.Format(time.RFC3339Nano), formatValidTime(got)} {
			again, err := ParseValidTime(text)
			require.NoError(t, err, text)
			require.True(t, got.Equal(again), "%q -> %v -> %q -> %v", s, got, text, again)
		}
		// And it is a valid time for a relation.
		r := Relation{SourceID: "a", TargetID: "b", Type: "t", ValidFrom: got}
		require.NoError(t, ValidateRelation(&r))
		require.True(t, got.Equal(r.ValidFrom))
	})
}

// TestParseExtractionDates pins the date keys and forms ParseExtraction
// reads from model output.
func TestParseExtractionDates(t *testing.T) {
	x, err := ParseExtraction([]byte(`Here you go:
{"relations": [
  {"source": "Alice", "target": "Apollo", "type": "works_on", "valid_from": "2024-03", "valid_to": "2025-06"},
  {"source": "Alice", "target": "Gemini", "type": "works_on", "start": "2025-06-01", "end": "present"},
  {"source": "Alice", "target": "Lisbon", "type": "lives_in", "since": 2024},
  {"source": "Alice", "target": "Berlin", "type": "lives_in", "Start Date": "2019-01-01T00:00:00+01:00", "ended": "2024-05"},
  {"source": "Bob", "target": "Acme", "type": "works_at", "ended": true},
  {"source": "Bob", "target": "Beta", "type": "works_at", "until": null, "ended": false}
]}`))
	require.NoError(t, err)
	want := []struct {
		from, to time.Time
		ended    bool
	}{
		{day(2024, 3, 1), day(2025, 6, 1), false},
		{day(2025, 6, 1), time.Time{}, false},
		{day(2024, 1, 1), time.Time{}, false},
		{time.Date(2018, 12, 31, 23, 0, 0, 0, time.UTC), day(2024, 5, 1), true},
		{time.Time{}, time.Time{}, true},
		{time.Time{}, time.Time{}, false},
	}
	require.Len(t, x.Relations, len(want))
	for i, w := range want {
		r := x.Relations[i]
		require.True(t, w.from.Equal(r.ValidFrom), "%d: %v", i, r.ValidFrom)
		require.True(t, w.to.Equal(r.ValidTo), "%d: %v", i, r.ValidTo)
		require.Equal(t, w.ended, r.Ended, "%d", i)
	}
	for _, c := range []struct{ in, path, msg string }{
		{`{"relations":[{"source":"a","target":"b","type":"t","valid_from":"March 2024"}]}`, "relations[0].valid_from", `cannot read date "March 2024"`},
		{`{"relations":[{"source":"a","target":"b","type":"t","end":true}]}`, "relations[0].end", "want a date"},
		{`{"relations":[{"source":"a","target":"b","type":"t","start":"2025","end":"2024"}]}`, "relations[0]", "the end 2024 is before the start 2025"},
	} {
		_, err := ParseExtraction([]byte(c.in))
		require.ErrorIs(t, err, ErrInvalidArgument, c.in)
		var pe *ParseError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, c.path, pe.Path)
		require.Contains(t, pe.Reason, c.msg)
	}
}

// TestValidTimeOptionErrors: a bad option value is an error, never
// ignored.
func TestValidTimeOptionErrors(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph(WithSingleValued("lives_in", " "))
	err := g.AddEntity(ctx, Entity{ID: "a"})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "WithSingleValued")
	_, err = Ingest(ctx, NewInMemoryGraph(), aliceIn(livesIn("Berlin", "", "")), WithSingleValuedTypes(""))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "WithSingleValuedTypes")
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(NewInMemoryGraph()), WithAsOf(At(day(10000, 1, 1))))
	_, err = r.Retrieve(ctx, "where does Alice live?")
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Equal(t, []string{"lives_in", "works_at"}, NewInMemoryGraph(WithSingleValued("works_at", "lives_in", "works_at")).SingleValuedTypes())
}

// TestSupersessionDurable: what supersession writes is journaled as
// written, so a memory reopened later — with another clock and without the
// declaration — holds the same timeline.
func TestSupersessionDurable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := OpenMemory(dir, WithClock(fixedClock(day(2026, 1, 10))), WithSingleValued("lives_in"))
	require.NoError(t, err)
	for i, x := range []Extraction{aliceIn(livesIn("Berlin", "2019", "")), aliceIn(livesIn("Lisbon", "", ""))} {
		_, err := m.Ingest(ctx, KnowledgePage{ID: "p" + string(rune('0'+i)), Content: "Alice moved."}, x)
		require.NoError(t, err)
	}
	want := timeline(t, m.Graph(), "lives_in")
	require.Equal(t, []string{"berlin 2019 → 2026-01-10", "lisbon 2026-01-10 →"}, want)
	require.NoError(t, m.Close())
	m, err = OpenMemory(dir, WithClock(fixedClock(day(2030, 1, 1))))
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, want, timeline(t, m.Graph(), "lives_in"))
}

// TestRestatedStartKeepsEarliest: restating a held fact with a later
// start inside its interval changes nothing, whichever statement comes
// first; an earlier start, or one where the held start is unknown,
// extends it; WithReplace takes the statement as it is. For every type.
func TestRestatedStartKeepsEarliest(t *testing.T) {
	ctx := context.Background()
	worksOn := func(from string) Extraction {
		r := ExtractedRelation{Source: "Alice", SourceType: "person", Target: "Apollo", TargetType: "project", Type: "works_on"}
		if from != "" {
			r.ValidFrom, _ = ParseValidTime(from)
		}
		return Extraction{Entities: []ExtractedEntity{{Name: "Alice", Type: "person"}, {Name: "Apollo", Type: "project"}}, Relations: []ExtractedRelation{r}}
	}
	span := func(g KnowledgeGraph) string {
		r, ok, err := g.(*InMemoryGraph).GetRelation(ctx, "person:alice", "project:apollo", "works_on")
		require.NoError(t, err)
		require.True(t, ok)
		return r.ValidityString()
	}
	for _, c := range []struct {
		name  string
		froms []string
		want  string
	}{
		{"earlier first", []string{"2024-03", "2024-06"}, "2024-03 →"},
		{"later first", []string{"2024-06", "2024-03"}, "2024-03 →"},
		{"undated first", []string{"", "2024-06"}, "2024-06 →"},
		{"dated first", []string{"2024-06", ""}, "2024-06 →"},
	} {
		g := NewInMemoryGraph()
		var rep IngestReport
		for _, from := range c.froms {
			var err error
			rep, err = Ingest(ctx, g, worksOn(from))
			require.NoError(t, err, c.name)
		}
		require.Equal(t, c.want, span(g), c.name)
		if c.name == "earlier first" || c.name == "dated first" {
			require.Equal(t, 1, rep.RelationsUnchanged, c.name)
		}
	}
	g := NewInMemoryGraph()
	for _, from := range []string{"2024-03", "2024-06"} {
		_, err := Ingest(ctx, g, worksOn(from), WithReplace())
		require.NoError(t, err)
	}
	require.Equal(t, "2024-06 →", span(g))
}
