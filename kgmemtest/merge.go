package kgmemtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// ---------------------------------------------------------------------------
// Merge: kgmem.EntityMerger, by the rules of kgmem.InMemoryGraph.Merge.

// mergeChecks check kgmem.EntityMerger; they skip for a graph without it.
func mergeChecks() []check {
	merger := capability[kgmem.EntityMerger]
	return []check{
		{"Entity", func(t *testing.T, g kgmem.KnowledgeGraph) { checkMergeEntity(t, g, merger(t, g)) }},
		{"KeepsDescription", func(t *testing.T, g kgmem.KnowledgeGraph) { checkMergeKeepsDescription(t, g, merger(t, g)) }},
		{"TagsCutToMax", func(t *testing.T, g kgmem.KnowledgeGraph) { checkMergeTagsCut(t, g, merger(t, g)) }},
		{"Relations", func(t *testing.T, g kgmem.KnowledgeGraph) { checkMergeRelations(t, g, merger(t, g)) }},
		{"ChangeFeed", func(t *testing.T, g kgmem.KnowledgeGraph) { checkMergeChangeFeed(t, g, merger(t, g)) }},
		{"Errors", func(t *testing.T, g kgmem.KnowledgeGraph) { checkMergeErrors(t, g, merger(t, g)) }},
		{"AgainstReference", func(t *testing.T, g kgmem.KnowledgeGraph) { checkMergeAgainstReference(t, g, merger(t, g)) }},
	}
}

func merge(t testing.TB, m kgmem.EntityMerger, from, into string) {
	t.Helper()
	if err := m.Merge(t.Context(), from, into); err != nil {
		t.Fatalf("Merge(%q, %q): %v", from, into, err)
	}
}

// requireGone fails unless id names no entity: GetEntity finds nothing,
// GetRelated says ErrNotFound and a relation to it is refused.
func requireGone(t testing.TB, g kgmem.KnowledgeGraph, id, other string) {
	t.Helper()
	if _, ok := getEntity(t, g, id); ok {
		t.Fatalf("entity %q still exists after being merged", id)
	}
	if _, err := g.GetRelated(t.Context(), id, kgmem.TraverseOptions{Direction: kgmem.Both}); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("GetRelated(%q) after merging it: %v, want ErrNotFound", id, err)
	}
	if err := g.AddRelation(t.Context(), rel(other, id, "after", 1)); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("AddRelation to %q after merging it: %v, want ErrNotFound", id, err)
	}
}

// checkMergeEntity: into keeps its ID, name and type, takes from's
// description when it has none; from's name and aliases follow into's
// aliases, trimmed, without empty ones and without any whose match key
// (case folded, full-width narrowed, white space collapsed) is into's name
// or an earlier alias; tags and sources are united, into's first;
// properties into lacks are taken. Reads follow: from's name finds into.
func checkMergeEntity(t *testing.T, g kgmem.KnowledgeGraph, m kgmem.EntityMerger) {
	into := kgmem.Entity{
		ID: "org:acme", Name: "Acme", Type: "company",
		Aliases: []string{"Acme Inc", "  ACME   inc ", "ＡＣＭＥ", " Wile Co "}, Tags: []string{"client"},
		Properties: map[string]string{"hq": "Berlin"}, SourceIDs: []string{"p1", "p1"},
	}
	from := kgmem.Entity{
		ID: "org:acme_corp", Name: "ACME Corporation", Type: "organization", Description: "makes anvils",
		Aliases:    []string{" acme inc ", "ACME", "Ａｃｍｅ\u3000Ｃｏｒｐ", "Acme  Corp", "", "   ", "Roadrunner Ltd", "wile\tco"},
		Tags:       []string{" Vendor ", "CLIENT"},
		Properties: map[string]string{"hq": "Paris", "founded": "1949"}, SourceIDs: []string{"p2", "p1", "p3"},
	}
	other := kgmem.Entity{ID: "person:tom", Name: "Tom", Tags: []string{"client"}}
	for _, e := range []kgmem.Entity{into, from, other} {
		addEntity(t, g, e)
	}
	merge(t, m, from.ID, into.ID)

	want := kgmem.Entity{
		ID: "org:acme", Name: "Acme", Type: "company", Description: "makes anvils",
		Aliases:    []string{"Acme Inc", "Wile Co", "ACME Corporation", "Ａｃｍｅ\u3000Ｃｏｒｐ", "Roadrunner Ltd"},
		Tags:       []string{"client", "vendor"}[:min(2, maxTags(g))],
		Properties: map[string]string{"hq": "Berlin", "founded": "1949"}, SourceIDs: []string{"p1", "p2", "p3"},
	}
	requireEntity(t, want, mustEntity(t, g, into.ID))
	requireGone(t, g, from.ID, other.ID)
	requireEntity(t, kgmem.Entity{ID: "person:tom", Name: "Tom", Tags: []string{"client"}}, mustEntity(t, g, other.ID))

	requireStrings(t, "FindByKeywords(roadrunner)", []string{into.ID}, entityIDs(findKeywords(t, g, "roadrunner")))
	requireStrings(t, "FindByKeywords(acme_corp)", nil, entityIDs(findKeywords(t, g, "acme_corp")))
	if maxTags(g) >= 2 {
		requireCounts(t, g, map[string]int{"client": 2, "vendor": 1})
		requireStrings(t, "FindTags(\"\")", []string{"client", "vendor"}, findTags(t, g, ""))
	}
	if nf, ok := g.(kgmem.NameFinder); ok {
		for _, name := range []string{"acme corporation", "Roadrunner Ltd", "acme corp"} {
			es, err := nf.FindByName(t.Context(), name)
			if err != nil {
				t.Fatalf("FindByName(%q): %v", name, err)
			}
			requireStrings(t, fmt.Sprintf("FindByName(%q)", name), []string{into.ID}, entityIDs(es))
		}
	}
}

