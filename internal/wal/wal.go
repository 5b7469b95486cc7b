// Package wal keeps a state machine durable in a directory it owns: a
// snapshot of the state and a write-ahead journal of the writes made since.
// It is written once for every durable kgmem type (graph, page store,
// memory); each brings a Machine that applies a journal record, reads a
// snapshot and writes one. The package knows nothing of graphs or pages,
// and the machines know nothing of files.
//
// # Files
//
// A Log named N in directory D uses:
//
//	D/N.snapshot            the snapshot, written by the Machine, with the seq it holds
//	D/N.journal             the write-ahead journal
//	D/N.snapshot.tmp-*      a snapshot being written by a compaction
//	D/N.journal.tmp-*       a journal being written by a compaction
//	D/N.journal.damaged-*   a damaged final record Open moved aside
//
// Open locks D itself (flock(2) on the directory), not a file in it: no
// file whose deletion would lift the lock.
//
// # Journal format
//
// The journal is a sequence of frames:
//
//	[4 bytes: payload length L, little-endian uint32]
//	[4 bytes: CRC-32C (Castagnoli) of the payload, little-endian uint32]
//	[L bytes: payload, one JSON object]
//
// L is at least 2 and at most MaxRecordSize. The first frame is the header
//
//	{"format":"kgmem-journal","version":2,"kind":"graph","base":S}
//
// kind names the Machine that wrote it; base is the seq of the snapshot
// the journal continues (0: none). Every other frame is one record,
//
//	{"seq":7,...the record's own members...}
//
// seq numbering the writes over the state's whole life, one more for each
// record. Version 1 journals (kgmem's first format, graphs only) have no
// kind and no base; Open reads them and rewrites the pair in version 2.
//
// # Recovery
//
// Open loads the snapshot (seq S), skips the journal records up to S and
// applies the rest, which must follow one another from S+1 without a gap.
// It fails with an error wrapping ErrCorrupt, and changes nothing on disk,
// when the Machine's Load refuses the snapshot (kgmem's snapshots end with
// a checksum of their bytes, which Load verifies) or the files do not fit
// together: a journal whose base names a snapshot that is missing or older
// than base; a snapshot without its journal; a gap in the seqs; a damaged
// record that a valid one follows.
//
// A bad frame at the end of the journal is one of two things. A torn
// append (a prefix of a frame, or zeros) is what a crash in the middle of
// a write leaves: Open cuts it off and reports it. Under SyncAlways such a
// record was never acknowledged. A whole frame whose CRC does not match is
// damage to bytes once written in full: Open moves them aside to
// N.journal.damaged-<offset> before cutting them off, and reports the
// file, or, under Strict, refuses to open. This is RocksDB's
// kTolerateCorruptedTailRecords for torn appends; for damage it keeps the
// bytes where SQLite (whose WAL recovery silently ignores frames past the
// last valid checksum) and RocksDB's default point-in-time recovery drop
// them, so that nothing is lost without a trace.
package wal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem/internal/errmsg"
)

// Format identifiers and defaults.
const (
	Format              = "kgmem-journal"
	Version             = 2
	MaxRecordSize       = 64 << 20
	DefaultSyncInterval = time.Second
	DefaultCompactAt    = 64 << 20
)

// SyncPolicy says when the journal is synced to stable storage.
type SyncPolicy uint8

// Sync policies.
const (
	SyncAlways   SyncPolicy = iota // before every Append returns
	SyncInterval                   // every Options.Interval, from a background goroutine
	SyncNone                       // only on Close
)

// A Machine is the state a Log makes durable.
type Machine interface {
	// Load reads a snapshot into the machine's state, empty until then,
	// and returns the seq the snapshot holds. It is called at most once,
	// by Open, before any Replay. The snapshot's format is the machine's,
	// and so is checking it, its checksum included. An error fails Open
	// with one wrapping Corrupt (which wraps Corrupt once: an error that
	// wraps it already is not wrapped again), and the machine is not used
	// again.
	Load(r io.Reader) (seq uint64, err error)
	// Replay applies one journal record, read by Open. version is the
	// journal's format version; body is the record's JSON object without
	// its seq member.
	Replay(version int, body []byte) error
	// Capture returns a copy of the state for a snapshot. It must call
	// mark exactly once, while no write is in progress (its own writes,
	// which call Append, excluded); mark returns the seq of the last write
	// the copy holds, which the snapshot must record.
	Capture(mark func() uint64) Snapshot
}

// A Snapshot is a copy of a Machine's state, written outside every lock.
type Snapshot interface {
	WriteTo(w io.Writer) (int64, error)
}

