package pgraph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/bm25"
	"github.com/kgmem/kgmem/internal/embedmodel"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/vecindex"
)

// Dense search parameters of a Store with an embedder: kgmem's defaults,
// as kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e)) ranks.
const (
	storeDenseWeight = bm25.DefaultDenseWeight
	storeEmbedBatch  = 64             // the most texts one Embed call is given
	storeGateBM25    = bm25.GateBM25  // BM25's top pages whose agreement is measured
	storeGateDense   = bm25.GateDense // the dense top they are looked for in
)

// WithEmbedder makes NewStore and OpenMemory return a store that embeds
// every page it stores (its title, a newline, and its content) and every
// query it searches with e, keeps each page's vector in PostgreSQL, and
// ranks pages by BM25 fused with the cosine similarity of their vectors to
// the query's, exactly as kgmem.WithEmbedder makes the in-process store do
// (see Store). nil means no embedder, the default. New ignores it: a Graph
// has no vectors. An embedder whose Model has a blank name, one holding a
// NUL byte, or a number of dimensions outside [1, 65536] makes NewStore and
// OpenMemory return an error wrapping kgmem.ErrInvalidArgument.
//
// The vectors of a namespace are of one model: while the namespace has
// pages, its model (name and dimensions) is recorded in PostgreSQL, and a
// store of another model, or one without an embedder where the pages have
// vectors, or one with an embedder where they have none, fails with an
// error wrapping kgmem.ErrEmbeddingModel, at NewStore or OpenMemory and at
// every write. An empty namespace takes the model of its first write.
func WithEmbedder(e kgmem.Embedder) Option {
	return optionFunc(func(c *config) { c.embedder = e })
}

// storeEmbedder returns the embedder opts give, nil for none, or an error
// wrapping kgmem.ErrInvalidArgument for one whose model is unfit.
func storeEmbedder(opts []Option) (kgmem.Embedder, kgmem.EmbeddingModel, error) {
	var c config
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	if c.embedder == nil {
		return nil, kgmem.EmbeddingModel{}, nil
	}
	m := c.embedder.Model()
	if problem := embedmodel.Problem(m.Name, m.Dimensions); problem != "" {
		return nil, m, fmt.Errorf("pgraph: WithEmbedder: %s: %w", problem, kgmem.ErrInvalidArgument)
	}
	if strings.IndexByte(m.Name, 0) >= 0 {
		return nil, m, fmt.Errorf("pgraph: WithEmbedder: embedding model name %s holds a NUL byte, which PostgreSQL cannot store: %w",
			quote.Value(m.Name), kgmem.ErrInvalidArgument)
	}
	return c.embedder, m, nil
}

// pageText is what a page's vector is made of, as in kgmem: its title, a
// newline and its content, or its content alone without a title.
func pageText(p *kgmem.KnowledgePage) string {
	if p.Title == "" {
		return p.Content
	}
	return p.Title + "\n" + p.Content
}

