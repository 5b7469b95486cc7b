package kgmem

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// SeedMode says when Hybrid retrieval seeds the graph channel with the
// entities that the top content hits cite (content-seeded expansion): the
// entities whose Entity.SourceIDs hold the ID of one of the best
// RetrieverConfig.SeedPages pages the stores returned become starts of
// one-hop walks (link quality 0.8 × the page's score; the walks read the
// question's words as any walk does), so that a question
// that names nothing the graph knows still reaches the graph through the
// text it matched. The pages that the entities reached cite then surface as
// for any graph answer.
//
// Seeding needs the content channel's answer, so it runs after it: the
// graph channel from the named entities runs at the same time as the
// content channel, as before, and the seeded walks after both, over the
// graphs that implement SourceIndex (InMemoryGraph and pgraph.Graph do;
// others are not seeded). RetrievalStats.Seed reports their wall time,
// which is part of the graph channel's Duration and of Total.
type SeedMode uint8

const (
	// SeedDefault is the zero value and means SeedWhenUnlinked, except
	// with FusionRRF, where it means SeedOff: RRF ignores score magnitudes,
	// so the seeded walks' low-confidence items earn as much rank credit
	// as the named entities' answers (on kgmem's retrieval evaluation,
	// seeding lowers RRF's nDCG@10 from 0.677 to 0.655 and leaves the
	// other methods' figures unchanged).
	SeedDefault SeedMode = iota
	// SeedOff never seeds.
	SeedOff
	// SeedWhenUnlinked seeds a graph when the question names none of its
	// entities by name or alias: the graph channel would otherwise return
	// nothing from it, or only what linking by meaning guessed (a guess
	// that, when wrong, must not keep the seeds out). It is the
	// default because it spends the seeded pass only where the graph is
	// otherwise silent: on kgmem's retrieval evaluation (424 questions,
	// README "Evaluation") it leaves every weighted and score-sort figure
	// unchanged, and it lifts the content-seeded questions of the
	// no-shared-words evaluation from a hit@10 of 0 to 1.
	SeedWhenUnlinked
	// SeedAlways seeds every graph, whatever the question names; the named
	// entities' walks keep their answers, and seeding adds only entities
	// they did not reach. On the retrieval evaluation it adds 0.0017
	// nDCG@10 and 0.006 recall@10 to the weighted fusion, for a second
	// graph pass after the content channel on every question (about 1.1×
	// the p50 latency of BenchmarkRetrievePipeline's named questions).
	SeedAlways
)

// String returns the mode's name.
func (m SeedMode) String() string {
	switch m {
	case SeedDefault:
		return "default"
	case SeedOff:
		return "off"
	case SeedWhenUnlinked:
		return "when-unlinked"
	case SeedAlways:
		return "always"
	}
	return fmt.Sprintf("SeedMode(%d)", uint8(m))
}

// resolve maps SeedDefault to the default mode for the fusion method.
func (m SeedMode) resolve(f Fusion) SeedMode {
	switch {
	case m != SeedDefault:
		return m
	case f.resolve() == FusionRRF:
		return SeedOff
	}
	return SeedWhenUnlinked
}

// Seeding defaults.
const (
	// defaultSeedPages is RetrieverConfig.SeedPages when it is 0.
	defaultSeedPages = 3
	// defaultMaxSeeds is RetrieverConfig.MaxSeeds when it is 0.
	defaultMaxSeeds = 8
	// seedWeight scales a page's content score into the link quality of
	// the entities it seeds: a seed is less certain than a name the
	// question spells (quality 1).
	seedWeight = 0.8
	// seedHops bounds the seeded walks: a seed is already a step away
	// from the question (the page, then the entity citing it). One hop
	// reaches what the evaluations need at 0.13× the cost of two on
	// BenchmarkRetrievePipeline's plain questions (307 µs against 2.3 ms
	// p50 at 40k entities); two add 0.001 nDCG@10 with SeedAlways.
	seedHops = 1
)

// seedLink is a start of the graph's walks that the question does not
// spell: an entity a content hit cites, or one linked by meaning.
type seedLink struct {
	id      string
	quality float64
}

// bestSeedFirst orders seeds by quality, best first, then by ID.
func bestSeedFirst(a, b seedLink) int {
	if c := cmp.Compare(b.quality, a.quality); c != 0 {
		return c
	}
	return strings.Compare(a.id, b.id)
}

// sortSeeds orders seeds best first (quality, then ID) and keeps the best
// max, each entity once.
func sortSeeds(seeds []seedLink, max int) []seedLink {
	slices.SortFunc(seeds, func(a, b seedLink) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return cmp.Compare(b.quality, a.quality)
	})
	seeds = slices.CompactFunc(seeds, func(a, b seedLink) bool { return a.id == b.id })
	slices.SortFunc(seeds, bestSeedFirst)
	if len(seeds) > max {
		seeds = seeds[:max]
	}
	return seeds
}