// Sentinels are the errors a Log's errors wrap, so that the package using
// it can export them. Any left nil is replaced by one of this package.
type Sentinels struct {
	Locked  error // the directory is held by another Open
	Journal error // an append or sync failed; writes are refused
	Corrupt error // the files fail their checks
	Closed  error // the Log is closed
	Invalid error // a record is larger than MaxRecordSize
}

// Options configure a Log.
type Options struct {
	Name     string // base name of the files; required
	Kind     string // the journal's kind; a journal of another kind fails to open
	AcceptV1 bool   // read version 1 journals, which carry no kind

	Sync      SyncPolicy
	Interval  time.Duration // SyncInterval's period; <= 0: DefaultSyncInterval
	CompactAt int64         // journal size that triggers a compaction; 0: DefaultCompactAt, < 0: never
	Strict    bool          // refuse to open a journal whose final record is damaged

	Errors Sentinels

	// OnStep, when set, is called at each step of a compaction with the
	// step's name, so that tests can look at the files wherever a crash
	// could leave them.
	OnStep func(step string)
}

// Recovery says what Open found and repaired.
type Recovery struct {
	SnapshotSeq   uint64 // seq the snapshot holds; 0 without one
	Replayed      int    // records applied on top of the snapshot
	Skipped       int    // records skipped because the snapshot holds them
	TornOffset    int64  // offset of a torn final append cut off
	TornBytes     int64  // its size; 0 when there was none
	DamagedOffset int64  // offset of a damaged final record moved aside
	DamagedBytes  int64  // its size; 0 when there was none
	DamagedFile   string // where its bytes were kept
	TempFiles     int    // temporary files of an interrupted compaction deleted
	Upgraded      int    // the journal version rewritten as Version; 0 when none
}

// Stats describe a Log's files.
type Stats struct {
	Seq              uint64 // seq of the last write
	SnapshotSeq      uint64 // seq the snapshot holds
	JournalBytes     int64  // bytes of whole records in the journal, header included
	SnapshotBytes    int64
	Compactions      int   // since Open
	Syncs            int64 // journal syncs since Open
	LastCompactError error // of the last automatic compaction, nil once one succeeds
	Failed           error // non-nil while writes are refused
}

// Log is an open journal and snapshot pair.
//
// Lock order: compactMu, then the Machine's locks, then mu, then syncMu,
// then statMu.
type Log struct {
	dir, spath, jpath string
	o                 Options
	m                 Machine
	lock              *os.File
	key               string // in the table of open directories
	recovery          Recovery

	mu       sync.Mutex
	f        *os.File // the journal; only whole records are counted in size
	seq      uint64   // seq of the last record appended, or the snapshot's
	snapSeq  uint64
	size     int64 // bytes up to the end of the last whole record
	snapSize int64
	gen      uint64 // counts Rebases, which make a running compaction stale
	failed   error  // wraps Errors.Journal
	closing  bool   // Close has begun
	closed   bool
	buf      *bytes.Buffer
	enc      *json.Encoder

	syncMu sync.Mutex // held while f is synced in the background, replaced or closed
	dirty  atomic.Bool
	syncs  atomic.Int64

	compactMu sync.Mutex // one compaction at a time

	statMu         sync.Mutex
	compactions    int
	lastCompactErr error
	retryAt        int64
	bgErr          error

	wake, stop, done chan struct{}
}

// open is the table of directories open in this process, so that a second
// Open of one says so rather than blaming another process.
var open struct {
	sync.Mutex
	dirs map[string]bool
}

// errHeld reports a directory lock held by another open file.
var errHeld = errors.New("lock held")

func (o *Options) fill() {
	e := &o.Errors
	for _, s := range []struct {
		p    *error
		text string
	}{
		{&e.Locked, "locked"}, {&e.Journal, "journal failed"}, {&e.Corrupt, "corrupt"},
		{&e.Closed, "closed"}, {&e.Invalid, "invalid argument"},
	} {
		if *s.p == nil {
			*s.p = errors.New(s.text)
		}
	}
	if o.Interval <= 0 {
		o.Interval = DefaultSyncInterval
	}
	if o.CompactAt == 0 {
		o.CompactAt = DefaultCompactAt
	}
}

