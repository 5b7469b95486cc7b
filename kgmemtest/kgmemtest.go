package kgmemtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/textrule"
)

// Run runs the KnowledgeGraph conformance suite as subtests of t. newGraph
// must return a new, empty graph each time it is called; every subtest calls
// it once.
func Run(t *testing.T, newGraph func(t *testing.T) kgmem.KnowledgeGraph) {
	sections := []struct {
		name   string
		checks []check
	}{
		{"Validation", validationChecks()},
		{"Limits", limitChecks()},
		{"Writes", writeChecks()},
		{"Copies", copyChecks()},
		{"GetRelated", relatedChecks()},
		{"Tags", tagChecks()},
		{"FindByKeywords", keywordChecks()},
		{"FindByName", nameChecks()},
		{"Cancel", cancelChecks()},
		{"ValidTime", validTimeChecks()},
		{"EntityChangeFeed", changeFeedChecks()},
		{"Retrieve", retrieveChecks()},
		{"Ingest", ingestChecks()},
		{"Merge", mergeChecks()},
	}
	for _, s := range sections {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range s.checks {
				t.Run(c.name, func(t *testing.T) {
					g := newGraph(t)
					if g == nil {
						t.Fatal("the graph constructor returned nil")
					}
					c.run(t, g)
				})
			}
		})
	}
	runFindPaths(t, newGraph)
}

// capability returns g as the optional interface T, or skips the test when
// g does not implement it.
func capability[T any](t *testing.T, g kgmem.KnowledgeGraph) T {
	t.Helper()
	c, ok := g.(T)
	if !ok {
		t.Skipf("the graph does not implement %s", reflect.TypeFor[T]())
	}
	return c
}

// check is one subtest of the suite; it receives a fresh, empty graph.
type check struct {
	name string
	run  func(t *testing.T, g kgmem.KnowledgeGraph)
}

// ---------------------------------------------------------------------------
// Comparing GetRelated answers

// CheckRelated reports, with t.Errorf, every way in which got breaks the
// invariants of a GetRelated answer for start and opts: each result's Path
// runs from start to the result's entity without repeating an entity, has
// between 1 and opts.Depth hops (Depth 0 meaning 1) and
// len(Relations) == len(Path)-1;
// Relations[i] joins Path[i] and Path[i+1] in a direction opts.Direction
// allows and has a type opts.RelationTypes allows; Score is the product of
// the relations' weights, multiplied from the start outwards, and every
// weight lies in (0,1] (a zero weight is stored as 1); the start is
// absent and no entity appears twice; results are ordered by score
// descending, then hops ascending, then ID ascending; and there are at most
// opts.Limit of them when Limit is positive.
//
// It cannot tell whether a path is the best one; compare with an expected
// answer for that, for example with RequireSameRelated.
func CheckRelated(t testing.TB, start string, opts kgmem.TraverseOptions, got []kgmem.ScoredEntity) {
	t.Helper()
	if opts.Depth == 0 {
		opts.Depth = 1
	}
	if opts.Limit > 0 && len(got) > opts.Limit {
		t.Errorf("GetRelated(%q, Limit %d) returned %d results", start, opts.Limit, len(got))
	}
	seen := make(map[string]int, len(got))
	for i, s := range got {
		id := s.Entity.ID
		if id == start {
			t.Errorf("result %d is the start %q", i, start)
		}
		if j, dup := seen[id]; dup {
			t.Errorf("entity %q appears twice, as results %d and %d", id, j, i)
		}
		seen[id] = i
		if len(s.Path) < 2 {
			t.Errorf("result %d (%q): path %q has fewer than two entities", i, id, s.Path)
			continue
		}
		if s.Path[0] != start || s.Path[len(s.Path)-1] != id {
			t.Errorf("result %d (%q): path %q does not run from %q to %q", i, id, s.Path, start, id)
		}
		if hops := len(s.Path) - 1; hops > opts.Depth {
			t.Errorf("result %d (%q): %d hops exceeds Depth %d", i, id, hops, opts.Depth)
		}
		onPath := make(map[string]bool, len(s.Path))
		for _, p := range s.Path {
			if onPath[p] {
				t.Errorf("result %d (%q): path %q repeats %q", i, id, s.Path, p)
			}
			onPath[p] = true
		}
		if len(s.Relations) != len(s.Path)-1 {
			t.Errorf("result %d (%q): %d relations for path %q", i, id, len(s.Relations), s.Path)
			continue
		}
		score := 1.0
		for j, r := range s.Relations {
			if !joins(r, s.Path[j], s.Path[j+1], opts.Direction) {
				t.Errorf("result %d (%q): relation %d %s does not lead from %q to %q walking %v",
					i, id, j, describeRelation(r), s.Path[j], s.Path[j+1], opts.Direction)
			}
			if len(opts.RelationTypes) > 0 && !slices.Contains(opts.RelationTypes, r.Type) {
				t.Errorf("result %d (%q): relation %d has type %q outside the filter %q", i, id, j, r.Type, opts.RelationTypes)
			}
			if !(r.Weight > 0 && r.Weight <= 1) {
				t.Errorf("result %d (%q): relation %d has weight %v outside (0,1]", i, id, j, r.Weight)
			}
			score *= r.Weight
		}
		if s.Score != score {
			t.Errorf("result %d (%q): score %v, but the weights along its path multiply to %v", i, id, s.Score, score)
		}
		if i > 0 && compareResults(got[i-1], s) >= 0 {
			t.Errorf("results %d (%q, score %v, %d hops) and %d (%q, score %v, %d hops) are out of order",
				i-1, got[i-1].Entity.ID, got[i-1].Score, len(got[i-1].Path)-1, i, id, s.Score, len(s.Path)-1)
		}
	}
}

// RequireSameRelated stops the test with t.Fatalf unless got equals want
// element by element: the same entities (every field), scores (exactly),
// paths and relations (every field). A nil and an empty slice or map count as
// equal.
func RequireSameRelated(t testing.TB, want, got []kgmem.ScoredEntity) {
	t.Helper()
	w, g := describeResults(want), describeResults(got)
	if slices.Equal(w, g) {
		return
	}
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	t.Fatalf("GetRelated results differ first at index %d\ngot:\n\t%s\nwant:\n\t%s",
		i, strings.Join(g, "\n\t"), strings.Join(w, "\n\t"))
}

// joins reports whether walking r in direction dir leads from a to b.
func joins(r kgmem.Relation, a, b string, dir kgmem.Direction) bool {
	forward := r.SourceID == a && r.TargetID == b
	backward := r.TargetID == a && r.SourceID == b
	switch dir {
	case kgmem.Outgoing:
		return forward
	case kgmem.Incoming:
		return backward
	case kgmem.Both:
		return forward || backward
	}
	return false
}

// compareResults orders GetRelated results: score descending, hops
// ascending, ID ascending.
func compareResults(a, b kgmem.ScoredEntity) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Path), len(b.Path)); c != 0 {
		return c
	}
	return strings.Compare(a.Entity.ID, b.Entity.ID)
}

// describeEntity renders every field of e; nil and empty slices and maps
// render alike, and map keys in sorted order.
func describeEntity(e kgmem.Entity) string {
	return fmt.Sprintf("{ID:%q Name:%q Type:%q Description:%q Aliases:%q Tags:%q Properties:%q SourceIDs:%q}",
		e.ID, e.Name, e.Type, e.Description, e.Aliases, e.Tags, e.Properties, e.SourceIDs)
}

// describeRelation renders every field of r like describeEntity.
func describeRelation(r kgmem.Relation) string {
	return fmt.Sprintf("%q-[%q]->%q weight=%v properties=%q sources=%q",
		r.SourceID, r.Type, r.TargetID, r.Weight, r.Properties, r.SourceIDs)
}

func describeResult(s kgmem.ScoredEntity) string {
	rels := make([]string, len(s.Relations))
	for i, r := range s.Relations {
		rels[i] = describeRelation(r)
	}
	return fmt.Sprintf("score=%v path=%q relations=[%s] entity=%s",
		s.Score, s.Path, strings.Join(rels, ", "), describeEntity(s.Entity))
}

func describeResults(ss []kgmem.ScoredEntity) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = describeResult(s)
	}
	return out
}

// ---------------------------------------------------------------------------
// Building graphs and reading them back

func addEntity(t testing.TB, g kgmem.KnowledgeGraph, e kgmem.Entity) {
	t.Helper()
	if err := g.AddEntity(t.Context(), e); err != nil {
		t.Fatalf("AddEntity(%q): %v", e.ID, err)
	}
}

func addRelation(t testing.TB, g kgmem.KnowledgeGraph, r kgmem.Relation) {
	t.Helper()
	if err := g.AddRelation(t.Context(), r); err != nil {
		t.Fatalf("AddRelation(%s): %v", describeRelation(r), err)
	}
}

func removeRelation(t testing.TB, g kgmem.KnowledgeGraph, src, dst, typ string) {
	t.Helper()
	if err := g.RemoveRelation(t.Context(), src, dst, typ); err != nil {
		t.Fatalf("RemoveRelation(%q, %q, %q): %v", src, dst, typ, err)
	}
}

func removeEntity(t testing.TB, g kgmem.KnowledgeGraph, id string) {
	t.Helper()
	if err := g.RemoveEntity(t.Context(), id); err != nil {
		t.Fatalf("RemoveEntity(%q): %v", id, err)
	}
}

func getEntity(t testing.TB, g kgmem.KnowledgeGraph, id string) (kgmem.Entity, bool) {
	t.Helper()
	e, ok, err := g.GetEntity(t.Context(), id)
	if err != nil {
		t.Fatalf("GetEntity(%q): %v", id, err)
	}
	return e, ok
}

func mustEntity(t testing.TB, g kgmem.KnowledgeGraph, id string) kgmem.Entity {
	t.Helper()
	e, ok := getEntity(t, g, id)
	if !ok {
		t.Fatalf("GetEntity(%q): not found", id)
	}
	return e
}

// related calls GetRelated, fails the test on error and checks the answer's
// invariants.
func related(t testing.TB, g kgmem.KnowledgeGraph, id string, opts kgmem.TraverseOptions) []kgmem.ScoredEntity {
	t.Helper()
	got, err := g.GetRelated(t.Context(), id, opts)
	if err != nil {
		t.Fatalf("GetRelated(%q, %+v): %v", id, opts, err)
	}
	CheckRelated(t, id, opts, got)
	return got
}

func setTags(t testing.TB, g kgmem.KnowledgeGraph, id string, tags []string) int {
	t.Helper()
	n, err := g.SetEntityTags(t.Context(), id, tags)
	if err != nil {
		t.Fatalf("SetEntityTags(%q, %q): %v", id, tags, err)
	}
	return n
}

func findTags(t testing.TB, g kgmem.KnowledgeGraph, prefix string) []string {
	t.Helper()
	tags, err := g.FindTags(t.Context(), prefix)
	if err != nil {
		t.Fatalf("FindTags(%q): %v", prefix, err)
	}
	return tags
}

func countTag(t testing.TB, g kgmem.KnowledgeGraph, tag string) int {
	t.Helper()
	n, err := g.EntityCountByTag(t.Context(), tag)
	if err != nil {
		t.Fatalf("EntityCountByTag(%q): %v", tag, err)
	}
	return n
}

func findKeywords(t testing.TB, g kgmem.KnowledgeGraph, keywords ...string) []kgmem.Entity {
	t.Helper()
	es, err := g.FindByKeywords(t.Context(), keywords)
	if err != nil {
		t.Fatalf("FindByKeywords(%q): %v", keywords, err)
	}
	return es
}

func entityIDs(es []kgmem.Entity) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

func resultIDs(ss []kgmem.ScoredEntity) []string {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.Entity.ID
	}
	return ids
}

