// # Durable memory
//
// [OpenMemory] opens a memory that survives restarts and crashes: a graph,
// a page store and a retriever over both, kept in a directory. [OpenGraph]
// and [OpenStore] open a graph or a page store alone the same way. Each
// takes the directory for its own and locks it; each write appends a record
// to a write-ahead journal before it returns (and syncs it, under the
// default SyncAlways); Open loads the last snapshot and replays the
// journal; Compact (run automatically once the journal outgrows
// WithCompactThreshold) folds the journal into a new snapshot; Close
// releases the files. Files in the directory:
//
//	memory.snapshot, memory.journal    OpenMemory's
//	graph.snapshot, graph.journal      OpenGraph's
//	pages.snapshot, pages.journal      OpenStore's
//	*.tmp-*                            being written by a compaction; deleted by Open
//	*.journal.damaged-<offset>         a damaged final record Open kept (see Recovery)
//
// The lock is an flock(2) on the directory itself, so deleting a file in it
// cannot lift it: a second Open of the directory, in this process or
// another, fails with an error wrapping [ErrLocked] until Close. (On
// platforms without flock, such as Windows, only a second Open in the same
// process is detected.)
//
// # Snapshots and journals
//
// A snapshot is written in the format described under Snapshots, with the
// seq of the last journal record it holds in its header; a memory's is the
// graph snapshot followed by the page snapshot, both with the same seq and
// both declaring the checksum, and one checksum line after the last page
// covers the whole file (see Checksums). Open verifies it while it loads
// the snapshot, into a state of its own that it discards on failure: a
// snapshot damaged anywhere (header, entities, relations, pages, vectors,
// the checksum line) or cut short fails Open with an error wrapping
// [ErrCorrupt] that names the file, and no file is renamed, cut or
// rewritten. Snapshots written before checksums are read as before, and
// keep their format until the next compaction rewrites them.
// The journal is a sequence of frames:
//
//	[4 bytes: payload length L, little-endian uint32]
//	[4 bytes: CRC-32C (Castagnoli) of the payload, little-endian uint32]
//	[L bytes: payload, one JSON object]
//
// L is at most 64 MiB; a write whose record would be larger (an AddBatch
// of some hundreds of thousands of relations) is refused with
// ErrInvalidArgument. The first frame is the header
//
//	{"format":"kgmem-journal","version":2,"kind":"graph","base":S}
//
// where kind is "graph", "pages" or "memory" and base is the seq of the
// snapshot the journal continues. Every other frame is one write, applied
// in order:
//
//	{"seq":7,"op":"add_entity","entities":[{...Entity...}]}
//	{"seq":8,"op":"add_relation","relations":[{...Relation...}]}
//	{"seq":9,"op":"remove_entity","id":"person:alice"}
//	{"seq":10,"op":"remove_relation","key":{"source_id":"a","target_id":"b","type":"knows"}}
//	{"seq":11,"op":"set_tags","id":"a","tags":["x","y"]}
//	{"seq":12,"op":"add_batch","entities":[...],"relations":[...]}
//	{"seq":13,"op":"remove_source","id":"page-42"}
//	{"seq":14,"op":"put_page","page":{...KnowledgePage...}}
//	{"seq":15,"op":"delete_page","id":"page-42"}
//	{"seq":16,"op":"ingest","page":{...},"entities":[...],"relations":[...]}
//
// With an embedder, put_page and ingest records also carry the page's
// vector and the model that made it, "model":"m","vector":"<base64>" (see
// Snapshots), so that Open replays them without calling the embedder; a
// record whose vector is missing, or of another model or length than the
// store's embedder, fails Open with an error wrapping ErrCorrupt and
// ErrEmbeddingModel.
//
// Entities carry their tags normalised and relations their stored weight
// and valid time (valid_from, valid_to, when set: UTC, to the
// microsecond). A journal that holds a valid time keeps version 2: the
// fields are optional, every record older kgmem wrote reads unchanged, and
// older kgmem refuses a record with them as an unknown field rather than
// dropping them. seq numbers the writes over the memory's whole life. Version 1 graph
// journals and snapshots (written by kgmem's Open before OpenGraph) are
// read, and rewritten in version 2 the first time they are opened.
//
// # Recovery
//
// Open loads the snapshot (seq S), skips the journal records up to S
// (which an interrupted compaction leaves) and applies the rest, which
// must follow one another from S+1. It fails with an error wrapping
// [ErrCorrupt], changing nothing on disk, when the snapshot is damaged
// (it fails its checksum or any check of its lines) or the files do not
// fit: the journal continues a snapshot that is missing or older than its
// base says (a snapshot deleted or restored from a backup), a snapshot has
// no journal, records are missing, or a damaged record is followed by
// valid ones. It never returns less than the files hold without saying so.
//
// The end of the journal is where a crash leaves its mark, and Open tells
// two cases apart:
//
//   - A torn append (the frame is cut short, or the file ends in zeros): a
//     crash interrupted the write. Open cuts it off and reports it in
//     RecoveryStats.TornBytes. Under SyncAlways that write had not returned,
//     so nothing acknowledged is lost.
//   - A damaged record (a whole frame whose checksum does not match): bytes
//     once written in full have changed. Open moves them to
//     <name>.journal.damaged-<offset>, cuts them off and reports the file in
//     RecoveryStats.DamagedFile; with WithStrictRecovery it refuses to open
//     instead, leaving the files as they are for inspection.
//
// This is the choice of RocksDB's kTolerateCorruptedTailRecords for torn
// appends; for damage, where SQLite (whose WAL recovery ignores frames past
// the last valid checksum) and RocksDB's default point-in-time recovery
// drop the record silently, kgmem keeps its bytes and says so, and strict
// mode gives the refusal of RocksDB's kAbsoluteConsistency.
//
// # Sync policies
//
// Every write reaches the operating system (one write(2) of its whole
// record) before it returns, so a crash of the process loses nothing
// acknowledged under any policy. The policies differ when the machine
// crashes or loses power:
//
//   - SyncAlways (the default) syncs the journal (fsync) before each write
//     returns: nothing acknowledged is lost.
//   - SyncInterval syncs it from a background goroutine every interval
//     (WithSyncInterval, default 1 s): the writes of about the last
//     interval may be lost.
//   - SyncNone never syncs it while open (Close does): what is lost is up
//     to the operating system. For tests and data that can be rebuilt.
//
// # Journal failures
//
// A write whose record cannot be appended or synced is not applied, and
// returns an error wrapping [ErrJournal]. Every later write is refused the
// same way, rather than risk a journal with a gap or a torn record in its
// middle; reads go on. A successful Compact starts a new journal and lifts
// the refusal, as does reopening.
package kgmem

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/wal"
)