// Open opens the Log named o.Name in dir for m, creating dir and the files
// when missing: it locks dir, deletes what an interrupted compaction left,
// loads the snapshot into m and replays the journal (see Recovery in
// docs/DURABILITY.md).
func Open(dir string, m Machine, o Options) (*Log, error) {
	o.fill()
	if dir == "" {
		return nil, fmt.Errorf("kgmem: open: empty directory name: %w", o.Errors.Invalid)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("kgmem: open %s: not a directory: %w", dir, o.Errors.Invalid)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("kgmem: open %s: %w", dir, err)
	}
	key, err := filepath.Abs(dir)
	if err == nil {
		key, err = filepath.EvalSymlinks(key)
	}
	if err != nil {
		return nil, fmt.Errorf("kgmem: open %s: %w", dir, err)
	}
	open.Lock()
	if open.dirs[key] {
		open.Unlock()
		return nil, fmt.Errorf("kgmem: open %s: already open in this process (Close it first): %w", dir, o.Errors.Locked)
	}
	if open.dirs == nil {
		open.dirs = make(map[string]bool)
	}
	open.dirs[key] = true
	open.Unlock()
	l := &Log{
		dir: dir, key: key, o: o, m: m,
		spath: filepath.Join(dir, o.Name+".snapshot"),
		jpath: filepath.Join(dir, o.Name+".journal"),
		buf:   new(bytes.Buffer),
	}
	l.enc = json.NewEncoder(l.buf)
	l.enc.SetEscapeHTML(false)
	ok := false
	defer func() {
		if !ok {
			if l.f != nil {
				l.f.Close()
			}
			if l.lock != nil {
				unlockDir(l.lock)
			}
			l.forget()
		}
	}()
	l.lock, err = lockDir(dir)
	if errors.Is(err, errHeld) {
		return nil, fmt.Errorf("kgmem: open %s: held by another process: %w", dir, o.Errors.Locked)
	}
	if err != nil {
		return nil, fmt.Errorf("kgmem: open %s: lock: %w", dir, err)
	}
	if l.recovery.TempFiles, err = l.removeTemps(); err != nil {
		return nil, err
	}
	haveSnap, err := l.loadSnapshot()
	if err != nil {
		return nil, err
	}
	j, err := l.openJournal(haveSnap)
	if err != nil {
		return nil, err
	}
	switch {
	case j.version < Version:
		if err := l.upgrade(); err != nil {
			return nil, err
		}
		l.recovery.Upgraded = j.version
	case j.base < l.snapSeq:
		// A compaction renamed its snapshot into place and stopped
		// before the journal: finish it, so that the journal's records
		// follow the snapshot's seq again.
		if err := l.rejournal(j.tailFrom); err != nil {
			return nil, err
		}
	}
	l.compactions = 0
	if o.Sync == SyncInterval || o.CompactAt > 0 {
		l.wake = make(chan struct{}, 1)
		l.stop = make(chan struct{})
		l.done = make(chan struct{})
		go l.run()
		l.maybeCompact()
	}
	ok = true
	return l, nil
}

// forget removes the directory from the table of open ones.
func (l *Log) forget() {
	open.Lock()
	delete(open.dirs, l.key)
	open.Unlock()
}

// Recovery returns what Open found and repaired.
func (l *Log) Recovery() Recovery { return l.recovery }

// removeTemps deletes the temporary files an interrupted compaction left.
func (l *Log) removeTemps() (int, error) {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return 0, fmt.Errorf("kgmem: open %s: %w", l.dir, err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, l.o.Name+".snapshot"+tempInfix) && !strings.HasPrefix(name, l.o.Name+".journal"+tempInfix) {
			continue
		}
		if err := os.Remove(filepath.Join(l.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("kgmem: open %s: remove leftover %s: %w", l.dir, name, err)
		}
		n++
	}
	return n, nil
}

// tempInfix joins a file's name and the random suffix of its temporary
// files.
const tempInfix = ".tmp-"

// loadSnapshot loads the snapshot into the machine, if there is one.
func (l *Log) loadSnapshot() (bool, error) {
	f, err := os.Open(l.spath)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("kgmem: open %s: %w", l.spath, err)
	}
	defer f.Close()
	cr := &countReader{r: f}
	seq, err := l.m.Load(cr)
	if err != nil {
		err = errmsg.Wrap("kgmem: snapshot "+l.spath, err)
		if !errors.Is(err, l.o.Errors.Corrupt) {
			err = fmt.Errorf("%w (%w)", err, l.o.Errors.Corrupt)
		}
		return false, err
	}
	l.snapSeq, l.seq, l.snapSize = seq, seq, cr.n
	l.recovery.SnapshotSeq = seq
	return true, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// header is the payload of a journal's first frame.
type header struct {
	Format  string  `json:"format"`
	Version int     `json:"version"`
	Kind    string  `json:"kind,omitempty"`
	Base    *uint64 `json:"base,omitempty"`
}

// headerFrame returns the framed header of a journal continuing the
// snapshot with seq base.
func (l *Log) headerFrame(base uint64) []byte {
	payload, _ := json.Marshal(header{Format: Format, Version: Version, Kind: l.o.Kind, Base: &base})
	return appendFrame(nil, payload)
}

