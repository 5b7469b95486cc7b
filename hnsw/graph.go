package hnsw

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"
)

// graph is an HNSW graph over unit vectors (Malkov and Yashunin, "Efficient
// and robust approximate nearest neighbor search using Hierarchical
// Navigable Small World graphs", 2018): algorithms 1 (insert), 2 (search a
// layer), 4 (the neighbour selection heuristic) and 5 (k-NN search).
// Distance is 1 − dot product. Node IDs are dense int32s in insertion
// order; vectors are kept in one flat slice.
//
// Every choice is deterministic: node levels come from a seeded generator,
// equal distances are ordered by node ID in searches and by a fixed hash
// of the two nodes when choosing neighbours (see selectNeighbors), so the
// same insertions build the same graph and a search always returns the
// same nodes.
type graph struct {
	dims           int
	m, m0, efBuild int
	ml             float64
	rng            *rand.Rand

	vecs  []float32   // vecs[i*dims:(i+1)*dims] is node i's vector
	links [][][]int32 // links[i][l] are node i's neighbours on layer l
	entry int32       // -1 when empty
	top   int         // the entry's level

	visited sync.Pool // *visitSet, for concurrent searches
}

// visitSet marks the nodes a search has seen: mark[i] == gen.
type visitSet struct {
	mark []uint32
	gen  uint32
}

func newGraph(dims, m, efBuild int, seed uint64) *graph {
	return &graph{
		dims: dims, m: m, m0: 2 * m, efBuild: efBuild, ml: 1 / math.Log(float64(m)),
		rng: rand.New(rand.NewPCG(seed, 0x6b676d656d)), entry: -1,
	}
}

func (g *graph) len() int { return len(g.links) }

func (g *graph) vec(i int32) []float32 {
	return g.vecs[int(i)*g.dims : int(i+1)*g.dims]
}

func (g *graph) dist(q []float32, i int32) float32 { return 1 - vek32.Dot(q, g.vec(i)) }

// cand is a node and its distance to the query.
type cand struct {
	d  float32
	id int32
}

// closer orders candidates by distance, then node ID.
func closer(a, b cand) bool { return a.d < b.d || (a.d == b.d && a.id < b.id) }

// heap is a binary heap of candidates; with max set, its root is the
// farthest, else the closest.
type heap struct {
	c   []cand
	max bool
}

func (h *heap) less(i, j int) bool {
	if h.max {
		return closer(h.c[j], h.c[i])
	}
	return closer(h.c[i], h.c[j])
}

func (h *heap) push(x cand) {
	h.c = append(h.c, x)
	for i := len(h.c) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.c[i], h.c[p] = h.c[p], h.c[i]
		i = p
	}
}

func (h *heap) pop() cand {
	top := h.c[0]
	n := len(h.c) - 1
	h.c[0] = h.c[n]
	h.c = h.c[:n]
	for i := 0; ; {
		l, r, best := 2*i+1, 2*i+2, i
		if l < n && h.less(l, best) {
			best = l
		}
		if r < n && h.less(r, best) {
			best = r
		}
		if best == i {
			break
		}
		h.c[i], h.c[best] = h.c[best], h.c[i]
		i = best
	}
	return top
}

// searchLayer returns up to ef nodes of layer l nearest q, found from the
// entry points eps, in no particular order (algorithm 2).
func (g *graph) searchLayer(q []float32, eps []cand, ef, l int) []cand {
	vs, _ := g.visited.Get().(*visitSet)
	if vs == nil {
		vs = &visitSet{}
	}
	if len(vs.mark) < g.len() {
		vs.mark = make([]uint32, g.len()+g.len()/4+16)
		vs.gen = 0
	}
	vs.gen++
	if vs.gen == 0 {
		clear(vs.mark)
		vs.gen = 1
	}
	defer g.visited.Put(vs)

	cands := heap{c: make([]cand, 0, ef)}
	found := heap{c: make([]cand, 0, ef+1), max: true}
	for _, e := range eps {
		vs.mark[e.id] = vs.gen
		cands.push(e)
		found.push(e)
		if len(found.c) > ef {
			found.pop()
		}
	}
	for len(cands.c) > 0 {
		c := cands.pop()
		if len(found.c) >= ef && closer(found.c[0], c) {
			break
		}
		for _, n := range g.links[c.id][l] {
			if vs.mark[n] == vs.gen {
				continue
			}
			vs.mark[n] = vs.gen
			x := cand{g.dist(q, n), n}
			if len(found.c) < ef || closer(x, found.c[0]) {
				cands.push(x)
				found.push(x)
				if len(found.c) > ef {
					found.pop()
				}
			}
		}
	}
	return found.c
}

