package kgmem

import (
	"context"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/jsonl"
	"github.com/kgmem/kgmem/internal/quote"
)

// Snapshot format identifiers and limits.
const (
	graphFormat = "kgmem-graph" // the format name in a graph snapshot's header
	pagesFormat = "kgmem-pages" // the format name in a page snapshot's header
	// snapshotVersion is the snapshot format version kgmem writes for
	// page stores and for graphs without valid times; it reads this one
	// and version 1.
	snapshotVersion = 2
	// pagesVectorVersion is the page snapshot version of a store with an
	// embedder: version 2 with the model in the header and a vector on
	// each page's line. A store without one writes version 2.
	pagesVectorVersion = 3
	// timedSnapshotVersion is the version of a graph snapshot that holds
	// a relation with a valid time (valid_from, valid_to).
	timedSnapshotVersion = 3
)

// readableVersion reports whether a reader understands snapshot version v.
func readableVersion(v int) bool { return v == 1 || v == snapshotVersion }

// readableGraphVersion reports whether a reader understands graph
// snapshot version v.
func readableGraphVersion(v int) bool { return readableVersion(v) || v == timedSnapshotVersion }

// snapshotHeader is the first line of a graph snapshot.
type snapshotHeader struct {
	Format    string        `json:"format"`
	Version   int           `json:"version"`
	Seq       uint64        `json:"seq,omitempty"`
	Entities  int64         `json:"entities"`
	Relations int64         `json:"relations"`
	Schema    *storedSchema `json:"schema,omitempty"`   // a memory's schema, when it declares one
	Checksum  string        `json:"checksum,omitempty"` // "crc32c": the snapshot ends with a checksum line
}

// pagesHeader is the first line of a knowledge store snapshot.
type pagesHeader struct {
	Format   string       `json:"format"`
	Version  int          `json:"version"`
	Seq      uint64       `json:"seq,omitempty"`
	Pages    int64        `json:"pages"`
	Model    *modelHeader `json:"model,omitempty"`    // version 3: the model of the pages' vectors
	Checksum string       `json:"checksum,omitempty"` // "crc32c": the snapshot ends with a checksum line
}

var (
	_ io.WriterTo   = (*InMemoryGraph)(nil)
	_ io.ReaderFrom = (*InMemoryGraph)(nil)
	_ io.WriterTo   = (*InMemoryKnowledgeStore)(nil)
	_ io.ReaderFrom = (*InMemoryKnowledgeStore)(nil)
)

// graphData is a consistent copy of a graph's contents, as a snapshot
// holds them.
type graphData struct {
	seq       uint64
	schema    *storedSchema // a memory's schema; nil when it declares none
	entities  []Entity
	relations []Relation
	// The relations of entities[k] are relations[first[k]:first[k+1]],
	// and relations[i] ends at entities[dst[i]].
	first []int32
	dst   []int32
	// Set by sort: the snapshot lists entities[entityOrder[0]],
	// entities[entityOrder[1]], … then relations[relationOrder[0]], …
	entityOrder, relationOrder []int32
}

// capture copies the graph's contents, grouped by source entity; the caller
// holds g.mu. The copy shares nothing mutable with the graph. Cost: O(n+m).
func (g *InMemoryGraph) capture() *graphData {
	d := &graphData{
		entities:  make([]Entity, 0, len(g.ids)),
		relations: make([]Relation, 0, g.relCount),
		first:     make([]int32, 0, len(g.ids)+1),
		dst:       make([]int32, 0, g.relCount),
	}
	index := make([]int32, len(g.nodes)) // slot -> index in d.entities
	for s := range g.nodes {
		if g.nodes[s].live() {
			index[s] = int32(len(d.entities))
			d.entities = append(d.entities, g.nodes[s].entity())
		}
	}
	for s := range g.nodes {
		n := &g.nodes[s]
		if !n.live() {
			continue
		}
		d.first = append(d.first, int32(len(d.relations)))
		for _, a := range n.out {
			d.relations = append(d.relations, g.relation(a.Rel))
			d.dst = append(d.dst, index[a.To])
		}
	}
	d.first = append(d.first, int32(len(d.relations)))
	return d
}

