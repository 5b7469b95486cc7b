package pgraph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// Benchmarks over generated graphs in PostgreSQL, next to the same graph in
// kgmem's in-memory graph. Each graph is bulk-loaded (AddBatch: COPY into
// a temporary table, then one upsert) once per process into its own
// namespace, which is deleted when the process ends. -short uses a small
// graph so that a one-iteration pass stays quick.

// benchSpec is a generated graph: entities joined by relations drawn
// uniformly at random, three relation types, weights from a short list.
type benchSpec struct{ entities, relations int }

func (s benchSpec) String() string {
	return fmt.Sprintf("entities=%s/relations=%s", count(s.entities), count(s.relations))
}

func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func benchSpecs() []benchSpec {
	if testing.Short() {
		return []benchSpec{{1_000, 5_000}}
	}
	return []benchSpec{{10_000, 50_000}, {100_000, 500_000}}
}

// benchFixture is one generated graph in both stores.
type benchFixture struct {
	g      *Graph
	mem    *kgmem.InMemoryGraph
	starts []string    // entities with at least one relation
	pairs  [][2]string // FindPaths endpoints joined within 4 hops, either way
	load   time.Duration
}

var (
	benchMu       sync.Mutex
	benchFixtures = map[benchSpec]*benchFixture{}
)

// clearBenchFixtures deletes the benchmark namespaces; TestMain calls it.
func clearBenchFixtures() {
	benchMu.Lock()
	defer benchMu.Unlock()
	for _, f := range benchFixtures {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		_ = f.g.Clear(ctx)
		cancel()
	}
}

