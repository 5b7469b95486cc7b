package kgmem

import (
	"container/list"
	"context"
	"encoding/base32"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/wal"
)

// Defaults and limits of Memories.
const (
	// MaxScopeBytes is the longest scope name, in bytes. Its directory
	// name (see Memories) is then at most 205 bytes, below the 255 that
	// common file systems allow.
	MaxScopeBytes = 128
	// defaultMaxOpenMemories is how many scopes' memories Memories keeps
	// open at once when WithMaxOpenMemories gives no number.
	defaultMaxOpenMemories = 64
	// DefaultScopeConcurrency is how many scopes a cross-scope Retrieve
	// searches at once when WithScopeConcurrency gives no number.
	DefaultScopeConcurrency = 8
)

// scopeEncoding maps a scope name's bytes to its directory name: base32
// (RFC 4648) in lower case without padding, so that the name holds only
// a-z and 2-7, never a separator, a dot or a byte the file system could
// fold, and two scopes never share a directory even where the file system
// ignores case.
var scopeEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// removingPrefix starts the name a scope's directory is renamed to while
// Remove deletes it; '-' is outside scopeEncoding's alphabet, so no scope
// has such a name.
const removingPrefix = "removing-"

// MemoriesOption configures OpenMemories.
type MemoriesOption interface {
	applyMemories(*memoriesConfig)
}

type memoriesOptionFunc func(*memoriesConfig)

func (f memoriesOptionFunc) applyMemories(c *memoriesConfig) { f(c) }

type memoriesConfig struct {
	maxOpen     int
	concurrency int
	timeout     time.Duration
	memory      []DurableOption
	err         error
}

