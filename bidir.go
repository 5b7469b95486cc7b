package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

// defaultPathBudget bounds the work of one FindPaths call unless
// WithPathBudget says otherwise. Growing the two sides of its search, the
// call scans at most that many relations, counting those the type filter
// drops and counting an entity's relations once for each partial path
// grown from it; each relation scanned adds at most one partial path of 32
// bytes, so at the default the partial paths take at most 16 MiB. Joining
// the sides, it tries at most that many pairs of a forward and a backward
// partial path. When either runs out the search stops and
// PathResult.Truncated is set. A search the budget cuts costs O(n log n)
// time for budget n: at the default, about 0.1 s on one core and 48 MiB
// allocated when every relation scanned builds a partial path, a few
// milliseconds when most are dropped (BenchmarkFindPathsHub).
const defaultPathBudget = 1 << 19

// maxPooledPartials is the most partial paths a graph keeps buffers for
// between FindPaths calls (2 MiB), and maxPooledArena the most handles of
// candidate paths (256 KiB).
const (
	maxPooledPartials = 1 << 16
	maxPooledArena    = 1 << 16
)

// joinCheckEvery is how many pairs of partial paths a join tries between
// two checks of its context.
const joinCheckEvery = 1 << 10

// defaultMaxPaths is PathOptions.MaxPaths when it is 0.
const defaultMaxPaths = 3

// defaultMaxHops is PathOptions.MaxHops when it is 0: four relations,
// enough for "X works on a project that belongs to a team that Y leads"
// and short enough that the meet-in-the-middle search grows each side
// two hops.
const defaultMaxHops = 4

// pathSlack widens score bounds that are not computed in the same order as a
// path's exact score, so that rounding never prunes a path that belongs in the
// answer. Exact scores decide the answer; bounds only skip work.
const pathSlack = 1 + 1e-9

// WithPathBudget sets the work one FindPaths call may do: how many
// relations it may scan, and so how many partial paths it may build, and
// how many pairs of partial paths it may try to join (see
// 2¹⁹ relations; see defaultPathBudget for what a search costs). 0 means the default; a negative n is invalid.
func WithPathBudget(n int) Option {
	return optionFunc(func(c *graphConfig) {
		if n < 0 {
			c.fail("WithPathBudget: negative budget %d", n)
			return
		}
		c.pathBudget = n
	})
}

// partial is a path grown from one end of the search: it ends at node, and
// parent indexes the partial it extends (-1 for the root, the end itself).
type partial struct {
	node, parent, rel, depth int32
	score                    float64 // product of the weights from the root, in walking order
	w                        float64 // weight of rel
}

// pathSide is one half of the meet-in-the-middle search.
type pathSide struct {
	dir    Direction // the direction relations are walked from this side's root
	avoid  int32     // the other end: partials are never extended past it
	slack  float64   // bound widening for this side's partial scores
	parts  []partial
	levels [][]int32 // levels[d]: partials of depth d, sorted by node, then score descending
}

// pathSearch holds one FindPaths call. Its sides and buffers are scratch
// space that a graph reuses across calls (see pathScratch), so a search
// allocates in proportion to its answer, not to what it explored.
type pathSearch struct {
	st        stepper
	k         int
	cap       int
	scans     int  // relations the search may still scan while growing its sides
	joins     int  // pairs of partial paths the search may still try to join
	joinCut   bool // the join budget ran out: the search stops
	truncated bool
	ticks     int         // joins tried since ctx was last checked
	best      []candidate // best first, at most k

	fwd, bwd          pathSide
	front, nodes      []int32 // scratch for extend
	pathNodes         []int32 // scratch for offer: the path on offer
	pathRels          []int32
	chainX, chainY    []int32    // scratch for comparePartials
	keys              []levelKey // scratch for sortLevel
	arena, spareArena []int32    // the nodes and relations of candidates; see store

	// State of the level extend is growing, for grow.
	side     *pathSide
	th       float64
	next     []int32
	maxParts int                                      // the most partials side may hold when the level is grown
	meet     *pathSide                                // when the level grown is the last: the side it is joined with
	visit    func(from int, to, rel int32, w float64) // ps.grow, bound once
}

