package kgmem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRetrievePipeline times Hybrid Retrieve on BenchmarkRetrieve's
// power-law memory with each stage of the pipeline after fusion on and
// off, in the same run, so that their costs read as ratios to seed=off:
// content-seeded expansion (off, when-unlinked, always) over queries that
// name entities and over queries of plain words that name none, MMR, a
// reranker that costs nothing, and linking by meaning with a word-hash
// embedder (its first call builds the entity vectors, outside the timer).
func BenchmarkRetrievePipeline(b *testing.B) {
	entities, relations, pages := 40_000, 130_000, 5_000
	if testing.Short() {
		entities, relations, pages = 4_000, 13_000, 500
	}
	f := newRetrieveFixture(b, entities, relations, pages)
	s, g := f.r.stores[0].s, f.r.graphs[0].g
	mg := g.(*InMemoryGraph)
	// Queries of words from the pages that name no entity.
	rng := rand.New(rand.NewPCG(4, 4))
	var plain []string
	for len(plain) < 200 {
		res, err := s.Search(context.Background(), fmt.Sprintf("page %d", rng.IntN(pages)), 1)
		if err != nil {
			b.Fatal(err)
		}
		_ = res
		p, ok, _ := s.(*InMemoryKnowledgeStore).Get(context.Background(), fmt.Sprintf("page-%05d", rng.IntN(pages)))
		if !ok {
			continue
		}
		words := Tokenize(p.Title)
		if len(words) < 3 {
			continue
		}
		q := words[0] + " " + words[1] + " " + words[2]
		if ms, _ := mg.LinkEntities(context.Background(), q); len(ms) > 0 {
			continue
		}
		plain = append(plain, q)
	}
	name := fmt.Sprintf("entities=%s/relations=%s/pages=%s", shortCount(entities), shortCount(relations), shortCount(pages))
	with := func(cfg RetrieverConfig, opts ...RetrieverOption) *MemoryRetriever {
		return NewMemoryRetriever(s, cfg, append([]RetrieverOption{WithKnowledgeGraph(g)}, opts...)...)
	}
	for _, c := range []struct {
		name    string
		r       *MemoryRetriever
		queries []string
	}{
		{"named/seed=off", with(RetrieverConfig{Seed: SeedOff}), f.queries},
		{"named/seed=when-unlinked", with(RetrieverConfig{Seed: SeedWhenUnlinked}), f.queries},
		{"named/seed=always", with(RetrieverConfig{Seed: SeedAlways}), f.queries},
		{"named/seed=off/mmr=0.7", with(RetrieverConfig{Seed: SeedOff, MMRLambda: 0.7}), f.queries},
		{"named/seed=off/rerank", with(RetrieverConfig{Seed: SeedOff}, WithReranker(nopReranker{}, 0)), f.queries},
		{"plain/seed=off", with(RetrieverConfig{Seed: SeedOff}), plain},
		{"plain/seed=when-unlinked", with(RetrieverConfig{Seed: SeedWhenUnlinked}), plain},
		{"plain/seed=off/meaning", with(RetrieverConfig{Seed: SeedOff}, WithLinkEmbedder(&wordEmbedder{dims: 64}, 0.3)), plain},
	} {
		if _, err := c.r.Retrieve(context.Background(), c.queries[0]); err != nil { // warm: builds entity vectors
			b.Fatal(err)
		}
		b.Run(name+"/"+c.name, func(b *testing.B) { benchRetrieve(b, c.r, c.queries) })
	}
}

// nopReranker scores items by their fused score.
type nopReranker struct{}

func (nopReranker) Rerank(_ context.Context, _ string, items []RetrievalItem) ([]float64, error) {
	out := make([]float64, len(items))
	for i, it := range items {
		out[i] = it.Score
	}
	return out, nil
}
