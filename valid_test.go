package kgmem

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// fixedClock returns a clock that always reads t.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// TestAsOfEdges pins the half-open interval: the start is valid, the end
// is not, an unknown start is valid since ever, an open end forever, and
// an empty interval never (but for AsOf{AllTime: true}).
func TestAsOfEdges(t *testing.T) {
	ctx := context.Background()
	from, to := day(2024, 3, 1), day(2025, 6, 1)
	µs := time.Microsecond
	cases := []struct {
		name     string
		from, to time.Time
		at       AsOf
		want     bool
	}{
		{"before the start", from, to, At(from.Add(-µs)), false},
		{"at the start", from, to, At(from), true},
		{"inside", from, to, At(day(2024, 12, 24)), true},
		{"just before the end", from, to, At(to.Add(-µs)), true},
		{"at the end", from, to, At(to), false},
		{"after the end", from, to, At(day(2030, 1, 1)), false},
		{"now, by the clock, after the end", from, to, AsOf{}, false},
		{"all time", from, to, AsOf{AllTime: true}, true},
		{"unknown start, long before the end", time.Time{}, to, At(day(1900, 1, 1)), true},
		{"unknown start, at the end", time.Time{}, to, At(to), false},
		{"open end, far future", from, time.Time{}, At(day(9999, 12, 31)), true},
		{"open end, now", from, time.Time{}, AsOf{}, true},
		{"open end, before the start", from, time.Time{}, At(day(2000, 1, 1)), false},
		{"no validity, any instant", time.Time{}, time.Time{}, At(day(1, 1, 2)), true},
		{"empty interval at its instant", from, from, At(from), false},
		{"empty interval, all time", from, from, AsOf{AllTime: true}, true},
		{"an instant in another zone", from, to, At(from.In(time.FixedZone("X", -3600)).Add(-µs)), false},
		{"an instant below the microsecond", from, to, At(to.Add(-time.Nanosecond)), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewInMemoryGraph(WithClock(fixedClock(day(2026, 1, 1))))
			require.NoError(t, g.AddBatch(ctx, []Entity{{ID: "a"}, {ID: "b"}, {ID: "c"}}, []Relation{
				{SourceID: "a", TargetID: "b", Type: "t", ValidFrom: c.from, ValidTo: c.to},
				{SourceID: "c", TargetID: "a", Type: "t"}, // no validity: always walked
			}))
			r := Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 1, ValidFrom: c.from, ValidTo: c.to}
			instant := c.at.Time
			if instant.IsZero() {
				instant = g.Now()
			}
			if !c.at.AllTime {
				require.Equal(t, c.want, r.ValidAt(instant), "ValidAt")
			}
			got, err := g.GetRelated(ctx, "a", TraverseOptions{AsOf: c.at})
			require.NoError(t, err)
			require.Equal(t, c.want, len(got) == 1, "GetRelated: %v", got)
			got, err = g.GetRelated(ctx, "c", TraverseOptions{Depth: 2, AsOf: c.at})
			require.NoError(t, err)
			require.Equal(t, c.want, len(got) == 2, "GetRelated two hops: %v", got)
			_, err = g.FindPaths(ctx, "a", "b", PathOptions{AsOf: c.at})
			if c.want {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrNoPath)
			}
			rels, err := g.RelationsAsOf(ctx, c.at)
			require.NoError(t, err)
			require.Equal(t, c.want, slices.ContainsFunc(rels, func(x Relation) bool { return x.TargetID == "b" }), "RelationsAsOf")
			// The record itself is always there.
			stored, ok, err := g.GetRelation(ctx, "a", "b", "t")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, r, stored)
		})
	}
}

