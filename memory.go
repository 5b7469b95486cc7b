package kgmem

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/wal"
)

// Memory is an agent's durable memory: a knowledge graph, the knowledge
// pages its entities and relations cite, and a retriever over both, kept
// in one directory under one lock and one journal (see Persistence in
// the package documentation). Every write to the graph or the store is
// journaled before it returns; Ingest writes a page and what was extracted
// from it as one journal record, so a crash keeps all of it or none.
//
// A Memory only composes: Graph, Store and Retriever are the ordinary
// types, and everything they offer works as documented, except that
// ReadFrom on the graph or the store is refused (a memory's snapshot holds
// both, and replacing one part alone is not supported): fill a new memory
// instead. All methods are safe for concurrent use.
type Memory struct {
	// Lock order: graph.mu before store.mu, always. A write that touches
	// both (Ingest) takes the graph's write lock, then the store's; a
	// snapshot takes both read locks in the same order; every other write
	// takes one of them alone.
	graph     *InMemoryGraph
	store     *InMemoryKnowledgeStore
	retriever atomic.Pointer[MemoryRetriever] // with the schema's vocabulary
	schema    atomic.Pointer[Schema]          // normalized; written under graph.mu
	durable
}

// OpenMemory opens the memory in dir, creating the directory and the
// memory when missing. opts are graph options (WithTagConstraints,
// WithPathBudget), store options (WithBM25, WithTitleBoost, WithEmbedder
// and the others) and durable ones (WithSync and the others). It fails
// with an error wrapping ErrLocked while another Open holds dir,
// ErrCorrupt when the files fail their checks (with ErrEmbeddingModel too
// when their vectors do not match WithEmbedder, as for OpenStore), and
// ErrInvalidArgument for an empty dir, a dir that is a file, or an invalid
// option. With an embedder, Ingest embeds the page before it takes the
// locks and journals its vector with it, and Retriever links by meaning
// with the same embedder (WithLinkEmbedder at its default threshold, 0.35) when a
// question names no entity.
//
// The memory keeps its Schema (single-valued relation types and
// vocabulary) in its files: a reopen without schema options finds the
// schema the memory was last given. WithSchema declares the whole schema
// and WithSingleValued its single-valued types (the vocabulary is kept);
// when what they declare differs from the stored schema, the declaration
// wins: OpenMemory replaces the stored schema, as SetSchema does, with one
// journal record, before it returns. A reopen with the same options writes
// nothing. WithSchema and WithSingleValued together are an invalid option.
//
// Cost: O(snapshot + journal) time.
func OpenMemory(dir string, opts ...DurableOption) (*Memory, error) {
	c, err := newDurableConfig("open memory", true, true, opts)
	if err != nil {
		return nil, err
	}
	m := &Memory{graph: NewInMemoryGraph(c.graph...), store: NewInMemoryKnowledgeStore(c.store...)}
	m.setSchema(Schema{})
	log, err := wal.Open(dir, memoryMachine{m}, c.walOptions("memory"))
	if err != nil {
		return nil, err
	}
	m.log = log
	journalParts(log, m.graph, m.store)
	if s, ok := c.declaredSchema(m.Schema()); ok {
		if err := m.SetSchema(context.Background(), s); err != nil {
			log.Close()
			return nil, err
		}
	}
	return m, nil
}

// Graph returns the memory's knowledge graph.
func (m *Memory) Graph() *InMemoryGraph { return m.graph }

// Store returns the memory's knowledge pages.
func (m *Memory) Store() *InMemoryKnowledgeStore { return m.store }

// Retriever returns a retriever over the memory's store and graph with the
// default RetrieverConfig and the Vocabulary of the memory's Schema. After
// SetSchema changes the vocabulary, Retriever returns a new retriever with
// it; one returned before keeps the vocabulary it had. For another
// configuration, make one with NewMemoryRetriever(m.Store(), cfg,
// WithKnowledgeGraph(m.Graph())), cfg.Vocabulary set to m.Schema().Vocabulary.
func (m *Memory) Retriever() *MemoryRetriever { return m.retriever.Load() }

// Ingest stores page and writes what a model extracted from it into the
// graph, as the package-level Ingest does with WithSource(page.ID), in one
// journal record: after a crash the page and all the entities and
// relations come back, or none of them. page is checked as Put checks it;
// a WithSource naming another page is an error wrapping
// ErrInvalidArgument. The report and the other errors are Ingest's.
func (m *Memory) Ingest(ctx context.Context, page KnowledgePage, x Extraction, opts ...IngestOption) (IngestReport, error) {
	if err := validatePage(page); err != nil {
		return IngestReport{}, withContext(err, "ingest")
	}
	// The page's vector depends on the page alone: embed it before Ingest
	// plans, so that the calls into this memory take turns only for the
	// planning and the write, not for the embedder.
	pm := &pageMutation{Op: opPutPage, Page: &page}
	if err := m.store.embed(ctx, []*pageMutation{pm}); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return IngestReport{}, ctxErr
		}
		return IngestReport{}, withContext(err, "ingest")
	}
	commit := func(ctx context.Context, ents []Entity, rels []Relation) error {
		return m.commitIngest(ctx, pm, ents, rels)
	}
	opts = append(opts[:len(opts):len(opts)], ingestOptionFunc(func(c *ingestConfig) {
		if c.sourceSet && c.source != page.ID {
			c.fail("ingest: WithSource(%s) names another page than %s", quote.Value(c.source), quote.Value(page.ID))
		}
		c.source, c.sourceSet, c.commit = page.ID, true, commit
	}))
	return Ingest(ctx, m.graph, x, opts...)
}

// ingestRecord is the journal record of Memory.Ingest.
type ingestRecord struct {
	Op        mutationOp     `json:"op"`
	Page      *KnowledgePage `json:"page"`
	Model     string         `json:"model,omitempty"`  // with an embedder: the model of Vector
	Vector    vector         `json:"vector,omitempty"` // with an embedder: the page's vector
	Entities  []Entity       `json:"entities,omitempty"`
	Relations []Relation     `json:"relations,omitempty"`
}

// commitIngest writes pm, the page embedded, and ents and rels as one
// write to both parts, recorded as one record.
func (m *Memory) commitIngest(ctx context.Context, pm *pageMutation, ents []Entity, rels []Relation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	gm := &mutation{Op: opAddBatch, Entities: ents, Relations: rels}
	return m.writeBoth(gm, pm, func() error { // after check, with gm's tags and weights normalised
		return m.log.Append(&ingestRecord{Op: opIngest, Page: pm.Page, Model: pm.Model, Vector: pm.Vector, Entities: gm.Entities, Relations: gm.Relations})
	})
}

// writeBoth performs gm and pm as one write composed of the graph's step
// and the store's (see step.go): both are checked before either lock is
// taken, then the store's commits inside the graph's, in the lock order,
// so that record (nil: nothing is recorded) runs under both locks after
// both resolved, and neither part changes unless it succeeds.
func (m *Memory) writeBoth(gm *mutation, pm *pageMutation, record func() error) error {
	if err := m.graph.check(gm); err != nil {
		return err
	}
	if err := m.store.check(pm); err != nil {
		return err
	}
	return m.graph.commitWrite(gm, func() error { return m.store.commitWrite(pm, record) })
}

// Close closes the graph, as InMemoryGraph.Close does, and the files, as
// DurableGraph.Close does; after it the store's Put and Delete fail with
// an error wrapping ErrClosed, and its reads go on.
func (m *Memory) Close() error {
	if err := m.graph.Close(); err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return m.log.Close()
}
