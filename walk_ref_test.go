package kgmem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// walkRefNames are the entity names of the random graphs: distinct, so
// that a question names exactly the entities it was written with.
var walkRefNames = []string{"Ann", "Bob Lee", "Cleo", "Dan", "Eve Stone", "Finn", "Gus", "Hana Mori", "Ivo", "Jill"}

var walkRefTypes = []string{"person", "film", "city", "", "team"}

var walkRefRelations = []string{"directed_by", "starred_actors", "spouse", "parents", "children", "lives_in",
	"works_on", "has_genre", "film/film/written_by", "reportsTo"}

// walkRefWords are the words the random questions are made of, besides
// entity names: relation words, type words, wh-words, fillers.
var walkRefWords = []string{"who", "which", "what", "where", "directed", "director", "star", "starred", "actors",
	"spouse", "wife", "parent", "father", "child", "son", "lives", "live", "city", "film", "films", "movie",
	"works", "working", "genre", "written", "writer", "reports", "same", "share", "the", "of", "'s", "is", "in",
	"did", "people", "team", "导演", "住在", "什么", "电影"}

// randomWalkGraph returns a small random multigraph with self-loops,
// parallel relations and weights in {0.5, 0.8, 1}.
func randomWalkGraph(t *testing.T, rng *rand.Rand) *InMemoryGraph {
	ctx := context.Background()
	g := NewInMemoryGraph()
	n := 4 + rng.IntN(len(walkRefNames)-3)
	for i := range n {
		require.NoError(t, g.AddEntity(ctx, Entity{ID: fmt.Sprintf("e%d", i), Name: walkRefNames[i],
			Type: walkRefTypes[rng.IntN(len(walkRefTypes))]}))
	}
	for range n + rng.IntN(2*n) {
		r := Relation{
			SourceID: fmt.Sprintf("e%d", rng.IntN(n)),
			TargetID: fmt.Sprintf("e%d", rng.IntN(n)),
			Type:     walkRefRelations[rng.IntN(len(walkRefRelations))],
			Weight:   []float64{0.5, 0.8, 1}[rng.IntN(3)],
		}
		require.NoError(t, g.AddRelation(ctx, r))
	}
	return g
}

// randomWalkQuestion returns 2–7 random words with one or two entity names
// among them.
func randomWalkQuestion(rng *rand.Rand, g *InMemoryGraph) string {
	var words []string
	for range 2 + rng.IntN(6) {
		words = append(words, walkRefWords[rng.IntN(len(walkRefWords))])
	}
	for range 1 + rng.IntN(2) {
		name := g.nodes[rng.IntN(len(g.nodes))].name
		at := rng.IntN(len(words) + 1)
		words = append(words[:at], append([]string{name}, words[at:]...)...)
	}
	return strings.Join(words, " ") + "?"
}

// exhaustiveWalks extends every walk from state si by every relation and
// every reading of the hop, depth first, down to cfg.hops hops: what the
// search's beam reaches when no budget binds.
func exhaustiveWalks(w *walker, g *InMemoryGraph, si int32) {
	s := w.states[si]
	if int(s.hops) == w.cfg.hops {
		return
	}
	follow := func(a adj, back bool) {
		if s.rel >= 0 && s.back != back && a.Rel == s.rel {
			return // straight back over the relation just walked
		}
		gi := w.addGroup(si, g.relTypes[a.Rel], back)
		grp := w.groups[gi]
		for _, v := range slices.Clone(grp.variants) {
			w.states = append(w.states, wstate{node: a.To, parent: si, rel: a.Rel, typ: grp.typ, start: s.start,
				hops: s.hops + 1, back: back, mask: v.mask, lastKey: v.key, score: s.score * v.factor * hopWeight(a.W),
				strength: v.strength, term: v.term, pivoted: s.pivoted || v.pivot, idHash: idHash(g.nodes[a.To].id)})
			exhaustiveWalks(w, g, int32(len(w.states)-1))
		}
	}
	n := &g.nodes[s.node]
	if w.cfg.dir != Incoming {
		for _, a := range n.out {
			follow(a, false)
		}
	}
	if w.cfg.dir != Outgoing {
		for _, a := range n.in {
			if a.To != s.node || w.cfg.dir == Incoming {
				follow(a, a.To != s.node)
			}
		}
	}
}

// walkRefAnswer is one entity of an answer: its score and best walk.
type walkRefAnswer struct {
	ID    string
	Score float64
	Walk  string
}

