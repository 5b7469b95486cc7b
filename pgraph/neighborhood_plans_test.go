package pgraph

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
)

// TestReadsKeepTheSessionsPlanSetting: the reads that set plan_cache_mode
// for themselves (linking, a traversal's transaction, a search) leave the
// caller's connections with the setting they had, and answer as before.
func TestReadsKeepTheSessionsPlanSetting(t *testing.T) {
	base := needDB(t)
	ctx := context.Background()
	cfg := base.Config().Copy()
	cfg.MaxConns = 2
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	m := newTestMemory(t, pool, randomNamespace("plans"))
	page := kgmem.KnowledgePage{ID: "weekly", Title: "weekly", Content: "Ann leads Apollo. Apollo belongs to Infra."}
	if _, err := m.Ingest(ctx, page, kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "Ann", Type: "person"}, {Name: "Apollo", Type: "project"}, {Name: "Infra", Type: "team"}},
		Relations: []kgmem.ExtractedRelation{{Source: "Ann", Target: "Apollo", Type: "leads"}, {Source: "Apollo", Target: "Infra", Type: "part_of"}},
	}); err != nil {
		t.Fatal(err)
	}
	for range 3 { // past the executions after which the server may keep a plan
		res, err := m.Retriever().Retrieve(ctx, "who leads Apollo?")
		if err != nil {
			t.Fatal(err)
		}
		var sawPage, sawPath bool
		for _, it := range res.Items {
			sawPage = sawPage || it.Kind == kgmem.ItemPage && it.Page.ID == "weekly"
			sawPath = sawPath || it.Kind == kgmem.ItemEntity && len(it.Path) > 1
		}
		if !sawPage || !sawPath {
			t.Fatalf("Retrieve: page found %v, a graph path found %v; items %+v", sawPage, sawPath, res.Items)
		}
	}
	// Every connection the pool holds, each on its own.
	conns := make([]*pgxpool.Conn, 0, cfg.MaxConns)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for range cfg.MaxConns {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var mode string
		if err := c.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if mode != "force_custom_plan" {
			t.Errorf("a connection of the caller's pool has plan_cache_mode %q after pgraph's reads, want the caller's force_custom_plan", mode)
		}
	}
}
