package pgraph

import (
	"context"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
)

// Limits and defaults of Memories.
const (
	// MaxScopeBytes is the longest scope name of Memories, in bytes: 76.
	// A scope's namespace is its prefix (at most MaxScopePrefixBytes) and
	// its name in base32, 8 characters per 5 bytes, which must fit in
	// MaxNamespaceBytes; kgmem.Memories allows longer names.
	MaxScopeBytes = (MaxNamespaceBytes - MaxScopePrefixBytes) * 5 / 8
	// MaxScopePrefixBytes is the longest prefix WithScopePrefix takes.
	MaxScopePrefixBytes = 6
	// DefaultScopePrefix starts the namespace of every scope of Memories
	// made without WithScopePrefix.
	DefaultScopePrefix = "scope:"
	// DefaultScopeConcurrency is how many scopes a cross-scope Retrieve
	// searches at once when WithScopeConcurrency gives no number.
	DefaultScopeConcurrency = kgmem.DefaultScopeConcurrency
)

// scopeEncoding maps a scope name's bytes to the end of its namespace:
// base32 (RFC 4648) in lower case without padding, as kgmem.Memories
// names directories.
var scopeEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// MemoriesOption configures OpenMemories.
type MemoriesOption interface {
	applyMemories(*memoriesConfig)
}

type memoriesOptionFunc func(*memoriesConfig)

func (f memoriesOptionFunc) applyMemories(c *memoriesConfig) { f(c) }

type memoriesConfig struct {
	prefix      string
	concurrency int
	timeout     time.Duration
	graph       []Option
	err         error
}

func (c *memoriesConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("pgraph: open memories: "+format+": %w", append(args, kgmem.ErrInvalidArgument)...)
	}
}

// WithScopePrefix sets the prefix of the scopes' namespaces: one to five
// bytes of a-z, 0-9 and '-', then ':' (DefaultScopePrefix, "scope:", when
// absent). Sets of memories with different prefixes share a database and
// never see each other's scopes: a scope's namespace ends in base32, which
// holds no ':', so a namespace belongs to at most one prefix.
func WithScopePrefix(prefix string) MemoriesOption {
	return memoriesOptionFunc(func(c *memoriesConfig) {
		if !validPrefix(prefix) {
			c.fail("WithScopePrefix(%s): not 1 to 5 bytes of a-z, 0-9 and '-' then ':'", quote.Value(prefix))
			return
		}
		c.prefix = prefix
	})
}

func validPrefix(p string) bool {
	if len(p) < 2 || len(p) > MaxScopePrefixBytes || p[len(p)-1] != ':' {
		return false
	}
	for _, b := range []byte(p[:len(p)-1]) {
		if !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-') {
			return false
		}
	}
	return true
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
// as OpenMemory takes them; a WithNamespace among them is overridden by
// the scope's namespace. Several WithMemoryOptions add up, in order.
func WithMemoryOptions(opts ...Option) MemoriesOption {
	opts = slices.Clone(opts)
	return memoriesOptionFunc(func(c *memoriesConfig) { c.graph = append(c.graph, opts...) })
}

// Memories is a set of memories in one PostgreSQL database, one per scope
// (a user, an agent, a knowledge base), as kgmem.Memories is on disk: each
// scope's memory is a Memory of its own namespace, so nothing written
// through one scope is visible through another, and Retrieve searches
// several together only when a call names them.
//
// # Scope names
//
// A scope name is any non-empty string of at most MaxScopeBytes bytes:
// any bytes, "..", "/", NUL and invalid UTF-8 included, compared as bytes
// (names that differ only in case or Unicode normalisation are different
// scopes). A scope's namespace is the prefix (see WithScopePrefix) and its
// name's bytes in base32 (RFC 4648) with the lower-case alphabet a-z, 2-7
// and no padding: "alice" is namespace "scope:mfwgsy3f". The mapping is
// one-to-one, so two scopes never share a namespace.
//
// # Which scopes exist
//
// A scope exists while its namespace has its row in kgmem_page_stats:
// Memory writes it, and so does every page write; Remove deletes it with
// every other row of the namespace. Store.Clear deletes it too: the scope
// then exists again at its next Memory call or page write.
//
// A *Memory handed out before Remove keeps reading and writing its
// namespace: what it writes after Remove is in the database again (a
// page write makes the scope exist again; Remove deletes it all).
//
// All methods are safe for concurrent use, and several processes may use
// the scopes of one database at once.
type Memories struct {
	pool *pgxpool.Pool
	cfg  memoriesConfig

	mu   sync.Mutex
	mems map[string]*pgScope // by scope name
}

