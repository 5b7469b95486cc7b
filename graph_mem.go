package kgmem

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/nameindex"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/kgmem/kgmem/internal/traverse"
	"github.com/kgmem/kgmem/internal/walk"
)

// Option configures an InMemoryGraph. Every Option is also a
// DurableOption, configuring the graph that OpenGraph or OpenMemory opens.
// An invalid value makes OpenGraph and OpenMemory fail, and every call of
// a graph NewInMemoryGraph made with it return the error (see
// NewInMemoryGraph); both wrap ErrInvalidArgument.
type Option interface {
	DurableOption
	apply(*graphConfig)
}

type graphConfig struct {
	tags         TagConstraints
	pathBudget   int
	clock        func() time.Time
	singleValued []string
	svSet        bool  // WithSingleValued was given
	err          error // the first invalid option
}

func (c *graphConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("kgmem: graph option: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
}

// newGraphConfig applies opts and sets every default.
func newGraphConfig(opts []Option) graphConfig {
	var c graphConfig
	for i, o := range opts {
		if o == nil {
			c.fail("option %d is nil", i)
			continue
		}
		o.apply(&c)
	}
	if c.pathBudget == 0 {
		c.pathBudget = defaultPathBudget
	}
	if c.clock == nil {
		c.clock = time.Now
	}
	slices.Sort(c.singleValued)
	c.singleValued = slices.Compact(c.singleValued)
	c.tags = c.tags.withDefaults()
	return c
}

type optionFunc func(*graphConfig)

func (f optionFunc) apply(c *graphConfig) { f(c) }

func (f optionFunc) applyDurable(c *durableConfig) { c.graph = append(c.graph, f) }

// WithTagConstraints sets the limits tags are normalised with. A
// MaxTagsPerEntity of 0 means the default, 8; a
// negative one is invalid.
func WithTagConstraints(tc TagConstraints) Option {
	return optionFunc(func(c *graphConfig) {
		if tc.MaxTagsPerEntity < 0 {
			c.fail("WithTagConstraints: negative MaxTagsPerEntity %d", tc.MaxTagsPerEntity)
			return
		}
		c.tags = tc
	})
}

// InMemoryGraph is the reference KnowledgeGraph: everything lives in the
// process's memory, reads run in parallel and writes take a short exclusive
// lock.
//
// Internally entity IDs are interned to dense slot numbers, relation types to
// small integers, and each entity keeps its incoming and outgoing relations as
// slices of slot numbers, so a traversal touches only the entities and
// relations it reaches. Slots freed by RemoveEntity and RemoveRelation go on
// free lists and are reused by later inserts, so deletes leave no holes that
// traversals pay for.
//
// The zero value is not usable; call NewInMemoryGraph. All methods are safe
// for concurrent use.
type InMemoryGraph struct {
	tags         TagConstraints           // immutable after NewInMemoryGraph
	pathBudget   int                      // immutable after NewInMemoryGraph
	clock        func() time.Time         // immutable after NewInMemoryGraph; never nil
	singleValued atomic.Pointer[[]string] // sorted, distinct; set by NewInMemoryGraph and a memory's schema

	scratch     sync.Pool         // *traversal scratch space, reused across calls; holds no graph state
	pathScratch sync.Pool         // *traverse.PathSearch scratch space, likewise
	walkers     chan *walk.Walker // idle scratch space of the graph channel; see getWalker
	typeWords   typeWordCache     // relation types' words, for page spreading; see spread.go

	// mu guards every field below.
	//
	// Invariants, true whenever mu is not held for writing:
	//   - ids[id] == s exactly when nodes[s].live() and nodes[s].id == id;
	//     freeNodes lists every slot s < len(nodes) with !nodes[s].live().
	//   - rels is the record of relations; freeRels lists every slot r with
	//     !rels[r].live(), and relCount counts the others. No two live
	//     relations share a key.
	//   - for each live relation r with source src, target dst and weight
	//     w: nodes[src].out[rels[r].outPos] is {to: dst, rel: r, w: w} and
	//     nodes[dst].in[rels[r].inPos] is {to: src, rel: r, w: w}; out and
	//     in hold nothing else. The record keeps src; dst and w are read
	//     from the out entry (see relEnd).
	//   - the key index: a node with more than hubDegree outgoing relations
	//     may have outKeys, and one with more than 2×hubDegree has it;
	//     outKeys holds exactly the positions of the node's out list (see
	//     keyTable). Keys of nodes without outKeys are found by
	//     scanning out.
	//   - timed counts the live relations whose more holds a valid time
	//     (more.timed()); while it is 0, reads never look at validity.
	//   - types.refs[t] is the number of live relations of type t, and a type
	//     with no relations is not in types.ids.
	//   - tagIndex[t] holds exactly the live slots whose entity has tag t, and
	//     is never empty.
	//   - names indexes exactly the names and aliases of live entities.
	//   - sources indexes exactly the SourceIDs of live entities and
	//     relations (see sourceIndex); changes records every entity write
	//     (see changeLog).
	mu        sync.RWMutex
	ids       map[string]int32
	nodes     []node
	hashes    []uint64 // by slot: idHash of a live entity's ID, apart from nodes so that the walk's tie-breaks read a dense array
	relTypes  []int32  // by relation slot: a live relation's interned type, apart from rels so that typed walks read a dense array
	freeNodes []int32
	rels      []relRec
	freeRels  []int32
	relCount  int
	timed     int
	types     typeTable
	tagIndex  map[string]map[int32]struct{}
	names     nameindex.Index
	sources   sourceIndex
	changes   changeLog
	// journal, when set, records every write before it is applied (see
	// commit); a write whose record fails is not applied. Set once, by
	// the durable layer, before the graph is shared.
	journal func(*mutation) error
	closed  bool  // set by Close; every method then fails with ErrClosed
	bad     error // an invalid option of NewInMemoryGraph; every method returns it
}

// lock takes g.mu for writing, or returns an error wrapping ErrClosed.
func (g *InMemoryGraph) lock() error {
	g.mu.Lock()
	switch {
	case g.closed:
		g.mu.Unlock()
		return errClosed
	case g.bad != nil:
		g.mu.Unlock()
		return g.bad
	}
	return nil
}

// Close releases the graph: every later call fails with an error wrapping
// ErrClosed, a second Close included. It frees nothing by itself (drop the
// graph for that); it makes use after release an error rather than a
// silent success. DurableGraph and Memory close their files too.
func (g *InMemoryGraph) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errClosed
	}
	g.closed = true
	g.mu.Unlock()
	return nil
}