func requireStrings(t testing.TB, what string, want, got []string) {
	t.Helper()
	if !slices.Equal(want, got) {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

func requireEntity(t testing.TB, want, got kgmem.Entity) {
	t.Helper()
	if w, g := describeEntity(want), describeEntity(got); w != g {
		t.Fatalf("entity\n got %s\nwant %s", g, w)
	}
}

// requireErr fails unless err wraps target and its message contains every
// part.
func requireErr(t testing.TB, what string, err, target error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want one wrapping %v", what, target)
	}
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %q does not wrap %v", what, err, target)
	}
	CheckErrorMessage(t, err, target)
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: error %q does not name %q", what, err, p)
		}
	}
}

// CheckErrorMessage reports, with t.Errorf, every way in which the message
// of err, which wraps sentinel, breaks kgmem's rules for error text: it
// names its package once, as a prefix ("kgmem: …" or the backend's own,
// such as "pgraph: …", never "kgmem: …: kgmem: …" nor one package's
// prefix after another's), and it says the sentinel's text once, at the
// end ("…: not found"). Values quoted in the message must not contain the
// sentinel's text or a package prefix for the check to be meaningful.
func CheckErrorMessage(t testing.TB, err, sentinel error) {
	t.Helper()
	msg := err.Error()
	i := strings.Index(msg, ": ")
	if i <= 0 || strings.ContainsAny(msg[:i], " \"") {
		t.Errorf("error %q does not start with a package prefix such as \"kgmem: \"", msg)
		return
	}
	prefix := msg[:i+2]
	for _, p := range []string{prefix, "kgmem: ", "pgraph: "} {
		if n := strings.Count(msg, p); n > 1 || (n == 1 && p != prefix) {
			t.Errorf("error %q names a package twice (%q)", msg, p)
		}
	}
	text := sentinel.Error()
	if n := strings.Count(msg, text); n != 1 || !strings.HasSuffix(msg, ": "+text) {
		t.Errorf("error %q says %q %d times, want once, at the end", msg, text, n)
	}
}

// rel returns a relation without properties or sources.
func rel(src, dst, typ string, w float64) kgmem.Relation {
	return kgmem.Relation{SourceID: src, TargetID: dst, Type: typ, Weight: w}
}

// asStored returns r as every backend stores it: a zero Weight (unweighted)
// becomes 1.
func asStored(r kgmem.Relation) kgmem.Relation {
	if r.Weight == 0 {
		r.Weight = 1
	}
	return r
}

// build adds an entity for every endpoint of rels, in order of first
// appearance, then the relations in order. It returns the relations by key,
// as stored (see asStored).
func build(t testing.TB, g kgmem.KnowledgeGraph, rels ...kgmem.Relation) map[kgmem.RelationKey]kgmem.Relation {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range rels {
		for _, id := range []string{r.SourceID, r.TargetID} {
			if !seen[id] {
				seen[id] = true
				addEntity(t, g, kgmem.Entity{ID: id, Name: "Entity " + id})
			}
		}
	}
	byKey := make(map[kgmem.RelationKey]kgmem.Relation, len(rels))
	for _, r := range rels {
		addRelation(t, g, r)
		byKey[r.Key()] = asStored(r)
	}
	return byKey
}

// hit is an expected GetRelated result: the path as space-separated IDs, the
// score, and the relations walked as "source>target:type".
type hit struct {
	path  string
	score float64
	rels  []string
}

// parseKey reads "source>target:type"; IDs may contain ':', types may not.
func parseKey(s string) kgmem.RelationKey {
	i := strings.LastIndexByte(s, ':')
	st, typ := s[:i], s[i+1:]
	src, dst, _ := strings.Cut(st, ">")
	return kgmem.RelationKey{SourceID: src, TargetID: dst, Type: typ}
}

// expect turns hits into the ScoredEntity values GetRelated should return,
// reading entities from g and relations from stored.
func expect(t testing.TB, g kgmem.KnowledgeGraph, stored map[kgmem.RelationKey]kgmem.Relation, hits []hit) []kgmem.ScoredEntity {
	t.Helper()
	out := make([]kgmem.ScoredEntity, 0, len(hits))
	for _, h := range hits {
		path := strings.Fields(h.path)
		s := kgmem.ScoredEntity{
			Entity: mustEntity(t, g, path[len(path)-1]),
			Score:  h.score,
			Path:   path,
		}
		for _, k := range h.rels {
			r, ok := stored[parseKey(k)]
			if !ok {
				t.Fatalf("expected relation %q was never added", k)
			}
			s.Relations = append(s.Relations, r)
		}
		out = append(out, s)
	}
	return out
}

// requireRelated runs GetRelated and requires exactly the expected hits.
func requireRelated(t testing.TB, g kgmem.KnowledgeGraph, stored map[kgmem.RelationKey]kgmem.Relation, start string, opts kgmem.TraverseOptions, hits ...hit) {
	t.Helper()
	got := related(t, g, start, opts)
	RequireSameRelated(t, expect(t, g, stored, hits), got)
}

// product multiplies ws from 1 outwards, as a traversal scores a path.
func product(ws ...float64) float64 {
	p := 1.0
	for _, w := range ws {
		p *= w
	}
	return p
}

// ---------------------------------------------------------------------------
// Graph state as seen through the interface

// state is what a graph shows through its read methods for a known set of
// entity IDs and relation types. Self-loops are invisible to reads, so they
// are not part of it.
type state struct {
	entities  []string // describeEntity, or "absent"
	relations []string // every relation leaving a known entity with a known type
	tags      []string
	counts    []int
	keywords  []string
}

func snapshot(t testing.TB, g kgmem.KnowledgeGraph, ids, types, tags, keywords []string) state {
	t.Helper()
	var s state
	for _, id := range ids {
		e, ok := getEntity(t, g, id)
		if !ok {
			s.entities = append(s.entities, id+": absent")
			continue
		}
		s.entities = append(s.entities, describeEntity(e))
		for _, typ := range types {
			opts := kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Outgoing, RelationTypes: []string{typ}}
			for _, r := range related(t, g, id, opts) {
				s.relations = append(s.relations, describeRelation(r.Relations[0]))
			}
		}
	}
	slices.Sort(s.relations)
	s.tags = findTags(t, g, "")
	for _, tag := range slices.Concat(tags, s.tags) {
		s.counts = append(s.counts, countTag(t, g, tag))
	}
	for _, e := range findKeywords(t, g, keywords...) {
		s.keywords = append(s.keywords, describeEntity(e))
	}
	return s
}

func requireSameState(t testing.TB, what string, before, after state) {
	t.Helper()
	diff := func(part string, b, a any) {
		t.Helper()
		t.Fatalf("%s changed the graph's %s:\nbefore %q\nafter  %q", what, part, b, a)
	}
	switch {
	case !slices.Equal(before.entities, after.entities):
		diff("entities", before.entities, after.entities)
	case !slices.Equal(before.relations, after.relations):
		diff("relations", before.relations, after.relations)
	case !slices.Equal(before.tags, after.tags):
		diff("tags", before.tags, after.tags)
	case !slices.Equal(before.counts, after.counts):
		diff("tag counts", fmt.Sprint(before.counts), fmt.Sprint(after.counts))
	case !slices.Equal(before.keywords, after.keywords):
		diff("keyword matches", before.keywords, after.keywords)
	}
}

// The fixture used by checks that need a populated graph.
const (
	alice  = "person:alice"
	bob    = "person:bob"
	carol  = "person:carol" // never added by the fixture
	ghost  = "person:ghost" // never added by anyone
	apollo = "project:apollo"
)

func fixtureEntities() []kgmem.Entity {
	return []kgmem.Entity{
		{
			ID: alice, Name: "Alice Smith", Type: "person", Description: "engineer",
			Aliases: []string{"Ally"}, Tags: []string{"go", "ml"},
			Properties: map[string]string{"team": "core"}, SourceIDs: []string{"page:1"},
		},
		{ID: bob, Name: "Bob", Type: "person", Tags: []string{"go"}},
		{ID: apollo, Name: "Project Apollo", Type: "project", Tags: []string{"space"}},
	}
}

func fixtureRelations() []kgmem.Relation {
	return []kgmem.Relation{
		{
			SourceID: alice, TargetID: apollo, Type: "works_on", Weight: 0.5,
			Properties: map[string]string{"since": "2020"}, SourceIDs: []string{"page:1"},
		},
		{SourceID: bob, TargetID: apollo, Type: "works_on", Weight: 1},
		{SourceID: alice, TargetID: bob, Type: "knows", Weight: 0.25},
		{SourceID: bob, TargetID: alice, Type: "knows", Weight: 0.75},
	}
}

func addFixture(t testing.TB, g kgmem.KnowledgeGraph) state {
	t.Helper()
	for _, e := range fixtureEntities() {
		addEntity(t, g, e)
	}
	for _, r := range fixtureRelations() {
		addRelation(t, g, r)
	}
	return fixtureSnapshot(t, g)
}

// fixtureSnapshot reads back the fixture's entities, its relation types and
// tags, and what the writes the checks attempt would touch.
func fixtureSnapshot(t testing.TB, g kgmem.KnowledgeGraph) state {
	t.Helper()
	return snapshot(t, g,
		[]string{alice, bob, apollo, carol, ghost},
		[]string{"works_on", "knows", "likes"},
		[]string{"go", "ml", "space", "new"},
		[]string{"person", "project", "carol", "ghost"},
	)
}

// ---------------------------------------------------------------------------
// Validation

// rejected is a write the graph must refuse.
type rejected struct {
	name   string
	write  func(ctx context.Context, g kgmem.KnowledgeGraph) error
	target error
	parts  []string // substrings the error message must contain
}

func entityWith(id string, mutate func(*kgmem.Entity)) kgmem.Entity {
	e := kgmem.Entity{
		ID: id, Name: "Name", Type: "person", Description: "description",
		Aliases: []string{"alias"}, Tags: []string{"new"},
		Properties: map[string]string{"key": "value"}, SourceIDs: []string{"page:9"},
	}
	mutate(&e)
	return e
}

func rejectedEntities() []rejected {
	const bad = "\xff"
	fields := []struct {
		name   string
		mutate func(*kgmem.Entity)
	}{
		{"Name", func(e *kgmem.Entity) { e.Name = "Al" + bad }},
		{"Type", func(e *kgmem.Entity) { e.Type = bad }},
		{"Description", func(e *kgmem.Entity) { e.Description = "x" + bad + "y" }},
		{"Alias", func(e *kgmem.Entity) { e.Aliases = []string{"ok", bad} }},
		{"Tag", func(e *kgmem.Entity) { e.Tags = []string{"ok", "t" + bad} }},
		{"PropertyKey", func(e *kgmem.Entity) { e.Properties = map[string]string{"k" + bad: "v"} }},
		{"PropertyValue", func(e *kgmem.Entity) { e.Properties = map[string]string{"k": bad} }},
		{"SourceID", func(e *kgmem.Entity) { e.SourceIDs = []string{"page:1", bad} }},
	}
	var out []rejected
	for _, id := range []string{carol, alice} {
		for _, f := range fields {
			e := entityWith(id, f.mutate)
			out = append(out, rejected{
				name:   fmt.Sprintf("AddEntity/%s/Invalid%s", id, f.name),
				write:  func(ctx context.Context, g kgmem.KnowledgeGraph) error { return g.AddEntity(ctx, e) },
				target: kgmem.ErrInvalidArgument,
				parts:  []string{id},
			})
		}
	}
	out = append(out,
		rejected{
			name: "AddEntity/EmptyID",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.AddEntity(ctx, entityWith("", func(*kgmem.Entity) {}))
			},
			target: kgmem.ErrInvalidArgument,
		},
		rejected{
			name: "AddEntity/InvalidID",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.AddEntity(ctx, entityWith(carol+bad, func(*kgmem.Entity) {}))
			},
			target: kgmem.ErrInvalidArgument,
			parts:  []string{carol},
		},
	)
	return out
}

