package traverse

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
)

// ScanCheckEvery is how many relations a search scans between two checks
// of its context.
const ScanCheckEvery = 1 << 12

// Adj is one entry of an adjacency list: the entity at the other end, the
// relation's handle and its weight.
type Adj struct {
	To  int32
	Rel int32
	W   float64
}

// Lister is a Stepper that hands out each entity's adjacency lists, so
// that Rank walks them without a call per relation when every relation
// counts.
type Lister interface {
	Stepper
	// Unfiltered reports whether every relation of the lists counts: no
	// type filter or valid time applies.
	Unfiltered() bool
	// Lists returns the relations whose source is n (out) and whose
	// target is n (in), each with the entity at its other end.
	Lists(n int32) (out, in []Adj)
}

// Ranked is a reached entity with its sort keys.
type Ranked struct {
	Score float64
	Hop   uint32
	N     int32
}

// Via returns the handle of the entity v's best path arrives from (-1 for
// the start) and the handle of the relation it arrives by; v must have been
// reached by the last Rank.
func (t *Traversal) Via(v int32) (parent, rel int32) { return t.parent[v], t.prel[v] }

// Index returns the number SetIndex gave handle v during this call.
func (t *Traversal) Index(v int32) int32 { return t.pos[v] }

// SetIndex numbers handle v, reached by the last Rank, for the caller
// building its results (a result's position, so that a later result finds
// its parent's).
func (t *Traversal) SetIndex(v, i int32) { t.pos[v] = i }

// traversal is scratch space for one traversal at a time, indexed by node
// handle and reused across calls so that a call allocates in proportion to
// its result, not to the graph.
//
// stamp[n] tells whether n was reached in the current call and at which hop:
// a value v >= base means hop v-base; anything below base is left over from
// earlier calls and means "not reached". score, parent and prel are only
// meaningful for reached handles.
type Traversal struct {
	stamp  []uint32
	base   uint32
	score  []float64
	parent []int32 // node handle the best path arrives from; -1 for the start
	prel   []int32 // relation handle the best path arrives by
	pos    []int32 // the numbers of SetIndex

	level, next, reached []int32
	ranked, spare        []Ranked // spare: rankSort's buffer
}

// begin prepares t for a call over at least n handles.
func (t *Traversal) begin(n int) {
	if t.base == 0 || t.base > math.MaxUint32/2 {
		clear(t.stamp)
		t.base = 1
	}
	t.Grow(n)
}

// End retires the stamps the call used; hops is the deepest hop reached.
func (t *Traversal) End(hops int) {
	t.base += uint32(hops) + 1
}

