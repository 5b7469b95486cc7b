package pgraph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/bm25"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

// Ranking parameters of Store: kgmem's defaults, as
// kgmem.NewInMemoryKnowledgeStore() ranks without options.
const (
	storeK1         = bm25.DefaultK1
	storeB          = bm25.DefaultB
	storeTitleBoost = bm25.DefaultTitleBoost
	storeLimit      = 10 // kgmem's default Search limit
)

// maxTermKeyBytes is the longest term stored as itself in
// kgmem_page_terms; a longer one is stored as its SHA-256 (see termKey),
// so that no index entry outgrows PostgreSQL's B-tree limit.
const maxTermKeyBytes = 256

// Store is a kgmem.KnowledgeStore and kgmem.PageGetter whose pages live in
// PostgreSQL, in the namespace of a Graph (the tables are created by
// Migrate, schema versions 8 and 9). Many goroutines and processes may use stores
// of one namespace at once: they share its pages.
//
// Search ranks exactly as kgmem.NewInMemoryKnowledgeStore() does without
// options (BM25 with k1 = 1.2, b = 0.75, title terms counting twice, the
// same normalisation to [0,1]; see kgmem.InMemoryKnowledgeStore.Search):
// the same pages give the same order and the same scores, within float
// rounding. The terms are kgmem.Tokenize's, computed in Go when a page is
// stored and kept in an inverted index table; Search reads the rows of
// the query's terms and the namespace's totals in one snapshot and scores
// them in Go.
//
// # Vectors
//
// A store made with WithEmbedder embeds each page when it is stored (Put,
// PutBatch, Memory.Ingest: before the transaction) and each query when it
// is searched, keeps each page's unit vector in PostgreSQL
// (kgmem_page_vectors, schema version 9), and ranks exactly as
// kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(e)) does with the
// same embedder: BM25 fused with the exact cosine similarity of every
// page's vector to the query's, through kgmem's agreement gate and dense
// weight 0.3 (see Dense search under kgmem.InMemoryKnowledgeStore): the
// same pages and queries give the same order and the same scores, within
// float rounding. The cosine is computed in Go, over the namespace's
// vectors, which the store reads in one query and keeps in memory (N × d
// float32 values for N pages of d dimensions, as the in-process store
// does) until a write to the namespace, by any process, makes Search read
// them again. No PostgreSQL extension is needed; an approximate index
// (such as pgvector) is not used.
//
// The zero value is not usable; call NewStore.
type Store struct {
	g *Graph // the namespace, pool and retry policy; never changes

	// With WithEmbedder: the embedder and its model, set by NewStore and
	// never changed, and the vectors of the last dense Search.
	emb   kgmem.Embedder
	model kgmem.EmbeddingModel
	cache vectorCache

	terms termCaches // the page numbers and frequent terms' rows of searches
}

var (
	_ kgmem.KnowledgeStore = (*Store)(nil)
	_ kgmem.PageGetter     = (*Store)(nil)
)

// NewStore returns the Store of pool's namespace named by WithNamespace
// (DefaultNamespace without it), with the checks New makes: invalid
// options return an error wrapping kgmem.ErrInvalidArgument, a schema
// newer than this package an error. With WithEmbedder, a namespace whose
// pages have vectors of another model, or no vectors, returns an error
// wrapping kgmem.ErrEmbeddingModel, as does an embedder-less store over a
// namespace whose pages have vectors. It does not create the schema (call
// Graph.Migrate).
func NewStore(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	g, err := New(ctx, pool, opts...)
	if err != nil {
		return nil, err
	}
	return newStore(ctx, g, opts)
}

// newStore returns the store of g's namespace with the embedder of opts,
// checked against the namespace's vectors.
func newStore(ctx context.Context, g *Graph, opts []Option) (*Store, error) {
	emb, model, err := storeEmbedder(opts)
	if err != nil {
		return nil, err
	}
	s := &Store{g: g, emb: emb, model: model}
	m, err := s.readModel(ctx)
	if err != nil {
		return nil, fail("read the model of the pages of "+quote.Value(g.ns), false, err)
	}
	if err := s.checkModel(m); err != nil {
		return nil, err
	}
	return s, nil
}

