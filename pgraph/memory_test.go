package pgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
)

// newTestMemory returns a Memory over a namespace no other test uses,
// cleared at the end of the test.
func newTestMemory(tb testing.TB, pool *pgxpool.Pool, ns string) *Memory {
	tb.Helper()
	m, err := OpenMemory(context.Background(), pool, WithNamespace(ns))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := m.Graph().Clear(context.Background()); err != nil {
			tb.Errorf("clearing namespace %q: %v", ns, err)
		}
		if err := m.Store().Clear(context.Background()); err != nil {
			tb.Errorf("clearing the pages of %q: %v", ns, err)
		}
	})
	return m
}

// Pools random memories are drawn from: people, projects and places in
// English and Chinese, and the relations between them.
var (
	memPeople   = []string{"Alice Smith", "Bob Jones", "Carol", "张三", "李四", "O'Brien"}
	memProjects = []string{"Apollo", "Raft Consensus", "知识图谱", "Gateway API", "Hermes"}
	memPlaces   = []string{"Paris", "北京", "Berlin"}
	memRelTypes = []string{"works_on", "leads", "located_in", "负责", "knows"}
)

// randomIngest returns a page and an extraction from it.
func randomIngest(rng *rand.Rand, i int) (kgmem.KnowledgePage, kgmem.Extraction) {
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	var x kgmem.Extraction
	var text []string
	for range 1 + rng.IntN(4) {
		var e kgmem.ExtractedEntity
		switch rng.IntN(3) {
		case 0:
			e = kgmem.ExtractedEntity{Name: pick(memPeople), Type: "person"}
		case 1:
			e = kgmem.ExtractedEntity{Name: pick(memProjects), Type: "project"}
		default:
			e = kgmem.ExtractedEntity{Name: pick(memPlaces), Type: "place"}
		}
		if rng.IntN(3) == 0 {
			e.Description = "about " + e.Name
		}
		if rng.IntN(4) == 0 {
			e.Tags = []string{pick([]string{"team", "core", "历史"})}
		}
		x.Entities = append(x.Entities, e)
		text = append(text, e.Name)
	}
	for range rng.IntN(4) {
		a, b := x.Entities[rng.IntN(len(x.Entities))], x.Entities[rng.IntN(len(x.Entities))]
		typ := pick(memRelTypes)
		x.Relations = append(x.Relations, kgmem.ExtractedRelation{Source: a.Name, Target: b.Name, Type: typ})
		text = append(text, a.Name, strings.ReplaceAll(typ, "_", " "), b.Name)
	}
	page := kgmem.KnowledgePage{
		ID:      fmt.Sprintf("page-%d", i),
		Title:   pick(memProjects) + " notes",
		Content: strings.Join(text, " ") + " " + randomPageText(rng, 5+rng.IntN(20)),
	}
	return page, x
}

// randomQuestion returns a question about the random memories.
func randomQuestion(rng *rand.Rand) string {
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	switch rng.IntN(5) {
	case 0:
		return "who works on " + pick(memProjects) + "?"
	case 1:
		return "what does " + pick(memPeople) + " lead"
	case 2:
		return pick(memPeople) + " " + pick(memPlaces)
	case 3:
		return "谁负责" + pick(memProjects) + "？"
	}
	return randomPageText(rng, 1+rng.IntN(5))
}

// renderItems renders what a retrieval answered, scores apart.
func renderItems(res kgmem.RetrievalResult) ([]string, []float64) {
	var out []string
	var scores []float64
	for _, it := range res.Items {
		it := it
		scores = append(scores, it.Score)
		it.Score = 0
		explain := it.Explain()
		var page kgmem.KnowledgePage
		var ent kgmem.Entity
		if it.Page != nil {
			page = *it.Page
		}
		if it.Entity != nil {
			ent = *it.Entity
		}
		it.Page, it.Entity = nil, nil
		out = append(out, fmt.Sprintf("%+v page %+v entity %+v: %s", it, page, ent, explain))
	}
	out = append(out, fmt.Sprintf("warnings %q linked %d surfaced %d seeded %d", res.Warnings, res.Stats.Linked, res.Stats.Surfaced, res.Stats.Seeded))
	return out, scores
}

// TestMemoryMatchesInProcess ingests the same random pages and
// extractions into kgmem's in-process memory and into a Memory, and
// requires the same reports, pages and retrievals: the same items, with
// the same explanations and the same scores within float rounding.
func TestMemoryMatchesInProcess(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	for history := range uint64(2) {
		t.Run(fmt.Sprint("history=", history), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(history, 0x3e3))
			ref, err := kgmem.OpenMemory(t.TempDir())
			must(t, err)
			defer ref.Close()
			m := newTestMemory(t, pool, randomNamespace("memory"))
			for i := range 40 {
				page, x := randomIngest(rng, rng.IntN(30))
				want, werr := ref.Ingest(ctx, page, x)
				got, gerr := m.Ingest(ctx, page, x)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("ingest %d: %v, want %v", i, gerr, werr)
				}
				equal(t, want, got)
			}
			if n, err := m.Store().Len(ctx); err != nil || n != ref.Store().Len() {
				t.Fatalf("Len = %d, %v; want %d", n, err, ref.Store().Len())
			}
			items := 0
			for range 60 {
				q := randomQuestion(rng)
				want, werr := ref.Retriever().Retrieve(ctx, q)
				got, gerr := m.Retriever().Retrieve(ctx, q)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("Retrieve(%q): %v, want %v", q, gerr, werr)
				}
				wantItems, wantScores := renderItems(want)
				gotItems, gotScores := renderItems(got)
				if !reflect.DeepEqual(wantItems, gotItems) {
					t.Fatalf("Retrieve(%q):\ngot  %q\nwant %q", q, gotItems, wantItems)
				}
				for i := range wantScores {
					if math.Abs(wantScores[i]-gotScores[i]) > 1e-9 {
						t.Fatalf("Retrieve(%q): item %d scores %.17g, want %.17g", q, i, gotScores[i], wantScores[i])
					}
				}
				items += len(want.Items)
			}
			if items == 0 {
				t.Fatal("no retrieval found anything")
			}
			t.Logf("60 retrievals compared, %d items", items)
		})
	}
}

