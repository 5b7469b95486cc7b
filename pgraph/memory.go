package pgraph

import (
	"context"
	"fmt"
	"hash/fnv"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
)

// Memory is an agent's memory in PostgreSQL: the Graph and the Store of
// one namespace and a kgmem.MemoryRetriever over both, as kgmem.Memory is
// in process. Several processes that open the memory of one namespace
// share it: every write is a PostgreSQL transaction, and Ingest writes a
// page and what was extracted from it in one, so a crash keeps all of an
// Ingest or none of it.
//
// All methods are safe for concurrent use. The zero value is not usable;
// call OpenMemory.
type Memory struct {
	graph     *Graph
	store     *Store
	retriever atomic.Pointer[kgmem.MemoryRetriever] // with the schema's vocabulary

	// schema is the namespace's schema as last read or written by this
	// memory, normalized; schemaMu serialises its replacements.
	schema   atomic.Pointer[kgmem.Schema]
	schemaMu sync.Mutex

	// ingestMu makes this memory's Ingest calls take turns, from the
	// planning to the commit; view is the graph they plan over, the
	// same value every time, with the page being ingested.
	ingestMu sync.Mutex
	view     *ingestView
}

// OpenMemory migrates the schema (see Graph.Migrate) and returns the
// memory of the namespace opts name (DefaultNamespace without
// WithNamespace). opts are New's; invalid ones return an error wrapping
// kgmem.ErrInvalidArgument. With WithEmbedder the store keeps vectors
// (see Vectors under Store; a namespace whose vectors are of another model
// returns an error wrapping kgmem.ErrEmbeddingModel), Ingest embeds the
// page before it takes any lock, and the retriever links by meaning with
// the same embedder (kgmem.WithLinkEmbedder at its default threshold)
// when a question names no entity, as
// kgmem.OpenMemory does. The retriever is built once, with the default
// kgmem.RetrieverConfig, over the store and the graph, as
// kgmem.Memory.Retriever is.
func OpenMemory(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Memory, error) {
	g, err := New(ctx, pool, opts...)
	if err != nil {
		return nil, err
	}
	if err := g.Migrate(ctx); err != nil {
		return nil, err
	}
	s, err := newStore(ctx, g, opts)
	if err != nil {
		return nil, err
	}
	m := &Memory{graph: g, store: s}
	m.view = &ingestView{Graph: g, m: m}
	stored, err := m.readSchema(ctx, pool)
	if err != nil {
		return nil, err
	}
	cfg := config{}
	for _, o := range opts {
		o.apply(&cfg) // New checked them
	}
	if cfg.schema != nil && !reflect.DeepEqual(*cfg.schema, stored) {
		if err := m.writeSchema(ctx, *cfg.schema); err != nil {
			return nil, err
		}
		stored = *cfg.schema
	}
	m.useSchema(stored)
	return m, nil
}

// Graph returns the memory's knowledge graph.
func (m *Memory) Graph() *Graph { return m.graph }

// Store returns the memory's knowledge pages.
func (m *Memory) Store() *Store { return m.store }

// Retriever returns the retriever over the memory's store and graph, with
// the default kgmem.RetrieverConfig and the Vocabulary of the memory's
// schema (see Schema): OpenMemory builds it, and SetSchema, or an Ingest
// or Schema call that finds the vocabulary changed by another process,
// builds a new one. For another configuration make one with
// kgmem.NewMemoryRetriever(m.Store(), cfg, kgmem.WithKnowledgeGraph(m.Graph())).
func (m *Memory) Retriever() *kgmem.MemoryRetriever { return m.retriever.Load() }

// Ingest stores page and writes what a model extracted from it into the
// graph, as kgmem.Ingest does with kgmem.WithSource(page.ID), in one
// PostgreSQL transaction: the page and every entity and relation are
// committed together, or none of them. page is checked as Store.Put checks
// it, before anything is read. The report and the other errors are
// kgmem.Ingest's; on an error nothing is written.
//
// The Ingest calls of every Memory of the namespace, in every process,
// take turns, from the first read of the plan to the commit, on a
// session-level advisory lock held on a connection of its own; so
// concurrent Ingests lose nothing of one another (an entity two pages
// state cites both). kgmem.Ingest called on the Graph directly does not
// take the lock. In one process, at most one less than the pool's
// connections hold such a lock at once, so Ingests into many namespaces
// over one pool never wait on each other's connections forever; a pool of
// one connection cannot Ingest (ErrInvalidArgument).
// A kgmem.WithSource among opts is overridden by page.ID (kgmem.Memory
// refuses one naming another page).
func (m *Memory) Ingest(ctx context.Context, page kgmem.KnowledgePage, x kgmem.Extraction, opts ...kgmem.IngestOption) (kgmem.IngestReport, error) {
	if err := ctx.Err(); err != nil {
		return kgmem.IngestReport{}, err
	}
	rows, err := preparePages([]kgmem.KnowledgePage{page})
	if err != nil {
		return kgmem.IngestReport{}, errmsg.Wrap("pgraph: ingest", err)
	}
	if err := m.store.embedRows(ctx, rows); err != nil {
		return kgmem.IngestReport{}, errmsg.Wrap("pgraph: ingest", err)
	}
	m.ingestMu.Lock()
	defer m.ingestMu.Unlock()
	unlock, err := m.lockIngest(ctx)
	if err != nil {
		return kgmem.IngestReport{}, err
	}
	defer unlock()
	schema, err := m.readSchema(ctx, m.graph.pool)
	if err != nil {
		return kgmem.IngestReport{}, err
	}
	m.useSchema(schema)
	m.view.page, m.view.wrote, m.view.singleValued = rows, false, schema.SingleValued
	defer func() { m.view.page, m.view.singleValued = nil, nil }()
	opts = append(opts[:len(opts):len(opts)], kgmem.WithSource(page.ID))
	rep, err := kgmem.Ingest(ctx, m.view, x, opts...)
	if err != nil || m.view.wrote {
		return rep, err
	}
	// The extraction wrote nothing to the graph: the page alone.
	if err := m.view.commit(ctx, nil, nil); err != nil {
		return kgmem.IngestReport{}, err
	}
	return rep, nil
}