// Embedder returns the store's embedder, nil without WithEmbedder.
func (s *Store) Embedder() kgmem.Embedder { return s.emb }

// Namespace returns the namespace the store reads and writes.
func (s *Store) Namespace() string { return s.g.ns }

// validatePage checks p as kgmem's store does (an ID that is not empty or
// only white space, valid UTF-8 everywhere), with the same messages, then
// that PostgreSQL can store it: no NUL byte, an ID of at most
// kgmem.MaxIDBytes.
func validatePage(p *kgmem.KnowledgePage) error {
	switch {
	case p.ID == "":
		return fmt.Errorf("pgraph: page ID is empty: %w", kgmem.ErrInvalidArgument)
	case !utf8.ValidString(p.ID):
		return fmt.Errorf("pgraph: page ID %s is not valid UTF-8: %w", quote.Value(p.ID), kgmem.ErrInvalidArgument)
	case strings.TrimSpace(p.ID) == "":
		return fmt.Errorf("pgraph: page ID %s is only white space: %w", quote.Value(p.ID), kgmem.ErrInvalidArgument)
	case len(p.ID) > kgmem.MaxIDBytes:
		return fmt.Errorf("pgraph: page ID %s is longer than kgmem.MaxIDBytes (%d): %w", quote.Value(p.ID), kgmem.MaxIDBytes, kgmem.ErrInvalidArgument)
	}
	bad := func(what string) error {
		return fmt.Errorf("pgraph: page %s: %s is not valid UTF-8: %w", quote.Value(p.ID), what, kgmem.ErrInvalidArgument)
	}
	nul := func(what string) error {
		return fmt.Errorf("pgraph: page %s: %s contains a NUL byte, which PostgreSQL cannot store: %w", quote.Value(p.ID), what, kgmem.ErrInvalidArgument)
	}
	check := func(what, s string) error {
		if !utf8.ValidString(s) {
			return bad(what)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return nul(what)
		}
		return nil
	}
	if strings.IndexByte(p.ID, 0) >= 0 {
		return nul("the ID")
	}
	if err := check("title", p.Title); err != nil {
		return err
	}
	if err := check("content", p.Content); err != nil {
		return err
	}
	for i, t := range p.Tags {
		if err := check(fmt.Sprintf("tag %d %s", i, quote.Value(t)), t); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Metadata)) {
		if err := check(fmt.Sprintf("metadata key %s", quote.Value(k)), k); err != nil {
			return err
		}
		v := p.Metadata[k]
		if err := check(fmt.Sprintf("metadata %s value %s", quote.Value(k), quote.Value(v)), v); err != nil {
			return err
		}
	}
	return nil
}

// termKey is the key of term in kgmem_page_terms: the term, or, when it is
// longer than maxTermKeyBytes, "\x01" and the hex SHA-256 of the term
// (Tokenize never returns a control character, so no term is such a key).
func termKey(term string) string {
	if len(term) <= maxTermKeyBytes {
		return term
	}
	sum := sha256.Sum256([]byte(term))
	return "\x01" + hex.EncodeToString(sum[:])
}

// pageRow is a validated page ready to be written: its columns, and its
// terms with their BM25 frequencies.
type pageRow struct {
	page                *kgmem.KnowledgePage
	titleLen, contentLn int
	length              float64
	terms               []string
	tfs                 []float64
	metadata            *string   // JSON; nil without metadata
	vec                 []float32 // the unit vector, with an embedder
}