// sort orders the contents as a snapshot lists them: entities by ID,
// relations by key. Relations are ordered by their source's rank, then
// within each source's group by target rank and type, so that the strings
// of two relation keys are compared only when both join the same entities.
// Cost: O(n log n + m log d) for the largest out-degree d.
func (d *graphData) sort() {
	order := make([]int32, len(d.entities))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(d.entities[a].ID, d.entities[b].ID) })
	rank := make([]int32, len(order))
	for r, k := range order {
		rank[k] = int32(r)
	}
	rels := make([]int32, 0, len(d.relations))
	for _, k := range order {
		start := len(rels)
		for i := d.first[k]; i < d.first[k+1]; i++ {
			rels = append(rels, i)
		}
		slices.SortFunc(rels[start:], func(a, b int32) int {
			if ra, rb := rank[d.dst[a]], rank[d.dst[b]]; ra != rb {
				return int(ra - rb)
			}
			return strings.Compare(d.relations[a].Type, d.relations[b].Type)
		})
	}
	d.entityOrder, d.relationOrder = order, rels
}

// WriteTo writes d, sorted, as a snapshot.
func (d *graphData) WriteTo(w io.Writer) (int64, error) { return writeSnapshot(w, d) }

// snapshotSection is a graph's or a store's part of a snapshot.
type snapshotSection interface {
	writeLines(lw *jsonl.Writer)
}

// snapshotErrors are the sentinels the errors of snapshot lines wrap.
var snapshotErrors = jsonl.Errors{
	Invalid: ErrInvalidArgument, Corrupt: ErrCorrupt, Trim: []error{ErrInvalidArgument, ErrEmbeddingModel},
}

// newSnapshotReader returns a reader of the snapshot lines in r.
func newSnapshotReader(r io.Reader) *jsonl.Reader {
	return jsonl.NewReader(r, "snapshot", snapshotErrors)
}

// writeSnapshot writes the sections to w, one after the other, and seals
// them with a checksum line; it returns the number of bytes written.
func writeSnapshot(w io.Writer, sections ...snapshotSection) (int64, error) {
	lw := jsonl.NewWriter(w, snapshotErrors)
	for _, s := range sections {
		s.writeLines(lw)
	}
	lw.Seal()
	return lw.Finish()
}

// writeLines writes d, sorted, as the lines of a snapshot.
func (d *graphData) writeLines(lw *jsonl.Writer) {
	version := snapshotVersion
	for i := range d.relations {
		if d.relations[i].HasValidity() {
			version = timedSnapshotVersion
			break
		}
	}
	lw.Encode(snapshotHeader{
		Format: graphFormat, Version: version, Seq: d.seq,
		Entities: int64(len(d.entities)), Relations: int64(len(d.relations)), Schema: d.schema, Checksum: jsonl.Checksum,
	})
	for _, k := range d.entityOrder {
		lw.Encode(&d.entities[k])
	}
	var line []byte
	for _, i := range d.relationOrder {
		r := &d.relations[i]
		var plain bool
		if line, plain = appendPlainRelation(line[:0], r); plain {
			lw.WriteLine(line)
		} else {
			lw.Encode(r)
		}
	}
}

// appendPlainRelation appends r's line, newline included, byte for byte
// as encoding/json writes it, when r has no properties, sources or valid
// time and its strings need no escaping in JSON, and reports whether it
// did. It skips encoding/json's reflection for the commonest line of a
// large snapshot.
func appendPlainRelation(b []byte, r *Relation) ([]byte, bool) {
	if r.Properties != nil || r.SourceIDs != nil || r.HasValidity() ||
		!jsonl.Plain(r.SourceID) || !jsonl.Plain(r.TargetID) || !jsonl.Plain(r.Type) {
		return b, false
	}
	b = append(b, `{"source_id":"`...)
	b = append(b, r.SourceID...)
	b = append(b, `","target_id":"`...)
	b = append(b, r.TargetID...)
	b = append(b, `","type":"`...)
	b = append(b, r.Type...)
	b = append(b, `","weight":`...)
	b = jsonl.AppendFloat(b, r.Weight)
	return append(b, "}\n"...), true
}

