package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/spread"
	"github.com/kgmem/kgmem/internal/textrule"
)

// SpreadMode says when Hybrid retrieval ranks pages by page spreading as
// well as by text. Page spreading starts from the entities the question
// names (from the entities the best text hits cite when it names none),
// spreads over the graph's relations for a few steps, as a personalised
// PageRank cut short, and hands each entity's share to the pages that cite
// it (Entity.SourceIDs) and to the pages that state the relations it flowed
// along (Relation.SourceIDs, the evidence of each hop): an entity passes on
// what it received split evenly among its relations valid at the question's
// time (a small share goes to the entities that share a page with it
// instead, which ties in the entities an extraction names but leaves out of
// every triple) and splits what it keeps evenly among its pages, and a seed
// weighs 1 / the pages citing it, so a generic node ("director", cited by
// forty pages) spreads little to each page while a name cited by one page
// hands that page all it has. Pages are then ranked by their two ranks, in
// the text search's list (rt) and in page spreading's (rs): (1/(10+rt) +
// 1.5/(10+rs)) / (2.5/11), so a page the question's entities lead to climbs
// even when it shares no word with the question, and a page both lists rank
// first scores 1. Entities keep the scores Fusion gives them. Page spreading
// runs over InMemoryGraph and the types that embed it (DurableGraph, a
// Memory's graph); other backends keep the earlier page ranking for now.
//
// It is meant for graphs that a model's open extraction built, where the
// question-following walk has little to follow: free-text relation types
// ("was the first president of"), generic nodes, one thing under several
// names. On the MuSiQue passages with their GPT-3.5 extraction and on three
// generated sets of extraction-like graphs (README, Evaluation) it lifts
// passage recall@5 by 9 to 19 points over the content channel alone,
// where Hybrid without it was at or below the content channel; on
// kgmem's curated organisational evaluation it lowers nDCG@10 from 0.85
// to 0.62, since there the graph's own walk already finds the evidence.
type SpreadMode uint8

const (
	// SpreadAuto is the zero value: page spreading runs over a graph whose
	// relation types read as free text, as open extraction writes them —
	// at least 50 relations, and at least 100 distinct types or more than
	// one distinct type for every five relations (MuSiQue's extraction:
	// 5,034 types over 17,038 relations; kgmem's generated extractions:
	// 137 over 17,000 and 38,000; a curated graph has a few dozen) —
	// and not over others.
	SpreadAuto SpreadMode = iota
	// SpreadOff never runs page spreading.
	SpreadOff
	// SpreadOn runs page spreading over every graph: choose it for a graph
	// that a model extracted with a fixed or small set of relation types.
	SpreadOn
)

// String returns the mode's name.
func (m SpreadMode) String() string {
	switch m {
	case SpreadAuto:
		return "auto"
	case SpreadOff:
		return "off"
	case SpreadOn:
		return "on"
	}
	return fmt.Sprintf("SpreadMode(%d)", uint8(m))
}

// freeTextRelations is the fewest relations a graph must have for
// SpreadAuto to read its relation types as free text.
const freeTextRelations = 50

// freeTextTypes is the fewest distinct relation types that make SpreadAuto
// read a graph's types as free text, however many relations it has.
const freeTextTypes = 100

// Page spreading's settings that package kgmem applies (the others are in
// internal/spread), chosen on musique-dev and the two generated sets
// together (README, Evaluation): a rank offset of 10 and the spread list
// at 1.5 × the text list's weight (3 and 0.7, or 3, each lost up to 5
// points at R@2 on one set), seeds by 1 / pages (1 / √pages gave 2–4
// points less on musique).
const (
	spreadWeakLink  = 0.25 // the seed weight of a weak mention (a plain word) relative to a name
	spreadSeedPages = 10   // the best text hits whose entities seed when the question names none
	spreadSeedShare = 0.3  // the least text score, relative to the best, of a seeding hit
	spreadRankK     = 10.0
	spreadGamma     = 1.5
	freeTextShare   = 0.2
)

// spreadPages runs page spreading (spread.Pages) over g from the
// question's links, or from the entities the pages of content cite, as of
// asOf; the caller holds g.mu for reading. It returns the best limit pages
// reached (all of them when limit ≤ 0), best first (ties: page ID).
func (g *InMemoryGraph) spreadPages(ctx context.Context, query string, content func() []ScoredPage, asOf AsOf, limit int) ([]spread.PageMass, error) {
	seeds := g.spreadSeeds(query, content)
	if len(seeds) == 0 {
		return nil, nil
	}
	return spread.Pages(ctx, spreadView{st: g.step(nil, asOf), asks: g.asksAbout(query)}, seeds, limit)
}