func rejectedRelations() []rejected {
	const bad = "\xff"
	var out []rejected
	add := func(name string, r kgmem.Relation, target error, parts ...string) {
		out = append(out, rejected{
			name:   "AddRelation/" + name,
			write:  func(ctx context.Context, g kgmem.KnowledgeGraph) error { return g.AddRelation(ctx, r) },
			target: target,
			parts:  parts,
		})
	}
	weights := []struct {
		name string
		w    float64
		part string
	}{
		{"NaN", math.NaN(), "NaN"},
		{"PlusInf", math.Inf(1), "Inf"},
		{"MinusInf", math.Inf(-1), "-Inf"},
		{"Negative", -0.1, "-0.1"},
		{"AboveOne", 1.1, "1.1"},
		{"JustAboveOne", math.Nextafter(1, 2), "1.0000000000000002"},
		{"JustBelowZero", -math.SmallestNonzeroFloat64, "-5e-324"},
	}
	// A new key and the key of a stored relation, whose replacement must
	// fail just the same.
	for _, key := range []kgmem.RelationKey{rel(alice, bob, "likes", 0).Key(), rel(alice, apollo, "works_on", 0).Key()} {
		for _, w := range weights {
			r := kgmem.Relation{SourceID: key.SourceID, TargetID: key.TargetID, Type: key.Type, Weight: w.w}
			add(fmt.Sprintf("%s/Weight%s", key.Type, w.name), r, kgmem.ErrInvalidArgument, w.part)
		}
		base := func() kgmem.Relation {
			return kgmem.Relation{
				SourceID: key.SourceID, TargetID: key.TargetID, Type: key.Type, Weight: 0.5,
				Properties: map[string]string{"k": "v"}, SourceIDs: []string{"page:2"},
			}
		}
		r := base()
		r.Properties = map[string]string{"k" + bad: "v"}
		add(key.Type+"/InvalidPropertyKey", r, kgmem.ErrInvalidArgument, key.SourceID)
		r = base()
		r.Properties = map[string]string{"k": "v" + bad}
		add(key.Type+"/InvalidPropertyValue", r, kgmem.ErrInvalidArgument, key.SourceID)
		r = base()
		r.SourceIDs = []string{"page:2", bad}
		add(key.Type+"/InvalidSourceID", r, kgmem.ErrInvalidArgument, key.SourceID)
	}
	add("EmptySource", rel("", bob, "likes", 0.5), kgmem.ErrInvalidArgument)
	add("EmptyTarget", rel(alice, "", "likes", 0.5), kgmem.ErrInvalidArgument)
	add("EmptyType", rel(alice, bob, "", 0.5), kgmem.ErrInvalidArgument)
	add("InvalidSource", rel(alice+bad, bob, "likes", 0.5), kgmem.ErrInvalidArgument, alice)
	add("InvalidTarget", rel(alice, bob+bad, "likes", 0.5), kgmem.ErrInvalidArgument, bob)
	add("InvalidType", rel(alice, bob, "likes"+bad, 0.5), kgmem.ErrInvalidArgument, "likes")
	add("MissingSource", rel(ghost, bob, "likes", 0.5), kgmem.ErrNotFound, ghost)
	add("MissingTarget", rel(alice, ghost, "likes", 0.5), kgmem.ErrNotFound, ghost)
	add("MissingSourceOfStoredKey", rel(ghost, apollo, "works_on", 0.5), kgmem.ErrNotFound, ghost)
	return out
}

func rejectedOthers() []rejected {
	return []rejected{
		{
			name: "SetEntityTags/InvalidTag",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				_, err := g.SetEntityTags(ctx, alice, []string{"new", "bad\xff"})
				return err
			},
			target: kgmem.ErrInvalidArgument,
			parts:  []string{alice},
		},
		{
			name: "SetEntityTags/MissingEntity",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				_, err := g.SetEntityTags(ctx, ghost, []string{"new"})
				return err
			},
			target: kgmem.ErrNotFound,
			parts:  []string{ghost},
		},
		{
			name:   "RemoveEntity/Missing",
			write:  func(ctx context.Context, g kgmem.KnowledgeGraph) error { return g.RemoveEntity(ctx, ghost) },
			target: kgmem.ErrNotFound,
			parts:  []string{ghost},
		},
		{
			name: "RemoveRelation/MissingType",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.RemoveRelation(ctx, alice, apollo, "likes")
			},
			target: kgmem.ErrNotFound,
			parts:  []string{alice, apollo},
		},
		{
			name: "RemoveRelation/Reversed",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.RemoveRelation(ctx, apollo, alice, "works_on")
			},
			target: kgmem.ErrNotFound,
			parts:  []string{alice, apollo},
		},
		{
			name: "RemoveRelation/UnknownType",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.RemoveRelation(ctx, alice, bob, "never_used")
			},
			target: kgmem.ErrNotFound,
			parts:  []string{alice, bob},
		},
		{
			name: "RemoveRelation/MissingEndpoint",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.RemoveRelation(ctx, ghost, apollo, "works_on")
			},
			target: kgmem.ErrNotFound,
			parts:  []string{ghost},
		},
	}
}

// badIDs are IDs every method rejects with ErrInvalidArgument, by name.
var badIDs = []struct{ name, id string }{
	{"Empty", ""}, {"Space", " "}, {"WhiteSpace", " \t\n\r"}, {"IdeographicSpace", "\u3000"},
	{"NoBreakSpace", "\u00a0"}, {"InvalidUTF8", "\xff"},
}

// rejectedWithID are calls of every method that takes an entity ID or a
// relation key, with id, which is empty, only white space or not valid
// UTF-8: reads and writes alike return ErrInvalidArgument.
func rejectedWithID(id string) []rejected {
	var out []rejected
	add := func(name string, call func(ctx context.Context, g kgmem.KnowledgeGraph) error) {
		out = append(out, rejected{name: name, write: call, target: kgmem.ErrInvalidArgument})
	}
	add("AddEntity", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		return g.AddEntity(ctx, kgmem.Entity{ID: id, Name: "Nobody"})
	})
	add("GetEntity", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		_, ok, err := g.GetEntity(ctx, id)
		if ok {
			return errors.New("found an entity")
		}
		return err
	})
	add("RemoveEntity", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		return g.RemoveEntity(ctx, id)
	})
	add("SetEntityTags", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		_, err := g.SetEntityTags(ctx, id, []string{"new"})
		return err
	})
	add("GetRelated", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		_, err := g.GetRelated(ctx, id, kgmem.TraverseOptions{})
		return err
	})
	add("FindPaths/Source", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		_, err := g.FindPaths(ctx, id, alice, kgmem.PathOptions{})
		return err
	})
	add("FindPaths/Target", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		_, err := g.FindPaths(ctx, alice, id, kgmem.PathOptions{})
		return err
	})
	add("FindPaths/Both", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		_, err := g.FindPaths(ctx, id, id, kgmem.PathOptions{})
		return err
	})
	for j, key := range []kgmem.RelationKey{
		{SourceID: id, TargetID: bob, Type: "knows"}, {SourceID: alice, TargetID: id, Type: "knows"}, {SourceID: alice, TargetID: bob, Type: id},
	} {
		part := [...]string{"Source", "Target", "Type"}[j]
		add("AddRelation/"+part, func(ctx context.Context, g kgmem.KnowledgeGraph) error {
			return g.AddRelation(ctx, kgmem.Relation{SourceID: key.SourceID, TargetID: key.TargetID, Type: key.Type})
		})
		add("RemoveRelation/"+part, func(ctx context.Context, g kgmem.KnowledgeGraph) error {
			return g.RemoveRelation(ctx, key.SourceID, key.TargetID, key.Type)
		})
	}
	add("GetRelated/TypeFilter", func(ctx context.Context, g kgmem.KnowledgeGraph) error {
		_, err := g.GetRelated(ctx, alice, kgmem.TraverseOptions{RelationTypes: []string{"knows", id}})
		return err
	})
	return out
}

func validationChecks() []check {
	var checks []check
	for _, r := range slices.Concat(rejectedEntities(), rejectedRelations(), rejectedOthers()) {
		checks = append(checks, check{r.name, func(t *testing.T, g kgmem.KnowledgeGraph) {
			before := addFixture(t, g)
			err := r.write(t.Context(), g)
			requireErr(t, r.name, err, r.target, r.parts...)
			requireSameState(t, "the rejected write", before, fixtureSnapshot(t, g))
		}})
	}
	for _, b := range badIDs {
		// One graph for all the calls with one bad ID: each must fail,
		// and together they must leave the graph as it was.
		checks = append(checks, check{"BadID/" + b.name, func(t *testing.T, g kgmem.KnowledgeGraph) {
			before := addFixture(t, g)
			for _, r := range rejectedWithID(b.id) {
				requireErr(t, fmt.Sprintf("%s with ID %q", r.name, b.id), r.write(t.Context(), g), r.target, r.parts...)
			}
			requireSameState(t, "calls with the ID "+strconv.Quote(b.id), before, fixtureSnapshot(t, g))
		}})
	}
	checks = append(checks, check{"ZeroWeightIsUnweighted", func(t *testing.T, g kgmem.KnowledgeGraph) {
		// A zero weight, and -0, are stored as 1: the relation counts in
		// full, and reads return it with weight 1.
		stored := build(t, g, rel("a", "b", "t", 0), rel("a", "c", "t", 1), rel("c", "d", "t", math.Copysign(0, -1)),
			rel("a", "e", "t", math.SmallestNonzeroFloat64))
		for _, k := range []string{"a>b:t", "c>d:t"} {
			if w := stored[parseKey(k)].Weight; w != 1 || math.Signbit(w) {
				t.Fatalf("relation %s stored with weight %v, want 1", k, w)
			}
		}
		requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 2},
			hit{"a b", 1, []string{"a>b:t"}},
			hit{"a c", 1, []string{"a>c:t"}},
			hit{"a c d", 1, []string{"a>c:t", "c>d:t"}},
			hit{"a e", math.SmallestNonzeroFloat64, []string{"a>e:t"}},
		)
		// Replacing a weighted relation with an unweighted one stores 1.
		addRelation(t, g, rel("a", "e", "t", 0))
		stored[parseKey("a>e:t")] = asStored(rel("a", "e", "t", 0))
		requireRelated(t, g, stored, "a", kgmem.TraverseOptions{},
			hit{"a b", 1, []string{"a>b:t"}},
			hit{"a c", 1, []string{"a>c:t"}},
			hit{"a e", 1, []string{"a>e:t"}},
		)
	}})
	checks = append(checks, check{"GetEntityAbsent", func(t *testing.T, g kgmem.KnowledgeGraph) {
		addFixture(t, g)
		_, ok, err := g.GetEntity(t.Context(), ghost)
		if err != nil || ok {
			t.Fatalf("GetEntity(%q) = ok %v, err %v; want ok false, nil error", ghost, ok, err)
		}
	}})
	return checks
}

// ---------------------------------------------------------------------------
// Writes