// tieKey orders the candidates at equal distances from base when choosing
// base's neighbours: a hash of the two node IDs (the splitmix64
// finalizer, a bijection, so no two candidates share a key). Ordering them
// by node ID instead would make every full list of equidistant
// neighbours drop the newest node, leaving it with no link to it.
func tieKey(base, c int32) uint64 {
	z := uint64(uint32(base))<<32 | uint64(uint32(c))
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// selectNeighbors returns at most m neighbours for node base: keep (which
// cs does not hold), then of cs, whose distances are to base (algorithm 4,
// the heuristic without extension): closest first, a candidate is kept
// only when it is closer to base than to every node kept, so that the
// links spread in all directions; the places left are filled with the
// closest of those dropped. Candidates at equal distances are taken in
// the order of tieKey. It reorders cs.
func (g *graph) selectNeighbors(base int32, keep []int32, cs []cand, m int) []int32 {
	slices.SortFunc(cs, func(a, b cand) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		return cmp.Compare(tieKey(base, a.id), tieKey(base, b.id))
	})
	keep = keep[:min(len(keep), m)]
	kept := make([]int32, 0, min(m, len(keep)+len(cs)))
	kept = append(kept, keep...)
	var dropped []int32
	for _, c := range cs {
		if len(kept) >= m {
			break
		}
		ok := true
		cv := g.vec(c.id)
		for _, k := range kept {
			if 1-vek32.Dot(cv, g.vec(k)) < c.d {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, c.id)
		} else {
			dropped = append(dropped, c.id)
		}
	}
	for _, d := range dropped {
		if len(kept) >= m {
			break
		}
		kept = append(kept, d)
	}
	return kept
}

// prune chooses at most limit neighbours of n among keep and ids (see
// selectNeighbors); ids may hold keep's nodes.
func (g *graph) prune(n int32, ids []int32, limit int, keep []int32) []int32 {
	nv := g.vec(n)
	cs := make([]cand, 0, len(ids))
	for _, x := range ids {
		if !slices.Contains(keep, x) {
			cs = append(cs, cand{1 - vek32.Dot(nv, g.vec(x)), x})
		}
	}
	return g.selectNeighbors(n, keep, cs, limit)
}

// add inserts vec (unit, dims long) as node len() and returns its ID
// (algorithm 1). A node that every neighbour's pruning dropped is put back
// into its nearest neighbour's list, so that every node is linked to on
// each layer it has links on.
func (g *graph) add(vec []float32) int32 {
	id := int32(g.len())
	g.vecs = append(g.vecs, vec...)
	level := int(-math.Log(1-g.rng.Float64()) * g.ml)
	g.links = append(g.links, make([][]int32, level+1))
	if g.entry < 0 {
		g.entry, g.top = id, level
		return id
	}
	q := g.vec(id)
	eps := []cand{{g.dist(q, g.entry), g.entry}}
	for l := g.top; l > level; l-- {
		eps = g.greedy(q, eps[0], l)
	}
	for l := min(level, g.top); l >= 0; l-- {
		w := g.searchLayer(q, eps, g.efBuild, l)
		eps = slices.Clone(w)
		limit := g.m
		if l == 0 {
			limit = g.m0
		}
		nbrs := g.selectNeighbors(id, nil, w, g.m)
		g.links[id][l] = nbrs
		back := false
		for _, n := range nbrs {
			ln := append(g.links[n][l], id)
			if len(ln) > limit {
				ln = g.prune(n, ln, limit, nil)
			}
			g.links[n][l] = ln
			back = back || slices.Contains(ln, id)
		}
		if !back && len(nbrs) > 0 {
			n := nbrs[0]
			g.links[n][l] = g.prune(n, g.links[n][l], limit, []int32{id})
		}
	}
	if level > g.top {
		g.entry, g.top = id, level
	}
	return id
}

// greedy walks layer l from ep to the node nearest q it can reach by
// always moving closer.
func (g *graph) greedy(q []float32, ep cand, l int) []cand {
	for changed := true; changed; {
		changed = false
		for _, n := range g.links[ep.id][l] {
			if x := (cand{g.dist(q, n), n}); closer(x, ep) {
				ep, changed = x, true
			}
		}
	}
	return []cand{ep}
}

// search returns up to ef nodes nearest q, nearest first (algorithm 5).
func (g *graph) search(q []float32, ef int) []cand {
	if g.entry < 0 {
		return nil
	}
	eps := []cand{{g.dist(q, g.entry), g.entry}}
	for l := g.top; l > 0; l-- {
		eps = g.greedy(q, eps[0], l)
	}
	w := g.searchLayer(q, eps, ef, 0)
	slices.SortFunc(w, func(a, b cand) int {
		if closer(a, b) {
			return -1
		}
		if closer(b, a) {
			return 1
		}
		return 0
	})
	return w
}