// spreadView is the graph as page spreading reads it (spread.Graph), at
// the instant and for the question of one call; the caller holds g.mu.
type spreadView struct {
	st   *memStep
	asks func(rel int32) bool
}

func (v spreadView) Lists(n int32) (out, in []adj) { return v.st.Lists(n) }
func (v spreadView) Valid(r int32) bool            { return !v.st.timed || v.st.g.rels[r].admits(v.st.at) }
func (v spreadView) Asks(r int32) bool             { return v.asks(r) }
func (v spreadView) CoCitedCount(n int32, atMost int) int {
	return v.st.g.coCitedCount(n, atMost)
}
func (v spreadView) CoCited(n int32, buf *[]spread.Seed) []spread.Seed {
	return v.st.g.coCited(n, buf)
}
func (v spreadView) Pages(n int32) []string { return v.st.g.nodes[n].sourceIDs() }
func (v spreadView) RelPages(r int32) []string {
	if m := v.st.g.rels[r].more; m != nil {
		return m.sourceIDs
	}
	return nil
}
func (v spreadView) RelSource(r int32) int32 { return v.st.g.rels[r].src }
func (v spreadView) ID(n int32) string       { return v.st.g.nodes[n].id }

// sourceIDs returns the entity's SourceIDs, as stored.
func (n *node) sourceIDs() []string {
	if n.more == nil {
		return nil
	}
	return n.more.sourceIDs
}

// spreadSeeds returns the seeds of page spreading, weights summing to 1:
// the entities the question names, each by link quality × specificity (a
// weak mention at spreadWeakLink), or, when it names none, the entities
// that the best pages of content cite, each by the best score of a page
// citing it × its specificity.
func (g *InMemoryGraph) spreadSeeds(query string, content func() []ScoredPage) []spread.Seed {
	best := make(map[int32]float64)
	for _, l := range g.questionLinks(query, splitUnits(query)) {
		w := l.quality * g.specificity(l.node)
		if l.weak {
			w *= spreadWeakLink
		}
		best[l.node] = max(best[l.node], w)
	}
	if len(best) == 0 {
		content := content()
		for i, pg := range content {
			if i == spreadSeedPages || pg.Score < spreadSeedShare*content[0].Score {
				break
			}
			for s := range g.sources.ents[pg.Page.ID] {
				best[s] = max(best[s], pg.Score*g.specificity(s))
			}
		}
	}
	seeds := make([]spread.Seed, 0, len(best))
	for n, w := range best {
		seeds = append(seeds, spread.Seed{Node: n, Weight: w})
	}
	slices.SortFunc(seeds, func(a, b spread.Seed) int { return cmp.Compare(a.Node, b.Node) })
	sum := 0.0
	for _, sd := range seeds {
		sum += sd.Weight
	}
	if sum == 0 {
		return nil
	}
	for i := range seeds {
		seeds[i].Weight /= sum
	}
	return seeds
}

// specificity is how much an entity tells about the pages that cite it:
// 1 / the number of those pages (1 for an entity no page cites).
func (g *InMemoryGraph) specificity(n int32) float64 {
	return 1 / math.Max(1, float64(len(g.nodes[n].sourceIDs())))
}

// freeTextTypes says whether the graph's relation types read as an open
// extraction's (see SpreadAuto).
func (g *InMemoryGraph) freeTextTypes() bool {
	types := len(g.types.ids)
	return g.relCount >= freeTextRelations && (types >= freeTextTypes || float64(types) > freeTextShare*float64(g.relCount))
}

// spreads reports whether mode runs page spreading over this graph now,
// true as well when the graph cannot say (closed): spread then reports why.
func (g *InMemoryGraph) spreads(mode SpreadMode) bool {
	if mode != SpreadAuto {
		return mode == SpreadOn
	}
	if err := g.rlock(); err != nil {
		return true
	}
	defer g.mu.RUnlock()
	return g.spreadsLocked(mode)
}

// spreadsLocked is spreads with g.mu held for reading.
func (g *InMemoryGraph) spreadsLocked(mode SpreadMode) bool {
	return mode == SpreadOn || mode == SpreadAuto && g.freeTextTypes()
}

// spreads reports whether a Hybrid Retrieve under cfg runs page spreading
// over one of r's graphs: where none would, Retrieve starts no goroutine
// for it and reads no question time for it.
func (r *MemoryRetriever) spreads(cfg RetrieverConfig) bool {
	for _, ng := range r.graphs {
		if qa, ok := ng.g.(questionAnswerer); ok && qa.spreads(cfg.Spread) {
			return true
		}
	}
	return false
}