func generate(spec benchSpec) ([]kgmem.Entity, []kgmem.Relation) {
	rng := rand.New(rand.NewPCG(uint64(spec.entities), uint64(spec.relations)))
	es := make([]kgmem.Entity, spec.entities)
	for i := range es {
		es[i] = kgmem.Entity{
			ID:   fmt.Sprintf("e%06d", i),
			Name: fmt.Sprintf("%s %s %d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i),
			Type: "thing",
		}
	}
	rs := make([]kgmem.Relation, 0, spec.relations)
	seen := make(map[kgmem.RelationKey]bool, spec.relations)
	for len(rs) < spec.relations {
		r := kgmem.Relation{
			SourceID: es[rng.IntN(len(es))].ID, TargetID: es[rng.IntN(len(es))].ID,
			Type:   []string{"knows", "works_on", "cites"}[rng.IntN(3)],
			Weight: []float64{0.3, 0.5, 0.7, 0.9, 1}[rng.IntN(5)],
		}
		if r.SourceID == r.TargetID || seen[r.Key()] {
			continue
		}
		seen[r.Key()] = true
		rs = append(rs, r)
	}
	return es, rs
}

func fixture(b *testing.B, spec benchSpec) *benchFixture {
	b.Helper()
	pool := needDB(b)
	benchMu.Lock()
	defer benchMu.Unlock()
	if f, ok := benchFixtures[spec]; ok {
		return f
	}
	ctx := context.Background()
	es, rs := generate(spec)
	g, err := New(ctx, pool, WithNamespace(randomNamespace("bench")))
	if err != nil {
		b.Fatal(err)
	}
	f := &benchFixture{g: g, mem: kgmem.NewInMemoryGraph()}
	benchFixtures[spec] = f // cleared by TestMain even if loading fails
	began := time.Now()
	const chunk = 50_000
	for i := 0; i < len(es); i += chunk {
		if err := g.AddBatch(ctx, es[i:min(i+chunk, len(es))], nil); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < len(rs); i += chunk {
		if err := g.AddBatch(ctx, nil, rs[i:min(i+chunk, len(rs))]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, "ANALYZE "+entitiesTable+"; ANALYZE "+relationsTable); err != nil {
		b.Fatal(err)
	}
	f.load = time.Since(began)
	if err := f.mem.AddBatch(ctx, es, rs); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for len(f.starts) < 64 {
		id := es[rng.IntN(len(es))].ID
		if res, _ := f.mem.GetRelated(ctx, id, kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both, Limit: 1}); len(res) > 0 {
			f.starts = append(f.starts, id)
		}
	}
	for len(f.pairs) < 16 {
		src, dst := es[rng.IntN(len(es))].ID, es[rng.IntN(len(es))].ID
		if res, err := f.mem.FindPaths(ctx, src, dst, kgmem.PathOptions{MaxHops: 4, Direction: kgmem.Both}); err == nil && len(res.Paths) > 0 && src != dst {
			f.pairs = append(f.pairs, [2]string{src, dst})
		}
	}
	b.Logf("%v: loaded into PostgreSQL in %v (%.0f rows/s)", spec, f.load.Round(time.Millisecond),
		float64(len(es)+len(rs))/f.load.Seconds())
	return f
}

// BenchmarkGetRelated times GetRelated from random starts: the per-hop
// traversal over PostgreSQL (impl=pgraph), the same answer from one
// recursive statement (impl=pgraph-cte), and the in-memory graph.
func BenchmarkGetRelated(b *testing.B) {
	ctx := context.Background()
	for _, spec := range benchSpecs() {
		b.Run(spec.String(), func(b *testing.B) {
			f := fixture(b, spec)
			for _, depth := range []int{1, 2, 3} {
				for _, dir := range []kgmem.Direction{kgmem.Outgoing, kgmem.Both} {
					opts := kgmem.TraverseOptions{Depth: depth, Direction: dir}
					// All three must agree before they are timed.
					want, _ := f.mem.GetRelated(ctx, f.starts[0], opts)
					got, err := f.g.GetRelated(ctx, f.starts[0], opts)
					if err != nil || !reflect.DeepEqual(got, want) {
						b.Fatalf("GetRelated(%q, %+v) differs from the in-memory graph: %v", f.starts[0], opts, err)
					}
					if got, err := relatedCTE(ctx, f.g, f.starts[0], opts); err != nil || !reflect.DeepEqual(got, want) {
						b.Fatalf("the recursive statement differs from the in-memory graph: %v", err)
					}
					impls := []struct {
						name string
						run  func(start string) ([]kgmem.ScoredEntity, error)
					}{
						{"pgraph", func(s string) ([]kgmem.ScoredEntity, error) { return f.g.GetRelated(ctx, s, opts) }},
						{"pgraph-cte", func(s string) ([]kgmem.ScoredEntity, error) { return relatedCTE(ctx, f.g, s, opts) }},
						{"inmemory", func(s string) ([]kgmem.ScoredEntity, error) { return f.mem.GetRelated(ctx, s, opts) }},
					}
					for _, impl := range impls {
						b.Run(fmt.Sprintf("depth=%d/dir=%v/impl=%s", depth, dir, impl.name), func(b *testing.B) {
							b.ReportAllocs()
							reached := 0
							for i := 0; b.Loop(); i++ {
								res, err := impl.run(f.starts[i%len(f.starts)])
								if err != nil {
									b.Fatal(err)
								}
								reached += len(res)
							}
							b.ReportMetric(float64(reached)/float64(b.N), "entities/op")
						})
					}
				}
			}
		})
	}
}

// BenchmarkFindPaths times FindPaths between entities joined within four
// hops, walking relations either way.
func BenchmarkFindPaths(b *testing.B) {
	ctx := context.Background()
	for _, spec := range benchSpecs() {
		b.Run(spec.String(), func(b *testing.B) {
			f := fixture(b, spec)
			for _, hops := range []int{4, 6} {
				opts := kgmem.PathOptions{MaxHops: hops, Direction: kgmem.Both}
				want, _ := f.mem.FindPaths(ctx, f.pairs[0][0], f.pairs[0][1], opts)
				got, err := f.g.FindPaths(ctx, f.pairs[0][0], f.pairs[0][1], opts)
				if err != nil || !reflect.DeepEqual(got, want) {
					b.Fatalf("FindPaths(%q, %+v) differs from the in-memory graph: %v", f.pairs[0], opts, err)
				}
				for _, impl := range []struct {
					name string
					g    kgmem.KnowledgeGraph
				}{{"pgraph", f.g}, {"inmemory", f.mem}} {
					b.Run(fmt.Sprintf("hops=%d/dir=both/impl=%s", hops, impl.name), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; b.Loop(); i++ {
							p := f.pairs[i%len(f.pairs)]
							if _, err := impl.g.FindPaths(ctx, p[0], p[1], opts); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		})
	}
}

// BenchmarkSearch times FindByKeywords with a selective keyword and
// LinkEntities on a short question.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	for _, spec := range benchSpecs() {
		b.Run(spec.String(), func(b *testing.B) {
			f := fixture(b, spec)
			name := fmt.Sprintf("%d", spec.entities/2+7) // the number in one entity's name
			text := "who works on " + words[3] + " " + words[7] + " and " + name + "?"
			for _, impl := range []struct {
				name string
				g    interface {
					kgmem.KnowledgeGraph
					kgmem.EntityLinker
				}
			}{{"pgraph", f.g}, {"inmemory", f.mem}} {
				b.Run("FindByKeywords/impl="+impl.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := impl.g.FindByKeywords(ctx, []string{name}); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run("LinkEntities/impl="+impl.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := impl.g.LinkEntities(ctx, text); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkWrites times single upserts, each its own statement and
// transaction.
func BenchmarkWrites(b *testing.B) {
	g := newTestGraph(b)
	ctx := context.Background()
	b.Run("AddEntity", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			e := kgmem.Entity{ID: fmt.Sprint("w", i%1000), Name: fmt.Sprintf("Writer entity %d", i), Tags: []string{"bench"}}
			if err := g.AddEntity(ctx, e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AddRelation", func(b *testing.B) {
		for i := range 1000 {
			if err := g.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprint("w", i)}); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; b.Loop(); i++ {
			r := kgmem.Relation{SourceID: fmt.Sprint("w", i%1000), TargetID: fmt.Sprint("w", (i*7+1)%1000), Type: "t", Weight: 0.5}
			if err := g.AddRelation(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
