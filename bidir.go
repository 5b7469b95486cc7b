package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// DefaultPathBudget is how many partial paths one FindPaths call may build,
// over both sides of the search together, unless WithPathBudget says
// otherwise. A partial path costs 32 bytes, so the default bounds a call's
// working memory to about 16 MiB. When the budget runs out the search stops
// growing and PathResult.Truncated is set.
const DefaultPathBudget = 1 << 19

// maxPooledPartials is the most partial paths a graph keeps buffers for
// between FindPaths calls (2 MiB).
const maxPooledPartials = 1 << 16

// defaultMaxPaths is PathOptions.MaxPaths when it is 0.
const defaultMaxPaths = 3

// pathSlack widens score bounds that are not computed in the same order as a
// path's exact score, so that rounding never prunes a path that belongs in the
// answer. Exact scores decide the answer; bounds only skip work.
const pathSlack = 1 + 1e-9

// WithPathBudget sets how many partial paths one FindPaths call may build
// (see DefaultPathBudget). n <= 0 means the default.
func WithPathBudget(n int) Option {
	return optionFunc(func(c *graphConfig) { c.pathBudget = n })
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
	budget    int
	truncated bool
	best      []candidate // best first, at most k

	fwd, bwd           pathSide
	front, nodes       []int32 // scratch for extend
	fwdNodes, bwdNodes []int32 // scratch for offer
	fwdRels, bwdRels   []int32
	arena              []int32 // the nodes and relations of candidates

	// State of the level extend is growing, for grow.
	side  *pathSide
	th    float64
	next  []int32
	visit func(from int, to, rel int32, w float64) // ps.grow, bound once
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

func validatePathOptions(opts *PathOptions) error {
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
	return validateTypes(opts.RelationTypes)
}

// findPaths searches for the best simple paths from handle src to handle
// dst (src != dst) over st by meeting in the middle. opts must have been
// validated.
//
// A path of L relations is split at one fixed position: its first ⌈L/2⌉
// relations are a partial grown from src, its last ⌊L/2⌋ a partial grown
// backwards from dst, so each path is found exactly once, by joining a
// forward partial of depth a with a backward partial of depth a or a-1 that
// ends at the same entity and shares no other entity with it. Levels are
// grown alternately (forward 1, backward 1, forward 2, …) and joined as soon
// as they exist, so short paths set the bar early: a partial whose score is
// below the k-th best complete score cannot lead to a better path (weights
// are at most 1) and is not grown.
// ps is scratch space from an earlier call or new; findPaths resets it.
func findPaths(ctx context.Context, ps *pathSearch, st stepper, src, dst int32, opts PathOptions, budget int) ([]candidate, bool, error) {
	ps.st, ps.k, ps.cap, ps.budget, ps.truncated = st, opts.MaxPaths, opts.MaxNodesPerHop, budget, false
	ps.best = ps.best[:0]
	ps.arena = ps.arena[:0]
	if ps.k == 0 {
		ps.k = defaultMaxPaths
	}
	fwd, bwd := &ps.fwd, &ps.bwd
	fwd.reset(src, dst, opts.Direction, 1)
	bwd.reset(dst, src, opts.Direction.reverse(), pathSlack)
	fwdDepth, bwdDepth := (opts.MaxHops+1)/2, opts.MaxHops/2
	for a := 1; a <= fwdDepth; a++ {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if err := ps.extend(ctx, fwd); err != nil {
			return nil, false, err
		}
		if len(fwd.levels[a]) == 0 {
			break
		}
		ps.join(fwd, bwd, a, a-1)
		if a > bwdDepth {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if err := ps.extend(ctx, bwd); err != nil {
			return nil, false, err
		}
		if len(bwd.levels[a]) == 0 {
			break
		}
		ps.join(fwd, bwd, a, a)
	}
	return ps.best, ps.truncated, nil
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
	// Best partial scores first, so that the cap and the budget keep the
	// most promising ones.
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
	if ps.cap > 0 {
		front = ps.capFront(s, front)
	}
	nodes := ps.nodes[:0]
	for _, pi := range front {
		nodes = append(nodes, s.parts[pi].node)
	}
	ps.front, ps.nodes = front, nodes
	ps.side, ps.th, ps.next = s, th, s.nextLevel()
	if ps.visit == nil {
		ps.visit = ps.grow // allocated once per pathSearch, which graphs reuse
	}
	err := ps.st.expand(ctx, nodes, s.dir, ps.visit)
	next := ps.next
	ps.side, ps.next = nil, nil
	if err != nil {
		return err
	}
	slices.SortFunc(next, func(a, b int32) int {
		pa, pb := &s.parts[a], &s.parts[b]
		if c := cmp.Compare(pa.node, pb.node); c != 0 {
			return c
		}
		return cmp.Compare(pb.score, pa.score)
	})
	s.levels = append(s.levels, next)
	return nil
}

// grow is extend's visitor: it offers the partial front[from] extended by
// relation rel to entity to, and keeps it in ps.next unless it repeats an
// entity, scores below the bar, or the budget is spent.
func (ps *pathSearch) grow(from int, to, rel int32, w float64) {
	s := ps.side
	pi := ps.front[from]
	p := s.parts[pi]
	score := p.score * w
	if score*s.slack < ps.th || s.onPath(pi, to) {
		return
	}
	if ps.budget <= 0 {
		ps.truncated = true
		return
	}
	ps.budget--
	s.parts = append(s.parts, partial{node: to, parent: pi, rel: rel, depth: p.depth + 1, score: score, w: w})
	ps.next = append(ps.next, int32(len(s.parts)-1))
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

// join offers every simple path made of a forward partial of depth a and a
// backward partial of depth b that meet at the same entity. Both levels are
// sorted by node, then score descending, so a merge walks matching groups
// and stops a group as soon as the bound falls below the threshold.
func (ps *pathSearch) join(fwd, bwd *pathSide, a, b int) {
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
		for _, fi := range fl[i:iEnd] {
			fs := fwd.parts[fi].score
			if fs*bwd.parts[bl[j]].score*pathSlack < ps.threshold() {
				break
			}
			for _, bi := range bl[j:jEnd] {
				if fs*bwd.parts[bi].score*pathSlack < ps.threshold() {
					break
				}
				ps.offer(fwd, bwd, fi, bi)
			}
		}
		i, j = iEnd, jEnd
	}
}

// offer joins forward partial fi and backward partial bi, which end at the
// same entity, and keeps the path if it is simple and among the k best.
func (ps *pathSearch) offer(fwd, bwd *pathSide, fi, bi int32) {
	fn, fr := ps.fwdNodes[:0], ps.fwdRels[:0]
	for p := fi; p >= 0; p = fwd.parts[p].parent {
		fn = append(fn, fwd.parts[p].node)
		if p > 0 {
			fr = append(fr, fwd.parts[p].rel)
		}
	}
	slices.Reverse(fn)
	slices.Reverse(fr)
	score := fwd.parts[fi].score
	bn, br := ps.bwdNodes[:0], ps.bwdRels[:0]
	for p := bwd.parts[bi].parent; p >= 0; p = bwd.parts[p].parent {
		bn = append(bn, bwd.parts[p].node)
	}
	for p := bi; p > 0; p = bwd.parts[p].parent {
		br = append(br, bwd.parts[p].rel)
		score *= bwd.parts[p].w
	}
	ps.fwdNodes, ps.fwdRels, ps.bwdNodes, ps.bwdRels = fn, fr, bn, br
	for _, x := range bn {
		if slices.Contains(fn, x) {
			return
		}
	}
	if len(ps.best) == ps.k && score < ps.threshold() {
		return
	}
	// Candidates live in one arena per call: entries of candidates that
	// drop out are simply not reused, and the arena's earlier backing arrays
	// stay valid when it grows.
	start := len(ps.arena)
	ps.arena = append(append(ps.arena, fn...), bn...)
	mid := len(ps.arena)
	ps.arena = append(append(ps.arena, fr...), br...)
	ps.consider(candidate{
		nodes: ps.arena[start:mid:mid],
		rels:  ps.arena[mid:len(ps.arena):len(ps.arena)],
		score: score,
	})
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

// FindPaths returns the opts.MaxPaths (default 3) best simple paths from
// sourceID to targetID of at most opts.MaxHops relations, walking relations
// in opts.Direction (Both: either way) and only of opts.RelationTypes when
// that is set. A path never visits an entity twice; parallel relations
// between the same entities make distinct paths. Paths are ordered by score
// (product of weights) descending, then fewer hops, then entity IDs and
// relation keys position by position: exactly the first MaxPaths of every
// such path sorted that way.
//
// sourceID == targetID returns one zero-hop path of score 1. Otherwise, when
// there is no path, the error wraps ErrNoPath and names both IDs; FindPaths
// never answers with neighbours in place of a path. Unknown IDs return
// ErrNotFound; invalid options return ErrInvalidArgument; a cancelled ctx
// returns ctx.Err() (checked between hops).
//
// The search meets in the middle: ⌈MaxHops/2⌉ hops forward from the source
// and ⌊MaxHops/2⌋ backward from the target, pruning partial paths that can
// no longer reach the k-th best score. opts.MaxNodesPerHop caps how many
// entities each side grows per hop, best partial scores first, and the graph's
// path budget (DefaultPathBudget unless WithPathBudget) caps how many partial
// paths a call builds. When either cut the search, Truncated is set and the
// paths are exact among those explored; with ErrNoPath the result still
// carries Truncated. Cost: at worst O(d^⌈h/2⌉) partial paths for degree d
// and h hops, bounded by the budget.
func (g *InMemoryGraph) FindPaths(ctx context.Context, sourceID, targetID string, opts PathOptions) (PathResult, error) {
	if err := ctx.Err(); err != nil {
		return PathResult{}, err
	}
	if err := validatePathOptions(&opts); err != nil {
		return PathResult{}, err
	}
	if err := g.rlock(); err != nil {
		return PathResult{}, err
	}
	defer g.mu.RUnlock()
	src, ok := g.ids[sourceID]
	if !ok {
		return PathResult{}, fmt.Errorf("kgmem: find paths: source entity %q: %w", sourceID, ErrNotFound)
	}
	dst, ok := g.ids[targetID]
	if !ok {
		return PathResult{}, fmt.Errorf("kgmem: find paths: target entity %q: %w", targetID, ErrNotFound)
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
		if cap(ps.fwd.parts)+cap(ps.bwd.parts) <= maxPooledPartials {
			g.pathScratch.Put(ps)
		}
	}()
	return searchPaths(ctx, ps, g.step(opts.RelationTypes), src, dst, opts, g.pathBudget)
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

func noPathError(sourceID, targetID string, maxHops int, truncated bool) error {
	cut := ""
	if truncated {
		cut = " (search truncated by MaxNodesPerHop or the path budget)"
	}
	return fmt.Errorf("kgmem: no path from %q to %q within %d hops%s: %w", sourceID, targetID, maxHops, cut, ErrNoPath)
}