// spread runs page spreading under the graph's read lock, when mode asks
// for it over this graph (see questionAnswerer).
func (g *InMemoryGraph) spread(ctx context.Context, query string, content func() []ScoredPage, mode SpreadMode, asOf AsOf, limit int) ([]spread.PageMass, error) {
	if err := g.rlock(); err != nil {
		return nil, err
	}
	defer g.mu.RUnlock()
	if !g.spreadsLocked(mode) {
		return nil, nil
	}
	return g.spreadPages(ctx, query, content, asOf, limit)
}

// spreadGraphs gives the pages that page spreading reaches over each graph
// their spread score, adding the pages the text search missed (fetched
// from the stores, at most cfg.Candidates of them, each with the path of
// the entity that gave it most). It returns how many pages it scored.
func (r *MemoryRetriever) spreadGraphs(ctx context.Context, cfg RetrieverConfig, query string, runs []sourceRun, c *candidates, early *earlySpread) (int, error) {
	// The best text hits seed only where the question names no entity:
	// found once, when a graph first asks.
	var top []ScoredPage
	found := false
	content := func() []ScoredPage {
		if !found {
			top, found = seedPages(runs, spreadSeedPages), true
		}
		return top
	}
	f := r.pageFetcher(ctx, runs, c, cfg)
	scored := 0
	for i := range runs {
		run := &runs[i]
		if run.content || run.err != nil {
			continue
		}
		var pages []spread.PageMass
		if got, ok := early.get(i); ok {
			pages = got
		} else {
			var err error
			if pages, err = r.spreadRun(ctx, cfg, query, run, content); err != nil {
				return scored, err
			}
		}
		pages = pages[:min(len(pages), cfg.Candidates)]
		ids := make([]string, len(pages))
		for i, pm := range pages {
			ids[i] = pm.Page
		}
		f.prefetch(ids)
		for _, pm := range pages {
			if j, in := c.pages[pm.Page]; in {
				c.spread[j] = max(c.spread[j], pm.Score)
				scored++
				continue
			}
			probe, ok := f.find(pm.Page)
			if !ok {
				continue
			}
			j, in := c.lookup(&probe)
			if !in {
				probe.Path = []string{pm.Via}
				j = c.add(probe)
			}
			c.spread[j] = max(c.spread[j], pm.Score)
			scored++
		}
	}
	return scored, f.err("page spreading")
}

// spreadRun runs page spreading over the graph of run as of the time the
// question's words say, from the query with those words blanked out, as
// the walk does; content gives the best text hits, asked for only when the
// question names no entity. A graph that is not a questionAnswerer gives
// nothing.
func (r *MemoryRetriever) spreadRun(ctx context.Context, cfg RetrieverConfig, query string, run *sourceRun, content func() []ScoredPage) ([]spread.PageMass, error) {
	qa, ok := r.graphs[run.index].g.(questionAnswerer)
	if !ok {
		return nil, nil
	}
	qt, err := run.time.read(ctx, r, r.graphs[run.index].g, query)
	if err != nil {
		return nil, err
	}
	asOf := r.asOf()
	if qt.set {
		asOf = qt.asOf
	}
	return qa.spread(ctx, qt.query, content, cfg.Spread, asOf, cfg.Candidates)
}

// earlySpread is page spreading run beside the channels, while they
// search: for each graph run, the pages it reached, from the entities the
// question names or, where it names none, from the best text hits once
// the content channel answered. Where it failed, spreadGraphs runs it
// again after the channels, as it would have without it; the answer is
// the same either way.
type earlySpread struct {
	done  chan struct{}
	pages map[int][]spread.PageMass // by run index; only the runs it completed
}

// startSpread starts page spreading over the graph runs of runs in a
// goroutine of its own; nil when Hybrid does not spread. Where the
// question names no entity, page spreading seeds from the best text hits
// (see spreadSeeds): it waits for contentDone, closed once every content
// run has answered, while the graph channel searches on.
func (r *MemoryRetriever) startSpread(ctx context.Context, cfg RetrieverConfig, query string, runs []sourceRun, contentDone <-chan struct{}) *earlySpread {
	e := &earlySpread{done: make(chan struct{}), pages: map[int][]spread.PageMass{}}
	go func() {
		defer close(e.done)
		var top []ScoredPage
		found := false
		content := func() []ScoredPage {
			if !found {
				<-contentDone
				top, found = seedPages(runs, spreadSeedPages), true
			}
			return top
		}
		for i := range runs {
			run := &runs[i]
			if run.content {
				continue
			}
			if pages, err := r.spreadRun(ctx, cfg, query, run, content); err == nil {
				e.pages[i] = pages
			}
		}
	}()
	return e
}