// rlock takes g.mu for reading, or returns an error wrapping ErrClosed.
func (g *InMemoryGraph) rlock() error {
	g.mu.RLock()
	switch {
	case g.closed:
		g.mu.RUnlock()
		return errClosed
	case g.bad != nil:
		g.mu.RUnlock()
		return g.bad
	}
	return nil
}

// node is one entity slot.
type node struct {
	id   string
	name string
	typ  string
	more *entityMore // nil when every optional field is empty
	out  []adj       // relations whose source is this entity
	in   []adj       // relations whose target is this entity
	// outKeys indexes out by key for entities with many outgoing
	// relations; nil otherwise (see hubDegree).
	outKeys *keyTable
}

// live reports whether the slot holds an entity: entity IDs are never
// empty, and a freed slot is zeroed.
func (n *node) live() bool { return n.id != "" }

// entityMore holds the optional fields of an entity; most entities in large
// graphs have few of them, so they live behind one pointer.
type entityMore struct {
	description string
	aliases     []string
	tags        []string
	properties  map[string]string
	sourceIDs   []string
}

// adj is one entry of an adjacency list: the entity at the other end, the
// relation slot and the relation's weight (copied here so that traversals do
// not have to load the relation record). It is traverse.Adj, so that
// traverse.Traversal.Rank walks the lists as they are.
type adj = traverse.Adj

// relRec is one relation slot: 24 bytes. The target and the weight are
// not repeated here: they are read from the source's out entry (relEnd),
// which traversals read anyway.
type relRec struct {
	src    int32    // the source's slot; freeRel when the slot is free; the type is in InMemoryGraph.relTypes
	outPos int32    // index of this relation in nodes[src].out
	inPos  int32    // index of this relation in nodes[dst].in
	more   *relMore // nil when the relation has no properties or sources
}

