package walk

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/internal/question"
	"github.com/kgmem/kgmem/internal/traverse"
	"github.com/stretchr/testify/require"
)

// refNames are the entity names of the random graphs: distinct, so that a
// question names exactly the entities it was written with.
var refNames = []string{"Ann", "Bob Lee", "Cleo", "Dan", "Eve Stone", "Finn", "Gus", "Hana Mori", "Ivo", "Jill"}

var refTypes = []string{"person", "film", "city", "", "team"}

var refRelations = []string{"directed_by", "starred_actors", "spouse", "parents", "children", "lives_in",
	"works_on", "has_genre", "film/film/written_by", "reportsTo"}

// refWords are the words the random questions are made of, besides
// entity names: relation words, type words, wh-words, fillers.
var refWords = []string{"who", "which", "what", "where", "directed", "director", "star", "starred", "actors",
	"spouse", "wife", "parent", "father", "child", "son", "lives", "live", "city", "film", "films", "movie",
	"works", "working", "genre", "written", "writer", "reports", "same", "share", "the", "of", "'s", "is", "in",
	"did", "people", "team", "导演", "住在", "什么", "电影"}

// rel is a relation of a testGraph.
type rel struct {
	src, dst int32
	typ      int32
	w        float64
}

// testGraph is a Stepper over adjacency lists, as the in-memory graph's.
type testGraph struct {
	ids, names, types []string // by node
	typeNames         []string // by type handle
	rels              []rel
	out, in           [][]traverse.Adj
}

func (g *testGraph) addRel(src, dst int32, typ string, w float64) {
	t := int32(slices.Index(g.typeNames, typ))
	if t < 0 {
		t = int32(len(g.typeNames))
		g.typeNames = append(g.typeNames, typ)
	}
	r := int32(len(g.rels))
	g.rels = append(g.rels, rel{src, dst, t, w})
	g.out[src] = append(g.out[src], traverse.Adj{To: dst, Rel: r, W: w})
	g.in[dst] = append(g.in[dst], traverse.Adj{To: src, Rel: r, W: w})
}

func (g *testGraph) key(r int32) string {
	x := g.rels[r]
	return g.ids[x.src] + "/" + g.typeNames[x.typ] + "/" + g.ids[x.dst]
}

func (g *testGraph) ID(n int32) string          { return g.ids[n] }
func (g *testGraph) CompareRels(a, b int32) int { return cmp.Compare(g.key(a), g.key(b)) }
func (g *testGraph) TypeName(t int32) string    { return g.typeNames[t] }
func (g *testGraph) SameRel(a, b int32) bool    { return a == b }
func (g *testGraph) NodeType(n int32) string    { return g.types[n] }
func (g *testGraph) NodeName(n int32) string    { return g.names[n] }
func (g *testGraph) IDHash(n int32) uint64      { return IDHash(g.ids[n]) }

func (g *testGraph) Expand(ctx context.Context, frontier []int32, dir traverse.Dir, limit int, visit func(int, int32, int32, float64)) (int, bool, error) {
	n := 0
	err := g.ExpandTyped(ctx, frontier, dir, func(from int, to, rel, _ int32, w float64, _ bool) {
		n++
		visit(from, to, rel, w)
	})
	return n, false, err
}

// ExpandTyped reports a self-loop once under Both, from the out list.
func (g *testGraph) ExpandTyped(ctx context.Context, frontier []int32, dir traverse.Dir, visit func(int, int32, int32, int32, float64, bool)) error {
	for i, u := range frontier {
		for d, list := range [2][]traverse.Adj{g.out[u], g.in[u]} {
			if d == 0 && dir == traverse.In || d == 1 && dir == traverse.Out {
				continue
			}
			for _, a := range list {
				if d == 1 && a.To == u && dir == traverse.Both {
					continue
				}
				visit(i, a.To, a.Rel, g.rels[a.Rel].typ, a.W, d == 1 && a.To != u)
			}
		}
	}
	return ctx.Err()
}

