package kgmem

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/nameindex"
	"github.com/kgmem/kgmem/internal/question"
	"github.com/kgmem/kgmem/internal/traverse"
	"github.com/kgmem/kgmem/internal/walk"
)

// The graph channel's search is package internal/walk; this file links
// the question's names for it and turns its answers into graph hits.

// DefaultWalkHops is the longest walk the graph channel follows.
const DefaultWalkHops = 3

// walkConfig is what the retriever sets for a graph channel search: its
// hop limit and direction, the memory's vocabulary, the instant relations
// are walked at, and how many answers are wanted (0: the search's
// default). The search's budget is walk.Config's default.
type walkConfig struct {
	hops  int
	dir   Direction
	vocab *question.Vocab
	asOf  AsOf
	keep  int
}

// search is the walk.Config of c.
func (c walkConfig) search() walk.Config {
	return walk.Config{Hops: c.hops, Dir: traverse.Dir(c.dir), Vocab: c.vocab, Keep: c.keep}
}

// walkStepper is what the search needs from a backend beyond stepper.
type walkStepper interface {
	stepper
	walk.Stepper
}

// questionLink is an entity linked in the question: its node, the byte
// span of the mention and the link's quality.
type questionLink struct {
	node       int32
	start, end int
	quality    float64
	// weak marks a mention that may be a plain word rather than a name: one
	// word (or one CJK character) that is a stop word or is not spelled
	// exactly as the entity's name ("gender" for an entity named Gender).
	weak bool
}

// spanless marks a link that no words of the question spell: an entity
// that a content hit cites (see seed.go) or that linking by meaning found.
// Its start stands after the question's last word.
const spanless = -1

// weakMention reports whether a mention of text, spelled exactly as the
// entity's name or alias or not, is weak (see questionLink).
func weakMention(text string, exact bool) bool {
	content := 0
	for _, u := range splitUnits(text) {
		if !u.Word {
			content++ // a CJK character
			continue
		}
		if !isStopWord(u.Key) {
			content++
		}
	}
	switch {
	case content == 0:
		return true
	case content > 1:
		return false
	}
	// One word: weak unless spelled exactly as the name, and never for a
	// lone CJK character.
	return !exact || utf8.RuneCountInString(strings.TrimSpace(text)) == 1
}

// answerQuestion runs the graph channel over one backend, in w's scratch
// space (nil for new): it analyses the query around its linked mentions,
// searches walks from them, scores every entity reached and returns the
// best keep as hits, with the number of linked entities the answer kept
// (of mentions that overlap, only the one whose walks answer best).
func answerQuestion(ctx context.Context, w *walk.Walker, st walkStepper, query string, links []questionLink, cfg walkConfig, keep int) ([]graphHit, int, error) {
	// The mentions in a canonical order, whatever order the backend's
	// linker reported them in: by position, then entity ID.
	links = slices.Clone(links)
	slices.SortFunc(links, func(a, b questionLink) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.end, b.end); c != 0 {
			return c
		}
		return strings.Compare(st.ID(a.node), st.ID(b.node))
	})
	q, starts := prepareQuestion(query, links)
	if len(starts) == 0 {
		return nil, 0, nil
	}
	cfg.keep = keep
	if w == nil {
		w = new(walk.Walker)
	}
	if err := w.Search(ctx, st, q, starts, cfg.search()); err != nil {
		return nil, 0, err
	}
	reached := w.Nodes()
	nodes := make([]traverse.Ranked, len(reached))
	for i, n := range reached {
		nodes[i] = traverse.Ranked{N: n}
	}
	if err := st.prepare(ctx, nodes); err != nil {
		return nil, 0, err
	}
	answers, kept := w.Answers(keep)
	hits := make([]graphHit, len(answers))
	for i, a := range answers {
		hits[i] = walkHit(w, st, a, query)
	}
	linked := 0
	for _, k := range kept {
		if k {
			linked++
		}
	}
	return hits, linked, nil
}