// wait returns when e is done.
func (e *earlySpread) wait() { <-e.done }

// get waits for e and returns what it reached over run i; false when it
// did not complete that run. A nil e has nothing.
func (e *earlySpread) get(i int) ([]spread.PageMass, bool) {
	if e == nil {
		return nil, false
	}
	<-e.done
	pages, ok := e.pages[i]
	return pages, ok
}

// scorePages scores the pages of a Hybrid answer by their ranks in the
// text search's list and in page spreading's (see SpreadMode): 1 for a
// page first in both, 0 for a page in neither. It runs before the items
// are sorted, as the channel flags are by position.
func (c *candidates) scorePages() {
	var byText, bySpread []int32
	for i := range c.items {
		if c.items[i].Kind != ItemPage {
			continue
		}
		if c.inText[i] {
			byText = append(byText, int32(i))
		}
		if c.spread[i] > 0 {
			bySpread = append(bySpread, int32(i))
		}
	}
	// rank[i] is item i's rank in the list (from 1), 0 when not in it.
	rank := func(idx []int32, score func(i int32) float64) []int32 {
		slices.SortFunc(idx, func(a, b int32) int {
			if c := cmp.Compare(score(b), score(a)); c != 0 {
				return c
			}
			return strings.Compare(c.items[a].ID(), c.items[b].ID())
		})
		r := make([]int32, len(c.items))
		for k, i := range idx {
			r[i] = int32(k + 1)
		}
		return r
	}
	rt := rank(byText, func(i int32) float64 { return c.items[i].TextScore })
	rs := rank(bySpread, func(i int32) float64 { return c.spread[i] })
	norm := (1 + spreadGamma) / (spreadRankK + 1)
	for i := range c.items {
		if c.items[i].Kind != ItemPage {
			continue
		}
		s := 0.0
		if r := rt[i]; r > 0 {
			s += 1 / (spreadRankK + float64(r))
		}
		if r := rs[i]; r > 0 {
			s += spreadGamma / (spreadRankK + float64(r))
		}
		c.items[i].Score = min(1, s/norm)
	}
}

// coCitedCount is the length of coCited(n): the entities sharing a page
// with n, counted once per page. It stops counting, and returns what it
// has counted, once that passes atMost.
func (g *InMemoryGraph) coCitedCount(n int32, atMost int) int {
	c := 0
	for _, p := range g.nodes[n].sourceIDs() {
		if c += max(len(g.sources.ents[p])-1, 0); c > atMost {
			break
		}
	}
	return c
}

// coCited returns the entities that share a page with n (cite one of its
// SourceIDs), each weighted by 1 / the pages n cites × 1 / the other
// entities on that page, the weights summing to 1, in node order (an entity
// sharing two pages with n comes twice). It reuses buf.
func (g *InMemoryGraph) coCited(n int32, buf *[]spread.Seed) []spread.Seed {
	out := (*buf)[:0]
	srcs := g.nodes[n].sourceIDs()
	for _, p := range srcs {
		ents := g.sources.ents[p]
		if len(ents) <= 1 {
			continue
		}
		w := 1 / float64(len(srcs)) / float64(len(ents)-1)
		for e := range ents {
			if e != n {
				out = append(out, spread.Seed{Node: e, Weight: w})
			}
		}
	}
	// Node order, then weight, so that the sums over the list are the same
	// whatever the order of the source index's sets.
	slices.SortFunc(out, func(a, b spread.Seed) int {
		if c := cmp.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return cmp.Compare(a.Weight, b.Weight)
	})
	// Pages that n alone cites hand nothing on: the others share it all.
	sum := 0.0
	for _, c := range out {
		sum += c.Weight
	}
	for i := range out {
		out[i].Weight /= sum
	}
	*buf = out
	return out
}

// asksAbout returns whether a relation's type shares a word with query
// (kgmem's tokeniser: folded, stemmed, stop words out), each type read
// once per call; the caller holds g.mu for reading.
func (g *InMemoryGraph) asksAbout(query string) func(rel int32) bool {
	words := map[string]bool{}
	for _, w := range textrule.Tokenize(query) {
		words[w] = true
	}
	// By type ID: 0 not read yet, 1 does not ask, 2 asks.
	seen := make([]uint8, len(g.types.names))
	return func(rel int32) bool {
		t := g.relTypes[rel]
		if seen[t] == 0 {
			seen[t] = 1
			for _, w := range g.typeWords.get(t, g.types.names[t]) {
				if words[w] {
					seen[t] = 2
					break
				}
			}
		}
		return seen[t] == 2
	}
}