// ingestLockKey returns the key of the session-level advisory lock that
// the Ingest calls of ns take turns on, across processes: FNV-1a of the
// namespace, under a prefix of its own. Two namespaces with one key only
// take turns needlessly.
func ingestLockKey(ns string) int64 {
	h := fnv.New64a()
	h.Write([]byte("kgmem ingest\x00" + ns))
	return int64(h.Sum64())
}

// lockIngest takes the namespace's ingest lock on a connection of its
// own, held until unlock; a process that dies releases it with its
// session.
func (m *Memory) lockIngest(ctx context.Context) (unlock func(), err error) {
	holders, err := lockHolders(m.graph.pool)
	if err != nil {
		return nil, err
	}
	select {
	case holders <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	conn, err := m.graph.pool.Acquire(ctx)
	if err != nil {
		<-holders
		return nil, fail("ingest: lock the namespace", false, err)
	}
	key := ingestLockKey(m.graph.ns)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		conn.Release()
		<-holders
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fail("ingest: lock the namespace", false, err)
	}
	return func() {
		ctx := context.WithoutCancel(ctx)
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key); err != nil {
			// Ending the session releases the lock.
			conn.Conn().Close(ctx) //nolint:errcheck // the connection is dropped either way
		}
		conn.Release()
		<-holders
	}, nil
}

// ingestHolders bounds, per pool, the Ingest calls that hold a connection
// for their namespace's lock to one less than the pool's connections, so
// that a holder always finds a connection for its reads and its commit:
// without the bound, as many concurrent Ingests into different namespaces
// as the pool has connections would each hold one and wait for another
// forever.
var ingestHolders sync.Map // *pgxpool.Pool → chan struct{}

// lockHolders returns pool's bound, or an error for a pool of one
// connection, on which an Ingest can never take its lock and write.
func lockHolders(pool *pgxpool.Pool) (chan struct{}, error) {
	if c, ok := ingestHolders.Load(pool); ok {
		return c.(chan struct{}), nil
	}
	n := int(pool.Config().MaxConns) - 1
	if n < 1 {
		return nil, fmt.Errorf("pgraph: ingest: the pool has %d connection, and Ingest needs at least 2: %w", pool.Config().MaxConns, kgmem.ErrInvalidArgument)
	}
	c, _ := ingestHolders.LoadOrStore(pool, make(chan struct{}, n))
	return c.(chan struct{}), nil
}

// ingestView is the graph a Memory's Ingest plans over: the memory's
// Graph, whose AddBatch also writes the page, in the same transaction.
type ingestView struct {
	*Graph
	m     *Memory
	page  []*pageRow // the page being ingested; under m.ingestMu
	wrote bool       // AddBatch ran; under m.ingestMu
	// singleValued are the single-valued types of the schema the Ingest
	// under way read; under m.ingestMu.
	singleValued []string

	// beforeBatch, when set, runs in the transaction between the page and
	// the batch (tests make it fail).
	beforeBatch func(ctx context.Context, tx pgx.Tx) error
}

// AddBatch writes the page being ingested and the batch in one
// transaction.
func (v *ingestView) AddBatch(ctx context.Context, entities []kgmem.Entity, relations []kgmem.Relation) error {
	v.wrote = true
	entRows, relRows, err := v.prepareBatch(entities, relations)
	if err != nil {
		return err
	}
	return v.commit(ctx, entRows, relRows)
}

// commit writes the page and the batch's rows in one transaction.
func (v *ingestView) commit(ctx context.Context, entRows, relRows [][]any) error {
	g := v.Graph
	return g.retry(ctx, func() error {
		err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
			if err := v.m.store.putPages(ctx, tx, v.page); err != nil {
				return err
			}
			if v.beforeBatch != nil {
				if err := v.beforeBatch(ctx, tx); err != nil {
					return err
				}
			}
			if len(entRows) == 0 && len(relRows) == 0 {
				return nil
			}
			return g.applyBatch(ctx, tx, entRows, relRows)
		})
		if err != nil && !retryable(err) && !isBatchError(err) {
			return fail(fmt.Sprintf("ingest page with %d entities and %d relations", len(entRows), len(relRows)), true, err)
		}
		return err
	})
}
