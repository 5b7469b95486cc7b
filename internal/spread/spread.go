// Package spread is page spreading, the ranking of Hybrid retrieval's
// pages on graphs a model's open extraction built: from seed entities,
// activation spreads over the relations for a few steps, as a personalised
// PageRank cut short, and each entity hands its share to the pages that
// cite it and to the pages that state the relations it flowed along (see
// kgmem.SpreadMode). It works on handles through Graph; package kgmem
// chooses the seeds and fuses the pages with the text channel's.
package spread

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/kgmem/kgmem/internal/traverse"
)

// Page spreading's settings, chosen on musique-dev and the two generated
// sets together (kgmem's README, Evaluation): three steps (one gives 1–3
// points less at R@5).
const (
	steps    = 3
	damping  = 0.5 // the share of an entity's activation passed on at each step
	frontier = 256 // entities spread from per step, the most active first
	// coCitedShare is the share of what an entity passes on that goes to
	// the entities sharing a page with it rather than along its relations
	// (all of it for an entity with no relation): an extraction leaves about
	// a third of the entities it names out of every triple (MuSiQue's
	// GPT-3.5 extraction: 5,778 of 17,658), and the page still ties them to
	// the rest. 0.15 lifts musique-dev R@5/R@10 by 2.7/3.7 points and the
	// sparsest generated set's (gen3) by 0.4/0.3, leaving the other two
	// within 0.3; 0.3 and 0.5 lower the generated sets' R@2 and R@5 by up
	// to 1.8 points.
	coCitedShare = 0.15
	// asked is how much more than another a relation weighs along which an
	// entity passes activation on when its type shares a word with the
	// question ("director" and "directed by"; "married" and "spouse" do
	// not): 1 lifts R@5 by 0.5 to 1.3 points on every set and lowers none;
	// 2 and 3 lower gen2's R@2 and musique-dev's R@5.
	asked = 1.0
	// Stated is the share, relative to the flow along it, that a relation
	// activation flows along hands the pages stating it (Relation.SourceIDs).
	// From 0 to 3 it lifts R@5 / R@10 by 2.2 / 2.2 points on gen2, 1.9 / 3.4
	// on gen3 and 2.5 / 1.2 on gen, and musique-dev's R@10 by 2.3, lowering
	// its R@5 by 1.4 (its 16 three-hop questions by 4.1); 2 to 8 give the
	// same figures within a point.
	Stated = 3.0
	// minShare is the least activation an entity passes on along one
	// relation; an entity whose share would be less keeps what it has. The
	// seeds' weights sum to 1, so one step reaches at most 1/minShare
	// entities, and a step costs at most frontier adjacency lists.
	minShare = 1e-3
)

// Seed is an entity page spreading starts from, and its weight; also an
// entity sharing a page with another (Graph.CoCited).
type Seed struct {
	Node   int32
	Weight float64
}

// acc is what page spreading credits one page with.
type acc struct {
	score, best float64 // the sum of the shares, the largest share
	via         int32   // the entity that handed the largest share
}

// scratch is page spreading's working space, kept in pool
// between calls and cleared, so that a Retrieve does not make its maps and
// lists again. A map or list that grew past keep entries (a hub with
// many thousand relations, or cited by as many pages) is dropped instead:
// a cleared map keeps its size, ranging over it costs that size, and the
// pool would hold the largest call's room for every later one.
type scratch struct {
	act, front, next, relFlow map[int32]float64
	slot                      map[string]int32 // a page's index in accs
	accs                      []acc
	order, erel               []int32
	reached, flowed           []int32
	edges, coBuf              []Seed
	scores                    []float64
}

// keep is the most entries a pooled scratch map keeps room for.
const keep = 4096

var pool = sync.Pool{New: func() any { return new(scratch).reset() }}