// WriteTo writes a snapshot of the graph to w in the format docs/FORMAT.md
// specifies (Snapshots): a header line, then every entity ordered by ID,
// then every relation ordered by key, then the checksum line of all those
// bytes (Checksums there). Equal graphs give
// byte-identical snapshots. It returns the number of bytes written.
//
// The contents are copied under the read lock, which is released before
// anything is written, so a slow w never holds up other callers; the
// snapshot is the graph as it was at one instant. A line longer than
// 64 MiB (an entity with a huge description) returns an error
// wrapping ErrInvalidArgument, and an error from w is returned wrapped.
// After Close it returns an error wrapping ErrClosed.
//
// Cost: O(n log n + m log d) time for n entities, m relations and a
// largest out-degree d, and one copy of the graph's contents in memory;
// the read lock is held only for the O(n+m) copy.
func (g *InMemoryGraph) WriteTo(w io.Writer) (int64, error) {
	if err := g.rlock(); err != nil {
		return 0, err
	}
	d := g.capture()
	g.mu.RUnlock()
	d.sort()
	return d.WriteTo(w)
}

// ReadFrom replaces the graph's contents with the snapshot read from r,
// reading r to its end, and returns the number of bytes read.
//
// The snapshot is validated completely (see Snapshots in the package
// documentation and in docs/FORMAT.md) and built into a new graph with the same TagConstraints
// before anything changes; only then are the contents swapped in, under
// the write lock. On any error the graph is left exactly as it was. An
// invalid snapshot returns an error wrapping ErrInvalidArgument that names
// the line (the header is line 1); an error from r is returned wrapped,
// with the line it interrupted. A damaged snapshot, one that fails its
// checksum line or ends without it, returns an error wrapping ErrCorrupt
// as well as ErrInvalidArgument; to tell damage from a snapshot that is
// invalid as written, ReadFrom reads on to the end of r after an invalid
// line of a snapshot that declares a checksum (see Checksums in
// docs/FORMAT.md). Snapshots without a checksum, which kgmem wrote before
// it had them, are read as before.
//
// On a DurableGraph the new contents are also written as its snapshot, and
// the journal is started afresh, before ReadFrom returns; other calls wait
// meanwhile. If the snapshot cannot be written the graph is unchanged. On
// the graph of a Memory it returns an error wrapping ErrInvalidArgument.
// After Close ReadFrom returns an error wrapping ErrClosed without reading
// r.
func (g *InMemoryGraph) ReadFrom(r io.Reader) (int64, error) {
	if err := g.rlock(); err != nil {
		return 0, err
	}
	g.mu.RUnlock()
	fresh, _, n, err := readGraph(r, g.newEmpty(), false)
	if err != nil {
		return n, err
	}
	return n, g.apply(context.Background(), &mutation{Op: opReplace, fresh: fresh})
}

// newEmpty returns an empty graph with g's options and no journal.
func (g *InMemoryGraph) newEmpty() *InMemoryGraph {
	return NewInMemoryGraph(WithTagConstraints(g.tags), WithPathBudget(g.pathBudget), WithClock(g.clock), WithSingleValued(*g.singleValued.Load()...))
}

// adopt moves the contents of fresh, a graph nobody else holds, into g;
// the caller holds g.mu for writing. g keeps its lock, options, journal
// and closed flag; fresh must not be used afterwards.
func (g *InMemoryGraph) adopt(fresh *InMemoryGraph) {
	g.ids = fresh.ids
	g.nodes = fresh.nodes
	g.hashes = fresh.hashes
	g.freeNodes = fresh.freeNodes
	g.rels = fresh.rels
	g.relTypes = fresh.relTypes
	g.freeRels = fresh.freeRels
	g.relCount = fresh.relCount
	g.timed = fresh.timed
	g.types = fresh.types
	g.tagIndex = fresh.tagIndex
	g.names = fresh.names
	g.sources = fresh.sources
	g.changes.reset()
}