// seedPages returns the best n pages the content channel returned, each
// once with its best score (ties: ID), skipping pages that collect would
// drop and pages scoring 0.
func seedPages(runs []sourceRun, n int) []ScoredPage {
	best := map[string]float64{}
	for i := range runs {
		run := &runs[i]
		if !run.content || run.err != nil {
			continue
		}
		for _, p := range run.pages {
			if !validPageID(p.Page.ID) || math.IsNaN(p.Score) || math.IsInf(p.Score, 0) {
				continue
			}
			if s := clamp01(p.Score); s > 0 && s > best[p.Page.ID] {
				best[p.Page.ID] = s
			}
		}
	}
	pages := make([]ScoredPage, 0, len(best))
	for id, s := range best {
		pages = append(pages, ScoredPage{Page: KnowledgePage{ID: id}, Score: s})
	}
	slices.SortFunc(pages, func(a, b ScoredPage) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Page.ID, b.Page.ID)
	})
	if len(pages) > n {
		pages = pages[:n]
	}
	return pages
}

// contentSeeds returns the entities of g that pages cite, as seeds: each
// with seedWeight × the best score of a page citing it, the best max.
func contentSeeds(ctx context.Context, g KnowledgeGraph, pages []ScoredPage, max int) ([]seedLink, error) {
	si, ok := g.(SourceIndex)
	if !ok || len(pages) == 0 {
		return nil, nil
	}
	ids := make([]string, len(pages))
	for i, p := range pages {
		ids[i] = p.Page.ID
	}
	cited, err := si.EntitiesCitedBy(ctx, ids)
	if err != nil {
		return nil, err
	}
	var seeds []seedLink
	for _, p := range pages {
		for _, id := range cited[p.Page.ID] {
			seeds = append(seeds, seedLink{id: id, quality: seedWeight * p.Score})
		}
	}
	return sortSeeds(seeds, max), nil
}

// seedGraphs runs the seeded walks (see SeedMode) over the graphs the mode
// asks for, after the content channel answered, and adds their hits to
// those graphs' runs. A graph whose seeding fails keeps its answer; the
// failure is returned, one error per graph, for warnings. It returns how
// long the pass took, and ctx's error if ctx is done.
func (r *MemoryRetriever) seedGraphs(ctx context.Context, cfg RetrieverConfig, query string, runs []sourceRun) (time.Duration, []error, error) {
	mode := cfg.Seed.resolve(cfg.Fusion)
	if mode == SeedOff {
		return 0, nil, nil
	}
	var todo []int // graph runs to seed
	for i := range runs {
		run := &runs[i]
		if run.content || run.err != nil || (mode == SeedWhenUnlinked && run.linked > run.meaning) {
			continue
		}
		if _, ok := r.graphs[run.index].g.(SourceIndex); ok {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return 0, nil, nil
	}
	pages := seedPages(runs, cfg.SeedPages)
	if len(pages) == 0 {
		return 0, nil, nil
	}
	begin := time.Now()
	type seeded struct {
		hits  []graphHit
		seeds int
		err   error
		end   time.Time
	}
	out := make([]seeded, len(todo))
	var eg errgroup.Group
	eg.SetLimit(cfg.MaxConcurrency)
	for k, i := range todo {
		g, tr := r.graphs[runs[i].index].g, runs[i].time
		eg.Go(func() error {
			type answer struct {
				hits  []graphHit
				seeds int
			}
			a, err := callSource(ctx, cfg.SourceTimeout, ownGraph(g), func(ctx context.Context) (answer, error) {
				seeds, err := contentSeeds(ctx, g, pages, cfg.MaxSeeds)
				if err != nil || len(seeds) == 0 {
					return answer{}, err
				}
				hits, _, err := r.walkFromSeeds(ctx, tr, g, query, seeds, cfg.Candidates, seedHops)
				return answer{hits, len(seeds)}, err
			})
			out[k] = seeded{a.hits, a.seeds, err, time.Now()}
			return nil
		})
	}
	_ = eg.Wait() // each graph reports through out
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	var errs []error
	for k, i := range todo {
		run, s := &runs[i], &out[k]
		run.end = s.end
		if s.err != nil {
			if errors.Is(s.err, context.DeadlineExceeded) && cfg.SourceTimeout > 0 {
				s.err = fmt.Errorf("timed out after %v: %w", cfg.SourceTimeout, s.err)
			}
			errs = append(errs, fmt.Errorf("graph %q: content seeding: %w", run.name, s.err))
			continue
		}
		// The named entities' walks explain their answers by the question's
		// own words: seeding adds only the entities they did not reach.
		named := make(map[string]bool, len(run.hits))
		for _, h := range run.hits {
			named[h.entity.ID] = true
		}
		for _, h := range s.hits {
			if !named[h.entity.ID] {
				run.hits = append(run.hits, h)
			}
		}
		run.seeded = s.seeds
	}
	return time.Since(begin), errs, nil
}

// answerFrom is the graph channel over this graph from seeds rather than
// from the entities the query names, under one read lock; seeds that are
// not entities of the graph are skipped.
func (g *InMemoryGraph) answerFrom(ctx context.Context, query string, cfg walkConfig, types []string, keep int, seeds []seedLink) ([]graphHit, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := g.rlock(); err != nil {
		return nil, 0, err
	}
	defer g.mu.RUnlock()
	links := make([]questionLink, 0, len(seeds))
	for _, sd := range seeds {
		if s, ok := g.ids[sd.id]; ok {
			links = append(links, questionLink{node: s, start: spanless, end: spanless, quality: sd.quality})
		}
	}
	if len(links) == 0 {
		return nil, 0, nil
	}
	w := g.getWalker()
	defer g.putWalker(w)
	return answerQuestion(ctx, w, g.step(types, cfg.asOf), query, links, cfg, keep)
}