// pgScope is a scope's Memory, once opened: ready is closed when mem or
// err is set.
type pgScope struct {
	ready chan struct{}
	mem   *Memory
	err   error
}

// OpenMemories migrates the schema (see Graph.Migrate) and returns the set
// of memories of pool's database. It opens no scope's memory: Memory does,
// on demand. Invalid options, including the memory options of
// WithMemoryOptions, return an error wrapping kgmem.ErrInvalidArgument.
func OpenMemories(ctx context.Context, pool *pgxpool.Pool, opts ...MemoriesOption) (*Memories, error) {
	c := memoriesConfig{prefix: DefaultScopePrefix, concurrency: DefaultScopeConcurrency}
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
	g, err := New(ctx, pool, c.graph...)
	if err != nil {
		return nil, err
	}
	if err := g.Migrate(ctx); err != nil {
		return nil, err
	}
	return &Memories{pool: pool, cfg: c, mems: make(map[string]*pgScope)}, nil
}

// checkScope returns an error wrapping kgmem.ErrInvalidArgument for a
// name that is not a scope name.
func checkScope(what, scope string) error {
	switch {
	case scope == "":
		return fmt.Errorf("pgraph: %s: empty scope: %w", what, kgmem.ErrInvalidArgument)
	case len(scope) > MaxScopeBytes:
		return fmt.Errorf("pgraph: %s: scope %s is %d bytes, more than MaxScopeBytes (%d): %w",
			what, quote.Value(scope), len(scope), MaxScopeBytes, kgmem.ErrInvalidArgument)
	}
	return nil
}

// Namespace returns the namespace of scope's memory, and an error wrapping
// kgmem.ErrInvalidArgument for a name that is not a scope name.
func (ms *Memories) Namespace(scope string) (string, error) {
	if err := checkScope("namespace", scope); err != nil {
		return "", err
	}
	return ms.namespace(scope), nil
}

func (ms *Memories) namespace(scope string) string {
	return ms.cfg.prefix + scopeEncoding.EncodeToString([]byte(scope))
}

// nsScope returns the scope whose namespace is ns, and false for a
// namespace that is no scope's.
func (ms *Memories) nsScope(ns string) (string, bool) {
	if len(ns) <= len(ms.cfg.prefix) || ns[:len(ms.cfg.prefix)] != ms.cfg.prefix {
		return "", false
	}
	enc := ns[len(ms.cfg.prefix):]
	b, err := scopeEncoding.DecodeString(enc)
	if err != nil || len(b) == 0 || len(b) > MaxScopeBytes || scopeEncoding.EncodeToString(b) != enc {
		return "", false
	}
	return string(b), true
}

// Memory returns scope's memory, creating the scope when it is new.
// Concurrent callers for one scope share one *Memory. It fails with
// kgmem.ErrInvalidArgument for a name that is not a scope name, ctx.Err()
// when ctx is done, and OpenMemory's errors.
//
// Cost: one statement for a scope this Memories has opened before; a
// migration check and one statement otherwise.
func (ms *Memories) Memory(ctx context.Context, scope string) (*Memory, error) {
	if err := checkScope("memory", scope); err != nil {
		return nil, err
	}
	m, err := ms.open(ctx, scope)
	if err != nil {
		return nil, err
	}
	ns := ms.namespace(scope)
	if _, err := ms.pool.Exec(ctx, "INSERT INTO "+pageStatsTable+" (namespace) VALUES ($1) ON CONFLICT (namespace) DO NOTHING", ns); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fail("memory: create scope "+quote.Value(scope), true, err)
	}
	return m, nil
}

