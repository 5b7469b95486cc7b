package kgmem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync/atomic"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/wal"
)

// Memory is an agent's durable memory: a knowledge graph, the knowledge
// pages its entities and relations cite, and a retriever over both, kept
// in one directory under one lock and one journal (see Durable memory in
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
// with the same embedder (WithLinkEmbedder at DefaultLinkThreshold) when a
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
	m.graph.journal = func(mu *mutation) error {
		if mu.Op == opReplace {
			return errMemoryReplace
		}
		return log.Append(mu)
	}
	m.store.journal = func(pm *pageMutation) error {
		if pm.Op == opReplace {
			return errMemoryReplace
		}
		return log.Append(pm)
	}
	if s, ok := c.declaredSchema(m.Schema()); ok {
		if err := m.SetSchema(context.Background(), s); err != nil {
			log.Close()
			return nil, err
		}
	}
	return m, nil
}

var errMemoryReplace = fmt.Errorf("kgmem: read into a memory's graph or store: a memory is replaced as a whole, not in part: %w", ErrInvalidArgument)

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
	lr := newLineReader(r, "snapshot")
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
	if err := lr.done(err); err != nil {
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

var memoryRecordNames = jsonNames(reflect.TypeFor[memoryRecord]())

func (mm memoryMachine) Replay(version int, body []byte) error {
	m := mm.m
	var r memoryRecord
	if err := decodeStrict(body, &r, memoryRecordNames); err != nil {
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