// checkMergeKeepsDescription: into's own description, name and type stay;
// from's empty name adds no alias.
func checkMergeKeepsDescription(t *testing.T, g kgmem.KnowledgeGraph, m kgmem.EntityMerger) {
	addEntity(t, g, kgmem.Entity{ID: "a", Name: "Alpha", Type: "x", Description: "first"})
	addEntity(t, g, kgmem.Entity{ID: "b", Type: "y", Description: "second", Aliases: []string{"Beta"}})
	merge(t, m, "b", "a")
	requireEntity(t, kgmem.Entity{ID: "a", Name: "Alpha", Type: "x", Description: "first", Aliases: []string{"Beta"}},
		mustEntity(t, g, "a"))
	requireGone(t, g, "b", "a")
}

// checkMergeTagsCut: the united tags are cut to MaxTagsPerEntity as
// AddEntity cuts them, into's kept first, and the tag index follows.
func checkMergeTagsCut(t *testing.T, g kgmem.KnowledgeGraph, m kgmem.EntityMerger) {
	n := maxTags(g)
	if n < 2 {
		t.Skipf("MaxTagsPerEntity %d leaves no room for a tag of from", n)
	}
	var full, less []string
	for i := range n {
		full = append(full, fmt.Sprintf("t%03d", i))
	}
	less = full[:n-1]
	addEntity(t, g, kgmem.Entity{ID: "full", Tags: full})
	addEntity(t, g, kgmem.Entity{ID: "less", Tags: less})
	addEntity(t, g, kgmem.Entity{ID: "f1", Tags: []string{"new1", "t000"}})
	addEntity(t, g, kgmem.Entity{ID: "f2", Tags: []string{"T000", "New2", "new3"}})
	merge(t, m, "f1", "full")
	merge(t, m, "f2", "less")
	requireStrings(t, "tags of full", full, mustEntity(t, g, "full").Tags)
	requireStrings(t, "tags of less", append(slices.Clone(less), "new2"), mustEntity(t, g, "less").Tags)
	requireCounts(t, g, map[string]int{"new1": 0, "new2": 1, "new3": 0, "t000": 2})
	requireStrings(t, "FindTags(\"new\")", []string{"new2"}, findTags(t, g, "new"))
}

