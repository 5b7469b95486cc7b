package bm25

import "slices"

// Hit is a ranked document: its raw score (BM25, or the fused score) and
// its score normalised to [0,1].
type Hit[V any] struct {
	Doc   *Doc[V]
	Raw   float64
	Score float64
}

// better reports whether a ranks before b: higher raw score, then smaller
// ID.
func (a Hit[V]) better(b Hit[V]) bool {
	if a.Raw != b.Raw {
		return a.Raw > b.Raw
	}
	return a.Doc.ID < b.Doc.ID
}

// query is a search's terms against the index: each term's postings (nil
// for a term no document has) and weight idf(t)·(k1+1), the largest raw
// score the query could reach, and the parameters of termScore.
type query[V any] struct {
	lists   []*postingList[V]
	weights []float64
	maxRaw  float64
	matched int // terms some document has
	k1, b   float64
	avgdl   float64
}

// prepare looks up terms, distinct, in a non-empty index, filling q,
// whose lists and weights the caller has made of len(terms) (in its own
// frame, so that a short query allocates nothing for them).
func (x *Index[V]) prepare(q *query[V], terms []string, p Params) {
	N := float64(len(x.byID))
	q.k1, q.b = p.K1, p.B
	q.avgdl = AvgLength(p.TitleBoost, float64(x.titleTerms), float64(x.contentTerms), N)
	for i, t := range terms {
		pl := x.postings[t]
		df := 0.0
		if pl != nil {
			q.lists[i] = pl
			df = float64(len(pl.list))
			q.matched++
		}
		q.weights[i] = Weight(N, df, p.K1)
		q.maxRaw += q.weights[i]
	}
}

// termScore is bm25(t) for one posting of a term of weight w; written as
// weight × a fraction that is at most 1 so that, in floating point too, no
// document exceeds maxRaw.
func (q *query[V]) termScore(w float64, p *posting[V]) float64 {
	return TermScore(w, p.tf, p.length, q.avgdl, q.k1, q.b)
}

// Search returns the best limit documents (limit > 0) for terms, by their
// BM25 score, highest first, ties broken by ID ascending; repeated terms
// count once. For N documents of average length avgdl, a term t found in n
// of them, and a document of length dl in which t has frequency f:
//
//	idf(t)    = ln(1 + (N − n + 0.5) / (n + 0.5))
//	bm25(t)   = idf(t) · (k1 + 1) · f / (f + k1 · (1 − b + b · dl/avgdl))
//	bm25(doc) = Σ over the terms of bm25(t)
//
// Hit.Raw is bm25(doc) and Hit.Score bm25(doc) divided by Σ idf(t)·(k1 + 1)
// over the terms, clamped to [0,1]. Documents scoring 0 are left out. Terms
// is reordered in place.
//
// Cost: O(P log limit) for P postings of the terms.
func (x *Index[V]) Search(terms []string, limit int, p Params) []Hit[V] {
	terms = UniqueTerms(terms)
	if x.Len() == 0 || len(terms) == 0 {
		return nil
	}
	q := query[V]{lists: make([]*postingList[V], len(terms)), weights: make([]float64, len(terms))}
	x.prepare(&q, terms, p)
	if q.matched == 0 {
		return nil
	}
	top := topK[V]{limit: limit}
	if q.matched == 1 {
		// One term: each posting is a document's whole score.
		for i, pl := range q.lists {
			if pl == nil {
				continue
			}
			top.h = make([]Hit[V], 0, min(limit, len(pl.list)))
			for j := range pl.list {
				p := &pl.list[j]
				top.offer(Hit[V]{Doc: p.doc, Raw: q.termScore(q.weights[i], p)})
			}
		}
	} else {
		// Several terms: sum per document.
		sums := x.sumTerms(&q)
		top.h = make([]Hit[V], 0, min(limit, len(sums.touched)))
		for _, num := range sums.touched {
			top.offer(Hit[V]{Doc: x.numbered[num], Raw: sums.sum[num]})
		}
		x.putSums(sums)
	}
	hits := top.sorted()
	for i := range hits {
		hits[i].Score = Normalized(hits[i].Raw, q.maxRaw)
	}
	return hits
}

// scoreSums accumulates per-document scores during one search: sum[num] is
// document num's score so far, touched the numbers with a non-zero sum.
// Between searches every sum is 0 and touched is empty.
type scoreSums struct {
	sum     []float64
	touched []int32
	cos     []float64 // in a fusion: each document's similarity to the query
}

// sumTerms returns, from the pool, each document's sum of termScore over
// q's postings, summed term by term in query order so that a document's
// sum never depends on the order of the postings; only documents with a
// positive sum are touched. The caller gives the sums back with putSums.
func (x *Index[V]) sumTerms(q *query[V]) *scoreSums {
	sums, _ := x.sums.Get().(*scoreSums)
	if sums == nil {
		sums = &scoreSums{}
	}
	if len(sums.sum) < len(x.numbered) {
		sums.sum = make([]float64, len(x.numbered)+len(x.numbered)/4)
	}
	for i, pl := range q.lists {
		if pl == nil {
			continue
		}
		for j := range pl.list {
			p := &pl.list[j]
			c := q.termScore(q.weights[i], p)
			if c <= 0 {
				continue
			}
			if sums.sum[p.num] == 0 {
				sums.touched = append(sums.touched, p.num)
			}
			sums.sum[p.num] += c
		}
	}
	return sums
}

// putSums zeroes what sums touched and returns it to the pool.
func (x *Index[V]) putSums(sums *scoreSums) {
	for _, num := range sums.touched {
		sums.sum[num] = 0
	}
	sums.touched = sums.touched[:0]
	x.sums.Put(sums)
}

// UniqueTerms removes repeated terms in place, keeping first occurrences
// in order.
func UniqueTerms(terms []string) []string {
	out := terms[:0]
	if len(terms) <= 16 {
		for _, t := range terms {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}
	seen := make(map[string]struct{}, len(terms))
	for _, t := range terms {
		if _, dup := seen[t]; !dup {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// topK keeps the limit best hits offered to it in a heap whose root is the
// worst hit kept.
type topK[V any] struct {
	limit int
	h     []Hit[V]
}

func (k *topK[V]) offer(x Hit[V]) {
	if x.Raw <= 0 {
		return
	}
	if len(k.h) < k.limit {
		k.h = append(k.h, x)
		k.up(len(k.h) - 1)
		return
	}
	if !x.better(k.h[0]) {
		return
	}
	k.h[0] = x
	k.down(0)
}

// up and down keep the heap property: no hit ranks after its children.
func (k *topK[V]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !k.h[parent].better(k.h[i]) {
			return
		}
		k.h[parent], k.h[i] = k.h[i], k.h[parent]
		i = parent
	}
}

func (k *topK[V]) down(i int) {
	n := len(k.h)
	for {
		worst := i
		if l := 2*i + 1; l < n && k.h[worst].better(k.h[l]) {
			worst = l
		}
		if r := 2*i + 2; r < n && k.h[worst].better(k.h[r]) {
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
func (k *topK[V]) sorted() []Hit[V] {
	slices.SortFunc(k.h, func(a, b Hit[V]) int {
		if a.better(b) {
			return -1
		}
		if b.better(a) {
			return 1
		}
		return 0
	})
	return k.h
}