// TestEndedRelationNotTraversed checks that no default read crosses a
// relation that has ended: not GetRelated at any depth or direction, not
// FindPaths, not the retriever's graph channel.
func TestEndedRelationNotTraversed(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph(WithClock(fixedClock(day(2026, 1, 1))))
	require.NoError(t, g.AddBatch(ctx,
		[]Entity{{ID: "alice", Name: "Alice"}, {ID: "berlin", Name: "Berlin"}, {ID: "lisbon", Name: "Lisbon"}, {ID: "germany", Name: "Germany"}},
		[]Relation{
			{SourceID: "alice", TargetID: "berlin", Type: "lives_in", ValidFrom: day(2019, 1, 1), ValidTo: day(2024, 5, 1)},
			{SourceID: "alice", TargetID: "lisbon", Type: "lives_in", ValidFrom: day(2024, 5, 1)},
			{SourceID: "berlin", TargetID: "germany", Type: "in"},
		}))
	for _, dir := range []Direction{Outgoing, Incoming, Both} {
		for _, start := range []string{"alice", "berlin", "germany"} {
			got, err := g.GetRelated(ctx, start, TraverseOptions{Depth: 3, Direction: dir})
			require.NoError(t, err)
			ids := []string{start}
			for _, s := range got {
				ids = append(ids, s.Entity.ID)
			}
			require.False(t, slices.Contains(ids, "alice") && slices.Contains(ids, "berlin"), "%v from %s: %v", dir, start, ids)
		}
	}
	_, err := g.FindPaths(ctx, "alice", "germany", PathOptions{})
	require.ErrorIs(t, err, ErrNoPath)
	res, err := g.FindPaths(ctx, "alice", "germany", PathOptions{AsOf: At(day(2020, 1, 1))})
	require.NoError(t, err)
	require.Equal(t, []string{"alice", "berlin", "germany"}, res.Paths[0].EntityIDs)
	res, err = g.FindPaths(ctx, "alice", "germany", PathOptions{AsOf: AsOf{AllTime: true}})
	require.NoError(t, err)
	require.Len(t, res.Paths, 1)

	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithStrategy(GraphOnly))
	out, err := r.Retrieve(ctx, "where does Alice live?")
	require.NoError(t, err)
	require.Equal(t, []string{"Lisbon", "Alice"}, itemNames(out.Items))
	past := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithStrategy(GraphOnly),
		WithAsOf(At(day(2023, 6, 1))))
	out, err = past.Retrieve(ctx, "where did Alice live?")
	require.NoError(t, err)
	names := itemNames(out.Items)
	require.Equal(t, "Berlin", names[0])
	require.NotContains(t, names, "Lisbon")
}

// entityNeighborhood is a listNeighborhood in which every ID is an
// entity, with a fixed clock.
type entityNeighborhood struct {
	*listNeighborhood
	now time.Time
}

func (n entityNeighborhood) Now() time.Time { return n.now }

func (n entityNeighborhood) Entities(_ context.Context, ids []string) ([]Entity, error) {
	out := make([]Entity, len(ids))
	for i, id := range ids {
		out[i] = Entity{ID: id}
	}
	return out, nil
}

func itemNames(items []RetrievalItem) []string {
	var out []string
	for _, it := range items {
		if it.Entity != nil {
			out = append(out, it.Entity.Name)
		}
	}
	return out
}

