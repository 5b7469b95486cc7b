package bm25

import "context"

// Sizes of the agreement gate of Fuse.
const (
	GateBM25  = 10  // BM25's top documents whose agreement is measured
	GateDense = 100 // the dense top they are looked for in

	// denseDepth is how many documents an approximate index is asked for
	// per document a fusion returns (and at least GateDense), so that
	// fusion sees more dense candidates than the results it keeps.
	denseDepth = 2
)

// Dense is the dense side of a fusion: the weight of the similarity and
// how to find it.
type Dense[V any] struct {
	// Weight is w, in [0,1].
	Weight float64
	// Cos returns the similarity of a document to the query, in [0,1].
	Cos func(*Doc[V]) float64
	// Nearest, when not nil, returns up to k IDs of the documents most
	// similar to the query, best first, from an approximate index; IDs
	// the index does not hold are skipped. Nil means every document is
	// compared with the query (Cos is called once per document).
	Nearest func(k int) ([]string, error)
}

// Fuse returns the best limit documents (limit > 0) for terms and the
// dense similarity, each scoring
//
//	(1 − a·w)·bm25 + a·w·cos
//
// where bm25 is the document's Score as Search computes it (0 when it has
// none of the terms), cos its similarity, w the dense weight, and a the
// agreement of the two rankings on this query: the fraction of BM25's top
// 10 documents that are among the 100 nearest by similarity (1 when no
// document has a term). A similarity that knows nothing of the corpus
// agrees with BM25 on little and so reorders little. Without Nearest every
// document is scored; with it, the documents that have a term and those
// Nearest returns. Hit.Raw and Hit.Score are both the fused score, at most
// 1; documents scoring 0 are left out, ties broken by ID ascending. Terms
// is reordered in place. When ctx is cancelled during a scan of every
// document Fuse returns ctx.Err(); an error of Nearest is returned as is.
//
// Cost: O(P) for P postings of the terms, plus N calls of Cos without
// Nearest, or Nearest and O(P + k) calls of Cos with it.
func (x *Index[V]) Fuse(ctx context.Context, terms []string, limit int, p Params, dense Dense[V]) ([]Hit[V], error) {
	terms = UniqueTerms(terms)
	if x.Len() == 0 || len(terms) == 0 {
		return nil, nil
	}
	q := query[V]{lists: make([]*postingList[V], len(terms)), weights: make([]float64, len(terms))}
	x.prepare(&q, terms, p)
	w, cosine := dense.Weight, dense.Cos

	sums := x.sumTerms(&q)
	defer x.putSums(sums)
	bmTop := topK[V]{limit: GateBM25}
	for _, num := range sums.touched {
		bmTop.offer(Hit[V]{Doc: x.numbered[num], Raw: sums.sum[num]})
	}
	bm := func(d *Doc[V]) float64 { return Normalized(sums.sum[d.num], q.maxRaw) }

	// The dense candidates, nearest first, and their similarities.
	var near []Hit[V]
	var cos []float64 // cos[num] without Nearest
	if dense.Nearest == nil {
		if len(sums.cos) < len(x.numbered) {
			sums.cos = make([]float64, len(x.numbered)+len(x.numbered)/4)
		}
		cos = sums.cos
		denseTop := topK[V]{limit: max(GateDense, limit)}
		for num, d := range x.numbered {
			if num%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if d != nil {
				cos[num] = cosine(d)
				denseTop.offer(Hit[V]{Doc: d, Raw: cos[num]})
			}
		}
		near = denseTop.sorted()
	} else {
		ids, err := dense.Nearest(max(denseDepth*limit, GateDense))
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if d := x.byID[id]; d != nil {
				near = append(near, Hit[V]{Doc: d, Raw: cosine(d)})
			}
		}
	}

	// The agreement gate.
	wq := Agreement(bmTop.h, near, func(h Hit[V]) *Doc[V] { return h.Doc }) * w
	score := func(d *Doc[V], c float64) float64 { return Fused(bm(d), c, wq) }

	top := topK[V]{limit: limit, h: make([]Hit[V], 0, limit)}
	if dense.Nearest == nil {
		for num, d := range x.numbered {
			if d != nil {
				top.offer(Hit[V]{Doc: d, Raw: score(d, cos[num])})
			}
		}
	} else {
		seen := make(map[int32]struct{}, len(sums.touched)+len(near))
		for _, num := range sums.touched {
			d := x.numbered[num]
			seen[num] = struct{}{}
			top.offer(Hit[V]{Doc: d, Raw: score(d, cosine(d))})
		}
		for _, h := range near {
			if _, dup := seen[h.Doc.num]; dup {
				continue
			}
			seen[h.Doc.num] = struct{}{}
			top.offer(Hit[V]{Doc: h.Doc, Raw: score(h.Doc, h.Raw)})
		}
	}
	hits := top.sorted()
	for i := range hits {
		hits[i].Score = hits[i].Raw
	}
	return hits, nil
}
