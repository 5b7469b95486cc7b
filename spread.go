package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/kgmem/kgmem/internal/textrule"
	"slices"
	"strings"
	"sync"
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

// Page spreading's settings, chosen on musique-dev and the two generated
// sets together (README, Evaluation): three steps (one gives 1–3 points
// less at R@5), a rank offset of 10 and the spread list at 1.5 × the text
// list's weight (3 and 0.7, or 3, each lost up to 5 points at R@2 on one
// set), seeds by 1 / pages (1 / √pages gave 2–4 points less on musique).
const (
	spreadSteps     = 3
	spreadDamping   = 0.5  // the share of an entity's activation passed on at each step
	spreadWeakLink  = 0.25 // the seed weight of a weak mention (a plain word) relative to a name
	spreadSeedPages = 10   // the best text hits whose entities seed when the question names none
	spreadSeedShare = 0.3  // the least text score, relative to the best, of a seeding hit
	spreadFrontier  = 256  // entities spread from per step, the most active first
	// spreadCoCited is the share of what an entity passes on that goes to
	// the entities sharing a page with it rather than along its relations
	// (all of it for an entity with no relation): an extraction leaves about
	// a third of the entities it names out of every triple (MuSiQue's
	// GPT-3.5 extraction: 5,778 of 17,658), and the page still ties them to
	// the rest. 0.15 lifts musique-dev R@5/R@10 by 2.7/3.7 points and the
	// sparsest generated set's (gen3) by 0.4/0.3, leaving the other two
	// within 0.3; 0.3 and 0.5 lower the generated sets' R@2 and R@5 by up
	// to 1.8 points.
	spreadCoCited = 0.15
	// spreadAsked is how much more than another a relation weighs along
	// which an entity passes activation on when its type shares a word with
	// the question ("director" and "directed by"; "married" and "spouse"
	// do not): 1 lifts R@5 by 0.5 to 1.3 points on every set and lowers
	// none; 2 and 3 lower gen2's R@2 and musique-dev's R@5.
	spreadAsked = 1.0
	// spreadStated is the share, relative to the flow along it, that a
	// relation activation flows along hands the pages stating it
	// (Relation.SourceIDs). From 0 to 3 it lifts R@5 / R@10 by 2.2 / 2.2
	// points on gen2, 1.9 / 3.4 on gen3 and 2.5 / 1.2 on gen, and
	// musique-dev's R@10 by 2.3, lowering its R@5 by 1.4 (its 16 three-hop
	// questions by 4.1); 2 to 8 give the same figures within a point.
	spreadStated  = 3.0
	spreadRankK   = 10.0
	spreadGamma   = 1.5
	freeTextShare = 0.2
	// spreadMinShare is the least activation an entity passes on along one
	// relation; an entity whose share would be less keeps what it has. The
	// seeds' weights sum to 1, so one step reaches at most 1/spreadMinShare
	// entities, and a step costs at most spreadFrontier adjacency lists.
	spreadMinShare = 1e-3
)

// spreadSeed is an entity page spreading starts from, and its weight.
type spreadSeed struct {
	node   int32
	weight float64
}

// spreadAcc is what page spreading credits one page with.
type spreadAcc struct {
	score, best float64 // the sum of the shares, the largest share
	via         int32   // the entity that handed the largest share
}

// spreadScratch is page spreading's working space, kept in spreadPool
// between calls and cleared, so that a Retrieve does not make its maps and
// lists again. A map or list that grew past spreadKeep entries (a hub with
// many thousand relations, or cited by as many pages) is dropped instead:
// a cleared map keeps its size, ranging over it costs that size, and the
// pool would hold the largest call's room for every later one.
type spreadScratch struct {
	act, front, next, relFlow map[int32]float64
	slot                      map[string]int32 // a page's index in accs
	accs                      []spreadAcc
	order, erel               []int32
	reached, flowed           []int32
	edges, coBuf              []spreadSeed
	scores                    []float64
}

