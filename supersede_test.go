package kgmem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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
// the history, cutting the stint they fall in, and a move back needs a
// date.
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
		{name: "a late fact inside a stint cuts it, and ends where the next begins", x: aliceIn(livesIn("Rome", "2024-02", "")),
			wantEnded: []string{"berlin 2019 → 2024-02"},
			wantLine:  []string{"paris 2015-09 → 2019", "berlin 2019 → 2024-02", "rome 2024-02 → 2024-05", "lisbon 2024-05 →"}},
		{name: "an undated new value is news: it starts now", x: aliceIn(livesIn("Oslo", "", "")),
			wantEnded: []string{"lisbon 2024-05 → 2026-01-10"},
			wantLine:  []string{"paris 2015-09 → 2019", "berlin 2019 → 2024-02", "rome 2024-02 → 2024-05", "lisbon 2024-05 → 2026-01-10", "oslo 2026-01-10 →"}},
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
// superseded; values held from before the declaration are settled too;
// one extraction with several values orders them by start.
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
	// Declared later, the type holds one value at a time: Berlin ends
	// where Lisbon begins, Lisbon where Madrid does.
	rep, err = Ingest(ctx, g, aliceIn(livesIn("Madrid", "2025", "")), WithSingleValuedTypes("Lives In"))
	require.NoError(t, err)
	require.Equal(t, []string{"berlin 2019 → 2024", "lisbon 2024 → 2025"}, endedNames(rep.Ended))
	require.Equal(t, []string{"berlin 2019 → 2024", "lisbon 2024 → 2025", "madrid 2025 →"}, timeline(t, g, "lives_in"))

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

// livesAt returns the cities alice lives in at t, by History and by a
// read as of t, which must agree.
func livesAt(t *testing.T, g KnowledgeGraph, at time.Time) []string {
	t.Helper()
	ctx := context.Background()
	rs, err := History(ctx, g, "person:alice", HistoryOptions{RelationTypes: []string{"lives_in"}})
	require.NoError(t, err)
	var byHistory []string
	for _, r := range rs {
		if r.ValidAt(at) {
			byHistory = append(byHistory, strings.TrimPrefix(r.TargetID, "city:"))
		}
	}
	got, err := g.GetRelated(ctx, "person:alice", TraverseOptions{RelationTypes: []string{"lives_in"}, AsOf: At(at)})
	require.NoError(t, err)
	var byRead []string
	for _, s := range got {
		byRead = append(byRead, strings.TrimPrefix(s.Entity.ID, "city:"))
	}
	slices.Sort(byRead)
	slices.Sort(byHistory)
	require.Equal(t, byHistory, byRead, "at %v", at)
	return byRead
}

// TestSupersessionLateFactInsideStint: a fact that arrives after a later
// one and starts inside a held stint cuts that stint at its start and ends
// where the next held stint begins, so one value holds at each instant.
func TestSupersessionLateFactInsideStint(t *testing.T) {
	ctx := context.Background()
	now := day(2026, 1, 10)
	for _, declared := range []string{"graph", "option"} {
		g := NewInMemoryGraph(WithClock(fixedClock(now)), WithSingleValued("lives_in"))
		var opts []IngestOption
		if declared == "option" {
			g = NewInMemoryGraph(WithClock(fixedClock(now)))
			opts = append(opts, WithSingleValuedTypes("lives_in"))
		}
		rep, err := Ingest(ctx, g, aliceIn(livesIn("Berlin", "2020", "")), opts...)
		require.NoError(t, err)
		require.Empty(t, rep.Ended)
		rep, err = Ingest(ctx, g, aliceIn(livesIn("Lisbon", "2024", "")), opts...)
		require.NoError(t, err)
		require.Equal(t, []string{"berlin 2020 → 2024"}, endedNames(rep.Ended), declared)
		rep, err = Ingest(ctx, g, aliceIn(livesIn("Paris", "2022", "")), opts...)
		require.NoError(t, err)
		require.Equal(t, []string{"berlin 2020 → 2022"}, endedNames(rep.Ended), declared)
		require.Equal(t, 1, rep.RelationsCreated, declared)
		require.Equal(t, 1, rep.RelationsUpdated, declared)
		require.Equal(t, []string{"berlin 2020 → 2022", "paris 2022 → 2024", "lisbon 2024 →"}, timeline(t, g, "lives_in"), declared)
		require.Equal(t, []string{"paris"}, livesAt(t, g, day(2023, 6, 1)), declared)
		require.Equal(t, []string{"berlin"}, livesAt(t, g, day(2021, 12, 31)), declared)
		require.Equal(t, []string{"paris"}, livesAt(t, g, day(2022, 1, 1)), declared)
		require.Equal(t, []string{"lisbon"}, livesAt(t, g, day(2024, 1, 1)), declared)
		require.Empty(t, livesAt(t, g, day(2019, 6, 1)), declared)
		// Ingesting the late fact again changes nothing.
		rep, err = Ingest(ctx, g, aliceIn(livesIn("Paris", "2022", "")), opts...)
		require.NoError(t, err)
		require.Zero(t, rep.RelationsCreated+rep.RelationsUpdated, declared)
		require.Equal(t, 1, rep.RelationsUnchanged, declared)
		require.NoError(t, g.checkInvariants())
	}
}