// readGraph reads a graph snapshot from r into g, an empty graph that
// nobody else holds, and returns it with the header. The header's counts
// say how many lines to read, never how much memory to reserve: what the
// reader allocates grows with the lines it has read (see jsonl.GrowFor).
//
// A header with a schema is refused unless durable (OpenGraph's snapshot,
// which may hold single-valued types); the caller reads h.Schema.
func readGraph(r io.Reader, g *InMemoryGraph, durable bool) (*InMemoryGraph, snapshotHeader, int64, error) {
	lr := newSnapshotReader(r)
	g, h, err := readGraphLines(lr, g)
	switch {
	case err != nil || h.Schema == nil:
	case !durable:
		err = fmt.Errorf("kgmem: snapshot line 1: header: a durable graph's or memory's schema, in a graph snapshot; open the files with OpenGraph or OpenMemory: %w", ErrInvalidArgument)
	case !reflect.DeepEqual(h.Schema.Schema, Schema{SingleValued: h.Schema.SingleValued}):
		err = fmt.Errorf("kgmem: snapshot line 1: header: a memory's vocabulary, in a graph's snapshot; open a memory's files with OpenMemory: %w", ErrInvalidArgument)
	default:
		err = checkStoredSchema(h.Schema)
	}
	if err = lr.Done(err); err != nil {
		return nil, h, lr.Consumed(), err
	}
	return g, h, lr.Consumed(), nil
}