// newPageRow cuts p, a validated page, into terms as kgmem's store does.
func newPageRow(p *kgmem.KnowledgePage) (*pageRow, error) {
	d := bm25.NewDoc(p.ID, struct{}{}, kgmem.Tokenize(p.Title), kgmem.Tokenize(p.Content), storeTitleBoost)
	r := &pageRow{page: p, terms: make([]string, d.Terms()), tfs: make([]float64, d.Terms())}
	r.titleLen, r.contentLn = d.Lengths()
	r.length = d.Length()
	for i := range r.terms {
		var term string
		term, r.tfs[i] = d.Term(i)
		r.terms[i] = termKey(term)
	}
	if p.Metadata != nil {
		b, err := json.Marshal(p.Metadata)
		if err != nil {
			return nil, fmt.Errorf("pgraph: page %s: metadata: %w", quote.Value(p.ID), err)
		}
		m := string(b)
		r.metadata = &m
	}
	return r, nil
}

// preparePages validates pages and cuts them into terms; a later page
// with the ID of an earlier one replaces it. The error names the index of
// a bad page when there are several.
func preparePages(pages []kgmem.KnowledgePage) ([]*pageRow, error) {
	byID := make(map[string]*pageRow, len(pages))
	for i := range pages {
		p := pages[i]
		p.Tags = slices.Clone(p.Tags)
		if err := validatePage(&p); err != nil {
			if len(pages) > 1 {
				return nil, fmt.Errorf("pgraph: batch page %d: %w", i, err)
			}
			return nil, err
		}
		r, err := newPageRow(&p)
		if err != nil {
			return nil, err
		}
		byID[p.ID] = r
	}
	rows := make([]*pageRow, 0, len(byID))
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		rows = append(rows, byID[id])
	}
	return rows, nil
}

// lockStats takes the namespace's row of kgmem_page_stats for the rest of
// tx, creating it: page writers of a namespace take turns on it. It
// returns what the row records of the namespace's model.
func (s *Store) lockStats(ctx context.Context, tx pgx.Tx) (nsModel, error) {
	var m nsModel
	err := tx.QueryRow(ctx, "INSERT INTO "+pageStatsTable+" AS s (namespace) VALUES ($1)"+
		" ON CONFLICT (namespace) DO UPDATE SET pages = s.pages RETURNING pages, model, dims", s.g.ns).Scan(&m.pages, &m.name, &m.dims)
	return m, err
}

// writtenNow is the SQL of the value of kgmem_page_stats.written a write
// records: the ID of its transaction.
const writtenNow = "pg_current_xact_id()::text::bigint"

// putPages writes rows in tx, replacing the pages with their IDs, and
// keeps the namespace's totals.
func (s *Store) putPages(ctx context.Context, tx pgx.Tx, rows []*pageRow) error {
	if len(rows) == 0 {
		return nil
	}
	m, err := s.lockStats(ctx, tx)
	if err != nil {
		return err
	}
	if err := s.checkModel(m); err != nil {
		return err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.page.ID
	}
	if err := s.deleteTerms(ctx, tx, ids); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM "+vectorsTable+" WHERE namespace = $1 AND page_id = ANY($2::text[])", s.g.ns, ids); err != nil {
		return err
	}
	var oldPages, oldTitle, oldContent int64
	if err := tx.QueryRow(ctx, `WITH old AS (
	DELETE FROM `+pagesTable+` WHERE namespace = $1 AND id = ANY($2::text[]) RETURNING title_len, content_len
)
SELECT count(*), coalesce(sum(title_len), 0), coalesce(sum(content_len), 0) FROM old`, s.g.ns, ids).Scan(&oldPages, &oldTitle, &oldContent); err != nil {
		return err
	}
	pageRows := make([][]any, len(rows))
	var termRows, vecRows [][]any
	var newTitle, newContent int64
	for i, r := range rows {
		p := r.page
		pageRows[i] = []any{s.g.ns, p.ID, p.Title, p.Content, p.Tags, r.metadata, r.titleLen, r.contentLn}
		newTitle += int64(r.titleLen)
		newContent += int64(r.contentLn)
		for j, t := range r.terms {
			termRows = append(termRows, []any{s.g.ns, t, p.ID, r.tfs[j], r.length})
		}
		if s.emb != nil {
			vecRows = append(vecRows, []any{s.g.ns, p.ID, encodeVector(r.vec)})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{pagesTable},
		[]string{"namespace", "id", "title", "content", "tags", "metadata", "title_len", "content_len"},
		pgx.CopyFromRows(pageRows)); err != nil {
		return err
	}
	if len(termRows) > 0 {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{pageTermsTable},
			[]string{"namespace", "term", "page_id", "tf", "length"}, pgx.CopyFromRows(termRows)); err != nil {
			return err
		}
		if err := s.addTerms(ctx, tx, rows); err != nil {
			return err
		}
	}
	if len(vecRows) > 0 {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{vectorsTable},
			[]string{"namespace", "page_id", "vector"}, pgx.CopyFromRows(vecRows)); err != nil {
			return err
		}
	}
	model, dims := s.modelColumns()
	_, err = tx.Exec(ctx, "UPDATE "+pageStatsTable+" SET pages = pages + $2, title_terms = title_terms + $3,"+
		" content_terms = content_terms + $4, model = $5, dims = $6, written = "+writtenNow+" WHERE namespace = $1",
		s.g.ns, int64(len(rows))-oldPages, newTitle-oldTitle, newContent-oldContent, model, dims)
	return err
}

