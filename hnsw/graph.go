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
// Distance is 1 − dot product. Node IDs are dense int32s, slots that a
// later insertion reuses once freed; vectors are kept in one flat slice.
//
// Every choice is deterministic: node levels come from a seeded generator,
// equal distances are ordered by node ID in searches and by a fixed hash
// of the two nodes when choosing neighbours (see selectNeighbors), so the
// same calls build the same graph and a search always returns the same
// nodes.
//
// A removed node is a tombstone (dead): it keeps its vector and links,
// still routes searches and is never returned, and no new link points to
// it. The sweep (see sweep) walks over the nodes a bounded step at a time,
// replacing the links to tombstones with links through them, and frees a
// tombstone's slot once a whole pass has run since its removal, when no
// live node links to it any more. Other tombstones still may: searches
// skip free slots, and the layers a reused slot's new node lacks.
type graph struct {
	dims           int
	m, m0, efBuild int
	ml             float64
	rng            *rand.Rand

	vecs  []float32   // vecs[i*dims:(i+1)*dims] is node i's vector
	links [][][]int32 // links[i][l] are node i's neighbours on layer l
	state []slot
	died  []uint32 // died[i] is the sweep pass in which dead node i was removed
	spare []int32  // free slots, the last freed reused first
	entry int32    // -1 when empty; dead only while no live node is found near it
	top   int      // the entry's level
	nlive int
	ndead int

	// The sweep's place: the node and layer it looks at next, and how many
	// passes over every slot it has begun.
	cursor int32
	layer  int
	pass   uint32

	// work counts the distance computations and neighbour-list entries
	// read by add and remove (searches, which may run concurrently, do not
	// count), so that tests can bound the cost of a call.
	work int

	visited sync.Pool // *visitSet, for concurrent searches
}

// slot is what a node ID holds.
type slot uint8

const (
	slotFree slot = iota // nothing: a spare slot, its links nil
	slotLive             // a node searches return
	slotDead             // a tombstone: routes searches, never returned
)

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

func (g *graph) dist(q []float32, i int32) float32 { return 1 - dot(q, g.vec(i)) }

// dot is the dot product of a and b, of the same length; vek32.Dot
// rejects empty vectors, of which it is 0.
func dot(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return vek32.Dot(a, b)
}

// limit is the most neighbours a node keeps on layer l.
func (g *graph) limit(l int) int {
	if l == 0 {
		return g.m0
	}
	return g.m
}

// visits returns a cleared visitSet for the graph's nodes; give it back to
// g.visited.
func (g *graph) visits() *visitSet {
	vs, _ := g.visited.Get().(*visitSet)
	if vs == nil {
		vs = &visitSet{}
	}
	if len(vs.mark) < g.len() {
		vs.mark = make([]uint32, g.len()+g.len()/4+16)
		vs.gen = 0
	}
	vs.next()
	return vs
}

// next clears vs.
func (vs *visitSet) next() {
	vs.gen++
	if vs.gen == 0 {
		clear(vs.mark)
		vs.gen = 1
	}
}

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

// searchLayer returns up to ef live nodes of layer l nearest q, found from
// the entry points eps, in no particular order (algorithm 2). Tombstones
// are walked through but not returned. work, when not nil, is increased by
// the number of distances computed.
func (g *graph) searchLayer(q []float32, eps []cand, ef, l int, work *int) []cand {
	vs := g.visits()
	defer g.visited.Put(vs)

	size := min(ef, g.len()) + 1
	cands := heap{c: make([]cand, 0, size)}
	found := heap{c: make([]cand, 0, size), max: true}
	for _, e := range eps {
		if vs.mark[e.id] == vs.gen {
			continue
		}
		vs.mark[e.id] = vs.gen
		cands.push(e)
		if g.state[e.id] == slotLive {
			found.push(e)
			if len(found.c) > ef {
				found.pop()
			}
		}
	}
	dists := 0
	for len(cands.c) > 0 {
		c := cands.pop()
		if len(found.c) >= ef && closer(found.c[0], c) {
			break
		}
		if l >= len(g.links[c.id]) {
			continue // a stale link of a tombstone to a reused slot
		}
		for _, n := range g.links[c.id][l] {
			if vs.mark[n] == vs.gen || g.state[n] == slotFree {
				continue
			}
			vs.mark[n] = vs.gen
			x := cand{g.dist(q, n), n}
			dists++
			if len(found.c) < ef || closer(x, found.c[0]) {
				cands.push(x)
				if g.state[n] == slotLive {
					found.push(x)
					if len(found.c) > ef {
						found.pop()
					}
				}
			}
		}
	}
	if work != nil {
		*work += dists
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
			g.work++
			if 1-dot(cv, g.vec(k)) < c.d {
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
			g.work++
			cs = append(cs, cand{1 - dot(nv, g.vec(x)), x})
		}
	}
	return g.selectNeighbors(n, keep, cs, limit)
}

