package kgmem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"time"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/jsonl"
	"github.com/kgmem/kgmem/internal/wal"
)

// walErrors are the sentinels the journal's errors wrap.
var walErrors = wal.Sentinels{
	Locked: ErrLocked, Journal: ErrJournal, Corrupt: ErrCorrupt, Closed: ErrClosed, Invalid: ErrInvalidArgument,
}

// SyncPolicy says when the journal is synced to stable storage. Under
// every policy each write reaches the operating system (one write(2) of its
// whole record) before it returns, so a crash of the process loses nothing
// acknowledged; the policies differ when the machine crashes or loses
// power.
type SyncPolicy uint8

const (
	// SyncAlways syncs the journal (fsync) before every write returns:
	// nothing acknowledged is lost. It is the default.
	SyncAlways SyncPolicy = iota
	// SyncInterval syncs the journal from a background goroutine every
	// interval (WithSyncInterval, default 1 s): the writes of about the
	// last interval may be lost.
	SyncInterval
	// SyncNone never syncs the journal while open (Close does): what is
	// lost is up to the operating system. For tests and data that can be
	// rebuilt.
	SyncNone
)

// String returns "always", "interval", "none", or "SyncPolicy(n)".
func (p SyncPolicy) String() string {
	switch p {
	case SyncAlways:
		return "always"
	case SyncInterval:
		return "interval"
	case SyncNone:
		return "none"
	}
	return fmt.Sprintf("SyncPolicy(%d)", uint8(p))
}

// DurableOption configures OpenMemory, OpenGraph and OpenStore. Every
// Option (of a graph) and StoreOption is a DurableOption too, configuring
// the graph or store opened; WithSync, WithSyncInterval,
// WithCompactThreshold and WithStrictRecovery configure the files. An
// invalid value, or an option for a part that is not opened (a
// StoreOption given to OpenGraph), makes Open fail with an error wrapping
// ErrInvalidArgument.
type DurableOption interface {
	applyDurable(*durableConfig)
}

type durableConfig struct {
	graph     []Option
	store     []StoreOption
	sync      SyncPolicy
	interval  time.Duration
	compactAt int64
	strict    bool
	schema    *Schema // WithSchema's, as given
	err       error   // the first invalid option
}

type durableOptionFunc func(*durableConfig)

func (f durableOptionFunc) applyDurable(c *durableConfig) { f(c) }

