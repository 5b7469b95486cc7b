package kgmem_test

import (
	"errors"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

func TestMergeScopeResults(t *testing.T) {
	page := func(id string, score float64) kgmem.RetrievalItem {
		return kgmem.RetrievalItem{Kind: kgmem.ItemPage, Page: &kgmem.KnowledgePage{ID: id}, Score: score}
	}
	a := kgmem.ScopeResult{Scope: "b", Result: kgmem.RetrievalResult{
		Items:    []kgmem.RetrievalItem{page("p1", 0.9), page("p2", 0.5)},
		Warnings: []string{"graph slow"}, Errors: []error{errors.New("graph slow")},
		Stats: kgmem.RetrievalStats{Linked: 1},
	}}
	b := kgmem.ScopeResult{Scope: "a", Result: kgmem.RetrievalResult{
		Items: []kgmem.RetrievalItem{page("p1", 0.5), page("p3", 0.4)},
		Stats: kgmem.RetrievalStats{Linked: 2},
	}}
	failed := kgmem.ScopeResult{Scope: "c", Err: kgmem.ErrClosed}

	for _, order := range [][]kgmem.ScopeResult{{a, b, failed}, {failed, b, a}} {
		res, err := kgmem.MergeScopeResults("q", order, kgmem.WithMaxResults(3))
		require.NoError(t, err)
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Scope+"/"+it.ID())
		}
		// Ties (0.5) go to the scope named first by bytes: "a" before "b".
		require.Equal(t, []string{"b/p1", "a/p1", "b/p2"}, got)
		require.Equal(t, []string{`scope "c": ` + kgmem.ErrClosed.Error(), `scope "b": graph slow`}, res.Warnings)
		require.ErrorIs(t, res.Errors[0], kgmem.ErrClosed)
		require.Equal(t, 3, res.Stats.Linked)
		require.Equal(t, "q", res.Query)
	}

	// A scope's items need not be in score order (a reranker or MMR may
	// reorder them): the merge orders by score all the same, ties in the
	// scope's order.
	mixed := kgmem.ScopeResult{Scope: "m", Result: kgmem.RetrievalResult{
		Items: []kgmem.RetrievalItem{page("x", 0.3), page("y", 0.8), page("z", 0.3), page("w", 0.8)},
	}}
	res, err := kgmem.MergeScopeResults("q", []kgmem.ScopeResult{mixed}, kgmem.WithMaxResults(10))
	require.NoError(t, err)
	var ids []string
	for _, it := range res.Items {
		ids = append(ids, it.ID())
	}
	require.Equal(t, []string{"y", "w", "x", "z"}, ids)

	// Without options the merge keeps RetrieverConfig's default of 10.
	var many kgmem.ScopeResult
	many.Scope = "n"
	for i := range 15 {
		many.Result.Items = append(many.Result.Items, page(string(rune('a'+i)), float64(15-i)/15))
	}
	res, err = kgmem.MergeScopeResults("q", []kgmem.ScopeResult{many})
	require.NoError(t, err)
	require.Len(t, res.Items, 10)
	require.Equal(t, "j", res.Items[9].ID())

	_, err = kgmem.MergeScopeResults("q", []kgmem.ScopeResult{failed, {Scope: "d", Err: kgmem.ErrNotFound}})
	require.ErrorIs(t, err, kgmem.ErrClosed)
	require.ErrorIs(t, err, kgmem.ErrNotFound)
	for _, bad := range [][]kgmem.ScopeResult{nil, {a, a}} {
		_, err := kgmem.MergeScopeResults("q", bad)
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	}
	_, err = kgmem.MergeScopeResults("q", []kgmem.ScopeResult{a}, kgmem.WithMaxResults(-1))
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}