// checkMergeRelations: every relation of from moves to into, both
// directions, with its type, weight, properties, sources and valid time; a
// moved key into already holds merges into it (its weight, properties and
// valid time kept, from's valid time when it has none, properties it lacks
// and sources added); relations between the two are dropped; a self-loop
// of from becomes one of into, merging with into's own of the same type;
// other relations are untouched.
func checkMergeRelations(t *testing.T, g kgmem.KnowledgeGraph, m kgmem.EntityMerger) {
	const into, from, tom, ann, bob = "acme", "corp", "tom", "ann", "bob"
	day := func(y int, mo time.Month, d int) time.Time { return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC) }
	for _, id := range []string{into, from, tom, ann, bob} {
		addEntity(t, g, kgmem.Entity{ID: id, Name: "Entity " + id})
	}
	for _, r := range []kgmem.Relation{
		{SourceID: tom, TargetID: into, Type: "works_at", Weight: 0.9, SourceIDs: []string{"p1"}, Properties: map[string]string{"since": "2019"}},
		{SourceID: tom, TargetID: from, Type: "works_at", Weight: 0.5, SourceIDs: []string{"p2", "p1"},
			Properties: map[string]string{"since": "2020", "role": "cto"}, ValidFrom: day(2020, 1, 1)},
		{SourceID: ann, TargetID: from, Type: "works_at", Weight: 0.7, SourceIDs: []string{"p3"},
			Properties: map[string]string{"role": "cfo"}, ValidFrom: day(2021, 3, 1), ValidTo: day(2023, 6, 30)},
		{SourceID: from, TargetID: ann, Type: "sponsors", Weight: 0.4, SourceIDs: []string{"p4"}},
		{SourceID: from, TargetID: bob, Type: "knows", Weight: 0.3, ValidFrom: day(2021, 1, 1), ValidTo: day(2022, 1, 1), SourceIDs: []string{"p5"}},
		{SourceID: into, TargetID: bob, Type: "knows", Weight: 0.6, ValidFrom: day(2018, 1, 1), SourceIDs: []string{"p6"}},
		{SourceID: from, TargetID: bob, Type: "met", Weight: 0},
		{SourceID: from, TargetID: into, Type: "same_as", Weight: 1},
		{SourceID: into, TargetID: from, Type: "part_of", Weight: 0.5},
		{SourceID: from, TargetID: from, Type: "owns", Weight: 0.2, Properties: map[string]string{"k": "v"}},
		{SourceID: from, TargetID: from, Type: "likes", Weight: 0.5, Properties: map[string]string{"a": "1", "b": "2"}, SourceIDs: []string{"p7"}},
		{SourceID: into, TargetID: into, Type: "likes", Weight: 0.8, Properties: map[string]string{"a": "0"}, SourceIDs: []string{"p8"}},
		{SourceID: tom, TargetID: ann, Type: "knows", Weight: 0.25},
	} {
		addRelation(t, g, r)
	}
	merge(t, m, from, into)

	want := []kgmem.Relation{
		{SourceID: tom, TargetID: into, Type: "works_at", Weight: 0.9, SourceIDs: []string{"p1", "p2"},
			Properties: map[string]string{"since": "2019", "role": "cto"}, ValidFrom: day(2020, 1, 1)},
		{SourceID: ann, TargetID: into, Type: "works_at", Weight: 0.7, SourceIDs: []string{"p3"},
			Properties: map[string]string{"role": "cfo"}, ValidFrom: day(2021, 3, 1), ValidTo: day(2023, 6, 30)},
		{SourceID: into, TargetID: ann, Type: "sponsors", Weight: 0.4, SourceIDs: []string{"p4"}},
		{SourceID: into, TargetID: bob, Type: "knows", Weight: 0.6, ValidFrom: day(2018, 1, 1), SourceIDs: []string{"p6", "p5"}},
		{SourceID: into, TargetID: bob, Type: "met", Weight: 1},
		{SourceID: into, TargetID: into, Type: "owns", Weight: 0.2, Properties: map[string]string{"k": "v"}},
		{SourceID: into, TargetID: into, Type: "likes", Weight: 0.8, Properties: map[string]string{"a": "0", "b": "2"}, SourceIDs: []string{"p8", "p7"}},
	}
	requireRelations(t, "relations of "+into, want, relationsAround(t, g, into))
	requireRelations(t, "relations of "+tom, []kgmem.Relation{want[0], rel(tom, ann, "knows", 0.25)}, relationsAround(t, g, tom))
	requireRelations(t, "relations of "+ann, []kgmem.Relation{want[1], want[2], rel(tom, ann, "knows", 0.25)}, relationsAround(t, g, ann))
	requireRelations(t, "relations of "+bob, want[3:5], relationsAround(t, g, bob))
	requireGone(t, g, from, tom)
}

