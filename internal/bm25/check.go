package bm25

import (
	"errors"
	"fmt"
)

// Lengths returns the numbers of title and content terms of d.
func (d *Doc[V]) Lengths() (title, content int) { return d.titleLen, d.contentLen }

// Postings calls f with every posting of the index: a term, a document
// that has it and the term's frequency there, in no particular order.
func (x *Index[V]) Postings(f func(term string, d *Doc[V], tf float64)) {
	if x == nil {
		return
	}
	for term, pl := range x.postings {
		for _, p := range pl.list {
			f(term, p.doc, p.tf)
		}
	}
}

// Terms returns the number of distinct terms of the index's documents.
func (x *Index[V]) Terms() int {
	if x == nil {
		return 0
	}
	return len(x.postings)
}

// TermTotals returns the sums over documents of their title and content
// lengths.
func (x *Index[V]) TermTotals() (title, content int64) {
	if x == nil {
		return 0, 0
	}
	return x.titleTerms, x.contentTerms
}

// Check verifies the invariants documented on Index, with every length
// recomputed from the documents, and returns an error naming the first
// one broken. It costs O(postings) and exists for tests.
func (x *Index[V]) Check() error {
	if x == nil {
		return nil
	}
	var titleTerms, contentTerms int64
	for id, d := range x.byID {
		switch {
		case id != d.ID:
			return fmt.Errorf("document %q under ID %q", d.ID, id)
		case d.num < 0 || int(d.num) >= len(x.numbered) || x.numbered[d.num] != d:
			return fmt.Errorf("document %q: number %d does not lead to it", id, d.num)
		case d.order != nil || d.tf != nil:
			return fmt.Errorf("document %q: term counts kept after Add", id)
		}
		titleTerms += int64(d.titleLen)
		contentTerms += int64(d.contentLen)
		for k, ref := range d.terms {
			if ref.pos < 0 || ref.pos >= len(ref.list.list) {
				return fmt.Errorf("document %q: term %q at position %d of %d", id, ref.list.term, ref.pos, len(ref.list.list))
			}
			p := ref.list.list[ref.pos]
			switch {
			case p.doc != d:
				return fmt.Errorf("document %q: its posting of %q is another document's", id, ref.list.term)
			case p.ref != int32(k):
				return fmt.Errorf("document %q: its posting of %q refers to term %d, not %d", id, ref.list.term, p.ref, k)
			case p.length != d.length || p.num != d.num:
				return fmt.Errorf("document %q: its posting of %q repeats length %v and number %d, not %v and %d", id, ref.list.term, p.length, p.num, d.length, d.num)
			}
			if x.postings[ref.list.term] != ref.list {
				return fmt.Errorf("document %q: term %q is not the index's", id, ref.list.term)
			}
		}
	}
	free := make(map[int32]bool, len(x.free))
	for _, num := range x.free {
		switch {
		case num < 0 || int(num) >= len(x.numbered):
			return fmt.Errorf("free number %d outside [0,%d)", num, len(x.numbered))
		case x.numbered[num] != nil:
			return fmt.Errorf("free number %d in use", num)
		case free[num]:
			return fmt.Errorf("number %d freed twice", num)
		}
		free[num] = true
	}
	if len(x.numbered) != len(x.byID)+len(x.free) {
		return fmt.Errorf("%d numbers for %d documents and %d free numbers", len(x.numbered), len(x.byID), len(x.free))
	}
	if titleTerms != x.titleTerms || contentTerms != x.contentTerms {
		return fmt.Errorf("term totals %d and %d, documents sum to %d and %d", x.titleTerms, x.contentTerms, titleTerms, contentTerms)
	}
	postings := 0
	for term, pl := range x.postings {
		switch {
		case term != pl.term:
			return fmt.Errorf("term %q under key %q", pl.term, term)
		case len(pl.list) == 0:
			return fmt.Errorf("term %q has an empty postings list", term)
		}
		seen := make(map[*Doc[V]]bool, len(pl.list))
		for _, p := range pl.list {
			switch {
			case x.byID[p.doc.ID] != p.doc:
				return fmt.Errorf("posting of %q for document %q, no longer in the index", term, p.doc.ID)
			case seen[p.doc]:
				return fmt.Errorf("two postings of %q for document %q", term, p.doc.ID)
			case !(p.tf > 0):
				return fmt.Errorf("posting of %q for document %q has frequency %v", term, p.doc.ID, p.tf)
			}
			seen[p.doc] = true
		}
		postings += len(pl.list)
	}
	refs := 0
	for _, d := range x.byID {
		refs += len(d.terms)
	}
	if refs != postings {
		return errors.New("postings and the documents' references to them differ in number")
	}
	return nil
}
