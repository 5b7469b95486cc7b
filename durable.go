// # Durable graphs
//
// [Open] returns an InMemoryGraph backed by a snapshot file and a
// write-ahead journal, so that an agent's memory survives restarts without
// losing a write it acknowledged, using nothing but the standard library.
// Open loads the snapshot and replays the journal; every write appends a
// record to the journal before it returns; [InMemoryGraph.Compact] (run
// automatically once the journal outgrows WithCompactThreshold) folds the
// journal into a new snapshot; [InMemoryGraph.Close] releases the files. A
// durable graph opened with Open(P) uses, in P's directory:
//
//	P                   the snapshot (see Snapshots), with "seq" in its header
//	P.journal           the write-ahead journal
//	P.lock              the lock file, held with flock(2) while the graph is open
//	P.tmp-*             a snapshot being written by a compaction
//	P.journal.tmp-*     a journal being written by a compaction
//
// While one Open holds P.lock, another Open of P, in the same process or
// another, fails with an error wrapping [ErrLocked]. (On platforms without
// flock, such as Windows, there is no lock: the caller must make sure that
// one Open at a time uses a path.) Open deletes leftover temporary files:
// they belong to a compaction that never finished, and the files it would
// have replaced are still whole.
//
// # Journal format
//
// The journal is a sequence of frames:
//
//	[4 bytes: payload length L, little-endian uint32]
//	[4 bytes: CRC-32C (Castagnoli) of the payload, little-endian uint32]
//	[L bytes: payload, one JSON object]
//
// L is at least 2 and at most [MaxRecordSize]. The first frame is the
// header {"format":"kgmem-journal","version":1}. Every other frame is one
// write, applied to the graph in the order of the frames:
//
//	{"seq":7,"op":"add_entity","entities":[{...Entity...}]}
//	{"seq":8,"op":"add_relation","relations":[{...Relation...}]}
//	{"seq":9,"op":"remove_entity","id":"person:alice"}
//	{"seq":10,"op":"remove_relation","key":{"SourceID":"a","TargetID":"b","Type":"knows"}}
//	{"seq":11,"op":"set_tags","id":"a","tags":["x","y"]}
//	{"seq":12,"op":"add_batch","entities":[...],"relations":[...]}
//	{"seq":13,"op":"remove_source","id":"page-42"}
//
// Entities carry their tags normalised. seq numbers the writes over the
// graph's whole life, one more for each record. Replaying a record calls
// the method that made it, on the graph as it was before it.
//
// # Sequence numbers and compaction
//
// The snapshot's header records seq S: the snapshot holds the effect of
// every write up to and including S. Open loads the snapshot, skips the
// journal records whose seq is at most S, and applies the rest, which must
// begin at S+1 and follow one another without a gap. So whichever state a
// compaction left the files in, no record is applied twice and none is
// lost; a journal that does not fit its snapshot fails to open.
//
// Compact copies the contents and their seq S under the read lock; writes
// them to P.tmp-* and syncs it while readers and writers carry on; then,
// under the write lock, writes P.journal.tmp-* holding the journal header
// and the records appended since the copy (seq > S) and syncs it, renames
// the snapshot over P and syncs the directory, renames the new journal
// over P.journal and syncs the directory. A crash
//
//   - before the snapshot's rename leaves the old snapshot and the old,
//     complete journal: nothing is lost; Open deletes the temporary files.
//   - between the two renames leaves the new snapshot (seq S) with the old
//     journal: records up to S are skipped, the later ones applied once.
//   - after the journal's rename leaves the new pair.
//
// ReadFrom and LoadFile on a durable graph write the new contents the same
// way, as a snapshot with seq S+1 and an empty journal.
//
// # Recovery
//
// A crash in the middle of an append leaves a torn final record: a short
// length or CRC, a short payload, or a payload whose CRC does not match.
// When nothing valid follows it, Open discards it, truncating the journal
// to the last whole record, and reports it in [InMemoryGraph.Recovery].
// Under SyncAlways a torn record was never acknowledged (a write returns
// only once its record is whole and synced); under the other policies it is
// among the writes a crash of the machine may lose. A damaged record that a
// valid one follows is not a torn write but corruption: Open then fails
// with an error wrapping ErrInvalidArgument that names the journal and the
// byte offset, and leaves the files as they are.
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
//   - SyncNone never syncs it while the graph is open (Close does): what is
//     lost is up to the operating system (Linux writes dirty pages back
//     within about 30 s by default). For tests and data that can be rebuilt.
//
// # Journal failures
//
// A write whose record cannot be appended or synced is not applied, and
// returns an error wrapping [ErrJournal] and the cause. The graph then
// refuses every further write with an error wrapping ErrJournal, rather
// than risk a journal with a gap or a torn record in its middle; reads go
// on. A successful Compact starts a new journal and lifts the refusal, as
// does reopening. Whether the failed write itself is found after a restart
// is undefined (its record may have reached the disk whole); every write
// that returned nil is found.
package kgmem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem/internal/quote"
)