// candidate is a complete path in handles.
type candidate struct {
	nodes, rels []int32
	score       float64
}

// threshold is the score a new path must reach to enter the answer: the
// k-th best score once k paths are known, -1 before.
func (ps *pathSearch) threshold() float64 {
	if len(ps.best) < ps.k {
		return -1
	}
	return ps.best[len(ps.best)-1].score
}

// validatePathOptions checks PathOptions and sets the defaults of zero
// fields: MaxHops 0 becomes 4 and MaxPaths 0 becomes 3.
func validatePathOptions(opts *PathOptions) error {
	if opts.MaxHops == 0 {
		opts.MaxHops = defaultMaxHops
	}
	if opts.MaxPaths == 0 {
		opts.MaxPaths = defaultMaxPaths
	}
	switch {
	case opts.MaxHops < 0:
		return fmt.Errorf("kgmem: find paths: negative MaxHops %d: %w", opts.MaxHops, ErrInvalidArgument)
	case opts.MaxPaths < 0:
		return fmt.Errorf("kgmem: find paths: negative MaxPaths %d: %w", opts.MaxPaths, ErrInvalidArgument)
	case opts.MaxNodesPerHop < 0:
		return fmt.Errorf("kgmem: find paths: negative MaxNodesPerHop %d: %w", opts.MaxNodesPerHop, ErrInvalidArgument)
	case !opts.Direction.valid():
		return fmt.Errorf("kgmem: find paths: unknown direction %v: %w", opts.Direction, ErrInvalidArgument)
	}
	if err := checkAsOf(opts.AsOf); err != nil {
		return errmsg.Wrap("kgmem: find paths", err)
	}
	return validateTypes(opts.RelationTypes)
}

