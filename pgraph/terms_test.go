package pgraph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
)

// TestStoreCachedListsMatchInMemory runs the differential tests of Search
// with every posting list kept in memory once read (see termCache), so
// that searches use kept lists, and must notice every write that makes
// one stale: the same pages, order and scores as kgmem's store.
func TestStoreCachedListsMatchInMemory(t *testing.T) {
	needDB(t)
	defer func(n int64) { termCacheMinDF = n }(termCacheMinDF)
	termCacheMinDF = 1
	t.Run("bm25", TestStoreMatchesInMemory)
	t.Run("vectors", TestStoreVectorsMatchInMemory)
}

// TestMigrateBackfillsTermDFs writes index rows at schema version 9, then
// migrates, and requires the term dictionary to count them per namespace
// and term.
func TestMigrateBackfillsTermDFs(t *testing.T) {
	ctx := t.Context()
	p := emptySchemaPool(t, needDB(t), "dfs", 0)
	g, err := New(ctx, p)
	must(t, err)
	for v := range 9 {
		if _, err := g.migrateOnce(ctx); err != nil {
			t.Fatalf("migrating to version %d: %v", v+1, err)
		}
	}
	if _, err := p.Exec(ctx, "INSERT INTO "+pageTermsTable+` (namespace, term, page_id, tf, length) VALUES
	('a', 'x', 'p1', 1, 3), ('a', 'x', 'p2', 2, 4), ('a', 'y', 'p1', 1, 3), ('b', 'x', 'p1', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	must(t, g.Migrate(ctx))
	rows, err := p.Query(ctx, "SELECT namespace || '/' || term, df, written FROM "+termDFsTable+" ORDER BY 1")
	must(t, err)
	type entry struct {
		Key         string
		DF, Written int64
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[entry])
	must(t, err)
	want := []entry{{"a/x", 2, 0}, {"a/y", 1, 0}, {"b/x", 1, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("term dictionary %v, want %v", got, want)
	}
}

// TestStoreConcurrentSearches runs searches of one Store from several
// goroutines at once, with every posting list kept once read, so that
// they share and fill one cache, and requires each answer to be kgmem's.
func TestStoreConcurrentSearches(t *testing.T) {
	ctx := t.Context()
	defer func(n int64) { termCacheMinDF = n }(termCacheMinDF)
	termCacheMinDF = 1
	s := newTestStore(t)
	ref := kgmem.NewInMemoryKnowledgeStore()
	rng := rand.New(rand.NewPCG(11, 12))
	var pages []kgmem.KnowledgePage
	for i := range 200 {
		pages = append(pages, kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", i), Title: randomPageText(rng, 3), Content: randomPageText(rng, 30)})
	}
	must(t, s.PutBatch(ctx, pages))
	must(t, ref.PutBatch(ctx, pages))
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = randomPageText(rng, 1+rng.IntN(4))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queries {
				q := queries[(i+w*17)%len(queries)]
				want, _ := ref.Search(ctx, q, 10)
				got, err := s.Search(ctx, q, 10)
				if err != nil {
					errs <- err
					return
				}
				if len(got) != len(want) {
					errs <- fmt.Errorf("Search(%q): %v, want %v", q, pageIDs(got), pageIDs(want))
					return
				}
				for j := range want {
					if got[j].Page.ID != want[j].Page.ID || math.Abs(got[j].Score-want[j].Score) > 1e-12 {
						errs <- fmt.Errorf("Search(%q): %v, want %v", q, pageIDs(got), pageIDs(want))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