// journalInfo is what replaying a journal found.
type journalInfo struct {
	version  int
	base     uint64 // the seq of the snapshot it continues
	tailFrom int64  // offset of the first record after the snapshot's seq, or the end
}

// openJournal opens the journal, creating it when neither it nor a
// snapshot exists, replays it into the machine and handles a bad final
// frame.
func (l *Log) openJournal(haveSnap bool) (journalInfo, error) {
	f, err := os.OpenFile(l.jpath, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if haveSnap {
			return journalInfo{}, l.corrupt(0, "missing, though snapshot %s exists: the writes made after that snapshot may be lost; restore the journal, or move the snapshot away to start anew", l.spath)
		}
		f, err = l.writeJournalTemp(0, nil)
		if err != nil {
			return journalInfo{}, err
		}
		if err := os.Rename(f.Name(), l.jpath); err != nil {
			f.Close()
			os.Remove(f.Name())
			return journalInfo{}, fmt.Errorf("kgmem: create journal %s: %w", l.jpath, err)
		}
		l.f, l.size = f, int64(len(l.headerFrame(0)))
		if err := syncDir(l.dir); err != nil {
			return journalInfo{}, fmt.Errorf("kgmem: create journal %s: sync directory: %w", l.jpath, err)
		}
		return journalInfo{version: Version, tailFrom: l.size}, nil
	}
	if err != nil {
		return journalInfo{}, fmt.Errorf("kgmem: open journal %s: %w", l.jpath, err)
	}
	l.f = f
	fi, err := f.Stat()
	if err != nil {
		return journalInfo{}, fmt.Errorf("kgmem: open journal %s: %w", l.jpath, err)
	}
	return l.replay(fi.Size(), haveSnap)
}

// replay applies the journal's records to the machine.
func (l *Log) replay(size int64, haveSnap bool) (journalInfo, error) {
	r := bufio.NewReaderSize(l.f, 1<<16)
	payload, err := readFrame(r, size)
	if err != nil {
		if err == errBadFrame || err == io.EOF {
			return journalInfo{}, l.corrupt(0, "no valid header frame (%d bytes)", size)
		}
		return journalInfo{}, fmt.Errorf("kgmem: read journal %s: %w", l.jpath, err)
	}
	var h header
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return journalInfo{}, l.corrupt(0, "header: %v", err)
	}
	switch {
	case h.Format != Format:
		return journalInfo{}, l.corrupt(0, "header: format %.40q, want %q", h.Format, Format)
	case h.Version == 1 && l.o.AcceptV1 && h.Kind == "" && h.Base == nil:
	case h.Version == 1:
		return journalInfo{}, l.corrupt(0, "header: version 1 journal, which only graphs had")
	case h.Version != Version:
		return journalInfo{}, l.corrupt(0, "header: unsupported version %d, want %d", h.Version, Version)
	case h.Kind != l.o.Kind:
		return journalInfo{}, l.corrupt(0, "header: a %.40q journal, want %q", h.Kind, l.o.Kind)
	case h.Base == nil:
		return journalInfo{}, l.corrupt(0, "header: no base")
	case *h.Base > 0 && !haveSnap:
		return journalInfo{}, l.corrupt(0, "continues the snapshot with seq %d, and snapshot %s is missing", *h.Base, l.spath)
	case *h.Base > l.snapSeq:
		return journalInfo{}, l.corrupt(0, "continues the snapshot with seq %d, and snapshot %s holds only seq %d: it is older than the journal", *h.Base, l.spath, l.snapSeq)
	}
	off := frameHeader + int64(len(payload))
	last := l.snapSeq // seq of the previous record, or what the first must follow
	if h.Base != nil {
		last = *h.Base
	}
	first := true
	tailFrom := int64(-1)
	for {
		payload, err := readFrame(r, size-off)
		if err == io.EOF {
			break
		}
		if err == errBadFrame {
			if err := l.badTail(off, size); err != nil {
				return journalInfo{}, err
			}
			break
		}
		if err != nil {
			return journalInfo{}, fmt.Errorf("kgmem: read journal %s at offset %d: %w", l.jpath, off, err)
		}
		seq, body, ok := splitRecord(payload)
		if !ok {
			return journalInfo{}, l.corrupt(off, "record does not begin with its seq")
		}
		switch {
		case h.Base == nil && first:
			// A version 1 journal says nothing of its base: its first
			// record must follow the snapshot, or the snapshot must hold it.
			if seq > l.snapSeq+1 {
				return journalInfo{}, l.corrupt(off, "record seq %d, want at most %d: records are missing after the snapshot's seq %d", seq, l.snapSeq+1, l.snapSeq)
			}
		case seq != last+1:
			return journalInfo{}, l.corrupt(off, "record seq %d follows seq %d", seq, last)
		}
		first = false
		if seq <= l.snapSeq {
			l.recovery.Skipped++
		} else {
			if tailFrom < 0 {
				tailFrom = off
			}
			if err := l.m.Replay(h.Version, body); err != nil {
				return journalInfo{}, l.corrupt(off, "record seq %d does not apply: %w", seq, err)
			}
			l.seq = seq
			l.recovery.Replayed++
		}
		last = seq
		off += frameHeader + int64(len(payload))
	}
	l.size = off
	if tailFrom < 0 {
		tailFrom = off
	}
	j := journalInfo{version: h.Version, tailFrom: tailFrom}
	if h.Base != nil {
		j.base = *h.Base
	}
	return j, nil
}