// Put stores p, replacing the page with its ID, in one transaction, as
// kgmem.InMemoryKnowledgeStore.Put does. p is copied. An invalid page (see
// kgmem.InMemoryKnowledgeStore.Put), one holding a NUL byte, which
// PostgreSQL cannot store, or one whose ID is longer than
// kgmem.MaxIDBytes, returns an error wrapping kgmem.ErrInvalidArgument and
// stores nothing.
func (s *Store) Put(ctx context.Context, p kgmem.KnowledgePage) error {
	return s.PutBatch(ctx, []kgmem.KnowledgePage{p})
}

// PutBatch stores pages as Put stores each of them, in order (a later page
// with the ID of an earlier one replaces it), in one transaction: every
// page is validated first, and on an error (naming the bad page's index)
// nothing is stored. Rows travel by COPY.
func (s *Store) PutBatch(ctx context.Context, pages []kgmem.KnowledgePage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rows, err := preparePages(pages)
	if err != nil || len(rows) == 0 {
		return err
	}
	if err := s.embedRows(ctx, rows); err != nil {
		return err
	}
	return s.g.retry(ctx, func() error {
		err := pgx.BeginFunc(ctx, s.g.pool, func(tx pgx.Tx) error { return s.putPages(ctx, tx, rows) })
		if err != nil && !retryable(err) {
			return fail(fmt.Sprintf("put %d pages", len(pages)), true, err)
		}
		return err
	})
}

// Get returns the page with the given ID; ok is false when there is none
// (that is not an error), as for an ID Put would reject (kgmem.PageGetter).
func (s *Store) Get(ctx context.Context, id string) (kgmem.KnowledgePage, bool, error) {
	if err := ctx.Err(); err != nil {
		return kgmem.KnowledgePage{}, false, err
	}
	if !storable(id) {
		return kgmem.KnowledgePage{}, false, nil
	}
	pages, err := getPages(ctx, s.g.pool, s.g.ns, []string{id})
	if err != nil {
		return kgmem.KnowledgePage{}, false, fail("get page "+quote.Value(id), false, err)
	}
	p, ok := pages[id]
	return p, ok, nil
}

// querier is what getPages reads with: a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// pagesQuery reads the pages of the IDs $2 in namespace $1.
const pagesQuery = "SELECT id, title, content, tags, metadata FROM " + pagesTable + " WHERE namespace = $1 AND id = ANY($2::text[])"

// getPages reads the pages of ids in ns.
func getPages(ctx context.Context, q querier, ns string, ids []string) (map[string]kgmem.KnowledgePage, error) {
	rows, err := q.Query(ctx, pagesQuery, ns, ids)
	if err != nil {
		return nil, err
	}
	return scanPages(rows, len(ids))
}