// freeRel is the src of a free relation slot.
const freeRel = -1

// live reports whether the slot holds a relation.
func (r *relRec) live() bool { return r.src != freeRel }

// relEnd returns the out entry of live relation slot i: its target and
// weight.
func (g *InMemoryGraph) relEnd(i int32) *adj {
	rec := &g.rels[i]
	return &g.nodes[rec.src].out[rec.outPos]
}

type relMore struct {
	properties map[string]string
	sourceIDs  []string
	// from and to are the valid time as stored (see storedTime): 0 when
	// the start is unknown or the end open.
	from, to int64
}

// timed reports whether m holds a valid time; m may be nil.
func (m *relMore) timed() bool { return m != nil && (m.from != 0 || m.to != 0) }

// relKey is a RelationKey with interned parts.
type relKey struct{ src, dst, typ int32 }

// typeTable interns relation types with reference counts.
type typeTable struct {
	ids   map[string]int32
	names []string
	refs  []int32
	free  []int32
}

func (t *typeTable) lookup(name string) (int32, bool) {
	id, ok := t.ids[name]
	return id, ok
}

// intern adds name with no references; the caller adds the reference of the
// relation it is about to insert.
func (t *typeTable) intern(name string) int32 {
	var id int32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.names[id], t.refs[id] = name, 0
	} else {
		id = int32(len(t.names))
		t.names = append(t.names, name)
		t.refs = append(t.refs, 0)
	}
	if t.ids == nil {
		t.ids = make(map[string]int32)
	}
	t.ids[name] = id
	return id
}

// release drops n references to type id and forgets the type when none is
// left.
func (t *typeTable) release(id int32, n int32) {
	t.refs[id] -= n
	if t.refs[id] == 0 {
		delete(t.ids, t.names[id])
		t.names[id] = ""
		t.free = append(t.free, id)
	}
}

var _ KnowledgeGraph = (*InMemoryGraph)(nil)

// NewInMemoryGraph returns an empty graph.
//
// NewInMemoryGraph cannot return an error, so an invalid option (a nil one
// included) is kept instead: every method of the graph but Close returns
// it, wrapping ErrInvalidArgument. OpenGraph and OpenMemory return the
// same error at once.
func NewInMemoryGraph(opts ...Option) *InMemoryGraph {
	cfg := newGraphConfig(opts)
	g := &InMemoryGraph{
		bad:        cfg.err,
		tags:       cfg.tags,
		pathBudget: cfg.pathBudget,
		clock:      cfg.clock,
		walkers:    make(chan *walk.Walker, idleWalkers),
		ids:        make(map[string]int32),
		tagIndex:   make(map[string]map[int32]struct{}),
	}
	g.setSingleValued(cfg.singleValued)
	return g
}

// TagConstraints returns the limits tags are normalised with.
func (g *InMemoryGraph) TagConstraints() TagConstraints { return g.tags }

// GraphStats counts what a graph holds.
type GraphStats struct {
	Entities  int // live entities
	Relations int // live relations
	Tags      int // distinct tags in use
}

// Stats returns how many entities, relations and tags the graph holds.
func (g *InMemoryGraph) Stats() GraphStats {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return GraphStats{
		Entities:  len(g.ids),
		Relations: g.relCount,
		Tags:      len(g.tagIndex),
	}
}

// AddEntity inserts e, or replaces the entity with e.ID. Replacing keeps the
// entity's relations and re-indexes its tags. Tags are normalised as in
// SetEntityTags. It returns an error wrapping ErrInvalidArgument when e.ID is
// empty, a field is not valid UTF-8, or the ID, name, type, an alias or a
// tag is longer than its limit (MaxIDBytes, MaxNameBytes, MaxTypeBytes,
// MaxTagBytes). AddEntity copies e: later changes to e's slices or map do
// not reach the graph.
func (g *InMemoryGraph) AddEntity(ctx context.Context, e Entity) error {
	return g.apply(ctx, &mutation{Op: opAddEntity, Entities: []Entity{e}})
}