// TestValidTimeValidation pins what a write accepts and how it stores
// times: UTC, truncated to the microsecond, years 1 to 9999, the end not
// before the start.
func TestValidTimeValidation(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []Entity{{ID: "a"}, {ID: "b"}}, nil))
	bad := []struct {
		name     string
		from, to time.Time
		msg      string
	}{
		{"end before start", day(2025, 1, 1), day(2024, 1, 1), `kgmem: relation "a" -["t"]-> "b": valid_to 2024-01-01T00:00:00Z is before valid_from 2025-01-01T00:00:00Z: invalid argument`},
		{"end a microsecond before start", day(2025, 1, 1), day(2025, 1, 1).Add(-time.Microsecond), "is before valid_from"},
		{"year 10000", day(10000, 1, 1), time.Time{}, "valid_from 10000-01-01T00:00:00Z is outside the years 1 to 9999"},
		{"before year 1", time.Time{}, time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC), "valid_to 0000-12-31T00:00:00Z is outside the years 1 to 9999"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			err := g.AddRelation(ctx, Relation{SourceID: "a", TargetID: "b", Type: "t", ValidFrom: c.from, ValidTo: c.to})
			require.ErrorIs(t, err, ErrInvalidArgument)
			require.Contains(t, err.Error(), c.msg)
			require.Zero(t, g.Stats().Relations)
			err = ValidateRelation(&Relation{SourceID: "a", TargetID: "b", Type: "t", ValidFrom: c.from, ValidTo: c.to})
			require.ErrorIs(t, err, ErrInvalidArgument)
		})
	}
	_, err := g.GetRelated(ctx, "a", TraverseOptions{AsOf: At(day(10000, 1, 1))})
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = g.FindPaths(ctx, "a", "b", PathOptions{AsOf: At(day(10000, 1, 1))})
	require.ErrorIs(t, err, ErrInvalidArgument)

	cet := time.FixedZone("CET", 3600)
	in := Relation{SourceID: "a", TargetID: "b", Type: "t",
		ValidFrom: time.Date(2024, 3, 1, 1, 0, 0, 999_999_999, cet), ValidTo: time.Date(2024, 3, 1, 1, 0, 1, 0, cet)}
	require.NoError(t, g.AddRelation(ctx, in))
	got, _, err := g.GetRelation(ctx, "a", "b", "t")
	require.NoError(t, err)
	require.Equal(t, time.Date(2024, 3, 1, 0, 0, 0, 999_999_000, time.UTC), got.ValidFrom)
	require.Equal(t, time.UTC, got.ValidFrom.Location())
	require.Equal(t, time.Date(2024, 3, 1, 0, 0, 1, 0, time.UTC), got.ValidTo)
	// Equal ends: an empty interval is stored.
	require.NoError(t, g.AddRelation(ctx, Relation{SourceID: "b", TargetID: "a", Type: "t", ValidFrom: day(2024, 1, 1), ValidTo: day(2024, 1, 1)}))
	require.NoError(t, g.checkInvariants())
}

// TestValidTimeSnapshot pins the snapshot lines of relations with valid
// times and the version that holds them.
func TestValidTimeSnapshot(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []Entity{{ID: "a"}, {ID: "b"}}, []Relation{{SourceID: "a", TargetID: "b", Type: "t"}}))
	require.True(t, bytes.HasPrefix(snapshotBytes(t, g), []byte(`{"format":"kgmem-graph","version":2,`)))
	require.NoError(t, g.AddRelation(ctx, Relation{SourceID: "b", TargetID: "a", Type: "t", Weight: 0.5,
		ValidFrom: time.Date(2024, 3, 1, 0, 0, 0, 1000, time.UTC), ValidTo: day(2025, 6, 1)}))
	want := `{"format":"kgmem-graph","version":3,"entities":2,"relations":2,"checksum":"crc32c"}
{"id":"a","name":""}
{"id":"b","name":""}
{"source_id":"a","target_id":"b","type":"t","weight":1}
{"source_id":"b","target_id":"a","type":"t","weight":0.5,"valid_from":"2024-03-01T00:00:00.000001Z","valid_to":"2025-06-01T00:00:00Z"}
{"crc32c":"e73717f8","bytes":317}
`
	require.Equal(t, want, string(snapshotBytes(t, g)))
	h := NewInMemoryGraph()
	_, err := h.ReadFrom(strings.NewReader(want))
	require.NoError(t, err)
	requireSameGraph(t, g, h)
	// The checks below edit the lines, which the checksum would refuse.
	want = unsealed(want)
	// A version 2 snapshot never held valid times.
	_, err = h.ReadFrom(strings.NewReader(strings.Replace(want, `"version":3`, `"version":2`, 1)))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "a valid time in a version 2 snapshot")
	// A bad time reads as an error naming the line.
	_, err = h.ReadFrom(strings.NewReader(strings.Replace(want, `"valid_to":"2025-06-01T00:00:00Z"`, `"valid_to":"2023-06-01T00:00:00Z"`, 1)))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "line 5")
	requireSameGraph(t, g, h)
}