// spreadKeep is the most entries a pooled spreadScratch map keeps room for.
const spreadKeep = 4096

var spreadPool = sync.Pool{New: func() any { return new(spreadScratch).reset() }}

// reset empties sc's maps, making those that are missing or too large.
func (sc *spreadScratch) reset() *spreadScratch {
	for _, m := range []*map[int32]float64{&sc.act, &sc.front, &sc.next, &sc.relFlow} {
		if *m == nil || len(*m) > spreadKeep {
			*m = make(map[int32]float64, 64)
		} else {
			clear(*m)
		}
	}
	if sc.slot == nil || len(sc.slot) > spreadKeep {
		sc.slot = make(map[string]int32, 64)
	} else {
		clear(sc.slot)
	}
	sc.accs = keepEmpty(sc.accs)
	sc.order, sc.erel = keepEmpty(sc.order), keepEmpty(sc.erel)
	sc.reached, sc.flowed = keepEmpty(sc.reached), keepEmpty(sc.flowed)
	sc.edges, sc.coBuf = keepEmpty(sc.edges), keepEmpty(sc.coBuf)
	sc.scores = keepEmpty(sc.scores)
	return sc
}

// keepEmpty returns s emptied, or nil when its room is past spreadKeep.
func keepEmpty[T any](s []T) []T {
	if cap(s) > spreadKeep {
		return nil
	}
	return s[:0]
}

// release empties sc and puts it back in spreadPool.
func (sc *spreadScratch) release() {
	spreadPool.Put(sc.reset())
}

// pageMass is a page's score from page spreading, and the ID of the
// entity that handed it most.
type pageMass struct {
	page  string
	score float64
	via   string
}