// Grow makes room in t for the handles below n. Rank grows t as a
// Stepper reports handles, but walks a Lister's lists without looking:
// before a Rank over a Lister, Grow t past every handle its lists hold.
func (t *Traversal) Grow(n int) {
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

// RelatedQuery says how far Rank walks.
type RelatedQuery struct {
	Depth          int // hops; at least 1
	Dir            Dir
	MaxNodesPerHop int // the most entities kept per hop, best first; 0 for all
	Limit          int // the most entities returned; 0 for all
}

// Rank walks breadth-first from handle start over st and returns the
// reached handles in result order (score descending, hops ascending, ID
// ascending), cut to q.Limit, with the deepest hop reached. The caller
// reads the links of the handles (Via), then calls t.End(hop), also when
// Rank fails. Rank returns ctx.Err() when ctx is cancelled, checking it
// between hops and every ScanCheckEvery relations or SortChunk sorted.
//
// Hop by hop, every relation leaving the entities kept at the previous hop
// is offered to the entity at its other end, unless that entity was
// reached at an earlier hop (or is the start). Each newly reached entity
// keeps the best offer: highest score, then the lexicographically smallest
// path (which is decided by walking both candidates' parents up to their
// common ancestor), then the smallest relation key. Because offers only
// ever extend kept paths, each entity's path is the best among the
// fewest-hop paths built from the paths kept before it. Cost: every
// relation leaving a kept entity is visited once per direction, O(V+E)
// within Depth, plus sorting the result.
func (t *Traversal) Rank(ctx context.Context, st Stepper, start int32, q RelatedQuery) ([]Ranked, int, error) {
	t.begin(int(start) + 1)
	base := t.base
	t.stamp[start], t.score[start], t.parent[start], t.prel[start] = base, 1, -1, -1
	level, next, reached := append(t.level[:0], start), t.next[:0], t.reached[:0]
	lists, fast := st.(Lister)
	fast = fast && lists.Unfiltered()
	hop := 0
	for hop < q.Depth && len(level) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, hop, err
		}
		hop++
		cur := base + uint32(hop)
		next = next[:0]
		var err error
		if fast {
			next, err = t.expandAll(ctx, lists, level, q.Dir, cur, next)
		} else {
			_, _, err = st.Expand(ctx, level, q.Dir, math.MaxInt, func(from int, to, rel int32, w float64) {
				if int(to) >= len(t.stamp) {
					t.Grow(int(to) + 1)
				}
				if t.offer(st, level[from], to, rel, w, cur) {
					next = append(next, to)
				}
			})
		}
		if err != nil {
			return nil, hop, err
		}
		if c := q.MaxNodesPerHop; c > 0 && len(next) > c {
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
		ranked = append(ranked, Ranked{Score: t.score[v], Hop: t.stamp[v] - base, N: v})
	}
	ranked, err := t.rankSort(ctx, st, ranked)
	if err != nil {
		return nil, hop, err
	}
	if q.Limit > 0 && len(ranked) > q.Limit {
		ranked = ranked[:q.Limit]
	}
	return ranked, hop, nil
}

