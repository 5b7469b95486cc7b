package pgraph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// schemaClock is the clock both memories of the schema tests run on, so
// that a value Ingest starts "now" starts at the same instant on both.
func schemaClock() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }

// openSchemaMemory opens the Memory of namespace ns with opts (and the
// fixed clock), clearing the namespace and its schema when the test ends.
func openSchemaMemory(t *testing.T, ns string, opts ...Option) (*Memory, error) {
	t.Helper()
	opts = append([]Option{WithNamespace(ns), WithClock(schemaClock)}, opts...)
	m, err := OpenMemory(t.Context(), needDB(t), opts...)
	if err == nil {
		t.Cleanup(func() {
			ctx := context.Background()
			_ = m.Graph().Clear(ctx)
			_ = m.Store().Clear(ctx)
			_ = m.SetSchema(ctx, kgmem.Schema{})
		})
	}
	return m, err
}

func mustSchema(t *testing.T, m *Memory) kgmem.Schema {
	t.Helper()
	s, err := m.Schema(t.Context())
	must(t, err)
	return s
}

var livesSchema = kgmem.Schema{
	SingleValued: []string{"works_at", "lives_in", "lives_in"},
	Vocabulary:   kgmem.Vocabulary{Relations: map[string][]string{"lives_in": {"home", "住"}}, Types: map[string][]string{"place": {"city"}, "person": nil}},
}

// TestMemorySchemaLivesWithTheNamespace declares a schema at OpenMemory
// and requires it normalized, kept across reopens without options and in
// another process's memory of the namespace, changeable by SetSchema and
// cleared by the empty schema; an invalid one changes nothing.
func TestMemorySchemaLivesWithTheNamespace(t *testing.T) {
	ns := randomNamespace("schema")
	want, err := livesSchema.Normalize()
	must(t, err)
	if !reflect.DeepEqual(want.SingleValued, []string{"lives_in", "works_at"}) || len(want.Vocabulary.Types) != 1 {
		t.Fatalf("normalized schema %+v", want)
	}
	m, err := openSchemaMemory(t, ns, WithSchema(livesSchema))
	must(t, err)
	equal(t, want, mustSchema(t, m))
	again, err := openSchemaMemory(t, ns)
	must(t, err)
	equal(t, want, mustSchema(t, again))

	// SetSchema on one memory reaches the other's Schema.
	next := kgmem.Schema{SingleValued: []string{"职位"}}
	must(t, m.SetSchema(t.Context(), next))
	equal(t, next, mustSchema(t, m))
	equal(t, next, mustSchema(t, again))

	for _, bad := range []kgmem.Schema{
		{SingleValued: []string{"  "}},
		{SingleValued: []string{"lives_in", ""}},
		{SingleValued: []string{"a\xffb"}},
		{Vocabulary: kgmem.Vocabulary{Relations: map[string][]string{"lives_in": {"bad\xff"}}}},
		{SingleValued: []string{"nul\x00type"}},
	} {
		if err := m.SetSchema(t.Context(), bad); !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Errorf("SetSchema(%+v) = %v, want ErrInvalidArgument", bad, err)
		}
		if _, err := openSchemaMemory(t, ns, WithSchema(bad)); !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Errorf("OpenMemory(WithSchema(%+v)) = %v, want ErrInvalidArgument", bad, err)
		}
	}
	if _, err := openSchemaMemory(t, ns, WithSchema(next), WithSchema(next)); !errors.Is(err, kgmem.ErrInvalidArgument) {
		t.Errorf("OpenMemory with WithSchema twice = %v, want ErrInvalidArgument", err)
	}
	equal(t, next, mustSchema(t, again))

	must(t, m.SetSchema(t.Context(), kgmem.Schema{}))
	equal(t, kgmem.Schema{}, mustSchema(t, again))
	var rows int
	must(t, needDB(t).QueryRow(t.Context(), "SELECT count(*) FROM "+memSchemaTable+" WHERE namespace = $1", ns).Scan(&rows))
	equal(t, 0, rows)
}

// TestMemorySchemaReopenAsInProcess opens a memory with one schema and
// reopens it with a conflicting WithSchema, and without options, on both
// kgmem.OpenMemory and OpenMemory, and requires the same schema on both
// after each step: the declaration at open replaces the stored one.
func TestMemorySchemaReopenAsInProcess(t *testing.T) {
	ns := randomNamespace("schema")
	dir := t.TempDir()
	other := kgmem.Schema{SingleValued: []string{"works_at"}, Vocabulary: kgmem.Vocabulary{InverseRelations: map[string][]string{"parent_of": {"child"}}}}
	for i, opts := range [][]kgmem.Schema{{livesSchema}, {other}, nil, {{}}, nil} {
		var refOpts []kgmem.DurableOption
		var pgOpts []Option
		for _, s := range opts {
			refOpts = append(refOpts, kgmem.WithSchema(s))
			pgOpts = append(pgOpts, WithSchema(s))
		}
		ref, err := kgmem.OpenMemory(dir, refOpts...)
		must(t, err)
		want := ref.Schema()
		must(t, ref.Close())
		m, err := openSchemaMemory(t, ns, pgOpts...)
		must(t, err)
		if got := mustSchema(t, m); !reflect.DeepEqual(got, want) {
			t.Fatalf("open %d (%+v): schema %+v, in process %+v", i, opts, got, want)
		}
	}
}