// open returns scope's Memory, opening it once.
func (ms *Memories) open(ctx context.Context, scope string) (*Memory, error) {
	for {
		ms.mu.Lock()
		s := ms.mems[scope]
		if s == nil {
			s = &pgScope{ready: make(chan struct{})}
			ms.mems[scope] = s
			ms.mu.Unlock()
			opts := append(slices.Clip(ms.cfg.graph), WithNamespace(ms.namespace(scope)))
			s.mem, s.err = OpenMemory(ctx, ms.pool, opts...)
			if s.err != nil {
				ms.mu.Lock()
				delete(ms.mems, scope)
				ms.mu.Unlock()
			}
			close(s.ready)
			return s.mem, s.err
		}
		ms.mu.Unlock()
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if s.err == nil {
			return s.mem, nil
		}
		// The opening call failed, perhaps on its own context: try again.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// Scopes returns the names of the scopes that exist, sorted by their
// bytes; namespaces with the prefix that are no scope's are left out.
//
// Cost: O(namespaces with pages or a Memory call).
func (ms *Memories) Scopes(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := ms.pool.Query(ctx, "SELECT namespace FROM "+pageStatsTable+" WHERE starts_with(namespace, $1)", ms.cfg.prefix)
	if err != nil {
		return nil, ms.readFail(ctx, "scopes", err)
	}
	nss, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, ms.readFail(ctx, "scopes", err)
	}
	var out []string
	for _, ns := range nss {
		if s, ok := ms.nsScope(ns); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (ms *Memories) readFail(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return fail(op, false, err)
}

// removeTables are the tables Remove deletes a namespace's rows from, in
// order: deleting entities records removals, and trimming removals may
// write the feed.
var removeTables = []string{relationsTable, entitiesTable, removalsTable, feedTable, pageTermsTable, termDFsTable, vectorsTable, pagesTable, pageStatsTable, memSchemaTable}

// Remove deletes every row of scope's namespace, in one transaction: its
// entities, relations, pages, their index and the change feed's records.
// It fails with kgmem.ErrNotFound when the namespace has no row,
// kgmem.ErrInvalidArgument for a name that is not a scope name, and
// ctx.Err() when ctx is done. See Memories for a *Memory handed out
// before.
//
// Cost: O(the scope's rows).
func (ms *Memories) Remove(ctx context.Context, scope string) error {
	if err := checkScope("remove", scope); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ns := ms.namespace(scope)
	notFound := fmt.Errorf("pgraph: remove: scope %s: %w", quote.Value(scope), kgmem.ErrNotFound)
	err := pgx.BeginFunc(ctx, ms.pool, func(tx pgx.Tx) error {
		var n int64
		for _, t := range removeTables {
			tag, err := tx.Exec(ctx, "DELETE FROM "+t+" WHERE namespace = $1", ns)
			if err != nil {
				return err
			}
			n += tag.RowsAffected()
		}
		if n == 0 {
			return notFound
		}
		return nil
	})
	switch {
	case err == nil:
	case errors.Is(err, notFound):
		return notFound
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fail("remove scope "+quote.Value(scope), true, err)
	}
	ms.mu.Lock()
	if s := ms.mems[scope]; s != nil {
		select {
		case <-s.ready:
			delete(ms.mems, scope)
		default:
		}
	}
	ms.mu.Unlock()
	return nil
}

// Retrieve answers query over the named scopes together, as
// kgmem.Memories.Retrieve does: it runs each scope's retriever
// (Memory.Retriever) with opts, at most WithScopeConcurrency scopes at
// once, each within WithScopeTimeout, and merges their items with
// kgmem.MergeScopeResults: by Score, in an order that does not depend on
// the order scopes are named in, each item saying in Scope which scope it
// came from, a scope that failed or timed out a warning, and an error
// when every scope failed.
//
// It fails with kgmem.ErrInvalidArgument for no scopes, a name that is not
// a scope name, a scope named twice or a query that is not valid UTF-8;
// with kgmem.ErrNotFound, naming it, for a scope that does not exist
// (never an empty result); and with ctx.Err() when ctx is done.
func (ms *Memories) Retrieve(ctx context.Context, query string, scopes []string, opts ...kgmem.RetrieverOption) (kgmem.RetrievalResult, error) {
	begin := time.Now()
	if err := ctx.Err(); err != nil {
		return kgmem.RetrievalResult{}, err
	}
	if len(scopes) == 0 {
		return kgmem.RetrievalResult{}, fmt.Errorf("pgraph: retrieve: no scopes: %w", kgmem.ErrInvalidArgument)
	}
	names := slices.Clone(scopes)
	slices.Sort(names)
	for i, s := range names {
		if err := checkScope("retrieve", s); err != nil {
			return kgmem.RetrievalResult{}, err
		}
		if i > 0 && names[i-1] == s {
			return kgmem.RetrievalResult{}, fmt.Errorf("pgraph: retrieve: scope %s named twice: %w", quote.Value(s), kgmem.ErrInvalidArgument)
		}
	}
	if !utf8.ValidString(query) {
		return kgmem.RetrievalResult{}, fmt.Errorf("pgraph: retrieve: query %s is not valid UTF-8: %w", quote.Value(query), kgmem.ErrInvalidArgument)
	}
	nss := make([]string, len(names))
	for i, s := range names {
		nss[i] = ms.namespace(s)
	}
	rows, err := ms.pool.Query(ctx, "SELECT namespace FROM "+pageStatsTable+" WHERE namespace = ANY($1)", nss)
	if err != nil {
		return kgmem.RetrievalResult{}, ms.readFail(ctx, "retrieve: find scopes", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return kgmem.RetrievalResult{}, ms.readFail(ctx, "retrieve: find scopes", err)
	}
	for i, ns := range nss {
		if !slices.Contains(found, ns) {
			return kgmem.RetrievalResult{}, fmt.Errorf("pgraph: retrieve: scope %s: %w", quote.Value(names[i]), kgmem.ErrNotFound)
		}
	}

	results := make([]kgmem.ScopeResult, len(names))
	var g errgroup.Group
	g.SetLimit(ms.cfg.concurrency)
	for i, s := range names {
		g.Go(func() error {
			results[i] = ms.retrieveScope(ctx, s, query, opts)
			return nil
		})
	}
	_ = g.Wait() // scopes report through results, never through the group
	if err := ctx.Err(); err != nil {
		return kgmem.RetrievalResult{}, err
	}
	res, err := kgmem.MergeScopeResults(query, results, opts...)
	if err != nil {
		return kgmem.RetrievalResult{}, err
	}
	res.Stats.Total = time.Since(begin)
	return res, nil
}

// retrieveScope runs one scope's part of Retrieve.
func (ms *Memories) retrieveScope(ctx context.Context, scope, query string, opts []kgmem.RetrieverOption) kgmem.ScopeResult {
	sctx := ctx
	if ms.cfg.timeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, ms.cfg.timeout)
		defer cancel()
	}
	r := kgmem.ScopeResult{Scope: scope}
	m, err := ms.open(sctx, scope)
	if err == nil {
		r.Result, err = m.Retriever().Retrieve(sctx, query, opts...)
	}
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v: %w", ms.cfg.timeout, err)
		}
		r.Err = err
	}
	return r
}