// splitRecord parses the {"seq":N, that begins every record and returns N
// and the rest as a JSON object of its own, sharing payload's bytes.
func splitRecord(payload []byte) (uint64, []byte, bool) {
	const prefix = `{"seq":`
	if !bytes.HasPrefix(payload, []byte(prefix)) {
		return 0, nil, false
	}
	rest := payload[len(prefix):]
	i := bytes.IndexByte(rest, ',')
	if i <= 0 || i > 20 || (rest[0] == '0' && i > 1) {
		return 0, nil, false
	}
	seq, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	body := rest[i:]
	body[0] = '{'
	return seq, body, true
}

// badTail handles a bad frame at off: a damaged record that a valid one
// follows is corruption; a torn append is cut off; a damaged final record
// is moved aside and cut off, or, under Strict, refused.
func (l *Log) badTail(off, size int64) error {
	rest := size - off
	if rest > frameHeader+MaxRecordSize {
		return l.corrupt(off, "bad record followed by %d bytes, more than one record", rest)
	}
	b := make([]byte, rest)
	if _, err := l.f.ReadAt(b, off); err != nil {
		return fmt.Errorf("kgmem: read journal %s at offset %d: %w", l.jpath, off, err)
	}
	for i := 1; i < len(b); i++ {
		if frameAt(b[i:]) {
			return l.corrupt(off, "damaged record followed by a valid one at offset %d", off+int64(i))
		}
	}
	torn := isTorn(b)
	if !torn {
		if l.o.Strict {
			return l.corrupt(off, "damaged final record (%d bytes whose checksum does not match); strict recovery refuses to open and leaves the file as it is", rest)
		}
		name, err := l.keepAside(off, b)
		if err != nil {
			return err
		}
		l.recovery.DamagedOffset, l.recovery.DamagedBytes, l.recovery.DamagedFile = off, rest, name
	} else {
		l.recovery.TornOffset, l.recovery.TornBytes = off, rest
	}
	if err := l.f.Truncate(off); err != nil {
		return fmt.Errorf("kgmem: journal %s: cut off the bad record at offset %d: %w", l.jpath, off, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("kgmem: journal %s: cut off the bad record at offset %d: sync: %w", l.jpath, off, err)
	}
	l.size = off
	return nil
}

// keepAside writes the damaged bytes b, found at off, to a new file beside
// the journal and syncs it, and returns its name.
func (l *Log) keepAside(off int64, b []byte) (string, error) {
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s.damaged-%d", l.jpath, off)
		if i > 0 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("kgmem: journal %s: keep damaged record: %w", l.jpath, err)
		}
		_, err = f.Write(b)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = syncDir(l.dir)
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("kgmem: journal %s: keep damaged record in %s: %w", l.jpath, name, err)
		}
		return name, nil
	}
}

// corrupt returns an error wrapping Errors.Corrupt about the journal at
// byte offset off.
func (l *Log) corrupt(off int64, format string, args ...any) error {
	return fmt.Errorf("kgmem: journal %s: offset %d: %w: %w", l.jpath, off, fmt.Errorf(format, args...), l.o.Errors.Corrupt)
}

// rejournal replaces the journal by one continuing the snapshot, holding
// the records from offset from on.
func (l *Log) rejournal(from int64) error {
	tail := make([]byte, l.size-from)
	if _, err := l.f.ReadAt(tail, from); err != nil {
		return fmt.Errorf("kgmem: read journal %s at offset %d: %w", l.jpath, from, err)
	}
	jf, err := l.writeJournalTemp(l.snapSeq, tail)
	if err != nil {
		return err
	}
	if err := os.Rename(jf.Name(), l.jpath); err != nil {
		jf.Close()
		os.Remove(jf.Name())
		return fmt.Errorf("kgmem: install journal %s: %w", l.jpath, err)
	}
	l.f.Close()
	l.f = jf
	l.size = int64(len(l.headerFrame(l.snapSeq)) + len(tail))
	if err := syncDir(l.dir); err != nil {
		return fmt.Errorf("kgmem: install journal %s: sync directory: %w", l.jpath, err)
	}
	return nil
}

