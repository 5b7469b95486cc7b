package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/traverse"

	"github.com/kgmem/kgmem/internal/errmsg"
)

// stepper is the read access the traversal algorithms (GetRelated here,
// FindPaths in bidir.go) need from a backend. A backend hands out node and
// relation handles: small non-negative integers, dense enough to index
// slices, valid for one traversal. The in-memory graph uses its slot numbers;
// a database backend can intern the IDs it reads during the call. Everything
// about ordering, ties and caps lives in the algorithms, so every backend
// that implements stepper returns the same answers.
type stepper interface {
	// Expand, ID and CompareRels are what the path search needs (see
	// traverse.Stepper); Expand checks ctx every scanCheckEvery relations.
	traverse.Stepper
	// entity returns a copy of the entity behind node handle n.
	entity(n int32) Entity
	// relation returns a copy of the relation behind relation handle r.
	relation(r int32) Relation
	// prepare is called once before entity is asked for the handles of
	// ranked, so that a backend can fetch them in one request.
	prepare(ctx context.Context, ranked []rankedNode) error
}

// scanCheckEvery is how many relations a traversal scans between two checks
// of its context.
const scanCheckEvery = 1 << 12

// traversal is scratch space for one traversal at a time, indexed by node
// handle and reused across calls so that a call allocates in proportion to
// its result, not to the graph.
//
// stamp[n] tells whether n was reached in the current call and at which hop:
// a value v >= base means hop v-base; anything below base is left over from
// earlier calls and means "not reached". score, parent and prel are only
// meaningful for reached handles.
type traversal struct {
	stamp  []uint32
	base   uint32
	score  []float64
	parent []int32 // node handle the best path arrives from; -1 for the start
	prel   []int32 // relation handle the best path arrives by
	pos    []int32 // index of the handle's result while materializing

	level, next, reached []int32
	ranked, spare        []rankedNode // spare: rankSort's buffer
}

// begin prepares t for a call over at least n handles.
func (t *traversal) begin(n int) {
	if t.base == 0 || t.base > math.MaxUint32/2 {
		clear(t.stamp)
		t.base = 1
	}
	t.grow(n)
}

// end retires the stamps the call used; hops is the deepest hop reached.
func (t *traversal) end(hops int) {
	t.base += uint32(hops) + 1
}

func (t *traversal) grow(n int) {
	if n <= len(t.stamp) {
		return
	}
	n = max(n, 2*len(t.stamp))
	t.stamp = append(t.stamp, make([]uint32, n-len(t.stamp))...)
	t.score = append(t.score, make([]float64, n-len(t.score))...)
	t.parent = append(t.parent, make([]int32, n-len(t.parent))...)
	t.prel = append(t.prel, make([]int32, n-len(t.prel))...)
	t.pos = append(t.pos, make([]int32, n-len(t.pos))...)
}

// prepareTraverse checks TraverseOptions for GetRelated and sets the
// defaults of zero fields: Depth 0 becomes 1.
func prepareTraverse(opts *TraverseOptions) error {
	if err := validateTraverse(opts); err != nil {
		return err
	}
	if opts.Depth == 0 {
		opts.Depth = 1
	}
	return nil
}

// validateTraverse checks TraverseOptions without changing them.
func validateTraverse(opts *TraverseOptions) error {
	switch {
	case opts.Depth < 0:
		return fmt.Errorf("kgmem: traverse: negative depth %d: %w", opts.Depth, ErrInvalidArgument)
	case opts.MaxNodesPerHop < 0:
		return fmt.Errorf("kgmem: traverse: negative MaxNodesPerHop %d: %w", opts.MaxNodesPerHop, ErrInvalidArgument)
	case opts.Limit < 0:
		return fmt.Errorf("kgmem: traverse: negative limit %d: %w", opts.Limit, ErrInvalidArgument)
	case !opts.Direction.valid():
		return fmt.Errorf("kgmem: traverse: unknown direction %v: %w", opts.Direction, ErrInvalidArgument)
	}
	if err := checkAsOf(opts.AsOf); err != nil {
		return errmsg.Wrap("kgmem: traverse", err)
	}
	return validateTypes(opts.RelationTypes)
}

// validateTypes checks a relation type filter: no type in it may be
// empty, only white space or invalid UTF-8. A type longer than
// MaxTypeBytes names no relation, and is left to find nothing.
func validateTypes(types []string) error {
	for _, t := range types {
		if t == "" || !utf8.ValidString(t) || blank(t) {
			return fmt.Errorf("kgmem: type filter: %w", checkType("relation type", t))
		}
	}
	return nil
}