// reset empties sc's maps, making those that are missing or too large.
func (sc *scratch) reset() *scratch {
	for _, m := range []*map[int32]float64{&sc.act, &sc.front, &sc.next, &sc.relFlow} {
		if *m == nil || len(*m) > keep {
			*m = make(map[int32]float64, 64)
		} else {
			clear(*m)
		}
	}
	if sc.slot == nil || len(sc.slot) > keep {
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

// keepEmpty returns s emptied, or nil when its room is past keep.
func keepEmpty[T any](s []T) []T {
	if cap(s) > keep {
		return nil
	}
	return s[:0]
}

// release empties sc and puts it back in pool.
func (sc *scratch) release() {
	pool.Put(sc.reset())
}

// PageMass is a page's score from page spreading, and the ID of the
// entity that handed it most.
type PageMass struct {
	Page  string
	Score float64
	Via   string
}

// Graph is what page spreading reads of a graph, by handle.
type Graph interface {
	// Lists returns the relations whose source is n and whose target is n.
	Lists(n int32) (out, in []traverse.Adj)
	// Valid reports whether relation r holds at the question's time.
	Valid(r int32) bool
	// Asks reports whether relation r's type shares a word with the
	// question.
	Asks(r int32) bool
	// CoCitedCount is len(CoCited(n)), cheaper; once the count passes
	// atMost it may stop and return any larger number.
	CoCitedCount(n int32, atMost int) int
	// CoCited returns the entities that share a page with n, weights
	// summing to 1, in node order; it may reuse buf.
	CoCited(n int32, buf *[]Seed) []Seed
	// Pages returns the pages entity n cites (its SourceIDs).
	Pages(n int32) []string
	// RelPages returns the pages that state relation r (its SourceIDs), and
	// RelSource the handle of its source.
	RelPages(r int32) []string
	RelSource(r int32) int32
	// ID returns the entity ID behind n.
	ID(n int32) string
}

// Pages runs page spreading over g from seeds (weights summing to 1) and
// returns the best limit pages reached (all of them when limit ≤ 0), best
// first (ties: page ID): a page's score is the share of the entities
// citing it plus Stated × the flow along the relations it states. It
// returns ctx.Err() when ctx is cancelled, checking it between steps.
func Pages(ctx context.Context, g Graph, seeds []Seed, limit int) ([]PageMass, error) {
	if len(seeds) == 0 {
		return nil, nil
	}
	// The working space comes from the pool, empty, and goes back with
	// what the lists grew to.
	sc := pool.Get().(*scratch)
	act, front, next, relFlow, slot := sc.act, sc.front, sc.next, sc.relFlow, sc.slot // act: what each entity keeps
	order, edges, erel, reached, flowed, accs := sc.order, sc.edges, sc.erel, sc.reached, sc.flowed, sc.accs
	defer func() {
		sc.front, sc.next = front, next
		sc.order, sc.edges, sc.erel, sc.reached, sc.flowed, sc.accs = order, edges, erel, reached, flowed, accs
		sc.release()
	}()
	for _, s := range seeds {
		front[s.Node] += s.Weight
	}
	for step := 0; ; step++ {
		for n, m := range front {
			act[n] += (1 - damping) * m
		}
		if step == steps {
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
		if len(order) > frontier {
			order = order[:frontier]
		}
		clear(next)
		for _, u := range order {
			out, in := g.Lists(u)
			deg := 0 // the relations u may pass activation on along
			for _, list := range [2][]traverse.Adj{out, in} {
				for _, a := range list {
					if a.To != u && g.Valid(a.Rel) {
						deg++
					}
				}
			}
			pass := damping * front[u]
			cs := coCitedShare * pass
			if deg == 0 {
				cs = pass
			}
			// An entity cited with many others (a generic node on forty
			// pages) would hand each less than minShare: it keeps
			// that share for its relations, and the list is never built.
			// Counting stops where no count could pass the test.
			if co := g.CoCitedCount(u, int(cs/minShare)+1); co > 0 && cs/float64(co) >= minShare {
				for _, c := range g.CoCited(u, &sc.coBuf) {
					next[c.Node] += cs * c.Weight
				}
				pass -= cs
			}
			if deg == 0 || pass/float64(deg) < minShare {
				act[u] += pass
				continue
			}
			// The relations u passes activation on along, each weighing
			// 1, or 1 + asked when its type shares a word with the
			// question.
			edges = edges[:0]
			erel = erel[:0]
			wsum := 0.0
			for _, list := range [2][]traverse.Adj{out, in} {
				for _, a := range list {
					if a.To != u && g.Valid(a.Rel) {
						w := 1.0
						if g.Asks(a.Rel) {
							w += asked
						}
						edges = append(edges, Seed{a.To, w})
						erel = append(erel, a.Rel)
						wsum += w
					}
				}
			}
			for i, e := range edges {
				f := pass * e.Weight / wsum
				next[e.Node] += f
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
		credits += len(g.Pages(n))
	}
	for _, r := range flowed {
		credits += len(g.RelPages(r))
	}
	accs = slices.Grow(accs, credits)
	credit := func(page string, share float64, via int32) {
		i, ok := slot[page]
		if !ok {
			i = int32(len(accs))
			slot[page] = i
			accs = append(accs, acc{best: share, via: via})
		} else if a := &accs[i]; share > a.best || share == a.best && g.ID(via) < g.ID(a.via) {
			a.best, a.via = share, via
		}
		accs[i].score += share
	}
	for _, n := range reached {
		srcs := g.Pages(n)
		if len(srcs) == 0 {
			continue
		}
		share := act[n] / float64(len(srcs))
		for _, s := range srcs {
			credit(s, share, n)
		}
	}
	// The pages that state a relation activation flowed along (its
	// SourceIDs) get Stated × the flow, split among them: the
	// passage that says "X was directed by Y" is the evidence of that
	// hop, where Y's own pages are every page that names Y.
	for _, r := range flowed {
		pages := g.RelPages(r)
		if len(pages) == 0 {
			continue
		}
		share := Stated * relFlow[r] / float64(len(pages))
		for _, s := range pages {
			credit(s, share, g.RelSource(r))
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
	out := make([]PageMass, 0, min(len(accs), max(limit, 0)+16))
	for page, i := range slot {
		if a := &accs[i]; a.score >= floor {
			out = append(out, PageMass{Page: page, Score: a.score, Via: g.ID(a.via)})
		}
	}
	slices.SortFunc(out, func(a, b PageMass) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Page, b.Page)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