// upgrade rewrites a journal of an older version, already replayed, as a
// snapshot and an empty journal of this version.
func (l *Log) upgrade() error {
	snap := l.m.Capture(func() uint64 { return l.seq })
	tmp, size, err := l.writeTemp(snap)
	if err != nil {
		return err
	}
	if _, err := l.install(tmp, size, l.seq, nil); err != nil {
		return fmt.Errorf("kgmem: upgrade journal %s: %w", l.jpath, err)
	}
	return nil
}

// Append writes record, which must encode as a JSON object with at least
// one member, as the journal's next record, {"seq":N,...its members...},
// and returns once it is written: synced under SyncAlways, handed to the
// operating system otherwise. The caller must call Append with its own
// writes excluded and apply the write only when Append returns nil. After
// an append or sync fails, every Append fails with an error wrapping
// Errors.Journal until a Compact or Rebase succeeds.
func (l *Log) Append(record any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	seq := l.seq + 1
	l.buf.Reset()
	var room [frameHeader]byte
	l.buf.Write(room[:])
	l.buf.WriteString(`{"seq":`)
	l.buf.WriteString(strconv.FormatUint(seq, 10))
	start := l.buf.Len()
	if err := l.enc.Encode(record); err != nil {
		l.shrink()
		return fmt.Errorf("kgmem: journal %s: encode record %d: %w", l.jpath, seq, err)
	}
	frame := bytes.TrimRight(l.buf.Bytes(), "\n")
	if len(frame)-start < 3 || frame[start] != '{' {
		l.shrink()
		return fmt.Errorf("kgmem: journal %s: record %d is not a JSON object with members: %w", l.jpath, seq, l.o.Errors.Invalid)
	}
	frame[start] = ','
	if n := len(frame) - frameHeader; n > MaxRecordSize {
		l.shrink()
		return fmt.Errorf("kgmem: journal %s: record of %d bytes is larger than the limit of %d: %w",
			l.jpath, n, MaxRecordSize, l.o.Errors.Invalid)
	}
	sealFrame(frame)
	n, err := l.f.Write(frame)
	l.shrink()
	if err != nil {
		l.failed = fmt.Errorf("kgmem: journal %s: append record %d at offset %d: %w: %w", l.jpath, seq, l.size, l.o.Errors.Journal, err)
		return l.failed
	}
	if l.o.Sync == SyncAlways {
		if err := l.f.Sync(); err != nil {
			l.failed = fmt.Errorf("kgmem: journal %s: sync record %d: %w: %w", l.jpath, seq, l.o.Errors.Journal, err)
			return l.failed
		}
		l.syncs.Add(1)
	} else {
		l.dirty.Store(true)
	}
	l.seq = seq
	l.size += int64(n)
	l.maybeCompact()
	return nil
}

// shrink drops a buffer that a large record grew.
func (l *Log) shrink() {
	if l.buf.Cap() > 1<<20 {
		l.buf = new(bytes.Buffer)
		l.enc = json.NewEncoder(l.buf)
		l.enc.SetEscapeHTML(false)
	}
}

// usable returns the error that refuses writes, if any; l.mu is held.
func (l *Log) usable() error {
	if l.closed {
		return fmt.Errorf("kgmem: journal %s: %w", l.jpath, l.o.Errors.Closed)
	}
	if l.failed == nil {
		l.statMu.Lock()
		l.failed = l.bgErr
		l.statMu.Unlock()
	}
	if l.failed != nil {
		return fmt.Errorf("%w (writes are refused since, until a Compact succeeds or the files are reopened)", l.failed)
	}
	return nil
}

