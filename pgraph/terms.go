package pgraph

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Limits of the posting lists a Store keeps in memory.
const (
	// cacheMinDF is the document frequency from which a term's rows of
	// kgmem_page_terms are kept in memory once read: the terms whose rows
	// cost most to read again, which many queries share.
	cacheMinDF = 1024
	// cacheMaxPostings bounds the rows kept, over every term (about 24
	// bytes each); past it the cache starts over.
	cacheMaxPostings = 4 << 20
)

// termCacheMinDF is cacheMinDF; tests lower it to keep every list.
var termCacheMinDF int64 = cacheMinDF

// deleteTerms deletes the index rows of the pages ids in tx and takes
// them out of the term dictionary, stamping the terms with tx.
func (s *Store) deleteTerms(ctx context.Context, tx pgx.Tx, ids []string) error {
	_, err := tx.Exec(ctx, `WITH old AS (
	DELETE FROM `+pageTermsTable+` WHERE namespace = $1 AND page_id = ANY($2::text[]) RETURNING term
), n AS (
	SELECT term, count(*) AS n FROM old GROUP BY term
)
UPDATE `+termDFsTable+` AS d SET df = d.df - n.n, written = `+writtenNow+`
FROM n WHERE d.namespace = $1 AND d.term = n.term`, s.g.ns, ids)
	return err
}

// addTerms adds the terms of rows, whose index rows tx has written, to the
// term dictionary, stamping them with tx.
func (s *Store) addTerms(ctx context.Context, tx pgx.Tx, rows []*pageRow) error {
	counts := map[string]int64{}
	for _, r := range rows {
		for _, t := range r.terms {
			counts[t]++
		}
	}
	terms := slices.Sorted(maps.Keys(counts))
	dfs := make([]int64, len(terms))
	for i, t := range terms {
		dfs[i] = counts[t]
	}
	_, err := tx.Exec(ctx, `INSERT INTO `+termDFsTable+` AS d (namespace, term, df, written)
SELECT $1, u.term, u.df, `+writtenNow+` FROM unnest($2::text[], $3::bigint[]) AS u(term, df)
ON CONFLICT (namespace, term) DO UPDATE SET df = d.df + excluded.df, written = excluded.written`, s.g.ns, terms, dfs)
	return err
}

// plist is a term's rows of kgmem_page_terms: page numbers (of a
// termCache) with their BM25 frequency and length. Immutable once built.
type plist struct {
	nums       []int32
	tf, length []float64
}

// cachedList is a posting list kept by a termCache, and the term's
// written stamp it is of.
type cachedList struct {
	written int64
	list    *plist
}

// termCache numbers the pages a Store's searches meet, and keeps the
// posting lists of the frequent terms (df ≥ cacheMinDF) that it read,
// each with the stamp of the term it is of: a search whose snapshot reads
// the same stamp in kgmem_page_term_dfs finds the same rows, and uses the
// list kept. One cache serves every search of the Store; a full one is
// replaced by an empty one (searches holding the old go on with it).
type termCache struct {
	mu       sync.Mutex
	ids      []string // ids[n] is page n; only appended to
	num      map[string]int32
	lists    map[string]cachedList
	postings int // in lists
}

func newTermCache() *termCache {
	return &termCache{num: map[string]int32{}, lists: map[string]cachedList{}}
}

// number returns id's page number; the caller holds c.mu.
func (c *termCache) number(id string) int32 {
	n, ok := c.num[id]
	if !ok {
		n = int32(len(c.ids))
		c.ids = append(c.ids, id)
		c.num[id] = n
	}
	return n
}

// termCaches holds a Store's current termCache.
type termCaches struct {
	mu sync.Mutex
	c  *termCache
}

// current returns the cache, making a new one when there is none or the
// current one has outgrown its bounds (pages pages in the namespace).
func (tc *termCaches) current(pages int64) *termCache {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.c != nil {
		tc.c.mu.Lock()
		full := tc.c.postings > cacheMaxPostings || int64(len(tc.c.ids)) > 2*pages+4096
		tc.c.mu.Unlock()
		if !full {
			return tc.c
		}
	}
	tc.c = newTermCache()
	return tc.c
}

// termStat is a query term's entry of the term dictionary.
type termStat struct {
	df      int64
	written int64
}

// postingRow is one row of kgmem_page_terms as a search reads it.
type postingRow struct {
	term, page string
	tf, length float64
}

// kept returns the terms whose posting lists the current cache keeps,
// whatever their stamp: a search reads the lists of the other terms in its
// first round trip, before it knows the stamps (see prefetchPostings).
func (tc *termCaches) kept(terms []string) []string {
	tc.mu.Lock()
	c := tc.c
	tc.mu.Unlock()
	if c == nil {
		return nil
	}
	var out []string
	c.mu.Lock()
	for _, t := range terms {
		if _, ok := c.lists[t]; ok {
			out = append(out, t)
		}
	}
	c.mu.Unlock()
	return out
}