// readGraphLines reads a graph snapshot's lines from lr into g, as
// readGraph does, and stops after the last line its header announces.
func readGraphLines(lr *jsonl.Reader, g *InMemoryGraph) (*InMemoryGraph, snapshotHeader, error) {
	var h snapshotHeader
	if err := lr.Header(&h); err != nil {
		return nil, h, err
	}
	if err := lr.Declare(h.Checksum); err != nil {
		return nil, h, err
	}
	if h.Format != graphFormat {
		return nil, h, lr.Invalid("format %s, want %q", quote.Value(h.Format), graphFormat)
	}
	if !readableGraphVersion(h.Version) {
		return nil, h, lr.Invalid("unsupported version %d, want %d or %d", h.Version, snapshotVersion, timedSnapshotVersion)
	}
	if h.Entities < 0 || h.Relations < 0 {
		return nil, h, lr.Invalid("negative count: %d entities, %d relations", h.Entities, h.Relations)
	}
	maxTags := g.tags.MaxTagsPerEntity
	entityNames, relationNames := jsonl.Names(reflect.TypeFor[Entity]()), jsonl.Names(reflect.TypeFor[Relation]())
	ents := make([]Entity, 0, min(h.Entities, jsonl.Prealloc))
	ids := make(map[string]int, min(h.Entities, jsonl.Prealloc)) // index in ents
	var decoded Entity                                           // reused, so that each entity does not escape
	for i := int64(0); i < h.Entities; i++ {
		decoded = Entity{}
		if err := lr.Value(&decoded, "entity", entityNames); err != nil {
			return nil, h, err
		}
		e := decoded
		if err := validateEntity(&e); err != nil {
			return nil, h, lr.Wrap(err)
		}
		if _, dup := ids[e.ID]; dup {
			return nil, h, lr.Invalid("duplicate entity %s", quote.Value(e.ID))
		}
		tags, err := storedTags(e.ID, e.Tags, maxTags)
		if err != nil {
			return nil, h, lr.Wrap(err)
		}
		e.Tags = tags
		ids[e.ID] = len(ents)
		ents = append(jsonl.GrowFor(ents, h.Entities), e)
	}
	// Relations are held as loadRels until the end: a third of the size
	// of a Relation, with no strings of their own.
	rels := make([]loadRel, 0, min(h.Relations, jsonl.Prealloc))
	var decodedRel Relation // reused, as decoded
	var types loadTypes
	var keys map[RelationKey]struct{} // built only once the relations are found out of order
	var prev RelationKey              // the key of the last relation read
	for i := int64(0); i < h.Relations; i++ {
		line, err := lr.NextValue()
		if err != nil {
			return nil, h, err
		}
		var (
			r Relation
			l loadRel
		)
		fast := false
		if src, dst, typ, w, ok := fastRelation(line); ok && utf8.Valid(line) {
			si, ok1 := ids[string(src)]
			di, ok2 := ids[string(dst)]
			if ok1 && ok2 {
				// Endpoints share the entities' ID strings, and types
				// the first string read for each.
				w = storedWeight(w) // as a write stores it: 0 means unweighted
				l = loadRel{src: int32(si), dst: int32(di), typ: types.index(typ), w: w}
				r = Relation{SourceID: ents[si].ID, TargetID: ents[di].ID, Type: types.names[l.typ], Weight: w}
				fast = true
			}
		}
		if !fast {
			decodedRel = Relation{}
			if err := jsonl.DecodeStrict(line, &decodedRel, relationNames); err != nil {
				return nil, h, lr.Invalid("relation: %v", err)
			}
			r = decodedRel
		}
		if err := validateRelation(&r); err != nil {
			return nil, h, lr.Wrap(err)
		}
		if r.HasValidity() && h.Version < timedSnapshotVersion {
			return nil, h, lr.Invalid("relation %q -[%s]-> %q: a valid time in a version %d snapshot", r.SourceID, r.Type, r.TargetID, h.Version)
		}
		if !fast {
			si, ok1 := ids[r.SourceID]
			di, ok2 := ids[r.TargetID]
			if !ok1 || !ok2 {
				missing := r.TargetID
				if !ok1 {
					missing = r.SourceID
				}
				return nil, h, lr.Invalid("relation %s: entity %s is not in the snapshot",
					describeKey(r.SourceID, r.Type, r.TargetID), quote.Value(missing))
			}
			l = loadRel{src: int32(si), dst: int32(di), typ: types.indexString(r.Type), w: r.Weight + 0, more: newRelMore(&r)}
		}
		// Snapshots kgmem writes are in strictly increasing key order,
		// which rules out duplicates without an index of every key.
		key := r.Key()
		if keys == nil && len(rels) > 0 && compareKeys(prev, key) >= 0 {
			keys = make(map[RelationKey]struct{}, len(rels))
			for j := range rels {
				keys[rels[j].key(ents, &types)] = struct{}{}
			}
		}
		if keys != nil {
			if _, dup := keys[key]; dup {
				return nil, h, lr.Invalid("duplicate relation %s", describeKey(r.SourceID, r.Type, r.TargetID))
			}
			keys[key] = struct{}{}
		}
		prev = key
		rels = append(jsonl.GrowFor(rels, h.Relations), l)
	}
	if err := g.AddBatch(context.Background(), ents, nil); err != nil {
		// Everything AddBatch checks was checked above with line numbers.
		return nil, h, withContext(err, "%s lines 2-%d", lr.What(), len(ents)+1)
	}
	g.loadRelations(ents, rels, types.names)
	return g, h, nil
}

// loadRel is a relation of a snapshot being read, valid and with a key of
// its own: its endpoints are indexes in the snapshot's entities and its
// type an index in its types.
type loadRel struct {
	src, dst int32
	typ      int32
	w        float64
	more     *relMore // nil when it has no properties or sources
}

// key returns the relation's key.
func (l *loadRel) key(ents []Entity, types *loadTypes) RelationKey {
	return RelationKey{SourceID: ents[l.src].ID, TargetID: ents[l.dst].ID, Type: types.names[l.typ]}
}

// loadTypes numbers the relation types of a snapshot being read, in order
// of first appearance; each is allocated once.
type loadTypes struct {
	byName map[string]int32
	names  []string
}

// index returns the number of type t, numbering it if it is new.
func (lt *loadTypes) index(t []byte) int32 {
	if j, ok := lt.byName[string(t)]; ok {
		return j
	}
	return lt.add(string(t))
}

// indexString is index for a string.
func (lt *loadTypes) indexString(t string) int32 {
	if j, ok := lt.byName[t]; ok {
		return j
	}
	return lt.add(t)
}