func (c *memoriesConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("kgmem: open memories: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
}

// WithMaxOpenMemories sets how many scopes' memories are open at once, at
// least 1; the default is 64. When another must open,
// the least recently used idle one is closed first (see Memories).
func WithMaxOpenMemories(n int) MemoriesOption {
	return memoriesOptionFunc(func(c *memoriesConfig) {
		if n < 1 {
			c.fail("WithMaxOpenMemories(%d): must be at least 1", n)
			return
		}
		c.maxOpen = n
	})
}

// WithScopeConcurrency sets how many scopes a cross-scope Retrieve
// searches at once, at least 1; the default is DefaultScopeConcurrency.
func WithScopeConcurrency(n int) MemoriesOption {
	return memoriesOptionFunc(func(c *memoriesConfig) {
		if n < 1 {
			c.fail("WithScopeConcurrency(%d): must be at least 1", n)
			return
		}
		c.concurrency = n
	})
}

// WithScopeTimeout bounds each scope's part of a cross-scope Retrieve; a
// scope that runs over becomes a warning. 0, the default, means no bound
// beyond the caller's context; a negative d is invalid.
func WithScopeTimeout(d time.Duration) MemoriesOption {
	return memoriesOptionFunc(func(c *memoriesConfig) {
		if d < 0 {
			c.fail("WithScopeTimeout(%v): negative", d)
			return
		}
		c.timeout = d
	})
}

// WithMemoryOptions sets the options every scope's memory is opened with,
// as OpenMemory takes them (WithEmbedder, WithSync and the others).
// Several WithMemoryOptions add up, in order.
func WithMemoryOptions(opts ...DurableOption) MemoriesOption {
	opts = slices.Clone(opts)
	return memoriesOptionFunc(func(c *memoriesConfig) { c.memory = append(c.memory, opts...) })
}

// Memories is a set of durable memories under one directory, one per
// scope: a user, an agent, a knowledge base. Each scope's memory is a
// Memory of its own, with its own graph, pages, journal and lock, in its
// own directory; nothing written through one scope is visible through
// another, and Retrieve searches several together only when a call names
// them.
//
// # Scope names
//
// A scope name is any non-empty string of at most MaxScopeBytes bytes:
// any bytes, "..", "/", NUL and invalid UTF-8 included. Names are compared
// as bytes, so names that differ only in case or in Unicode normalisation
// ("é" and "e\u0301") are different scopes. A scope's directory under dir
// is its name's bytes in base32 (RFC 4648) with the lower-case alphabet
// a-z, 2-7 and no padding: "alice" is in dir/mfwgsy3f. The mapping is
// reversible and one-to-one, a directory name never holds a separator or
// a dot, so a scope cannot reach outside dir nor share another's
// directory, even on a file system that ignores case. Other names in dir
// are not scopes and are left alone, except those starting with
// "removing-", which are what an interrupted Remove left and are deleted.
//
// # Open memories and leases
//
// At most WithMaxOpenMemories memories (64 by default) are
// open at once; the others cost only their files. Memory opens a scope's
// memory, or shares the open one, and takes a lease on it that lasts until
// the release function it returns is called; while any lease is held, the
// memory stays open. A memory without leases is idle: when another scope
// must open and the limit is reached, the least recently used idle memory
// is closed, and the next Memory for its scope opens it again, O(its
// snapshot + journal). Closing an idle memory (and Close) compacts it
// first when its journal is over 64 KiB and larger than its snapshot, so
// that reopening it reads a snapshot instead of replaying every write. When every open memory is leased, a new one opens
// anyway and the limit is exceeded until leases are released, so a caller
// that holds many leases never waits for itself. Remove and Close close a
// memory whatever its leases: a *Memory obtained before then fails with
// ErrClosed (see Memory.Close for what still reads).
//
// Do not call Close on a *Memory that Memories handed out; release it.
//
// # Concurrency
//
// All methods are safe for concurrent use. The directory is locked while
// Memories is open, as each scope's directory is: a second OpenMemories
// of dir, in this process or another, fails with ErrLocked.
type Memories struct {
	dir  string
	cfg  memoriesConfig
	lock *os.File // the lock on dir, until Close

	mu sync.Mutex // guards the fields below
	// scopes holds a slot for every scope that is open, opening, closing
	// or being removed. A slot with busy set is in one of the last three
	// states: callers wait for busy to be closed, then look again.
	scopes map[string]*scopeSlot
	// idle holds the open slots without leases, the most recently used
	// first; a slot is in idle exactly when mem != nil, busy == nil and
	// refs == 0.
	idle list.List
	// open counts the slots that hold or are opening a memory and are not
	// being closed.
	open    int
	closed  bool
	lateErr error // errors closing idle memories, returned by Close
}

// scopeSlot is one scope's state in Memories.
type scopeSlot struct {
	name string
	mem  *Memory
	refs int           // leases held
	elem *list.Element // in Memories.idle, or nil
	busy chan struct{} // closed when an open, close or remove finishes
}

// OpenMemories opens the set of memories in dir, creating the directory
// when missing. It opens no scope's memory: Memory does, on demand. It
// fails with an error wrapping ErrLocked while another OpenMemories holds
// dir, and ErrInvalidArgument for an empty dir, a dir that is a file, or
// an invalid option (the memory options of WithMemoryOptions are checked
// here, as OpenMemory checks them).
//
// Cost: O(entries in dir), to delete what an interrupted Remove left.
func OpenMemories(dir string, opts ...MemoriesOption) (*Memories, error) {
	c := memoriesConfig{maxOpen: defaultMaxOpenMemories, concurrency: DefaultScopeConcurrency}
	for _, o := range opts {
		if o == nil {
			c.fail("nil option")
			continue
		}
		o.applyMemories(&c)
	}
	if c.err != nil {
		return nil, c.err
	}
	if _, err := newDurableConfig("open memories", true, true, c.memory); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("kgmem: open memories: empty dir: %w", ErrInvalidArgument)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("kgmem: open memories: %s is not a directory: %w", quote.Value(dir), ErrInvalidArgument)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("kgmem: open memories: %w", err)
	}
	lock, err := wal.LockDir(dir)
	if err != nil {
		if wal.IsHeld(err) {
			return nil, fmt.Errorf("kgmem: open memories %s: %w", quote.Value(dir), ErrLocked)
		}
		return nil, fmt.Errorf("kgmem: open memories: %w", err)
	}
	ms := &Memories{dir: dir, cfg: c, lock: lock, scopes: make(map[string]*scopeSlot)}
	if err := ms.sweep(); err != nil {
		_ = wal.UnlockDir(lock)
		return nil, err
	}
	return ms, nil
}

// sweep deletes the directories an interrupted Remove left.
func (ms *Memories) sweep() error {
	ents, err := os.ReadDir(ms.dir)
	if err != nil {
		return fmt.Errorf("kgmem: open memories: %w", err)
	}
	swept := false
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), removingPrefix) {
			if err := os.RemoveAll(filepath.Join(ms.dir, e.Name())); err != nil {
				return fmt.Errorf("kgmem: open memories: %w", err)
			}
			swept = true
		}
	}
	if swept {
		if err := wal.SyncDir(ms.dir); err != nil {
			return fmt.Errorf("kgmem: open memories: %w", err)
		}
	}
	return nil
}