// prepareQuestion analyses the query around its links and returns the
// walks' starts: each linked entity once, with its best link.
func prepareQuestion(query string, links []questionLink) (*question.Analysis, []walk.Start) {
	// Weak mentions count only when the question names nothing else; then
	// their words stay available to match relations.
	if slices.ContainsFunc(links, func(l questionLink) bool { return !l.weak }) {
		links = slices.DeleteFunc(slices.Clone(links), func(l questionLink) bool { return l.weak })
	}
	spans := make([][2]int, 0, len(links))
	for _, l := range links {
		if l.start != spanless {
			spans = append(spans, [2]int{l.start, l.end})
		}
	}
	q := question.Analyze(query, spans)
	var starts []walk.Start
	for _, l := range links {
		first, last := -1, -1
		if l.start == spanless {
			first, last = len(q.Units), len(q.Units)
		}
		for i, u := range q.Units {
			if l.start != spanless && u.Start >= l.start && u.End <= l.end {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first < 0 {
			continue
		}
		if i := slices.IndexFunc(starts, func(s walk.Start) bool { return s.Node == l.node }); i >= 0 {
			if l.quality > starts[i].Quality {
				starts[i] = walk.Start{Node: l.node, Quality: l.quality, First: first, Last: last}
			}
			continue
		}
		starts = append(starts, walk.Start{Node: l.node, Quality: l.quality, First: first, Last: last})
	}
	return q, starts
}

// walkHit builds the graph channel's hit for an answer of w's search over
// st: the entity, its walk, and for each hop the query words that asked
// for it.
func walkHit(w *walk.Walker, st walkStepper, a walk.Answer, query string) graphHit {
	p := w.Path(a.State)
	h := graphHit{
		entity:  st.entity(a.Node),
		score:   a.Score,
		path:    make([]string, len(p)),
		names:   make([]string, len(p)),
		rels:    make([]Relation, 0, len(p)-1),
		matched: make([]string, 0, len(p)-1),
	}
	for i, si := range p {
		node, rel, start, end := w.Hop(si)
		h.path[i] = st.ID(node)
		if h.names[i] = st.NodeName(node); h.names[i] == "" {
			h.names[i] = h.path[i]
		}
		if i == 0 {
			continue
		}
		h.rels = append(h.rels, st.relation(rel))
		words := ""
		if start >= 0 {
			words = query[start:end]
		}
		h.matched = append(h.matched, words)
	}
	if start, end, ok := w.TypeCue(a.State); ok {
		h.typeCue = query[start:end]
	}
	return h
}

// answer is the graph channel over this graph, under one read lock:
// linking, search and the copies of the answers.
func (g *InMemoryGraph) answer(ctx context.Context, query string, cfg walkConfig, types []string, keep int) ([]graphHit, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	units := splitUnits(query)
	if err := g.rlock(); err != nil {
		return nil, 0, err
	}
	defer g.mu.RUnlock()
	w := g.getWalker()
	defer g.putWalker(w)
	return answerQuestion(ctx, w, g.step(types, cfg.asOf), query, g.questionLinks(query, units), cfg, keep)
}

// questionLinks links the entities query names; the caller holds g.mu.
func (g *InMemoryGraph) questionLinks(query string, units []linkUnit) []questionLink {
	found := g.names.Match(query, units, func(r nameindex.Ref, surface string) bool {
		return spells(g.nodes[r.Slot()].name, g.nodes[r.Slot()].aliases(), r.Alias(), surface)
	})
	links := make([]questionLink, len(found))
	for i, m := range found {
		n := &g.nodes[m.Ref.Slot()]
		start, end := units[m.First].Start, units[m.Last].End
		links[i] = questionLink{node: m.Ref.Slot(), start: start, end: end, quality: m.Quality,
			weak: weakMention(query[start:end], spells(n.name, n.aliases(), m.Ref.Alias(), query[start:end]))}
	}
	return links
}

// idleWalkers is how many searches' scratch space a graph keeps between
// calls. Unlike a sync.Pool's, it survives garbage collections, which the
// search's own allocations would otherwise trigger often enough to empty
// the pool.
const idleWalkers = 4

// getWalker returns an idle walker of the graph's, or a new one.
func (g *InMemoryGraph) getWalker() *walk.Walker {
	select {
	case w := <-g.walkers:
		return w
	default:
		return new(walk.Walker)
	}
}

// putWalker keeps w for a later call, unless enough are kept, dropping its
// references to the graph and the question.
func (g *InMemoryGraph) putWalker(w *walk.Walker) {
	w.Release()
	select {
	case g.walkers <- w:
	default:
	}
}