// randomGraph returns a small random multigraph with self-loops, parallel
// relations and weights in {0.5, 0.8, 1}.
func randomGraph(rng *rand.Rand) *testGraph {
	n := 4 + rng.IntN(len(refNames)-3)
	g := &testGraph{out: make([][]traverse.Adj, n), in: make([][]traverse.Adj, n)}
	for i := range n {
		g.ids = append(g.ids, fmt.Sprintf("e%d", i))
		g.names = append(g.names, refNames[i])
		g.types = append(g.types, refTypes[rng.IntN(len(refTypes))])
	}
	seen := map[string]bool{}
	for range n + rng.IntN(2*n) {
		src, dst := int32(rng.IntN(n)), int32(rng.IntN(n))
		typ := refRelations[rng.IntN(len(refRelations))]
		if k := fmt.Sprint(src, typ, dst); !seen[k] {
			seen[k] = true
			g.addRel(src, dst, typ, []float64{0.5, 0.8, 1}[rng.IntN(3)])
		}
	}
	return g
}

// randomQuestion returns 2–7 random words with one or two entity names
// among them, and the starts those names give.
func randomQuestion(rng *rand.Rand, g *testGraph) (string, *question.Analysis, []Start) {
	var words []string
	for range 2 + rng.IntN(6) {
		words = append(words, refWords[rng.IntN(len(refWords))])
	}
	for range 1 + rng.IntN(2) {
		name := g.names[rng.IntN(len(g.names))]
		at := rng.IntN(len(words) + 1)
		words = append(words[:at], append([]string{name}, words[at:]...)...)
	}
	query := strings.Join(words, " ") + "?"
	// Link every whole occurrence of a name, as the graph's linker would.
	type link struct {
		node       int32
		start, end int
	}
	var links []link
	for n, name := range g.names {
		for off := 0; ; {
			i := strings.Index(query[off:], name)
			if i < 0 {
				break
			}
			s, e := off+i, off+i+len(name)
			if (s == 0 || query[s-1] == ' ') && (e == len(query) || query[e] == ' ' || query[e] == '?' || query[e] == '\'') {
				links = append(links, link{int32(n), s, e})
			}
			off = e
		}
	}
	spans := make([][2]int, len(links))
	for i, l := range links {
		spans[i] = [2]int{l.start, l.end}
	}
	q := question.Analyze(query, spans)
	var starts []Start
	for _, l := range links {
		first, last := -1, -1
		for i, u := range q.Units {
			if u.Start >= l.start && u.End <= l.end {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first >= 0 && !slices.ContainsFunc(starts, func(s Start) bool { return s.Node == l.node }) {
			starts = append(starts, Start{Node: l.node, Quality: 1 - 0.1*float64(len(starts)), First: first, Last: last})
		}
	}
	return query, q, starts
}

// exhaustiveWalks extends every walk from state si by every relation and
// every reading of the hop, depth first, down to cfg.Hops hops: what the
// search's beam reaches when no budget binds.
func exhaustiveWalks(w *Walker, g *testGraph, si int32) {
	s := w.states[si]
	if int(s.hops) == w.cfg.Hops {
		return
	}
	follow := func(a traverse.Adj, back bool) {
		if s.rel >= 0 && s.back != back && a.Rel == s.rel {
			return // straight back over the relation just walked
		}
		gi := w.addGroup(si, g.rels[a.Rel].typ, back)
		grp := w.groups[gi]
		for _, v := range slices.Clone(grp.variants) {
			w.states = append(w.states, wstate{node: a.To, parent: si, rel: a.Rel, typ: grp.typ, start: s.start,
				hops: s.hops + 1, back: back, mask: v.mask, lastKey: v.key, score: s.score * v.factor * hopWeight(a.W),
				strength: v.strength, term: v.term, pivoted: s.pivoted || v.pivot, idHash: IDHash(g.ids[a.To])})
			exhaustiveWalks(w, g, int32(len(w.states)-1))
		}
	}
	if w.cfg.Dir != traverse.In {
		for _, a := range g.out[s.node] {
			follow(a, false)
		}
	}
	if w.cfg.Dir != traverse.Out {
		for _, a := range g.in[s.node] {
			if a.To != s.node || w.cfg.Dir == traverse.In {
				follow(a, a.To != s.node)
			}
		}
	}
}

// refAnswer is one entity of an answer: its score and best walk.
type refAnswer struct {
	ID    string
	Score float64
	Walk  string
}

func refAnswers(w *Walker, g *testGraph, query string) ([]refAnswer, []bool) {
	answers, kept := w.Answers(0)
	var out []refAnswer
	for _, a := range answers {
		var b strings.Builder
		for i, si := range w.Path(a.State) {
			node, rel, start, end := w.Hop(si)
			if i > 0 {
				words := ""
				if start >= 0 {
					words = query[start:end]
				}
				fmt.Fprintf(&b, " %s[%s] ", g.key(rel), words)
			}
			b.WriteString(g.ids[node])
		}
		out = append(out, refAnswer{g.ids[a.Node], a.Score, b.String()})
	}
	return out, kept
}

// TestSearchMatchesExhaustiveWalks runs the search on random small
// multigraphs with random questions, with a budget too large to bind, and
// compares every entity's score and best walk, the order of the answers
// and the mentions kept with those of an exhaustive depth-first
// enumeration of every walk and every reading of its hops.
func TestSearchMatchesExhaustiveWalks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 13))
	ctx := context.Background()
	searched := new(Walker) // reused across trials, as a graph reuses its walkers
	compared := 0
	for trial := range 400 {
		g := randomGraph(rng)
		query, q, starts := randomQuestion(rng, g)
		cfg := Config{Hops: 1 + rng.IntN(3), Dir: []traverse.Dir{traverse.Both, traverse.Both, traverse.Out, traverse.In}[rng.IntN(4)],
			Beam: 1 << 30, PerEntity: 1 << 30, Fanout: 1 << 30, Readings: 1 << 30, Exhaustive: true}
		if rng.IntN(3) == 0 {
			cfg.Vocab = question.CompileVocab(map[string][]string{"spouse": {"married to"}, "lives_in": {"home town", "住在"}},
				map[string][]string{"parents": {"son", "child"}}, map[string][]string{"film": {"movie", "电影"}})
		}
		if len(starts) == 0 {
			continue
		}
		require.NoError(t, searched.Search(ctx, g, q, starts, cfg))
		got, gotKept := refAnswers(searched, g, query)

		ref := new(Walker)
		ref.reset(g, q, cfg, starts)
		for i, s := range starts {
			ref.states = append(ref.states, wstate{node: s.Node, parent: -1, rel: -1, typ: -1, start: int32(i),
				lastKey: -1, score: s.Quality, term: -1, idHash: IDHash(g.ids[s.Node])})
		}
		for i := range starts {
			exhaustiveWalks(ref, g, int32(i))
		}
		want, wantKept := refAnswers(ref, g, query)
		require.Equal(t, wantKept, gotKept, "trial %d: %q", trial, query)
		require.Equal(t, want, got, "trial %d: %q, %d hops, %v", trial, query, cfg.Hops, cfg.Dir)
		compared++
	}
	require.Greater(t, compared, 300)
}

