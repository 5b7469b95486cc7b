package kgmem

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kgmem/kgmem/internal/traverse"
	"github.com/stretchr/testify/require"
)

// relatedFixture: a -knows-> b -likes-> c, d -owns-> b (walked backwards
// under Both).
func relatedFixture(t *testing.T) *InMemoryGraph {
	return buildGraph(t, []Entity{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}, {ID: "c", Name: "C"}, {ID: "d", Name: "D"}},
		[]Relation{
			{SourceID: "a", TargetID: "b", Type: "knows", Weight: 0.9},
			{SourceID: "b", TargetID: "c", Type: "likes", Weight: 0.5},
			{SourceID: "d", TargetID: "b", Type: "owns", Weight: 0.8},
		})
}

func TestRelatedAccessors(t *testing.T) {
	t.Parallel()
	g := relatedFixture(t)
	r, err := g.Related(t.Context(), "a", TraverseOptions{Depth: 2, Direction: Both})
	require.NoError(t, err)
	type row struct {
		id     string
		score  float64
		hops   int
		parent int
		path   []string
		key    RelationKey
	}
	ab, bc, db := 0.9, 0.5, 0.8 // float64 arithmetic, as the traversal's
	var got []row
	for i := range r.Len() {
		got = append(got, row{r.ID(i), r.Score(i), r.Hops(i), r.Parent(i), r.Path(i), r.RelationKey(i)})
	}
	require.Equal(t, []row{
		{"b", ab, 1, -1, []string{"a", "b"}, RelationKey{"a", "b", "knows"}},
		{"d", ab * db, 2, 0, []string{"a", "b", "d"}, RelationKey{"d", "b", "owns"}},
		{"c", ab * bc, 2, 0, []string{"a", "b", "c"}, RelationKey{"b", "c", "likes"}},
	}, got)
	require.Equal(t, "a", r.Start())
	e, ok, err := r.Entity(t.Context(), 1)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Entity{ID: "d", Name: "D"}, e)
	rel, ok, err := r.Relation(t.Context(), 1)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Relation{SourceID: "d", TargetID: "b", Type: "owns", Weight: 0.8}, rel)
}

// TestRelatedIsASnapshot: writes after Related leave its IDs, scores, links
// and keys as they were; Entity and Relation read the graph as it is now.
func TestRelatedIsASnapshot(t *testing.T) {
	t.Parallel()
	g := relatedFixture(t)
	r, err := g.Related(t.Context(), "a", TraverseOptions{Depth: 2})
	require.NoError(t, err)
	require.NoError(t, g.RemoveEntity(t.Context(), "b"))
	require.NoError(t, g.AddEntity(t.Context(), Entity{ID: "z"}))
	require.NoError(t, g.AddRelation(t.Context(), Relation{SourceID: "a", TargetID: "z", Type: "knows"}))
	require.Equal(t, 2, r.Len())
	require.Equal(t, []string{"b", "c"}, []string{r.ID(0), r.ID(1)})
	require.Equal(t, []string{"a", "b", "c"}, r.Path(1))
	require.Equal(t, RelationKey{"b", "c", "likes"}, r.RelationKey(1))
	_, ok, err := r.Entity(t.Context(), 0)
	require.NoError(t, err)
	require.False(t, ok)
	_, ok, err = r.Relation(t.Context(), 1)
	require.NoError(t, err)
	require.False(t, ok)
	e, ok, err := r.Entity(t.Context(), 1)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "c", e.ID)
}

func TestRelatedErrors(t *testing.T) {
	t.Parallel()
	g := relatedFixture(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		id   string
		opts TraverseOptions
		want error
	}{
		{"unknown start", t.Context(), "nope", TraverseOptions{}, ErrNotFound},
		{"empty start", t.Context(), "", TraverseOptions{}, ErrInvalidArgument},
		{"negative depth", t.Context(), "a", TraverseOptions{Depth: -1}, ErrInvalidArgument},
		{"negative limit", t.Context(), "a", TraverseOptions{Limit: -1}, ErrInvalidArgument},
		{"unknown direction", t.Context(), "a", TraverseOptions{Direction: Direction(9)}, ErrInvalidArgument},
		{"blank type", t.Context(), "a", TraverseOptions{RelationTypes: []string{" "}}, ErrInvalidArgument},
		{"cancelled", cancelled, "a", TraverseOptions{}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := g.Related(tc.ctx, tc.id, tc.opts)
			require.Nil(t, r)
			require.True(t, errors.Is(err, tc.want), "%v", err)
			_, gerr := g.GetRelated(tc.ctx, tc.id, tc.opts)
			require.Equal(t, gerr.Error(), err.Error(), "Related fails as GetRelated does")
		})
	}
	require.NoError(t, g.Close())
	_, err := g.Related(t.Context(), "a", TraverseOptions{})
	require.ErrorIs(t, err, ErrClosed)
}

// errAfter is a context whose Err reports cancellation from its n-th call.
type errAfter struct {
	context.Context
	n int
}

func (c *errAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestRankSortCancelledKeepsScratch: a traversal cancelled at any point of
// the ranking (by radix, of results with distinct scores) returns
// ctx.Err(), and the scratch it leaves answers the next call exactly.
func TestRankSortCancelledKeepsScratch(t *testing.T) {
	t.Parallel()
	n := sized(2*traverse.SortChunk, traverse.SortChunk+100) // two chunks for each pass of the radix sort
	es := append(make([]Entity, 0, n+1), Entity{ID: "hub"})
	rs := make([]Relation, 0, n)
	for i := range n {
		id := fmt.Sprintf("y%06d", i)
		es = append(es, Entity{ID: id})
		rs = append(rs, Relation{SourceID: "hub", TargetID: id, Type: "t", Weight: float64(i+1) / float64(n+1)})
	}
	g := buildGraph(t, es, rs)
	g.mu.RLock()
	defer g.mu.RUnlock()
	st := g.step(nil, AsOf{})
	var fresh traverse.Traversal
	fresh.Grow(len(g.nodes))
	want, err := getRelated(t.Context(), st, &fresh, g.ids["hub"], TraverseOptions{Depth: 1, Limit: 10})
	require.NoError(t, err)
	var tr traverse.Traversal
	tr.Grow(len(g.nodes))
	cancelled := 0
	for calls := 0; ; calls++ {
		res, err := getRelated(&errAfter{Context: t.Context(), n: calls}, st, &tr, g.ids["hub"], TraverseOptions{Depth: 1, Limit: 10})
		if err == nil {
			require.Equal(t, want, res, "after %d cancelled calls", cancelled)
			break
		}
		require.ErrorIs(t, err, context.Canceled)
		require.Nil(t, res)
		cancelled++
		again, err := getRelated(t.Context(), st, &tr, g.ids["hub"], TraverseOptions{Depth: 1, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, want, again, "cancelled at context check %d", calls)
	}
	require.Greater(t, cancelled, 5, "the ranking must check the context between its passes")
}
