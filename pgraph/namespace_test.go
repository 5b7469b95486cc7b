package pgraph

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
)

// TestNamespaceIsolation writes the same IDs into two namespaces and checks
// that neither graph sees, changes or links to the other's rows.
func TestNamespaceIsolation(t *testing.T) {
	ctx := t.Context()
	a, b := newTestGraph(t), newTestGraph(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"x", "y", "z"} {
		must(a.AddEntity(ctx, kgmem.Entity{ID: id, Name: "Apollo " + id, Tags: []string{"in-a"}}))
	}
	must(a.AddRelation(ctx, kgmem.Relation{SourceID: "x", TargetID: "y", Type: "t", Weight: 1}))
	must(a.AddRelation(ctx, kgmem.Relation{SourceID: "y", TargetID: "z", Type: "t", Weight: 1}))
	must(b.AddEntity(ctx, kgmem.Entity{ID: "x", Name: "Gemini", Tags: []string{"in-b"}}))

	if e, ok, err := b.GetEntity(ctx, "y"); ok || err != nil {
		t.Fatalf("b sees a's entity: %+v, %v", e, err)
	}
	if e, _, _ := b.GetEntity(ctx, "x"); e.Name != "Gemini" {
		t.Fatalf("b's x is %+v", e)
	}
	if res, err := b.GetRelated(ctx, "x", kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both}); err != nil || len(res) != 0 {
		t.Fatalf("b's x reaches %v, %v", res, err)
	}
	if _, err := b.FindPaths(ctx, "x", "y", kgmem.PathOptions{MaxHops: 3}); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("FindPaths in b to a's entity: %v", err)
	}
	if es, err := b.FindByKeywords(ctx, []string{"apollo"}); err != nil || len(es) != 0 {
		t.Fatalf("b finds a's entities by keyword: %v, %v", es, err)
	}
	if ms, err := b.LinkEntities(ctx, "apollo y and gemini"); err != nil || len(ms) != 1 || ms[0].Entity.ID != "x" || ms[0].Entity.Name != "Gemini" {
		t.Fatalf("b links %+v, %v", ms, err)
	}
	if tags, err := b.FindTags(ctx, ""); err != nil || !reflect.DeepEqual(tags, []string{"in-b"}) {
		t.Fatalf("b's tags are %q, %v", tags, err)
	}
	if n, err := b.EntityCountByTag(ctx, "in-a"); n != 0 || err != nil {
		t.Fatalf("b counts %d entities tagged in-a, %v", n, err)
	}
	if err := b.AddRelation(ctx, kgmem.Relation{SourceID: "x", TargetID: "y", Type: "t", Weight: 1}); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("b relates to a's entity: %v", err)
	}
	if err := b.RemoveRelation(ctx, "x", "y", "t"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("b removes a's relation: %v", err)
	}
	if _, err := b.SetEntityTags(ctx, "y", []string{"hijack"}); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("b tags a's entity: %v", err)
	}

	// Removing b's x leaves a's x and its relations.
	must(b.RemoveEntity(ctx, "x"))
	res, err := a.GetRelated(ctx, "x", kgmem.TraverseOptions{Depth: 2})
	if err != nil || len(res) != 2 {
		t.Fatalf("a's x after b removed its own x: %v, %v", res, err)
	}
	// Clearing b leaves a whole.
	must(b.AddEntity(ctx, kgmem.Entity{ID: "y"}))
	must(b.Clear(ctx))
	if n, err := a.EntityCountByTag(ctx, "in-a"); n != 3 || err != nil {
		t.Fatalf("a has %d entities tagged in-a after b was cleared, %v", n, err)
	}
}

// TestNewOptions checks New's validation and defaults.
func TestNewOptions(t *testing.T) {
	ctx := t.Context()
	if _, err := New(ctx, nil); !errors.Is(err, kgmem.ErrInvalidArgument) {
		t.Fatalf("New(nil pool): %v", err)
	}
	pool := needDB(t)
	for _, ns := range []string{"", "bad\xff", "nul\x00"} {
		if _, err := New(ctx, pool, WithNamespace(ns)); !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Errorf("New(WithNamespace(%q)): %v", ns, err)
		}
	}
	g, err := New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if g.Namespace() != DefaultNamespace || g.TagConstraints().MaxTagsPerEntity != 8 || g.pathBudget != 0 {
		t.Fatalf("defaults: namespace %q, %+v, budget %d (want 0: kgmem's default)", g.Namespace(), g.TagConstraints(), g.pathBudget)
	}
	g, err = New(ctx, pool, WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 3}), WithPathBudget(10))
	if err != nil || g.TagConstraints().MaxTagsPerEntity != 3 || g.pathBudget != 10 {
		t.Fatalf("options: %+v, %d, %v", g.TagConstraints(), g.pathBudget, err)
	}
}

// TestMigrate migrates empty schemas from several connections at once, as
// processes starting together would, and checks each migration ran once.
func TestMigrate(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	p := emptySchemaPool(t, pool, "t", 8)

	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := New(ctx, p, WithNamespace(fmt.Sprint("m", i)))
			if err == nil {
				err = g.Migrate(ctx)
			}
			if err == nil {
				err = g.Migrate(ctx) // again: nothing to do
			}
			if err == nil {
				err = g.AddEntity(ctx, kgmem.Entity{ID: "e"})
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("migrator %d: %v", i, err)
		}
	}
	var versions []int
	rows, err := p.Query(ctx, "SELECT version FROM "+versionTable+" ORDER BY version")
	if err == nil {
		versions, err = pgx.CollectRows(rows, pgx.RowTo[int])
	}
	want := make([]int, SchemaVersion)
	for i := range want {
		want[i] = i + 1
	}
	if err != nil || !reflect.DeepEqual(versions, want) {
		t.Fatalf("schema versions recorded: %v, %v", versions, err)
	}

	// A database migrated by a newer version is refused.
	if _, err := p.Exec(ctx, "INSERT INTO "+versionTable+" (version) VALUES ($1)", SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, p); err == nil {
		t.Fatal("New accepted a schema newer than it knows")
	}
	g := &Graph{pool: p, ns: "x"}
	if err := g.Migrate(ctx); err == nil {
		t.Fatal("Migrate accepted a schema newer than it knows")
	}
}

// TestCancelReachesServer blocks an AddEntity behind a row lock and checks
// that its context's deadline ends the statement on the server, not just
// the wait in the client.
func TestCancelReachesServer(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "locked"}); err != nil {
		t.Fatal(err)
	}
	tx, err := g.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "SELECT 1 FROM "+entitiesTable+" WHERE namespace = $1 AND id = 'locked' FOR UPDATE", g.ns); err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	err = g.AddEntity(short, kgmem.Entity{ID: "locked", Name: "changed"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AddEntity behind a lock: error %v, want one wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("AddEntity returned %v after its deadline", d)
	}
	// The server no longer runs the statement.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var waiting int
		if err := g.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE state = 'active' AND query LIKE 'INSERT INTO kgmem_entities%' AND pid <> pg_backend_pid()`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d upserts still run on the server after their context ended", waiting)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if e, _, err := g.GetEntity(ctx, "locked"); err != nil || e.Name != "" {
		t.Fatalf("the cancelled upsert changed the entity: %+v, %v", e, err)
	}
}