// alloc stores vec as a new live node of the given level, in a spare slot
// when there is one, and returns its ID.
func (g *graph) alloc(vec []float32, level int) int32 {
	g.nlive++
	if n := len(g.spare); n > 0 {
		id := g.spare[n-1]
		g.spare = g.spare[:n-1]
		copy(g.vec(id), vec)
		g.links[id] = make([][]int32, level+1)
		g.state[id] = slotLive
		return id
	}
	id := int32(g.len())
	g.vecs = append(g.vecs, vec...)
	g.links = append(g.links, make([][]int32, level+1))
	g.state = append(g.state, slotLive)
	g.died = append(g.died, 0)
	return id
}

// add inserts vec (unit, dims long) as a node and returns its ID
// (algorithm 1). A node that every neighbour's pruning dropped is put back
// into its nearest neighbour's list, so that every node is linked to on
// each layer it has links on.
func (g *graph) add(vec []float32) int32 {
	level := int(-math.Log(1-g.rng.Float64()) * g.ml)
	id := g.alloc(vec, level)
	if g.entry < 0 {
		g.entry, g.top = id, level
		return id
	}
	q := g.vec(id)
	ep := cand{g.dist(q, g.entry), g.entry}
	g.work++
	for l := g.top; l > level; l-- {
		ep = g.greedy(q, ep, l, &g.work)
	}
	eps := []cand{ep}
	linked := false
	for l := min(level, g.top); l >= 0; l-- {
		w := g.searchLayer(q, eps, g.efBuild, l, &g.work)
		if len(w) == 0 {
			continue // only tombstones near: keep the entry points
		}
		linked = true
		eps = slices.Clone(w)
		limit := g.limit(l)
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
		if !back {
			n := nbrs[0]
			g.links[n][l] = g.prune(n, g.links[n][l], limit, []int32{id})
		}
	}
	if level > g.top || (g.state[g.entry] != slotLive && (level >= g.top || !linked)) {
		g.entry, g.top = id, level
	}
	return id
}

// greedy walks layer l from ep to the node nearest q it can reach by
// always moving closer. work, when not nil, is increased by the number of
// distances computed.
func (g *graph) greedy(q []float32, ep cand, l int, work *int) cand {
	dists := 0
	for changed := true; changed && l < len(g.links[ep.id]); {
		changed = false
		for _, n := range g.links[ep.id][l] {
			if g.state[n] == slotFree {
				continue
			}
			dists++
			if x := (cand{g.dist(q, n), n}); closer(x, ep) {
				ep, changed = x, true
			}
		}
	}
	if work != nil {
		*work += dists
	}
	return ep
}

// search returns up to ef live nodes nearest q, nearest first (algorithm
// 5).
func (g *graph) search(q []float32, ef int) []cand {
	if g.entry < 0 || g.nlive == 0 {
		return nil
	}
	ep := cand{g.dist(q, g.entry), g.entry}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(q, ep, l, nil)
	}
	w := g.searchLayer(q, []cand{ep}, ef, 0, nil)
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

// remove makes live node n a tombstone, finds a new entry point if n was
// it, and runs one step of the sweep; the last live node's removal
// empties the graph. Its work is bounded by removeBound.
func (g *graph) remove(n int32) {
	if n < 0 || int(n) >= g.len() || g.state[n] != slotLive {
		return
	}
	g.state[n] = slotDead
	g.died[n] = g.pass
	g.nlive--
	g.ndead++
	if g.nlive == 0 {
		g.clear()
		return
	}
	if n == g.entry {
		g.replaceEntry()
	}
	g.sweep()
}

// clear empties the graph; the generator of levels goes on.
func (g *graph) clear() {
	g.vecs, g.links, g.state, g.died, g.spare = nil, nil, nil, nil, nil
	g.entry, g.top, g.nlive, g.ndead = -1, 0, 0, 0
	g.cursor, g.layer = 0, 0
}

// entryBound is the most neighbour-list entries replaceEntry reads.
func (g *graph) entryBound() int { return g.efBuild * g.m0 }

// replaceEntry makes a live node near the dead entry point the entry
// point. From the highest layer down, it walks from the entry through
// tombstones, and takes the live node of the highest level among the
// neighbours of the first node that has any, reading at most entryBound
// list entries in all. When it finds none, the tombstone stays the entry
// point (searches still start there, and the sweep repairs its links)
// until a later call finds one.
func (g *graph) replaceEntry() {
	budget := g.entryBound()
	vs := g.visits()
	defer g.visited.Put(vs)
	for l := g.top; l >= 0 && budget > 0; l-- {
		if l < g.top {
			vs.next()
		}
		vs.mark[g.entry] = vs.gen
		queue := []int32{g.entry}
		best := int32(-1)
		for i := 0; i < len(queue) && best < 0 && budget > 0; i++ {
			t := queue[i]
			if l >= len(g.links[t]) {
				continue
			}
			for _, x := range g.links[t][l] {
				if budget == 0 {
					break
				}
				budget--
				g.work++
				if vs.mark[x] == vs.gen {
					continue
				}
				vs.mark[x] = vs.gen
				switch g.state[x] {
				case slotLive:
					if best < 0 || len(g.links[x]) > len(g.links[best]) {
						best = x
					}
				case slotDead:
					queue = append(queue, x)
				}
			}
		}
		if best >= 0 {
			g.entry, g.top = best, len(g.links[best])-1
			return
		}
	}
}