func writeChecks() []check {
	return []check{
		{"AddEntityStoresEveryField", func(t *testing.T, g kgmem.KnowledgeGraph) {
			e := kgmem.Entity{
				ID: "person:张三", Name: "张三", Type: "person", Description: "负责 Apollo",
				Aliases: []string{"Zhang San", "老张"}, Tags: []string{"lead", "中文"},
				Properties: map[string]string{"team": "core", "城市": "上海"},
				SourceIDs:  []string{"page:1", "page:2"},
			}
			addEntity(t, g, e)
			requireEntity(t, e, mustEntity(t, g, e.ID))
		}},
		{"UpsertReplacesFieldsAndKeepsRelations", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			before := related(t, g, bob, kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both})
			replacement := kgmem.Entity{ID: alice, Name: "Alice Jones", Tags: []string{"new"}}
			addEntity(t, g, replacement)
			requireEntity(t, replacement, mustEntity(t, g, alice))

			// Relations of alice in both directions survive the upsert, and
			// traversals show the new entity.
			want := expect(t, g, relationsByKey(fixtureRelations()), []hit{
				{alice + " " + apollo, 0.5, []string{alice + ">" + apollo + ":works_on"}},
				{alice + " " + bob, 0.25, []string{alice + ">" + bob + ":knows"}},
			})
			RequireSameRelated(t, want, related(t, g, alice, kgmem.TraverseOptions{Depth: 1}))
			after := related(t, g, bob, kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both})
			if len(after) != len(before) {
				t.Fatalf("bob reaches %q after the upsert, %q before", resultIDs(after), resultIDs(before))
			}
			for i := range after {
				before[i].Entity = after[i].Entity
			}
			RequireSameRelated(t, before, after)
			i := slices.Index(resultIDs(after), alice)
			if i < 0 {
				t.Fatalf("bob no longer reaches %q", alice)
			}
			requireEntity(t, replacement, after[i].Entity)
		}},
		{"UpsertReindexesTags", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			addEntity(t, g, kgmem.Entity{ID: alice, Name: "Alice", Tags: []string{"ML", "new"}})
			requireStrings(t, "FindTags(\"\")", []string{"go", "ml", "new", "space"}, findTags(t, g, ""))
			for tag, want := range map[string]int{"go": 1, "ml": 1, "new": 1, "space": 1} {
				if got := countTag(t, g, tag); got != want {
					t.Errorf("EntityCountByTag(%q) = %d, want %d", tag, got, want)
				}
			}
			addEntity(t, g, kgmem.Entity{ID: alice, Name: "Alice"})
			addEntity(t, g, kgmem.Entity{ID: bob, Name: "Bob", Tags: []string{"space"}})
			requireStrings(t, "FindTags(\"\")", []string{"space"}, findTags(t, g, ""))
			requireStrings(t, "FindTags(\"g\")", nil, findTags(t, g, "g"))
			for tag, want := range map[string]int{"go": 0, "ml": 0, "new": 0, "space": 2} {
				if got := countTag(t, g, tag); got != want {
					t.Errorf("EntityCountByTag(%q) = %d, want %d", tag, got, want)
				}
			}
		}},
		{"RemoveEntityCascades", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			addRelation(t, g, rel(alice, alice, "likes", 1)) // a self-loop
			addEntity(t, g, kgmem.Entity{ID: carol, Name: "Carol"})
			addRelation(t, g, rel(carol, alice, "knows", 1))
			removeEntity(t, g, alice)

			if _, ok := getEntity(t, g, alice); ok {
				t.Fatalf("GetEntity(%q) finds the removed entity", alice)
			}
			for _, id := range []string{bob, apollo, carol} {
				for _, r := range related(t, g, id, kgmem.TraverseOptions{Depth: 5, Direction: kgmem.Both}) {
					if slices.Contains(r.Path, alice) {
						t.Fatalf("GetRelated(%q) still walks through the removed entity: %q", id, r.Path)
					}
				}
			}
			requireStrings(t, "GetRelated(carol)", nil,
				resultIDs(related(t, g, carol, kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both})))
			requireStrings(t, "FindTags(\"\")", []string{"go", "space"}, findTags(t, g, ""))
			if n := countTag(t, g, "ml"); n != 0 {
				t.Fatalf("EntityCountByTag(\"ml\") = %d after removing its only entity", n)
			}
			if n := countTag(t, g, "go"); n != 1 {
				t.Fatalf("EntityCountByTag(\"go\") = %d, want 1", n)
			}

			// Re-adding the ID starts afresh: no old relation comes back.
			addEntity(t, g, kgmem.Entity{ID: alice, Name: "Alice again"})
			requireStrings(t, "GetRelated(alice)", nil,
				resultIDs(related(t, g, alice, kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both})))
			for _, id := range []string{bob, apollo, carol} {
				if ids := resultIDs(related(t, g, id, kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both})); slices.Contains(ids, alice) {
					t.Fatalf("GetRelated(%q) reaches the re-added %q through an old relation: %q", id, alice, ids)
				}
			}
			for _, k := range []kgmem.RelationKey{
				parseKey(alice + ">" + apollo + ":works_on"), parseKey(alice + ">" + bob + ":knows"),
				parseKey(bob + ">" + alice + ":knows"), parseKey(alice + ">" + alice + ":likes"),
				parseKey(carol + ">" + alice + ":knows"),
			} {
				err := g.RemoveRelation(t.Context(), k.SourceID, k.TargetID, k.Type)
				requireErr(t, fmt.Sprintf("RemoveRelation%q after the cascade", []string{k.SourceID, k.TargetID, k.Type}), err, kgmem.ErrNotFound)
			}
			requireStrings(t, "FindTags(\"\")", []string{"go", "space"}, findTags(t, g, ""))
			removeRelation(t, g, bob, apollo, "works_on")
		}},
		{"RemoveEntityTwice", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			removeEntity(t, g, bob)
			requireErr(t, "second RemoveEntity", g.RemoveEntity(t.Context(), bob), kgmem.ErrNotFound, bob)
			requireErr(t, "AddRelation to the removed entity",
				g.AddRelation(t.Context(), rel(alice, bob, "knows", 1)), kgmem.ErrNotFound, bob)
		}},
		{"AddRelationReplaces", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			replacement := kgmem.Relation{
				SourceID: alice, TargetID: apollo, Type: "works_on", Weight: 0.125,
				Properties: map[string]string{"since": "2021", "role": "lead"},
			}
			addRelation(t, g, replacement)
			stored := relationsByKey(append(fixtureRelations(), replacement))
			requireRelated(t, g, stored, alice, kgmem.TraverseOptions{Depth: 1},
				hit{alice + " " + bob, 0.25, []string{alice + ">" + bob + ":knows"}},
				hit{alice + " " + apollo, 0.125, []string{alice + ">" + apollo + ":works_on"}},
			)
			requireRelated(t, g, stored, apollo, kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Incoming, RelationTypes: []string{"works_on"}},
				hit{apollo + " " + bob, 1, []string{bob + ">" + apollo + ":works_on"}},
				hit{apollo + " " + alice, 0.125, []string{alice + ">" + apollo + ":works_on"}},
			)
			// Replacing again, now without properties, clears them.
			plain := rel(alice, apollo, "works_on", 1)
			addRelation(t, g, plain)
			stored[plain.Key()] = plain
			requireRelated(t, g, stored, alice, kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{"works_on"}},
				hit{alice + " " + apollo, 1, []string{alice + ">" + apollo + ":works_on"}},
			)
			// There is exactly one relation with the key.
			removeRelation(t, g, alice, apollo, "works_on")
			requireErr(t, "second RemoveRelation", g.RemoveRelation(t.Context(), alice, apollo, "works_on"), kgmem.ErrNotFound)
			requireRelated(t, g, stored, alice, kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{"works_on"}})
		}},
		{"ParallelRelations", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("a", "b", "knows", 0.5),
				rel("a", "b", "likes", 0.25),
				rel("b", "a", "knows", 0.75),
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{"likes"}},
				hit{"a b", 0.25, []string{"a>b:likes"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1},
				hit{"a b", 0.5, []string{"a>b:knows"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Incoming},
				hit{"a b", 0.75, []string{"b>a:knows"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both},
				hit{"a b", 0.75, []string{"b>a:knows"}})

			// Removing one leaves the others.
			removeRelation(t, g, "b", "a", "knows")
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both},
				hit{"a b", 0.5, []string{"a>b:knows"}})
			removeRelation(t, g, "a", "b", "knows")
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both},
				hit{"a b", 0.25, []string{"a>b:likes"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{"knows"}})
			removeRelation(t, g, "a", "b", "likes")
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both})
			requireErr(t, "RemoveRelation of a removed relation",
				g.RemoveRelation(t.Context(), "a", "b", "likes"), kgmem.ErrNotFound, "a", "b")
		}},
		{"RandomHistory", func(t *testing.T, g kgmem.KnowledgeGraph) {
			checkRandomHistory(t, g)
		}},
		{"SelfLoop", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g, rel("a", "a", "self", 1), rel("a", "b", "t", 0.5))
			for _, dir := range []kgmem.Direction{kgmem.Outgoing, kgmem.Both} {
				requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, Direction: dir},
					hit{"a b", 0.5, []string{"a>b:t"}})
			}
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Incoming})
			removeRelation(t, g, "a", "a", "self")
			requireErr(t, "second RemoveRelation of a self-loop",
				g.RemoveRelation(t.Context(), "a", "a", "self"), kgmem.ErrNotFound)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both},
				hit{"a b", 0.5, []string{"a>b:t"}})
		}},
	}
}

// normaliseTags is the tag rule of the contract: trimmed, lower-cased,
// de-duplicated keeping the first, empties dropped, cut to limit.
func normaliseTags(tags []string, limit int) []string {
	var out []string
	for _, tag := range tags {
		tag = strings.ToLower(strings.TrimSpace(tag))
		if tag != "" && !slices.Contains(out, tag) && len(out) < limit {
			out = append(out, tag)
		}
	}
	return out
}