// embedTexts embeds texts with the store's embedder, at most
// storeEmbedBatch a call, checking ctx between calls, and returns their
// unit vectors, as kgmem's store does; what names the i-th text in errors.
// An Embed error that is ctx's is returned as ctx.Err(); any other
// failure, and an unusable vector, wraps kgmem.ErrEmbedding.
func (s *Store) embedTexts(ctx context.Context, texts []string, what func(i int) string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += storeEmbedBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := texts[start:min(len(texts), start+storeEmbedBatch)]
		vecs, err := s.emb.Embed(ctx, batch)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return nil, ctxErr
			}
			return nil, fmt.Errorf("pgraph: embed %s: %w: %w", what(start), err, kgmem.ErrEmbedding)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("pgraph: embed %s: model %s returned %d vectors for %d texts: %w",
				what(start), quote.Value(s.model.Name), len(vecs), len(batch), kgmem.ErrEmbedding)
		}
		for i, v := range vecs {
			u, err := s.unitVector(v)
			if err != nil {
				return nil, fmt.Errorf("pgraph: embed %s: %w", what(start+i), err)
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// unitVector returns a copy of v scaled to unit length with kgmem's
// arithmetic, or an error wrapping kgmem.ErrEmbedding when v is not a
// vector of the store's model: the wrong length, a NaN or infinite value,
// all zeros.
func (s *Store) unitVector(v []float32) ([]float32, error) {
	m := s.model
	if len(v) != m.Dimensions {
		return nil, fmt.Errorf("model %s returned a vector of %d dimensions, want %d: %w", quote.Value(m.Name), len(v), m.Dimensions, kgmem.ErrEmbedding)
	}
	u, bad, _ := vecindex.Unit(v)
	switch {
	case bad >= 0:
		return nil, fmt.Errorf("model %s returned %v at index %d: %w", quote.Value(m.Name), v[bad], bad, kgmem.ErrEmbedding)
	case u == nil:
		return nil, fmt.Errorf("model %s returned a vector of zero or unbounded length: %w", quote.Value(m.Name), kgmem.ErrEmbedding)
	}
	return u, nil
}

// embedRows sets the vector of every row when the store has an embedder.
func (s *Store) embedRows(ctx context.Context, rows []*pageRow) error {
	if s.emb == nil || len(rows) == 0 {
		return nil
	}
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = pageText(r.page)
	}
	vecs, err := s.embedTexts(ctx, texts, func(i int) string { return "page " + quote.Value(rows[i].page.ID) })
	if err != nil {
		return err
	}
	for i, r := range rows {
		r.vec = vecs[i]
	}
	return nil
}

// encodeVector returns v as float32 values, little-endian.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector writes the float32 values of b, little-endian, into dst,
// which has len(b)/4 values.
func decodeVector(dst []float32, b []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// nsModel is what kgmem_page_stats records of a namespace: its page count
// and the model of its vectors (name nil without vectors).
type nsModel struct {
	pages int64
	name  *string
	dims  *int32
}

// checkModel returns an error wrapping kgmem.ErrEmbeddingModel when the
// store may not write or read the namespace recorded as m: the namespace
// has pages and its vectors are of another model, or it has vectors and
// the store no embedder, or it has pages without vectors and the store an
// embedder. An empty namespace suits every store.
func (s *Store) checkModel(m nsModel) error {
	if m.pages <= 0 {
		return nil
	}
	switch {
	case m.name != nil && s.emb == nil:
		return fmt.Errorf("pgraph: the pages of namespace %s have vectors of model %s, and the store has no embedder: %w",
			quote.Value(s.g.ns), quote.Value(*m.name), kgmem.ErrEmbeddingModel)
	case m.name == nil && s.emb != nil:
		return fmt.Errorf("pgraph: the pages of namespace %s have no vectors, and the store embeds with model %s; "+
			"store them again through a store with the embedder, after clearing the namespace: %w",
			quote.Value(s.g.ns), quote.Value(s.model.Name), kgmem.ErrEmbeddingModel)
	case m.name != nil && (*m.name != s.model.Name || m.dims == nil || int(*m.dims) != s.model.Dimensions):
		dims := 0
		if m.dims != nil {
			dims = int(*m.dims)
		}
		return fmt.Errorf("pgraph: the pages of namespace %s have vectors of model %s with %d dimensions, and the store embeds with model %s with %d: %w",
			quote.Value(s.g.ns), quote.Value(*m.name), dims, quote.Value(s.model.Name), s.model.Dimensions, kgmem.ErrEmbeddingModel)
	}
	return nil
}

// readModel reads what kgmem_page_stats records of the namespace (nothing
// before the schema has it: a store is then checked at its first write).
func (s *Store) readModel(ctx context.Context) (nsModel, error) {
	v, err := s.g.schemaVersion(ctx)
	if err != nil || v < 9 {
		return nsModel{}, err
	}
	var m nsModel
	err = s.g.pool.QueryRow(ctx, "SELECT pages, model, dims FROM "+pageStatsTable+" WHERE namespace = $1", s.g.ns).
		Scan(&m.pages, &m.name, &m.dims)
	if err == pgx.ErrNoRows {
		return nsModel{}, nil
	}
	return m, err
}

// modelColumns returns the model and dims to record for the namespace
// after a write that leaves it with pages: the store's model, or NULL
// without an embedder.
func (s *Store) modelColumns() (name *string, dims *int32) {
	if s.emb == nil {
		return nil, nil
	}
	n, d := s.model.Name, int32(s.model.Dimensions)
	return &n, &d
}

// vectorSet is the vectors of a namespace's pages at one instant: the
// state the namespace's written column named. Immutable once built.
type vectorSet struct {
	written int64
	ids     []string  // ids[i] is page i
	vecs    []float32 // vecs[i*d:(i+1)*d] is page i's unit vector
}

// vectorCache holds the last vectorSet a Store read, for the searches
// that find the namespace unchanged since.
type vectorCache struct {
	mu  sync.Mutex
	set *vectorSet
}

// vectors returns the namespace's vectors as of tx's snapshot, in which
// the namespace's written column reads written: the cached set when it is
// of that state, or a set read in tx (one query over
// kgmem_page_vectors), which is then cached.
func (s *Store) vectors(ctx context.Context, tx searchConn, written int64) (*vectorSet, error) {
	s.cache.mu.Lock()
	set := s.cache.set
	s.cache.mu.Unlock()
	if set != nil && set.written == written && written != 0 {
		return set, nil
	}
	d := s.model.Dimensions
	rows, err := tx.Query(ctx, "SELECT page_id, vector FROM "+vectorsTable+" WHERE namespace = $1", s.g.ns)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set = &vectorSet{written: written}
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		if len(b) != 4*d {
			return nil, fmt.Errorf("page %s: a vector of %d bytes, want %d (model %s with %d dimensions): %w",
				quote.Value(id), len(b), 4*d, quote.Value(s.model.Name), d, kgmem.ErrEmbeddingModel)
		}
		set.ids = append(set.ids, id)
		set.vecs = append(set.vecs, make([]float32, d)...)
		decodeVector(set.vecs[len(set.vecs)-d:], b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.cache.mu.Lock()
	s.cache.set = set
	s.cache.mu.Unlock()
	return set, nil
}

// rankHit is a page in a ranking: its ID and its score.
type rankHit struct {
	id  string
	raw float64
}

// rankBefore reports whether a ranks before b: the higher score, then the
// smaller ID.
func rankBefore(a, b rankHit) bool {
	if a.raw != b.raw {
		return a.raw > b.raw
	}
	return a.id < b.id
}

// topHits keeps the limit best hits offered with a positive score, in a
// heap whose root is the worst kept.
type topHits struct {
	limit int
	h     []rankHit
}

func (k *topHits) offer(x rankHit) {
	if x.raw <= 0 || k.limit <= 0 {
		return
	}
	if len(k.h) < k.limit {
		k.h = append(k.h, x)
		for i := len(k.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !rankBefore(k.h[p], k.h[i]) {
				break
			}
			k.h[p], k.h[i] = k.h[i], k.h[p]
			i = p
		}
		return
	}
	if !rankBefore(x, k.h[0]) {
		return
	}
	k.h[0] = x
	for i := 0; ; {
		l, r, worst := 2*i+1, 2*i+2, i
		if l < len(k.h) && rankBefore(k.h[worst], k.h[l]) {
			worst = l
		}
		if r < len(k.h) && rankBefore(k.h[worst], k.h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		k.h[i], k.h[worst] = k.h[worst], k.h[i]
		i = worst
	}
}

// sorted returns the kept hits, best first.
func (k *topHits) sorted() []rankHit {
	out := slices.Clone(k.h)
	slices.SortFunc(out, func(a, b rankHit) int {
		switch {
		case rankBefore(a, b):
			return -1
		case rankBefore(b, a):
			return 1
		}
		return 0
	})
	return out
}

// fuse ranks every page of set for the query vector qv, as kgmem's
// in-process store does with its exact index (see kgmem's Dense search):
// sums holds each page's BM25 sum for the query (only pages with a
// positive one), maxRaw the largest sum the query could reach. It returns
// the best limit pages and their fused scores.
func (s *Store) fuse(ctx context.Context, set *vectorSet, qv []float32, sums map[string]float64, maxRaw float64, limit int) ([]rankHit, error) {
	w := storeDenseWeight
	d := s.model.Dimensions
	bmTop := topHits{limit: storeGateBM25}
	for id, raw := range sums {
		bmTop.offer(rankHit{id: id, raw: raw})
	}
	bm := func(id string) float64 { return bm25.Normalized(sums[id], maxRaw) }
	cos := make([]float64, len(set.ids))
	denseTop := topHits{limit: max(storeGateDense, limit)}
	for i, id := range set.ids {
		if i%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		cos[i] = min(1, max(0, float64(vecindex.Dot(qv, set.vecs[i*d:(i+1)*d]))))
		denseTop.offer(rankHit{id: id, raw: cos[i]})
	}
	dense := denseTop.sorted()

	// The agreement gate.
	wq := bm25.Agreement(bmTop.h, dense, func(h rankHit) string { return h.id }) * w
	top := topHits{limit: limit, h: make([]rankHit, 0, limit)}
	for i, id := range set.ids {
		top.offer(rankHit{id: id, raw: bm25.Fused(bm(id), cos[i], wq)})
	}
	return top.sorted(), nil
}