// TestAsOfReference checks GetRelated and FindPaths as of random instants
// over random timelines against a brute-force reference: the same read
// on a graph that holds only the relations valid at that instant, with
// no valid times at all. It checks the in-memory graph and the generic
// traversal over a Neighborhood alike.
func TestAsOfReference(t *testing.T) {
	ctx := context.Background()
	seeds := 40
	if testing.Short() {
		seeds = 12
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 16))
		n := 4 + rng.IntN(12)
		ents := make([]Entity, n)
		for i := range ents {
			ents[i] = Entity{ID: fmt.Sprintf("e%02d", i)}
		}
		instant := func() time.Time { return day(2000, 1, 1).AddDate(0, 0, rng.IntN(40)) }
		var rels []Relation
		for range rng.IntN(4 * n) {
			r := Relation{SourceID: ents[rng.IntN(n)].ID, TargetID: ents[rng.IntN(n)].ID,
				Type: []string{"a", "b"}[rng.IntN(2)], Weight: []float64{1, 0.5, 0.25}[rng.IntN(3)]}
			if rng.IntN(4) > 0 {
				r.ValidFrom = instant()
			}
			if rng.IntN(3) > 0 {
				r.ValidTo = instant()
				if !r.ValidFrom.IsZero() && r.ValidTo.Before(r.ValidFrom) {
					r.ValidFrom, r.ValidTo = r.ValidTo, r.ValidFrom
				}
			}
			rels = append(rels, r)
		}
		now := instant()
		g := NewInMemoryGraph(WithClock(fixedClock(now)))
		require.NoError(t, g.AddBatch(ctx, ents, rels))
		all, err := g.Relations(ctx)
		require.NoError(t, err)
		for q := range 12 {
			at := instant()
			asOf := At(at)
			switch q {
			case 0:
				asOf, at = AsOf{}, now
			case 1:
				asOf = AsOf{AllTime: true}
			}
			ref := NewInMemoryGraph()
			var valid []Relation
			for _, r := range all {
				if asOf.AllTime || r.ValidAt(at) {
					r.ValidFrom, r.ValidTo = time.Time{}, time.Time{}
					valid = append(valid, r)
				}
			}
			require.NoError(t, ref.AddBatch(ctx, ents, valid))
			strip := func(ss []ScoredEntity) []ScoredEntity {
				for i := range ss {
					for j := range ss[i].Relations {
						ss[i].Relations[j].ValidFrom, ss[i].Relations[j].ValidTo = time.Time{}, time.Time{}
					}
				}
				return ss
			}
			start := ents[rng.IntN(n)].ID
			opts := TraverseOptions{Depth: 1 + rng.IntN(3), Direction: Direction(rng.IntN(3))}
			want, err := ref.GetRelated(ctx, start, opts)
			require.NoError(t, err)
			opts.AsOf = asOf
			got, err := g.GetRelated(ctx, start, opts)
			require.NoError(t, err)
			require.Equal(t, want, strip(got), "seed %d, GetRelated(%s, %+v)", seed, start, opts)
			got, err = TraverseRelated(ctx, entityNeighborhood{newListNeighborhood(all), now}, start, opts)
			require.NoError(t, err)
			require.Equal(t, want, strip(got), "seed %d, TraverseRelated(%s, %+v)", seed, start, opts)

			end := ents[rng.IntN(n)].ID
			popts := PathOptions{MaxHops: 1 + rng.IntN(4), Direction: Direction(rng.IntN(3)), MaxPaths: 5}
			wantP, wantErr := ref.FindPaths(ctx, start, end, popts)
			popts.AsOf = asOf
			gotP, gotErr := g.FindPaths(ctx, start, end, popts)
			require.Equal(t, wantErr, gotErr)
			for i := range gotP.Paths {
				for j := range gotP.Paths[i].Relations {
					gotP.Paths[i].Relations[j].ValidFrom, gotP.Paths[i].Relations[j].ValidTo = time.Time{}, time.Time{}
				}
			}
			require.Equal(t, wantP, gotP, "seed %d, FindPaths(%s, %s, %+v)", seed, start, end, popts)
		}
		require.NoError(t, g.checkInvariants())
	}
}