// getRelated runs GetRelated's breadth-first traversal from handle start
// over st. opts must have been validated.
//
// Hop by hop, every relation leaving the entities kept at the previous hop is
// offered to the entity at its other end, unless that entity was reached at
// an earlier hop (or is the start). Each newly reached entity keeps the best
// offer: highest score, then the lexicographically smallest path (which is
// decided by walking both candidates' parents up to their common ancestor),
// then the smallest relation key. Because offers only ever extend kept
// paths, each entity's path is the best among the fewest-hop paths built
// from the paths kept before it. Cost: every relation leaving a kept entity
// is visited once per direction, O(V+E) within Depth, plus sorting the
// result.
func getRelated(ctx context.Context, st stepper, t *traversal, start int32, opts TraverseOptions) ([]ScoredEntity, error) {
	ranked, hop, err := rankRelated(ctx, st, t, start, opts)
	if err == nil {
		err = st.prepare(ctx, ranked)
	}
	var out []ScoredEntity
	if err == nil {
		out, err = t.materialize(ctx, st, start, ranked)
	}
	t.end(hop)
	if err != nil {
		return nil, err
	}
	// A call cancelled while it finished its answer still fails.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// rankRelated runs the traversal getRelated describes and returns the
// reached handles in result order, cut to opts.Limit, with the deepest hop
// reached. The caller reads t's parent links for them, then calls
// t.end(hop), also when rankRelated fails.
func rankRelated(ctx context.Context, st stepper, t *traversal, start int32, opts TraverseOptions) ([]rankedNode, int, error) {
	t.begin(int(start) + 1)
	base := t.base
	t.stamp[start], t.score[start], t.parent[start], t.prel[start] = base, 1, -1, -1
	level, next, reached := append(t.level[:0], start), t.next[:0], t.reached[:0]
	ms, fast := st.(*memStep)
	fast = fast && ms.filter == nil && !ms.timed
	hop := 0
	for hop < opts.Depth && len(level) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, hop, err
		}
		hop++
		cur := base + uint32(hop)
		next = next[:0]
		var err error
		if fast {
			next, err = t.expandAll(ctx, ms, level, opts.Direction, cur, next)
		} else {
			_, _, err = st.Expand(ctx, level, traverse.Dir(opts.Direction), math.MaxInt, func(from int, to, rel int32, w float64) {
				if int(to) >= len(t.stamp) {
					t.grow(int(to) + 1)
				}
				if t.offer(st, level[from], to, rel, w, cur) {
					next = append(next, to)
				}
			})
		}
		if err != nil {
			return nil, hop, err
		}
		if c := opts.MaxNodesPerHop; c > 0 && len(next) > c {
			// The entities cut here keep their stamp, so later hops treat
			// them as visited.
			err := sortCtx(ctx, next, func(a, b int32) int {
				if c := cmp.Compare(t.score[b], t.score[a]); c != 0 {
					return c
				}
				return strings.Compare(st.ID(a), st.ID(b))
			})
			if err != nil {
				return nil, hop, err
			}
			next = next[:c]
		}
		reached = append(reached, next...)
		level, next = next, level
	}
	t.level, t.next, t.reached = level, next, reached
	if err := ctx.Err(); err != nil {
		return nil, hop, err
	}

	// Order the result: score descending, hops ascending, ID ascending. The
	// keys are gathered first so that the sort reads them sequentially;
	// reached lists the handles hop by hop, which rankSort relies on.
	ranked := t.ranked[:0]
	for _, v := range reached {
		ranked = append(ranked, rankedNode{score: t.score[v], hop: t.stamp[v] - base, n: v})
	}
	ranked, err := t.rankSort(ctx, st, ranked)
	if err != nil {
		return nil, hop, err
	}
	if opts.Limit > 0 && len(ranked) > opts.Limit {
		ranked = ranked[:opts.Limit]
	}
	return ranked, hop, nil
}

// offer offers v, reached from u by relation rel of weight w at the hop
// whose stamp is cur, and reports whether v is newly reached.
func (t *traversal) offer(st stepper, u, v, rel int32, w float64, cur uint32) bool {
	s := t.stamp[v]
	if s >= t.base && s < cur {
		return false // reached at an earlier hop
	}
	score := t.score[u] * w
	if s != cur {
		t.stamp[v], t.score[v], t.parent[v], t.prel[v] = cur, score, u, rel
		return true
	}
	if t.better(st, score, u, rel, v) {
		t.score[v], t.parent[v], t.prel[v] = score, u, rel
	}
	return false
}

