package kgmem

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/traverse"
	"github.com/kgmem/kgmem/internal/walk"
)

// stepper is the read access the traversal algorithms (GetRelated here,
// FindPaths in bidir.go) need from a backend. A backend hands out node and
// relation handles: small non-negative integers, dense enough to index
// slices, valid for one traversal. The in-memory graph uses its slot numbers;
// a database backend can intern the IDs it reads during the call. Everything
// about ordering, ties and caps lives in the algorithms, so every backend
// that implements stepper returns the same answers.
type stepper interface {
	// Expand, ID and CompareRels: what the searches of internal/traverse
	// need. Expand checks ctx every traverse.ScanCheckEvery relations.
	traverse.Stepper
	// entity returns a copy of the entity behind node handle n.
	entity(n int32) Entity
	// relation returns a copy of the relation behind relation handle r.
	relation(r int32) Relation
	// prepare is called once before entity is asked for the handles of
	// ranked, so that a backend can fetch them in one request.
	prepare(ctx context.Context, ranked []traverse.Ranked) error
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

// getRelated runs GetRelated's breadth-first traversal (see
// traverse.Traversal.Rank) from handle start over st, with scratch t.
// opts must have been validated.
func getRelated(ctx context.Context, st stepper, t *traverse.Traversal, start int32, opts TraverseOptions) ([]ScoredEntity, error) {
	ranked, hop, err := t.Rank(ctx, st, start, relatedQuery(opts))
	if err == nil {
		err = st.prepare(ctx, ranked)
	}
	var out []ScoredEntity
	if err == nil {
		out, err = materialize(ctx, st, t, start, ranked)
	}
	t.End(hop)
	if err != nil {
		return nil, err
	}
	// A call cancelled while it finished its answer still fails.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// relatedQuery is the traverse.RelatedQuery of validated opts.
func relatedQuery(opts TraverseOptions) traverse.RelatedQuery {
	return traverse.RelatedQuery{Depth: opts.Depth, Dir: traverse.Dir(opts.Direction), MaxNodesPerHop: opts.MaxNodesPerHop, Limit: opts.Limit}
}

// materializeCheckEvery is how many results materialize builds between two
// checks of its context.
const materializeCheckEvery = 1 << 12

// materialize builds the results for the handles t ranked, in order, and
// returns ctx.Err() if ctx is cancelled meanwhile.
//
// A path's parent always ranks before it (its score is at least as high and
// it has fewer hops), so each result copies its parent's path and relations
// and appends one step, instead of walking the parent chain through the
// graph. All paths share two backing arrays, each result's slices capped so
// that an append by the caller cannot write into a neighbour's path.
func materialize(ctx context.Context, st stepper, t *traverse.Traversal, start int32, ranked []traverse.Ranked) ([]ScoredEntity, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	hops := 0
	for _, r := range ranked {
		hops += int(r.Hop)
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
		k, v := int(r.Hop), r.N
		path, prs := ids[:k+1:k+1], rels[:k:k]
		ids, rels = ids[k+1:], rels[k:]
		p, via := t.Via(v)
		if p == start {
			path[0] = startID
		} else {
			prev := &out[t.Index(p)]
			copy(path, prev.Path)
			for j := range prev.Relations {
				prs[j] = cloneRelation(prev.Relations[j])
			}
		}
		path[k] = st.ID(v)
		prs[k-1] = st.relation(via)
		t.SetIndex(v, int32(i))
		out[i] = ScoredEntity{Entity: st.entity(v), Score: r.Score, Path: path, Relations: prs}
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
	err := g.traverseFrom(ctx, id, &opts, func(st *memStep, t *traverse.Traversal, start int32) error {
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
func (g *InMemoryGraph) traverseFrom(ctx context.Context, id string, opts *TraverseOptions, do func(st *memStep, t *traverse.Traversal, start int32) error) error {
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

func (g *InMemoryGraph) getScratch() *traverse.Traversal {
	t, _ := g.scratch.Get().(*traverse.Traversal)
	if t == nil {
		t = new(traverse.Traversal)
	}
	t.Grow(len(g.nodes))
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
	scanned, check := 0, traverse.ScanCheckEvery
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
					check = traverse.ScanCheckEvery
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
			if a.To != skip && (s.filter == nil || s.filter[types[a.Rel]]) && rels[a.Rel].admits(s.at) {
				visit(from, a.To, a.Rel, a.W)
			}
		}
		return
	}
	if s.filter == nil {
		for _, a := range list {
			if a.To != skip {
				visit(from, a.To, a.Rel, a.W)
			}
		}
		return
	}
	types := s.g.relTypes
	for _, a := range list {
		if a.To != skip && s.filter[types[a.Rel]] {
			visit(from, a.To, a.Rel, a.W)
		}
	}
}

func (s *memStep) prepare(context.Context, []traverse.Ranked) error { return nil }

// Unfiltered implements traverse.Lister: every relation counts when no
// type filter or valid time applies.
func (s *memStep) Unfiltered() bool { return s.filter == nil && !s.timed }

var (
	_ traverse.Lister  = (*memStep)(nil)
	_ traverse.Degreer = (*memStep)(nil)
)

// Lists implements traverse.Lister.
func (s *memStep) Lists(n int32) (out, in []adj) {
	node := &s.g.nodes[n]
	return node.out, node.in
}

func (s *memStep) ID(n int32) string         { return s.g.nodes[n].id }
func (s *memStep) entity(n int32) Entity     { return s.g.nodes[n].entity() }
func (s *memStep) relation(r int32) Relation { return s.g.relation(r) }

func (s *memStep) CompareRels(a, b int32) int {
	ra, rb := &s.g.rels[a], &s.g.rels[b]
	nodes, names := s.g.nodes, s.g.types.names
	if c := strings.Compare(nodes[ra.src].id, nodes[rb.src].id); c != 0 {
		return c
	}
	if c := strings.Compare(nodes[s.g.relEnd(a).To].id, nodes[s.g.relEnd(b).To].id); c != 0 {
		return c
	}
	return strings.Compare(names[s.g.relTypes[a]], names[s.g.relTypes[b]])
}

// The walk search's extra access (walk.Stepper).

var (
	_ walkStepper        = (*memStep)(nil)
	_ walk.RelationNamer = (*memStep)(nil)
)

// ExpandTyped implements walk.Stepper; it checks ctx every
// traverse.ScanCheckEvery relations.
func (s *memStep) ExpandTyped(ctx context.Context, frontier []int32, td traverse.Dir, visit func(int, int32, int32, int32, float64, bool)) error {
	dir := Direction(td)
	nodes, rels, types := s.g.nodes, s.g.rels, s.g.relTypes
	check := traverse.ScanCheckEvery
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
					check = traverse.ScanCheckEvery
				}
				if d == 1 && a.To == u && dir == Both {
					continue // a self-loop, reported from the out list
				}
				if t := types[a.Rel]; (s.filter == nil || s.filter[t]) && (!s.timed || rels[a.Rel].admits(s.at)) {
					visit(i, a.To, a.Rel, t, a.W, d == 1 && a.To != u)
				}
			}
		}
	}
	return nil
}

func (s *memStep) TypeName(t int32) string { return s.g.types.names[t] }
func (s *memStep) SameRel(a, b int32) bool { return a == b }
func (s *memStep) NodeType(n int32) string { return s.g.nodes[n].typ }
func (s *memStep) NodeName(n int32) string { return s.g.nodes[n].name }
func (s *memStep) IDHash(n int32) uint64   { return s.g.hashes[n] }