// TestHistory pins the timeline: every relation of the entity, ended ones
// included, oldest first.
func TestHistory(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx,
		[]Entity{{ID: "alice"}, {ID: "berlin"}, {ID: "lisbon"}, {ID: "paris"}, {ID: "acme"}, {ID: "bob"}},
		[]Relation{
			{SourceID: "alice", TargetID: "lisbon", Type: "lives_in", ValidFrom: day(2024, 5, 1)},
			{SourceID: "alice", TargetID: "berlin", Type: "lives_in", ValidFrom: day(2019, 1, 1), ValidTo: day(2024, 5, 1)},
			{SourceID: "alice", TargetID: "paris", Type: "lives_in", ValidTo: day(2019, 1, 1)},
			{SourceID: "alice", TargetID: "acme", Type: "works_at"},
			{SourceID: "bob", TargetID: "alice", Type: "knows", ValidFrom: day(2020, 1, 1)},
		}))
	key := func(rs []Relation) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Type+" "+r.TargetID+" "+r.ValidityString())
		}
		return out
	}
	got, err := History(ctx, g, "alice", HistoryOptions{RelationTypes: []string{"lives_in"}})
	require.NoError(t, err)
	require.Equal(t, []string{"lives_in paris → 2019", "lives_in berlin 2019 → 2024-05", "lives_in lisbon 2024-05 →"}, key(got))
	got, err = History(ctx, g, "alice", HistoryOptions{Direction: Both})
	require.NoError(t, err)
	require.Equal(t, []string{"lives_in paris → 2019", "works_at acme ", "lives_in berlin 2019 → 2024-05", "knows alice 2020 →", "lives_in lisbon 2024-05 →"}, key(got))
	_, err = History(ctx, g, "nobody", HistoryOptions{})
	require.ErrorIs(t, err, ErrNotFound)
	_, err = History(ctx, g, " ", HistoryOptions{})
	require.ErrorIs(t, err, ErrInvalidArgument)
	// Over any KnowledgeGraph, through GetRelated: the same timeline.
	other, err := History(ctx, onlyGraph{g}, "alice", HistoryOptions{Direction: Both})
	require.NoError(t, err)
	require.Equal(t, key(got), key(other))
}

// onlyGraph hides every method of an InMemoryGraph but KnowledgeGraph's.
type onlyGraph struct{ KnowledgeGraph }

func TestValidityString(t *testing.T) {
	for _, c := range []struct {
		r    Relation
		want string
	}{
		{Relation{}, ""},
		{Relation{ValidFrom: day(2024, 3, 1), ValidTo: day(2025, 6, 1)}, "2024-03 → 2025-06"},
		{Relation{ValidFrom: day(2024, 1, 1)}, "2024 →"},
		{Relation{ValidTo: day(2024, 3, 15)}, "→ 2024-03-15"},
		{Relation{ValidFrom: time.Date(2024, 3, 15, 10, 30, 0, 0, time.UTC)}, "2024-03-15T10:30Z →"},
		{Relation{ValidFrom: time.Date(2024, 3, 15, 10, 30, 5, 0, time.UTC)}, "2024-03-15T10:30:05Z →"},
		{Relation{ValidFrom: time.Date(2024, 3, 15, 10, 30, 5, 1000, time.UTC)}, "2024-03-15T10:30:05.000001Z →"},
	} {
		require.Equal(t, c.want, c.r.ValidityString())
	}
}

// TestValidityShown pins how valid time is shown: in explanations and the
// context block (render's TestRenderValidity pins the drawings).
func TestValidityShown(t *testing.T) {
	ctx := context.Background()
	g := NewInMemoryGraph(WithClock(fixedClock(day(2025, 1, 1))))
	require.NoError(t, g.AddBatch(ctx,
		[]Entity{{ID: "alice", Name: "Alice"}, {ID: "apollo", Name: "Apollo", Type: "project"}, {ID: "gemini", Name: "Gemini", Type: "project"}},
		[]Relation{
			{SourceID: "alice", TargetID: "apollo", Type: "works_on", ValidFrom: day(2024, 3, 1), ValidTo: day(2025, 6, 1)},
			{SourceID: "alice", TargetID: "gemini", Type: "works_on", ValidFrom: day(2023, 1, 1), ValidTo: day(2024, 3, 1)},
		}))
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithStrategy(GraphOnly))
	res, err := r.Retrieve(ctx, "what does Alice work on?")
	require.NoError(t, err)
	require.Equal(t, "Alice —works_on→ Apollo (2024-03 → 2025-06)", res.Items[0].pathString())
	require.Contains(t, res.Items[0].Explain(), "Alice —works_on→ Apollo (2024-03 → 2025-06)")
	require.Contains(t, res.ContextBlock(0), "path: Alice —works_on→ Apollo (2024-03 → 2025-06)\n")
	require.NotContains(t, res.ContextBlock(0), "Gemini", "ended before now")
}