// scanPages reads the pages rows of pagesQuery holds, about n, and closes
// rows.
func scanPages(rows pgx.Rows, n int) (map[string]kgmem.KnowledgePage, error) {
	defer rows.Close()
	out := make(map[string]kgmem.KnowledgePage, n)
	for rows.Next() {
		var (
			p    kgmem.KnowledgePage
			meta []byte
		)
		if err := rows.Scan(&p.ID, &p.Title, &p.Content, &p.Tags, &meta); err != nil {
			return nil, err
		}
		if meta != nil {
			if err := json.Unmarshal(meta, &p.Metadata); err != nil {
				return nil, err
			}
		}
		out[p.ID] = p
	}
	return out, rows.Err()
}

// Delete removes the page with the given ID and its index rows. An unknown
// ID returns an error wrapping kgmem.ErrNotFound that names it.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	notFound := fmt.Errorf("pgraph: delete page %s: %w", quote.Value(id), kgmem.ErrNotFound)
	if !storable(id) {
		return notFound
	}
	return s.g.retry(ctx, func() error {
		var found bool
		err := pgx.BeginFunc(ctx, s.g.pool, func(tx pgx.Tx) error {
			if _, err := s.lockStats(ctx, tx); err != nil {
				return err
			}
			var title, content int64
			err := tx.QueryRow(ctx, "DELETE FROM "+pagesTable+" WHERE namespace = $1 AND id = $2 RETURNING title_len, content_len",
				s.g.ns, id).Scan(&title, &content)
			if err == pgx.ErrNoRows {
				return nil
			}
			if err != nil {
				return err
			}
			found = true
			if err := s.deleteTerms(ctx, tx, []string{id}); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "DELETE FROM "+vectorsTable+" WHERE namespace = $1 AND page_id = $2", s.g.ns, id); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, "UPDATE "+pageStatsTable+" SET pages = pages - 1, title_terms = title_terms - $2,"+
				" content_terms = content_terms - $3, written = "+writtenNow+" WHERE namespace = $1", s.g.ns, title, content)
			return err
		})
		if err != nil && !retryable(err) {
			return fail("delete page "+quote.Value(id), true, err)
		}
		if err == nil && !found {
			return notFound
		}
		return err
	})
}

// Len returns the number of pages in the namespace.
func (s *Store) Len(ctx context.Context) (int, error) {
	var n int64
	err := s.g.pool.QueryRow(ctx, "SELECT coalesce((SELECT pages FROM "+pageStatsTable+" WHERE namespace = $1), 0)", s.g.ns).Scan(&n)
	if err != nil {
		return 0, fail("count pages", false, err)
	}
	return int(n), nil
}

// Clear removes every page of the namespace, in one transaction. Other
// namespaces, and the graph of this one, are untouched.
func (s *Store) Clear(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.g.retry(ctx, func() error {
		err := pgx.BeginFunc(ctx, s.g.pool, func(tx pgx.Tx) error {
			if _, err := s.lockStats(ctx, tx); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "DELETE FROM "+pageTermsTable+" WHERE namespace = $1", s.g.ns); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "DELETE FROM "+termDFsTable+" WHERE namespace = $1", s.g.ns); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "DELETE FROM "+vectorsTable+" WHERE namespace = $1", s.g.ns); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "DELETE FROM "+pagesTable+" WHERE namespace = $1", s.g.ns); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "DELETE FROM "+pageStatsTable+" WHERE namespace = $1", s.g.ns)
			return err
		})
		if err != nil && !retryable(err) {
			return fail("clear pages of "+quote.Value(s.g.ns), true, err)
		}
		return err
	})
}