// Errors of durable graphs.
var (
	// ErrLocked is returned by Open when another Open, in this process or
	// another one, holds the graph's files.
	ErrLocked = errors.New("kgmem: locked by another user")

	// ErrJournal is returned by a write to a durable graph whose journal
	// record could not be appended or synced, and by every write after
	// it until a Compact succeeds or the graph is reopened.
	ErrJournal = errors.New("kgmem: journal failed")
)

// Journal format identifiers and durable graph defaults.
const (
	// JournalFormat is the format name in a journal's header frame.
	JournalFormat = "kgmem-journal"
	// JournalVersion is the journal format version this package writes
	// and the only one it reads.
	JournalVersion = 1
	// MaxRecordSize is the largest journal payload kgmem writes or reads:
	// 64 MiB. A write whose record would be larger (an AddBatch of some
	// hundreds of thousands of relations) is refused with
	// ErrInvalidArgument; split it.
	MaxRecordSize = 64 << 20
	// DefaultSyncInterval is the sync interval of SyncInterval when
	// WithSyncInterval gives none.
	DefaultSyncInterval = time.Second
	// DefaultCompactThreshold is the journal size past which a durable
	// graph compacts itself, when the journal is also larger than the
	// snapshot: 64 MiB.
	DefaultCompactThreshold = 64 << 20
)

// frameHeader is the size of a frame's length and CRC.
const frameHeader = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SyncPolicy says when a durable graph syncs its journal to stable storage.
// See Sync policies in the package documentation for what each policy may
// lose.
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

// durableConfig holds the settings of Open; graphs made by
// NewInMemoryGraph ignore them.
type durableConfig struct {
	sync      SyncPolicy
	interval  time.Duration // SyncInterval's period; 0: DefaultSyncInterval
	compactAt int64         // 0: DefaultCompactThreshold; negative: never
}

func (c durableConfig) withDefaults() durableConfig {
	if c.interval <= 0 {
		c.interval = DefaultSyncInterval
	}
	if c.compactAt == 0 {
		c.compactAt = DefaultCompactThreshold
	}
	return c
}

// WithSync sets when a durable graph syncs its journal (default
// SyncAlways). WithSync(SyncInterval) syncs every DefaultSyncInterval. It
// panics on a value that is not a SyncPolicy constant. Graphs made by
// NewInMemoryGraph ignore it.
func WithSync(p SyncPolicy) Option {
	if p > SyncNone {
		panic(fmt.Sprintf("kgmem: WithSync: unknown %v", p))
	}
	return optionFunc(func(c *graphConfig) { c.durable.sync = p })
}

// WithSyncInterval makes a durable graph sync its journal every d from a
// background goroutine (SyncInterval); d <= 0 means DefaultSyncInterval (1
// s). Writes of the last d may be lost if the machine crashes. The
// goroutine stops in Close. Graphs made by NewInMemoryGraph ignore it.
func WithSyncInterval(d time.Duration) Option {
	return optionFunc(func(c *graphConfig) {
		c.durable.sync = SyncInterval
		c.durable.interval = d
	})
}

// WithCompactThreshold sets the journal size in bytes past which a durable
// graph compacts itself in the background (when the journal is also larger
// than the snapshot): 0 means DefaultCompactThreshold (64 MiB), a negative
// value never. Graphs made by NewInMemoryGraph ignore it.
func WithCompactThreshold(n int64) Option {
	return optionFunc(func(c *graphConfig) { c.durable.compactAt = n })
}

// RecoveryStats says what Open found and repaired.
type RecoveryStats struct {
	SnapshotSeq uint64 // seq of the last write the snapshot holds; 0 without a snapshot
	Replayed    int    // journal records applied on top of the snapshot
	Skipped     int    // journal records skipped because the snapshot holds them (an interrupted compaction)
	TornOffset  int64  // byte offset in the journal where a discarded torn record began
	TornBytes   int64  // bytes discarded from the journal's end; 0 when nothing was torn
	TempFiles   int    // temporary files of an interrupted compaction deleted
}