// checkRandomHistory applies a long random sequence of writes, some of them
// bound to fail, to g and to a plain model of the contract, and after every
// write requires that g shows exactly the model through its read methods.
func checkRandomHistory(t *testing.T, g kgmem.KnowledgeGraph) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(3, 4))
	ids := []string{"a", "b", "c", "d:1", "d:2", "e"}
	types := []string{"r", "s", "t"}
	tagPool := []string{" Go", "go", "ML", "rust ", "", "机器", "GO ", "Graph"}
	limit := maxTags(g)
	entities := map[string]kgmem.Entity{}
	rels := map[kgmem.RelationKey]kgmem.Relation{}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	someTags := func() []string {
		var tags []string
		for range rng.IntN(len(tagPool) + 2) {
			tags = append(tags, pick(tagPool))
		}
		return tags
	}

	for step := range 400 {
		var what string
		var err, want error
		switch op := rng.IntN(10); {
		case op < 3:
			e := kgmem.Entity{ID: pick(ids), Name: fmt.Sprintf("name %d", step), Tags: someTags()}
			if rng.IntN(2) == 0 {
				e.Aliases = []string{fmt.Sprintf("alias %d", step)}
			}
			what = fmt.Sprintf("AddEntity(%q, tags %q)", e.ID, e.Tags)
			err = g.AddEntity(ctx, e)
			e.Tags = normaliseTags(e.Tags, limit)
			entities[e.ID] = e
		case op < 4:
			id := pick(ids)
			what = fmt.Sprintf("RemoveEntity(%q)", id)
			err = g.RemoveEntity(ctx, id)
			if _, ok := entities[id]; !ok {
				want = kgmem.ErrNotFound
				break
			}
			delete(entities, id)
			for k := range rels {
				if k.SourceID == id || k.TargetID == id {
					delete(rels, k)
				}
			}
		case op < 7:
			r := rel(pick(ids), pick(ids), pick(types), []float64{0, 0.25, 0.5, 1}[rng.IntN(4)])
			if rng.IntN(3) == 0 {
				r.Properties = map[string]string{"step": fmt.Sprint(step)}
			}
			what = "AddRelation(" + describeRelation(r) + ")"
			err = g.AddRelation(ctx, r)
			_, okSrc := entities[r.SourceID]
			_, okDst := entities[r.TargetID]
			if !okSrc || !okDst {
				want = kgmem.ErrNotFound
				break
			}
			rels[r.Key()] = asStored(r)
		case op < 9:
			k := kgmem.RelationKey{SourceID: pick(ids), TargetID: pick(ids), Type: pick(types)}
			if len(rels) > 0 && rng.IntN(2) == 0 {
				k = slices.SortedFunc(maps.Keys(rels), func(a, b kgmem.RelationKey) int {
					return strings.Compare(describeRelation(rels[a]), describeRelation(rels[b]))
				})[rng.IntN(len(rels))]
			}
			what = fmt.Sprintf("RemoveRelation(%q, %q, %q)", k.SourceID, k.TargetID, k.Type)
			err = g.RemoveRelation(ctx, k.SourceID, k.TargetID, k.Type)
			if _, ok := rels[k]; !ok {
				want = kgmem.ErrNotFound
				break
			}
			delete(rels, k)
		default:
			id, tags := pick(ids), someTags()
			what = fmt.Sprintf("SetEntityTags(%q, %q)", id, tags)
			var n int
			n, err = g.SetEntityTags(ctx, id, tags)
			e, ok := entities[id]
			if !ok {
				want = kgmem.ErrNotFound
				break
			}
			e.Tags = normaliseTags(tags, limit)
			entities[id] = e
			if n != len(e.Tags) {
				t.Fatalf("step %d: %s kept %d tags, want %d", step, what, n, len(e.Tags))
			}
		}
		switch {
		case want == nil && err != nil:
			t.Fatalf("step %d: %s: %v", step, what, err)
		case want != nil && !errors.Is(err, want):
			t.Fatalf("step %d: %s: error %v, want %v", step, what, err, want)
		}

		// The graph shows exactly the model.
		var wantState, gotState []string
		tagCount := map[string]int{}
		for _, id := range ids {
			e, ok := entities[id]
			got, gotOK := getEntity(t, g, id)
			if ok != gotOK || (ok && describeEntity(e) != describeEntity(got)) {
				t.Fatalf("step %d, after %s: GetEntity(%q) = %s (found %v), want %s (found %v)",
					step, what, id, describeEntity(got), gotOK, describeEntity(e), ok)
			}
			for _, tag := range e.Tags {
				tagCount[tag]++
			}
			if !ok {
				continue
			}
			for _, typ := range types {
				opts := kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{typ}}
				for _, r := range related(t, g, id, opts) {
					gotState = append(gotState, describeRelation(r.Relations[0]))
				}
			}
		}
		for k, r := range rels {
			if k.SourceID != k.TargetID {
				wantState = append(wantState, describeRelation(r))
			}
		}
		slices.Sort(wantState)
		slices.Sort(gotState)
		if !slices.Equal(wantState, gotState) {
			t.Fatalf("step %d, after %s: relations\n\t%s\nwant\n\t%s", step, what,
				strings.Join(gotState, "\n\t"), strings.Join(wantState, "\n\t"))
		}
		wantTags := slices.Sorted(maps.Keys(tagCount))
		requireStrings(t, fmt.Sprintf("step %d, after %s: FindTags(\"\")", step, what), wantTags, findTags(t, g, ""))
		for _, tag := range append(wantTags, "go", "ml") {
			if got := countTag(t, g, tag); got != tagCount[tag] {
				t.Fatalf("step %d, after %s: EntityCountByTag(%q) = %d, want %d", step, what, tag, got, tagCount[tag])
			}
		}

		// Traversals agree with the reference over the model's relations.
		if step%5 == 0 && len(entities) > 0 {
			start := slices.Sorted(maps.Keys(entities))[rng.IntN(len(entities))]
			opts := kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both, MaxNodesPerHop: rng.IntN(3)}
			var want []kgmem.ScoredEntity
			for _, h := range referenceRelated(slices.Collect(maps.Values(rels)), start, opts) {
				want = append(want, kgmem.ScoredEntity{Entity: entities[h.id()], Score: h.score, Path: h.path, Relations: h.rels})
			}
			RequireSameRelated(t, want, related(t, g, start, opts))
		}
	}
}

func relationsByKey(rels []kgmem.Relation) map[kgmem.RelationKey]kgmem.Relation {
	m := make(map[kgmem.RelationKey]kgmem.Relation, len(rels))
	for _, r := range rels {
		m[r.Key()] = r
	}
	return m
}

// ---------------------------------------------------------------------------
// Copies

func copyChecks() []check {
	return []check{
		{"GetEntityReturnsCopy", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			want := mustEntity(t, g, alice)
			want = kgmem.Entity{
				ID: want.ID, Name: want.Name, Type: want.Type, Description: want.Description,
				Aliases: slices.Clone(want.Aliases), Tags: slices.Clone(want.Tags),
				Properties: maps.Clone(want.Properties), SourceIDs: slices.Clone(want.SourceIDs),
			}
			e := mustEntity(t, g, alice)
			scribble(&e)
			requireEntity(t, want, mustEntity(t, g, alice))
		}},
		{"AddEntityCopiesInput", func(t *testing.T, g kgmem.KnowledgeGraph) {
			e := fixtureEntities()[0]
			addEntity(t, g, e)
			scribble(&e)
			requireEntity(t, fixtureEntities()[0], mustEntity(t, g, alice))
			requireStrings(t, "FindTags(\"\")", []string{"go", "ml"}, findTags(t, g, ""))
		}},
		{"AddRelationCopiesInput", func(t *testing.T, g kgmem.KnowledgeGraph) {
			for _, e := range fixtureEntities() {
				addEntity(t, g, e)
			}
			r := fixtureRelations()[0]
			addRelation(t, g, r)
			r.Properties["since"] = "1999"
			r.Properties["extra"] = "x"
			r.SourceIDs[0] = "page:999"
			r.Weight = 0.01
			stored := relationsByKey(fixtureRelations())
			requireRelated(t, g, stored, alice, kgmem.TraverseOptions{Depth: 1},
				hit{alice + " " + apollo, 0.5, []string{alice + ">" + apollo + ":works_on"}})
		}},
		{"GetRelatedReturnsCopies", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			addEntity(t, g, kgmem.Entity{ID: carol, Name: "Carol", Aliases: []string{"C"}})
			addRelation(t, g, rel(apollo, carol, "owned_by", 1))
			opts := kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both}
			first := related(t, g, alice, opts)
			want := describeResults(first)
			if len(first) < 2 {
				t.Fatalf("GetRelated(%q) = %d results, want at least 2", alice, len(first))
			}
			// Appending to one result's slices must not reach another's.
			for i := range first {
				_ = append(first[i].Path, "appended")
				_ = append(first[i].Relations, rel("x", "y", "z", 1))
			}
			if got := describeResults(first); !slices.Equal(want, got) {
				t.Fatalf("appending to one result changed another:\ngot  %q\nwant %q", got, want)
			}
			for i := range first {
				s := &first[i]
				scribble(&s.Entity)
				s.Path[0] = "changed"
				s.Path[len(s.Path)-1] = "changed"
				for j := range s.Relations {
					r := &s.Relations[j]
					if r.Properties != nil {
						r.Properties["since"] = "changed"
					}
					if len(r.SourceIDs) > 0 {
						r.SourceIDs[0] = "changed"
					}
					r.SourceID, r.Weight = "changed", 0.01
				}
				s.Score = -1
			}
			if got := describeResults(related(t, g, alice, opts)); !slices.Equal(want, got) {
				t.Fatalf("mutating GetRelated results changed the graph:\ngot  %q\nwant %q", got, want)
			}
			requireEntity(t, fixtureEntities()[0], mustEntity(t, g, alice))
		}},
		{"FindByKeywordsReturnsCopies", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			es := findKeywords(t, g, "alice")
			if len(es) != 1 {
				t.Fatalf("FindByKeywords(alice) = %q", entityIDs(es))
			}
			scribble(&es[0])
			requireEntity(t, fixtureEntities()[0], findKeywords(t, g, "alice")[0])
			requireEntity(t, fixtureEntities()[0], mustEntity(t, g, alice))
		}},
		{"FindTagsReturnsCopy", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			tags := findTags(t, g, "")
			tags[0] = "changed"
			requireStrings(t, "FindTags(\"\")", []string{"go", "ml", "space"}, findTags(t, g, ""))
		}},
	}
}

// scribble changes everything reachable through e's slices and maps, and its
// scalar fields.
func scribble(e *kgmem.Entity) {
	for i := range e.Aliases {
		e.Aliases[i] = "changed"
	}
	for i := range e.Tags {
		e.Tags[i] = "changed"
	}
	for i := range e.SourceIDs {
		e.SourceIDs[i] = "changed"
	}
	for k := range e.Properties {
		e.Properties[k] = "changed"
	}
	if e.Properties != nil {
		e.Properties["added"] = "x"
	}
	e.Name, e.Description = "changed", "changed"
}

// ---------------------------------------------------------------------------
// GetRelated