// putEntity stores a validated entity; the caller holds g.mu for writing.
func (g *InMemoryGraph) putEntity(e *Entity, more *entityMore) {
	s, ok := g.ids[e.ID]
	if !ok {
		s = g.allocNode(e.ID)
	}
	n := &g.nodes[s]
	g.unindexTags(s, n.tags())
	indexNames(&g.names, s, n, false)
	g.sources.replaceEntity(s, n.more, more)
	n.name, n.typ, n.more = e.Name, e.Type, more
	g.indexTags(s, n.tags())
	indexNames(&g.names, s, n, true)
	g.changes.record(n.id)
}

func (g *InMemoryGraph) allocNode(id string) int32 {
	var s int32
	if k := len(g.freeNodes); k > 0 {
		s = g.freeNodes[k-1]
		g.freeNodes = g.freeNodes[:k-1]
	} else {
		s = int32(len(g.nodes))
		g.nodes = append(g.nodes, node{})
		g.hashes = append(g.hashes, 0)
	}
	g.nodes[s] = node{id: id}
	g.hashes[s] = walk.IDHash(id)
	g.ids[id] = s
	return s
}

func newEntityMore(e *Entity, tags []string) *entityMore {
	if e.Description == "" && len(e.Aliases) == 0 && len(tags) == 0 &&
		len(e.Properties) == 0 && len(e.SourceIDs) == 0 {
		return nil
	}
	return &entityMore{
		description: e.Description,
		aliases:     cloneStrings(e.Aliases),
		tags:        tags,
		properties:  cloneMap(e.Properties),
		sourceIDs:   cloneStrings(e.SourceIDs),
	}
}

func (n *node) aliases() []string {
	if n.more == nil {
		return nil
	}
	return n.more.aliases
}

func (n *node) tags() []string {
	if n.more == nil {
		return nil
	}
	return n.more.tags
}

// entity returns a copy of the entity in n that shares nothing mutable with n.
func (n *node) entity() Entity {
	e := Entity{ID: n.id, Name: n.name, Type: n.typ}
	if m := n.more; m != nil {
		e.Description = m.description
		// One allocation holds the three lists, each capped at its
		// length so that appending to one never writes into the next.
		buf := make([]string, 0, len(m.aliases)+len(m.tags)+len(m.sourceIDs))
		e.Aliases, buf = carve(buf, m.aliases)
		e.Tags, buf = carve(buf, m.tags)
		e.SourceIDs, _ = carve(buf, m.sourceIDs)
		e.Properties = cloneMap(m.properties)
	}
	return e
}

// GetEntity returns a copy of the entity with the given ID; ok is false when
// there is none. An empty or whitespace-only id, or one that is not valid
// UTF-8, returns an error wrapping ErrInvalidArgument.
func (g *InMemoryGraph) GetEntity(ctx context.Context, id string) (Entity, bool, error) {
	if err := ctx.Err(); err != nil {
		return Entity{}, false, err
	}
	if err := checkID("entity", id); err != nil {
		return Entity{}, false, err
	}
	if err := g.rlock(); err != nil {
		return Entity{}, false, err
	}
	defer g.mu.RUnlock()
	s, ok := g.ids[id]
	if !ok {
		return Entity{}, false, nil
	}
	return g.nodes[s].entity(), true, nil
}

// RemoveEntity deletes the entity with the given ID together with every
// relation that starts or ends at it and its tag index entries. It returns an
// error wrapping ErrNotFound when there is no such entity, and one wrapping
// ErrInvalidArgument when id is empty, only white space, longer than
// MaxIDBytes or not valid UTF-8. Cost: O(degree).
func (g *InMemoryGraph) RemoveEntity(ctx context.Context, id string) error {
	return g.apply(ctx, &mutation{Op: opRemoveEntity, ID: id})
}