// checkScope returns an error wrapping ErrInvalidArgument for a name that
// is not a scope name.
func checkScope(what, scope string) error {
	switch {
	case scope == "":
		return fmt.Errorf("kgmem: %s: empty scope: %w", what, ErrInvalidArgument)
	case len(scope) > MaxScopeBytes:
		return fmt.Errorf("kgmem: %s: scope %s is %d bytes, more than MaxScopeBytes (%d): %w", what, quote.Value(scope), len(scope), MaxScopeBytes, ErrInvalidArgument)
	}
	return nil
}

// scopeDir returns the directory name of scope (see Memories).
func scopeDir(scope string) string { return scopeEncoding.EncodeToString([]byte(scope)) }

// dirScope returns the scope whose directory name is name, and false for
// a name that is no scope's.
func dirScope(name string) (string, bool) {
	b, err := scopeEncoding.DecodeString(name)
	if err != nil || len(b) == 0 || len(b) > MaxScopeBytes || scopeEncoding.EncodeToString(b) != name {
		return "", false
	}
	return string(b), true
}

// Memory returns scope's memory, opening it, and creating it when the
// scope is new, and a function that releases the lease Memory took on it
// (see Memories): call it once done with the memory; calling it again does
// nothing. Concurrent callers for one scope share one *Memory. It fails
// with ErrInvalidArgument for a name that is not a scope name, ErrClosed
// after Close, ctx.Err() when ctx is done while it waits for another call
// opening or closing the scope, and OpenMemory's errors (ErrCorrupt, …).
//
// Cost: O(1) for an open scope; O(snapshot + journal) to open one.
func (ms *Memories) Memory(ctx context.Context, scope string) (*Memory, func(), error) {
	if err := checkScope("memory", scope); err != nil {
		return nil, nil, err
	}
	s, err := ms.acquire(ctx, "memory", scope, true)
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return s.mem, func() { once.Do(func() { ms.release(s) }) }, nil
}

// errMemoriesClosed is returned by every method after Close.
var errMemoriesClosed = fmt.Errorf("kgmem: memories: %w", ErrClosed)

// acquire returns scope's slot with one more lease, opening the memory if
// needed; without create, a scope with no directory is ErrNotFound.
func (ms *Memories) acquire(ctx context.Context, what, scope string, create bool) (*scopeSlot, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ms.mu.Lock()
		if ms.closed {
			ms.mu.Unlock()
			return nil, errMemoriesClosed
		}
		s := ms.scopes[scope]
		if s != nil && s.busy != nil {
			busy := s.busy
			ms.mu.Unlock()
			select {
			case <-busy:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		if s != nil {
			if s.refs == 0 {
				ms.idle.Remove(s.elem)
				s.elem = nil
			}
			s.refs++
			ms.mu.Unlock()
			return s, nil
		}
		s = &scopeSlot{name: scope, busy: make(chan struct{})}
		ms.scopes[scope] = s
		ms.open++
		victims := ms.evictLocked()
		ms.mu.Unlock()
		ms.closeVictims(victims)

		mem, err := ms.openScope(what, scope, create)
		ms.mu.Lock()
		if err == nil && ms.closed {
			ms.mu.Unlock()
			_ = mem.Close()
			ms.mu.Lock()
			err = errMemoriesClosed
		}
		if err != nil {
			delete(ms.scopes, scope)
			ms.open--
			close(s.busy)
			s.busy = nil
			ms.mu.Unlock()
			return nil, err
		}
		s.mem, s.refs = mem, 1
		close(s.busy)
		s.busy = nil
		ms.mu.Unlock()
		return s, nil
	}
}

// openScope opens scope's memory.
func (ms *Memories) openScope(what, scope string, create bool) (*Memory, error) {
	path := filepath.Join(ms.dir, scopeDir(scope))
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.IsDir():
		return nil, fmt.Errorf("kgmem: %s: scope %s: %s is not a directory: %w", what, quote.Value(scope), quote.Value(path), ErrInvalidArgument)
	case errors.Is(err, os.ErrNotExist) && !create:
		return nil, fmt.Errorf("kgmem: %s: scope %s: %w", what, quote.Value(scope), ErrNotFound)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("kgmem: %s: scope %s: %w", what, quote.Value(scope), err)
	}
	mem, oerr := OpenMemory(path, ms.cfg.memory...)
	if oerr != nil {
		return nil, errmsgScope(scope, oerr)
	}
	if err != nil { // created: make its directory entry durable
		if serr := wal.SyncDir(ms.dir); serr != nil {
			_ = mem.Close()
			return nil, fmt.Errorf("kgmem: %s: scope %s: %w", what, quote.Value(scope), serr)
		}
	}
	return mem, nil
}

