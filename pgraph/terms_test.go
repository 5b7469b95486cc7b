package pgraph

import (
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"
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