// removeEntity deletes the entity in slot s with its relations and index
// entries, and returns how many relations went with it; the caller holds
// g.mu for writing.
func (g *InMemoryGraph) removeEntity(s int32) int {
	n := &g.nodes[s]
	before := g.relCount
	for len(n.out) > 0 {
		g.removeRel(n.out[len(n.out)-1].Rel)
	}
	for len(n.in) > 0 {
		g.removeRel(n.in[len(n.in)-1].Rel)
	}
	g.unindexTags(s, n.tags())
	indexNames(&g.names, s, n, false)
	g.sources.entity(s, n.more, false)
	g.changes.record(n.id)
	delete(g.ids, n.id)
	*n = node{}
	g.freeNodes = append(g.freeNodes, s)
	return before - g.relCount
}

// AddRelation inserts r, or replaces the weight, properties and sources of
// the stored relation with the same Key. A zero Weight is stored as 1
// (unweighted); SourceID may equal TargetID (a self-loop). It returns an
// error wrapping ErrInvalidArgument when an endpoint or the type is empty,
// only white space or longer than its limit (MaxIDBytes, MaxTypeBytes), a
// string is not valid UTF-8, or the weight is NaN, infinite or outside
// [0,1]; and one wrapping ErrNotFound when an endpoint is not an entity.
// AddRelation copies r. Cost: O(1) amortised.
func (g *InMemoryGraph) AddRelation(ctx context.Context, r Relation) error {
	return g.apply(ctx, &mutation{Op: opAddRelation, Relations: []Relation{r}})
}

// putRelation stores a validated relation between existing slots; the
// caller holds g.mu for writing.
func (g *InMemoryGraph) putRelation(src, dst int32, typ string, w float64, more *relMore) {
	t, ok := g.types.lookup(typ)
	if !ok {
		t = g.types.intern(typ)
	}
	g.putRelationTyped(src, dst, t, w, more)
}

// putRelationTyped is putRelation with the type already interned.
func (g *InMemoryGraph) putRelationTyped(src, dst, t int32, w float64, more *relMore) {
	k := relKey{src, dst, t}
	if i, ok := g.findRel(k); ok {
		rec := &g.rels[i]
		g.sources.replaceRelation(i, rec.more, more)
		g.timed += b2i(more.timed()) - b2i(rec.more.timed())
		rec.more = more
		g.nodes[src].out[rec.outPos].W = w
		g.nodes[dst].in[rec.inPos].W = w
		return
	}
	g.types.refs[t]++
	g.insertRel(k, w, more)
}

// AddBatch adds entities, then relations, under one write lock: each entity
// as AddEntity would, each relation as AddRelation would (a zero Weight is
// stored as 1), in order (a later item with the same ID or key replaces an
// earlier one). Relations may join
// entities of the same batch. Everything is validated before anything is
// applied: on an error, which names the index of the offending item,
// nothing changes. It is several times faster than one call per item.
// Validation and grouping relations by type happen before the write lock
// is taken; under it, the cost is O(1) amortised per item, however many
// distinct relation types the batch holds.
func (g *InMemoryGraph) AddBatch(ctx context.Context, entities []Entity, relations []Relation) error {
	// Copies, as check normalises tags and weights in place.
	return g.apply(ctx, &mutation{Op: opAddBatch, Entities: slices.Clone(entities), Relations: slices.Clone(relations)})
}

// batchTypes returns the distinct types of relations in first-seen order,
// and for each relation the index of its type among them. A batch with
// few types is grouped by comparing strings, one with many through a map,
// so the cost is O(len(relations)) whatever the number of types. AddBatch
// calls it before taking the lock.
func batchTypes(relations []Relation) (typeOf []int32, names []string) {
	typeOf = make([]int32, len(relations))
	var index map[string]int32 // the index of each of names, once there are more than textrule.ScanLimit
	last := int32(-1)          // the previous relation's type: batches often repeat one
	for i := range relations {
		t := relations[i].Type
		j := int32(-1)
		switch {
		case last >= 0 && names[last] == t:
			j = last
		case index != nil:
			if k, ok := index[t]; ok {
				j = k
			}
		default:
			j = int32(slices.Index(names, t))
		}
		if j < 0 {
			j = int32(len(names))
			names = append(names, t)
			switch {
			case index != nil:
				index[t] = j
			case len(names) > textrule.ScanLimit:
				index = make(map[string]int32, 2*len(names))
				for k, n := range names {
					index[n] = int32(k)
				}
			}
		}
		typeOf[i], last = j, j
	}
	return typeOf, names
}