// checkMergeChangeFeed: for a graph with a change feed, the merge lists
// into as changed, as it is now, and from as removed.
func checkMergeChangeFeed(t *testing.T, g kgmem.KnowledgeGraph, m kgmem.EntityMerger) {
	feed := capability[kgmem.EntityChangeFeed](t, g)
	addEntity(t, g, kgmem.Entity{ID: "a", Name: "A"})
	addEntity(t, g, kgmem.Entity{ID: "b", Name: "B"})
	addEntity(t, g, kgmem.Entity{ID: "c", Name: "C"})
	v := changesSince(t, g, feed, 0).Version
	merge(t, m, "b", "a")
	ch := changesSince(t, g, feed, v)
	if ch.Reset {
		t.Fatalf("EntityChanges(%d) after a merge is a Reset", v)
	}
	if !slices.ContainsFunc(ch.Changed, func(e kgmem.Entity) bool { return e.ID == "a" }) {
		t.Fatalf("EntityChanges(%d) after merging b into a: Changed %q lacks a", v, entityIDs(ch.Changed))
	}
	if !slices.Contains(ch.Removed, "b") {
		t.Fatalf("EntityChanges(%d) after merging b into a: Removed %q lacks b", v, ch.Removed)
	}
}

// checkMergeErrors: bad IDs wrap ErrInvalidArgument, unknown entities
// ErrNotFound, a cancelled context fails with context.Canceled, and none
// changes the graph.
func checkMergeErrors(t *testing.T, g kgmem.KnowledgeGraph, m kgmem.EntityMerger) {
	ids := []string{"a", "b", "c"}
	addEntity(t, g, kgmem.Entity{ID: "a", Name: "A", Aliases: []string{"x"}, Tags: []string{"t"}, SourceIDs: []string{"p"}})
	addEntity(t, g, kgmem.Entity{ID: "b", Name: "B", Tags: []string{"u"}, Properties: map[string]string{"k": "v"}})
	addEntity(t, g, kgmem.Entity{ID: "c"})
	addRelation(t, g, rel("a", "b", "r", 0.5))
	addRelation(t, g, rel("c", "a", "r", 1))
	addRelation(t, g, rel("b", "b", "s", 1))
	before := mergeState(t, g, ids, nil)
	long := strings.Repeat("x", kgmem.MaxIDBytes+1)
	for _, tc := range []struct {
		name, from, into string
		want             error
		parts            []string
	}{
		{"IntoItself", "a", "a", kgmem.ErrInvalidArgument, []string{`"a"`}},
		{"EmptyFrom", "", "a", kgmem.ErrInvalidArgument, nil},
		{"EmptyInto", "a", "", kgmem.ErrInvalidArgument, nil},
		{"BlankFrom", " \t", "a", kgmem.ErrInvalidArgument, nil},
		{"BlankInto", "a", "\u3000", kgmem.ErrInvalidArgument, nil},
		{"InvalidFrom", "\xff", "a", kgmem.ErrInvalidArgument, nil},
		{"InvalidInto", "a", "b\xfe", kgmem.ErrInvalidArgument, nil},
		{"LongFrom", long, "a", kgmem.ErrInvalidArgument, []string{"MaxIDBytes"}},
		{"LongInto", "a", long, kgmem.ErrInvalidArgument, []string{"MaxIDBytes"}},
		{"BadBeforeUnknown", "nobody", "", kgmem.ErrInvalidArgument, nil},
		{"UnknownFrom", "nobody", "a", kgmem.ErrNotFound, []string{`"nobody"`}},
		{"UnknownInto", "a", "nobody", kgmem.ErrNotFound, []string{`"nobody"`}},
		{"UnknownBoth", "nobody", "noone", kgmem.ErrNotFound, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := m.Merge(t.Context(), tc.from, tc.into)
			requireErr(t, fmt.Sprintf("Merge(%q, %q)", tc.from, tc.into), err, tc.want, tc.parts...)
			requireSameStrings(t, "Merge("+tc.name+")", before, mergeState(t, g, ids, nil))
		})
	}
	t.Run("Cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := m.Merge(ctx, "b", "a"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Merge with a cancelled context: %v, want context.Canceled", err)
		}
		requireSameStrings(t, "Merge with a cancelled context", before, mergeState(t, g, ids, nil))
	})
}

