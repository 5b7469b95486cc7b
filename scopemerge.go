package kgmem

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

// ScopeResult is one scope's answer to a retrieval over several scopes,
// as MergeScopeResults takes it: the scope's name and what its retriever
// returned, or the error it failed with.
type ScopeResult struct {
	Scope  string
	Result RetrievalResult
	Err    error
}

// MergeScopeResults merges the answers of several scopes' retrievers to
// query into one result, as Memories.Retrieve does, for callers that keep
// their scopes elsewhere (another backend, their own memories). opts are
// the options every scope's retriever ran with; only WithMaxResults (10
// when absent) matters here. Items are merged by Score, best first; items
// of equal score are in the order of their scopes' names (as bytes), then
// in their scope's order, so the merged list does not depend on the order
// of results. Each item's Scope is set to its scope's name. A scope that
// failed becomes a Warning naming it, with its error in Errors; a scope's
// own warnings are kept, each prefixed with the scope's name. Stats add
// up the scopes' counts; durations are the longest scope's; Total is left
// for the caller. Strategy is the one of the first scope, by name, that
// answered.
//
// It fails with ErrInvalidArgument for no results, a scope named twice or
// an invalid option, and with an error joining every scope's when every
// scope failed.
func MergeScopeResults(query string, results []ScopeResult, opts ...RetrieverOption) (RetrievalResult, error) {
	maxResults := defaultMaxResults
	if len(opts) > 0 {
		call, err := (&MemoryRetriever{}).forCall(opts)
		if err != nil {
			return RetrievalResult{}, err
		}
		maxResults = call.cfg.MaxResults
	}
	if len(results) == 0 {
		return RetrievalResult{}, fmt.Errorf("kgmem: merge scope results: no results: %w", ErrInvalidArgument)
	}
	answers := slices.Clone(results)
	slices.SortStableFunc(answers, func(a, b ScopeResult) int { return strings.Compare(a.Scope, b.Scope) })
	for i := 1; i < len(answers); i++ {
		if answers[i-1].Scope == answers[i].Scope {
			return RetrievalResult{}, fmt.Errorf("kgmem: merge scope results: scope %s named twice: %w", quote.Value(answers[i].Scope), ErrInvalidArgument)
		}
	}
	res := RetrievalResult{Query: query}
	var causes []error
	answered := false
	for _, a := range answers {
		if a.Err != nil {
			causes = append(causes, errmsg.Wrap("scope "+quote.Value(a.Scope), a.Err))
			continue
		}
		if !answered {
			res.Strategy = a.Result.Strategy
			answered = true
		}
		addStats(&res.Stats, a.Result.Stats)
	}
	if !answered {
		return RetrievalResult{}, fmt.Errorf("kgmem: retrieve %s: every scope failed: %w", quote.Value(query), errors.Join(causes...))
	}
	for _, c := range causes {
		res.warn(c)
	}
	for _, a := range answers {
		if a.Err != nil {
			continue
		}
		for j, w := range a.Result.Warnings {
			res.Warnings = append(res.Warnings, "scope "+quote.Value(a.Scope)+": "+w)
			e := errors.New(w)
			if j < len(a.Result.Errors) && a.Result.Errors[j] != nil {
				e = a.Result.Errors[j]
			}
			res.Errors = append(res.Errors, errmsg.Wrap("scope "+quote.Value(a.Scope), e))
		}
	}
	res.Items = mergeItems(answers, maxResults)
	return res, nil
}

// mergeItems returns the first max items of the answers that did not
// fail, by Score, best first, ties in the answers' order and then in each
// answer's, each with its scope's name. It sorts references to the items,
// not the items, and copies only those it keeps.
func mergeItems(answers []ScopeResult, max int) []RetrievalItem {
	type ref struct {
		score       float64
		answer, pos int32
	}
	n := 0
	for _, a := range answers {
		if a.Err == nil {
			n += len(a.Result.Items)
		}
	}
	refs := make([]ref, 0, n)
	for ai, a := range answers {
		if a.Err != nil {
			continue
		}
		for i, it := range a.Result.Items {
			refs = append(refs, ref{it.Score, int32(ai), int32(i)})
		}
	}
	// The references are in the answers' order, then each answer's, so
	// a stable sort by score keeps ties in that order.
	slices.SortStableFunc(refs, func(a, b ref) int { return cmp.Compare(b.score, a.score) })
	if len(refs) > max {
		refs = refs[:max]
	}
	if len(refs) == 0 {
		return nil
	}
	items := make([]RetrievalItem, len(refs))
	for i, r := range refs {
		items[i] = answers[r.answer].Result.Items[r.pos]
		items[i].Scope = answers[r.answer].Scope
	}
	return items
}