// Search returns up to limit pages matching query, best first; limit ≤ 0
// means 10. It ranks and scores exactly as
// kgmem.InMemoryKnowledgeStore.Search does without options (see Store):
// BM25 over the terms kgmem.Tokenize cuts from the query, each distinct
// term once, ties broken by ID, ScoredPage.Score the page's BM25 divided by
// the largest the query could reach. A query without terms returns nil and
// no error; one that is not valid UTF-8 an error wrapping
// kgmem.ErrInvalidArgument.
//
// With an embedder (WithEmbedder) Search first embeds the query (a failure
// returns an error wrapping kgmem.ErrEmbedding) and ranks as the
// in-process store with the same embedder does (see Vectors under Store):
// Score is the fused score, and a page may match through its vector alone.
//
// Search reads in one REPEATABLE READ transaction, so the totals, the
// index rows and the pages it returns are of one instant. Cost: two
// round trips — the namespace's totals, the query's document frequencies
// (kgmem_page_term_dfs, schema version 10) and the index rows of the
// query's terms (one B-tree range each) but those of frequent terms the
// store keeps in memory (see termCache in terms.go) in the first; the
// returned pages in the second (a kept list found stale after a write
// costs one more) — and O(postings of the query's terms) in Go; with an
// embedder, O(N·d) more for N pages of d dimensions, and the namespace's
// vectors read again after any write.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]kgmem.ScoredPage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !utf8.ValidString(query) {
		return nil, fmt.Errorf("pgraph: search: query %s is not valid UTF-8: %w", quote.Value(query), kgmem.ErrInvalidArgument)
	}
	var terms []string
	seen := map[string]bool{}
	for _, t := range kgmem.Tokenize(query) {
		if k := termKey(t); !seen[k] {
			seen[k] = true
			terms = append(terms, k)
		}
	}
	if len(terms) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = storeLimit
	}
	var qv []float32
	if s.emb != nil {
		vs, err := s.embedTexts(ctx, []string{query}, func(int) string { return "query " + quote.Value(query) })
		if err != nil {
			return nil, err
		}
		qv = vs[0]
	}
	conn, err := s.g.pool.Acquire(ctx)
	if err != nil {
		return nil, fail("search "+quote.Value(query), false, err)
	}
	defer conn.Release()
	out, err := s.search(ctx, conn, terms, qv, limit)
	if pc := conn.Conn().PgConn(); !pc.IsClosed() && pc.TxStatus() != 'I' {
		// The search ended early: end its transaction (a connection
		// released inside one is closed by the pool).
		_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
	}
	if err != nil {
		if errors.Is(err, kgmem.ErrEmbeddingModel) {
			return nil, errmsg.Wrap("pgraph: search "+quote.Value(query), err)
		}
		return nil, fail("search "+quote.Value(query), false, err)
	}
	return out, nil
}

