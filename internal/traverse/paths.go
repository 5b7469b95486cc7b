package traverse

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
)

// maxPooledPartials is the most partial paths a PathSearch keeps buffers
// for between searches (2 MiB; see Reusable), and maxPooledArena the most
// handles of found paths.
const (
	maxPooledPartials = 1 << 16
	maxPooledArena    = 1 << 16
)

// joinCheckEvery is how many pairs of partial paths a join tries between
// two checks of its context.
const joinCheckEvery = 1 << 10

// pathSlack widens score bounds that are not computed in the same order as a
// path's exact score, so that rounding never prunes a path that belongs in the
// answer. Exact scores decide the answer; bounds only skip work.
const pathSlack = 1 + 1e-9

// partial is a path grown from one end of the search: it ends at node, and
// parent indexes the partial it extends (-1 for the root, the end itself).
type partial struct {
	node, parent, rel, depth int32
	score                    float64 // product of the weights from the root, in walking order
	w                        float64 // weight of rel
}

// pathSide is one half of the meet-in-the-middle search.
type pathSide struct {
	dir    Dir     // the direction relations are walked from this side's root
	avoid  int32   // the other end: partials are never extended past it
	slack  float64 // bound widening for this side's partial scores
	parts  []partial
	levels [][]int32 // levels[d]: partials of depth d, sorted by node, then score descending
}

// PathSearch holds one FindPaths call. Its sides and buffers are scratch
// space that a graph reuses across calls (the in-memory graph pools them),
// so a search allocates in proportion to its answer, not to what it
// explored.
type PathSearch struct {
	st        Stepper
	cap       int
	scans     int  // relations the search may still scan while growing its sides
	joins     int  // pairs of partial paths the search may still try to join
	joinCut   bool // the join budget ran out: the search stops
	truncated bool
	ticks     int  // joins tried since ctx was last checked
	best      Best // the answer so far

	fwd, bwd       pathSide
	front, nodes   []int32 // scratch for extend
	pathNodes      []int32 // scratch for offer: the path on offer
	pathRels       []int32
	chainX, chainY []int32    // scratch for comparePartials
	keys           []levelKey // scratch for sortLevel

	// State of the level extend is growing, for grow.
	side     *pathSide
	th       float64
	next     []int32
	maxParts int                                      // the most partials side may hold when the level is grown
	meet     *pathSide                                // when the level grown is the last: the side it is joined with
	visit    func(from int, to, rel int32, w float64) // ps.grow, bound once
}

// PathQuery says what a PathSearch looks for.
type PathQuery struct {
	MaxHops        int // the longest path, in relations; at least 1
	MaxPaths       int // how many paths to keep; less than 1 means 1
	MaxNodesPerHop int // the most entities a side grows per hop; 0 for no cap
	Dir            Dir
	// Budget bounds the relations the search scans (and so the partial
	// paths it builds) and, separately, the pairs of partial paths it tries
	// to join. When either runs out the search stops, truncated.
	Budget int
}

// PathStats says what a PathSearch's last search spent.
type PathStats struct {
	ScansLeft int  // relations the scan budget had left
	Partials  int  // partial paths built, the two ends included
	JoinsLeft int  // pairs of partial paths the join budget had left
	JoinCut   bool // the join budget ran out
}

// Stats returns what the last search spent.
func (ps *PathSearch) Stats() PathStats {
	return PathStats{ScansLeft: ps.scans, Partials: len(ps.fwd.parts) + len(ps.bwd.parts), JoinsLeft: ps.joins, JoinCut: ps.joinCut}
}

// Reusable reports whether ps is small enough to keep for a later search:
// at most 2 MiB of partial paths and 256 KiB of handles of found paths.
// A large search's buffers are better left to the garbage collector.
func (ps *PathSearch) Reusable() bool {
	return cap(ps.fwd.parts)+cap(ps.bwd.parts) <= maxPooledPartials && ps.best.arenaCap() <= maxPooledArena
}