// repairBound is the most work one repair of a list on layer l does:
// reading the list and the lists of the tombstones it holds, a distance
// to each node these hold, and the heuristic's comparisons of at most
// efBuild candidates with the neighbours kept.
func (g *graph) repairBound(l int) int {
	k := g.limit(l)
	return k + 2*k*k + g.efBuild*k
}

// sweepBudget is the work after which a step of the sweep starts nothing
// more: two repairs of a full layer-0 list of tombstones.
func (g *graph) sweepBudget() int { return 2 * g.repairBound(0) }

// removeBound is the most work a remove does, whatever the size of the
// graph: finding a new entry point, a step of the sweep (its budget, plus
// the repair it may have begun just under it), and finding a new entry
// point again after the step.
func (g *graph) removeBound() int {
	return 2*g.entryBound() + g.sweepBudget() + g.repairBound(0)
}

// sweep runs one step of the sweep while there are tombstones: it moves
// over the nodes in ID order, a layer at a time, from where the last step
// stopped, starting over at node 0 after the last (a new pass), until its
// work reaches sweepBudget. At a live node, or the entry point, it
// repairs the lists that hold tombstones (see repair); at a tombstone
// removed two or more passes ago it frees the slot. A whole pass has then
// looked at every node since the tombstone was removed, and no live node
// has links to it: none had after that pass's look, and no link to a
// tombstone is ever made.
func (g *graph) sweep() {
	start := g.work
	for g.ndead > 0 && g.work-start < g.sweepBudget() {
		if int(g.cursor) >= g.len() {
			g.cursor, g.layer = 0, 0
			g.pass++
			g.work++
			continue
		}
		n := g.cursor
		switch {
		case g.state[n] == slotFree:
		case g.state[n] == slotDead && n != g.entry:
			if g.pass-g.died[n] >= 2 {
				g.release(n)
			}
		case g.layer < len(g.links[n]):
			g.clean(n, g.layer)
			g.layer++
			continue
		}
		g.work++
		g.cursor++
		g.layer = 0
	}
	if g.entry >= 0 && g.state[g.entry] == slotDead {
		g.replaceEntry()
	}
}

// release frees tombstone n's slot for reuse.
func (g *graph) release(n int32) {
	g.state[n] = slotFree
	g.links[n] = nil
	g.ndead--
	g.spare = append(g.spare, n)
}

// clean repairs node u's list on layer l if it holds a node not live.
func (g *graph) clean(u int32, l int) {
	ls := g.links[u][l]
	g.work += len(ls) + 1
	for _, x := range ls {
		if g.state[x] != slotLive {
			g.repair(u, l)
			return
		}
	}
}

// repair replaces the tombstones in node u's list on layer l: it keeps
// the live nodes the list holds and adds, by the neighbour selection
// heuristic, those of the live nodes in the tombstones' own lists on
// layer l that fit, so that what u reached through a tombstone it reaches
// directly. Its work is at most repairBound(l).
func (g *graph) repair(u int32, l int) {
	old := g.links[u][l]
	vs := g.visits()
	defer g.visited.Put(vs)
	vs.mark[u] = vs.gen
	keep := make([]int32, 0, len(old))
	for _, x := range old {
		if g.state[x] == slotLive {
			vs.mark[x] = vs.gen
			keep = append(keep, x)
		}
	}
	uv := g.vec(u)
	var cs []cand
	for _, t := range old {
		if g.state[t] != slotDead || l >= len(g.links[t]) {
			continue
		}
		for _, x := range g.links[t][l] {
			g.work++
			if vs.mark[x] == vs.gen {
				continue
			}
			vs.mark[x] = vs.gen
			if g.state[x] == slotLive && l < len(g.links[x]) {
				g.work++
				cs = append(cs, cand{1 - dot(uv, g.vec(x)), x})
			}
		}
	}
	if len(cs) > g.efBuild {
		// The heuristic looks at the nearest efBuild only.
		slices.SortFunc(cs, func(a, b cand) int {
			if c := cmp.Compare(a.d, b.d); c != 0 {
				return c
			}
			return cmp.Compare(tieKey(u, a.id), tieKey(u, b.id))
		})
		cs = cs[:g.efBuild]
	}
	g.links[u][l] = g.selectNeighbors(u, keep, cs, g.limit(l))
}
