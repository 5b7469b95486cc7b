package kgmem_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/stretchr/testify/require"
)

// TestRulesMatchInMemoryGraph checks that the exported validation rules
// and the text rules of internal/textrule give exactly the answers
// InMemoryGraph gives, so a backend built on them agrees.
func TestRulesMatchInMemoryGraph(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{{ID: "a"}, {ID: "b"}}, nil))

	for _, e := range []kgmem.Entity{
		{ID: ""}, {ID: " \t"}, {ID: "\xff"}, {ID: "x", Name: "\xfe"}, {ID: "x", Aliases: []string{"ok", "\xff"}},
		{ID: "x", Properties: map[string]string{"k": "\xff"}}, {ID: "fine", Tags: []string{" Go "}},
	} {
		require.Equal(t, g.AddEntity(ctx, e), kgmem.ValidateEntity(e), "%+v", e)
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "", TargetID: "b", Type: "t"}, {SourceID: "a", TargetID: "b", Type: ""},
		{SourceID: "a", TargetID: "b", Type: "t", Weight: math.NaN()},
		{SourceID: "a", TargetID: "b", Type: "t", Weight: 1.5},
		{SourceID: "a", TargetID: "b", Type: "t", Weight: 0.5, SourceIDs: []string{"\xff"}},
		{SourceID: "a", TargetID: "b", Type: "t", Weight: 0.5},
		{SourceID: "a", TargetID: "b", Type: " "}, {SourceID: "a", TargetID: "\u3000", Type: "t"},
		{SourceID: "a", TargetID: "a", Type: "self"},
	} {
		want := g.AddRelation(ctx, r)
		require.Equal(t, want, kgmem.ValidateRelation(&r), "%+v", r)
		if want == nil {
			stored, ok, err := g.GetRelation(ctx, r.SourceID, r.TargetID, r.Type)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, stored, r, "ValidateRelation normalises as AddRelation stores")
		}
	}
	// A zero weight, and -0, become 1.
	for _, w := range []float64{0, math.Copysign(0, -1)} {
		r := kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: w}
		require.NoError(t, kgmem.ValidateRelation(&r))
		require.Equal(t, 1.0, r.Weight)
		require.False(t, math.Signbit(r.Weight))
	}
	for _, name := range []string{"", "  ", "\xff"} {
		require.ErrorIs(t, kgmem.ValidateName(name), kgmem.ErrInvalidArgument, "%q", name)
		_, err := g.FindByName(ctx, name)
		require.Equal(t, kgmem.ValidateName(name), err)
	}
	require.NoError(t, kgmem.ValidateName("!!!"))
	require.Equal(t, g.RemoveRelation(ctx, "a", "", "t"), kgmem.ValidateRelationKey("a", "", "t"))
	require.NoError(t, kgmem.ValidateRelationKey("a", "b", "t"))

	// Keywords: the count FindByKeywords orders by, on random entities.
	rng := rand.New(rand.NewPCG(8, 8))
	words := []string{"Go", "go", "GRAPH", "图谱", "ＡＰＩ", "api", "x"}
	pick := func() string { return words[rng.IntN(len(words))] + words[rng.IntN(len(words))] }
	var es []kgmem.Entity
	for i := range 40 {
		e := kgmem.Entity{ID: fmt.Sprintf("e%02d", i), Name: pick(), Aliases: []string{pick()}, Tags: []string{pick()}}
		require.NoError(t, g.AddEntity(ctx, e))
		e, _, _ = g.GetEntity(ctx, e.ID) // tags as stored
		es = append(es, e)
	}
	for range 50 {
		keywords := []string{pick(), " " + words[rng.IntN(len(words))], ""}
		folded, err := textrule.FoldKeywords(keywords, kgmem.ErrInvalidArgument)
		require.NoError(t, err)
		var want, buf []string
		for _, e := range es {
			if textrule.CountKeywords(folded, &buf, e.ID, e.Name, e.Aliases, e.Tags) > 0 {
				want = append(want, e.ID)
			}
		}
		got, err := g.FindByKeywords(ctx, keywords)
		require.NoError(t, err)
		var gotIDs []string
		for _, e := range got {
			if e.ID != "a" && e.ID != "b" && e.ID != "fine" {
				gotIDs = append(gotIDs, e.ID)
			}
		}
		slices.Sort(gotIDs)
		require.Equal(t, want, gotIDs, "%q", keywords)
	}

	// Link keys: every entity LinkEntities finds bears a key among the
	// text's span keys.
	linked := 0
	for _, text := range []string{"GoGraph and 图谱api", "ＡＰＩx go", "xx", "？"} {
		spans := textrule.LinkSpanKeys(text)
		ms, err := g.LinkEntities(ctx, text)
		require.NoError(t, err)
		linked += len(ms)
		for _, m := range ms {
			var keys []string
			for _, n := range append([]string{m.Entity.Name}, m.Entity.Aliases...) {
				if k, _, ok := textrule.LinkKey(n); ok {
					keys = append(keys, k)
				}
			}
			require.True(t, slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(spans, k) }),
				"%q links %s with keys %q, spans %q", text, m.Entity.ID, keys, spans)
		}
	}
	require.Positive(t, linked, "the texts link nothing: the check checks nothing")
	_, _, ok := textrule.LinkKey("？！")
	require.False(t, ok)
}