// Find returns the best simple paths from handle src to handle dst (src
// != dst) over st, found by meeting in the middle, and whether the search
// was truncated by MaxNodesPerHop or the budget (the paths are then exact
// among those explored). Paths are ordered by score (the product of their
// weights) descending, then fewer hops, then entity IDs and relation keys
// position by position. The answer and its handles are ps's until its next
// search.
//
// The sides grow level by level, in turn (forward 1, backward 1, forward
// 2, …), until the two depths add up to MaxHops; each new level is joined
// with the other side's deepest level, so that every path is found exactly
// once, by joining a forward partial and a backward partial that end at
// the same entity and share no other entity. Levels are joined as soon as
// they exist, so short paths set the bar early: a partial whose score is
// below the k-th best complete score cannot lead to a better path (weights
// are at most 1) and is not grown. ctx is checked between hops, by
// st.Expand, and every thousand pairs of partial paths joined.
//
// ps may be new or from an earlier search; Find resets it.
func (ps *PathSearch) Find(ctx context.Context, st Stepper, src, dst int32, q PathQuery) ([]Path, bool, error) {
	ps.st, ps.cap, ps.scans, ps.truncated = st, q.MaxNodesPerHop, q.Budget, false
	ps.joins, ps.joinCut, ps.ticks = q.Budget, false, 0
	ps.best.Reset(st, q.MaxPaths)
	fwd, bwd := &ps.fwd, &ps.bwd
	fwd.reset(src, dst, q.Dir, 1)
	bwd.reset(dst, src, q.Dir.Reverse(), pathSlack)
	// Each round grows the shallower side (the forward one on a tie): an
	// order that reads nothing a backend must fetch, so every backend
	// grows the same levels and a search the budget or MaxNodesPerHop cuts
	// gives the same answer on each. Its new level is joined with the
	// other side's deepest one. A path of L relations is found once, at the
	// first pair of levels (i, L-i) that both exist: joining a new level d
	// with an older level j < e of the other side would only find again
	// the paths that the pair (d-1, j+1) found.
	for depth(fwd)+depth(bwd) < q.MaxHops {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		grow, other := fwd, bwd
		if depth(bwd) < depth(fwd) {
			grow, other = bwd, fwd
		}
		// The last level is joined with other's deepest level only, so
		// it keeps only the partials that end where one of those does.
		ps.meet = nil
		if depth(grow)+1+depth(other) == q.MaxHops {
			ps.meet = other
		}
		err := ps.extend(ctx, grow)
		ps.meet = nil
		if err != nil {
			return nil, false, err
		}
		d := depth(grow)
		if len(grow.levels[d]) == 0 {
			break
		}
		a, b := d, depth(other)
		if grow == bwd {
			a, b = b, d
		}
		if err := ps.join(ctx, fwd, bwd, a, b); err != nil {
			return nil, false, err
		}
		if ps.joinCut {
			break
		}
	}
	// A call cancelled while it finished its last level still fails.
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	return ps.best.Paths(), ps.truncated, nil
}

// depth returns the depth of s's deepest level.
func depth(s *pathSide) int { return len(s.levels) - 1 }

// reset makes s a side holding only its root, keeping its buffers.
func (s *pathSide) reset(root, avoid int32, dir Dir, slack float64) {
	s.dir, s.avoid, s.slack = dir, avoid, slack
	s.parts = append(s.parts[:0], partial{node: root, parent: -1, rel: -1, score: 1})
	s.levels = s.levels[:0]
	s.levels = append(s.levels, append(s.nextLevel(), 0))
}

// nextLevel returns an empty slice for the next level, reusing the backing
// array of an earlier call's level at the same depth.
func (s *pathSide) nextLevel() []int32 {
	if n := len(s.levels); n < cap(s.levels) {
		return s.levels[:n+1][n][:0]
	}
	return nil
}