// checkMergeAgainstReference builds random small graphs on g and on a new
// kgmem.InMemoryGraph with the same tag constraints, merges random pairs on
// both, and requires both to hold exactly the same entities, relations and
// tags after each merge, and to fail the same way. Names, aliases and tags
// come from small pools of spellings that differ in case, width and white
// space, and relations include self-loops, parallel types, zero weights,
// valid times and relations between the merged pair.
func checkMergeAgainstReference(t *testing.T, g kgmem.KnowledgeGraph, m kgmem.EntityMerger) {
	ref := kgmem.NewInMemoryGraph(kgmem.WithTagConstraints(g.TagConstraints()))
	rng := rand.New(rand.NewPCG(12, 34))
	names := []string{"", "Acme", "ACME", " acme ", "Acme Inc", "acme  inc", "Ａｃｍｅ", "Bob", "bob", "Zoë", "ZOË\u3000", "Über Co"}
	tags := []string{"a", "A", " b ", "c", "d", "e", "Ü", "ü"}
	pick := func(pool []string, most int) []string {
		var out []string
		for range rng.IntN(most + 1) {
			out = append(out, pool[rng.IntN(len(pool))])
		}
		return out
	}
	props := func() map[string]string {
		var p map[string]string
		for range rng.IntN(3) {
			if p == nil {
				p = map[string]string{}
			}
			p[fmt.Sprintf("k%d", rng.IntN(3))] = fmt.Sprintf("v%d", rng.IntN(3))
		}
		return p
	}
	instant := func() time.Time {
		return time.Date(2000+rng.IntN(20), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), 0, 0, rng.IntN(1000)*1000, time.UTC)
	}
	both := func(what string, write func(kgmem.KnowledgeGraph) error) {
		t.Helper()
		if err := write(ref); err != nil {
			t.Fatalf("%s on the reference: %v", what, err)
		}
		if err := write(g); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	const rounds = 24
	for round := range rounds {
		ids := make([]string, 3+rng.IntN(4))
		for i := range ids {
			ids[i] = fmt.Sprintf("r%02d:e%d", round, i)
			e := kgmem.Entity{
				ID: ids[i], Name: names[rng.IntN(len(names))], Type: []string{"", "org", "person"}[rng.IntN(3)],
				Description: []string{"", "", "d1", "d2"}[rng.IntN(4)], Aliases: pick(names, 3), Tags: pick(tags, 4),
				SourceIDs: pick([]string{"p1", "p2", "p3"}, 3), Properties: props(),
			}
			both("AddEntity("+e.ID+")", func(g kgmem.KnowledgeGraph) error { return g.AddEntity(t.Context(), e) })
		}
		for range 4 + rng.IntN(12) {
			r := kgmem.Relation{
				SourceID: ids[rng.IntN(len(ids))], TargetID: ids[rng.IntN(len(ids))],
				Type: []string{"r", "s", "t"}[rng.IntN(3)], Weight: []float64{0, 0.25, 0.5, 1}[rng.IntN(4)],
				Properties: props(), SourceIDs: pick([]string{"p1", "p2", "p3"}, 2),
			}
			switch rng.IntN(4) {
			case 1:
				r.ValidFrom = instant()
			case 2:
				r.ValidTo = instant()
			case 3:
				r.ValidFrom = instant()
				r.ValidTo = r.ValidFrom.Add(time.Duration(rng.IntN(1000)) * time.Hour)
			}
			both("AddRelation("+describeRelation(r)+")", func(g kgmem.KnowledgeGraph) error { return g.AddRelation(t.Context(), r) })
		}
		for step := range 3 {
			from, into := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			errRef := ref.Merge(t.Context(), from, into)
			err := m.Merge(t.Context(), from, into)
			for _, sentinel := range []error{kgmem.ErrInvalidArgument, kgmem.ErrNotFound} {
				if errors.Is(err, sentinel) != errors.Is(errRef, sentinel) || (err == nil) != (errRef == nil) {
					t.Fatalf("round %d, merge %d: Merge(%q, %q) = %v, the reference says %v", round, step, from, into, err, errRef)
				}
			}
			want, got := mergeState(t, ref, ids, tags), mergeState(t, g, ids, tags)
			requireSameStrings(t, fmt.Sprintf("round %d, after Merge(%q, %q), the graph (got) and the reference (want)", round, from, into), want, got)
		}
	}
}