// moves are twelve yearly moves of alice, in chronological order: city i
// from year 2010+i.
var moves = []string{"Amsterdam", "Berlin", "Cairo", "Dublin", "Essen", "Florence", "Geneva", "Hamburg", "Istanbul", "Jakarta", "Kyoto", "Lima"}

// checkOneValueAtATime checks that alice's lives_in timeline is the
// chronological one of moves — city i from 2010+i to the next move, the
// last one open — and that one city, the right one, holds at every move,
// between two moves and after the last, and none before the first.
func checkOneValueAtATime(t *testing.T, g KnowledgeGraph, msg string) {
	t.Helper()
	var want []string
	for i, c := range moves {
		line := fmt.Sprintf("%s %d →", strings.ToLower(c), 2010+i)
		if i+1 < len(moves) {
			line += fmt.Sprintf(" %d", 2010+i+1)
		}
		want = append(want, line)
	}
	require.Equal(t, want, timeline(t, g, "lives_in"), msg)
	require.Empty(t, livesAt(t, g, day(2009, 7, 1)), msg)
	require.Empty(t, livesAt(t, g, day(2009, 12, 31).Add(23*time.Hour+59*time.Minute)), msg)
	for i, c := range moves {
		city := []string{strings.ToLower(c)}
		require.Equal(t, city, livesAt(t, g, day(2010+i, 1, 1)), "%s: at the move to %s", msg, c)
		require.Equal(t, city, livesAt(t, g, day(2010+i, 7, 1)), "%s: between moves, in %s", msg, c)
		require.Equal(t, city, livesAt(t, g, day(2010+i, 12, 31)), "%s: the day before the next move, in %s", msg, c)
	}
}