// parallelBatch is the number of relations from which AddBatch validates
// on several cores.
const parallelBatch = 8192

// prepareRelations validates relations, normalising their weights in
// place, and copies their optional parts. A large batch is split across up to four goroutines, all finished before it
// returns; the error reported is always the one of the lowest index.
func prepareRelations(relations []Relation) ([]*relMore, error) {
	mores := make([]*relMore, len(relations))
	prepare := func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := validateRelation(&relations[i]); err != nil {
				return errmsg.Wrapf(err, "kgmem: batch relation %d", i)
			}
			mores[i] = newRelMore(&relations[i])
		}
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), 4, len(relations)/(parallelBatch/2))
	if workers < 2 {
		return mores, prepare(0, len(relations))
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = prepare(w*len(relations)/workers, (w+1)*len(relations)/workers)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return mores, nil
}

// reserve makes room for a large batch of relations at once, so that the
// record and the adjacency lists do not grow step by step.
// ends holds the resolved endpoints, -1 for entities the batch added.
func (g *InMemoryGraph) reserve(relations []Relation, ends [][2]int32) {
	n := len(relations)
	if n < 1024 {
		return
	}
	g.rels = slices.Grow(g.rels, n-len(g.freeRels))
	outAdd, inAdd := make([]int32, len(g.nodes)), make([]int32, len(g.nodes))
	for i := range relations {
		src, dst := ends[i][0], ends[i][1]
		if src < 0 {
			src = g.ids[relations[i].SourceID]
		}
		if dst < 0 {
			dst = g.ids[relations[i].TargetID]
		}
		ends[i] = [2]int32{src, dst}
		outAdd[src]++
		inAdd[dst]++
	}
	for s := range g.nodes {
		n := &g.nodes[s]
		if outAdd[s] > 0 {
			n.out = slices.Grow(n.out, int(outAdd[s]))
		}
		if inAdd[s] > 0 {
			n.in = slices.Grow(n.in, int(inAdd[s]))
		}
	}
}

func (g *InMemoryGraph) endpoints(sourceID, targetID, typ string) (src, dst int32, err error) {
	src, ok := g.ids[sourceID]
	if !ok {
		return 0, 0, fmt.Errorf("kgmem: relation %s: source entity %s: %w",
			describeKey(sourceID, typ, targetID), quote.Value(sourceID), ErrNotFound)
	}
	dst, ok = g.ids[targetID]
	if !ok {
		return 0, 0, fmt.Errorf("kgmem: relation %s: target entity %s: %w",
			describeKey(sourceID, typ, targetID), quote.Value(targetID), ErrNotFound)
	}
	return src, dst, nil
}