func relatedChecks() []check {
	return []check{
		{"Errors", func(t *testing.T, g kgmem.KnowledgeGraph) {
			build(t, g, rel("a", "b", "t", 1))
			ctx := t.Context()
			_, err := g.GetRelated(ctx, "missing", kgmem.TraverseOptions{Depth: 2})
			requireErr(t, "unknown start", err, kgmem.ErrNotFound, "missing")
			_, err = g.GetRelated(ctx, "missing", kgmem.TraverseOptions{})
			requireErr(t, "unknown start with Depth 0", err, kgmem.ErrNotFound, "missing")
			invalid := []struct {
				name string
				opts kgmem.TraverseOptions
				part string
			}{
				{"NegativeDepth", kgmem.TraverseOptions{Depth: -3}, "-3"},
				{"DepthMinusOne", kgmem.TraverseOptions{Depth: -1}, "-1"},
				{"NegativeMaxNodesPerHop", kgmem.TraverseOptions{Depth: 1, MaxNodesPerHop: -2}, "-2"},
				{"MaxNodesPerHopMinusOne", kgmem.TraverseOptions{Depth: 1, MaxNodesPerHop: -1}, "-1"},
				{"NegativeLimit", kgmem.TraverseOptions{Depth: 1, Limit: -4}, "-4"},
				{"LimitMinusOne", kgmem.TraverseOptions{Depth: 1, Limit: -1}, "-1"},
				{"NegativeDepthAndZeroRest", kgmem.TraverseOptions{Depth: -1, MaxNodesPerHop: 0, Limit: 0}, "-1"},
				{"UnknownDirection", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Direction(9)}, "9"},
				{"EmptyRelationType", kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{"t", ""}}, ""},
			}
			for _, c := range invalid {
				_, err := g.GetRelated(ctx, "a", c.opts)
				requireErr(t, c.name, err, kgmem.ErrInvalidArgument, c.part)
			}
		}},
		{"EmptyGraph", func(t *testing.T, g kgmem.KnowledgeGraph) {
			_, err := g.GetRelated(t.Context(), "a", kgmem.TraverseOptions{Depth: 1})
			requireErr(t, "GetRelated on an empty graph", err, kgmem.ErrNotFound, "a")
		}},
		{"SingleEntity", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addEntity(t, g, kgmem.Entity{ID: "a"})
			for _, dir := range []kgmem.Direction{kgmem.Outgoing, kgmem.Incoming, kgmem.Both} {
				requireRelated(t, g, nil, "a", kgmem.TraverseOptions{Depth: 4, Direction: dir})
			}
		}},
		{"DepthZeroIsOneHop", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// The zero value walks one hop, outgoing.
			stored := build(t, g, rel("a", "b", "t", 1), rel("b", "c", "t", 1), rel("d", "a", "t", 0.5))
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{}, hit{"a b", 1, []string{"a>b:t"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Direction: kgmem.Incoming}, hit{"a d", 0.5, []string{"d>a:t"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Direction: kgmem.Both, Limit: 3, MaxNodesPerHop: 1},
				hit{"a b", 1, []string{"a>b:t"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1}, hit{"a b", 1, []string{"a>b:t"}})
		}},
		{"SelfLoops", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// A self-loop is stored and removed like any relation; it never
			// makes its entity a result, whatever the direction.
			stored := build(t, g, rel("a", "a", "self", 0.5), rel("a", "b", "t", 1), rel("b", "b", "self", 1))
			for _, dir := range []kgmem.Direction{kgmem.Outgoing, kgmem.Incoming, kgmem.Both} {
				opts := kgmem.TraverseOptions{Depth: 3, Direction: dir}
				if dir == kgmem.Incoming {
					requireRelated(t, g, stored, "a", opts)
					continue
				}
				requireRelated(t, g, stored, "a", opts, hit{"a b", 1, []string{"a>b:t"}})
			}
			requireRelated(t, g, stored, "b", kgmem.TraverseOptions{Direction: kgmem.Both, RelationTypes: []string{"self"}})
			removeRelation(t, g, "a", "a", "self")
			err := g.RemoveRelation(t.Context(), "a", "a", "self")
			requireErr(t, "removing a self-loop twice", err, kgmem.ErrNotFound, `"a"`)
			removeEntity(t, g, "b") // and its self-loop with it
			addEntity(t, g, kgmem.Entity{ID: "b"})
			requireRelated(t, g, nil, "b", kgmem.TraverseOptions{Direction: kgmem.Both})
		}},
		{"CyclesTerminate", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("a", "b", "t", 0.5), rel("b", "c", "t", 0.5), rel("c", "a", "t", 0.5),
				rel("a", "a", "t", 1), rel("b", "b", "t", 1),
			)
			for _, depth := range []int{3, 50, math.MaxInt} {
				requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: depth},
					hit{"a b", 0.5, []string{"a>b:t"}},
					hit{"a b c", 0.25, []string{"a>b:t", "b>c:t"}},
				)
			}
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 50, Direction: kgmem.Both},
				hit{"a b", 0.5, []string{"a>b:t"}},
				hit{"a c", 0.5, []string{"c>a:t"}},
			)
		}},
		{"FewestHopsWin", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("a", "c", "t", 1), rel("c", "b", "t", 1), rel("a", "b", "t", 0.125),
				rel("b", "d", "t", 1), rel("c", "d", "t", 0.25),
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3},
				hit{"a c", 1, []string{"a>c:t"}},
				hit{"a c d", 0.25, []string{"a>c:t", "c>d:t"}},
				hit{"a b", 0.125, []string{"a>b:t"}},
			)
		}},
		{"BestScoreAmongSameLength", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("s", "y", "t", 0.875), rel("s", "x", "t", 0.5),
				rel("y", "z", "t", 0.5), rel("x", "z", "t", 1),
			)
			requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 2},
				hit{"s y", 0.875, []string{"s>y:t"}},
				hit{"s x", 0.5, []string{"s>x:t"}},
				hit{"s x z", 0.5, []string{"s>x:t", "x>z:t"}},
			)
		}},
		{"TiesGoToSmallestPath", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// Two equal-scoring paths to z; they first differ at a/b, so
			// z is reached through a even though p sorts before q.
			stored := build(t, g,
				rel("s", "b", "t", 1), rel("b", "p", "t", 1), rel("p", "z", "t", 1),
				rel("s", "a", "t", 1), rel("a", "q", "t", 1), rel("q", "z", "t", 1),
			)
			requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 3},
				hit{"s a", 1, []string{"s>a:t"}},
				hit{"s b", 1, []string{"s>b:t"}},
				hit{"s b p", 1, []string{"s>b:t", "b>p:t"}},
				hit{"s a q", 1, []string{"s>a:t", "a>q:t"}},
				hit{"s a q z", 1, []string{"s>a:t", "a>q:t", "q>z:t"}},
			)
			// Walking backwards from z, s is reached through p, which sorts
			// before q, even though a sorts before b.
			requireRelated(t, g, stored, "z", kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Incoming},
				hit{"z p", 1, []string{"p>z:t"}},
				hit{"z q", 1, []string{"q>z:t"}},
				hit{"z q a", 1, []string{"q>z:t", "a>q:t"}},
				hit{"z p b", 1, []string{"p>z:t", "b>p:t"}},
				hit{"z p b s", 1, []string{"p>z:t", "b>p:t", "s>b:t"}},
			)
		}},
		{"TiesBetweenParallelRelations", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("b", "a", "alpha", 0.5), rel("a", "b", "knows", 0.5),
				rel("a", "b", "beta", 0.5), rel("b", "c", "t", 1),
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 2},
				hit{"a b", 0.5, []string{"a>b:beta"}},
				hit{"a b c", 0.5, []string{"a>b:beta", "b>c:t"}},
			)
			// Walking both ways, the key (SourceID, TargetID, Type) of a>b
			// sorts before b>a whatever the types.
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both},
				hit{"a b", 0.5, []string{"a>b:beta"}})
			requireRelated(t, g, stored, "b", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both, RelationTypes: []string{"alpha", "knows"}},
				hit{"b a", 0.5, []string{"a>b:knows"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Incoming},
				hit{"a b", 0.5, []string{"b>a:alpha"}})
		}},
		{"Directions", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("a", "b", "t", 0.5), rel("c", "a", "t", 0.25),
				rel("b", "d", "t", 1), rel("e", "c", "t", 1),
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Outgoing},
				hit{"a b", 0.5, []string{"a>b:t"}},
				hit{"a b d", 0.5, []string{"a>b:t", "b>d:t"}},
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Incoming},
				hit{"a c", 0.25, []string{"c>a:t"}},
				hit{"a c e", 0.25, []string{"c>a:t", "e>c:t"}},
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both},
				hit{"a b", 0.5, []string{"a>b:t"}},
				hit{"a b d", 0.5, []string{"a>b:t", "b>d:t"}},
				hit{"a c", 0.25, []string{"c>a:t"}},
				hit{"a c e", 0.25, []string{"c>a:t", "e>c:t"}},
			)
			// Both may change direction along a path.
			requireRelated(t, g, stored, "d", kgmem.TraverseOptions{Depth: 4, Direction: kgmem.Both},
				hit{"d b", 1, []string{"b>d:t"}},
				hit{"d b a", 0.5, []string{"b>d:t", "a>b:t"}},
				hit{"d b a c", 0.125, []string{"b>d:t", "a>b:t", "c>a:t"}},
				hit{"d b a c e", 0.125, []string{"b>d:t", "a>b:t", "c>a:t", "e>c:t"}},
			)
		}},
		{"RelationTypeFilter", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("a", "b", "knows", 0.5), rel("a", "c", "works_on", 0.25),
				rel("b", "c", "knows", 1), rel("c", "d", "likes", 1),
			)
			all := []hit{
				{"a b", 0.5, []string{"a>b:knows"}},
				{"a c", 0.25, []string{"a>c:works_on"}},
				{"a c d", 0.25, []string{"a>c:works_on", "c>d:likes"}},
			}
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3}, all...)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, RelationTypes: []string{}}, all...)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, RelationTypes: []string{"knows"}},
				hit{"a b", 0.5, []string{"a>b:knows"}},
				hit{"a b c", 0.5, []string{"a>b:knows", "b>c:knows"}},
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, RelationTypes: []string{"knows", "likes"}},
				hit{"a b", 0.5, []string{"a>b:knows"}},
				hit{"a b c", 0.5, []string{"a>b:knows", "b>c:knows"}},
				hit{"a b c d", 0.5, []string{"a>b:knows", "b>c:knows", "c>d:likes"}},
			)
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, RelationTypes: []string{"unknown"}})
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3, RelationTypes: []string{"KNOWS"}})
		}},
		{"WeightDecay", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g, rel("a", "b", "t", 0.5), rel("b", "c", "t", 0.8), rel("c", "d", "t", 0.25),
				rel("a", "x", "t", 0.9), rel("x", "y", "t", 0.9), rel("y", "z", "t", 0.9))
			requireRelated(t, g, stored, "a", kgmem.TraverseOptions{Depth: 3},
				hit{"a x", 0.9, []string{"a>x:t"}},
				hit{"a x y", product(0.9, 0.9), []string{"a>x:t", "x>y:t"}},
				hit{"a x y z", product(0.9, 0.9, 0.9), []string{"a>x:t", "x>y:t", "y>z:t"}},
				hit{"a b", 0.5, []string{"a>b:t"}},
				hit{"a b c", 0.4, []string{"a>b:t", "b>c:t"}},
				hit{"a b c d", 0.1, []string{"a>b:t", "b>c:t", "c>d:t"}},
			)
		}},
		{"Order", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// Equal scores: fewer hops first, then IDs.
			stored := build(t, g,
				rel("s", "z", "t", 1), rel("z", "b", "t", 1), rel("s", "y", "t", 1),
				rel("s", "m", "t", 0.5), rel("s", "c", "t", 0.5), rel("y", "a", "t", 0.5),
				rel("s", "n", "t", 0.125),
			)
			requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 2},
				hit{"s y", 1, []string{"s>y:t"}},
				hit{"s z", 1, []string{"s>z:t"}},
				hit{"s z b", 1, []string{"s>z:t", "z>b:t"}},
				hit{"s c", 0.5, []string{"s>c:t"}},
				hit{"s m", 0.5, []string{"s>m:t"}},
				hit{"s y a", 0.5, []string{"s>y:t", "y>a:t"}},
				hit{"s n", 0.125, []string{"s>n:t"}},
			)
		}},
		{"MaxNodesPerHop", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("s", "a", "t", 0.5), rel("s", "b", "t", 0.75), rel("s", "c", "t", 0.5),
				rel("b", "a", "t", 1), rel("a", "d", "t", 1), rel("b", "e", "t", 0.5),
				rel("c", "f", "t", 1), rel("e", "c", "t", 1),
			)
			// Hop 1 keeps b and a (a wins the tie with c on ID); c is cut,
			// so it is not reached again from e, and f is never reached.
			requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 4, MaxNodesPerHop: 2},
				hit{"s b", 0.75, []string{"s>b:t"}},
				hit{"s a", 0.5, []string{"s>a:t"}},
				hit{"s a d", 0.5, []string{"s>a:t", "a>d:t"}},
				hit{"s b e", 0.375, []string{"s>b:t", "b>e:t"}},
			)
			requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 4, MaxNodesPerHop: 1},
				hit{"s b", 0.75, []string{"s>b:t"}},
				hit{"s b e", 0.375, []string{"s>b:t", "b>e:t"}},
			)
			requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 4, MaxNodesPerHop: math.MaxInt},
				hit{"s b", 0.75, []string{"s>b:t"}},
				hit{"s a", 0.5, []string{"s>a:t"}},
				hit{"s c", 0.5, []string{"s>c:t"}},
				hit{"s a d", 0.5, []string{"s>a:t", "a>d:t"}},
				hit{"s c f", 0.5, []string{"s>c:t", "c>f:t"}},
				hit{"s b e", 0.375, []string{"s>b:t", "b>e:t"}},
			)
			requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 4, MaxNodesPerHop: 3},
				hit{"s b", 0.75, []string{"s>b:t"}},
				hit{"s a", 0.5, []string{"s>a:t"}},
				hit{"s c", 0.5, []string{"s>c:t"}},
				hit{"s a d", 0.5, []string{"s>a:t", "a>d:t"}},
				hit{"s c f", 0.5, []string{"s>c:t", "c>f:t"}},
				hit{"s b e", 0.375, []string{"s>b:t", "b>e:t"}},
			)
		}},
		{"Limit", func(t *testing.T, g kgmem.KnowledgeGraph) {
			stored := build(t, g,
				rel("s", "a", "t", 0.5), rel("s", "b", "t", 1), rel("b", "c", "t", 1), rel("a", "d", "t", 1),
			)
			all := []hit{
				{"s b", 1, []string{"s>b:t"}},
				{"s b c", 1, []string{"s>b:t", "b>c:t"}},
				{"s a", 0.5, []string{"s>a:t"}},
				{"s a d", 0.5, []string{"s>a:t", "a>d:t"}},
			}
			for _, limit := range []int{0, 1, 2, 3, 4, 5, math.MaxInt} {
				want := all
				if limit > 0 && limit < len(all) {
					want = all[:limit]
				}
				requireRelated(t, g, stored, "s", kgmem.TraverseOptions{Depth: 2, Limit: limit}, want...)
			}
		}},
		{"MatchesReference", func(t *testing.T, g kgmem.KnowledgeGraph) {
			checkAgainstReference(t, g)
		}},
	}
}

