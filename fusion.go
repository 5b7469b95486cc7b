package kgmem

import (
	"context"

	"github.com/kgmem/kgmem/internal/errmsg"
)

// Sizes of the agreement gate of fuse.
const (
	gateBM25  = 10  // BM25's top pages whose agreement is measured
	gateDense = 100 // the dense top they are looked for in
)

// fuse ranks the pages of a store with an embedder for a query whose
// terms have the postings lists and weights given (lists[i] nil for a term
// no page has) and whose unit vector is qv: each page scores
//
//	(1 − a·w)·bm25 + a·w·max(0, cos)
//
// where bm25 is the page's normalised BM25 score (0 when it has none of
// the terms), cos the dot product of its vector with qv, w the dense
// weight, and a the agreement of the two rankings on this query: the
// fraction of BM25's top 10 pages that are among the 100 nearest by
// vector (1 when no page has a query term). A model that knows nothing of
// the corpus agrees with BM25 on little and so reorders little. Without
// an approximate index every page is scored; with one, the pages that have
// a query term and those the index returns. The caller holds s.mu for
// reading.
//
// Cost: O(P) for P postings of the query's terms, plus O(N·d) for N pages
// of d dimensions without an approximate index, or the index's search and
// O((P + k)·d) with one.
func (s *InMemoryKnowledgeStore) fuse(ctx context.Context, qv []float32, lists []*postingList, weights []float64, maxRaw float64,
	termScore func(float64, posting) float64, limit int) ([]hit, error) {
	w := param(s.denseWeight, defaultDenseWeight)
	d := s.model.Dimensions

	sums := s.sumTerms(lists, weights, termScore)
	defer s.putSums(sums)
	bmTop := topK{limit: gateBM25}
	for _, num := range sums.touched {
		bmTop.offer(hit{entry: s.numbered[num], raw: sums.sum[num]})
	}
	bm := func(e *pageEntry) float64 {
		if maxRaw <= 0 {
			return 0
		}
		return min(1, max(0, sums.sum[e.num]/maxRaw))
	}
	cosine := func(e *pageEntry) float64 {
		off := int(e.num) * d
		return min(1, max(0, float64(dot(qv, s.vecs[off:off+d]))))
	}

	// The dense candidates, nearest first, and their similarities.
	var dense []hit
	var cos []float64 // cos[e.num] without an approximate index
	if s.ann == nil {
		if len(sums.cos) < len(s.numbered) {
			sums.cos = make([]float64, len(s.numbered)+len(s.numbered)/4)
		}
		cos = sums.cos
		denseTop := topK{limit: max(gateDense, limit)}
		for num, e := range s.numbered {
			if num%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if e != nil {
				cos[num] = cosine(e)
				denseTop.offer(hit{entry: e, raw: cos[num]})
			}
		}
		dense = denseTop.sorted()
	} else {
		ids, err := s.ann.Search(qv, max(denseDepth*limit, gateDense))
		if err != nil {
			return nil, errmsg.Wrap("kgmem: search: vector index", err)
		}
		for _, id := range ids {
			if e := s.pages[id]; e != nil {
				dense = append(dense, hit{entry: e, raw: cosine(e)})
			}
		}
	}

	// The agreement gate.
	a := 1.0
	if len(bmTop.h) > 0 {
		near := make(map[*pageEntry]struct{}, gateDense)
		for _, h := range dense[:min(gateDense, len(dense))] {
			near[h.entry] = struct{}{}
		}
		n := 0
		for _, h := range bmTop.h {
			if _, ok := near[h.entry]; ok {
				n++
			}
		}
		a = float64(n) / float64(len(bmTop.h))
	}
	wq := a * w
	score := func(e *pageEntry, c float64) float64 { return min(1, (1-wq)*bm(e)+wq*c) }

	top := topK{limit: limit, h: make([]hit, 0, limit)}
	if s.ann == nil {
		for num, e := range s.numbered {
			if e != nil {
				top.offer(hit{entry: e, raw: score(e, cos[num])})
			}
		}
	} else {
		seen := make(map[int32]struct{}, len(sums.touched)+len(dense))
		for _, num := range sums.touched {
			e := s.numbered[num]
			seen[num] = struct{}{}
			top.offer(hit{entry: e, raw: score(e, cosine(e))})
		}
		for _, h := range dense {
			if _, dup := seen[h.entry.num]; dup {
				continue
			}
			seen[h.entry.num] = struct{}{}
			top.offer(hit{entry: h.entry, raw: score(h.entry, h.raw)})
		}
	}
	hits := top.sorted()
	for i := range hits {
		hits[i].score = hits[i].raw
	}
	return hits, nil
}