// Errors of durable graphs, stores and memories.
var (
	// ErrLocked is returned by OpenMemory, OpenGraph and OpenStore when
	// another Open holds the directory.
	ErrLocked = errors.New("locked")

	// ErrJournal is returned by a write whose journal record could not be
	// appended or synced, and by every write after it until a Compact
	// succeeds or the files are reopened.
	ErrJournal = errors.New("journal failed")

	// ErrCorrupt is returned by OpenMemory, OpenGraph and OpenStore when
	// the files fail their checks: a damaged record, a snapshot that fails
	// its checksum or any other check, records missing, a journal and
	// snapshot that do not belong together. InMemoryGraph.ReadFrom,
	// InMemoryKnowledgeStore.ReadFrom and LoadFile return it, with
	// ErrInvalidArgument, for a snapshot that fails its checksum (see
	// Checksums in the package documentation).
	ErrCorrupt = errors.New("corrupt")
)

// walErrors are the sentinels the journal's errors wrap.
var walErrors = wal.Sentinels{
	Locked: ErrLocked, Journal: ErrJournal, Corrupt: ErrCorrupt, Closed: ErrClosed, Invalid: ErrInvalidArgument,
}

// Durable defaults.
const (
	// DefaultSyncInterval is the period of SyncInterval when
	// WithSyncInterval gives none.
	DefaultSyncInterval = wal.DefaultSyncInterval
	// DefaultCompactThreshold is the journal size past which a durable
	// graph, store or memory compacts itself, when the journal is also
	// larger than the snapshot: 64 MiB.
	DefaultCompactThreshold = wal.DefaultCompactAt
)

// SyncPolicy says when the journal is synced to stable storage. See Sync
// policies in the package documentation for what each may lose.
type SyncPolicy uint8

const (
	// SyncAlways syncs the journal before every write returns. It is the
	// default.
	SyncAlways SyncPolicy = iota
	// SyncInterval syncs the journal periodically from a background
	// goroutine; set the period with WithSyncInterval.
	SyncInterval
	// SyncNone leaves syncing to the operating system until Close.
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
	err       error // the first invalid option
}

type durableOptionFunc func(*durableConfig)

func (f durableOptionFunc) applyDurable(c *durableConfig) { f(c) }

func (c *durableConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("kgmem: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
}

// WithSync sets when the journal is synced: SyncAlways (the default),
// SyncInterval (every DefaultSyncInterval) or SyncNone.
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
// the snapshot): 0 means DefaultCompactThreshold (64 MiB), a negative
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
	fresh, h, _, err := readGraph(r, m.g.newEmpty())
	if err != nil {
		return 0, err
	}
	m.g.adopt(fresh) // nobody holds g yet
	return h.Seq, nil
}

func (m graphMachine) Replay(version int, body []byte) error {
	mu, err := decodeGraphRecord(version, body)
	if err != nil {
		return err
	}
	return m.g.replay(mu)
}

func (m graphMachine) Capture(mark func() uint64) wal.Snapshot {
	m.g.mu.RLock()
	d := m.g.capture()
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
	if err := decodeStrict(body, &pm, pageRecordNames); err != nil {
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

// DurableGraph is an InMemoryGraph kept in a directory: every write is
// journaled before it returns, and OpenGraph finds it again after a
// restart or a crash (see Durable memory in the package documentation).
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
// the limit fails to open rather than lose tags. It fails with an error
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
	o := c.walOptions("graph")
	o.AcceptV1 = true
	log, err := wal.Open(dir, graphMachine{g}, o)
	if err != nil {
		return nil, err
	}
	g.journal = func(m *mutation) error { return journalGraph(log, m) }
	return &DurableGraph{InMemoryGraph: g, durable: durable{log}}, nil
}

// journalGraph records m in log: a replacement as a new snapshot, any
// other write as a record.
func journalGraph(log *wal.Log, m *mutation) error {
	if m.Op == opReplace {
		return rebase(log, m.fresh.capture())
	}
	return log.Append(m)
}

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
// the pages again after a restart or a crash (see Durable memory in the
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