// maybeCompact wakes the background goroutine when the journal has grown
// past the threshold and past the snapshot; l.mu is held, or it is Open.
func (l *Log) maybeCompact() {
	if l.wake == nil || l.o.CompactAt <= 0 || l.size <= l.o.CompactAt || l.size <= l.snapSize {
		return
	}
	l.statMu.Lock()
	due := l.size >= l.retryAt
	l.statMu.Unlock()
	if due {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// run syncs the journal every interval under SyncInterval and runs
// automatic compactions, until Close.
func (l *Log) run() {
	defer close(l.done)
	var tick <-chan time.Time
	if l.o.Sync == SyncInterval {
		t := time.NewTicker(l.o.Interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-l.stop:
			return
		case <-tick:
			l.syncNow()
		case <-l.wake:
			l.compact(true)
		}
	}
}

// syncNow syncs the journal if records were appended since the last sync.
func (l *Log) syncNow() {
	if !l.dirty.Swap(false) {
		return
	}
	l.syncMu.Lock()
	err := l.f.Sync()
	l.syncMu.Unlock()
	if err != nil {
		l.statMu.Lock()
		if l.bgErr == nil {
			l.bgErr = fmt.Errorf("kgmem: journal %s: background sync: %w: %w", l.jpath, l.o.Errors.Journal, err)
		}
		l.statMu.Unlock()
		return
	}
	l.syncs.Add(1)
}

func (l *Log) step(name string) {
	if l.o.OnStep != nil {
		l.o.OnStep(name)
	}
}

// Compact writes the machine's state as a new snapshot and starts a new
// journal holding only the records appended while it was written. Writes
// go on while the snapshot is written and wait only while the files are
// swapped. No crash at any point loses or repeats a record: the snapshot
// is renamed into place before the journal, and Open skips the records a
// snapshot holds.
func (l *Log) Compact() error { return l.compact(false) }

func (l *Log) compact(auto bool) (err error) {
	l.compactMu.Lock()
	defer l.compactMu.Unlock()
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return fmt.Errorf("kgmem: compact %s: %w", l.jpath, l.o.Errors.Closed)
	}
	var (
		seq    uint64
		from   int64
		gen    uint64
		marked bool
	)
	snap := l.m.Capture(func() uint64 {
		l.mu.Lock()
		seq, from, gen, marked = l.seq, l.size, l.gen, true
		l.mu.Unlock()
		return seq
	})
	if !marked {
		return fmt.Errorf("kgmem: compact %s: the state was copied without its seq", l.jpath)
	}
	if auto {
		defer func() {
			if err != nil {
				l.statMu.Lock()
				l.lastCompactErr, l.retryAt = err, from+l.o.CompactAt
				l.statMu.Unlock()
			}
		}()
	}
	tmp, size, err := l.writeTemp(snap)
	if err != nil {
		return fmt.Errorf("kgmem: compact: %w", err)
	}
	l.step("snapshot-written")
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		os.Remove(tmp)
		return fmt.Errorf("kgmem: compact %s: %w", l.jpath, l.o.Errors.Closed)
	}
	if l.gen != gen {
		// A Rebase replaced the state meanwhile with a newer snapshot.
		os.Remove(tmp)
		return nil
	}
	tail := make([]byte, l.size-from)
	if _, err := l.f.ReadAt(tail, from); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("kgmem: compact: read journal %s at offset %d: %w", l.jpath, from, err)
	}
	_, err = l.install(tmp, size, seq, tail)
	return err
}

// Rebase replaces the state on disk by snapshot(seq), written as the
// snapshot of the next seq with an empty journal, before it returns. The
// caller excludes its own writes and swaps its new state in only when
// Rebase returns nil. An error after the new snapshot is in place is not
// returned: the new state is on disk, and writes are refused (Stats.Failed)
// until a Compact succeeds.
func (l *Log) Rebase(snapshot func(seq uint64) Snapshot) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("kgmem: journal %s: %w", l.jpath, l.o.Errors.Closed)
	}
	seq := l.seq + 1
	tmp, size, err := l.writeTemp(snapshot(seq))
	if err != nil {
		return fmt.Errorf("kgmem: replace: %w", err)
	}
	installed, err := l.install(tmp, size, seq, nil)
	if !installed {
		return err
	}
	l.seq = seq
	l.gen++
	return nil
}

// writeTemp writes snap to a synced temporary file beside the snapshot and
// returns its name and size.
func (l *Log) writeTemp(snap Snapshot) (string, int64, error) {
	var size int64
	name, err := WriteTemp(l.spath, func(w io.Writer) error {
		var err error
		size, err = snap.WriteTo(w)
		return err
	})
	return name, size, err
}