// extend grows side s by one level.
func (ps *PathSearch) extend(ctx context.Context, s *pathSide) error {
	th := ps.best.Threshold()
	cur := s.levels[len(s.levels)-1]
	front := ps.front[:0]
	for _, i := range cur {
		if p := &s.parts[i]; p.node != s.avoid && p.score*s.slack >= th {
			front = append(front, i)
		}
	}
	if ps.scans == 0 && len(front) > 0 {
		// The budget is spent: nothing can grow, so skip the sorting.
		ps.truncated = true
		s.levels = append(s.levels, s.nextLevel())
		return nil
	}
	// Best partial scores first, so that the cap and the budget keep the
	// most promising ones. The cap keeps entities, ties broken by ID so that
	// every backend keeps the same ones; without a cap, the order among
	// equal scores matters only to a search that the budget cuts, and node
	// handles break ties without comparing strings.
	if ps.cap > 0 {
		slices.SortFunc(front, func(a, b int32) int {
			pa, pb := &s.parts[a], &s.parts[b]
			if c := cmp.Compare(pb.score, pa.score); c != 0 {
				return c
			}
			if pa.node != pb.node {
				return strings.Compare(ps.st.ID(pa.node), ps.st.ID(pb.node))
			}
			return cmp.Compare(a, b)
		})
		front = ps.capFront(s, front)
	} else if !ps.fits(s, front) {
		slices.SortFunc(front, func(a, b int32) int {
			pa, pb := &s.parts[a], &s.parts[b]
			if c := cmp.Compare(pb.score, pa.score); c != 0 {
				return c
			}
			if c := cmp.Compare(pa.node, pb.node); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	nodes := ps.nodes[:0]
	for _, pi := range front {
		nodes = append(nodes, s.parts[pi].node)
	}
	ps.front, ps.nodes = front, nodes
	ps.side, ps.th, ps.next = s, th, s.nextLevel()
	ps.maxParts = len(s.parts) + min(ps.scans, math.MaxInt32)
	if ps.visit == nil {
		ps.visit = ps.grow // allocated once per PathSearch, which graphs reuse
	}
	scanned, cut, err := ps.st.Expand(ctx, nodes, s.dir, ps.scans, ps.visit)
	next := ps.next
	ps.side, ps.next = nil, nil
	if err != nil {
		return err
	}
	ps.scans -= scanned
	if cut {
		ps.truncated = true
	}
	ps.sortLevel(s, next)
	s.levels = append(s.levels, next)
	return nil
}

// grow is extend's visitor: it offers the partial front[from] extended by
// relation rel to entity to, and keeps it in ps.next unless it repeats an
// entity, scores below the bar or, on the last level, ends where no
// partial of the other side does. Each call follows a relation scanned
// within the budget, so the budget bounds the partials built too.
func (ps *PathSearch) grow(from int, to, rel int32, w float64) {
	s := ps.side
	pi := ps.front[from]
	p := s.parts[pi]
	score := p.score * w
	if score*s.slack < ps.th || ps.meet != nil && !ps.meet.reaches(to) || s.onPath(pi, to) {
		return
	}
	if len(s.parts) == cap(s.parts) && len(s.parts) >= maxPooledPartials/2 {
		// Double, where append would grow a large slice by a quarter, so
		// that a large search allocates about twice what it keeps; but never
		// past what the rest of the budget can build. Smaller searches grow
		// as append does, so that their buffers stay small enough to pool.
		grown := make([]partial, len(s.parts), max(min(2*len(s.parts), ps.maxParts), len(s.parts)+1))
		copy(grown, s.parts)
		s.parts = grown
	}
	s.parts = append(s.parts, partial{node: to, parent: pi, rel: rel, depth: p.depth + 1, score: score, w: w})
	ps.next = append(ps.next, int32(len(s.parts)-1))
}

// reaches reports whether a partial of s's deepest level, which is sorted
// by node, ends at node n.
func (s *pathSide) reaches(n int32) bool {
	level := s.levels[len(s.levels)-1]
	_, ok := slices.BinarySearchFunc(level, n, func(pi, n int32) int { return cmp.Compare(s.parts[pi].node, n) })
	return ok
}

// fits reports whether growing every partial of front scans no more
// relations than the budget has left, so that their order cannot matter:
// only a backend that tells degrees can say so.
func (ps *PathSearch) fits(s *pathSide, front []int32) bool {
	d, ok := ps.st.(Degreer)
	if !ok {
		return false
	}
	n := 0
	for _, pi := range front {
		if n += d.Degree(s.parts[pi].node, s.dir); n > ps.scans {
			return false
		}
	}
	return true
}

// levelKey is a partial's sort key within its level.
type levelKey struct {
	node, i int32
	score   float64
}

// sortLevel sorts the partials of level by node, then score descending,
// then index, through a buffer of their keys, so that the comparisons read
// the keys in order rather than the partials scattered in s.parts.
func (ps *PathSearch) sortLevel(s *pathSide, level []int32) {
	keys := slices.Grow(ps.keys[:0], len(level))
	for _, i := range level {
		keys = append(keys, levelKey{node: s.parts[i].node, i: i, score: s.parts[i].score})
	}
	slices.SortFunc(keys, func(a, b levelKey) int {
		if a.node != b.node {
			return cmp.Compare(a.node, b.node)
		}
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(a.i, b.i)
	})
	for j, k := range keys {
		level[j] = k.i
	}
	ps.keys = keys
}

// capFront keeps the partials of front, sorted best first, that end at one
// of the first ps.cap distinct entities.
func (ps *PathSearch) capFront(s *pathSide, front []int32) []int32 {
	chosen := make(map[int32]struct{}, ps.cap)
	kept := front[:0]
	for _, pi := range front {
		n := s.parts[pi].node
		if _, ok := chosen[n]; !ok {
			if len(chosen) == ps.cap {
				ps.truncated = true
				continue
			}
			chosen[n] = struct{}{}
		}
		kept = append(kept, pi)
	}
	return kept
}

// onPath reports whether node n lies on partial pi.
func (s *pathSide) onPath(pi, n int32) bool {
	for ; pi >= 0; pi = s.parts[pi].parent {
		if s.parts[pi].node == n {
			return true
		}
	}
	return false
}

// join offers the simple paths made of a forward partial of depth a and a
// backward partial of depth b that meet at the same entity, as far as they
// can still enter the answer. Both levels are sorted by node, then score
// descending, so a merge walks the groups of partials that end at the same
// entity; see joinAt for the work within a group. Each pair tried costs one
// unit of the join budget; when it runs out, join sets ps.joinCut and
// ps.truncated and returns. A cancelled ctx is noticed within
// joinCheckEvery pairs.
func (ps *PathSearch) join(ctx context.Context, fwd, bwd *pathSide, a, b int) error {
	fl, bl := fwd.levels[a], bwd.levels[b]
	i, j := 0, 0
	for i < len(fl) && j < len(bl) {
		n := fwd.parts[fl[i]].node
		switch m := bwd.parts[bl[j]].node; {
		case n < m:
			i++
			continue
		case n > m:
			j++
			continue
		}
		iEnd, jEnd := i, j
		for iEnd < len(fl) && fwd.parts[fl[iEnd]].node == n {
			iEnd++
		}
		for jEnd < len(bl) && bwd.parts[bl[jEnd]].node == n {
			jEnd++
		}
		if err := ps.joinAt(ctx, fwd, bwd, fl[i:iEnd], bl[j:jEnd]); err != nil || ps.joinCut {
			return err
		}
		i, j = iEnd, jEnd
	}
	return nil
}

// joinAt offers the pairs of forward partials fs and backward partials bs,
// which all end at the same entity and are sorted by score descending.
//
// Forward partials are taken in runs of equal score. Joined to the same
// backward partial, the members of a run make paths of exactly the same
// score (the backward weights are multiplied onto the same number in the
// same order) and the same length, which therefore rank by the forward
// partial's entity IDs and then relations: the run is sorted that way, and
// the first simple path that misses the answer ends the run for that
// backward partial. Since at most k of them can enter the answer, ties
// cost at most k+1 simple pairs per backward partial and run, not one pair
// per path: on a bow-tie of m tied halves on each side, O(k·m) pairs decide
// among m² tied paths. Score bounds end the scan of backward partials, and
// of runs, as soon as nothing left can reach the answer.
func (ps *PathSearch) joinAt(ctx context.Context, fwd, bwd *pathSide, fs, bs []int32) error {
	for len(fs) > 0 {
		score := fwd.parts[fs[0]].score
		if score*bwd.parts[bs[0]].score*pathSlack < ps.best.Threshold() {
			return nil
		}
		r := 1
		for r < len(fs) && fwd.parts[fs[r]].score == score {
			r++
		}
		run := fs[:r]
		fs = fs[r:]
		if len(run) > 1 {
			slices.SortFunc(run, func(x, y int32) int { return ps.comparePartials(fwd, x, y) })
		}
		for _, bi := range bs {
			if score*bwd.parts[bi].score*pathSlack < ps.best.Threshold() {
				break
			}
			for _, fi := range run {
				if ps.joins <= 0 {
					ps.joinCut, ps.truncated = true, true
					return nil
				}
				ps.joins--
				if ps.ticks++; ps.ticks == joinCheckEvery {
					ps.ticks = 0
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				if ps.offer(fwd, bwd, fi, bi) == offerMissed {
					break
				}
			}
		}
	}
	return nil
}

// comparePartials orders partials x and y of side s, which have the same
// depth, by their entity IDs from the root, then by their relation keys.
func (ps *PathSearch) comparePartials(s *pathSide, x, y int32) int {
	cx, cy := ps.chainX[:0], ps.chainY[:0]
	for ; x >= 0; x, y = s.parts[x].parent, s.parts[y].parent {
		cx, cy = append(cx, x), append(cy, y)
	}
	ps.chainX, ps.chainY = cx, cy
	// cx[len-1] is the root, shared.
	for i := len(cx) - 2; i >= 0; i-- {
		if nx, ny := s.parts[cx[i]].node, s.parts[cy[i]].node; nx != ny {
			return strings.Compare(ps.st.ID(nx), ps.st.ID(ny))
		}
	}
	for i := len(cx) - 2; i >= 0; i-- {
		if rx, ry := s.parts[cx[i]].rel, s.parts[cy[i]].rel; rx != ry {
			return ps.st.CompareRels(rx, ry)
		}
	}
	return 0
}

// offerOutcome is what became of a pair of partials offered as a path.
type offerOutcome uint8

const (
	offerKept      offerOutcome = iota // the path entered the answer
	offerMissed                        // a simple path that does not beat the k-th best
	offerNotSimple                     // the halves share an entity besides the meeting one
)

// offer joins forward partial fi and backward partial bi, which end at the
// same entity, and keeps the path if it is simple and among the k best.
// The path is built in scratch space and compared with the k-th best
// before anything is stored: a path that misses costs no memory.
func (ps *PathSearch) offer(fwd, bwd *pathSide, fi, bi int32) offerOutcome {
	a, b := int(fwd.parts[fi].depth), int(bwd.parts[bi].depth)
	nodes := slices.Grow(ps.pathNodes[:0], a+b+1)[:a+b+1]
	rels := slices.Grow(ps.pathRels[:0], a+b)[:a+b]
	ps.pathNodes, ps.pathRels = nodes, rels
	p := fi
	for i := a; i >= 0; i-- {
		nodes[i] = fwd.parts[p].node
		if i > 0 {
			rels[i-1] = fwd.parts[p].rel
		}
		p = fwd.parts[p].parent
	}
	// The backward partial runs from the meeting entity to the target, in
	// walking order; its weights multiply the forward score in that order.
	score := fwd.parts[fi].score
	p = bi
	for i := a; i < a+b; i++ {
		rels[i] = bwd.parts[p].rel
		score *= bwd.parts[p].w
		p = bwd.parts[p].parent
		nodes[i+1] = bwd.parts[p].node
	}
	for _, x := range nodes[a+1:] {
		if slices.Contains(nodes[:a+1], x) {
			return offerNotSimple
		}
	}
	c := Path{Nodes: nodes, Rels: rels, Score: score}
	if !ps.best.Add(c) {
		return offerMissed
	}
	return offerKept
}
