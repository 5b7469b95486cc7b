package kgmem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/errmsg"
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
	// maxLineSize is the longest snapshot line, newline excluded, that
	// kgmem writes or reads: 64 MiB. It bounds the memory a hostile
	// snapshot can make a reader allocate for one line.
	maxLineSize = 64 << 20
	// checksumCRC32C is the checksum a snapshot's header declares,
	// "checksum":"crc32c": the snapshot ends with a checksum line holding
	// the CRC-32C (Castagnoli) of every byte before it, and their number.
	checksumCRC32C = "crc32c"
	// maxChecksumLine bounds the length of a checksum line, newline
	// excluded ({"crc32c":"xxxxxxxx","bytes":N} is at most 49 bytes).
	maxChecksumLine = 64
)

// castagnoli is the table of CRC-32C, the checksum of snapshots and of
// journal frames.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendChecksumLine appends the checksum line of the n bytes before it,
// whose CRC-32C is crc, newline excluded:
//
//	{"crc32c":"1a2b3c4d","bytes":1234}
func appendChecksumLine(b []byte, crc uint32, n int64) []byte {
	const hex = "0123456789abcdef"
	b = append(b, `{"crc32c":"`...)
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, hex[crc>>shift&0xf])
	}
	b = append(b, `","bytes":`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '}')
}

// checksumLine is the JSON form of a snapshot's checksum line.
type checksumLine struct {
	CRC32C string `json:"crc32c"`
	Bytes  int64  `json:"bytes"`
}

// readableVersion reports whether a reader understands snapshot version v.
func readableVersion(v int) bool { return v == 1 || v == snapshotVersion }

// readableGraphVersion reports whether a reader understands graph
// snapshot version v.
func readableGraphVersion(v int) bool { return readableVersion(v) || v == timedSnapshotVersion }

// preallocCap bounds how many items a reader reserves room for on the word
// of a header alone; past it, collections grow as lines arrive, at most
// doubling, so that what a reader holds is always in proportion to the
// bytes it has read, whatever the header claims.
const preallocCap = 1 << 10

// growFor returns s with room for at least one more item: when s is full
// its capacity doubles, but never past announced, the number of items the
// header says are coming. Doubling copies each item once on average, and
// never reserves room for more items than have been read (or than
// preallocCap).
func growFor[T any](s []T, announced int64) []T {
	if len(s) < cap(s) {
		return s
	}
	n := max(len(s), preallocCap)
	if rest := announced - int64(len(s)); rest < int64(n) {
		n = int(max(rest, 1))
	}
	return slices.Grow(s, n)
}

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
			d.relations = append(d.relations, g.relation(a.rel))
			d.dst = append(d.dst, index[a.to])
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
	writeLines(lw *lineWriter)
}

// writeSnapshot writes the sections to w, one after the other, and seals
// them with a checksum line; it returns the number of bytes written.
func writeSnapshot(w io.Writer, sections ...snapshotSection) (int64, error) {
	lw := newLineWriter(w)
	for _, s := range sections {
		s.writeLines(lw)
	}
	lw.seal()
	return lw.finish()
}

// writeLines writes d, sorted, as the lines of a snapshot.
func (d *graphData) writeLines(lw *lineWriter) {
	version := snapshotVersion
	for i := range d.relations {
		if d.relations[i].HasValidity() {
			version = timedSnapshotVersion
			break
		}
	}
	lw.encode(snapshotHeader{
		Format: graphFormat, Version: version, Seq: d.seq,
		Entities: int64(len(d.entities)), Relations: int64(len(d.relations)), Schema: d.schema, Checksum: checksumCRC32C,
	})
	for _, k := range d.entityOrder {
		lw.encode(&d.entities[k])
	}
	for _, i := range d.relationOrder {
		if r := &d.relations[i]; !lw.plainRelation(r) {
			lw.encode(r)
		}
	}
}

// lineWriter encodes values as JSON Lines through a buffer.
type lineWriter struct {
	w       *bufio.Writer
	buf     bytes.Buffer // encode's line
	enc     *json.Encoder
	scratch []byte // plainRelation's line
	n       int64
	crc     uint32 // CRC-32C of the n bytes written
	line    int
	err     error
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, 1<<16)}
	lw.enc = json.NewEncoder(&lw.buf)
	lw.enc.SetEscapeHTML(false)
	return lw
}