// mergeState describes, one line each and sorted, every entity of ids
// (or its absence), every relation around them (relationsAround), the
// tags in use and the count of each of tags.
func mergeState(t testing.TB, g kgmem.KnowledgeGraph, ids, tags []string) []string {
	t.Helper()
	var out []string
	seen := map[kgmem.RelationKey]bool{}
	for _, id := range ids {
		e, ok := getEntity(t, g, id)
		if !ok {
			out = append(out, fmt.Sprintf("absent %q", id))
			continue
		}
		out = append(out, "entity "+describeEntity(e))
		for _, r := range relationsAround(t, g, id) {
			if !seen[r.Key()] {
				seen[r.Key()] = true
				out = append(out, "relation "+describeFullRelation(r))
			}
		}
	}
	out = append(out, fmt.Sprintf("tags %q", findTags(t, g, "")))
	for _, tag := range tags {
		out = append(out, fmt.Sprintf("count %q %d", tag, countTag(t, g, tag)))
	}
	slices.Sort(out)
	return out
}

// relationsAround returns every relation id, an entity, takes part in,
// both directions, once each, ordered by key. A graph that implements
// kgmem.NeighborhoodReader is read through its Neighborhood, which reports
// every relation; another through kgmem.History, which reads InMemoryGraph
// and the graphs that embed it exactly.
func relationsAround(t testing.TB, g kgmem.KnowledgeGraph, id string) []kgmem.Relation {
	t.Helper()
	var out []kgmem.Relation
	if nr, ok := g.(kgmem.NeighborhoodReader); ok {
		err := nr.ReadNeighborhood(t.Context(), func(n kgmem.Neighborhood) error {
			return n.Neighbors(t.Context(), []string{id}, kgmem.Both, nil, func(_ int, r kgmem.Relation) {
				out = append(out, r)
			})
		})
		if err != nil {
			t.Fatalf("reading the relations of %q: %v", id, err)
		}
	} else {
		var err error
		out, err = kgmem.History(t.Context(), g, id, kgmem.HistoryOptions{Direction: kgmem.Both})
		if err != nil {
			t.Fatalf("History(%q): %v", id, err)
		}
	}
	slices.SortFunc(out, func(a, b kgmem.Relation) int { return compareKeys(a.Key(), b.Key()) })
	return slices.CompactFunc(out, func(a, b kgmem.Relation) bool { return a.Key() == b.Key() })
}

// compareKeys orders relation keys by source, target, then type.
func compareKeys(a, b kgmem.RelationKey) int {
	if c := strings.Compare(a.SourceID, b.SourceID); c != 0 {
		return c
	}
	if c := strings.Compare(a.TargetID, b.TargetID); c != 0 {
		return c
	}
	return strings.Compare(a.Type, b.Type)
}

// describeFullRelation renders every field of r, valid time included.
func describeFullRelation(r kgmem.Relation) string {
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("%s valid=%s..%s", describeRelation(r), at(r.ValidFrom), at(r.ValidTo))
}

// requireRelations fails unless got holds exactly the relations of want
// (every field; a zero weight in want is read as 1), in any order.
func requireRelations(t testing.TB, what string, want, got []kgmem.Relation) {
	t.Helper()
	w := make([]string, len(want))
	for i, r := range want {
		w[i] = describeFullRelation(asStored(r))
	}
	d := make([]string, len(got))
	for i, r := range got {
		d[i] = describeFullRelation(r)
	}
	slices.Sort(w)
	slices.Sort(d)
	requireSameStrings(t, what, w, d)
}

// requireSameStrings fails, listing both, unless want and got are equal.
func requireSameStrings(t testing.TB, what string, want, got []string) {
	t.Helper()
	if !slices.Equal(want, got) {
		t.Fatalf("%s:\ngot:\n\t%s\nwant:\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