func walkRefAnswers(w *walker, q string) ([]walkRefAnswer, []bool) {
	scores := w.scoreStates()
	kept := w.chooseStarts(scores)
	var out []walkRefAnswer
	for _, a := range w.aggregate(scores, func(s int32) bool { return kept[s] }) {
		h := w.hit(a, q)
		var b strings.Builder
		for i, id := range h.path {
			if i > 0 {
				r := h.rels[i-1]
				fmt.Fprintf(&b, " %s/%s/%s[%s] ", r.SourceID, r.Type, r.TargetID, h.matched[i-1])
			}
			b.WriteString(id)
		}
		out = append(out, walkRefAnswer{h.entity.ID, a.score, b.String()})
	}
	return out, kept
}

// TestWalkSearchMatchesExhaustiveWalks runs the graph channel's search on
// random small multigraphs with random questions, with a budget too large
// to bind, and compares every entity's score and best walk, the order of
// the answers and the mentions kept with those of an exhaustive
// depth-first enumeration of every walk and every reading of its hops.
func TestWalkSearchMatchesExhaustiveWalks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 13))
	ctx := context.Background()
	for trial := range 400 {
		g := randomWalkGraph(t, rng)
		query := randomWalkQuestion(rng, g)
		cfg := walkConfig{hops: 1 + rng.IntN(3), dir: []Direction{Both, Both, Outgoing, Incoming}[rng.IntN(4)],
			beam: 1 << 30, perEntity: 1 << 30, fanout: 1 << 30, readings: 1 << 30, exhaustive: true}
		if rng.IntN(3) == 0 {
			cfg.vocab = compileVocabulary(Vocabulary{
				Relations:        map[string][]string{"spouse": {"married to"}, "lives_in": {"home town", "住在"}},
				InverseRelations: map[string][]string{"parents": {"son", "child"}},
				Types:            map[string][]string{"film": {"movie", "电影"}},
			})
		}
		units := splitUnits(query)
		q, starts := prepareQuestion(query, g.questionLinks(query, units))
		if len(starts) == 0 {
			continue
		}
		searched, err := searchWalks(ctx, nil, g.step(nil, AsOf{}), q, starts, cfg)
		require.NoError(t, err)
		got, gotKept := walkRefAnswers(searched, query)

		ref := new(walker)
		ref.reset(g.step(nil, AsOf{}), q, cfg, starts)
		for i, s := range starts {
			ref.states = append(ref.states, wstate{node: s.node, parent: -1, rel: -1, typ: -1, start: int32(i),
				lastKey: -1, score: s.quality, term: -1, idHash: idHash(g.nodes[s.node].id)})
		}
		for i := range starts {
			exhaustiveWalks(ref, g, int32(i))
		}
		want, wantKept := walkRefAnswers(ref, query)
		require.Equal(t, wantKept, gotKept, "trial %d: %q", trial, query)
		require.Equal(t, want, got, "trial %d: %q, %d hops, %v", trial, query, cfg.hops, cfg.dir)
	}
}

// TestWalkOfferKeepsTheBest: a walk group keeps, of every relation offered
// to it, exactly the cfg.fanout best by candBetter (weight, then the
// entity, then the relation key), whatever the order of the offers; ties
// in weight and equal ID hashes included.
func TestWalkOfferKeepsTheBest(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 40 {
		g := NewInMemoryGraph()
		var es []Entity
		var rs []Relation
		es = append(es, Entity{ID: "hub", Name: "Hub"})
		n := 1 + rng.IntN(120)
		for i := range n {
			id := fmt.Sprintf("e%d", i)
			es = append(es, Entity{ID: id, Name: id})
			// Few distinct weights, so that most comparisons go to the
			// entity and the relation key.
			w := float64(1+rng.IntN(3)) / 3
			rs = append(rs, Relation{SourceID: "hub", TargetID: id, Type: "r", Weight: w})
			if rng.IntN(3) == 0 { // a second relation to the same entity
				rs = append(rs, Relation{SourceID: "hub", TargetID: id, Type: "r2", Weight: w})
			}
		}
		require.NoError(t, g.AddBatch(ctx, es, rs))
		st := g.step(nil, AsOf{})
		w := &walker{st: st, cfg: walkConfig{fanout: 1 + rng.IntN(40)}}
		hub := g.ids["hub"]
		var all []wcand
		list := slices.Clone(g.nodes[hub].out)
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		grp := &wgroup{}
		for _, a := range list {
			w.offer(grp, a.To, a.Rel, a.W)
			all = append(all, wcand{a.To, a.Rel, a.W, st.idHash(a.To)})
		}
		slices.SortFunc(all, func(a, b wcand) int {
			if w.candBetter(a, b) {
				return -1
			}
			if w.candBetter(b, a) {
				return 1
			}
			return 0
		})
		want := all[:min(len(all), w.cfg.fanout)]
		got := slices.Clone(grp.cands)
		slices.SortFunc(got, func(a, b wcand) int {
			if w.candBetter(a, b) {
				return -1
			}
			return 1
		})
		require.Equal(t, want, got, "round %d: fanout %d of %d offers", round, w.cfg.fanout, len(list))
	}
}