func (lt *loadTypes) add(name string) int32 {
	if lt.byName == nil {
		lt.byName = make(map[string]int32)
	}
	j := int32(len(lt.names))
	lt.names = append(lt.names, name)
	lt.byName[name] = j
	return j
}

// loadRelations adds the relations of a snapshot to g, which nobody else
// holds and which holds the snapshot's entities, ents, and no relation.
// The relations are valid and their keys distinct; they are stored as
// AddBatch would store them, with room reserved once for all of them.
func (g *InMemoryGraph) loadRelations(ents []Entity, rels []loadRel, typeNames []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	slots := make([]int32, len(ents))
	for i := range ents {
		slots[i] = g.ids[ents[i].ID]
	}
	typeIDs := make([]int32, len(typeNames))
	for j, name := range typeNames {
		t, ok := g.types.lookup(name)
		if !ok {
			t = g.types.intern(name)
		}
		typeIDs[j] = t
	}
	g.rels = slices.Grow(g.rels, len(rels)-len(g.freeRels))
	out, in := make([]int32, len(g.nodes)), make([]int32, len(g.nodes))
	for _, r := range rels {
		out[slots[r.src]]++
		in[slots[r.dst]]++
	}
	for s := range g.nodes {
		n := &g.nodes[s]
		if out[s] > 0 {
			n.out = slices.Grow(n.out, int(out[s]))
		}
		if in[s] > 0 {
			n.in = slices.Grow(n.in, int(in[s]))
		}
	}
	for _, r := range rels {
		g.putRelationTyped(slots[r.src], slots[r.dst], typeIDs[r.typ], r.w, r.more)
	}
}

// fastRelation parses the commonest relation line, the one WriteTo writes
// for a relation without properties or sources whose strings need no
// escapes:
//
//	{"source_id":"S","target_id":"T","type":"Y","weight":W}
//
// and returns its parts, which alias line. ok is false for any other line,
// which encoding/json then decodes; for a line it accepts, the result is
// what encoding/json would give. line is valid UTF-8.
func fastRelation(line []byte) (src, dst, typ []byte, w float64, ok bool) {
	rest := line
	cut := func(prefix string) bool {
		if len(rest) < len(prefix) || string(rest[:len(prefix)]) != prefix {
			return false
		}
		rest = rest[len(prefix):]
		return true
	}
	str := func(prefix string) ([]byte, bool) {
		if !cut(prefix) {
			return nil, false
		}
		for i, c := range rest {
			switch {
			case c == '"':
				s := rest[:i]
				rest = rest[i+1:]
				return s, true
			case c == '\\' || c < 0x20:
				return nil, false
			}
		}
		return nil, false
	}
	if src, ok = str(`{"source_id":"`); !ok {
		return
	}
	if dst, ok = str(`,"target_id":"`); !ok {
		return
	}
	if typ, ok = str(`,"type":"`); !ok {
		return
	}
	if !cut(`,"weight":`) || len(rest) < 2 || rest[len(rest)-1] != '}' {
		return nil, nil, nil, 0, false
	}
	num := rest[:len(rest)-1]
	if !isJSONNumber(num) {
		return nil, nil, nil, 0, false
	}
	w, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return nil, nil, nil, 0, false
	}
	return src, dst, typ, w, true
}

// isJSONNumber reports whether b is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(b []byte) bool {
	i := 0
	digits := func() int {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// storedTags normalises tags as AddEntity does, and returns an error
// wrapping ErrInvalidArgument when that would drop tags because there are
// more than max distinct ones.
func storedTags(id string, tags []string, max int) ([]string, error) {
	norm, err := normalizeTags(tags, math.MaxInt)
	if err != nil {
		return nil, err
	}
	if len(norm) > max {
		return nil, fmt.Errorf("kgmem: entity %s has %d distinct tags, more than MaxTagsPerEntity (%d): %w",
			quote.Value(id), len(norm), max, ErrInvalidArgument)
	}
	return norm, nil
}

// withContext returns err with "kgmem: " and the formatted context in
// front of its message, which keeps no second package prefix.
func withContext(err error, format string, args ...any) error {
	return errmsg.Wrap("kgmem: "+fmt.Sprintf(format, args...), err)
}