// TestMemorySupersessionMatchesInProcess ingests the same random moves
// and jobs, with and without valid times and in random order, into kgmem's
// in-process memory and into a Memory with the same schema, and requires
// the same reports, the same relations of every person over all time and
// the same retrievals; a reopen without options supersedes as before.
func TestMemorySupersessionMatchesInProcess(t *testing.T) {
	ctx := t.Context()
	for history := range uint64(3) {
		t.Run(fmt.Sprint("history=", history), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(history, 0x5c4))
			dir := t.TempDir()
			ns := randomNamespace("supersede")
			ref, err := kgmem.OpenMemory(dir, kgmem.WithSchema(livesSchema), kgmem.WithClock(schemaClock))
			must(t, err)
			m, err := openSchemaMemory(t, ns, WithSchema(livesSchema))
			must(t, err)
			people := []string{"Maria", "Bob", "李雷"}
			places := []string{"Berlin", "Lisbon", "Paris", "北京"}
			jobs := []string{"Acme", "Globex", "Initech"}
			ingest := func(i int) {
				var x kgmem.Extraction
				for range 1 + rng.IntN(3) {
					p := people[rng.IntN(len(people))]
					typ, to, kind := "lives_in", places[rng.IntN(len(places))], "place"
					if rng.IntN(2) == 0 {
						typ, to, kind = "works_at", jobs[rng.IntN(len(jobs))], "company"
					}
					r := kgmem.ExtractedRelation{Source: p, Target: to, Type: typ}
					switch rng.IntN(3) {
					case 0:
						r.ValidFrom = time.Date(2015+rng.IntN(10), time.Month(1+rng.IntN(12)), 1, 0, 0, 0, 0, time.UTC)
					case 1:
						r.ValidFrom = time.Date(2015+rng.IntN(5), 1, 1, 0, 0, 0, 0, time.UTC)
						r.ValidTo = r.ValidFrom.AddDate(1+rng.IntN(3), 0, 0)
					}
					x.Entities = append(x.Entities, kgmem.ExtractedEntity{Name: p, Type: "person"}, kgmem.ExtractedEntity{Name: to, Type: kind})
					x.Relations = append(x.Relations, r)
				}
				page := kgmem.KnowledgePage{ID: fmt.Sprintf("page-%d", i), Title: "notes", Content: fmt.Sprint(x.Relations)}
				want, werr := ref.Ingest(ctx, page, x)
				got, gerr := m.Ingest(ctx, page, x)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("ingest %d: %v, want %v", i, gerr, werr)
				}
				equal(t, want, got)
			}
			for i := range 20 {
				ingest(i)
			}
			// Reopened without options, both keep superseding.
			must(t, ref.Close())
			ref, err = kgmem.OpenMemory(dir, kgmem.WithClock(schemaClock))
			must(t, err)
			defer ref.Close()
			m, err = openSchemaMemory(t, ns)
			must(t, err)
			for i := 20; i < 35; i++ {
				ingest(i)
			}
			ended := 0
			for _, p := range people {
				id := "person:" + p
				want, werr := ref.Graph().GetRelated(ctx, kgmem.DeriveEntityID("person", p), kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Outgoing, AsOf: kgmem.AsOf{AllTime: true}})
				got, gerr := m.Graph().GetRelated(ctx, kgmem.DeriveEntityID("person", p), kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Outgoing, AsOf: kgmem.AsOf{AllTime: true}})
				if werr != nil || gerr != nil {
					t.Fatalf("GetRelated(%s): %v; in process %v", id, gerr, werr)
				}
				equal(t, want, got)
				for _, s := range want {
					if slices.ContainsFunc(s.Relations, func(r kgmem.Relation) bool { return !r.ValidTo.IsZero() }) {
						ended++
					}
				}
			}
			if ended == 0 {
				t.Fatal("no value was superseded")
			}
			for _, q := range []string{"Where does Maria live?", "Where does Bob work?", "李雷住在哪里？", "What is Maria's home?", "Which city did Bob live in in 2018?"} {
				want, werr := ref.Retriever().Retrieve(ctx, q)
				got, gerr := m.Retriever().Retrieve(ctx, q)
				if werr != nil || gerr != nil {
					t.Fatalf("Retrieve(%q): %v; in process %v", q, gerr, werr)
				}
				if diff := diffResults(got, want); diff != "" {
					t.Fatalf("Retrieve(%q): %s", q, diff)
				}
			}
		})
	}
}

// TestMemoriesRemoveDeletesTheSchema requires Memories.Remove to delete a
// scope's schema with its rows, so that a scope made again under the same
// name starts with the empty schema.
func TestMemoriesRemoveDeletesTheSchema(t *testing.T) {
	ctx := t.Context()
	ms := newTestMemories(t)
	m, err := ms.Memory(ctx, "alice")
	must(t, err)
	must(t, m.SetSchema(ctx, livesSchema))
	if _, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: "p", Content: "Maria lives in Berlin"}, kgmem.Extraction{}); err != nil {
		t.Fatal(err)
	}
	must(t, ms.Remove(ctx, "alice"))
	m, err = ms.Memory(ctx, "alice")
	must(t, err)
	equal(t, kgmem.Schema{}, mustSchema(t, m))
}