// findPaths searches for the best simple paths from handle src to handle
// dst (src != dst) over st by meeting in the middle. opts must have been
// validated.
//
// The sides grow level by level, in turn (forward 1, backward 1, forward
// 2, …), until the two depths add up to MaxHops; each new level is joined with the other side's
// deepest level, so that every path is found exactly once, by joining a
// forward partial and a backward partial that end at the same entity and
// share no other entity. Levels are joined as soon as they exist, so short
// paths set the bar early: a partial whose score is
// below the k-th best complete score cannot lead to a better path (weights
// are at most 1) and is not grown.
// ps is scratch space from an earlier call or new; findPaths resets it.
func findPaths(ctx context.Context, ps *pathSearch, st stepper, src, dst int32, opts PathOptions, budget int) ([]candidate, bool, error) {
	ps.st, ps.k, ps.cap, ps.scans, ps.truncated = st, opts.MaxPaths, opts.MaxNodesPerHop, budget, false
	ps.joins, ps.joinCut, ps.ticks = budget, false, 0
	ps.best = ps.best[:0]
	ps.arena = ps.arena[:0]
	if ps.k == 0 { // opts not validated, as by tests that call findPaths directly
		ps.k = defaultMaxPaths
	}
	fwd, bwd := &ps.fwd, &ps.bwd
	fwd.reset(src, dst, opts.Direction, 1)
	bwd.reset(dst, src, opts.Direction.reverse(), pathSlack)
	// Each round grows the shallower side (the forward one on a tie): an
	// order that reads nothing a backend must fetch, so every backend
	// grows the same levels and a search the budget or MaxNodesPerHop cuts
	// gives the same answer on each. Its new level is joined with the
	// other side's deepest one. A path of L relations is found once, at the
	// first pair of levels (i, L-i) that both exist: joining a new level d
	// with an older level j < e of the other side would only find again
	// the paths that the pair (d-1, j+1) found.
	for depth(fwd)+depth(bwd) < opts.MaxHops {
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
		if depth(grow)+1+depth(other) == opts.MaxHops {
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
	return ps.best, ps.truncated, nil
}

// depth returns the depth of s's deepest level.
func depth(s *pathSide) int { return len(s.levels) - 1 }

// degreer is a stepper that can tell how many relations expand scans for
// one entity.
type degreer interface {
	// degree returns how many relations leave node n in direction dir,
	// before any type filter.
	degree(n int32, dir Direction) int
}

// reset makes s a side holding only its root, keeping its buffers.
func (s *pathSide) reset(root, avoid int32, dir Direction, slack float64) {
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
func (ps *pathSearch) extend(ctx context.Context, s *pathSide) error {
	th := ps.threshold()
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
				return strings.Compare(ps.st.id(pa.node), ps.st.id(pb.node))
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
		ps.visit = ps.grow // allocated once per pathSearch, which graphs reuse
	}
	scanned, cut, err := ps.st.expand(ctx, nodes, s.dir, ps.scans, ps.visit)
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
func (ps *pathSearch) grow(from int, to, rel int32, w float64) {
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
func (ps *pathSearch) fits(s *pathSide, front []int32) bool {
	d, ok := ps.st.(degreer)
	if !ok {
		return false
	}
	n := 0
	for _, pi := range front {
		if n += d.degree(s.parts[pi].node, s.dir); n > ps.scans {
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
func (ps *pathSearch) sortLevel(s *pathSide, level []int32) {
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
func (ps *pathSearch) capFront(s *pathSide, front []int32) []int32 {
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
func (ps *pathSearch) join(ctx context.Context, fwd, bwd *pathSide, a, b int) error {
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
func (ps *pathSearch) joinAt(ctx context.Context, fwd, bwd *pathSide, fs, bs []int32) error {
	for len(fs) > 0 {
		score := fwd.parts[fs[0]].score
		if score*bwd.parts[bs[0]].score*pathSlack < ps.threshold() {
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
			if score*bwd.parts[bi].score*pathSlack < ps.threshold() {
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
func (ps *pathSearch) comparePartials(s *pathSide, x, y int32) int {
	cx, cy := ps.chainX[:0], ps.chainY[:0]
	for ; x >= 0; x, y = s.parts[x].parent, s.parts[y].parent {
		cx, cy = append(cx, x), append(cy, y)
	}
	ps.chainX, ps.chainY = cx, cy
	// cx[len-1] is the root, shared.
	for i := len(cx) - 2; i >= 0; i-- {
		if nx, ny := s.parts[cx[i]].node, s.parts[cy[i]].node; nx != ny {
			return strings.Compare(ps.st.id(nx), ps.st.id(ny))
		}
	}
	for i := len(cx) - 2; i >= 0; i-- {
		if rx, ry := s.parts[cx[i]].rel, s.parts[cy[i]].rel; rx != ry {
			return ps.st.compareRels(rx, ry)
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
func (ps *pathSearch) offer(fwd, bwd *pathSide, fi, bi int32) offerOutcome {
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
	c := candidate{nodes: nodes, rels: rels, score: score}
	if len(ps.best) == ps.k && ps.compare(c, ps.best[ps.k-1]) >= 0 {
		return offerMissed
	}
	ps.consider(ps.store(c))
	return offerKept
}

// store copies c's handles into the arena and returns c pointing at the
// copy. The arena holds the candidates of one call; entries of candidates
// that dropped out are not reused, but when the arena is full and mostly
// such garbage, the live candidates move to the spare arena, which becomes
// the arena. Earlier backing arrays stay valid when the arena grows.
func (ps *pathSearch) store(c candidate) candidate {
	need := len(c.nodes) + len(c.rels)
	if len(ps.arena)+need > cap(ps.arena) {
		live := need
		for _, b := range ps.best {
			live += len(b.nodes) + len(b.rels)
		}
		if 2*live <= len(ps.arena) {
			moved := ps.spareArena[:0]
			for i := range ps.best {
				ps.best[i], moved = copyCandidate(moved, ps.best[i])
			}
			ps.arena, ps.spareArena = moved, ps.arena[:0]
		}
	}
	c, ps.arena = copyCandidate(ps.arena, c)
	return c
}

// copyCandidate appends c's handles to arena and returns c pointing at the
// copy, its slices capped so that later appends never write into them.
func copyCandidate(arena []int32, c candidate) (candidate, []int32) {
	start := len(arena)
	arena = append(append(arena, c.nodes...), c.rels...)
	mid := start + len(c.nodes)
	c.nodes, c.rels = arena[start:mid:mid], arena[mid:len(arena):len(arena)]
	return c, arena
}

// consider keeps c if it is among the k best paths seen.
func (ps *pathSearch) consider(c candidate) {
	pos, _ := slices.BinarySearchFunc(ps.best, c, ps.compare)
	if pos >= ps.k {
		return
	}
	if len(ps.best) == ps.k {
		ps.best = ps.best[:ps.k-1]
	}
	ps.best = slices.Insert(ps.best, pos, c)
}

// compare orders complete paths: score descending, then fewer hops, then
// entity IDs, then relation keys, position by position. Two distinct paths
// never compare equal.
func (ps *pathSearch) compare(x, y candidate) int {
	if c := cmp.Compare(y.score, x.score); c != 0 {
		return c
	}
	if c := cmp.Compare(len(x.rels), len(y.rels)); c != 0 {
		return c
	}
	for i := range x.nodes {
		if x.nodes[i] != y.nodes[i] {
			return strings.Compare(ps.st.id(x.nodes[i]), ps.st.id(y.nodes[i]))
		}
	}
	for i := range x.rels {
		if x.rels[i] != y.rels[i] {
			return ps.st.compareRels(x.rels[i], y.rels[i])
		}
	}
	return 0
}

// toPaths converts candidates to Paths with copied relations.
// All paths share two backing arrays, each path's slices capped so that an
// append by the caller cannot write into its neighbour.
func toPaths(st stepper, cs []candidate) []Path {
	nodes, rels := 0, 0
	for _, c := range cs {
		nodes, rels = nodes+len(c.nodes), rels+len(c.rels)
	}
	ids, relations := make([]string, nodes), make([]Relation, rels)
	out := make([]Path, len(cs))
	for i, c := range cs {
		p := Path{EntityIDs: ids[:len(c.nodes):len(c.nodes)], Relations: relations[:len(c.rels):len(c.rels)], Score: c.score}
		ids, relations = ids[len(c.nodes):], relations[len(c.rels):]
		for j, n := range c.nodes {
			p.EntityIDs[j] = st.id(n)
		}
		for j, r := range c.rels {
			p.Relations[j] = st.relation(r)
		}
		out[i] = p
	}
	return out
}

// FindPaths returns the opts.MaxPaths (0 means 3) best simple paths from
// sourceID to targetID of at most opts.MaxHops relations (0 means 4),
// walking relations in opts.Direction (the zero value Outgoing; Both:
// either way) and only of opts.RelationTypes when that is set. A path never visits an entity twice; parallel relations
// between the same entities make distinct paths. Paths are ordered by score
// (product of weights) descending, then fewer hops, then entity IDs and
// relation keys position by position: exactly the first MaxPaths of every
// such path sorted that way.
//
// sourceID == targetID returns one zero-hop path of score 1. Otherwise, when
// there is no path, the error wraps ErrNoPath and names both IDs; FindPaths
// never answers with neighbours in place of a path. Unknown IDs return
// ErrNotFound; IDs that are empty, only white space or not valid UTF-8,
// and invalid options, return ErrInvalidArgument; a cancelled ctx
// returns ctx.Err(), also when the search had finished; ctx is checked
// between hops, every few thousand relations scanned and every thousand
// pairs of partial paths joined.
//
// The search meets in the middle: ⌈MaxHops/2⌉ hops forward from the source
// and ⌊MaxHops/2⌋ backward from the target, pruning partial paths that can
// no longer reach the k-th best score. opts.MaxNodesPerHop caps how many
// entities each side grows per hop, best partial scores first, and the graph's
// path budget (2¹⁹ relations unless WithPathBudget) caps how many
// relations a call scans, and with them the partial paths it builds, and
// how many pairs of partial paths it joins. When either cut the search,
// Truncated is set and the paths are exact among those explored; with
// ErrNoPath the result still carries Truncated. Cost: at worst O(d^⌈h/2⌉)
// partial paths for degree d and h hops, bounded by the budget, plus
// sorting them; paths that tie with the k-th best cost at most about
// MaxPaths joins per partial path, not one per path, and only the k best
// paths are ever stored. See defaultPathBudget for the cost of a search the budget cuts.
func (g *InMemoryGraph) FindPaths(ctx context.Context, sourceID, targetID string, opts PathOptions) (PathResult, error) {
	if err := ctx.Err(); err != nil {
		return PathResult{}, err
	}
	if err := validatePathOptions(&opts); err != nil {
		return PathResult{}, err
	}
	if err := checkPathEnds(sourceID, targetID); err != nil {
		return PathResult{}, err
	}
	if err := g.rlock(); err != nil {
		return PathResult{}, err
	}
	defer g.mu.RUnlock()
	src, ok := g.ids[sourceID]
	if !ok {
		return PathResult{}, pathEndNotFound("source", sourceID)
	}
	dst, ok := g.ids[targetID]
	if !ok {
		return PathResult{}, pathEndNotFound("target", targetID)
	}
	if src == dst {
		return PathResult{Paths: []Path{{EntityIDs: []string{sourceID}, Score: 1}}}, nil
	}
	ps, _ := g.pathScratch.Get().(*pathSearch)
	if ps == nil {
		ps = new(pathSearch)
	}
	defer func() {
		// Keep small scratch for the next call; let a large search's go.
		if cap(ps.fwd.parts)+cap(ps.bwd.parts) <= maxPooledPartials && cap(ps.arena)+cap(ps.spareArena) <= maxPooledArena {
			g.pathScratch.Put(ps)
		}
	}()
	return searchPaths(ctx, ps, g.step(opts.RelationTypes, opts.AsOf), src, dst, opts, g.pathBudget)
}

// searchPaths runs findPaths from src to dst (src != dst) with scratch ps
// and turns its answer into a PathResult, or into ErrNoPath when it found
// nothing.
func searchPaths(ctx context.Context, ps *pathSearch, st stepper, src, dst int32, opts PathOptions, budget int) (PathResult, error) {
	best, truncated, err := findPaths(ctx, ps, st, src, dst, opts, budget)
	if err != nil {
		return PathResult{}, err
	}
	res := PathResult{Paths: toPaths(st, best), Truncated: truncated}
	if len(res.Paths) == 0 {
		return res, noPathError(st.id(src), st.id(dst), opts.MaxHops, truncated)
	}
	return res, nil
}

// checkPathEnds checks the IDs FindPaths names, as every read checks an
// entity ID.
func checkPathEnds(sourceID, targetID string) error {
	if err := checkID("source entity", sourceID); err != nil {
		return errmsg.Wrap("kgmem: find paths", err)
	}
	if err := checkID("target entity", targetID); err != nil {
		return errmsg.Wrap("kgmem: find paths", err)
	}
	return nil
}

// pathEndNotFound is FindPaths' error for an end (what: "source" or
// "target") that is not an entity.
func pathEndNotFound(what, id string) error {
	return fmt.Errorf("kgmem: find paths: %s entity %s: %w", what, quote.Value(id), ErrNotFound)
}

// noPathError is FindPaths' error when no path joins the two entities. It
// reads "kgmem: find paths from "a" to "b" within 4 hops: no path".
func noPathError(sourceID, targetID string, maxHops int, truncated bool) error {
	cut := ""
	if truncated {
		cut = " (search truncated by MaxNodesPerHop or the path budget)"
	}
	return fmt.Errorf("kgmem: find paths from %s to %s within %d hops%s: %w", quote.Value(sourceID), quote.Value(targetID), maxHops, cut, ErrNoPath)
}