// Recovery returns what Open found when it opened the graph; the zero
// value for a graph made by NewInMemoryGraph.
func (g *InMemoryGraph) Recovery() RecoveryStats {
	if d, ok := g.journal.(*durableLog); ok {
		return d.recovery
	}
	return RecoveryStats{}
}

// JournalStats describes the files of a durable graph.
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
	// Failed is non-nil while the graph refuses writes after a journal
	// failure; it wraps ErrJournal.
	Failed error
}

// JournalStats returns the state of a durable graph's files; the zero value
// for a graph made by NewInMemoryGraph. It works after Close too.
func (g *InMemoryGraph) JournalStats() JournalStats {
	d, ok := g.journal.(*durableLog)
	if !ok {
		return JournalStats{}
	}
	g.mu.RLock()
	s := JournalStats{
		Seq: d.seq, SnapshotSeq: d.snapSeq, JournalBytes: d.size, SnapshotBytes: d.snapSize,
		Syncs: d.syncs.Load(), Failed: d.failed,
	}
	g.mu.RUnlock()
	d.statMu.Lock()
	s.Compactions, s.LastCompactError = d.compactions, d.lastCompactErr
	if s.Failed == nil {
		s.Failed = d.bgErr
	}
	d.statMu.Unlock()
	return s
}

// durableLog is the journal of a durable graph: the graph's mutationLog.
//
// Lock order: compactMu, then the graph's mu, then syncMu, then statMu.
type durableLog struct {
	path, jpath, dir string
	cfg              durableConfig
	lock             *os.File // held lock file
	recovery         RecoveryStats

	// Changed only with the graph's mu held for writing.
	f        *os.File // the journal; only whole records are counted in size
	seq      uint64   // seq of the last record appended, or the snapshot's
	snapSeq  uint64   // seq in the snapshot's header
	size     int64    // bytes of the journal up to the end of its last whole record
	snapSize int64
	failed   error         // set when an append or sync failed; wraps ErrJournal
	buf      *bytes.Buffer // frame being encoded
	enc      *json.Encoder // encodes into buf

	// syncMu is held by the background goroutine while it syncs f, and
	// by whoever replaces or closes f.
	syncMu sync.Mutex
	dirty  atomic.Bool // records appended since the last background sync
	syncs  atomic.Int64

	// compactMu lets one compaction or replacement run at a time.
	compactMu sync.Mutex

	// statMu guards the fields below.
	statMu         sync.Mutex
	compactions    int
	lastCompactErr error
	retryAt        int64 // no automatic compaction before the journal reaches this size
	bgErr          error // a background sync failed; wraps ErrJournal

	wake chan struct{} // an automatic compaction is due; buffered
	stop chan struct{} // closed by Close to stop the background goroutine
	done chan struct{} // closed when the background goroutine has stopped; nil when none runs

	// onStep, when set, is called at each step of a compaction with the
	// step's name. It lets tests look at the files at every point where a
	// crash could leave them.
	onStep func(step string)
}

var _ mutationLog = (*durableLog)(nil)

// journalHeader is the payload of a journal's first frame.
type journalHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// journalRecord is the payload of every other frame.
type journalRecord struct {
	Seq uint64 `json:"seq"`
	mutation
}

// Open opens the durable graph whose snapshot lives at path, creating it
// when neither the snapshot nor its journal exists; the directory must
// exist. It loads the snapshot, applies the journal path+".journal" on top
// of it (see Durable graphs in the package documentation for the formats and
// the recovery of a torn final record), and returns a graph that appends
// every successful write to the journal, and syncs it under the default
// SyncAlways, before the write returns. opts are the options of
// NewInMemoryGraph plus WithSync, WithSyncInterval and
// WithCompactThreshold; the graph must be reopened with the same
// TagConstraints (a snapshot or journal holding more tags per entity than
// the limit fails to open rather than lose tags).
//
// Open takes an exclusive lock on path+".lock"; while it is held, another
// Open of the same path, in this process or another, returns an error
// wrapping ErrLocked. Call Close to release it. An invalid snapshot or
// journal returns an error wrapping ErrInvalidArgument that names the file
// and the line or byte offset; file system errors are returned wrapped.
//
// Cost: O(snapshot + journal) time; the snapshot is read line by line and
// the journal record by record.
func Open(path string, opts ...Option) (*InMemoryGraph, error) {
	var cfg graphConfig
	for _, o := range opts {
		o.apply(&cfg)
	}
	g := NewInMemoryGraph(opts...)
	d := &durableLog{
		path:  path,
		jpath: path + ".journal",
		dir:   filepath.Dir(path),
		cfg:   cfg.durable.withDefaults(),
		buf:   new(bytes.Buffer),
	}
	d.enc = json.NewEncoder(d.buf)
	d.enc.SetEscapeHTML(false)
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	d.lock = lock
	opened := false
	defer func() {
		if !opened {
			if d.f != nil {
				d.f.Close()
			}
			unlockFile(d.lock)
		}
	}()
	if d.recovery.TempFiles, err = removeTemps(path); err != nil {
		return nil, err
	}
	if err := d.loadSnapshot(g); err != nil {
		return nil, err
	}
	if err := d.openJournal(g); err != nil {
		return nil, err
	}
	g.journal = d
	if d.cfg.sync == SyncInterval || d.cfg.compactAt > 0 {
		d.wake = make(chan struct{}, 1)
		d.stop = make(chan struct{})
		d.done = make(chan struct{})
		go d.run(g)
		d.maybeCompact()
	}
	opened = true
	return g, nil
}

