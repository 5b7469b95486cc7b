// Package bm25 is the inverted index and the ranking of kgmem's knowledge
// store: documents made of a title and a content, each given as its list of
// terms, scored against a query's terms with BM25 and, when the store has
// vectors, fused with a dense similarity (see Index.Fuse).
//
// The package works on plain data: document IDs, term lists and
// similarities the caller computes. It knows nothing of pages, tokenizing,
// embedders or errors of the store; package kgmem documents the ranking
// its users see (InMemoryKnowledgeStore.Search).
//
// An Index is not safe for concurrent use on its own: the caller holds a
// lock, exclusively for Add and Remove, shared for Search and Fuse, which
// may run at once.
package bm25

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// Params are the ranking parameters of a search: BM25's k1 and b, and how
// many times a title term counts compared with a content term (the boost
// the documents were made with by NewDoc).
type Params struct {
	K1, B, TitleBoost float64
}

// Doc is a document: its ID, the value its caller carries along with it,
// and its place in an index. A Doc is made by NewDoc, added to at most one
// Index, and never modified by the caller.
type Doc[V any] struct {
	// ID identifies the document in its index; ties in score are broken
	// by ID, ascending.
	ID string
	// Value is the caller's, never read by the index.
	Value V

	titleLen   int     // terms in the title
	contentLen int     // terms in the content
	length     float64 // titleBoost*titleLen + contentLen
	num        int32   // the document's index in Index.numbered, once added
	terms      []termRef[V]

	// Set by NewDoc, dropped by Add: the document's distinct terms in
	// first-seen order (title first) and their frequencies,
	// titleBoost × title occurrences + content occurrences.
	order []string
	tf    []float64
}

// NewDoc returns the document of ID id with value v whose title and
// content are the terms given (title nil to leave titles out, as a title
// boost of 0 does), each title occurrence counting titleBoost times. Terms
// are counted in first-seen order, so that the same document is always
// laid out the same way.
func NewDoc[V any](id string, v V, title, content []string, titleBoost float64) *Doc[V] {
	d := &Doc[V]{ID: id, Value: v}
	index := make(map[string]int)
	var counts [][2]int
	count := func(toks []string, field int) int {
		for _, tok := range toks {
			i, ok := index[tok]
			if !ok {
				i = len(d.order)
				index[tok] = i
				d.order = append(d.order, tok)
				counts = append(counts, [2]int{})
			}
			counts[i][field]++
		}
		return len(toks)
	}
	d.titleLen = count(title, 0)
	d.contentLen = count(content, 1)
	d.length = titleBoost*float64(d.titleLen) + float64(d.contentLen)
	d.tf = make([]float64, len(counts))
	for i, c := range counts {
		d.tf[i] = titleBoost*float64(c[0]) + float64(c[1])
	}
	d.terms = make([]termRef[V], len(d.order))
	return d
}

// Terms returns the number of distinct terms of d, a document not yet
// added.
func (d *Doc[V]) Terms() int { return len(d.order) }

// Num returns d's number in its index: dense, in [0, Index.Cap()), reused
// after a Remove, kept by a replacement of the same ID. It is meaningful
// only while d is in the index.
func (d *Doc[V]) Num() int32 { return d.num }

// termRef locates one of a document's postings.
type termRef[V any] struct {
	list *postingList[V]
	pos  int // index of the document's posting in list.list
}

// postingList is the postings of one term, in no particular order.
type postingList[V any] struct {
	term string // the postings map key; owned, not a slice of a document
	list []posting[V]
}

// posting records that a document contains a term. It repeats the
// document's length and number so that scoring reads only the postings
// list.
type posting[V any] struct {
	doc    *Doc[V]
	tf     float64 // > 0
	length float64 // doc.length
	num    int32   // doc.num
	ref    int32   // index of the termRef in doc.terms that points here
}