// TestSupersessionAnyArrivalOrder: twelve yearly moves, one extraction
// per move, ingested in 20 orders: every order leaves the chronological
// timeline, one city at each instant, with Ingest over an InMemoryGraph
// (declared by the graph), over a graph with only KnowledgeGraph's
// methods (declared by the option) and with Memory.Ingest (reopened
// too).
func TestSupersessionAnyArrivalOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := day(2026, 1, 10)
	extraction := func(i int) Extraction { return aliceIn(livesIn(moves[i], fmt.Sprint(2010+i), "")) }
	var orders [][]int
	chrono, reverse := make([]int, len(moves)), make([]int, len(moves))
	for i := range chrono {
		chrono[i], reverse[len(moves)-1-i] = i, i
	}
	orders = append(orders, chrono, reverse)
	for seed := range uint64(18) {
		orders = append(orders, rand.New(rand.NewPCG(seed, 42)).Perm(len(moves)))
	}
	require.Len(t, orders, 20)
	for n, order := range orders {
		msg := fmt.Sprintf("order %d %v", n, order)

		g := NewInMemoryGraph(WithClock(fixedClock(now)), WithSingleValued("lives_in"))
		for _, i := range order {
			_, err := Ingest(ctx, g, extraction(i))
			require.NoError(t, err, msg)
		}
		checkOneValueAtATime(t, g, msg+", InMemoryGraph")
		require.NoError(t, g.checkInvariants())

		h := NewInMemoryGraph(WithClock(fixedClock(now)))
		for _, i := range order {
			_, err := Ingest(ctx, onlyGraph{h}, extraction(i), WithSingleValuedTypes("lives_in"))
			require.NoError(t, err, msg)
		}
		checkOneValueAtATime(t, onlyGraph{h}, msg+", any graph")

		dir := t.TempDir()
		m, err := OpenMemory(dir, WithClock(fixedClock(now)), WithSingleValued("lives_in"))
		require.NoError(t, err)
		for k, i := range order {
			_, err := m.Ingest(ctx, KnowledgePage{ID: fmt.Sprintf("p%d", k), Content: "Alice moved to " + moves[i] + "."}, extraction(i))
			require.NoError(t, err, msg)
		}
		checkOneValueAtATime(t, m.Graph(), msg+", Memory")
		require.NoError(t, m.Close())
		m, err = OpenMemory(dir, WithClock(fixedClock(now)))
		require.NoError(t, err)
		checkOneValueAtATime(t, m.Graph(), msg+", Memory reopened")
		require.NoError(t, m.Close())
	}
}

