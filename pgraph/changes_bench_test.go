package pgraph

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
)

// schemaAt returns a graph in a new PostgreSQL schema migrated to version
// v, dropped when b ends.
func schemaAt(b *testing.B, v int) *Graph {
	b.Helper()
	pool := needDB(b)
	ctx := context.Background()
	schema := fmt.Sprintf("kgmem_bench_v%d_%s", v, randomNamespace("b")[2:])
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		b.Skipf("cannot create a schema: %v", err)
	}
	cfg := pool.Config().Copy()
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		p.Close()
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			b.Error(err)
		}
	})
	g := &Graph{pool: p, ns: "bench", tags: kgmem.TagConstraints{MaxTagsPerEntity: 8},
		clock: time.Now}
	for range v {
		if _, err := g.migrateOnce(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return g
}

// BenchmarkChangeFeedWrites times writes at schema version 5, before the
// change feed, and at version 6, whose triggers stamp every written
// entity and log every removal, side by side in the same run: the ratio
// is the feed's cost to writers.
func BenchmarkChangeFeedWrites(b *testing.B) {
	batch := 1000
	if testing.Short() {
		batch = 100
	}
	graphs := map[int]*Graph{5: schemaAt(b, 5), 6: schemaAt(b, 6)}
	ctx := context.Background()
	each := func(b *testing.B, op func(b *testing.B, g *Graph)) {
		for _, v := range []int{5, 6} {
			b.Run(fmt.Sprintf("schema=%d", v), func(b *testing.B) {
				b.ReportAllocs()
				op(b, graphs[v])
			})
		}
	}
	b.Run("AddEntity", func(b *testing.B) {
		each(b, func(b *testing.B, g *Graph) {
			for i := 0; b.Loop(); i++ {
				e := kgmem.Entity{ID: fmt.Sprint("w", i%1000), Name: fmt.Sprintf("Writer entity %d", i)}
				if err := g.AddEntity(ctx, e); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("SetEntityTags", func(b *testing.B) {
		each(b, func(b *testing.B, g *Graph) {
			if err := g.AddEntity(ctx, kgmem.Entity{ID: "tagged"}); err != nil {
				b.Fatal(err)
			}
			for i := 0; b.Loop(); i++ {
				if _, err := g.SetEntityTags(ctx, "tagged", []string{fmt.Sprint("t", i%2)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("RemoveEntity", func(b *testing.B) {
		each(b, func(b *testing.B, g *Graph) {
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				id := fmt.Sprint("r", i)
				if err := g.AddEntity(ctx, kgmem.Entity{ID: id}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := g.RemoveEntity(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run(fmt.Sprintf("AddBatch/entities=%d", batch), func(b *testing.B) {
		each(b, func(b *testing.B, g *Graph) {
			ents := make([]kgmem.Entity, batch)
			for i := 0; b.Loop(); i++ {
				for j := range ents {
					ents[j] = kgmem.Entity{ID: fmt.Sprint("b", j), Name: fmt.Sprintf("Batch entity %d %d", i, j)}
				}
				if err := g.AddBatch(ctx, ents, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkEntityChanges times one answer of the feed over a namespace of
// n entities: after 10 writes (the common case for linking by meaning,
// polled before each fallback) and as a Reset (since 0), in the same run.
func BenchmarkEntityChanges(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = []int{1_000}
	}
	for _, n := range sizes {
		b.Run("entities="+count(n), func(b *testing.B) {
			g := newTestGraph(b)
			ctx := context.Background()
			ents := make([]kgmem.Entity, n)
			for i := range ents {
				ents[i] = kgmem.Entity{ID: fmt.Sprintf("e%06d", i), Name: fmt.Sprintf("%s %d", words[i%len(words)], i)}
			}
			if err := g.AddBatch(ctx, ents, nil); err != nil {
				b.Fatal(err)
			}
			b.Run("changed=10", func(b *testing.B) {
				b.ReportAllocs()
				ch, err := g.EntityChanges(ctx, 0)
				if err != nil {
					b.Fatal(err)
				}
				since := ch.Version
				for i := 0; b.Loop(); i++ {
					b.StopTimer()
					for j := range 10 {
						if err := g.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprintf("e%06d", (i*10+j)%n), Name: fmt.Sprint("changed ", i)}); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					ch, err := g.EntityChanges(ctx, since)
					if err != nil {
						b.Fatal(err)
					}
					since = ch.Version
				}
			})
			b.Run("reset", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := g.EntityChanges(ctx, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