// spreadPages runs page spreading over g from the question's links, or
// from the entities the pages of content cite, as of asOf; the caller
// holds g.mu for reading. It returns the best limit pages reached (all
// of them when limit ≤ 0), best first (ties: page ID): a page's score is
// the share of the entities citing it plus spreadStated × the flow along
// the relations it states.
func (g *InMemoryGraph) spreadPages(ctx context.Context, query string, content func() []ScoredPage, asOf AsOf, limit int) ([]pageMass, error) {
	seeds := g.spreadSeeds(query, content)
	if len(seeds) == 0 {
		return nil, nil
	}
	st := g.step(nil, asOf)
	valid := func(rel int32) bool { return !st.timed || g.rels[rel].admits(st.at) }
	asks := g.asksAbout(query)
	// The working space comes from the pool, empty, and goes back with
	// what the lists grew to.
	sc := spreadPool.Get().(*spreadScratch)
	act, front, next, relFlow, slot := sc.act, sc.front, sc.next, sc.relFlow, sc.slot // act: what each entity keeps
	order, edges, erel, reached, flowed, accs := sc.order, sc.edges, sc.erel, sc.reached, sc.flowed, sc.accs
	defer func() {
		sc.front, sc.next = front, next
		sc.order, sc.edges, sc.erel, sc.reached, sc.flowed, sc.accs = order, edges, erel, reached, flowed, accs
		sc.release()
	}()
	for _, s := range seeds {
		front[s.node] += s.weight
	}
	for step := 0; ; step++ {
		for n, m := range front {
			act[n] += (1 - spreadDamping) * m
		}
		if step == spreadSteps {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		order = order[:0]
		for n := range front {
			order = append(order, n)
		}
		slices.SortFunc(order, func(a, b int32) int {
			if c := cmp.Compare(front[b], front[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		if len(order) > spreadFrontier {
			order = order[:spreadFrontier]
		}
		clear(next)
		for _, u := range order {
			nd := &g.nodes[u]
			// The relations u passes activation on along, each weighing
			// 1, or 1 + spreadAsked when its type shares a word with the
			// question.
			edges = edges[:0]
			erel = erel[:0]
			wsum := 0.0
			for _, list := range [2][]adj{nd.out, nd.in} {
				for _, a := range list {
					if a.To != u && valid(a.Rel) {
						w := 1.0
						if asks(a.Rel) {
							w += spreadAsked
						}
						edges = append(edges, spreadSeed{a.To, w})
						erel = append(erel, a.Rel)
						wsum += w
					}
				}
			}
			deg := len(edges)
			pass := spreadDamping * front[u]
			cs := spreadCoCited * pass
			if deg == 0 {
				cs = pass
			}
			// An entity cited with many others (a generic node on forty
			// pages) would hand each less than spreadMinShare: it keeps
			// that share for its relations, and the list is never built.
			if co := g.coCitedCount(u); co > 0 && cs/float64(co) >= spreadMinShare {
				for _, c := range g.coCited(u, &sc.coBuf) {
					next[c.node] += cs * c.weight
				}
				pass -= cs
			}
			if deg == 0 || pass/float64(deg) < spreadMinShare {
				act[u] += pass
				continue
			}
			for i, e := range edges {
				f := pass * e.weight / wsum
				next[e.node] += f
				relFlow[erel[i]] += f
			}
		}
		front, next = next, front
	}
	// Hand each entity's share to its pages, summing in a fixed order so
	// that equal paths give equal scores.
	for n := range act {
		reached = append(reached, n)
	}
	slices.Sort(reached)
	for r := range relFlow {
		flowed = append(flowed, r)
	}
	slices.Sort(flowed)
	// At most one page per credit below: the index and the scores are
	// sized once, for that many.
	credits := 0
	for _, n := range reached {
		credits += len(g.nodes[n].sourceIDs())
	}
	for _, r := range flowed {
		if m := g.rels[r].more; m != nil {
			credits += len(m.sourceIDs)
		}
	}
	accs = slices.Grow(accs, credits)
	credit := func(page string, share float64, via int32) {
		i, ok := slot[page]
		if !ok {
			i = int32(len(accs))
			slot[page] = i
			accs = append(accs, spreadAcc{best: share, via: via})
		} else if a := &accs[i]; share > a.best || share == a.best && g.nodes[via].id < g.nodes[a.via].id {
			a.best, a.via = share, via
		}
		accs[i].score += share
	}
	for _, n := range reached {
		srcs := g.nodes[n].sourceIDs()
		if len(srcs) == 0 {
			continue
		}
		share := act[n] / float64(len(srcs))
		for _, s := range srcs {
			credit(s, share, n)
		}
	}
	// The pages that state a relation activation flowed along (its
	// SourceIDs) get spreadStated × the flow, split among them: the
	// passage that says "X was directed by Y" is the evidence of that
	// hop, where Y's own pages are every page that names Y.
	for _, r := range flowed {
		rec := &g.rels[r]
		if rec.more == nil || len(rec.more.sourceIDs) == 0 {
			continue
		}
		share := spreadStated * relFlow[r] / float64(len(rec.more.sourceIDs))
		for _, s := range rec.more.sourceIDs {
			credit(s, share, rec.src)
		}
	}
	// Only the best limit pages are ranked: those scoring at least the
	// limit-th best score (ties included), then cut, which keeps exactly
	// the first limit of the whole ranking.
	var floor float64
	if limit > 0 && len(accs) > limit {
		scores := sc.scores
		for i := range accs {
			scores = append(scores, accs[i].score)
		}
		slices.Sort(scores)
		sc.scores = scores
		floor = scores[len(scores)-limit]
	}
	out := make([]pageMass, 0, min(len(accs), max(limit, 0)+16))
	for page, i := range slot {
		if a := &accs[i]; a.score >= floor {
			out = append(out, pageMass{page: page, score: a.score, via: g.nodes[a.via].id})
		}
	}
	slices.SortFunc(out, func(a, b pageMass) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.page, b.page)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

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
func (g *InMemoryGraph) spreadSeeds(query string, content func() []ScoredPage) []spreadSeed {
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
	seeds := make([]spreadSeed, 0, len(best))
	for n, w := range best {
		seeds = append(seeds, spreadSeed{n, w})
	}
	slices.SortFunc(seeds, func(a, b spreadSeed) int { return cmp.Compare(a.node, b.node) })
	sum := 0.0
	for _, sd := range seeds {
		sum += sd.weight
	}
	if sum == 0 {
		return nil
	}
	for i := range seeds {
		seeds[i].weight /= sum
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
func (g *InMemoryGraph) spread(ctx context.Context, query string, content func() []ScoredPage, mode SpreadMode, asOf AsOf, limit int) ([]pageMass, error) {
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
	spread := 0
	for i := range runs {
		run := &runs[i]
		if run.content || run.err != nil {
			continue
		}
		var pages []pageMass
		if got, ok := early.get(i); ok {
			pages = got
		} else {
			var err error
			if pages, err = r.spreadRun(ctx, cfg, query, run, content); err != nil {
				return spread, err
			}
		}
		pages = pages[:min(len(pages), cfg.Candidates)]
		ids := make([]string, len(pages))
		for i, pm := range pages {
			ids[i] = pm.page
		}
		f.prefetch(ids)
		for _, pm := range pages {
			if j, in := c.pages[pm.page]; in {
				c.spread[j] = max(c.spread[j], pm.score)
				spread++
				continue
			}
			probe, ok := f.find(pm.page)
			if !ok {
				continue
			}
			j, in := c.lookup(&probe)
			if !in {
				probe.Path = []string{pm.via}
				j = c.add(probe)
			}
			c.spread[j] = max(c.spread[j], pm.score)
			spread++
		}
	}
	return spread, f.err("page spreading")
}

// spreadRun runs page spreading over the graph of run as of the time the
// question's words say, from the query with those words blanked out, as
// the walk does; content gives the best text hits, asked for only when the
// question names no entity. A graph that is not a questionAnswerer gives
// nothing.
func (r *MemoryRetriever) spreadRun(ctx context.Context, cfg RetrieverConfig, query string, run *sourceRun, content func() []ScoredPage) ([]pageMass, error) {
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
	pages map[int][]pageMass // by run index; only the runs it completed
}

// startSpread starts page spreading over the graph runs of runs in a
// goroutine of its own; nil when Hybrid does not spread. Where the
// question names no entity, page spreading seeds from the best text hits
// (see spreadSeeds): it waits for contentDone, closed once every content
// run has answered, while the graph channel searches on.
func (r *MemoryRetriever) startSpread(ctx context.Context, cfg RetrieverConfig, query string, runs []sourceRun, contentDone <-chan struct{}) *earlySpread {
	e := &earlySpread{done: make(chan struct{}), pages: map[int][]pageMass{}}
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
func (e *earlySpread) get(i int) ([]pageMass, bool) {
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
// with n, counted once per page.
func (g *InMemoryGraph) coCitedCount(n int32) int {
	c := 0
	for _, p := range g.nodes[n].sourceIDs() {
		c += max(len(g.sources.ents[p])-1, 0)
	}
	return c
}

// coCited returns the entities that share a page with n (cite one of its
// SourceIDs), each weighted by 1 / the pages n cites × 1 / the other
// entities on that page, the weights summing to 1, in node order (an entity
// sharing two pages with n comes twice). It reuses buf.
func (g *InMemoryGraph) coCited(n int32, buf *[]spreadSeed) []spreadSeed {
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
				out = append(out, spreadSeed{e, w})
			}
		}
	}
	// Node order, then weight, so that the sums over the list are the same
	// whatever the order of the source index's sets.
	slices.SortFunc(out, func(a, b spreadSeed) int {
		if c := cmp.Compare(a.node, b.node); c != 0 {
			return c
		}
		return cmp.Compare(a.weight, b.weight)
	})
	// Pages that n alone cites hand nothing on: the others share it all.
	sum := 0.0
	for _, c := range out {
		sum += c.weight
	}
	for i := range out {
		out[i].weight /= sum
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