// errmsgScope names the scope in an error of OpenMemory.
func errmsgScope(scope string, err error) error {
	return errmsg.Wrap("kgmem: scope "+quote.Value(scope), err)
}

// release gives back a lease taken by acquire.
func (ms *Memories) release(s *scopeSlot) {
	ms.mu.Lock()
	s.refs--
	if s.refs == 0 && s.mem != nil && s.busy == nil && ms.scopes[s.name] == s {
		s.elem = ms.idle.PushFront(s)
	}
	victims := ms.evictLocked()
	ms.mu.Unlock()
	ms.closeVictims(victims)
}

// evictLocked marks for closing the least recently used idle slots while
// more than the limit are open, and returns them. ms.mu is held.
func (ms *Memories) evictLocked() []*scopeSlot {
	var victims []*scopeSlot
	for ms.open > ms.cfg.maxOpen && ms.idle.Len() > 0 {
		s := ms.idle.Remove(ms.idle.Back()).(*scopeSlot)
		s.elem = nil
		s.busy = make(chan struct{})
		ms.open--
		victims = append(victims, s)
	}
	return victims
}

// compactAtClose is the journal size from which closing a memory compacts
// it first, when the journal is also larger than the snapshot.
const compactAtClose = 64 << 10

// closeMemory closes a memory that Memories opened. A journal larger than
// compactAtClose and than the snapshot is compacted first, so that
// reopening the memory reads a snapshot rather than replays its writes;
// a failed compaction loses nothing and is not an error.
func closeMemory(m *Memory) error {
	if st := m.JournalStats(); st.Failed == nil && st.JournalBytes > compactAtClose && st.JournalBytes > st.SnapshotBytes {
		_ = m.Compact()
	}
	return m.Close()
}

// closeVictims closes the memories evictLocked chose and drops their slots.
func (ms *Memories) closeVictims(victims []*scopeSlot) {
	for _, s := range victims {
		err := closeMemory(s.mem)
		ms.mu.Lock()
		if err != nil && !errors.Is(err, ErrClosed) {
			ms.lateErr = errors.Join(ms.lateErr, errmsgScope(s.name, err))
		}
		delete(ms.scopes, s.name)
		s.mem = nil
		close(s.busy)
		s.busy = nil
		ms.mu.Unlock()
	}
}