func newRelMore(r *Relation) *relMore {
	if len(r.Properties) == 0 && len(r.SourceIDs) == 0 && !r.HasValidity() {
		return nil
	}
	return &relMore{properties: cloneMap(r.Properties), sourceIDs: cloneStrings(r.SourceIDs),
		from: storedTime(r.ValidFrom), to: storedTime(r.ValidTo)}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// insertRel stores a new relation; the caller has checked that its key is
// free and counted the reference to its type.
func (g *InMemoryGraph) insertRel(k relKey, w float64, more *relMore) {
	var i int32
	if n := len(g.freeRels); n > 0 {
		i = g.freeRels[n-1]
		g.freeRels = g.freeRels[:n-1]
	} else {
		i = int32(len(g.rels))
		g.rels = append(g.rels, relRec{})
		g.relTypes = append(g.relTypes, 0)
	}
	s, d := &g.nodes[k.src], &g.nodes[k.dst]
	g.rels[i] = relRec{
		src:    k.src,
		outPos: int32(len(s.out)), inPos: int32(len(d.in)),
		more: more,
	}
	g.relTypes[i] = k.typ
	s.out = appendSlowly(s.out, adj{To: k.dst, Rel: i, W: w})
	d.in = appendSlowly(d.in, adj{To: k.src, Rel: i, W: w})
	g.sources.relation(i, more, true)
	g.relCount++
	g.timed += b2i(more.timed())
	switch {
	case s.outKeys != nil:
		s.outKeys.insert(g, s.out)
	case len(s.out) > 2*hubDegree:
		s.outKeys = newKeyTable(g, s.out)
	}
}

// appendSlowly is append growing a full slice by an eighth (rounded up to
// the allocator's next size class) instead of append's doubling, which
// would leave a quarter of every adjacency list unused on average. The
// copies stay amortised O(1) per element.
func appendSlowly[E any](list []E, e E) []E {
	if n := len(list); n == cap(list) {
		// append of a make is compiled to one allocation of the rounded-up size.
		grown := append([]E(nil), make([]E, n+n/8+1)...)
		copy(grown, list)
		list = grown[:n]
	}
	return append(list, e)
}

// hubDegree is the number of outgoing relations up to which a key is found
// by scanning the source's adjacency list, a few cache lines, rather than
// by probing a per-entity key index. An entity builds its index when its
// out-degree passes 2×hubDegree and drops it below hubDegree, so a degree
// that hovers near the threshold does not rebuild it again and again.
const hubDegree = 16

// findRel returns the slot of the live relation with key k.
func (g *InMemoryGraph) findRel(k relKey) (int32, bool) {
	n := &g.nodes[k.src]
	if n.outKeys != nil {
		return n.outKeys.find(g, n.out, k.dst, k.typ)
	}
	for _, a := range n.out {
		if a.To == k.dst && g.relTypes[a.Rel] == k.typ {
			return a.Rel, true
		}
	}
	return 0, false
}

// removeRel deletes relation slot i, keeping both adjacency lists dense by
// moving their last entry into the freed position.
func (g *InMemoryGraph) removeRel(i int32) {
	rec := g.rels[i]
	s := &g.nodes[rec.src]
	dst := s.out[rec.outPos].To
	if s.outKeys != nil {
		// Before the out list changes: the table reads targets through it.
		s.outKeys.remove(g, s.out, rec.outPos)
	}
	if last := int32(len(s.out) - 1); rec.outPos != last {
		moved := s.out[last]
		s.out[rec.outPos] = moved
		g.rels[moved.Rel].outPos = rec.outPos
		if s.outKeys != nil {
			s.outKeys.move(outKey{moved.To, g.relTypes[moved.Rel]}, last, rec.outPos)
		}
	}
	s.out = s.out[:len(s.out)-1]
	d := &g.nodes[dst]
	if last := int32(len(d.in) - 1); rec.inPos != last {
		moved := d.in[last]
		d.in[rec.inPos] = moved
		g.rels[moved.Rel].inPos = rec.inPos
	}
	d.in = d.in[:len(d.in)-1]
	if s.outKeys != nil && len(s.out) < hubDegree {
		s.outKeys = nil
	}
	g.relCount--
	g.sources.relation(i, rec.more, false)
	g.timed -= b2i(rec.more.timed())
	g.types.release(g.relTypes[i], 1)
	g.rels[i] = relRec{src: freeRel}
	g.freeRels = append(g.freeRels, i)
}

// RemoveRelation deletes the relation with the given key. It returns an
// error wrapping ErrNotFound when there is none, and one wrapping
// ErrInvalidArgument when a part of the key is empty, only white space,
// longer than its limit or not valid UTF-8.
func (g *InMemoryGraph) RemoveRelation(ctx context.Context, sourceID, targetID, relationType string) error {
	return g.apply(ctx, &mutation{Op: opRemoveRelation, Key: &RelationKey{sourceID, targetID, relationType}})
}

func (g *InMemoryGraph) lookupRel(sourceID, targetID, relationType string) (int32, bool) {
	src, ok1 := g.ids[sourceID]
	dst, ok2 := g.ids[targetID]
	t, ok3 := g.types.lookup(relationType)
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	return g.findRel(relKey{src, dst, t})
}

// relation returns a copy of relation slot i that shares nothing mutable with it.
func (g *InMemoryGraph) relation(i int32) Relation {
	rec, end := &g.rels[i], g.relEnd(i)
	r := Relation{
		SourceID: g.nodes[rec.src].id,
		TargetID: g.nodes[end.To].id,
		Type:     g.types.names[g.relTypes[i]],
		Weight:   end.W,
	}
	if m := rec.more; m != nil {
		r.Properties = cloneMap(m.properties)
		r.SourceIDs = cloneStrings(m.sourceIDs)
		r.ValidFrom, r.ValidTo = loadTime(m.from), loadTime(m.to)
	}
	return r
}

// GetRelation returns a copy of the relation with the given key; ok is false
// when there is none. A part of the key that is empty, only white space or
// not valid UTF-8 returns an error wrapping ErrInvalidArgument; like
// GetEntity, it does not check lengths.
func (g *InMemoryGraph) GetRelation(ctx context.Context, sourceID, targetID, relationType string) (Relation, bool, error) {
	if err := ctx.Err(); err != nil {
		return Relation{}, false, err
	}
	if err := checkReadKey(sourceID, targetID, relationType); err != nil {
		return Relation{}, false, err
	}
	if err := g.rlock(); err != nil {
		return Relation{}, false, err
	}
	defer g.mu.RUnlock()
	i, ok := g.lookupRel(sourceID, targetID, relationType)
	if !ok {
		return Relation{}, false, nil
	}
	return g.relation(i), true, nil
}

// Entities returns a copy of every entity, ordered by ID. Cost: O(n log n).
func (g *InMemoryGraph) Entities(ctx context.Context) ([]Entity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := g.rlock(); err != nil {
		return nil, err
	}
	out := make([]Entity, 0, len(g.ids))
	for i := range g.nodes {
		if g.nodes[i].live() {
			out = append(out, g.nodes[i].entity())
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b Entity) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Relations returns a copy of every relation, ordered by key (SourceID,
// TargetID, Type). Cost: O(m log m).
func (g *InMemoryGraph) Relations(ctx context.Context) ([]Relation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := g.rlock(); err != nil {
		return nil, err
	}
	out := make([]Relation, 0, g.relCount)
	for i := range g.rels {
		if g.rels[i].live() {
			out = append(out, g.relation(int32(i)))
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b Relation) int { return compareKeys(a.Key(), b.Key()) })
	return out, nil
}

// FindByKeywords returns the entities whose name, an alias, ID or a tag
// contains at least one of the keywords, compared with Unicode simple case
// folding. Entities matching more distinct keywords come first, then entities
// are ordered by ID. Keywords are trimmed of surrounding space and empty ones
// are ignored; with none left the result
// is empty. A keyword that is not valid UTF-8 returns ErrInvalidArgument.
// Cost: O(entities × keywords × text length), a full scan.
func (g *InMemoryGraph) FindByKeywords(ctx context.Context, keywords []string) ([]Entity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	folded, err := foldKeywords(keywords)
	if err != nil || len(folded) == 0 {
		return nil, err
	}
	type hit struct {
		slot  int32
		count int
	}
	var (
		hits []hit
		buf  []string
	)
	if err := g.rlock(); err != nil {
		return nil, err
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.live() {
			continue
		}
		if c := n.countKeywordMatches(folded, &buf); c > 0 {
			hits = append(hits, hit{int32(i), c})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.count != b.count {
			return b.count - a.count
		}
		return strings.Compare(g.nodes[a.slot].id, g.nodes[b.slot].id)
	})
	out := make([]Entity, len(hits))
	for i, h := range hits {
		out[i] = g.nodes[h.slot].entity()
	}
	g.mu.RUnlock()
	return out, nil
}

func cloneStrings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// carve appends s to buf and returns the copy, capped at its length (nil
// when s is empty), and buf.
func carve(buf, s []string) (part, rest []string) {
	if len(s) == 0 {
		return nil, buf
	}
	start := len(buf)
	buf = append(buf, s...)
	return buf[start:len(buf):len(buf)], buf
}

func cloneMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