// removeTemps deletes the temporary files a compaction of the snapshot at
// path left behind, and returns how many there were.
func removeTemps(path string) (int, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("kgmem: open %s: %w", path, err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base+tempInfix) && !strings.HasPrefix(name, base+".journal"+tempInfix) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("kgmem: open %s: remove leftover %s: %w", path, name, err)
		}
		n++
	}
	return n, nil
}

// loadSnapshot reads the snapshot into g, an empty graph, if there is one.
func (d *durableLog) loadSnapshot(g *InMemoryGraph) error {
	f, err := os.Open(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("kgmem: open %s: %w", d.path, err)
	}
	defer f.Close()
	_, h, n, err := readGraph(f, g)
	if err != nil {
		return withContext(err, "open %s", d.path)
	}
	d.snapSeq, d.seq, d.snapSize = h.Seq, h.Seq, n
	d.recovery.SnapshotSeq = h.Seq
	return nil
}

// openJournal opens the journal, creating it if missing, applies its
// records to g and truncates a torn final record.
func (d *durableLog) openJournal(g *InMemoryGraph) error {
	f, err := os.OpenFile(d.jpath, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = d.writeJournalTemp(nil)
		if err != nil {
			return err
		}
		if err := os.Rename(f.Name(), d.jpath); err != nil {
			f.Close()
			os.Remove(f.Name())
			return fmt.Errorf("kgmem: create journal %s: %w", d.jpath, err)
		}
		d.f, d.size = f, int64(len(journalHeaderFrame()))
		if err := syncDir(d.dir); err != nil {
			return fmt.Errorf("kgmem: create journal %s: sync directory: %w", d.jpath, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("kgmem: open journal %s: %w", d.jpath, err)
	}
	d.f = f
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("kgmem: open journal %s: %w", d.jpath, err)
	}
	if fi.Size() == 0 {
		// Not a journal kgmem wrote (it creates journals whole, header
		// included), but empty: start it.
		hdr := journalHeaderFrame()
		if _, err := f.Write(hdr); err != nil {
			return fmt.Errorf("kgmem: open journal %s: write header: %w", d.jpath, err)
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("kgmem: open journal %s: sync: %w", d.jpath, err)
		}
		d.size = int64(len(hdr))
		return nil
	}
	return d.replay(g, f, fi.Size())
}

// journalHeaderFrame returns the framed journal header.
func journalHeaderFrame() []byte {
	payload, _ := json.Marshal(journalHeader{Format: JournalFormat, Version: JournalVersion})
	return appendFrame(nil, payload)
}

// appendFrame appends payload, framed, to b.
func appendFrame(b, payload []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, castagnoli))
	return append(b, payload...)
}

// frameAt reports whether b holds a valid frame at its start, and the
// frame's payload.
func frameAt(b []byte) ([]byte, bool) {
	if len(b) < frameHeader {
		return nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if n < 2 || n > MaxRecordSize || uint64(n) > uint64(len(b)-frameHeader) {
		return nil, false
	}
	payload := b[frameHeader : frameHeader+int(n)]
	if payload[0] != '{' || crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[4:]) {
		return nil, false
	}
	return payload, true
}

// errTorn reports a frame that is not whole or does not match its CRC.
var errTorn = errors.New("torn frame")

// readFrame reads the frame at the reader's position; size is how many
// bytes are left in the file. It returns io.EOF at the end of the file and
// errTorn for a frame that is incomplete or damaged.
func readFrame(r *bufio.Reader, left int64) ([]byte, error) {
	if left == 0 {
		return nil, io.EOF
	}
	if left < frameHeader {
		return nil, errTorn
	}
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n < 2 || n > MaxRecordSize || int64(n) > left-frameHeader {
		return nil, errTorn
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, err
	}
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(hdr[4:]) {
		return nil, errTorn
	}
	return payload, nil
}