// TestOfferKeepsTheBest: a walk group keeps, of every relation offered to
// it, exactly the cfg.Fanout best by candBetter (weight, then the entity,
// then the relation key), whatever the order of the offers; ties in
// weight and equal ID hashes included.
func TestOfferKeepsTheBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 40 {
		n := 1 + rng.IntN(120)
		g := &testGraph{out: make([][]traverse.Adj, n+1), in: make([][]traverse.Adj, n+1)}
		g.ids, g.names, g.types = append(g.ids, "hub"), append(g.names, "Hub"), append(g.types, "")
		for i := range n {
			id := fmt.Sprintf("e%d", i)
			g.ids, g.names, g.types = append(g.ids, id), append(g.names, id), append(g.types, "")
			// Few distinct weights, so that most comparisons go to the
			// entity and the relation key.
			w := float64(1+rng.IntN(3)) / 3
			g.addRel(0, int32(i+1), "r", w)
			if rng.IntN(3) == 0 { // a second relation to the same entity
				g.addRel(0, int32(i+1), "r2", w)
			}
		}
		w := &Walker{st: g, cfg: Config{Fanout: 1 + rng.IntN(40)}}
		var all []wcand
		list := slices.Clone(g.out[0])
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		grp := &wgroup{}
		for _, a := range list {
			w.offer(grp, a.To, a.Rel, a.W)
			all = append(all, wcand{a.To, a.Rel, a.W, g.IDHash(a.To)})
		}
		order := func(a, b wcand) int {
			if w.candBetter(a, b) {
				return -1
			}
			if w.candBetter(b, a) {
				return 1
			}
			return 0
		}
		slices.SortFunc(all, order)
		want := all[:min(len(all), w.cfg.Fanout)]
		got := slices.Clone(grp.cands)
		slices.SortFunc(got, order)
		require.Equal(t, want, got, "round %d: fanout %d of %d offers", round, w.cfg.Fanout, len(list))
	}
}