// ---------------------------------------------------------------------------
// Reference traversal

// refHit is one entity reached by the reference traversal.
type refHit struct {
	path  []string
	rels  []kgmem.Relation
	score float64
}

func (h refHit) id() string { return h.path[len(h.path)-1] }

// beats reports whether offer a is better than b for the same entity at the
// same hop: higher score, then smaller path, then smaller last relation key.
func (a refHit) beats(b refHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if c := slices.Compare(a.path, b.path); c != 0 {
		return c < 0
	}
	ka, kb := a.rels[len(a.rels)-1].Key(), b.rels[len(b.rels)-1].Key()
	return cmp.Or(
		strings.Compare(ka.SourceID, kb.SourceID),
		strings.Compare(ka.TargetID, kb.TargetID),
		strings.Compare(ka.Type, kb.Type),
	) < 0
}

// referenceRelated computes GetRelated from a plain list of relations, one
// hop at a time, without any index. Relations count as stored (asStored),
// and Depth 0 means 1.
func referenceRelated(rels []kgmem.Relation, start string, opts kgmem.TraverseOptions) []refHit {
	rels = storedAll(rels)
	if opts.Depth == 0 {
		opts.Depth = 1
	}
	reached := map[string]bool{start: true}
	level := []refHit{{path: []string{start}, score: 1}}
	var out []refHit
	for hop := 1; hop <= opts.Depth && len(level) > 0; hop++ {
		best := map[string]refHit{}
		offer := func(from refHit, r kgmem.Relation, to string) {
			if reached[to] {
				return
			}
			h := refHit{
				path:  append(slices.Clone(from.path), to),
				rels:  append(slices.Clone(from.rels), r),
				score: from.score * r.Weight,
			}
			if cur, ok := best[to]; !ok || h.beats(cur) {
				best[to] = h
			}
		}
		for _, from := range level {
			for _, r := range rels {
				if len(opts.RelationTypes) > 0 && !slices.Contains(opts.RelationTypes, r.Type) {
					continue
				}
				if opts.Direction != kgmem.Incoming && r.SourceID == from.id() {
					offer(from, r, r.TargetID)
				}
				if opts.Direction != kgmem.Outgoing && r.TargetID == from.id() {
					offer(from, r, r.SourceID)
				}
			}
		}
		next := slices.Collect(maps.Values(best))
		slices.SortFunc(next, func(a, b refHit) int {
			return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.id(), b.id()))
		})
		for _, h := range next {
			reached[h.id()] = true
		}
		if c := opts.MaxNodesPerHop; c > 0 && len(next) > c {
			next = next[:c]
		}
		out = append(out, next...)
		level = next
	}
	slices.SortStableFunc(out, func(a, b refHit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(len(a.path), len(b.path)), strings.Compare(a.id(), b.id()))
	})
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out
}

// storedAll returns rels as stored (see asStored), in a new slice.
func storedAll(rels []kgmem.Relation) []kgmem.Relation {
	out := make([]kgmem.Relation, len(rels))
	for i, r := range rels {
		out[i] = asStored(r)
	}
	return out
}

// randomGraph returns entity IDs and relations with unique keys. Weights come
// mostly from a small set so that equal scores are common; a zero weight,
// stored as 1, ties with the relations of weight 1.
func randomGraph(rng *rand.Rand) ([]string, []kgmem.Relation) {
	pool := []string{"a", "ab", "b", "ba", "c", "c:1", "c:10", "c:2", "d", "e"}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	ids := pool[:1+rng.IntN(len(pool))]
	weights := []float64{0, 0.25, 0.5, 0.5, 1}
	byKey := map[kgmem.RelationKey]int{}
	var rels []kgmem.Relation
	for range rng.IntN(25) {
		r := kgmem.Relation{
			SourceID: ids[rng.IntN(len(ids))],
			TargetID: ids[rng.IntN(len(ids))],
			Type:     []string{"r", "s", "t"}[rng.IntN(3)],
			Weight:   weights[rng.IntN(len(weights))],
		}
		if rng.IntN(5) == 0 {
			r.Weight = rng.Float64()
		}
		if i, ok := byKey[r.Key()]; ok {
			rels[i] = r
			continue
		}
		byKey[r.Key()] = len(rels)
		rels = append(rels, r)
	}
	return ids, rels
}

// checkAgainstReference builds random graphs in g, one after another, and
// compares GetRelated with the reference traversal.
func checkAgainstReference(t *testing.T, g kgmem.KnowledgeGraph) {
	rng := rand.New(rand.NewPCG(1, 2))
	filters := [][]string{nil, {"r"}, {"s", "t"}}
	var live []string
	rounds := 60
	if testing.Short() {
		rounds = 20
	}
	for round := range rounds {
		for _, id := range live {
			removeEntity(t, g, id)
		}
		ids, rels := randomGraph(rng)
		for _, id := range ids {
			addEntity(t, g, kgmem.Entity{ID: id, Name: "Entity " + id})
		}
		for _, r := range rels {
			addRelation(t, g, r)
		}
		live = ids
		entities := map[string]kgmem.Entity{}
		for _, id := range ids {
			entities[id] = mustEntity(t, g, id)
		}
		starts := ids[:min(len(ids), 4)]
		for _, start := range starts {
			for _, dir := range []kgmem.Direction{kgmem.Outgoing, kgmem.Incoming, kgmem.Both} {
				for _, types := range filters {
					for depth := 1; depth <= 4; depth++ {
						for perHop := range 3 {
							opts := kgmem.TraverseOptions{
								Depth: depth, Direction: dir, RelationTypes: types,
								MaxNodesPerHop: perHop, Limit: rng.IntN(4),
							}
							var want []kgmem.ScoredEntity
							for _, h := range referenceRelated(rels, start, opts) {
								want = append(want, kgmem.ScoredEntity{
									Entity: entities[h.id()], Score: h.score, Path: h.path, Relations: h.rels,
								})
							}
							got, err := g.GetRelated(t.Context(), start, opts)
							if err != nil {
								t.Fatalf("graph %d, GetRelated(%q, %+v): %v", round, start, opts, err)
							}
							if w, d := describeResults(want), describeResults(got); !slices.Equal(w, d) {
								t.Fatalf("graph %d, GetRelated(%q, %+v) on relations\n\t%s\ngot:\n\t%s\nwant:\n\t%s",
									round, start, opts, strings.Join(describeRelations(rels), "\n\t"),
									strings.Join(d, "\n\t"), strings.Join(w, "\n\t"))
							}
						}
					}
				}
			}
		}
	}
}

func describeRelations(rels []kgmem.Relation) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = describeRelation(r)
	}
	return out
}

// ---------------------------------------------------------------------------
// Tags

// maxTags is the graph's MaxTagsPerEntity, with 0 or less meaning the
// default every backend shares.
func maxTags(g kgmem.KnowledgeGraph) int {
	if n := g.TagConstraints().MaxTagsPerEntity; n > 0 {
		return n
	}
	return textrule.MaxTagsPerEntity
}

func tagChecks() []check {
	return []check{
		{"SetEntityTagsNormalises", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			before := mustEntity(t, g, alice)
			in := []string{"  Go ", "go", "RUST", "", "   ", "Rust", "机器学习", "\tML\n", "ÉCOLE"}
			want := []string{"go", "rust", "机器学习", "ml", "école"}
			want = want[:min(len(want), maxTags(g))]
			if n := setTags(t, g, alice, in); n != len(want) {
				t.Fatalf("SetEntityTags(%q) kept %d tags, want %d", in, n, len(want))
			}
			before.Tags = want
			requireEntity(t, before, mustEntity(t, g, alice))
			if n := countTag(t, g, "go"); n != 2 {
				t.Fatalf("EntityCountByTag(\"go\") = %d, want 2", n)
			}
			if n := countTag(t, g, " Go "); n != 2 {
				t.Fatalf("EntityCountByTag(\" Go \") = %d, want 2: the tag is normalised first", n)
			}
		}},
		{"SetEntityTagsCutsToMax", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addEntity(t, g, kgmem.Entity{ID: "a"})
			m := maxTags(g)
			var in, want []string
			for i := range m + 3 {
				tag := fmt.Sprintf("Tag%03d", i)
				in = append(in, tag, " "+strings.ToLower(tag)+" ", "")
				if i < m {
					want = append(want, strings.ToLower(tag))
				}
			}
			if n := setTags(t, g, "a", in); n != m {
				t.Fatalf("SetEntityTags with %d distinct tags kept %d, want %d", m+3, n, m)
			}
			requireStrings(t, "tags", want, mustEntity(t, g, "a").Tags)
			requireStrings(t, "FindTags(\"tag\")", want, findTags(t, g, "tag"))
			if n := countTag(t, g, fmt.Sprintf("tag%03d", m)); n != 0 {
				t.Fatalf("a tag past MaxTagsPerEntity is counted %d times", n)
			}
		}},
		{"AddEntityNormalisesTags", func(t *testing.T, g kgmem.KnowledgeGraph) {
			m := maxTags(g)
			in := []string{" A ", "a", "", "B", " b"}
			for i := range m + 2 {
				in = append(in, fmt.Sprintf("X%03d", i))
			}
			want := []string{"a", "b"}
			for i := range m + 2 {
				want = append(want, fmt.Sprintf("x%03d", i))
			}
			want = want[:m]
			addEntity(t, g, kgmem.Entity{ID: "e", Name: "E", Tags: in})
			requireEntity(t, kgmem.Entity{ID: "e", Name: "E", Tags: want}, mustEntity(t, g, "e"))
			requireStrings(t, "FindTags(\"\")", slices.Sorted(slices.Values(want)), findTags(t, g, ""))
			if n := countTag(t, g, "A"); n != 1 {
				t.Fatalf("EntityCountByTag(\"A\") = %d, want 1", n)
			}
		}},
		{"IndexHoldsOnlyLiveTags", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addEntity(t, g, kgmem.Entity{ID: "a", Tags: []string{"x", "y"}})
			addEntity(t, g, kgmem.Entity{ID: "b", Tags: []string{"y"}})
			requireCounts(t, g, map[string]int{"x": 1, "y": 2})
			requireStrings(t, "FindTags(\"\")", []string{"x", "y"}, findTags(t, g, ""))

			setTags(t, g, "a", []string{"z"})
			requireCounts(t, g, map[string]int{"x": 0, "y": 1, "z": 1})
			requireStrings(t, "FindTags(\"\")", []string{"y", "z"}, findTags(t, g, ""))

			addEntity(t, g, kgmem.Entity{ID: "b", Tags: []string{"w"}})
			requireCounts(t, g, map[string]int{"y": 0, "w": 1, "z": 1})
			requireStrings(t, "FindTags(\"\")", []string{"w", "z"}, findTags(t, g, ""))

			removeEntity(t, g, "a")
			requireCounts(t, g, map[string]int{"z": 0, "w": 1})
			requireStrings(t, "FindTags(\"\")", []string{"w"}, findTags(t, g, ""))

			if n := setTags(t, g, "b", nil); n != 0 {
				t.Fatalf("SetEntityTags(nil) kept %d tags", n)
			}
			requireCounts(t, g, map[string]int{"w": 0})
			requireStrings(t, "FindTags(\"\")", nil, findTags(t, g, ""))
			requireStrings(t, "tags of b", nil, mustEntity(t, g, "b").Tags)

			// Re-adding a removed entity does not bring its tags back.
			addEntity(t, g, kgmem.Entity{ID: "a"})
			requireStrings(t, "FindTags(\"\")", nil, findTags(t, g, ""))
		}},
		{"SetEntityTagsKeepsEverythingElse", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			before := related(t, g, alice, kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both})
			setTags(t, g, alice, []string{"new"})
			want := fixtureEntities()[0]
			want.Tags = []string{"new"}
			requireEntity(t, want, mustEntity(t, g, alice))
			after := related(t, g, alice, kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both})
			RequireSameRelated(t, before, after)
			requireStrings(t, "FindTags(\"\")", []string{"go", "new", "space"}, findTags(t, g, ""))
		}},
		{"FindTagsPrefix", func(t *testing.T, g kgmem.KnowledgeGraph) {
			// At most two tags per entity, so that the check holds for
			// any MaxTagsPerEntity above one.
			addEntity(t, g, kgmem.Entity{ID: "a", Tags: []string{"rust", "graph"}})
			addEntity(t, g, kgmem.Entity{ID: "b", Tags: []string{"golang", "go"}})
			addEntity(t, g, kgmem.Entity{ID: "c", Tags: []string{"Go", "机器学习"}})
			requireStrings(t, "FindTags(\"\")", []string{"go", "golang", "graph", "rust", "机器学习"}, findTags(t, g, ""))
			requireStrings(t, "FindTags(\"G\")", []string{"go", "golang", "graph"}, findTags(t, g, "G"))
			requireStrings(t, "FindTags(\"GO\")", []string{"go", "golang"}, findTags(t, g, "GO"))
			requireStrings(t, "FindTags(\"gol\")", []string{"golang"}, findTags(t, g, "gol"))
			requireStrings(t, "FindTags(\"机器\")", []string{"机器学习"}, findTags(t, g, "机器"))
			requireStrings(t, "FindTags(\"x\")", nil, findTags(t, g, "x"))
			requireCounts(t, g, map[string]int{"go": 2, "golang": 1, "GRAPH": 1, "nothing": 0})
		}},
	}
}

