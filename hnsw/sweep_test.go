package hnsw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/vectest"
)

// vectorGen returns a generator of unit vectors of d dimensions: uniform
// on the sphere, or around 100 random centres at cosine about 0.7 from
// their own (as in hnsw_test.go).
func vectorGen(r *rand.Rand, d int, uniform bool) func() []float32 {
	if uniform {
		return func() []float32 { return vectest.Unit(r, d) }
	}
	return vectest.Clustered(r, d)
}

// BenchmarkEfSearch is the trade-off curve behind DefaultEfSearch: the
// graph alone (no store) at the default M and EfConstruction over n random
// unit vectors of 384 dimensions, searched for the top 10 at several
// candidate list sizes ef; recall@10 is against the exact top 10 over 200
// queries, p50-ns and p99-ns are per search, and index=exact is the
// brute-force scan (every dot product, then a sort) in the same run. Under
// -short it runs at 2,000 vectors and two list sizes only.
func BenchmarkEfSearch(b *testing.B) {
	const d, queries = 384, 200
	sizes := []int{10_000, 100_000}
	efs := []int{100, 200, 400, 800, 1600}
	if testing.Short() {
		sizes, efs = []int{2_000}, []int{100, DefaultEfSearch}
	}
	for _, n := range sizes {
		for _, uniform := range []bool{false, true} {
			vectors := "clustered"
			if uniform {
				vectors = "uniform"
			}
			r := rand.New(rand.NewPCG(uint64(n), d))
			next := vectorGen(r, d, uniform)
			g := newGraph(d, DefaultM, DefaultEfConstruction, 1)
			for range n {
				g.add(next())
			}
			qs := make([][]float32, queries)
			for i := range qs {
				qs[i] = next()
			}
			exact := func(q []float32) []cand {
				cs := make([]cand, n)
				for i := range cs {
					cs[i] = cand{g.dist(q, int32(i)), int32(i)}
				}
				slices.SortFunc(cs, func(a, b cand) int {
					if closer(a, b) {
						return -1
					}
					return 1
				})
				return cs[:10]
			}
			truth := make([][]cand, queries)
			for i, q := range qs {
				truth[i] = exact(q)
			}
			run := func(name string, search func(q []float32) []cand) {
				b.Run(fmt.Sprintf("vectors=%d/dims=%d/%s/%s", n, d, vectors, name), func(b *testing.B) {
					b.ReportAllocs()
					hit := 0
					for i, q := range qs {
						for _, c := range search(q)[:10] {
							if slices.Contains(truth[i], c) {
								hit++
							}
						}
					}
					lat := make([]time.Duration, 0, 4096)
					for i := 0; b.Loop(); i++ {
						start := time.Now()
						search(qs[i%queries])
						if len(lat) < cap(lat) {
							lat = append(lat, time.Since(start))
						}
					}
					slices.Sort(lat)
					at := func(q float64) float64 {
						return float64(lat[min(len(lat)-1, int(math.Ceil(q*float64(len(lat))))-1)].Nanoseconds())
					}
					b.ReportMetric(at(0.5), "p50-ns")
					b.ReportMetric(at(0.99), "p99-ns")
					b.ReportMetric(float64(hit)/float64(10*queries), "recall@10")
				})
			}
			run("index=exact", exact)
			for _, ef := range efs {
				run(fmt.Sprintf("ef=%d", ef), func(q []float32) []cand { return g.search(q, ef) })
			}
		}
	}
}