// Index is an inverted index of documents. The zero value is an empty
// index ready to use; a nil *Index is an empty index that Len, Get, Full,
// Each, Search and Fuse read as such (Add needs an Index).
//
// Invariants, true between calls:
//   - byID[id] is the document with that ID.
//   - postings[t] exists exactly when some document has term t, and
//     postings[t].list holds exactly one posting per such document, with
//     its frequency of t.
//   - For every document d and every k, d.terms[k].list.list[d.terms[k].pos]
//     is d's posting, and that posting's ref is k: each document knows
//     where its postings are, so removing one touches only them.
//   - numbered[d.num] == d for every document d; every other element of
//     numbered is nil and its index is in free, once. Numbers are dense,
//     so a search can sum scores in an array instead of a map.
//   - titleTerms and contentTerms are the sums over documents of titleLen
//     and contentLen; they are integers so that every sequence of writes
//     reaching the same documents gives the same statistics, and hence the
//     same scores, bit for bit.
type Index[V any] struct {
	byID         map[string]*Doc[V]
	postings     map[string]*postingList[V]
	numbered     []*Doc[V]
	free         []int32
	titleTerms   int64
	contentTerms int64

	// sums holds *scoreSums for searches of several terms; each search
	// takes one for its own use, so that searches may run at once.
	sums sync.Pool
}

// Len returns the number of documents.
func (x *Index[V]) Len() int {
	if x == nil {
		return 0
	}
	return len(x.byID)
}

// Cap returns one more than the largest document number in use (0 when
// the index never held a document).
func (x *Index[V]) Cap() int {
	if x == nil {
		return 0
	}
	return len(x.numbered)
}

// Get returns the document with the given ID, nil when there is none.
func (x *Index[V]) Get(id string) *Doc[V] {
	if x == nil {
		return nil
	}
	return x.byID[id]
}

// Full reports whether a new document (one whose ID is not in the index)
// would find no number left.
func (x *Index[V]) Full() bool {
	return x != nil && len(x.free) == 0 && len(x.numbered) == math.MaxInt32
}

// Each calls f with every document, in no particular order.
func (x *Index[V]) Each(f func(*Doc[V])) {
	if x == nil {
		return
	}
	for _, d := range x.byID {
		f(d)
	}
}

// Add adds d, made by NewDoc and never added, replacing the document with
// the same ID if there is one; the replaced document keeps nothing in the
// index and d takes its number. A new document takes a free number, or a
// new one; the caller checks Full first.
func (x *Index[V]) Add(d *Doc[V]) {
	if x.byID == nil { // the zero value's first document
		x.byID = make(map[string]*Doc[V])
		x.postings = make(map[string]*postingList[V])
	}
	if old := x.byID[d.ID]; old != nil {
		x.unindex(old)
		d.num = old.num
	} else if n := len(x.free); n > 0 {
		d.num = x.free[n-1]
		x.free = x.free[:n-1]
	} else {
		d.num = int32(len(x.numbered))
		x.numbered = append(x.numbered, nil)
	}
	x.numbered[d.num] = d
	x.byID[d.ID] = d
	x.titleTerms += int64(d.titleLen)
	x.contentTerms += int64(d.contentLen)
	for i, t := range d.order {
		pl := x.postings[t]
		if pl == nil {
			pl = &postingList[V]{term: strings.Clone(t)}
			x.postings[pl.term] = pl
		}
		d.terms[i] = termRef[V]{list: pl, pos: len(pl.list)}
		pl.list = append(pl.list, posting[V]{doc: d, tf: d.tf[i], length: d.length, num: d.num, ref: int32(i)})
	}
	d.order, d.tf = nil, nil
}

// Remove removes d, a document of the index, and frees its number.
func (x *Index[V]) Remove(d *Doc[V]) {
	x.unindex(d)
	delete(x.byID, d.ID)
	x.numbered[d.num] = nil
	x.free = append(x.free, d.num)
}

// unindex removes d's postings and lengths from the index (not from byID
// or numbered).
func (x *Index[V]) unindex(d *Doc[V]) {
	for _, ref := range d.terms {
		pl := ref.list
		last := len(pl.list) - 1
		if ref.pos != last {
			moved := pl.list[last]
			pl.list[ref.pos] = moved
			moved.doc.terms[moved.ref].pos = ref.pos
		}
		pl.list[last] = posting[V]{}
		pl.list = pl.list[:last]
		if len(pl.list) == 0 {
			delete(x.postings, pl.term)
		} else if cap(pl.list) > 64 && len(pl.list) < cap(pl.list)/4 {
			pl.list = slices.Clip(slices.Clone(pl.list))
		}
	}
	d.terms = nil
	x.titleTerms -= int64(d.titleLen)
	x.contentTerms -= int64(d.contentLen)
}

// Term returns d's i-th term, in first-seen order, and its weighted
// frequency (a title occurrence counting the title boost).
func (d *Doc[V]) Term(i int) (string, float64) { return d.order[i], d.tf[i] }

// Length returns d's weighted length: its title tokens times the title
// boost, plus its content tokens.
func (d *Doc[V]) Length() float64 { return d.length }