func requireCounts(t testing.TB, g kgmem.KnowledgeGraph, want map[string]int) {
	t.Helper()
	for _, tag := range slices.Sorted(maps.Keys(want)) {
		if got := countTag(t, g, tag); got != want[tag] {
			t.Fatalf("EntityCountByTag(%q) = %d, want %d", tag, got, want[tag])
		}
	}
}

// ---------------------------------------------------------------------------
// FindByName

// nameChecks check kgmem.NameFinder; they skip for a graph without it.
func nameChecks() []check {
	finder := capability[kgmem.NameFinder]
	setup := func(t testing.TB, g kgmem.KnowledgeGraph) {
		t.Helper()
		for _, e := range []kgmem.Entity{
			{ID: "project:apollo", Name: "Project Apollo", Aliases: []string{"Apollo", "阿波罗计划"}},
			{ID: "mission:apollo", Name: "Apollo", Type: "mission"},
			{ID: "person:zhangsan", Name: "张三", Aliases: []string{"Zhang San"}},
			{ID: "hero:spiderman", Name: "Spider-Man"},
			{ID: "person:alice", Name: "Alice Smith", Aliases: []string{"Ally", "ALLY"}},
			{ID: "thing:nameless"},
		} {
			addEntity(t, g, e)
		}
	}
	find := func(t testing.TB, nf kgmem.NameFinder, name string) []string {
		t.Helper()
		es, err := nf.FindByName(t.Context(), name)
		if err != nil {
			t.Fatalf("FindByName(%q): %v", name, err)
		}
		return entityIDs(es)
	}
	return []check{
		{"Matches", func(t *testing.T, g kgmem.KnowledgeGraph) {
			nf := finder(t, g)
			setup(t, g)
			for _, tc := range []struct {
				name string
				want []string
			}{
				{"Project Apollo", []string{"project:apollo"}},
				{"project apollo", []string{"project:apollo"}},
				{"  PROJECT   apollo! ", []string{"project:apollo"}},
				{"ＰＲＯＪＥＣＴ ＡＰＯＬＬＯ", []string{"project:apollo"}},
				{"apollo", []string{"mission:apollo", "project:apollo"}}, // a name and an alias, ordered by ID
				{"阿波罗计划", []string{"project:apollo"}},
				{"张三", []string{"person:zhangsan"}},
				{"zhang san", []string{"person:zhangsan"}},
				{"Zhang-San", []string{"person:zhangsan"}},
				{"Spider-Man", []string{"hero:spiderman"}},
				{"spiderman", []string{"hero:spiderman"}},
				{"spider man", []string{"hero:spiderman"}},
				{"ally", []string{"person:alice"}}, // two aliases with one key: once
				{"Alice", nil},                     // a word of a name is not the name
				{"Apollo Project", nil},
				{"person:alice", nil}, // IDs are not names
				{"张", nil},
				{"!!!", nil}, // no match key: nothing, not an error
			} {
				requireStrings(t, fmt.Sprintf("FindByName(%q)", tc.name), tc.want, find(t, nf, tc.name))
			}
		}},
		{"FollowsWrites", func(t *testing.T, g kgmem.KnowledgeGraph) {
			nf := finder(t, g)
			setup(t, g)
			addEntity(t, g, kgmem.Entity{ID: "project:apollo", Name: "Artemis"})
			requireStrings(t, "after renaming", []string{"mission:apollo"}, find(t, nf, "apollo"))
			requireStrings(t, "the new name", []string{"project:apollo"}, find(t, nf, "artemis"))
			removeEntity(t, g, "mission:apollo")
			requireStrings(t, "after removing", nil, find(t, nf, "apollo"))
			// The entity returned is a copy.
			es, err := nf.FindByName(t.Context(), "artemis")
			if err != nil || len(es) != 1 {
				t.Fatalf("FindByName(artemis) = %v, %v", es, err)
			}
			es[0].Name = "scribbled"
			requireStrings(t, "after scribbling on a result", []string{"project:apollo"}, find(t, nf, "artemis"))
		}},
		{"Errors", func(t *testing.T, g kgmem.KnowledgeGraph) {
			nf := finder(t, g)
			setup(t, g)
			for _, name := range []string{"", " ", "\t\u3000", "\xff"} {
				_, err := nf.FindByName(t.Context(), name)
				requireErr(t, fmt.Sprintf("FindByName(%q)", name), err, kgmem.ErrInvalidArgument)
			}
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			_, err := nf.FindByName(ctx, "apollo")
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("FindByName with a cancelled context: %v, want context.Canceled", err)
			}
		}},
	}
}

// ---------------------------------------------------------------------------
// FindByKeywords

func keywordChecks() []check {
	setup := func(t testing.TB, g kgmem.KnowledgeGraph) {
		t.Helper()
		for _, e := range []kgmem.Entity{
			{ID: "project:apollo", Name: "Project Apollo", Aliases: []string{"阿波罗计划"}, Tags: []string{"space"}},
			{ID: "person:zhangsan", Name: "张三", Aliases: []string{"Zhang San"}},
			{ID: "person:alice", Name: "Alice Smith", Aliases: []string{"Ally"}, Tags: []string{"ml"}},
			{ID: "person:bob", Name: "Bob", Tags: []string{"Go"}},
			{ID: "doc:notes", Name: "Notes", Type: "apollo", Description: "about Apollo and Alice",
				Properties: map[string]string{"apollo": "apollo"}, SourceIDs: []string{"apollo"}},
			{ID: "org:École", Name: "Grande ÉCOLE"},
		} {
			addEntity(t, g, e)
		}
	}
	find := func(keywords []string, want ...string) check {
		return check{fmt.Sprintf("%q", keywords), func(t *testing.T, g kgmem.KnowledgeGraph) {
			setup(t, g)
			got := findKeywords(t, g, keywords...)
			requireStrings(t, fmt.Sprintf("FindByKeywords(%q)", keywords), want, entityIDs(got))
			for _, e := range got {
				requireEntity(t, mustEntity(t, g, e.ID), e)
			}
		}}
	}
	return []check{
		find([]string{"APOLLO"}, "project:apollo"),
		find([]string{"smith"}, "person:alice"),
		find([]string{"ally"}, "person:alice"),
		find([]string{"ML"}, "person:alice"),
		find([]string{"go"}, "person:bob"),
		find([]string{"person:"}, "person:alice", "person:bob", "person:zhangsan"),
		find([]string{"张三"}, "person:zhangsan"),
		find([]string{"阿波罗"}, "project:apollo"),
		find([]string{"zhang san"}, "person:zhangsan"),
		find([]string{"école"}, "org:École"),
		find([]string{"ÉCOLE"}, "org:École"),
		find([]string{"notes", "about"}, "doc:notes"),
		find([]string{"alice", "apollo", "project"}, "project:apollo", "person:alice"),
		find([]string{"b", "space", "bob"}, "person:bob", "project:apollo"),
		find([]string{"", "nothing"}),
		find([]string{""}),
		find([]string{}),
		find(nil),
	}
}

// ---------------------------------------------------------------------------
// Cancellation

func cancelChecks() []check {
	cancelled := func(t testing.TB) context.Context {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		return ctx
	}
	requireCanceled := func(t testing.TB, what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s with a cancelled context: error %v, want context.Canceled", what, err)
		}
	}
	return []check{
		{"Reads", func(t *testing.T, g kgmem.KnowledgeGraph) {
			addFixture(t, g)
			ctx := cancelled(t)
			_, _, err := g.GetEntity(ctx, alice)
			requireCanceled(t, "GetEntity", err)
			_, err = g.GetRelated(ctx, alice, kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both})
			requireCanceled(t, "GetRelated", err)
			_, err = g.GetRelated(ctx, alice, kgmem.TraverseOptions{})
			requireCanceled(t, "GetRelated with Depth 0", err)
			_, err = g.FindByKeywords(ctx, []string{"alice"})
			requireCanceled(t, "FindByKeywords", err)
			_, err = g.FindTags(ctx, "")
			requireCanceled(t, "FindTags", err)
			_, err = g.EntityCountByTag(ctx, "go")
			requireCanceled(t, "EntityCountByTag", err)
		}},
		{"Writes", func(t *testing.T, g kgmem.KnowledgeGraph) {
			before := addFixture(t, g)
			ctx := cancelled(t)
			writes := []struct {
				name  string
				write func() error
			}{
				{"AddEntity/New", func() error { return g.AddEntity(ctx, kgmem.Entity{ID: carol, Tags: []string{"new"}}) }},
				{"AddEntity/Upsert", func() error { return g.AddEntity(ctx, kgmem.Entity{ID: alice, Tags: []string{"new"}}) }},
				{"RemoveEntity", func() error { return g.RemoveEntity(ctx, alice) }},
				{"AddRelation/New", func() error { return g.AddRelation(ctx, rel(apollo, bob, "likes", 1)) }},
				{"AddRelation/Replace", func() error { return g.AddRelation(ctx, rel(alice, apollo, "works_on", 0.125)) }},
				{"RemoveRelation", func() error { return g.RemoveRelation(ctx, alice, apollo, "works_on") }},
				{"SetEntityTags", func() error {
					_, err := g.SetEntityTags(ctx, alice, []string{"new"})
					return err
				}},
			}
			for _, w := range writes {
				requireCanceled(t, w.name, w.write())
				requireSameState(t, w.name+" with a cancelled context", before, fixtureSnapshot(t, g))
			}
		}},
	}
}

// ---------------------------------------------------------------------------
// FindPaths
