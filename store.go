package kgmem

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/bm25"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/jsonl"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/vecindex"
)

// KnowledgePage is a unit of content an agent remembers: a note, a document
// chunk, a summary. ID is its identity; Title and Content are searched;
// Tags and Metadata are carried along for the caller.
type KnowledgePage struct {
	ID       string            `json:"id"`
	Title    string            `json:"title,omitempty"`
	Content  string            `json:"content"`
	Tags     []string          `json:"tags,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// clone returns a copy of p that shares no slice or map with it.
func (p KnowledgePage) clone() KnowledgePage {
	p.Tags = slices.Clone(p.Tags)
	p.Metadata = maps.Clone(p.Metadata)
	return p
}

// ScoredPage is one result of a content search.
type ScoredPage struct {
	Page  KnowledgePage
	Score float64 // [0,1]; see InMemoryKnowledgeStore.Search for its meaning
}

// KnowledgeStore is the content channel of a [MemoryRetriever]: it finds the
// pages relevant to a query. It is the one method the retriever needs, so
// any search backend can stand behind it.
//
// Search returns at most limit pages, best first, each with a score in
// [0,1]; limit ≤ 0 means an implementation-defined default. A query with no
// searchable terms returns no pages and no error. A query that is not valid
// UTF-8 returns an error wrapping ErrInvalidArgument. When ctx is cancelled
// Search returns ctx.Err().
type KnowledgeStore interface {
	Search(ctx context.Context, query string, limit int) ([]ScoredPage, error)
}

var _ KnowledgeStore = (*InMemoryKnowledgeStore)(nil)

// Defaults of the knowledge store's ranking.
const (
	// defaultBM25K1 is the BM25 term-frequency saturation k1: how quickly
	// repeating a term stops adding to a page's score.
	defaultBM25K1 = bm25.DefaultK1
	// defaultBM25B is the BM25 length normalisation b: 0 ignores page
	// length, 1 divides term frequency fully by relative length.
	defaultBM25B = bm25.DefaultB
	// defaultTitleBoost is how many times a title occurrence of a term
	// counts compared with a content occurrence.
	defaultTitleBoost = bm25.DefaultTitleBoost
	// defaultSearchLimit is the number of pages Search returns when limit
	// is 0 or negative.
	defaultSearchLimit = 10

	maxBM25K1     = 100
	maxTitleBoost = 100
)

// StoreOption configures NewInMemoryKnowledgeStore. Every StoreOption is
// also a DurableOption, configuring the store that OpenStore or OpenMemory
// opens. An invalid value makes OpenStore and OpenMemory fail, and every
// call of a store NewInMemoryKnowledgeStore made with it return the error
// (see NewInMemoryKnowledgeStore); both wrap ErrInvalidArgument.
type StoreOption interface {
	DurableOption
	applyStore(*storeConfig)
}

type storeOptionFunc func(*storeConfig)

func (f storeOptionFunc) applyStore(c *storeConfig) { f(c) }

func (f storeOptionFunc) applyDurable(c *durableConfig) { c.store = append(c.store, f) }

// storeConfig holds the ranking parameters; newStoreConfig sets every
// default.
type storeConfig struct {
	k1, b, titleBoost float64

	embedder    Embedder
	denseWeight float64
	newIndex    func(dims int) VectorIndex
	err         error // the first invalid option
}

func (c *storeConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("kgmem: store option: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
}

func newStoreConfig(opts []StoreOption) storeConfig {
	c := storeConfig{k1: defaultBM25K1, b: defaultBM25B, titleBoost: defaultTitleBoost, denseWeight: defaultDenseWeight}
	for i, o := range opts {
		if o == nil {
			c.fail("option %d is nil", i)
			continue
		}
		o.applyStore(&c)
	}
	return c
}

// WithBM25 sets the BM25 parameters: k1 in [0,100] (default 1.2) and b
// in [0,1] (default 0.75). A value outside its range, NaN included, is
// invalid.
func WithBM25(k1, b float64) StoreOption {
	return storeOptionFunc(func(c *storeConfig) {
		if !(k1 >= 0 && k1 <= maxBM25K1) { // true for NaN
			c.fail("WithBM25: k1 %v outside [0,%v]", k1, maxBM25K1)
			return
		}
		if !(b >= 0 && b <= 1) {
			c.fail("WithBM25: b %v outside [0,1]", b)
			return
		}
		c.k1, c.b = k1, b
	})
}

// WithTitleBoost sets how many times a term in a page's title counts
// compared with the same term in its content, in [0,100] (default
// 2 by default). 0 leaves titles out of the index. A value
// outside the range, NaN included, is invalid.
func WithTitleBoost(x float64) StoreOption {
	return storeOptionFunc(func(c *storeConfig) {
		if !(x >= 0 && x <= maxTitleBoost) {
			c.fail("WithTitleBoost: boost %v outside [0,%v]", x, maxTitleBoost)
			return
		}
		c.titleBoost = x
	})
}

// InMemoryKnowledgeStore is a [KnowledgeStore] that keeps pages in memory
// and ranks them with BM25 over an inverted index of their titles and
// contents, both cut into terms by [Tokenize].
//
// A page is indexed as one field in which each title term counts titleBoost
// times and each content term once; its length is titleBoost × (title
// terms) + (content terms). Tags and metadata are stored, not searched.
//
// # Concurrency
//
// All methods are safe for concurrent use. Writes take the lock
// exclusively; Search and Get share it. Tokenizing and copying happen
// outside the lock.
//
// # Zero value
//
// The zero value is an empty store ready to use, ranked with the defaults
// (k1 = 1.2, b = 0.75, title boost 2), as NewInMemoryKnowledgeStore()
// returns it.
//
// # Dense search
//
// With WithEmbedder the store embeds each page's title and content when it
// is stored (Put, PutBatch: outside the lock, before anything changes) and
// each query when it is searched, keeps the vectors scaled to unit length
// as float32, and scores each page
//
//	(1 − a·w)·bm25 + a·w·max(0, cos)
//
// where bm25 is the page's score as below (0 when it has no query term),
// cos the cosine similarity of the page's and query's vectors, w the dense
// weight (0.3 by default, WithDenseWeight) and a the query's
// agreement gate: the fraction of BM25's 10 best pages that are among the
// 100 nearest by vector, or 1 when no page has a query term. Pages scoring
// 0 are not returned; ties are broken by ID. The nearest vectors are found
// by comparing the query with every page (a flat float32 array, O(N·d) a
// search), or by the VectorIndex that WithVectorIndex supplies, whose
// candidates join the pages that have a query term. Vectors persist in
// snapshots and journals (see docs/DURABILITY.md and
// docs/FORMAT.md); they are never computed again on reading.
//
// Why this fusion: it was chosen on Cranfield (225 queries; BM25 alone
// nDCG@10 0.366, MAP 0.302) so that no model, however weak, makes the
// content channel worse than BM25 there. With a real sentence encoder
// (Universal Sentence Encoder lite, 512 dimensions, nDCG@10 0.167 alone)
// the gated fusion scores 0.376 / 0.309, with the hashing test embedder
// 0.375 / 0.304, and with random vectors 0.368 / 0.302. Without the gate
// (a = 1) the best weight, 0.2, scored 0.379 with the encoder but 0.361
// with random vectors, and higher weights lost to BM25 with every model;
// reciprocal rank fusion (k = 60) lost to BM25 with every model (0.340
// with the encoder). A page's score depends only on the query and the
// pages, never on limit, which rank-based fusion cannot offer. On
// questions that share no term with their answer BM25 finds nothing, a is
// 1 and the score is the dense one (nDCG@10 0.94 with the encoder on the
// paraphrase set of embed_eval_test.go, where BM25 scores 0).
//
// # Costs
//
// Put and Delete cost O(terms of the page) plus map updates. Search costs
// O(postings of the query's terms × log limit): it reads only the postings
// of the terms the query contains and never scans every page. A query of
// several terms sums scores in a scratch array of one float64 per page,
// kept between searches and allocated again only when the store has grown
// or the garbage collector has reclaimed it.
type InMemoryKnowledgeStore struct {
	// Ranking parameters; set once by NewInMemoryKnowledgeStore, then
	// read-only. Read them through params: a zero field means its default,
	// so that the zero value ranks as NewInMemoryKnowledgeStore() does, and
	// an explicit 0 (WithTitleBoost(0)) is held as NaN, a value no option
	// accepts.
	k1, b, titleBoost float64

	// Dense search; set once by NewInMemoryKnowledgeStore, then
	// read-only. embedder is nil without WithEmbedder; model is its
	// Model(). denseWeight is held as the ranking parameters are (see
	// heldParam).
	embedder    Embedder
	model       EmbeddingModel
	denseWeight float64
	newIndex    func(dims int) VectorIndex

	// err is the first invalid option NewInMemoryKnowledgeStore was given;
	// every call then returns it. Read-only.
	err error

	// mu guards ix, vecs and ann. ix is nil until the first Put of a
	// zero-value store, which makes it under mu.
	//
	// Invariants, true whenever mu is not held for writing:
	//   - ix holds one document per stored page, of the page's ID, its
	//     title's terms (if titleBoost > 0) and its content's; the
	//     document's value is a private copy of the page and its vector,
	//     never modified after it is stored (an upsert replaces the
	//     document), so it may be copied outside mu. ix keeps its own
	//     invariants (see bm25.Index): dense document numbers, one posting
	//     per page and term, integer term counts, so that every sequence
	//     of writes reaching the same pages gives the same scores, bit for
	//     bit.
	//   - With an embedder, vecs.At(n), for the number n of a document,
	//     is its page's unit vector (zeros for a number not in use), and
	//     ann, when not nil, holds exactly the stored pages' IDs with
	//     their vectors.
	mu   sync.RWMutex
	ix   *bm25.Index[storedPage]
	vecs vecindex.Flat
	ann  VectorIndex

	// journal, when set, records every write before it is applied (see
	// commit); a write whose record fails is not applied. Set once, by
	// the durable layer, before the store is shared.
	journal func(*pageMutation) error
}

// storedPage is the value of a page's document in the index: a private
// copy of the page and its unit vector (nil without an embedder), never
// modified.
type storedPage struct {
	page KnowledgePage
	vec  []float32
}

// pageEntry is a stored page and its place in the index.
type pageEntry = bm25.Doc[storedPage]

// NewInMemoryKnowledgeStore returns an empty store ranked with the given
// options; without options it uses k1 = 1.2, b = 0.75 and title boost 2,
// as the zero value does.
//
// NewInMemoryKnowledgeStore cannot return an error, so an invalid option
// (a nil one included) is kept instead: every call of the store returns
// it, wrapping ErrInvalidArgument, and Len reports 0. OpenStore and
// OpenMemory return the same error at once.
func NewInMemoryKnowledgeStore(opts ...StoreOption) *InMemoryKnowledgeStore {
	c := newStoreConfig(opts)
	s := &InMemoryKnowledgeStore{
		err:         c.err,
		k1:          heldParam(c.k1),
		b:           heldParam(c.b),
		titleBoost:  heldParam(c.titleBoost),
		denseWeight: heldParam(c.denseWeight),
		ix:          new(bm25.Index[storedPage]),
	}
	if c.err == nil && c.embedder != nil {
		s.embedder, s.model, s.newIndex = c.embedder, c.embedder.Model(), c.newIndex
		s.vecs.Dims = s.model.Dimensions
		if s.newIndex != nil {
			s.ann = s.newIndex(s.model.Dimensions)
		}
	}
	return s
}

// storeModel returns the model of the store's vectors, nil without an
// embedder.
func (s *InMemoryKnowledgeStore) storeModel() *EmbeddingModel {
	if s.embedder == nil {
		return nil
	}
	return &s.model
}

// heldParam returns how the store holds ranking parameter v: v itself, or
// NaN for 0, which the zero value's fields mean "default" by.
func heldParam(v float64) float64 {
	if v == 0 {
		return math.NaN()
	}
	return v
}

// param returns the value of a ranking parameter held as v (see
// heldParam), def for a zero field.
func param(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case math.IsNaN(v):
		return 0
	}
	return v
}

// params returns the store's ranking parameters.
func (s *InMemoryKnowledgeStore) params() (k1, b, titleBoost float64) {
	return param(s.k1, defaultBM25K1), param(s.b, defaultBM25B), param(s.titleBoost, defaultTitleBoost)
}

// Len returns the number of pages stored.
func (s *InMemoryKnowledgeStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.ix.Len()
}

// Put stores p, replacing the page with the same ID if there is one, and
// indexes its title and content. p is copied: changing its Tags or Metadata
// afterwards changes nothing in the store. With an embedder (WithEmbedder)
// Put embeds the page's title and content first, outside the lock; to
// store many pages, PutBatch embeds them in batches.
//
// An empty or whitespace-only ID, or an ID, title, content, tag, metadata
// key or metadata value that is not valid UTF-8, returns an error wrapping
// ErrInvalidArgument that names the field; an embedder that fails or
// returns an unusable vector, an error wrapping ErrEmbedding. In both
// cases the store is unchanged. A cancelled ctx returns ctx.Err() and
// stores nothing.
func (s *InMemoryKnowledgeStore) Put(ctx context.Context, p KnowledgePage) error {
	m := &pageMutation{Op: opPutPage, Page: &p}
	if err := s.embed(ctx, []*pageMutation{m}); err != nil {
		return err
	}
	return s.apply(ctx, m)
}

// PutBatch stores pages as Put stores each of them, in order (a later page
// with the ID of an earlier one replaces it), embedding them with at most
// 64 texts per call to the Embedder, and taking the lock
// once for all of them.
//
// Every page is validated and embedded before any is stored: an invalid
// page (the error names its index), an embedding failure or a cancelled
// ctx stores nothing. On a durable store each page is journaled as Put
// journals it; a journal failure stops the batch, keeping the pages stored
// before it, and returns an error wrapping ErrJournal.
func (s *InMemoryKnowledgeStore) PutBatch(ctx context.Context, pages []KnowledgePage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ms := make([]*pageMutation, len(pages))
	for i := range pages {
		p := pages[i]
		ms[i] = &pageMutation{Op: opPutPage, Page: &p}
		if err := validatePage(p); err != nil {
			return withContext(err, "put batch: page %d", i)
		}
	}
	if err := s.embed(ctx, ms); err != nil {
		return err
	}
	for i, m := range ms {
		if err := s.check(m); err != nil {
			return withContext(err, "put batch: page %d", i)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if err := s.commitLocked(m, s.journalOf(m)); err != nil {
			return err
		}
	}
	return nil
}

// embed sets the vectors of ms, puts of valid or invalid pages, when the
// store has an embedder; it validates the pages first, so that the
// embedder never sees one that Put would refuse. It changes nothing in s.
func (s *InMemoryKnowledgeStore) embed(ctx context.Context, ms []*pageMutation) error {
	if s.err != nil {
		return s.err
	}
	if s.embedder == nil {
		return nil
	}
	texts := make([]string, len(ms))
	for i, m := range ms {
		if err := validatePage(*m.Page); err != nil {
			return err
		}
		texts[i] = pageText(*m.Page)
	}
	vecs, err := embedTexts(ctx, s.embedder, s.model, texts, func(i int) string {
		return "page " + quote.Value(ms[i].Page.ID)
	}, rejectZero)
	if err != nil {
		return err
	}
	for i, m := range ms {
		m.Model, m.Vector = s.model.Name, vecs[i]
	}
	return nil
}

// pageMutation is one write to a store, as a value: Put, Delete and
// ReadFrom build one and hand it to apply, and so does a journal's replay,
// as the graph's mutations are. The exported fields are the journal's
// record.
type pageMutation struct {
	Op   mutationOp     `json:"op"`             // opPutPage, opDeletePage
	Page *KnowledgePage `json:"page,omitempty"` // opPutPage
	ID   string         `json:"id,omitempty"`   // opDeletePage
	// With an embedder, opPutPage carries the page's unit vector and the
	// name of the model that made it; replay never calls the embedder.
	Model  string `json:"model,omitempty"`
	Vector vector `json:"vector,omitempty"`

	fresh *InMemoryKnowledgeStore // opReplace: the new contents, which nobody else holds

	// Set by check, for opPutPage: the page's entry, not yet indexed.
	entry *pageEntry

	// Set by resolve.
	old *pageEntry // the entry replaced or deleted
}

// pageRecordNames are the JSON names of a page journal record.
var pageRecordNames = jsonl.Names(reflect.TypeFor[pageMutation]())

// apply performs m: check outside the lock, then commit under it.
func (s *InMemoryKnowledgeStore) apply(ctx context.Context, m *pageMutation) error {
	if s.err != nil {
		return s.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.check(m); err != nil {
		return err
	}
	return s.commitWrite(m, s.journalOf(m))
}

// replay applies m, a record read from a journal.
func (s *InMemoryKnowledgeStore) replay(m *pageMutation) error {
	if m.Op == opReplace {
		return malformed(m.Op)
	}
	return s.apply(context.Background(), m)
}

// journalOf returns the record of m in the store's own journal, nil when
// the store has none.
func (s *InMemoryKnowledgeStore) journalOf(m *pageMutation) func() error {
	if s.journal == nil {
		return nil
	}
	return func() error { return s.journal(m) }
}

// check validates m on its own and, for a page, counts its terms; it
// touches nothing of s's mutable state.
func (s *InMemoryKnowledgeStore) check(m *pageMutation) error {
	switch m.Op {
	case opPutPage:
		if m.Page == nil || m.ID != "" {
			return malformed(m.Op)
		}
		p := *m.Page
		if err := validatePage(p); err != nil {
			return err
		}
		if err := checkStored(m.Vector, m.Model, s.storeModel(), "page "+quote.Value(p.ID)); err != nil {
			return err
		}
		m.entry = s.newEntry(p, m.Vector)
		if n := m.entry.Terms(); n > math.MaxInt32 {
			return fmt.Errorf("kgmem: page %s has %d distinct terms, more than a page may have: %w", quote.Value(p.ID), n, ErrInvalidArgument)
		}
		return nil
	case opDeletePage:
		if m.Page != nil || m.Vector != nil || m.Model != "" {
			return malformed(m.Op)
		}
		if m.ID == "" {
			return fmt.Errorf("kgmem: delete page: empty ID: %w", ErrInvalidArgument)
		}
		return nil
	case opReplace:
		if m.fresh == nil {
			return malformed(m.Op)
		}
		return nil
	}
	return fmt.Errorf("kgmem: unknown page operation %s: %w", quote.Value(string(m.Op)), ErrInvalidArgument)
}

// newEntry returns the entry of p, a valid page, with vec, its checked
// vector (nil without an embedder): a copy of p, indexed under its title's
// terms (unless the title boost is 0) and its content's.
func (s *InMemoryKnowledgeStore) newEntry(p KnowledgePage, vec []float32) *pageEntry {
	_, _, titleBoost := s.params()
	var title []string
	if titleBoost > 0 {
		title = Tokenize(p.Title)
	}
	return bm25.NewDoc(p.ID, storedPage{page: p.clone(), vec: vec}, title, Tokenize(p.Content), titleBoost)
}

// resolve checks m against the store; the caller holds s.mu for writing.
func (s *InMemoryKnowledgeStore) resolve(m *pageMutation) error {
	switch m.Op {
	case opPutPage:
		m.old = s.ix.Get(m.Page.ID)
		if m.old == nil && s.ix.Full() {
			return fmt.Errorf("kgmem: page %s: the store is full (%d pages): %w", quote.Value(m.Page.ID), s.ix.Len(), ErrInvalidArgument)
		}
	case opDeletePage:
		m.old = s.ix.Get(m.ID)
		if m.old == nil {
			return fmt.Errorf("kgmem: delete page %s: %w", quote.Value(m.ID), ErrNotFound)
		}
	}
	return nil
}

// do applies m, checked and resolved; the caller holds s.mu for writing.
func (s *InMemoryKnowledgeStore) do(m *pageMutation) {
	switch m.Op {
	case opPutPage:
		s.index(m.entry)
	case opDeletePage:
		e := m.old
		s.ix.Remove(e)
		if e.Value.vec != nil {
			s.vecs.Clear(e.Num())
			if s.ann != nil {
				s.ann.Delete(m.ID)
			}
		}
	case opReplace:
		f := m.fresh
		s.ix, s.vecs, s.ann = f.ix, f.vecs, f.ann
	}
}

// put stores p, a valid page, with vec, its checked vector (nil without
// an embedder), in a store nobody else holds.
func (s *InMemoryKnowledgeStore) put(p KnowledgePage, vec []float32) {
	s.index(s.newEntry(p, vec))
}

// index stores e, replacing the page of the same ID, and its vector; the
// caller holds s.mu for writing.
func (s *InMemoryKnowledgeStore) index(e *pageEntry) {
	if s.ix == nil { // the zero value's first page
		s.ix = new(bm25.Index[storedPage])
	}
	s.ix.Add(e)
	if vec := e.Value.vec; len(vec) > 0 {
		s.vecs.Set(e.Num(), vec)
		if s.ann != nil {
			s.ann.Add(e.ID, vec)
		}
	}
}

// validatePage checks the rules Put documents.
func validatePage(p KnowledgePage) error {
	if err := checkPageID(p.ID); err != nil {
		return err
	}
	bad := func(what string) error {
		return fmt.Errorf("kgmem: page %s: %s is not valid UTF-8: %w", quote.Value(p.ID), what, ErrInvalidArgument)
	}
	if !utf8.ValidString(p.Title) {
		return bad("title")
	}
	if !utf8.ValidString(p.Content) {
		return bad("content")
	}
	for i, t := range p.Tags {
		if !utf8.ValidString(t) {
			return bad(fmt.Sprintf("tag %d %s", i, quote.Value(t)))
		}
	}
	for k, v := range p.Metadata {
		if !utf8.ValidString(k) {
			return bad(fmt.Sprintf("metadata key %s", quote.Value(k)))
		}
		if !utf8.ValidString(v) {
			return bad(fmt.Sprintf("metadata %s value %s", quote.Value(k), quote.Value(v)))
		}
	}
	return nil
}

// checkPageID checks a page ID as the graph checks entity IDs: not empty,
// not only white space, valid UTF-8.
func checkPageID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("kgmem: page ID is empty: %w", ErrInvalidArgument)
	case !utf8.ValidString(id):
		return fmt.Errorf("kgmem: page ID %s is not valid UTF-8: %w", quote.Value(id), ErrInvalidArgument)
	case blank(id):
		return fmt.Errorf("kgmem: page ID %s is only white space: %w", quote.Value(id), ErrInvalidArgument)
	}
	return nil
}

// Get returns a copy of the page with the given ID; ok is false when there
// is none (that is not an error), as for an ID Put would reject. A
// cancelled ctx returns ctx.Err().
func (s *InMemoryKnowledgeStore) Get(ctx context.Context, id string) (p KnowledgePage, ok bool, err error) {
	if s.err != nil {
		return KnowledgePage{}, false, s.err
	}
	if err := ctx.Err(); err != nil {
		return KnowledgePage{}, false, err
	}
	s.mu.RLock()
	e := s.ix.Get(id)
	s.mu.RUnlock()
	if e == nil {
		return KnowledgePage{}, false, nil
	}
	return e.Value.page.clone(), true, nil
}

// Delete removes the page with the given ID and its index entries. An
// unknown ID returns an error wrapping ErrNotFound that names it. A
// cancelled ctx returns ctx.Err() and removes nothing.
func (s *InMemoryKnowledgeStore) Delete(ctx context.Context, id string) error {
	return s.apply(ctx, &pageMutation{Op: opDeletePage, ID: id})
}

// ReadFrom replaces the store's pages with the snapshot read from r,
// reading r to its end, and returns the number of bytes read.
//
// Every page is checked as Put checks it, IDs must be unique, the header's
// format, version and count must hold, the checksum line the header
// declares must follow the last page and nothing may follow it. The pages
// are indexed into a new store with the same ranking parameters first;
// only when everything is valid are the contents swapped in, under the
// write lock. On any error the store is unchanged. An invalid snapshot
// returns an error wrapping ErrInvalidArgument that names the line (the
// header is line 1); a damaged one, which fails its checksum, returns an
// error wrapping ErrCorrupt too, as InMemoryGraph.ReadFrom describes. On a
// DurableKnowledgeStore the new pages are written as its snapshot before
// ReadFrom returns; on the store of a Memory it returns an error wrapping
// ErrInvalidArgument.
func (s *InMemoryKnowledgeStore) ReadFrom(r io.Reader) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	fresh := s.newEmpty()
	_, n, err := readPages(r, fresh)
	if err != nil {
		return n, err
	}
	return n, s.apply(context.Background(), &pageMutation{Op: opReplace, fresh: fresh})
}

// newEmpty returns an empty store with s's ranking parameters.
func (s *InMemoryKnowledgeStore) newEmpty() *InMemoryKnowledgeStore {
	f := &InMemoryKnowledgeStore{
		k1: s.k1, b: s.b, titleBoost: s.titleBoost, denseWeight: s.denseWeight,
		err: s.err, embedder: s.embedder, model: s.model, newIndex: s.newIndex,
		ix:   new(bm25.Index[storedPage]),
		vecs: vecindex.Flat{Dims: s.vecs.Dims},
	}
	if f.embedder != nil && f.newIndex != nil {
		f.ann = f.newIndex(f.model.Dimensions)
	}
	return f
}

// Search returns up to limit pages matching query, best first; limit ≤ 0
// means 10. The query is cut into terms by [Tokenize];
// each distinct term counts once. A page matches when it contains at least
// one of them. A query that yields no terms (empty, only stop words or
// punctuation) returns nil and no error; a query that is not valid UTF-8
// returns an error wrapping ErrInvalidArgument. A cancelled ctx returns
// ctx.Err().
//
// # Ranking
//
// Pages are ordered by their BM25 score, highest first, ties broken by ID
// ascending. For N pages of average length avgdl, a term t found in n of
// them, and a page of length dl in which t has frequency f (title terms and
// occurrences count titleBoost times, content ones once):
//
//	idf(t)    = ln(1 + (N − n + 0.5) / (n + 0.5))                 (never negative)
//	bm25(t)   = idf(t) · (k1 + 1) · f / (f + k1 · (1 − b + b · dl/avgdl))
//	bm25(page) = Σ over the query's terms of bm25(t)
//
// # Score
//
// ScoredPage.Score is bm25(page) divided by the largest BM25 the query could
// reach on this corpus, Σ over the query's terms of idf(t)·(k1 + 1): the
// value a page would approach if it contained every query term very often.
// The fraction f/(f + k1·…) is at most 1, so every score lies in [0,1]
// (the division is clamped there against rounding); a page that matches
// anything scores above 0; and a page's score depends only on the query and
// the stored pages, never on limit or on the other results.
// Terms absent from every page still count in the denominator (with the
// largest idf), so a query that is only partly answered by the corpus gives
// lower scores than one it answers fully. This normalisation needs no
// corpus-specific constant and keeps the BM25 order, which is what a fusion
// with the graph channel's [0,1] scores needs: 1 means "covers the whole
// query as strongly as BM25 can express", 0.3 "covers about a third of the
// query's weight".
//
// Cost: O(P log limit) for P postings of the query's terms, independent of
// how many pages do not contain them.
//
// # With an embedder
//
// Search first embeds the query (an embedder's failure returns an error
// wrapping ErrEmbedding) and ranks as Dense search under
// InMemoryKnowledgeStore describes: Score is then the fused score, in
// [0,1], and a page may match through its vector alone. The exact default
// adds O(N·d) for N pages of d dimensions.
func (s *InMemoryKnowledgeStore) Search(ctx context.Context, query string, limit int) ([]ScoredPage, error) {
	hits, err := s.search(ctx, query, limit)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	out := make([]ScoredPage, len(hits))
	for i, h := range hits {
		out[i] = ScoredPage{Page: h.Doc.Value.page.clone(), Score: h.Score}
	}
	return out, nil
}

// hit is a ranked page: its raw score and its normalised score.
type hit = bm25.Hit[storedPage]

// search ranks the pages for query and returns the best limit of them. The
// entries it returns are immutable, so the caller may read them without the
// lock.
func (s *InMemoryKnowledgeStore) search(ctx context.Context, query string, limit int) ([]hit, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !utf8.ValidString(query) {
		return nil, fmt.Errorf("kgmem: search: query %s is not valid UTF-8: %w", quote.Value(query), ErrInvalidArgument)
	}
	terms := Tokenize(query)
	if len(terms) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	var qv []float32 // the query's unit vector, with an embedder
	if s.embedder != nil {
		vs, err := embedTexts(ctx, s.embedder, s.model, []string{query}, func(int) string { return "query " + quote.Value(query) }, rejectZero)
		if err != nil {
			return nil, err
		}
		qv = vs[0]
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	k1, b, titleBoost := s.params()
	p := bm25.Params{K1: k1, B: b, TitleBoost: titleBoost}
	if qv == nil {
		return s.ix.Search(terms, limit, p), nil
	}
	// The dense side of the fusion (see Dense search under
	// InMemoryKnowledgeStore), built here so that its functions stay in
	// this frame.
	dense := bm25.Dense[storedPage]{
		Weight: param(s.denseWeight, defaultDenseWeight),
		Cos: func(e *pageEntry) float64 {
			return min(1, max(0, float64(dot(qv, s.vecs.At(e.Num())))))
		},
	}
	if s.ann != nil {
		dense.Nearest = func(k int) ([]string, error) {
			ids, err := s.ann.Search(qv, k)
			if err != nil {
				return nil, errmsg.Wrap("kgmem: search: vector index", err)
			}
			return ids, nil
		}
	}
	return s.ix.Fuse(ctx, terms, limit, p, dense)
}