// encode writes v as the next line; after an error it does nothing.
func (lw *lineWriter) encode(v any) {
	if lw.err != nil {
		return
	}
	lw.line++
	lw.buf.Reset()
	if err := lw.enc.Encode(v); err != nil {
		lw.err = fmt.Errorf("kgmem: snapshot line %d: %w", lw.line, err)
		return
	}
	if lw.buf.Len()-1 > maxLineSize {
		lw.err = fmt.Errorf("kgmem: snapshot line %d is %d bytes, more than the limit of %d bytes: %w",
			lw.line, lw.buf.Len()-1, maxLineSize, ErrInvalidArgument)
		return
	}
	lw.write(lw.buf.Bytes())
}

// write writes the line b, newline included, counting and hashing it.
func (lw *lineWriter) write(b []byte) {
	n, err := lw.w.Write(b)
	lw.n += int64(n)
	lw.crc = crc32.Update(lw.crc, castagnoli, b[:n])
	if err != nil {
		lw.err = fmt.Errorf("kgmem: write snapshot line %d: %w", lw.line, err)
	}
}

// seal writes the checksum line of every byte written before it; after an
// error it does nothing.
func (lw *lineWriter) seal() {
	if lw.err != nil {
		return
	}
	lw.line++
	lw.write(append(appendChecksumLine(lw.scratch[:0], lw.crc, lw.n), '\n'))
}

// plainRelation writes r as the next line, byte for byte as encode would,
// when r has no properties or sources and its strings need no escaping in
// JSON, and reports whether it did. It skips encoding/json's reflection
// for the commonest line of a large snapshot.
func (lw *lineWriter) plainRelation(r *Relation) bool {
	if lw.err != nil || r.Properties != nil || r.SourceIDs != nil || r.HasValidity() ||
		!plainJSON(r.SourceID) || !plainJSON(r.TargetID) || !plainJSON(r.Type) {
		return false
	}
	lw.line++
	b := lw.scratch[:0]
	b = append(b, `{"source_id":"`...)
	b = append(b, r.SourceID...)
	b = append(b, `","target_id":"`...)
	b = append(b, r.TargetID...)
	b = append(b, `","type":"`...)
	b = append(b, r.Type...)
	b = append(b, `","weight":`...)
	b = appendJSONFloat(b, r.Weight)
	b = append(b, "}\n"...)
	lw.scratch = b
	if len(b)-1 > maxLineSize {
		lw.err = fmt.Errorf("kgmem: snapshot line %d is %d bytes, more than the limit of %d bytes: %w",
			lw.line, len(b)-1, maxLineSize, ErrInvalidArgument)
		return true
	}
	lw.write(b)
	return true
}