// install puts the snapshot written to tmp in place, with a new journal
// holding tail, the records after the snapshot's seq; l.mu is held.
// installed reports whether the snapshot was renamed into place; an error
// after that leaves the Log refusing writes.
func (l *Log) install(tmp string, snapSize int64, snapSeq uint64, tail []byte) (installed bool, err error) {
	jf, err := l.writeJournalTemp(snapSeq, tail)
	if err != nil {
		os.Remove(tmp)
		return false, err
	}
	l.step("journal-written")
	if err := os.Rename(tmp, l.spath); err != nil {
		os.Remove(tmp)
		jf.Close()
		os.Remove(jf.Name())
		return false, fmt.Errorf("kgmem: install snapshot %s: %w", l.spath, err)
	}
	l.snapSeq, l.snapSize = snapSeq, snapSize
	fail := func(format string, err error) (bool, error) {
		l.failed = fmt.Errorf(format+": %w: %w", l.jpath, l.o.Errors.Journal, err)
		return true, l.failed
	}
	if err := syncDir(l.dir); err != nil {
		jf.Close()
		os.Remove(jf.Name())
		return fail("kgmem: install snapshot for %s: sync directory", err)
	}
	l.step("snapshot-renamed")
	if err := os.Rename(jf.Name(), l.jpath); err != nil {
		// The old journal stays and stays consistent with the new
		// snapshot, which holds all its records.
		jf.Close()
		os.Remove(jf.Name())
		return fail("kgmem: install journal %s", err)
	}
	l.syncMu.Lock()
	old := l.f
	l.f = jf
	l.syncMu.Unlock()
	old.Close()
	l.size = int64(len(l.headerFrame(snapSeq)) + len(tail))
	l.dirty.Store(false)
	if err := syncDir(l.dir); err != nil {
		return fail("kgmem: install journal %s: sync directory", err)
	}
	l.step("journal-renamed")
	l.failed = nil
	l.statMu.Lock()
	l.bgErr = nil
	l.compactions++
	l.lastCompactErr, l.retryAt = nil, 0
	l.statMu.Unlock()
	return true, nil
}

// writeJournalTemp writes a temporary journal holding the header (with
// base) and tail, syncs it, and returns it open for appending.
func (l *Log) writeJournalTemp(base uint64, tail []byte) (*os.File, error) {
	f, err := os.CreateTemp(l.dir, filepath.Base(l.jpath)+tempInfix+"*")
	if err != nil {
		return nil, fmt.Errorf("kgmem: create journal %s: %w", l.jpath, err)
	}
	b := append(l.headerFrame(base), tail...)
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("kgmem: create journal %s: %w", l.jpath, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("kgmem: create journal %s: sync: %w", l.jpath, err)
	}
	return f, nil
}

// Stats returns the state of the files. It works after Close too.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	s := Stats{
		Seq: l.seq, SnapshotSeq: l.snapSeq, JournalBytes: l.size, SnapshotBytes: l.snapSize,
		Syncs: l.syncs.Load(), Failed: l.failed,
	}
	l.mu.Unlock()
	l.statMu.Lock()
	s.Compactions, s.LastCompactError = l.compactions, l.lastCompactErr
	if s.Failed == nil {
		s.Failed = l.bgErr
	}
	l.statMu.Unlock()
	return s
}

// Close stops the background goroutine, waits for a compaction in
// progress, syncs and closes the journal and releases the directory. It
// returns an error wrapping Errors.Journal if that sync or an earlier
// write failed; the Log is closed all the same. A second Close returns an
// error wrapping Errors.Closed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return fmt.Errorf("kgmem: close %s: %w", l.jpath, l.o.Errors.Closed)
	}
	l.closing = true
	l.mu.Unlock()
	if l.stop != nil {
		close(l.stop)
		<-l.done
	}
	l.compactMu.Lock()
	defer l.compactMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	if err := l.usable(); err != nil {
		errs = append(errs, err)
	} else if err := l.f.Sync(); err != nil {
		errs = append(errs, fmt.Errorf("kgmem: close: sync journal %s: %w: %w", l.jpath, l.o.Errors.Journal, err))
	}
	l.closed = true
	l.syncMu.Lock()
	if err := l.f.Close(); err != nil {
		errs = append(errs, fmt.Errorf("kgmem: close %s: %w", l.jpath, err))
	}
	l.syncMu.Unlock()
	if err := unlockDir(l.lock); err != nil {
		errs = append(errs, fmt.Errorf("kgmem: close %s: release lock: %w", l.dir, err))
	}
	l.forget()
	return errors.Join(errs...)
}

// WriteTemp writes a new temporary file beside path through write, syncs
// and closes it, and returns its name; on error nothing is left behind.
// The file takes path's permissions when path exists.
func WriteTemp(path string, write func(io.Writer) error) (name string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, base+tempInfix+"*")
	if err != nil {
		return "", fmt.Errorf("kgmem: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if fi, err := os.Stat(path); err == nil {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			return "", fmt.Errorf("kgmem: write %s: %w", path, err)
		}
	}
	if err := write(f); err != nil {
		return "", fmt.Errorf("kgmem: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("kgmem: write %s: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("kgmem: write %s: %w", path, err)
	}
	return f.Name(), nil
}

// WriteFile writes the file at path atomically through write: a temporary
// file beside it, synced, renamed over path, and the directory synced. A
// crash leaves the old file or the new one, never a mix.
func WriteFile(path string, write func(io.Writer) error) error {
	tmp, err := WriteTemp(path, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("kgmem: write %s: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("kgmem: write %s: sync directory: %w", path, err)
	}
	return nil
}