// prefetchPostings is the query that reads, in a search's first round
// trip, the posting lists of the query's terms but those the store keeps
// ($2: the others, computed in Go, so that the index is not read for a
// kept list only to drop its rows).
const prefetchPostings = "SELECT term, page_id, tf, length FROM " + pageTermsTable +
	" WHERE namespace = $1 AND term = ANY($2::text[])"

// scanPostings reads the rows of a posting-list query.
func scanPostings(rows pgx.Rows) ([]postingRow, error) {
	defer rows.Close()
	var got []postingRow
	for rows.Next() {
		var r postingRow
		if err := rows.Scan(&r.term, &r.page, &r.tf, &r.length); err != nil {
			return nil, err
		}
		got = append(got, r)
	}
	return got, rows.Err()
}

// postingLists returns the posting lists of terms (stats[i] being term
// i's entry, df 0 for a term no page has) as of tx's snapshot, numbered
// by c, and ids, the page of each number: the kept lists of frequent
// terms whose stamp is unchanged, those read already (got holds every row
// of the terms not in skipped, read in the same snapshot), and the others
// read in one query.
func (s *Store) postingLists(ctx context.Context, tx searchConn, c *termCache, terms []string, stats []termStat, got []postingRow, skipped []string) ([]*plist, []string, error) {
	lists := make([]*plist, len(terms))
	var fetch, read []string
	index := make(map[string]int, len(terms))
	c.mu.Lock()
	for i, t := range terms {
		if stats[i].df <= 0 {
			continue
		}
		if cl, ok := c.lists[t]; ok && cl.written == stats[i].written && int64(len(cl.list.nums)) == stats[i].df {
			lists[i] = cl.list
			continue
		}
		index[t] = i
		read = append(read, t)
		if slices.Contains(skipped, t) {
			fetch = append(fetch, t)
		}
	}
	c.mu.Unlock()
	if len(fetch) > 0 {
		rows, err := tx.Query(ctx, "SELECT term, page_id, tf, length FROM "+pageTermsTable+
			" WHERE namespace = $1 AND term = ANY($2::text[])", s.g.ns, fetch)
		if err != nil {
			return nil, nil, err
		}
		more, err := scanPostings(rows)
		if err != nil {
			return nil, nil, err
		}
		got = append(got, more...)
	}
	if len(read) > 0 {
		fetched := make([]*plist, len(terms))
		for _, t := range read {
			i := index[t]
			fetched[i] = &plist{}
			n := min(stats[i].df, int64(len(got)))
			fetched[i].nums = make([]int32, 0, n)
			fetched[i].tf = make([]float64, 0, n)
			fetched[i].length = make([]float64, 0, n)
		}
		c.mu.Lock()
		for _, r := range got {
			i, ok := index[r.term]
			if !ok {
				continue // a term whose kept list serves
			}
			l := fetched[i]
			l.nums = append(l.nums, c.number(r.page))
			l.tf = append(l.tf, r.tf)
			l.length = append(l.length, r.length)
		}
		for _, t := range read {
			i := index[t]
			lists[i] = fetched[i]
			if stats[i].df >= termCacheMinDF && int64(len(fetched[i].nums)) == stats[i].df {
				if old, ok := c.lists[t]; ok {
					c.postings -= len(old.list.nums)
				}
				c.lists[t] = cachedList{written: stats[i].written, list: fetched[i]}
				c.postings += len(fetched[i].nums)
			}
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	ids := c.ids
	c.mu.Unlock()
	return lists, ids, nil
}

// scoreSums sums per page, in ids' numbering, termScore over the postings
// of lists (weights[i] being term i's), term by term in query order, as
// kgmem's store does; only pages with a positive sum are touched.
type scoreSums struct {
	sum     []float64
	touched []int32
}

var sumsPool sync.Pool // *scoreSums

// sumLists returns the sums of lists over n numbered pages; the caller
// gives them back with putSums.
func sumLists(n int, lists []*plist, weights []float64, termScore func(w, tf, length float64) float64) *scoreSums {
	sums, _ := sumsPool.Get().(*scoreSums)
	if sums == nil {
		sums = &scoreSums{}
	}
	if len(sums.sum) < n {
		sums.sum = make([]float64, n+n/4)
	}
	for i, l := range lists {
		if l == nil {
			continue
		}
		w := weights[i]
		for j, num := range l.nums {
			c := termScore(w, l.tf[j], l.length[j])
			if c <= 0 {
				continue
			}
			if sums.sum[num] == 0 {
				sums.touched = append(sums.touched, num)
			}
			sums.sum[num] += c
		}
	}
	return sums
}

// putSums zeroes what sums touched and returns it to the pool.
func putSums(sums *scoreSums) {
	for _, num := range sums.touched {
		sums.sum[num] = 0
	}
	sums.touched = sums.touched[:0]
	sumsPool.Put(sums)
}