// TestSupersessionEdges pins what supersession does with values that
// start together, values without a start, stated ends and a value stated
// again: each step's Ended and the timeline after it.
func TestSupersessionEdges(t *testing.T) {
	ctx := context.Background()
	now := day(2026, 1, 10)
	type step struct {
		x         Extraction
		wantEnded []string
		wantLine  []string
		unchanged bool // nothing written
	}
	run := func(name string, steps ...step) *InMemoryGraph {
		t.Helper()
		g := NewInMemoryGraph(WithClock(fixedClock(now)), WithSingleValued("lives_in"))
		for i, s := range steps {
			msg := fmt.Sprintf("%s, step %d", name, i)
			rep, err := Ingest(ctx, g, s.x)
			require.NoError(t, err, msg)
			require.Equal(t, s.wantEnded, endedNames(rep.Ended), msg)
			require.Equal(t, s.wantLine, timeline(t, g, "lives_in"), msg)
			if s.unchanged {
				require.Zero(t, rep.RelationsCreated+rep.RelationsUpdated, "%s: %+v", msg, rep)
			}
			require.NoError(t, g.checkInvariants())
		}
		return g
	}
	berlin2020 := step{x: aliceIn(livesIn("Berlin", "2020", "")), wantLine: []string{"berlin 2020 →"}}

	// Two values that start together: the one ingested last holds; the
	// other keeps an empty interval, valid at no instant.
	g := run("equal starts", berlin2020,
		step{x: aliceIn(livesIn("Rome", "2020", "")), wantEnded: []string{"berlin 2020 → 2020"},
			wantLine: []string{"berlin 2020 → 2020", "rome 2020 →"}},
		step{x: aliceIn(livesIn("Rome", "2020", "")), wantLine: []string{"berlin 2020 → 2020", "rome 2020 →"}, unchanged: true},
		step{x: aliceIn(livesIn("Lisbon", "2024", "")), wantEnded: []string{"rome 2020 → 2024"},
			wantLine: []string{"berlin 2020 → 2020", "rome 2020 → 2024", "lisbon 2024 →"}})
	require.Equal(t, []string{"rome"}, livesAt(t, g, day(2020, 1, 1)))
	run("equal starts in one extraction", step{x: aliceIn(livesIn("Rome", "2020", ""), livesIn("Berlin", "2020", "")),
		wantEnded: []string{"rome 2020 → 2020"}, wantLine: []string{"rome 2020 → 2020", "berlin 2020 →"}})
	run("equal starts, stated again", berlin2020,
		step{x: aliceIn(livesIn("Rome", "2020", "")), wantEnded: []string{"berlin 2020 → 2020"},
			wantLine: []string{"berlin 2020 → 2020", "rome 2020 →"}},
		step{x: aliceIn(livesIn("Berlin", "2020", "")), wantEnded: []string{"rome 2020 → 2020"},
			wantLine: []string{"rome 2020 → 2020", "berlin 2020 →"}})

	// Values without a start.
	run("undated", step{x: aliceIn(livesIn("Berlin", "", "")), wantLine: []string{"berlin "}},
		step{x: aliceIn(livesIn("Berlin", "", "")), wantLine: []string{"berlin "}, unchanged: true},
		step{x: aliceIn(livesIn("Paris", "", "2010")), wantLine: []string{"paris → 2010", "berlin 2010 →"}},
		step{x: aliceIn(livesIn("Oslo", "", "")), wantEnded: []string{"berlin 2010 → 2026-01-10"},
			wantLine: []string{"paris → 2010", "berlin 2010 → 2026-01-10", "oslo 2026-01-10 →"}})
	run("undated among dated", berlin2020,
		step{x: aliceIn(livesIn("Lisbon", "2027", "")), wantEnded: []string{"berlin 2020 → 2027"},
			wantLine: []string{"berlin 2020 → 2027", "lisbon 2027 →"}},
		step{x: aliceIn(livesIn("Oslo", "", "")), wantEnded: []string{"berlin 2020 → 2026-01-10"},
			wantLine: []string{"berlin 2020 → 2026-01-10", "oslo 2026-01-10 → 2027", "lisbon 2027 →"}},
		step{x: aliceIn(livesIn("Paris", "", "2015")),
			wantLine: []string{"paris → 2015", "berlin 2020 → 2026-01-10", "oslo 2026-01-10 → 2027", "lisbon 2027 →"}},
		step{x: aliceIn(ExtractedRelation{Source: "Alice", SourceType: "person", Target: "Madrid", TargetType: "city", Type: "lives_in", Ended: true}),
			wantLine: []string{"paris → 2015", "madrid 2015 → 2020", "berlin 2020 → 2026-01-10", "oslo 2026-01-10 → 2027", "lisbon 2027 →"}})

	// Stated ends.
	lisbon2024 := step{x: aliceIn(livesIn("Lisbon", "2024", "")), wantEnded: []string{"berlin 2020 → 2024"},
		wantLine: []string{"berlin 2020 → 2024", "lisbon 2024 →"}}
	g = run("a late fact with an end", berlin2020, lisbon2024,
		step{x: aliceIn(livesIn("Paris", "2021", "2023")), wantEnded: []string{"berlin 2020 → 2021"},
			wantLine: []string{"berlin 2020 → 2021", "paris 2021 → 2023", "lisbon 2024 →"}})
	require.Empty(t, livesAt(t, g, day(2023, 6, 1)), "between Paris and Lisbon")
	run("a late fact whose end runs past the next start", berlin2020, lisbon2024,
		step{x: aliceIn(livesIn("Paris", "2021", "2030")), wantEnded: []string{"berlin 2020 → 2021"},
			wantLine: []string{"berlin 2020 → 2021", "paris 2021 → 2024", "lisbon 2024 →"}})
	run("an end stated for the current value", berlin2020, lisbon2024,
		step{x: aliceIn(livesIn("Lisbon", "", "2025")), wantLine: []string{"berlin 2020 → 2024", "lisbon 2024 → 2025"}})

	// The same value stated again merges into the value held.
	rome2016 := step{x: aliceIn(livesIn("Rome", "2016", "")), wantLine: []string{"rome 2016 → 2020", "berlin 2020 → 2024", "lisbon 2024 →"}}
	held := []string{"rome 2016 → 2020", "berlin 2020 → 2024", "lisbon 2024 →"}
	run("stated again", berlin2020, lisbon2024, rome2016,
		step{x: aliceIn(livesIn("Berlin", "2022", "")), wantLine: held, unchanged: true},
		step{x: aliceIn(livesIn("Berlin", "2020", "2030")), wantLine: held, unchanged: true},
		step{x: aliceIn(livesIn("Berlin", "", "")), wantLine: held, unchanged: true},
		step{x: aliceIn(livesIn("Lisbon", "2024", "")), wantLine: held, unchanged: true},
		step{x: aliceIn(livesIn("Berlin", "2018", "")), wantEnded: []string{"rome 2016 → 2018"},
			wantLine: []string{"rome 2016 → 2018", "berlin 2018 → 2024", "lisbon 2024 →"}})
	run("stated twice in one extraction", step{x: aliceIn(livesIn("Berlin", "2020", ""), livesIn("Berlin", "2019", "")),
		wantLine: []string{"berlin 2019 →"}})
	run("later start first", step{x: aliceIn(livesIn("Berlin", "2022", "")), wantLine: []string{"berlin 2022 →"}},
		step{x: aliceIn(livesIn("Berlin", "2020", "")), wantLine: []string{"berlin 2020 →"}})
	run("earlier start first", berlin2020,
		step{x: aliceIn(livesIn("Berlin", "2022", "")), wantLine: []string{"berlin 2020 →"}, unchanged: true})

	// A self-loop, which GetRelated never returns, is a value like any
	// other.
	self := livesIn("Alice", "2019", "")
	self.TargetType = "person"
	run("self-loop", step{x: Extraction{Entities: []ExtractedEntity{{Name: "Alice", Type: "person"}}, Relations: []ExtractedRelation{self}}, wantLine: []string{"person:alice 2019 →"}},
		step{x: aliceIn(livesIn("Berlin", "2020", "")), wantEnded: []string{"person:alice 2019 → 2020"},
			wantLine: []string{"person:alice 2019 → 2020", "berlin 2020 →"}})
}