// plainJSON reports whether s is printable ASCII without '"' or '\\', so
// that JSON writes it between quotes unchanged.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 or
// from 1e21 on, with a one-digit negative exponent written without its
// leading zero.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// finish flushes the buffer and returns the bytes written and the first
// error.
func (lw *lineWriter) finish() (int64, error) {
	if lw.err != nil {
		return lw.n, lw.err
	}
	if err := lw.w.Flush(); err != nil {
		return lw.n, fmt.Errorf("kgmem: write snapshot: %w", err)
	}
	return lw.n, nil
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
// reader allocates grows with the lines it has read (see growFor).
//
// A header with a schema is refused unless durable (OpenGraph's snapshot,
// which may hold single-valued types); the caller reads h.Schema.
func readGraph(r io.Reader, g *InMemoryGraph, durable bool) (*InMemoryGraph, snapshotHeader, int64, error) {
	lr := newLineReader(r, "snapshot")
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
	if err = lr.done(err); err != nil {
		return nil, h, lr.n, err
	}
	return g, h, lr.n, nil
}

// readGraphLines reads a graph snapshot's lines from lr into g, as
// readGraph does, and stops after the last line its header announces.
func readGraphLines(lr *lineReader, g *InMemoryGraph) (*InMemoryGraph, snapshotHeader, error) {
	var h snapshotHeader
	if err := lr.header(&h); err != nil {
		return nil, h, err
	}
	if err := lr.declare(h.Checksum); err != nil {
		return nil, h, err
	}
	if h.Format != graphFormat {
		return nil, h, lr.invalid("format %s, want %q", quote.Value(h.Format), graphFormat)
	}
	if !readableGraphVersion(h.Version) {
		return nil, h, lr.invalid("unsupported version %d, want %d or %d", h.Version, snapshotVersion, timedSnapshotVersion)
	}
	if h.Entities < 0 || h.Relations < 0 {
		return nil, h, lr.invalid("negative count: %d entities, %d relations", h.Entities, h.Relations)
	}
	maxTags := g.tags.MaxTagsPerEntity
	entityNames, relationNames := jsonNames(reflect.TypeFor[Entity]()), jsonNames(reflect.TypeFor[Relation]())
	ents := make([]Entity, 0, min(h.Entities, preallocCap))
	ids := make(map[string]int, min(h.Entities, preallocCap)) // index in ents
	var decoded Entity                                        // reused, so that each entity does not escape
	for i := int64(0); i < h.Entities; i++ {
		decoded = Entity{}
		if err := lr.value(&decoded, "entity", entityNames); err != nil {
			return nil, h, err
		}
		e := decoded
		if err := validateEntity(&e); err != nil {
			return nil, h, lr.wrap(err)
		}
		if _, dup := ids[e.ID]; dup {
			return nil, h, lr.invalid("duplicate entity %s", quote.Value(e.ID))
		}
		tags, err := storedTags(e.ID, e.Tags, maxTags)
		if err != nil {
			return nil, h, lr.wrap(err)
		}
		e.Tags = tags
		ids[e.ID] = len(ents)
		ents = append(growFor(ents, h.Entities), e)
	}
	// Relations are held as loadRels until the end: a third of the size
	// of a Relation, with no strings of their own.
	rels := make([]loadRel, 0, min(h.Relations, preallocCap))
	var decodedRel Relation // reused, as decoded
	var types loadTypes
	var keys map[RelationKey]struct{} // built only once the relations are found out of order
	var prev RelationKey              // the key of the last relation read
	for i := int64(0); i < h.Relations; i++ {
		line, err := lr.nextValue()
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
			if err := decodeStrict(line, &decodedRel, relationNames); err != nil {
				return nil, h, lr.invalid("relation: %v", err)
			}
			r = decodedRel
		}
		if err := validateRelation(&r); err != nil {
			return nil, h, lr.wrap(err)
		}
		if r.HasValidity() && h.Version < timedSnapshotVersion {
			return nil, h, lr.invalid("relation %q -[%s]-> %q: a valid time in a version %d snapshot", r.SourceID, r.Type, r.TargetID, h.Version)
		}
		if !fast {
			si, ok1 := ids[r.SourceID]
			di, ok2 := ids[r.TargetID]
			if !ok1 || !ok2 {
				missing := r.TargetID
				if !ok1 {
					missing = r.SourceID
				}
				return nil, h, lr.invalid("relation %s: entity %s is not in the snapshot",
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
				return nil, h, lr.invalid("duplicate relation %s", describeKey(r.SourceID, r.Type, r.TargetID))
			}
			keys[key] = struct{}{}
		}
		prev = key
		rels = append(growFor(rels, h.Relations), l)
	}
	if err := g.AddBatch(context.Background(), ents, nil); err != nil {
		// Everything AddBatch checks was checked above with line numbers.
		return nil, h, withContext(err, "%s lines 2-%d", lr.what, len(ents)+1)
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

// lineReader reads a snapshot line by line, counting lines and bytes,
// hashing them, and refusing lines longer than maxLineSize.
type lineReader struct {
	r    *bufio.Reader
	what string // "snapshot"
	n    int64  // bytes consumed
	crc  uint32 // CRC-32C of the n bytes consumed
	line int    // number of the last line read; the header is 1
	buf  []byte

	// The last line next returned whole, its number and offset, and the
	// CRC-32C of the bytes before it; last is nil when next stopped
	// inside a line.
	last     []byte
	lastLine int
	lastOff  int64
	lastCRC  uint32

	problem  string // what the last invalid line was, for end
	declared bool   // the first header was read
	checksum string // the checksum it declares; "" for none
	ioErr    bool   // reading failed: the rest of the input is unknown
}

func newLineReader(r io.Reader, what string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<16), what: what}
}

// errEOF reports a clean end of input at a line boundary.
var errEOF = errors.New("end of input")

// consume counts and hashes frag, bytes just read.
func (lr *lineReader) consume(frag []byte) {
	lr.n += int64(len(frag))
	lr.crc = crc32.Update(lr.crc, castagnoli, frag)
}

// next returns the next line without its newline. The slice is valid until
// the following call. At a clean end of input it returns errEOF.
func (lr *lineReader) next() ([]byte, error) {
	lr.line++
	lr.buf = lr.buf[:0]
	off, crc := lr.n, lr.crc
	line, err := lr.read()
	if err == nil {
		lr.last, lr.lastLine, lr.lastOff, lr.lastCRC = line, lr.line, off, crc
	} else if err != errEOF {
		lr.last = nil
	}
	return line, err
}

// read reads the next line for next.
func (lr *lineReader) read() ([]byte, error) {
	for {
		frag, err := lr.r.ReadSlice('\n')
		lr.consume(frag)
		switch {
		case err == nil:
			if len(lr.buf) == 0 {
				line := frag[:len(frag)-1]
				if len(line) > maxLineSize {
					return nil, lr.bad(fmt.Sprintf("line longer than the limit of %d bytes", maxLineSize))
				}
				return line, nil
			}
			lr.buf = append(lr.buf, frag[:len(frag)-1]...)
			if len(lr.buf) > maxLineSize {
				return nil, lr.bad(fmt.Sprintf("line longer than the limit of %d bytes", maxLineSize))
			}
			return lr.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.buf = append(lr.buf, frag...)
			if len(lr.buf) > maxLineSize {
				return nil, lr.bad(fmt.Sprintf("line longer than the limit of %d bytes", maxLineSize))
			}
		case errors.Is(err, io.EOF):
			if len(lr.buf)+len(frag) == 0 {
				return nil, errEOF
			}
			return nil, lr.bad(fmt.Sprintf("last line has no newline: the %s is truncated", lr.what))
		default:
			lr.ioErr = true
			return nil, fmt.Errorf("kgmem: read %s line %d: %w", lr.what, lr.line, err)
		}
	}
}

// bad returns the error of a line that is no line of a snapshot, and
// keeps problem for end.
func (lr *lineReader) bad(problem string) error {
	lr.problem = problem
	return lr.invalid("%s", problem)
}

// header reads the first line into h, a pointer to a header struct.
func (lr *lineReader) header(h any) error {
	line, err := lr.next()
	if err == errEOF {
		return lr.invalid("empty input: no header")
	}
	if err != nil {
		return err
	}
	if err := decodeStrict(line, h, jsonNames(reflect.TypeOf(h).Elem())); err != nil {
		return lr.invalid("header: %v", err)
	}
	return nil
}

// declare takes note of the checksum a header declares: the first header
// of a snapshot says whether it ends with a checksum line, and a later one
// (a memory's page header) must say the same.
func (lr *lineReader) declare(checksum string) error {
	switch {
	case checksum != "" && checksum != checksumCRC32C:
		return lr.invalid("header: unsupported checksum %s, want %q", quote.Value(checksum), checksumCRC32C)
	case !lr.declared:
		lr.declared, lr.checksum = true, checksum
	case checksum != lr.checksum:
		return lr.invalid("header: checksum %q, and the snapshot's first header declares %q", checksum, lr.checksum)
	}
	return nil
}

// nextValue returns the next line, which the header announced.
func (lr *lineReader) nextValue() ([]byte, error) {
	line, err := lr.next()
	if err == errEOF {
		return nil, lr.invalid("unexpected end of %s: the header announces more lines", lr.what)
	}
	return line, err
}

// value reads the next line into v, a pointer to an entity, relation or
// page whose JSON names are known.
func (lr *lineReader) value(v any, what string, known []string) error {
	line, err := lr.nextValue()
	if err != nil {
		return err
	}
	if err := decodeStrict(line, v, known); err != nil {
		return lr.invalid("%s: %v", what, err)
	}
	return nil
}

// done ends the reading of a snapshot whose lines were read with err:
// when err is nil, it checks the end (see end); otherwise, when the
// snapshot declares a checksum or its header could not be read, it reads
// the rest of the input to tell damage from a snapshot that is invalid as
// written (see verifyRest).
func (lr *lineReader) done(err error) error {
	if err == nil {
		return lr.end()
	}
	if lr.ioErr || (lr.declared && lr.checksum == "") {
		return err
	}
	return lr.verifyRest(err)
}

// end checks what follows the last announced line: nothing, in a snapshot
// without a checksum; the checksum line of every byte before it, and
// nothing after it, in one with.
func (lr *lineReader) end() error {
	if lr.checksum == "" {
		_, err := lr.next()
		if err == errEOF {
			lr.line--
			return nil
		}
		if err != nil && !errors.Is(err, ErrInvalidArgument) {
			return err
		}
		return lr.invalid("data after the last line the header announces")
	}
	off, crc := lr.n, lr.crc
	line, err := lr.next()
	switch {
	case err == errEOF:
		return lr.damaged(off, "the header declares a %s checksum, and the %s ends without its checksum line: it is truncated", lr.checksum, lr.what)
	case lr.ioErr:
		return err
	case err != nil:
		return lr.damaged(off, "where the checksum line should be: %s", lr.problem)
	}
	if problem := checksumProblem(line, off, crc); problem != "" {
		return lr.damaged(off, "%s", problem)
	}
	off = lr.n
	switch _, err := lr.next(); {
	case err == errEOF:
		lr.line--
		return nil
	case lr.ioErr:
		return err
	}
	return lr.damaged(off, "data after the checksum line")
}

// checksumProblem says what is wrong with line, found at offset off where
// the bytes before it have CRC-32C crc, as their checksum line; "" when
// nothing is.
func checksumProblem(line []byte, off int64, crc uint32) string {
	var want [maxChecksumLine]byte
	if bytes.Equal(line, appendChecksumLine(want[:0], crc, off)) {
		return ""
	}
	var c checksumLine
	switch {
	case len(line) > maxChecksumLine || decodeStrict(line, &c, checksumNames) != nil:
		return "not a checksum line: " + quote.Value(string(line))
	case c.Bytes != off:
		return fmt.Sprintf("the checksum line counts %d bytes before it, and there are %d", c.Bytes, off)
	case c.CRC32C != fmt.Sprintf("%08x", crc):
		return fmt.Sprintf("checksum mismatch: the %d bytes before the checksum line have CRC-32C %08x, and it says %s", off, crc, quote.Value(c.CRC32C))
	}
	return "the checksum line is not written as kgmem writes it: " + quote.Value(string(line))
}

var checksumNames = jsonNames(reflect.TypeFor[checksumLine]())

// verifyRest reads the rest of the input after first, an error that
// stopped the reading of a snapshot whose header declares a checksum or
// could not be read, and checks the checksum line that ends it. When the
// checksum matches, or when the input ends with no checksum line and its
// header could not be read (it may be no kgmem snapshot at all), it
// returns first: the bytes are as they were written. Otherwise the
// snapshot is damaged, and the error says first and where the checksum
// fails, and wraps ErrCorrupt and ErrInvalidArgument. It holds no more
// than a checksum line of the input at a time.
func (lr *lineReader) verifyRest(first error) error {
	var last []byte // the line being read while it is short enough to be a checksum line, newline included
	line, off, crc := lr.line, lr.lastOff, lr.lastCRC
	if lr.last != nil {
		line = lr.lastLine
		if len(lr.last) <= maxChecksumLine {
			last = append(append(make([]byte, 0, maxChecksumLine+1), lr.last...), '\n')
		}
	}
	atStart := lr.last != nil // whether the next byte begins a line
	for {
		frag, err := lr.r.ReadSlice('\n')
		if len(frag) > 0 {
			if atStart {
				line, off, crc, last = line+1, lr.n, lr.crc, make([]byte, 0, maxChecksumLine+1)
			}
			if last != nil && len(last)+len(frag) <= maxChecksumLine+1 {
				last = append(last, frag...)
			} else {
				last = nil
			}
			lr.consume(frag)
			atStart = frag[len(frag)-1] == '\n'
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return first // the rest cannot be read: nothing can be told
		}
	}
	problem := "the input does not end with a checksum line"
	if atStart && len(last) > 0 {
		last = last[:len(last)-1]
		if problem = checksumProblem(last, off, crc); problem == "" {
			return first
		}
	} else {
		last = nil
	}
	var c checksumLine
	if !lr.declared && (last == nil || decodeStrict(last, &c, checksumNames) != nil) {
		return first
	}
	msg := first.Error()
	for _, sentinel := range []error{ErrInvalidArgument, ErrEmbeddingModel} {
		if errors.Is(first, sentinel) {
			msg = strings.TrimSuffix(msg, ": "+sentinel.Error())
		}
	}
	return fmt.Errorf("%s, and the %s is damaged: line %d (offset %d): %s: %w (%w)",
		msg, lr.what, line, off, problem, ErrCorrupt, ErrInvalidArgument)
}

// damaged returns an error wrapping ErrCorrupt and ErrInvalidArgument
// that names the current line and its offset off: the snapshot fails its
// checksum.
func (lr *lineReader) damaged(off int64, format string, args ...any) error {
	return fmt.Errorf("kgmem: %s line %d (offset %d): %s: %w (%w)", lr.what, lr.line, off, fmt.Sprintf(format, args...), ErrCorrupt, ErrInvalidArgument)
}

// invalid returns an error wrapping ErrInvalidArgument that names the
// current line.
func (lr *lineReader) invalid(format string, args ...any) error {
	return fmt.Errorf("kgmem: %s line %d: %s: %w", lr.what, lr.line, fmt.Sprintf(format, args...), ErrInvalidArgument)
}

// wrap prefixes err, which wraps ErrInvalidArgument, with the current line.
func (lr *lineReader) wrap(err error) error {
	return withContext(err, "%s line %d", lr.what, lr.line)
}

// withContext returns err with "kgmem: " and the formatted context in
// front of its message, which keeps no second package prefix.
func withContext(err error, format string, args ...any) error {
	return errmsg.Wrap("kgmem: "+fmt.Sprintf(format, args...), err)
}

// decodeStrict decodes the JSON object in line into v, a pointer to a
// struct, refusing invalid UTF-8, anything after the object, and a key
// that is not in known, the JSON names of v's fields (see jsonNames;
// compared exactly; keys of nested objects are left to encoding/json).
func decodeStrict(line []byte, v any, known []string) error {
	if !utf8.Valid(line) {
		return errors.New("not valid UTF-8")
	}
	if err := json.Unmarshal(line, v); err != nil {
		return err
	}
	return checkKeys(line, known)
}

// checkKeys returns an error naming the first key of the JSON object in
// line, which is valid JSON, that is not in known.
func checkKeys(line []byte, known []string) error {
	depth, expectKey := 0, false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			j := i + 1
			escaped := false
			for ; line[j] != '"'; j++ {
				if line[j] == '\\' {
					escaped = true
					j++
				}
			}
			if depth == 1 && expectKey {
				key := line[i+1 : j]
				if escaped {
					var k string
					if err := json.Unmarshal(line[i:j+1], &k); err != nil {
						return err
					}
					key = []byte(k)
				}
				if !slices.ContainsFunc(known, func(s string) bool { return s == string(key) }) {
					return fmt.Errorf("unknown field %s", quote.Value(string(key)))
				}
				expectKey = false
			}
			i = j
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		}
	}
	return nil
}

// jsonNames returns the JSON names of the fields of struct type t, as
// encoding/json names them (promoted fields of embedded structs included).
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, jsonNames(f.Type)...)
		case !f.IsExported():
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}