// offer offers v, reached from u by relation rel of weight w at the hop
// whose stamp is cur, and reports whether v is newly reached.
func (t *Traversal) offer(st Stepper, u, v, rel int32, w float64, cur uint32) bool {
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

// SortChunk is how many elements sortCtx sorts, or merges, between two
// checks of its context.
const SortChunk = 1 << 14

// sortCtx sorts xs by cmp like slices.SortFunc, checking ctx every
// SortChunk elements sorted or merged; it returns ctx.Err(), leaving xs in
// some order, when ctx is cancelled. Up to SortChunk elements it is
// slices.SortFunc. Beyond, it sorts chunks of SortChunk elements and merges
// them bottom-up through a buffer as long as xs: the same O(n log n)
// comparisons, interruptible.
func sortCtx[E any](ctx context.Context, xs []E, cmp func(a, b E) int) error {
	n := len(xs)
	if n <= SortChunk {
		slices.SortFunc(xs, cmp)
		return nil
	}
	for lo := 0; lo < n; lo += SortChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		slices.SortFunc(xs[lo:min(lo+SortChunk, n)], cmp)
	}
	src, dst := xs, make([]E, n)
	for width := SortChunk; width < n; width *= 2 {
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
// taking from a on ties, and checks ctx every SortChunk elements.
func mergeCtx[E any](ctx context.Context, out, a, b []E, cmp func(a, b E) int) error {
	if len(a) > 0 && len(b) > 0 && cmp(a[len(a)-1], b[0]) <= 0 {
		// Already in order, as often when the input was nearly sorted.
		copy(out[copy(out, a):], b)
		return nil
	}
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if k&(SortChunk-1) == SortChunk-1 {
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

// better reports whether the offer of reaching v from u by relation rel with
// score beats v's current best at the same hop.
func (t *Traversal) better(st Stepper, score float64, u, rel, v int32) bool {
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

// expandAll is the hop of Rank over a Lister when every relation counts:
// the same offers as Expand would make, in the same order, without a call
// per relation. It checks ctx every ScanCheckEvery relations or so.
func (t *Traversal) expandAll(ctx context.Context, s Lister, level []int32, dir Dir, cur uint32, next []int32) ([]int32, error) {
	check := ScanCheckEvery
	for _, u := range level {
		out, in := s.Lists(u)
		// A self-loop leads back to u, reached at the previous hop, so
		// it is never offered, from either list.
		if dir != In {
			next = t.offerList(s, u, out, cur, next)
			check -= len(out)
		}
		if dir != Out {
			next = t.offerList(s, u, in, cur, next)
			check -= len(in)
		}
		if check <= 0 {
			if err := ctx.Err(); err != nil {
				return next, err
			}
			check = ScanCheckEvery
		}
	}
	return next, nil
}

// offerList offers every relation of list from u, as offer does, and
// appends the newly reached handles to next.
func (t *Traversal) offerList(s Stepper, u int32, list []Adj, cur uint32, next []int32) []int32 {
	base, su := t.base, t.score[u]
	stamp, score, parent, prel := t.stamp, t.score, t.parent, t.prel
	for _, a := range list {
		v := a.To
		st := stamp[v]
		switch {
		case st < base:
			stamp[v], score[v], parent[v], prel[v] = cur, su*a.W, u, a.Rel
			next = append(next, v)
		case st == cur:
			if sc := su * a.W; t.better(s, sc, u, a.Rel, v) {
				score[v], parent[v], prel[v] = sc, u, a.Rel
			}
		}
	}
	return next
}

// compareSort orders ranked as rankSort does, by comparison.
func compareSort(ctx context.Context, st Stepper, ranked []Ranked) error {
	return sortCtx(ctx, ranked, func(a, b Ranked) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.Hop != b.Hop:
			return cmp.Compare(a.Hop, b.Hop)
		}
		return strings.Compare(st.ID(a.N), st.ID(b.N))
	})
}

// radixMin is the shortest result rankSort sorts by radix; shorter ones
// are sorted by comparison.
const radixMin = 256

// rankSort orders ranked by score descending, then hop ascending, then ID
// ascending, and returns it (in t.ranked or t.spare). ranked must list the
// handles hop by hop, shallowest first, as Rank gathers them. It
// checks ctx every SortChunk elements sorted or moved.
//
// Long results are sorted by a stable radix sort on the score's bits,
// which leaves equal scores in hop order, and then each run of equal score
// and hop is sorted by ID: O(n) for distinct scores, where a comparison
// sort costs O(n log n) comparisons.
func (t *Traversal) rankSort(ctx context.Context, st Stepper, ranked []Ranked) ([]Ranked, error) {
	if len(ranked) < radixMin {
		t.ranked = ranked
		return ranked, compareSort(ctx, st, ranked)
	}
	// Scores are never negative, so their bits order as the scores do;
	// inverted, they order descending.
	key := func(r *Ranked) uint64 { return ^math.Float64bits(r.Score) }
	var counts [8][256]int
	for i := range ranked {
		k := key(&ranked[i])
		for d := range counts {
			counts[d][byte(k>>(8*d))]++
		}
	}
	src, dst := ranked, slices.Grow(t.spare[:0], len(ranked))[:len(ranked)]
	for d := range counts {
		c := &counts[d]
		if c[byte(key(&src[0])>>(8*d))] == len(src) {
			continue // every key has the same digit here
		}
		pos := 0
		for b := range c {
			c[b], pos = pos, pos+c[b]
		}
		shift := 8 * d
		for lo := 0; lo < len(src); lo += SortChunk {
			if err := ctx.Err(); err != nil {
				t.ranked, t.spare = src, dst // two distinct arrays, kept for the next call
				return nil, err
			}
			for i := lo; i < min(lo+SortChunk, len(src)); i++ {
				b := byte(key(&src[i]) >> shift)
				dst[c[b]] = src[i]
				c[b]++
			}
		}
		src, dst = dst, src
	}
	// src holds the sorted result; keep both buffers for the next call.
	t.ranked, t.spare = src, dst
	for i := 0; i < len(src); {
		j := i + 1
		for j < len(src) && src[j].Score == src[i].Score && src[j].Hop == src[i].Hop {
			j++
		}
		if j-i > 1 {
			err := sortCtx(ctx, src[i:j], func(a, b Ranked) int { return strings.Compare(st.ID(a.N), st.ID(b.N)) })
			if err != nil {
				return nil, err
			}
		}
		i = j
	}
	return src, nil
}