// searchConn is what a search reads through: a connection of the pool.
type searchConn interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// search ranks the pages for the distinct term keys, in query order, and
// the query's unit vector qv (nil without an embedder), in one REPEATABLE
// READ transaction on conn, which it begins with its first round trip
// (the namespace's totals, the query's document frequencies and the
// posting lists that the store does not keep, see termCache) and commits
// with its last (the returned pages); in between it reads the kept lists
// found stale, if any, and, with an embedder, the vectors when they
// changed. A search that returns
// early leaves the transaction open for the caller to end.
func (s *Store) search(ctx context.Context, tx searchConn, terms []string, qv []float32, limit int) ([]kgmem.ScoredPage, error) {
	var n, titleTerms, contentTerms, written int64
	var m nsModel
	batch := &pgx.Batch{}
	queueRead(batch, beginSnapshot)
	batch.Queue("SELECT pages, title_terms, content_terms, written, model, dims FROM "+pageStatsTable+" WHERE namespace = $1", s.g.ns)
	batch.Queue("SELECT term, df, written FROM "+termDFsTable+" WHERE namespace = $1 AND term = ANY($2::text[])", s.g.ns, terms)
	skipped := s.terms.kept(terms)
	batch.Queue(prefetchPostings, s.g.ns, nonNil(slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return slices.Contains(skipped, t) })))
	br := tx.SendBatch(ctx, batch)
	if err := beginRead(br); err != nil {
		br.Close()
		return nil, err
	}
	err := br.QueryRow().Scan(&n, &titleTerms, &contentTerms, &written, &m.name, &m.dims)
	if err == pgx.ErrNoRows || err == nil && n == 0 {
		return nil, br.Close()
	}
	if err != nil {
		br.Close()
		return nil, err
	}
	stats := make([]termStat, len(terms))
	index := make(map[string]int, len(terms))
	for i, t := range terms {
		index[t] = i
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	for rows.Next() {
		var t string
		var st termStat
		if err := rows.Scan(&t, &st.df, &st.written); err != nil {
			rows.Close()
			br.Close()
			return nil, err
		}
		stats[index[t]] = st
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		br.Close()
		return nil, err
	}
	if rows, err = br.Query(); err != nil {
		br.Close()
		return nil, err
	}
	got, err := scanPostings(rows)
	if err != nil {
		br.Close()
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	m.pages = n
	if err := s.checkModel(m); err != nil {
		return nil, err
	}

	// The arithmetic of kgmem.InMemoryKnowledgeStore.search, operation for
	// operation, so that the scores are the same floats.
	N := float64(n)
	k1, b := storeK1, storeB
	avgdl := bm25.AvgLength(storeTitleBoost, float64(titleTerms), float64(contentTerms), N)
	weights := make([]float64, len(terms))
	maxRaw := 0.0
	matched := 0
	for i := range terms {
		df := float64(max(0, stats[i].df))
		if df > 0 {
			matched++
		}
		weights[i] = bm25.Weight(N, df, k1)
		maxRaw += weights[i]
	}
	if matched == 0 && qv == nil {
		return nil, nil
	}
	termScore := func(w, tf, length float64) float64 { return bm25.TermScore(w, tf, length, avgdl, k1, b) }
	cache := s.terms.current(n)
	lists, ids, err := s.postingLists(ctx, tx, cache, terms, stats, got, skipped)
	if err != nil {
		return nil, err
	}
	sums := sumLists(len(ids), lists, weights, termScore)
	defer putSums(sums)
	var hits []rankHit
	if qv != nil {
		bySum := make(map[string]float64, len(sums.touched))
		for _, num := range sums.touched {
			bySum[ids[num]] = sums.sum[num]
		}
		set, err := s.vectors(ctx, tx, written)
		if err != nil {
			return nil, err
		}
		if hits, err = s.fuse(ctx, set, qv, bySum, maxRaw, limit); err != nil {
			return nil, err
		}
	} else {
		top := topHits{limit: limit, h: make([]rankHit, 0, min(limit, len(sums.touched)))}
		for _, num := range sums.touched {
			top.offer(rankHit{id: ids[num], raw: sums.sum[num]})
		}
		hits = top.sorted()
		for i := range hits {
			hits[i].raw = bm25.Normalized(hits[i].raw, maxRaw)
		}
	}
	return s.scoredPages(ctx, tx, hits)
}

// scoredPages reads the pages of hits, whose raw fields are their scores,
// and commits the search's transaction, in one round trip.
func (s *Store) scoredPages(ctx context.Context, tx searchConn, hits []rankHit) ([]kgmem.ScoredPage, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]string, len(hits))
	for i := range hits {
		ids[i] = hits[i].id
	}
	batch := &pgx.Batch{}
	batch.Queue(pagesQuery, s.g.ns, ids)
	batch.Queue("COMMIT")
	br := tx.SendBatch(ctx, batch)
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	pages, err := scanPages(rows, len(ids))
	if err != nil {
		br.Close()
		return nil, err
	}
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	out := make([]kgmem.ScoredPage, len(hits))
	for i, h := range hits {
		out[i] = kgmem.ScoredPage{Page: pages[h.id], Score: h.raw}
	}
	return out, nil
}