// replay applies the journal's records to g, whose journal is not yet
// attached, and truncates a torn final record.
func (d *durableLog) replay(g *InMemoryGraph, f *os.File, size int64) error {
	r := bufio.NewReaderSize(f, 1<<16)
	var off int64
	payload, err := readFrame(r, size)
	if err != nil {
		if err == errTorn || err == io.EOF {
			return d.corrupt(0, "no valid header frame")
		}
		return fmt.Errorf("kgmem: read journal %s: %w", d.jpath, err)
	}
	var h journalHeader
	if err := decodeStrict(payload, &h, jsonNames(reflect.TypeFor[journalHeader]())); err != nil {
		return d.corrupt(0, "header: %v", err)
	}
	if h.Format != JournalFormat || h.Version != JournalVersion {
		return d.corrupt(0, "header: format %s version %d, want %q version %d", quote.Value(h.Format), h.Version, JournalFormat, JournalVersion)
	}
	off = frameHeader + int64(len(payload))
	ctx := context.Background()
	recordNames := jsonNames(reflect.TypeFor[journalRecord]())
	var last uint64 // seq of the previous record; 0 before the first
	for {
		payload, err := readFrame(r, size-off)
		if err == io.EOF {
			break
		}
		if err == errTorn {
			return d.tornTail(f, off, size)
		}
		if err != nil {
			return fmt.Errorf("kgmem: read journal %s at offset %d: %w", d.jpath, off, err)
		}
		var rec journalRecord
		if err := decodeStrict(payload, &rec, recordNames); err != nil {
			return d.corrupt(off, "record: %v", err)
		}
		switch {
		case rec.Seq <= d.snapSeq:
			if last != 0 && rec.Seq != last+1 {
				return d.corrupt(off, "record seq %d follows seq %d", rec.Seq, last)
			}
			d.recovery.Skipped++
		case rec.Seq != d.seq+1:
			return d.corrupt(off, "record seq %d, want %d: records are missing after the snapshot's seq %d",
				rec.Seq, d.seq+1, d.snapSeq)
		default:
			if err := applyRecord(ctx, g, &rec.mutation); err != nil {
				return withContext(fmt.Errorf("%w (%w)", err, ErrInvalidArgument),
					"journal %s: record seq %d at offset %d does not apply", d.jpath, rec.Seq, off)
			}
			d.seq = rec.Seq
			d.recovery.Replayed++
		}
		last = rec.Seq
		off += frameHeader + int64(len(payload))
	}
	d.size = off
	return nil
}

