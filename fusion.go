package kgmem

import (
	"context"

	"github.com/kgmem/kgmem/internal/errmsg"
)

// fuse ranks the pages of a store with an embedder for a query whose
// terms have the postings lists and weights given (lists[i] nil for a term
// no page has) and whose unit vector is qv: each page scores
//
//	(1 − w)·bm25 + w·max(0, cos)
//
// where bm25 is the page's normalised BM25 score (0 when it has none of
// the terms) and cos the dot product of its vector with qv. Without an
// approximate index every page is scored; with one, the pages that have a
// query term and those the index returns. The caller holds s.mu for
// reading.
//
// Cost: O(P) for P postings of the query's terms, plus O(N·d) for N pages
// of d dimensions without an approximate index, or the index's search and
// O((P + k)·d) with one.
func (s *InMemoryKnowledgeStore) fuse(ctx context.Context, qv []float32, lists []*postingList, weights []float64, maxRaw float64,
	termScore func(float64, posting) float64, limit int) ([]hit, error) {
	w := param(s.denseWeight, DefaultDenseWeight)
	d := s.model.Dimensions

	sums, _ := s.sums.Get().(*scoreSums)
	if sums == nil {
		sums = &scoreSums{}
	}
	if len(sums.sum) < len(s.numbered) {
		sums.sum = make([]float64, len(s.numbered)+len(s.numbered)/4)
	}
	defer func() {
		for _, num := range sums.touched {
			sums.sum[num] = 0
		}
		sums.touched = sums.touched[:0]
		s.sums.Put(sums)
	}()
	for i, pl := range lists {
		if pl == nil {
			continue
		}
		for _, p := range pl.list {
			c := termScore(weights[i], p)
			if c <= 0 {
				continue
			}
			if sums.sum[p.num] == 0 {
				sums.touched = append(sums.touched, p.num)
			}
			sums.sum[p.num] += c
		}
	}
	score := func(e *pageEntry) float64 {
		bm := 0.0
		if maxRaw > 0 {
			bm = min(1, max(0, sums.sum[e.num]/maxRaw))
		}
		off := int(e.num) * d
		cos := float64(dot(qv, s.vecs[off:off+d]))
		return min(1, (1-w)*bm+w*min(1, max(0, cos)))
	}

	top := topK{limit: limit, h: make([]hit, 0, limit)}
	if s.ann == nil {
		for num, e := range s.numbered {
			if num%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if e != nil {
				top.offer(hit{entry: e, raw: score(e)})
			}
		}
	} else {
		ids, err := s.ann.Search(qv, max(denseDepth*limit, minDenseDepth))
		if err != nil {
			return nil, errmsg.Wrap("kgmem: search: vector index", err)
		}
		seen := make(map[int32]struct{}, len(sums.touched)+len(ids))
		for _, num := range sums.touched {
			e := s.numbered[num]
			seen[num] = struct{}{}
			top.offer(hit{entry: e, raw: score(e)})
		}
		for _, id := range ids {
			e := s.pages[id]
			if e == nil {
				continue
			}
			if _, dup := seen[e.num]; dup {
				continue
			}
			seen[e.num] = struct{}{}
			top.offer(hit{entry: e, raw: score(e)})
		}
	}
	hits := top.sorted()
	for i := range hits {
		hits[i].score = hits[i].raw
	}
	return hits, nil
}