// TestSupersessionNeverOverlaps ingests random facts — a few cities,
// starts and ends or none, some ended, some stated again — one
// extraction each, and checks after every call that at most one city
// holds at any instant where the timeline changes, and between.
func TestSupersessionNeverOverlaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := day(2026, 1, 10)
	cities := []string{"Berlin", "Lisbon", "Paris", "Rome", "Oslo"}
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 7))
		g := NewInMemoryGraph(WithClock(fixedClock(now)), WithSingleValued("lives_in"))
		for step := range 8 {
			var rels []ExtractedRelation
			for range 1 + rng.IntN(2) {
				r := livesIn(cities[rng.IntN(len(cities))], "", "")
				if rng.IntN(6) > 0 {
					r.ValidFrom = day(2010+rng.IntN(20), time.Month(1+6*rng.IntN(2)), 1)
				}
				switch rng.IntN(4) {
				case 0:
					r.ValidTo = day(2011+rng.IntN(20), 1, 1)
					if !r.ValidFrom.IsZero() && r.ValidTo.Before(r.ValidFrom) {
						r.ValidTo = r.ValidFrom.AddDate(1, 0, 0)
					}
				case 1:
					r.Ended = rng.IntN(3) == 0
				}
				rels = append(rels, r)
			}
			_, err := Ingest(ctx, g, aliceIn(rels...))
			require.NoError(t, err)
			rs, err := History(ctx, g, "person:alice", HistoryOptions{RelationTypes: []string{"lives_in"}})
			require.NoError(t, err)
			instants := []time.Time{day(1900, 1, 1), now}
			for _, r := range rs {
				for _, b := range []time.Time{r.ValidFrom, r.ValidTo} {
					if !b.IsZero() {
						instants = append(instants, b, b.Add(-time.Microsecond), b.AddDate(0, 0, 10))
					}
				}
			}
			for _, at := range instants {
				require.LessOrEqual(t, len(livesAt(t, g, at)), 1, "seed %d, step %d, at %v: %v", seed, step, at, timeline(t, g, "lives_in"))
			}
		}
	}
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
