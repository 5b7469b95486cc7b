package kgmem

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randomEmbedder gives every text a pseudo-random unit vector seeded by
// the text's hash: the vectors of a benchmark, spread over the sphere as
// an index's worst case is. It costs one random vector per text.
type randomEmbedder struct{ dims int }

func (r randomEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "random", Dimensions: r.dims}
}

func (r randomEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		rng := rand.New(rand.NewPCG(h.Sum64(), 7))
		v := make([]float32, r.dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		out[i] = v
	}
	return out, nil
}

// constEmbedder returns one fixed vector for every text: an embedder that
// costs nothing, so that a benchmark of Put measures the store alone.
type constEmbedder struct{ v []float32 }

func (c constEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "const", Dimensions: len(c.v)}
}

func (c constEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = c.v
	}
	return out, nil
}

// vectorBenchSizes are the store sizes of the vector benchmarks; -short
// keeps only a small one.
func vectorBenchSizes() []int {
	if testing.Short() {
		return []int{1000}
	}
	return []int{10_000, 100_000}
}

// benchPages returns n pages of a few words each, among them "common"
// (every 10th page) and "rare" (every 1000th).
func benchPages(n int) []KnowledgePage {
	pages := make([]KnowledgePage, n)
	for i := range pages {
		c := fmt.Sprintf("page %d about topic%d and subject%d", i, i%97, i%1013)
		if i%10 == 0 {
			c += " common"
		}
		if i%1000 == 0 {
			c += " rare"
		}
		pages[i] = KnowledgePage{ID: fmt.Sprintf("p%06d", i), Content: c}
	}
	return pages
}

// reportLatency reports the median and 99th percentile of the durations.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(q float64) float64 {
		return float64(d[min(len(d)-1, int(math.Ceil(q*float64(len(d))))-1)].Nanoseconds())
	}
	b.ReportMetric(at(0.5), "p50-ns")
	b.ReportMetric(at(0.99), "p99-ns")
}

// BenchmarkVectorSearch times Search over n pages of 384 dimensions with
// the exact default index, against the same store without an embedder
// (BM25 alone) as the baseline; queries are "common" (10% of pages match)
// and "rare" plus a word no page has. p50-ns and p99-ns are over the run's
// searches.
func BenchmarkVectorSearch(b *testing.B) {
	ctx := context.Background()
	const dims = 384
	for _, n := range vectorBenchSizes() {
		pages := benchPages(n)
		stores := map[string]*InMemoryKnowledgeStore{
			"bm25":  NewInMemoryKnowledgeStore(),
			"exact": NewInMemoryKnowledgeStore(WithEmbedder(randomEmbedder{dims})),
		}
		for _, s := range stores {
			if err := s.PutBatch(ctx, pages); err != nil {
				b.Fatal(err)
			}
		}
		for _, name := range []string{"bm25", "exact"} {
			for _, q := range []string{"common", "rare unknownword"} {
				b.Run(fmt.Sprintf("pages=%d/dims=%d/index=%s/query=%s", n, dims, name, q), func(b *testing.B) {
					s := stores[name]
					b.ReportAllocs()
					lat := make([]time.Duration, 0, 1024)
					for i := 0; b.Loop(); i++ {
						start := time.Now()
						if _, err := s.Search(ctx, q, 10); err != nil {
							b.Fatal(err)
						}
						if len(lat) < cap(lat) {
							lat = append(lat, time.Since(start))
						}
					}
					reportLatency(b, lat)
				})
			}
		}
	}
}

// BenchmarkPutVectors times Put of new pages with an embedder that costs
// nothing (the store's own overhead for a 384-dimension vector: checking,
// normalising, copying, indexing) against Put without an embedder, and
// PutBatch of 64 pages with it.
func BenchmarkPutVectors(b *testing.B) {
	ctx := context.Background()
	v := make([]float32, 384)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	pages := benchPages(10_000)
	for _, name := range []string{"none", "zero-cost"} {
		b.Run("embedder="+name+"/put", func(b *testing.B) {
			b.ReportAllocs()
			var s *InMemoryKnowledgeStore
			for i := 0; b.Loop(); i++ {
				if i%len(pages) == 0 {
					b.StopTimer()
					s = NewInMemoryKnowledgeStore()
					if name != "none" {
						s = NewInMemoryKnowledgeStore(WithEmbedder(constEmbedder{v}))
					}
					b.StartTimer()
				}
				if err := s.Put(ctx, pages[i%len(pages)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("embedder=zero-cost/putbatch64", func(b *testing.B) {
		b.ReportAllocs()
		var s *InMemoryKnowledgeStore
		for i := 0; b.Loop(); i++ {
			off := (i * 64) % len(pages)
			if off == 0 {
				b.StopTimer()
				s = NewInMemoryKnowledgeStore(WithEmbedder(constEmbedder{v}))
				b.StartTimer()
			}
			if err := s.PutBatch(ctx, pages[off:min(off+64, len(pages))]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(64, "pages/op")
	})
}