// tornTail handles a frame at off that is incomplete or damaged: when no
// valid frame follows it, it is a torn final write and is cut off;
// otherwise the journal is corrupt.
func (d *durableLog) tornTail(f *os.File, off, size int64) error {
	rest := size - off
	if rest > frameHeader+MaxRecordSize {
		return d.corrupt(off, "damaged record followed by %d bytes, more than one record", rest)
	}
	b := make([]byte, rest)
	if _, err := f.ReadAt(b, off); err != nil {
		return fmt.Errorf("kgmem: read journal %s at offset %d: %w", d.jpath, off, err)
	}
	for i := 1; i < len(b); i++ {
		if _, ok := frameAt(b[i:]); ok {
			return d.corrupt(off, "damaged record followed by a valid one at offset %d", off+int64(i))
		}
	}
	if err := f.Truncate(off); err != nil {
		return fmt.Errorf("kgmem: journal %s: discard torn record at offset %d: %w", d.jpath, off, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("kgmem: journal %s: discard torn record at offset %d: sync: %w", d.jpath, off, err)
	}
	d.recovery.TornOffset, d.recovery.TornBytes = off, rest
	d.size = off
	return nil
}

// corrupt returns an error wrapping ErrInvalidArgument about the journal
// at byte offset off.
func (d *durableLog) corrupt(off int64, format string, args ...any) error {
	return fmt.Errorf("kgmem: journal %s: offset %d: %s: %w", d.jpath, off, fmt.Sprintf(format, args...), ErrInvalidArgument)
}

// applyRecord applies one journal record to g through its public methods.
func applyRecord(ctx context.Context, g *InMemoryGraph, m *mutation) error {
	maxTags := g.tags.MaxTagsPerEntity
	checkTags := func(es []Entity) error {
		for i := range es {
			if _, err := storedTags(es[i].ID, es[i].Tags, maxTags); err != nil {
				return err
			}
		}
		return nil
	}
	shape := func(ok bool) error {
		if ok {
			return nil
		}
		return fmt.Errorf("kgmem: malformed %q record: %w", m.Op, ErrInvalidArgument)
	}
	switch m.Op {
	case opAddEntity:
		if err := shape(len(m.Entities) == 1 && len(m.Relations) == 0); err != nil {
			return err
		}
		if err := checkTags(m.Entities); err != nil {
			return err
		}
		return g.AddEntity(ctx, m.Entities[0])
	case opRemoveEntity:
		return g.RemoveEntity(ctx, m.ID)
	case opAddRelation:
		if err := shape(len(m.Relations) == 1 && len(m.Entities) == 0); err != nil {
			return err
		}
		return g.AddRelation(ctx, m.Relations[0])
	case opRemoveRelation:
		if err := shape(m.Key != nil); err != nil {
			return err
		}
		return g.RemoveRelation(ctx, m.Key.SourceID, m.Key.TargetID, m.Key.Type)
	case opSetTags:
		if _, err := storedTags(m.ID, m.Tags, maxTags); err != nil {
			return err
		}
		_, err := g.SetEntityTags(ctx, m.ID, m.Tags)
		return err
	case opAddBatch:
		if err := checkTags(m.Entities); err != nil {
			return err
		}
		return g.AddBatch(ctx, m.Entities, m.Relations)
	case opRemoveSource:
		_, err := g.RemoveSource(ctx, m.ID)
		return err
	}
	return fmt.Errorf("kgmem: unknown operation %s: %w", quote.Value(string(m.Op)), ErrInvalidArgument)
}

// record appends m to the journal; it is called with the graph's mu held
// for writing, before m is applied.
func (d *durableLog) record(m *mutation) error {
	if err := d.usable(); err != nil {
		return err
	}
	seq := d.seq + 1
	d.buf.Reset()
	var hdr [frameHeader]byte // filled in below
	d.buf.Write(hdr[:])
	if err := d.enc.Encode(journalRecord{Seq: seq, mutation: *m}); err != nil {
		return fmt.Errorf("kgmem: journal %s: encode record %d: %w", d.jpath, seq, err)
	}
	frame := d.buf.Bytes()
	frame = frame[:len(frame)-1] // the encoder's newline
	payload := frame[frameHeader:]
	if len(payload) > MaxRecordSize {
		d.shrinkBuf()
		return fmt.Errorf("kgmem: journal %s: %s record of %d bytes is larger than MaxRecordSize (%d): %w",
			d.jpath, m.Op, len(payload), MaxRecordSize, ErrInvalidArgument)
	}
	binary.LittleEndian.PutUint32(frame, uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:], crc32.Checksum(payload, castagnoli))
	n, err := d.f.Write(frame)
	d.shrinkBuf()
	if err != nil {
		d.failed = fmt.Errorf("kgmem: journal %s: append record %d at offset %d: %w: %w", d.jpath, seq, d.size, ErrJournal, err)
		return d.failed
	}
	if d.cfg.sync == SyncAlways {
		if err := d.f.Sync(); err != nil {
			d.failed = fmt.Errorf("kgmem: journal %s: sync record %d: %w: %w", d.jpath, seq, ErrJournal, err)
			return d.failed
		}
		d.syncs.Add(1)
	} else {
		d.dirty.Store(true)
	}
	d.seq = seq
	d.size += int64(n)
	d.maybeCompact()
	return nil
}

// shrinkBuf drops a frame buffer that a large record grew.
func (d *durableLog) shrinkBuf() {
	if d.buf.Cap() > 1<<20 {
		d.buf = new(bytes.Buffer)
		d.enc = json.NewEncoder(d.buf)
		d.enc.SetEscapeHTML(false)
	}
}

// usable returns an error wrapping ErrJournal when the journal refuses
// writes; the caller holds the graph's mu for writing.
func (d *durableLog) usable() error {
	if d.failed == nil {
		d.statMu.Lock()
		d.failed = d.bgErr
		d.statMu.Unlock()
	}
	if d.failed != nil {
		return withContext(d.failed, "journal %s: writes refused since an earlier failure until Compact succeeds or the graph is reopened", d.jpath)
	}
	return nil
}