func (c *durableConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("kgmem: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
}

// WithSync sets when the journal is synced: SyncAlways (the default),
// SyncInterval (every second, by default) or SyncNone.
func WithSync(p SyncPolicy) DurableOption {
	return durableOptionFunc(func(c *durableConfig) {
		if p > SyncNone {
			c.fail("WithSync: unknown %v", p)
			return
		}
		c.sync = p
	})
}

// WithSyncInterval syncs the journal every d from a background goroutine
// (SyncInterval); d must be positive. The writes of the last d may be lost
// if the machine crashes. The goroutine stops in Close.
func WithSyncInterval(d time.Duration) DurableOption {
	return durableOptionFunc(func(c *durableConfig) {
		if d <= 0 {
			c.fail("WithSyncInterval: interval %v is not positive", d)
			return
		}
		c.sync, c.interval = SyncInterval, d
	})
}

// WithCompactThreshold sets the journal size in bytes past which a
// compaction runs in the background (when the journal is also larger than
// the snapshot): 0 means 64 MiB, a negative
// value never.
func WithCompactThreshold(n int64) DurableOption {
	return durableOptionFunc(func(c *durableConfig) { c.compactAt = n })
}

// WithStrictRecovery makes Open refuse, with an error wrapping ErrCorrupt,
// a journal whose final record is damaged (whole, with a checksum that
// does not match), instead of moving the record aside and reporting it. A
// torn final append is still cut off: see Recovery in the package
// documentation.
func WithStrictRecovery() DurableOption {
	return durableOptionFunc(func(c *durableConfig) { c.strict = true })
}

// newDurableConfig applies opts and checks them for what is opened.
func newDurableConfig(what string, graph, store bool, opts []DurableOption) (*durableConfig, error) {
	c := &durableConfig{}
	for _, o := range opts {
		if o == nil {
			c.fail("%s: nil option", what)
			continue
		}
		o.applyDurable(c)
	}
	switch {
	case c.err != nil:
		return nil, c.err
	case graph && newGraphConfig(c.graph).err != nil:
		return nil, errmsg.Wrap("kgmem: "+what, newGraphConfig(c.graph).err)
	case store && newStoreConfig(c.store).err != nil:
		return nil, errmsg.Wrap("kgmem: "+what, newStoreConfig(c.store).err)
	case c.schema != nil && !(graph && store):
		return nil, fmt.Errorf("kgmem: %s: WithSchema is an option of OpenMemory: %w", what, ErrInvalidArgument)
	case c.schema != nil && newGraphConfig(c.graph).svSet:
		return nil, fmt.Errorf("kgmem: %s: WithSchema and WithSingleValued both declare single-valued types: give one: %w", what, ErrInvalidArgument)
	case !graph && len(c.graph) > 0:
		return nil, fmt.Errorf("kgmem: %s: a graph option, and no graph is opened: %w", what, ErrInvalidArgument)
	case !store && len(c.store) > 0:
		return nil, fmt.Errorf("kgmem: %s: a store option, and no store is opened: %w", what, ErrInvalidArgument)
	}
	return c, nil
}

// walOptions returns the journal's options.
func (c *durableConfig) walOptions(name string) wal.Options {
	return wal.Options{
		Name: name, Kind: name,
		Sync: wal.SyncPolicy(c.sync), Interval: c.interval, CompactAt: c.compactAt, Strict: c.strict,
		Errors: walErrors,
	}
}

// RecoveryStats says what Open found and repaired.
type RecoveryStats struct {
	SnapshotSeq   uint64 // seq of the last write the snapshot holds; 0 without a snapshot
	Replayed      int    // journal records applied on top of the snapshot
	Skipped       int    // journal records skipped because the snapshot holds them (an interrupted compaction)
	TornOffset    int64  // byte offset in the journal of a torn final append cut off
	TornBytes     int64  // its size; 0 when nothing was torn
	DamagedOffset int64  // byte offset in the journal of a damaged final record moved aside
	DamagedBytes  int64  // its size; 0 when nothing was damaged
	DamagedFile   string // the file that keeps the damaged record's bytes
	TempFiles     int    // temporary files of an interrupted compaction deleted
	Upgraded      int    // the format version of journal and snapshot rewritten as version 2; 0 when none
}

// JournalStats describes the files of a durable graph, store or memory.
type JournalStats struct {
	Seq           uint64 // seq of the last write journaled (or held by the snapshot)
	SnapshotSeq   uint64 // seq of the last write the snapshot holds
	JournalBytes  int64  // size of the journal's whole records, header included
	SnapshotBytes int64  // size of the snapshot file
	Compactions   int    // compactions completed since Open, explicit or automatic
	Syncs         int64  // syncs of the journal since Open
	// LastCompactError is the error of the last automatic compaction if
	// it failed; nil after one succeeds. A failed automatic compaction
	// loses nothing and is tried again when the journal has grown by
	// another threshold.
	LastCompactError error
	// Failed is non-nil while writes are refused after a journal failure;
	// it wraps ErrJournal.
	Failed error
}

// durable is the file side shared by DurableGraph, DurableKnowledgeStore
// and Memory.
type durable struct {
	log *wal.Log
}

// Recovery returns what Open found and repaired.
func (d *durable) Recovery() RecoveryStats { return RecoveryStats(d.log.Recovery()) }

// JournalStats returns the state of the files. It works after Close too.
func (d *durable) JournalStats() JournalStats { return JournalStats(d.log.Stats()) }

// Compact writes the contents as a new snapshot and starts a new journal
// holding only the writes made while the snapshot was being written, so
// that the next Open reads one snapshot and a short journal. No crash at
// any point of it loses or repeats a write. Readers and writers carry on
// while the snapshot is written; writers wait only while the files are
// swapped. Cost: a copy of the contents in memory, and the time to write
// and sync the snapshot. A successful Compact lifts the refusal of writes
// that follows a journal failure. After Close it returns an error wrapping
// ErrClosed.
func (d *durable) Compact() error { return d.log.Compact() }

// graphMachine makes an InMemoryGraph durable.
type graphMachine struct{ g *InMemoryGraph }

func (m graphMachine) Load(r io.Reader) (uint64, error) {
	fresh, h, _, err := readGraph(r, m.g.newEmpty(), true)
	if err != nil {
		return 0, err
	}
	m.g.adopt(fresh) // nobody holds g yet
	var sv []string
	if h.Schema != nil {
		sv = h.Schema.SingleValued
	}
	m.g.setSingleValued(sv)
	return h.Seq, nil
}

func (m graphMachine) Replay(version int, body []byte) error {
	if version >= 2 {
		if ok, err := replayGraphSchema(m.g, body); ok {
			return err
		}
	}
	mu, err := decodeGraphRecord(version, body)
	if err != nil {
		return err
	}
	return m.g.replay(mu)
}

func (m graphMachine) Capture(mark func() uint64) wal.Snapshot {
	m.g.mu.RLock()
	d := m.g.capture()
	d.schema = m.g.durableSchema()
	d.seq = mark()
	m.g.mu.RUnlock()
	d.sort()
	return d
}

// storeMachine makes an InMemoryKnowledgeStore durable.
type storeMachine struct{ s *InMemoryKnowledgeStore }

func (m storeMachine) Load(r io.Reader) (uint64, error) {
	h, _, err := readPages(r, m.s) // nobody holds s yet
	return h.Seq, err
}

func (m storeMachine) Replay(version int, body []byte) error {
	var pm pageMutation
	if err := jsonl.DecodeStrict(body, &pm, pageRecordNames); err != nil {
		return fmt.Errorf("kgmem: record: %v: %w", err, ErrInvalidArgument)
	}
	return m.s.replay(&pm)
}

func (m storeMachine) Capture(mark func() uint64) wal.Snapshot {
	m.s.mu.RLock()
	d := m.s.capture()
	d.seq = mark()
	m.s.mu.RUnlock()
	d.sort()
	return d
}

// memoryMachine makes a Memory durable: its snapshot is the graph's
// followed by the store's, with the same seq.
type memoryMachine struct{ m *Memory }

// memoryData is a memory's snapshot.
type memoryData struct {
	graph *graphData
	pages *pagesData
}

func (d *memoryData) WriteTo(w io.Writer) (int64, error) { return writeSnapshot(w, d.graph, d.pages) }

func (mm memoryMachine) Load(r io.Reader) (uint64, error) {
	m := mm.m
	lr := newSnapshotReader(r)
	fresh, gh, err := readGraphLines(lr, m.graph.newEmpty())
	var schema Schema
	if err == nil && gh.Schema != nil {
		if schema, err = gh.Schema.normalized(); err == nil && (schema.empty() || !reflect.DeepEqual(schema, gh.Schema.Schema)) {
			err = fmt.Errorf("schema not in the form kgmem writes (not empty, single-valued types sorted and distinct, no type without phrases): %w", ErrInvalidArgument)
		}
		if err != nil {
			err = withContext(err, "snapshot line 1: header")
		}
	}
	var ph pagesHeader
	if err == nil {
		ph, err = readPagesLines(lr, m.store) // nobody holds the store yet
	}
	if err := lr.Done(err); err != nil {
		return 0, err
	}
	if gh.Seq != ph.Seq {
		return 0, fmt.Errorf("kgmem: snapshot: graph seq %d, pages seq %d: %w", gh.Seq, ph.Seq, ErrInvalidArgument)
	}
	m.graph.adopt(fresh)
	m.setSchema(schema)
	return gh.Seq, nil
}

// memoryRecord is any record of a memory's journal.
type memoryRecord struct {
	Op        mutationOp     `json:"op"`
	Entities  []Entity       `json:"entities,omitempty"`
	Relations []Relation     `json:"relations,omitempty"`
	ID        string         `json:"id,omitempty"`
	Into      string         `json:"into,omitempty"`
	Key       *RelationKey   `json:"key,omitempty"`
	Tags      []string       `json:"tags,omitempty"`
	Page      *KnowledgePage `json:"page,omitempty"`
	Model     string         `json:"model,omitempty"`
	Vector    vector         `json:"vector,omitempty"`
	Schema    *storedSchema  `json:"schema,omitempty"`
}

var memoryRecordNames = jsonl.Names(reflect.TypeFor[memoryRecord]())

func (mm memoryMachine) Replay(version int, body []byte) error {
	m := mm.m
	var r memoryRecord
	if err := jsonl.DecodeStrict(body, &r, memoryRecordNames); err != nil {
		return fmt.Errorf("kgmem: record: %v: %w", err, ErrInvalidArgument)
	}
	if (r.Op == opSetSchema) != (r.Schema != nil) {
		return malformed(r.Op)
	}
	switch r.Op {
	case opSetSchema:
		if r.Entities != nil || r.Relations != nil || r.ID != "" || r.Into != "" || r.Key != nil || r.Tags != nil || r.Page != nil || r.Model != "" || r.Vector != nil {
			return malformed(r.Op)
		}
		return m.replaySchema(r.Schema)
	case opPutPage, opDeletePage:
		if r.Entities != nil || r.Relations != nil || r.Key != nil || r.Tags != nil || r.Into != "" {
			return malformed(r.Op)
		}
		return m.store.replay(&pageMutation{Op: r.Op, Page: r.Page, ID: r.ID, Model: r.Model, Vector: r.Vector})
	case opIngest:
		if r.Page == nil || r.ID != "" || r.Key != nil || r.Tags != nil || r.Into != "" {
			return malformed(r.Op)
		}
		gm := &mutation{Op: opAddBatch, Entities: r.Entities, Relations: r.Relations, replayed: true}
		pm := &pageMutation{Op: opPutPage, Page: r.Page, Model: r.Model, Vector: r.Vector}
		return m.writeBoth(gm, pm, nil)
	}
	if r.Page != nil || r.Vector != nil || r.Model != "" {
		return malformed(r.Op)
	}
	return m.graph.replay(&mutation{Op: r.Op, Entities: r.Entities, Relations: r.Relations, ID: r.ID, Into: r.Into, Key: r.Key, Tags: r.Tags})
}

func (mm memoryMachine) Capture(mark func() uint64) wal.Snapshot {
	m := mm.m
	m.graph.mu.RLock()
	m.store.mu.RLock()
	d := &memoryData{graph: m.graph.capture(), pages: m.store.capture()}
	if s := m.schema.Load(); !s.empty() {
		d.graph.schema = &storedSchema{s.clone()}
	}
	d.graph.seq = mark()
	d.pages.seq = d.graph.seq
	m.store.mu.RUnlock()
	m.graph.mu.RUnlock()
	d.graph.sort()
	d.pages.sort()
	return d
}

// DurableGraph is an InMemoryGraph kept in a directory: every write is
// journaled before it returns, and OpenGraph finds it again after a
// restart or a crash (see Persistence in the package documentation).
// Every method of InMemoryGraph works on it, ReadFrom included, which
// writes the new contents as a snapshot before it returns. For a graph
// with the pages it cites, use OpenMemory.
type DurableGraph struct {
	*InMemoryGraph
	durable
}

// OpenGraph opens the durable graph in dir, creating the directory and the
// graph when missing. opts are graph options (WithTagConstraints,
// WithPathBudget) and durable ones (WithSync and the others); reopen with
// the same TagConstraints, as a journal holding more tags per entity than
// the limit fails to open rather than lose tags. The graph keeps its
// single-valued types in its files, as a Memory keeps its Schema: a reopen
// without WithSingleValued finds the types last declared, and one with it
// replaces them (journaled before OpenGraph returns) when they differ;
// see SetSingleValued. It fails with an error
// wrapping ErrLocked while another Open holds dir, ErrCorrupt when the
// files fail their checks, and ErrInvalidArgument for an empty dir, a dir
// that is a file, or an invalid option.
//
// Cost: O(snapshot + journal) time.
func OpenGraph(dir string, opts ...DurableOption) (*DurableGraph, error) {
	c, err := newDurableConfig("open graph", true, false, opts)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().IsRegular() {
		return nil, fmt.Errorf("kgmem: open graph %s: a file, not a directory; to open a graph that Open kept in files before format 2, "+
			"move the file to DIR/graph.snapshot and its .journal to DIR/graph.journal, then OpenGraph(DIR): %w", dir, ErrInvalidArgument)
	}
	g := NewInMemoryGraph(c.graph...)
	g.setSingleValued(nil) // the files' until Open has read them
	o := c.walOptions("graph")
	o.AcceptV1 = true
	log, err := wal.Open(dir, graphMachine{g}, o)
	if err != nil {
		return nil, err
	}
	g.journal = func(m *mutation) error { return journalGraph(log, g, m) }
	d := &DurableGraph{InMemoryGraph: g, durable: durable{log}}
	if gc := newGraphConfig(c.graph); gc.svSet {
		if err := d.SetSingleValued(context.Background(), gc.singleValued...); err != nil {
			log.Close()
			return nil, err
		}
	}
	return d, nil
}

// journalGraph records m, a write to g, in log: a replacement as a new
// snapshot (with g's single-valued types), any other write as a record.
func journalGraph(log *wal.Log, g *InMemoryGraph, m *mutation) error {
	if m.Op == opReplace {
		d := m.fresh.capture()
		d.schema = g.durableSchema()
		return rebase(log, d)
	}
	return log.Append(m)
}

// journalParts makes log, a memory's journal, the journal of g and s, its
// graph and store: every write of either is one record, and replacing one
// of them alone (ReadFrom) is refused, since a memory's snapshot holds
// both.
func journalParts(log *wal.Log, g *InMemoryGraph, s *InMemoryKnowledgeStore) {
	g.journal = func(m *mutation) error {
		if m.Op == opReplace {
			return errMemoryReplace
		}
		return log.Append(m)
	}
	s.journal = func(m *pageMutation) error {
		if m.Op == opReplace {
			return errMemoryReplace
		}
		return log.Append(m)
	}
}

var errMemoryReplace = fmt.Errorf("kgmem: read into a memory's graph or store: a memory is replaced as a whole, not in part: %w", ErrInvalidArgument)

// snapshotData is the contents of a graph or a store, copied for a
// snapshot.
type snapshotData interface {
	wal.Snapshot
	sort()
	setSeq(seq uint64)
}

func (d *graphData) setSeq(seq uint64) { d.seq = seq }
func (d *pagesData) setSeq(seq uint64) { d.seq = seq }

// rebase makes d, the new contents of a graph or a store that replace the
// old ones, the snapshot of log.
func rebase(log *wal.Log, d snapshotData) error {
	d.sort()
	return log.Rebase(func(seq uint64) wal.Snapshot {
		d.setSeq(seq)
		return d
	})
}

// Close closes the graph, as InMemoryGraph.Close does, then stops the
// background goroutine, waits for a compaction in progress, syncs and
// closes the journal and releases the directory, which can then be opened
// again. It returns an error wrapping ErrJournal if that sync or an earlier
// write failed (the graph is closed all the same), and one wrapping
// ErrClosed when called again.
func (d *DurableGraph) Close() error {
	if err := d.InMemoryGraph.Close(); err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return d.log.Close()
}

// DurableKnowledgeStore is an InMemoryKnowledgeStore kept in a directory:
// every Put and Delete is journaled before it returns, and OpenStore finds
// the pages again after a restart or a crash (see Persistence in the
// package documentation). After Close, Put and Delete fail with an error
// wrapping ErrClosed; reads go on.
type DurableKnowledgeStore struct {
	*InMemoryKnowledgeStore
	durable
}

// OpenStore opens the durable page store in dir, creating the directory
// and the store when missing. opts are store options (WithBM25,
// WithTitleBoost, WithEmbedder and the others) and durable ones. Errors
// are those of OpenGraph; files holding vectors of another model than
// WithEmbedder's, vectors without an embedder or pages without vectors
// with one also fail with an error wrapping ErrEmbeddingModel (and
// ErrCorrupt). Reopen with the embedder the store was written with.
func OpenStore(dir string, opts ...DurableOption) (*DurableKnowledgeStore, error) {
	c, err := newDurableConfig("open store", false, true, opts)
	if err != nil {
		return nil, err
	}
	s := NewInMemoryKnowledgeStore(c.store...)
	log, err := wal.Open(dir, storeMachine{s}, c.walOptions("pages"))
	if err != nil {
		return nil, err
	}
	s.journal = func(m *pageMutation) error {
		if m.Op == opReplace {
			return rebase(log, m.fresh.capture())
		}
		return log.Append(m)
	}
	return &DurableKnowledgeStore{InMemoryKnowledgeStore: s, durable: durable{log}}, nil
}

// Close stops the background goroutine, waits for a compaction in
// progress, syncs and closes the journal and releases the directory. Its
// errors are those of DurableGraph.Close.
func (d *DurableKnowledgeStore) Close() error { return d.log.Close() }

// SaveFile writes src (an InMemoryGraph, an InMemoryKnowledgeStore, or
// anything else that writes itself) to the file at path atomically: it
// writes a temporary file in the same directory, syncs it, renames it over
// path and syncs the directory, so that after a crash path holds either
// the old file or the complete new one. An existing file's permission bits
// are kept; a new file gets 0600. Errors name the file and wrap the cause.
func SaveFile(path string, src io.WriterTo) error {
	return wal.WriteFile(path, func(w io.Writer) error {
		_, err := src.WriteTo(w)
		return err
	})
}

// LoadFile reads the file at path into dst (an InMemoryGraph or
// InMemoryKnowledgeStore, whose ReadFrom replaces its contents and leaves
// them unchanged on error). Errors name the file and wrap the cause, such
// as the ErrInvalidArgument of an invalid snapshot, which names the line,
// and the ErrCorrupt of a damaged one, which fails its checksum. The file
// is only read.
func LoadFile(path string, dst io.ReaderFrom) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("kgmem: load %s: %w", path, err)
	}
	defer f.Close()
	if _, err := dst.ReadFrom(f); err != nil {
		return withContext(err, "load %s", path)
	}
	return nil
}