// Scopes returns the names of the scopes in dir, sorted by their bytes. It
// fails with ErrClosed after Close, and ctx.Err() when ctx is done.
//
// Cost: O(entries in dir).
func (ms *Memories) Scopes(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ms.mu.Lock()
	closed := ms.closed
	ms.mu.Unlock()
	if closed {
		return nil, errMemoriesClosed
	}
	ents, err := os.ReadDir(ms.dir)
	if err != nil {
		return nil, fmt.Errorf("kgmem: scopes: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if s, ok := dirScope(e.Name()); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Remove deletes scope: it closes its memory, whatever leases are held
// (a *Memory obtained before then fails with ErrClosed), and deletes its
// directory durably: the directory is renamed aside, the rename synced,
// then its files deleted, so after a crash the scope is either whole or
// gone (OpenMemories finishes an interrupted deletion). It fails with
// ErrNotFound for a scope that does not exist, ErrInvalidArgument for a
// name that is not a scope name, ErrClosed after Close, and ctx.Err()
// when ctx is done while it waits for another call opening or closing
// the scope.
//
// Cost: O(the scope's files).
func (ms *Memories) Remove(ctx context.Context, scope string) error {
	if err := checkScope("remove", scope); err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ms.mu.Lock()
		if ms.closed {
			ms.mu.Unlock()
			return errMemoriesClosed
		}
		s := ms.scopes[scope]
		if s != nil && s.busy != nil {
			busy := s.busy
			ms.mu.Unlock()
			select {
			case <-busy:
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		var mem *Memory
		if s != nil {
			mem = s.mem
			if s.elem != nil {
				ms.idle.Remove(s.elem)
				s.elem = nil
			}
			ms.open--
		} else {
			s = &scopeSlot{name: scope}
			ms.scopes[scope] = s
		}
		s.busy = make(chan struct{})
		ms.mu.Unlock()

		if mem != nil {
			_ = mem.Close() // the scope goes whatever its journal said last
		}
		err := ms.removeDir(scope)
		ms.mu.Lock()
		delete(ms.scopes, scope)
		s.mem = nil
		close(s.busy)
		s.busy = nil
		ms.mu.Unlock()
		return err
	}
}

// removeDir deletes scope's directory durably.
func (ms *Memories) removeDir(scope string) error {
	name := scopeDir(scope)
	path := filepath.Join(ms.dir, name)
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return fmt.Errorf("kgmem: remove: scope %s: %w", quote.Value(scope), ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("kgmem: remove: scope %s: %w", quote.Value(scope), err)
	}
	aside := filepath.Join(ms.dir, removingPrefix+name)
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("kgmem: remove: scope %s: %w", quote.Value(scope), err)
	}
	if err := os.Rename(path, aside); err != nil {
		return fmt.Errorf("kgmem: remove: scope %s: %w", quote.Value(scope), err)
	}
	if err := wal.SyncDir(ms.dir); err != nil {
		return fmt.Errorf("kgmem: remove: scope %s: %w", quote.Value(scope), err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("kgmem: remove: scope %s: %w", quote.Value(scope), err)
	}
	if err := wal.SyncDir(ms.dir); err != nil {
		return fmt.Errorf("kgmem: remove: scope %s: %w", quote.Value(scope), err)
	}
	return nil
}

// NumOpen returns how many scopes' memories are open now (leased or idle).
func (ms *Memories) NumOpen() int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	n := 0
	for _, s := range ms.scopes {
		if s.mem != nil {
			n++
		}
	}
	return n
}

// Close closes every open memory, whatever leases are held (a *Memory
// obtained before then fails with ErrClosed), waiting for the calls that
// are opening or removing a scope, and releases the lock on dir. It
// returns the errors of closing the memories, including those closed
// earlier because they were idle; a second Close returns ErrClosed.
func (ms *Memories) Close() error {
	ms.mu.Lock()
	if ms.closed {
		ms.mu.Unlock()
		return errMemoriesClosed
	}
	ms.closed = true
	for {
		var busy chan struct{}
		for _, s := range ms.scopes {
			if s.busy != nil {
				busy = s.busy
				break
			}
		}
		if busy == nil {
			break
		}
		ms.mu.Unlock()
		<-busy
		ms.mu.Lock()
	}
	var mems []*scopeSlot
	for _, s := range ms.scopes {
		mems = append(mems, s)
	}
	clear(ms.scopes)
	ms.idle.Init()
	ms.open = 0
	err := ms.lateErr
	ms.mu.Unlock()
	slices.SortFunc(mems, func(a, b *scopeSlot) int { return strings.Compare(a.name, b.name) })
	for _, s := range mems {
		if cerr := closeMemory(s.mem); cerr != nil && !errors.Is(cerr, ErrClosed) {
			err = errors.Join(err, errmsgScope(s.name, cerr))
		}
		s.mem = nil
	}
	if uerr := wal.UnlockDir(ms.lock); uerr != nil {
		err = errors.Join(err, fmt.Errorf("kgmem: close memories: %w", uerr))
	}
	return err
}

// scopeAnswer is one scope's part of a cross-scope Retrieve.
type scopeAnswer struct {
	res RetrievalResult
	err error
}

// Retrieve answers query over the named scopes together: it runs each
// scope's retriever (Memory.Retriever) with opts, at most
// WithScopeConcurrency scopes at once, each within WithScopeTimeout, and
// merges their items into one list of at most MaxResults (10, or
// WithMaxResults) by Score, best first; items of equal score are in the
// order of their scopes' names (as bytes), then in their scope's order,
// so the list does not depend on the order scopes are named in. Each item
// says in Scope which scope it came from; a page two scopes hold is an
// item of each, since scopes share nothing. With MMR, each scope's items
// are picked by MMR before the merge, which is by Score.
//
// A scope that fails or runs over its timeout while another answers
// becomes a Warning naming it, with its error in Errors; a scope's own
// warnings are kept, each prefixed with the scope's name. When every scope
// fails, Retrieve returns an error joining theirs. Stats add up the
// scopes' counts; durations are the longest scope's, and Total the whole
// call's. Strategy is the one that ran in the first scope that answered.
//
// It fails with ErrInvalidArgument for no scopes, a name that is not a
// scope name, a scope named twice, a query that is not valid UTF-8 or an
// invalid option; with ErrNotFound, naming it, for a scope that does not
// exist (never an empty result); with ErrClosed after Close; and with
// ctx.Err() when ctx is done. A scope's timeout does not interrupt opening
// its memory from disk, O(snapshot + journal); it bounds the rest.
func (ms *Memories) Retrieve(ctx context.Context, query string, scopes []string, opts ...RetrieverOption) (RetrievalResult, error) {
	begin := time.Now()
	if err := ctx.Err(); err != nil {
		return RetrievalResult{}, err
	}
	if len(scopes) == 0 {
		return RetrievalResult{}, fmt.Errorf("kgmem: retrieve: no scopes: %w", ErrInvalidArgument)
	}
	names := slices.Clone(scopes)
	slices.Sort(names)
	for i, s := range names {
		if err := checkScope("retrieve", s); err != nil {
			return RetrievalResult{}, err
		}
		if i > 0 && names[i-1] == s {
			return RetrievalResult{}, fmt.Errorf("kgmem: retrieve: scope %s named twice: %w", quote.Value(s), ErrInvalidArgument)
		}
	}
	if !utf8.ValidString(query) {
		return RetrievalResult{}, fmt.Errorf("kgmem: retrieve: query %s is not valid UTF-8: %w", quote.Value(query), ErrInvalidArgument)
	}
	if len(opts) > 0 {
		if _, err := (&MemoryRetriever{}).forCall(opts); err != nil {
			return RetrievalResult{}, err
		}
	}
	ms.mu.Lock()
	closed := ms.closed
	ms.mu.Unlock()
	if closed {
		return RetrievalResult{}, errMemoriesClosed
	}
	for _, s := range names {
		if !ms.exists(s) {
			return RetrievalResult{}, fmt.Errorf("kgmem: retrieve: scope %s: %w", quote.Value(s), ErrNotFound)
		}
	}

	answers := make([]scopeAnswer, len(names))
	var g errgroup.Group
	g.SetLimit(ms.cfg.concurrency)
	for i, s := range names {
		g.Go(func() error {
			answers[i] = ms.retrieveScope(ctx, s, query, opts)
			return nil
		})
	}
	_ = g.Wait() // scopes report through answers, never through the group
	if err := ctx.Err(); err != nil {
		return RetrievalResult{}, err
	}

	results := make([]ScopeResult, len(answers))
	for i, a := range answers {
		results[i] = ScopeResult{Scope: names[i], Result: a.res, Err: a.err}
	}
	res, err := MergeScopeResults(query, results, opts...)
	if err != nil {
		return RetrievalResult{}, err
	}
	res.Stats.Total = time.Since(begin)
	return res, nil
}

// exists reports whether scope is open or has a directory.
func (ms *Memories) exists(scope string) bool {
	ms.mu.Lock()
	s := ms.scopes[scope]
	open := s != nil && s.mem != nil && s.busy == nil
	ms.mu.Unlock()
	if open {
		return true
	}
	fi, err := os.Lstat(filepath.Join(ms.dir, scopeDir(scope)))
	return err == nil && fi.IsDir()
}

// retrieveScope runs one scope's part of Retrieve.
func (ms *Memories) retrieveScope(ctx context.Context, scope, query string, opts []RetrieverOption) scopeAnswer {
	sctx := ctx
	if ms.cfg.timeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, ms.cfg.timeout)
		defer cancel()
	}
	s, err := ms.acquire(sctx, "retrieve", scope, false)
	if err != nil {
		return scopeAnswer{err: ms.timedOut(ctx, err)}
	}
	defer ms.release(s)
	res, err := s.mem.Retriever().retrieve(sctx, query, opts, true)
	if err != nil {
		return scopeAnswer{err: ms.timedOut(ctx, err)}
	}
	return scopeAnswer{res: res}
}

// timedOut names the scope timeout in err when it, not ctx, ended the call.
func (ms *Memories) timedOut(ctx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v: %w", ms.cfg.timeout, err)
	}
	return err
}

// addStats adds one scope's stats into the merged ones.
func addStats(to *RetrievalStats, s RetrievalStats) {
	add := func(to *ChannelStats, s ChannelStats) {
		to.Duration = max(to.Duration, s.Duration)
		to.Candidates += s.Candidates
		to.Sources += s.Sources
		to.Failed += s.Failed
	}
	add(&to.Content, s.Content)
	add(&to.Graph, s.Graph)
	to.Linked += s.Linked
	to.Surfaced += s.Surfaced
	to.LinkedByMeaning += s.LinkedByMeaning
	to.Seeded += s.Seeded
	to.Seed = max(to.Seed, s.Seed)
	to.Reranked += s.Reranked
}