// TestMemoryIngestIsOneTransaction makes Ingest's transaction fail after
// the page was written and before the graph was, and requires neither to
// be stored; then lets it through and requires both.
func TestMemoryIngestIsOneTransaction(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	m := newTestMemory(t, pool, randomNamespace("memory"))
	page := kgmem.KnowledgePage{ID: "p", Content: "Alice works on Apollo"}
	x := kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "Alice", Type: "person"}, {Name: "Apollo", Type: "project"}},
		Relations: []kgmem.ExtractedRelation{{Source: "Alice", Target: "Apollo", Type: "works_on"}},
	}
	crash := errors.New("crash")
	m.view.beforeBatch = func(context.Context, pgx.Tx) error { return crash }
	if _, err := m.Ingest(ctx, page, x); !errors.Is(err, crash) {
		t.Fatalf("Ingest with a failing transaction: %v", err)
	}
	if _, ok, err := m.Store().Get(ctx, "p"); err != nil || ok {
		t.Fatalf("after the failed Ingest the page is stored (%v, %v)", ok, err)
	}
	if n, err := m.Store().Len(ctx); err != nil || n != 0 {
		t.Fatalf("after the failed Ingest Len = %d, %v", n, err)
	}
	if ents := allEntities(t, m.Graph()); len(ents) != 0 {
		t.Fatalf("after the failed Ingest the graph holds %+v", ents)
	}
	m.view.beforeBatch = nil
	rep, err := m.Ingest(ctx, page, x)
	must(t, err)
	if rep.EntitiesCreated != 2 || rep.RelationsCreated != 1 {
		t.Fatalf("report %+v", rep)
	}
	if _, ok, err := m.Store().Get(ctx, "p"); err != nil || !ok {
		t.Fatalf("the page is not stored (%v, %v)", ok, err)
	}
	cited, err := m.Graph().EntitiesCitedBy(ctx, []string{"p"})
	must(t, err)
	equal(t, map[string][]string{"p": {"person:alice", "project:apollo"}}, cited)

	// An extraction that writes nothing still stores its page; a bad page
	// stores nothing.
	_, err = m.Ingest(ctx, kgmem.KnowledgePage{ID: "q", Content: "nothing"}, kgmem.Extraction{})
	must(t, err)
	if _, ok, err := m.Store().Get(ctx, "q"); err != nil || !ok {
		t.Fatalf("the page of an empty extraction is not stored (%v, %v)", ok, err)
	}
	if _, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: " "}, x); !errors.Is(err, kgmem.ErrInvalidArgument) {
		t.Fatalf("Ingest of a blank page ID: %v", err)
	}
}

// TestMemoryConcurrentWriters ingests from two memories over two pools,
// as two processes would, at once, and requires every page and every
// entity each wrote.
func TestMemoryConcurrentWriters(t *testing.T) {
	needDB(t)
	ctx := t.Context()
	ns := randomNamespace("memory")
	var mems [2]*Memory
	for i := range mems {
		pool, err := pgxpool.New(ctx, testDSN)
		must(t, err)
		t.Cleanup(pool.Close) // after the memory's cleanup
		mems[i] = newTestMemory(t, pool, ns)
	}
	const each = 30
	var wg sync.WaitGroup
	errs := make([]error, len(mems))
	for w, m := range mems {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				name := fmt.Sprintf("writer %d item %d", w, i)
				x := kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: name}, {Name: "Shared"}},
					Relations: []kgmem.ExtractedRelation{{Source: name, Target: "Shared", Type: "knows"}}}
				if _, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("w%d-%d", w, i), Content: name}, x); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	if n, err := mems[0].Store().Len(ctx); err != nil || n != 2*each {
		t.Fatalf("Len = %d, %v; want %d", n, err, 2*each)
	}
	for w := range mems {
		for i := range each {
			id := kgmem.DeriveEntityID("", fmt.Sprintf("writer %d item %d", w, i))
			e, ok, err := mems[1-w].Graph().GetEntity(ctx, id)
			if err != nil || !ok || len(e.SourceIDs) != 1 || e.SourceIDs[0] != fmt.Sprintf("w%d-%d", w, i) {
				t.Fatalf("entity %s: %+v, %v, %v", id, e, ok, err)
			}
		}
	}
	shared, _, err := mems[0].Graph().GetEntity(ctx, kgmem.DeriveEntityID("", "Shared"))
	must(t, err)
	// Each Ingest reads Shared before writing it: the namespace's ingest
	// lock keeps either writer from overwriting the other's citation.
	if len(shared.SourceIDs) != 2*each {
		t.Fatalf("Shared cites %d pages, want %d", len(shared.SourceIDs), 2*each)
	}
}