// sortChunk is how many elements sortCtx sorts, or merges, between two
// checks of its context.
const sortChunk = 1 << 14

// sortCtx sorts xs by cmp like slices.SortFunc, checking ctx every
// sortChunk elements sorted or merged; it returns ctx.Err(), leaving xs in
// some order, when ctx is cancelled. Up to sortChunk elements it is
// slices.SortFunc. Beyond, it sorts chunks of sortChunk elements and merges
// them bottom-up through a buffer as long as xs: the same O(n log n)
// comparisons, interruptible.
func sortCtx[E any](ctx context.Context, xs []E, cmp func(a, b E) int) error {
	n := len(xs)
	if n <= sortChunk {
		slices.SortFunc(xs, cmp)
		return nil
	}
	for lo := 0; lo < n; lo += sortChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		slices.SortFunc(xs[lo:min(lo+sortChunk, n)], cmp)
	}
	src, dst := xs, make([]E, n)
	for width := sortChunk; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			if err := mergeCtx(ctx, dst[lo:hi], src[lo:mid], src[mid:hi], cmp); err != nil {
				return err
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
	return nil
}

// mergeCtx merges the sorted runs a and b into out (len(a)+len(b) long),
// taking from a on ties, and checks ctx every sortChunk elements.
func mergeCtx[E any](ctx context.Context, out, a, b []E, cmp func(a, b E) int) error {
	if len(a) > 0 && len(b) > 0 && cmp(a[len(a)-1], b[0]) <= 0 {
		// Already in order, as often when the input was nearly sorted.
		copy(out[copy(out, a):], b)
		return nil
	}
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if k&(sortChunk-1) == sortChunk-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if cmp(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
	return nil
}

// rankedNode is a reached entity with its sort keys.
type rankedNode struct {
	score float64
	hop   uint32
	n     int32
}

// better reports whether the offer of reaching v from u by relation rel with
// score beats v's current best at the same hop.
func (t *traversal) better(st stepper, score float64, u, rel, v int32) bool {
	switch cur := t.score[v]; {
	case score > cur:
		return true
	case score < cur:
		return false
	}
	p := t.parent[v]
	if u == p {
		return st.CompareRels(rel, t.prel[v]) < 0
	}
	// u and p sit at the same hop and their paths share the start: walk up
	// to the first position where the paths differ.
	for t.parent[u] != t.parent[p] {
		u, p = t.parent[u], t.parent[p]
	}
	return strings.Compare(st.ID(u), st.ID(p)) < 0
}

// materializeCheckEvery is how many results materialize builds between two
// checks of its context.
const materializeCheckEvery = 1 << 12

// materialize builds the results for the ranked handles, in order, and
// returns ctx.Err() if ctx is cancelled meanwhile.
//
// A path's parent always ranks before it (its score is at least as high and
// it has fewer hops), so each result copies its parent's path and relations
// and appends one step, instead of walking the parent chain through the
// graph. All paths share two backing arrays, each result's slices capped so
// that an append by the caller cannot write into a neighbour's path.
func (t *traversal) materialize(ctx context.Context, st stepper, start int32, ranked []rankedNode) ([]ScoredEntity, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	hops := 0
	for _, r := range ranked {
		hops += int(r.hop)
	}
	ids := make([]string, hops+len(ranked))
	rels := make([]Relation, hops)
	out := make([]ScoredEntity, len(ranked))
	startID := st.ID(start)
	for i, r := range ranked {
		if i&(materializeCheckEvery-1) == materializeCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k, v := int(r.hop), r.n
		path, prs := ids[:k+1:k+1], rels[:k:k]
		ids, rels = ids[k+1:], rels[k:]
		if p := t.parent[v]; p == start {
			path[0] = startID
		} else {
			prev := &out[t.pos[p]]
			copy(path, prev.Path)
			for j := range prev.Relations {
				prs[j] = cloneRelation(prev.Relations[j])
			}
		}
		path[k] = st.ID(v)
		prs[k-1] = st.relation(t.prel[v])
		t.pos[v] = int32(i)
		out[i] = ScoredEntity{Entity: st.entity(v), Score: r.score, Path: path, Relations: prs}
	}
	return out, nil
}

// cloneRelation returns r with its own copies of its map and slice.
func cloneRelation(r Relation) Relation {
	if r.Properties != nil {
		r.Properties = cloneMap(r.Properties)
	}
	if r.SourceIDs != nil {
		r.SourceIDs = cloneStrings(r.SourceIDs)
	}
	return r
}

// GetRelated walks the graph breadth-first from the entity with the given ID
// and returns every entity reached within opts.Depth hops (0 means 1, the
// direct neighbours), once, at its fewest-hop distance.
//
// Among the paths of that length an entity keeps the highest-scoring one
// (score: product of the weights along it); ties go to the lexicographically
// smallest path compared ID by ID, then to the smallest relation key, so the
// answer never depends on insertion order. The start is never in the result.
// Results are ordered by score descending, then hops ascending, then ID
// ascending, and cut to opts.Limit. See TraverseOptions for Direction,
// RelationTypes and MaxNodesPerHop.
//
// It returns an error wrapping ErrNotFound when the start does not exist, one
// wrapping ErrInvalidArgument for invalid options or an id that is empty,
// only white space or not valid UTF-8, and ctx.Err() when ctx is
// cancelled: ctx is checked between hops, every few thousand relations
// scanned, every few thousand results sorted, merged or copied, and last
// before returning, so a call cancelled while it works returns no result.
// Cost: O(V+E) over the entities and relations reached, plus O(r log r) to
// sort r results; the read lock is held throughout, so writers wait for the
// traversal. Related answers the same question without copying entities,
// paths and relations.
func (g *InMemoryGraph) GetRelated(ctx context.Context, id string, opts TraverseOptions) ([]ScoredEntity, error) {
	var out []ScoredEntity
	err := g.traverseFrom(ctx, id, &opts, func(st *memStep, t *traversal, start int32) error {
		var err error
		out, err = getRelated(ctx, st, t, start, opts)
		return err
	})
	return out, err
}

// traverseFrom checks a traversal from id with opts (normalised in place),
// and runs do under the read lock with the start's handle, a scratch
// traversal and the step opts ask for: the part GetRelated and Related
// share.
func (g *InMemoryGraph) traverseFrom(ctx context.Context, id string, opts *TraverseOptions, do func(st *memStep, t *traversal, start int32) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := prepareTraverse(opts); err != nil {
		return err
	}
	if err := checkID("start entity", id); err != nil {
		return err
	}
	if err := g.rlock(); err != nil {
		return err
	}
	defer g.mu.RUnlock()
	start, ok := g.ids[id]
	if !ok {
		return relatedNotFound(id)
	}
	t := g.getScratch()
	defer g.scratch.Put(t)
	return do(g.step(opts.RelationTypes, opts.AsOf), t, start)
}

// relatedNotFound is GetRelated's error for a start that is not an entity.
func relatedNotFound(id string) error {
	return fmt.Errorf("kgmem: related to entity %s: %w", quote.Value(id), ErrNotFound)
}

func (g *InMemoryGraph) getScratch() *traversal {
	t, _ := g.scratch.Get().(*traversal)
	if t == nil {
		t = new(traversal)
	}
	t.grow(len(g.nodes))
	return t
}

// memStep is the in-memory graph's stepper; node handles are slots. It is
// used with g.mu held for reading.
type memStep struct {
	g      *InMemoryGraph
	filter []bool // by type ID; nil: every type
	// timed is set when some relation of the graph has a valid time and
	// the read is answered at an instant: only then is any relation's
	// validity looked at, so a graph without valid times pays nothing.
	timed bool
	at    instant
}

// step returns the stepper of a read of the given types, answered at a.
func (g *InMemoryGraph) step(types []string, a AsOf) *memStep {
	s := &memStep{g: g}
	if g.timed > 0 && !a.AllTime {
		s.timed, s.at = true, a.resolve(g.clock)
	}
	if len(types) > 0 {
		s.filter = make([]bool, len(g.types.names))
		for _, name := range types {
			if id, ok := g.types.lookup(name); ok {
				s.filter[id] = true
			}
		}
	}
	return s
}

// Expand implements traverse.Stepper. Under Both it reports a self-loop
// once: from the out list.
func (s *memStep) Expand(ctx context.Context, frontier []int32, td traverse.Dir, limit int, visit func(int, int32, int32, float64)) (int, bool, error) {
	dir := Direction(td)
	nodes := s.g.nodes
	scanned, check := 0, scanCheckEvery
	for i, u := range frontier {
		n := &nodes[u]
		for d, list := range [2][]adj{n.out, n.in} {
			if d == 0 && dir == Incoming || d == 1 && dir == Outgoing {
				continue
			}
			skip := int32(-1)
			if d == 1 && dir == Both {
				skip = u // a self-loop, reported from the out list
			}
			if len(list) <= check && len(list) <= limit-scanned {
				s.scan(i, list, skip, visit) // the whole list, as is usual
				scanned += len(list)
				check -= len(list)
				continue
			}
			// Scan in chunks that end at the limit or at the next check of ctx.
			for len(list) > 0 {
				if scanned == limit {
					return scanned, true, nil
				}
				if check == 0 {
					if err := ctx.Err(); err != nil {
						return scanned, false, err
					}
					check = scanCheckEvery
				}
				c := min(len(list), limit-scanned, check)
				s.scan(i, list[:c], skip, visit)
				list = list[c:]
				scanned += c
				check -= c
			}
		}
	}
	return scanned, false, nil
}

// scan visits the relations of list, except those leading to skip.
func (s *memStep) scan(from int, list []adj, skip int32, visit func(int, int32, int32, float64)) {
	if s.timed {
		rels, types := s.g.rels, s.g.relTypes
		for _, a := range list {
			if a.to != skip && (s.filter == nil || s.filter[types[a.rel]]) && rels[a.rel].admits(s.at) {
				visit(from, a.to, a.rel, a.w)
			}
		}
		return
	}
	if s.filter == nil {
		for _, a := range list {
			if a.to != skip {
				visit(from, a.to, a.rel, a.w)
			}
		}
		return
	}
	types := s.g.relTypes
	for _, a := range list {
		if a.to != skip && s.filter[types[a.rel]] {
			visit(from, a.to, a.rel, a.w)
		}
	}
}

func (s *memStep) prepare(context.Context, []rankedNode) error { return nil }

func (s *memStep) ID(n int32) string         { return s.g.nodes[n].id }
func (s *memStep) entity(n int32) Entity     { return s.g.nodes[n].entity() }
func (s *memStep) relation(r int32) Relation { return s.g.relation(r) }

func (s *memStep) CompareRels(a, b int32) int {
	ra, rb := &s.g.rels[a], &s.g.rels[b]
	nodes, names := s.g.nodes, s.g.types.names
	if c := strings.Compare(nodes[ra.src].id, nodes[rb.src].id); c != 0 {
		return c
	}
	if c := strings.Compare(nodes[s.g.relEnd(a).to].id, nodes[s.g.relEnd(b).to].id); c != 0 {
		return c
	}
	return strings.Compare(names[s.g.relTypes[a]], names[s.g.relTypes[b]])
}

// The walk search's extra access (walk.go).

// expandTyped is expand reporting each relation's type and direction,
// with no limit; it checks ctx every scanCheckEvery relations.
func (s *memStep) expandTyped(ctx context.Context, frontier []int32, dir Direction, visit func(int, int32, int32, int32, float64, bool)) error {
	nodes, rels, types := s.g.nodes, s.g.rels, s.g.relTypes
	check := scanCheckEvery
	for i, u := range frontier {
		n := &nodes[u]
		for d, list := range [2][]adj{n.out, n.in} {
			if d == 0 && dir == Incoming || d == 1 && dir == Outgoing {
				continue
			}
			for _, a := range list {
				if check--; check == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
					check = scanCheckEvery
				}
				if d == 1 && a.to == u && dir == Both {
					continue // a self-loop, reported from the out list
				}
				if t := types[a.rel]; (s.filter == nil || s.filter[t]) && (!s.timed || rels[a.rel].admits(s.at)) {
					visit(i, a.to, a.rel, t, a.w, d == 1 && a.to != u)
				}
			}
		}
	}
	return nil
}

func (s *memStep) relSource(r int32) int32 { return s.g.rels[r].src }
func (s *memStep) relType(r int32) int32   { return s.g.relTypes[r] }
func (s *memStep) typeName(t int32) string { return s.g.types.names[t] }
func (s *memStep) sameRel(a, b int32) bool { return a == b }
func (s *memStep) nodeType(n int32) string { return s.g.nodes[n].typ }
func (s *memStep) nodeName(n int32) string { return s.g.nodes[n].name }
func (s *memStep) idHash(n int32) uint64   { return s.g.hashes[n] }
