package kgmemtest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// validTimeChecks check valid time on relations: stored to the
// microsecond in UTC, validated, and read as of an instant — by default
// now, so that an ended relation is never walked. The intervals lie far
// from the present (before 2000, after 9000), so the checks hold whatever
// clock the backend reads.
func validTimeChecks() []check {
	y := func(year int) time.Time { return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC) }
	// a -[ended]-> b -[always]-> f; a -[current]-> c; a -[future]-> d;
	// a -[always]-> e.
	build := func(t *testing.T, g kgmem.KnowledgeGraph) {
		for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
			addEntity(t, g, kgmem.Entity{ID: id, Name: id})
		}
		addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", ValidFrom: y(1970), ValidTo: y(1990)})
		addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "c", Type: "t", ValidFrom: y(1980)})
		addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "d", Type: "t", ValidFrom: y(9000)})
		addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "e", Type: "t"})
		addRelation(t, g, kgmem.Relation{SourceID: "b", TargetID: "f", Type: "t"})
	}
	ids := func(t *testing.T, g kgmem.KnowledgeGraph, opts kgmem.TraverseOptions) []string {
		t.Helper()
		got := related(t, g, "a", opts)
		out := resultIDs(got)
		slices.Sort(out)
		return out
	}
	return []check{
		{"StoredInUTCToTheMicrosecond", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addEntity(t, g, kgmem.Entity{ID: "a"})
			addEntity(t, g, kgmem.Entity{ID: "b"})
			zone := time.FixedZone("UTC+5:30", 5*3600+1800)
			addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t",
				ValidFrom: time.Date(1999, 12, 31, 23, 59, 59, 123456789, zone), ValidTo: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)})
			got := related(t, g, "a", kgmem.TraverseOptions{AsOf: kgmem.AsOf{AllTime: true}})
			if len(got) != 1 {
				t.Fatalf("GetRelated(AllTime) = %q, want b", resultIDs(got))
			}
			r := got[0].Relations[0]
			want := time.Date(1999, 12, 31, 18, 29, 59, 123456000, time.UTC)
			if !r.ValidFrom.Equal(want) || r.ValidFrom.Location() != time.UTC {
				t.Errorf("ValidFrom = %v, want %v", r.ValidFrom, want)
			}
			if !r.ValidTo.Equal(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)) || r.ValidTo.Location() != time.UTC {
				t.Errorf("ValidTo = %v, want 9999-12-31 UTC", r.ValidTo)
			}
			// An upsert replaces the interval; none clears it.
			addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t"})
			got = related(t, g, "a", kgmem.TraverseOptions{AsOf: kgmem.AsOf{AllTime: true}})
			if r := got[0].Relations[0]; r.HasValidity() {
				t.Errorf("after an upsert without validity: %v → %v", r.ValidFrom, r.ValidTo)
			}
		}},
		{"InvalidRejected", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addEntity(t, g, kgmem.Entity{ID: "a"})
			addEntity(t, g, kgmem.Entity{ID: "b"})
			for _, r := range []kgmem.Relation{
				{SourceID: "a", TargetID: "b", Type: "t", ValidFrom: y(2000), ValidTo: y(1999)},
				{SourceID: "a", TargetID: "b", Type: "t", ValidFrom: y(10000)},
				{SourceID: "a", TargetID: "b", Type: "t", ValidTo: time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC)},
			} {
				if err := g.AddRelation(t.Context(), r); !errors.Is(err, kgmem.ErrInvalidArgument) {
					t.Errorf("AddRelation(%v → %v) = %v, want ErrInvalidArgument", r.ValidFrom, r.ValidTo, err)
				}
			}
			if got := related(t, g, "a", kgmem.TraverseOptions{AsOf: kgmem.AsOf{AllTime: true}}); len(got) != 0 {
				t.Errorf("a rejected relation was stored: %q", resultIDs(got))
			}
			if _, err := g.GetRelated(t.Context(), "a", kgmem.TraverseOptions{AsOf: kgmem.At(y(10000))}); !errors.Is(err, kgmem.ErrInvalidArgument) {
				t.Errorf("GetRelated as of year 10000 = %v, want ErrInvalidArgument", err)
			}
		}},
		{"AsOf", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g)
			for _, c := range []struct {
				name string
				at   kgmem.AsOf
				want []string
			}{
				{"now", kgmem.AsOf{}, []string{"c", "e"}},
				{"before any start", kgmem.At(y(1960)), []string{"e"}},
				{"at a start", kgmem.At(y(1970)), []string{"b", "e"}},
				{"inside two intervals", kgmem.At(y(1985)), []string{"b", "c", "e"}},
				{"a microsecond before an end", kgmem.At(y(1990).Add(-time.Microsecond)), []string{"b", "c", "e"}},
				{"at an end", kgmem.At(y(1990)), []string{"c", "e"}},
				{"the future", kgmem.At(y(9001)), []string{"c", "d", "e"}},
				{"all time", kgmem.AsOf{AllTime: true}, []string{"b", "c", "d", "e"}},
			} {
				if got := ids(t, g, kgmem.TraverseOptions{AsOf: c.at}); !slices.Equal(got, c.want) {
					t.Errorf("%s: GetRelated = %q, want %q", c.name, got, c.want)
				}
			}
		}},
		{"EndedNeverWalkedByDefault", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g)
			for _, dir := range []kgmem.Direction{kgmem.Outgoing, kgmem.Both} {
				if got := ids(t, g, kgmem.TraverseOptions{Depth: 3, Direction: dir}); slices.Contains(got, "b") || slices.Contains(got, "f") {
					t.Errorf("GetRelated(Depth 3, %v) crossed the ended relation: %q", dir, got)
				}
			}
			if got := ids(t, g, kgmem.TraverseOptions{Depth: 2, AsOf: kgmem.At(y(1975))}); !slices.Equal(got, []string{"b", "e", "f"}) {
				t.Errorf("GetRelated(Depth 2, as of 1975) = %q, want b, e, f", got)
			}
			if _, err := g.FindPaths(t.Context(), "a", "f", kgmem.PathOptions{}); !errors.Is(err, kgmem.ErrNoPath) {
				t.Errorf("FindPaths(a, f) = %v, want ErrNoPath: the only path has ended", err)
			}
			for _, at := range []kgmem.AsOf{kgmem.At(y(1975)), kgmem.AsOf{AllTime: true}} {
				res, err := g.FindPaths(t.Context(), "a", "f", kgmem.PathOptions{AsOf: at})
				if err != nil || len(res.Paths) != 1 || !slices.Equal(res.Paths[0].EntityIDs, []string{"a", "b", "f"}) {
					t.Errorf("FindPaths(a, f, %+v) = %+v, %v; want the path a, b, f", at, res, err)
				}
			}
		}},
	}
}