// maybeCompact wakes the background goroutine when the journal has grown
// past the threshold and past the snapshot; the caller holds the graph's mu
// for writing (or is Open).
func (d *durableLog) maybeCompact() {
	if d.wake == nil || d.cfg.compactAt <= 0 || d.size <= d.cfg.compactAt || d.size <= d.snapSize {
		return
	}
	d.statMu.Lock()
	due := d.size >= d.retryAt
	d.statMu.Unlock()
	if due {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// run is the background goroutine: it syncs the journal every interval
// under SyncInterval and runs automatic compactions, until Close.
func (d *durableLog) run(g *InMemoryGraph) {
	defer close(d.done)
	var tick <-chan time.Time
	if d.cfg.sync == SyncInterval {
		t := time.NewTicker(d.cfg.interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-d.stop:
			return
		case <-tick:
			d.syncNow()
		case <-d.wake:
			d.compact(g, true)
		}
	}
}

// syncNow syncs the journal if records were appended since the last sync.
func (d *durableLog) syncNow() {
	if !d.dirty.Swap(false) {
		return
	}
	d.syncMu.Lock()
	err := d.f.Sync()
	d.syncMu.Unlock()
	if err != nil {
		d.statMu.Lock()
		if d.bgErr == nil {
			d.bgErr = fmt.Errorf("kgmem: journal %s: background sync: %w: %w", d.jpath, ErrJournal, err)
		}
		d.statMu.Unlock()
		return
	}
	d.syncs.Add(1)
}

// step calls the test hook, if any.
func (d *durableLog) step(name string) {
	if d.onStep != nil {
		d.onStep(name)
	}
}

// Compact writes the contents of a durable graph as a new snapshot and
// starts a new journal holding only the writes made while the snapshot was
// being written, so that the next Open reads one snapshot and a short
// journal. No crash at any point of it loses or repeats a write (see
// Sequence numbers and compaction in the package documentation). Readers
// and writers carry on while the snapshot is written; they wait only while
// the files are swapped. A durable graph also compacts itself in the
// background when the journal outgrows WithCompactThreshold. Cost: a copy
// of the contents in memory, and the time to write and sync the snapshot.
//
// A successful Compact lifts the refusal of writes that follows a journal
// failure. On a graph made by NewInMemoryGraph it does nothing. After
// Close it returns an error wrapping ErrClosed; an error from the file
// system is returned wrapped, with the files left as they were or as a
// crash at that point would leave them, from which Open recovers.
func (g *InMemoryGraph) Compact() error {
	d, ok := g.journal.(*durableLog)
	if !ok {
		if err := g.rlock(); err != nil {
			return err
		}
		g.mu.RUnlock()
		return nil
	}
	return d.compact(g, false)
}

// compact is Compact; auto marks the background's compactions, whose
// failures are recorded for JournalStats.
func (d *durableLog) compact(g *InMemoryGraph, auto bool) (err error) {
	d.compactMu.Lock()
	defer d.compactMu.Unlock()
	if err := g.rlock(); err != nil {
		return err
	}
	data := g.capture()
	data.seq = d.seq
	from := d.size
	g.mu.RUnlock()
	if auto {
		defer func() {
			if err != nil && !errors.Is(err, ErrClosed) {
				d.statMu.Lock()
				d.lastCompactErr, d.retryAt = err, from+d.cfg.compactAt
				d.statMu.Unlock()
			}
		}()
	}
	data.sort()
	tmp, snapSize, err := d.writeSnapshot(data)
	if err != nil {
		return withContext(err, "compact %s", d.path)
	}
	d.step("snapshot-written")
	if err := g.lock(); err != nil {
		os.Remove(tmp)
		return err
	}
	defer g.mu.Unlock()
	tail := make([]byte, d.size-from)
	if _, err := d.f.ReadAt(tail, from); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("kgmem: compact %s: read journal %s at offset %d: %w", d.path, d.jpath, from, err)
	}
	if _, err := d.install(tmp, snapSize, data.seq, tail); err != nil {
		return err
	}
	return nil
}

// writeSnapshot writes data to a synced temporary file beside the snapshot
// and returns its name and size.
func (d *durableLog) writeSnapshot(data *graphData) (tmp string, size int64, err error) {
	tmp, err = writeTemp(d.path, func(w io.Writer) error {
		var err error
		size, err = data.write(w)
		return err
	})
	return tmp, size, err
}

// replace makes fresh's contents g's, durably: it writes them as the
// snapshot with the next seq and starts an empty journal, then swaps them
// into g. It is ReadFrom on a durable graph.
func (d *durableLog) replace(g *InMemoryGraph, fresh *InMemoryGraph) error {
	d.compactMu.Lock()
	defer d.compactMu.Unlock()
	data := fresh.capture()
	data.sort()
	if err := g.lock(); err != nil {
		return err
	}
	defer g.mu.Unlock()
	data.seq = d.seq + 1
	tmp, snapSize, err := d.writeSnapshot(data)
	if err != nil {
		return withContext(err, "replace %s", d.path)
	}
	installed, err := d.install(tmp, snapSize, data.seq, nil)
	if installed {
		// The new snapshot is in place: it is the graph now.
		g.adopt(fresh)
		d.seq = data.seq
	}
	return err
}

// install puts the snapshot written to tmp in place, with a new journal
// holding tail, the records after the snapshot's seq. The caller holds
// compactMu and the graph's mu for writing. installed reports whether the
// new snapshot was renamed into place; an error after that point leaves
// the graph refusing writes.
func (d *durableLog) install(tmp string, snapSize int64, snapSeq uint64, tail []byte) (installed bool, err error) {
	jf, err := d.writeJournalTemp(tail)
	if err != nil {
		os.Remove(tmp)
		return false, err
	}
	d.step("journal-written")
	if err := os.Rename(tmp, d.path); err != nil {
		os.Remove(tmp)
		jf.Close()
		os.Remove(jf.Name())
		return false, fmt.Errorf("kgmem: install snapshot %s: %w", d.path, err)
	}
	d.snapSeq, d.snapSize = snapSeq, snapSize
	if err := syncDir(d.dir); err != nil {
		jf.Close()
		os.Remove(jf.Name())
		d.failed = fmt.Errorf("kgmem: install snapshot %s: sync directory: %w: %w", d.path, ErrJournal, err)
		return true, d.failed
	}
	d.step("snapshot-renamed")
	if err := os.Rename(jf.Name(), d.jpath); err != nil {
		// The old journal stays, and stays consistent with the new
		// snapshot: its records up to snapSeq will be skipped.
		jf.Close()
		os.Remove(jf.Name())
		return true, fmt.Errorf("kgmem: install journal %s: %w", d.jpath, err)
	}
	d.syncMu.Lock()
	old := d.f
	d.f = jf
	d.syncMu.Unlock()
	old.Close()
	d.size = int64(len(journalHeaderFrame()) + len(tail))
	d.dirty.Store(false)
	if err := syncDir(d.dir); err != nil {
		d.failed = fmt.Errorf("kgmem: install journal %s: sync directory: %w: %w", d.jpath, ErrJournal, err)
		return true, d.failed
	}
	d.step("journal-renamed")
	d.failed = nil
	d.statMu.Lock()
	d.bgErr = nil
	d.compactions++
	d.lastCompactErr, d.retryAt = nil, 0
	d.statMu.Unlock()
	return true, nil
}

// writeJournalTemp writes a temporary journal holding the header and
// tail, syncs it, and returns it open, positioned at its end for appending.
func (d *durableLog) writeJournalTemp(tail []byte) (*os.File, error) {
	f, err := os.CreateTemp(d.dir, filepath.Base(d.jpath)+tempInfix+"*")
	if err != nil {
		return nil, fmt.Errorf("kgmem: create journal %s: %w", d.jpath, err)
	}
	b := append(journalHeaderFrame(), tail...)
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("kgmem: create journal %s: %w", d.jpath, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("kgmem: create journal %s: sync: %w", d.jpath, err)
	}
	return f, nil
}

// Close releases the graph: every later call fails with an error wrapping
// ErrClosed, a second Close included. On a durable graph it first stops
// the background goroutine, waits for a compaction in progress, syncs the
// journal (under every sync policy), closes it and releases the lock, so
// that the path can be opened again; it returns an error wrapping
// ErrJournal if that sync or an earlier journal write failed (the graph is
// closed all the same). On a graph made by NewInMemoryGraph it only marks
// the graph closed.
func (g *InMemoryGraph) Close() error {
	if err := g.lock(); err != nil {
		return err
	}
	g.closed = true
	d, _ := g.journal.(*durableLog)
	g.mu.Unlock()
	if d == nil {
		return nil
	}
	if d.stop != nil {
		close(d.stop)
		<-d.done
	}
	d.compactMu.Lock()
	defer d.compactMu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	var errs []error
	if err := d.usable(); err != nil {
		errs = append(errs, err)
	} else if err := d.f.Sync(); err != nil {
		errs = append(errs, fmt.Errorf("kgmem: close %s: sync journal: %w: %w", d.path, ErrJournal, err))
	}
	d.syncMu.Lock()
	if err := d.f.Close(); err != nil {
		errs = append(errs, fmt.Errorf("kgmem: close %s: %w", d.jpath, err))
	}
	d.syncMu.Unlock()
	if err := unlockFile(d.lock); err != nil {
		errs = append(errs, fmt.Errorf("kgmem: close %s: release lock: %w", d.path, err))
	}
	return errors.Join(errs...)
}
