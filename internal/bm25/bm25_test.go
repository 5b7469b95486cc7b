package bm25

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var defaults = Params{K1: 1.2, B: 0.75, TitleBoost: 2}

// doc is a test document: terms separated by spaces.
type doc struct{ id, title, content string }

func build(t testing.TB, p Params, docs ...doc) *Index[string] {
	t.Helper()
	x := new(Index[string])
	for _, d := range docs {
		add(x, p, d)
	}
	require.NoError(t, x.Check())
	return x
}

func add(x *Index[string], p Params, d doc) {
	var title []string
	if p.TitleBoost > 0 {
		title = strings.Fields(d.title)
	}
	x.Add(NewDoc(d.id, d.title+"|"+d.content, title, strings.Fields(d.content), p.TitleBoost))
}

func hitIDs[V any](hits []Hit[V]) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Doc.ID
	}
	return out
}

// TestSearchHandComputed checks raw and normalised scores against the
// values worked out by hand in the root package's TestBM25HandComputed
// (k1 = 1.2, b = 0.75, title boost 2).
func TestSearchHandComputed(t *testing.T) {
	x := build(t, defaults,
		doc{"d1", "", "raft consensus raft"},
		doc{"d2", "raft", "log replication"},
		doc{"d3", "", "paxos consensus protocol design"},
	)
	const eps = 1e-9
	for _, tc := range []struct {
		terms      string
		ids        []string
		raw, score []float64
	}{
		{"raft", []string{"d1", "d2"}, []float64{0.6810831035, 0.6301433700}, []float64{0.6586826347, 0.6094182825}},
		{"raft consensus", []string{"d1", "d2", "d3"},
			[]float64{1.1888548815, 0.6301433700, 0.4531509095}, []float64{0.5748770317, 0.3047091413, 0.2191235060}},
		{"raft raft consensus raft", []string{"d1", "d2", "d3"},
			[]float64{1.1888548815, 0.6301433700, 0.4531509095}, []float64{0.5748770317, 0.3047091413, 0.2191235060}},
		{"raft zookeeper", []string{"d1", "d2"}, []float64{0.6810831035, 0.6301433700}, []float64{0.1214316089, 0.1123494664}},
		{"zookeeper", []string{}, nil, nil},
	} {
		hits := x.Search(strings.Fields(tc.terms), 10, defaults)
		require.Equal(t, tc.ids, hitIDs(hits), tc.terms)
		for i, h := range hits {
			assert.InDelta(t, tc.raw[i], h.Raw, eps, "%s: %s", tc.terms, h.Doc.ID)
			assert.InDelta(t, tc.score[i], h.Score, eps, "%s: %s", tc.terms, h.Doc.ID)
		}
	}
	// limit keeps the best.
	require.Equal(t, []string{"d1"}, hitIDs(x.Search([]string{"raft", "consensus"}, 1, defaults)))
}

// TestSearchParams: b = 0 ignores length, k1 = 0 ignores frequency, a
// title boost of 0 leaves titles out.
func TestSearchParams(t *testing.T) {
	docs := []doc{{"long", "", "raft a b c d e f g"}, {"short", "", "raft"}, {"many", "", "raft raft raft x y z w v u"}}
	// k1 = 0: every matching document scores idf exactly, so ties go by ID.
	x := build(t, Params{K1: 0, B: 0.75, TitleBoost: 2}, docs...)
	hits := x.Search([]string{"raft"}, 10, Params{K1: 0, B: 0.75, TitleBoost: 2})
	require.Equal(t, []string{"long", "many", "short"}, hitIDs(hits))
	assert.Equal(t, hits[0].Raw, hits[2].Raw)
	assert.Equal(t, 1.0, hits[0].Score)
	// b = 0: length is ignored, frequency decides.
	x = build(t, Params{K1: 1.2, B: 0, TitleBoost: 2}, docs...)
	hits = x.Search([]string{"raft"}, 10, Params{K1: 1.2, B: 0, TitleBoost: 2})
	require.Equal(t, []string{"many", "long", "short"}, hitIDs(hits))
	assert.Equal(t, hits[1].Raw, hits[2].Raw)
	// Title boost 0: a term only in a title is not found.
	p0 := Params{K1: 1.2, B: 0.75, TitleBoost: 0}
	x = build(t, p0, doc{"t", "raft", "log"})
	assert.Empty(t, x.Search([]string{"raft"}, 10, p0))
	assert.Equal(t, []string{"t"}, hitIDs(x.Search([]string{"log"}, 10, p0)))
}

// TestAddReplaceRemove: a replacement keeps the number and drops the old
// postings; a removal frees the number for the next new document.
func TestAddReplaceRemove(t *testing.T) {
	x := build(t, defaults, doc{"a", "", "alpha beta"}, doc{"b", "", "beta"}, doc{"c", "", "gamma"})
	require.Equal(t, 3, x.Len())
	require.Equal(t, int32(1), x.Get("b").Num())

	add(x, defaults, doc{"b", "", "delta"})
	require.NoError(t, x.Check())
	assert.Equal(t, int32(1), x.Get("b").Num())
	assert.Equal(t, "|delta", x.Get("b").Value)
	assert.Equal(t, []string{"a"}, hitIDs(x.Search([]string{"beta"}, 10, defaults)))
	assert.Equal(t, []string{"b"}, hitIDs(x.Search([]string{"delta"}, 10, defaults)))

	x.Remove(x.Get("a"))
	require.NoError(t, x.Check())
	assert.Nil(t, x.Get("a"))
	assert.Empty(t, x.Search([]string{"alpha", "beta"}, 10, defaults))
	add(x, defaults, doc{"d", "", "alpha"})
	require.NoError(t, x.Check())
	assert.Equal(t, int32(0), x.Get("d").Num(), "the freed number is reused")
	assert.Equal(t, 3, x.Cap())

	for _, id := range []string{"b", "c", "d"} {
		x.Remove(x.Get(id))
	}
	require.NoError(t, x.Check())
	assert.Zero(t, x.Len())
	assert.Zero(t, x.Terms())
	title, content := x.TermTotals()
	assert.Zero(t, title+content)
	assert.Empty(t, x.Search([]string{"alpha"}, 10, defaults))
}

// TestNilIndex: a nil index reads as empty.
func TestNilIndex(t *testing.T) {
	var x *Index[string]
	assert.Zero(t, x.Len())
	assert.Zero(t, x.Cap())
	assert.Nil(t, x.Get("a"))
	assert.False(t, x.Full())
	assert.Nil(t, x.Search([]string{"a"}, 10, defaults))
	hits, err := x.Fuse(context.Background(), []string{"a"}, 10, defaults, Dense[string]{Weight: 0.3, Cos: func(*Doc[string]) float64 { return 1 }})
	assert.NoError(t, err)
	assert.Nil(t, hits)
	x.Each(func(*Doc[string]) { t.Fatal("a nil index has no documents") })
	assert.NoError(t, x.Check())
}

// TestNewDocCounts: terms are counted in first-seen order, title first,
// with title occurrences boosted.
func TestNewDocCounts(t *testing.T) {
	d := NewDoc("x", 0, []string{"b", "a", "b"}, []string{"c", "a", "a"}, 3)
	assert.Equal(t, []string{"b", "a", "c"}, d.order)
	assert.Equal(t, []float64{6, 5, 1}, d.tf)
	assert.Equal(t, 3, d.Terms())
	title, content := d.Lengths()
	assert.Equal(t, [2]int{3, 3}, [2]int{title, content})
	assert.Equal(t, 12.0, d.length)
}

// reference scores every document of docs for terms by the formula of
// Search, directly, summing in query order.
func reference(docs map[string]doc, terms []string, p Params) []Hit[string] {
	terms = UniqueTerms(slices.Clone(terms))
	N := float64(len(docs))
	type counted struct {
		tf     map[string]float64
		length float64
	}
	cs := map[string]counted{}
	var total float64
	df := map[string]float64{}
	for id, d := range docs {
		c := counted{tf: map[string]float64{}}
		title := strings.Fields(d.title)
		if p.TitleBoost == 0 {
			title = nil
		}
		for _, w := range title {
			c.tf[w] += p.TitleBoost
		}
		content := strings.Fields(d.content)
		for _, w := range content {
			c.tf[w]++
		}
		c.length = p.TitleBoost*float64(len(title)) + float64(len(content))
		total += c.length
		for w := range c.tf {
			df[w]++
		}
		cs[id] = c
	}
	avgdl := total / N
	maxRaw := 0.0
	weights := make([]float64, len(terms))
	for i, t := range terms {
		weights[i] = math.Log1p((N-df[t]+0.5)/(df[t]+0.5)) * (p.K1 + 1)
		maxRaw += weights[i]
	}
	var out []Hit[string]
	for id, c := range cs {
		raw := 0.0
		for i, t := range terms {
			if f := c.tf[t]; f > 0 {
				norm := 1.0
				if avgdl > 0 {
					norm = 1 - p.B + p.B*c.length/avgdl
				}
				raw += weights[i] * (f / (f + p.K1*norm))
			}
		}
		if raw > 0 {
			out = append(out, Hit[string]{Doc: &Doc[string]{ID: id}, Raw: raw, Score: min(1, max(0, raw/maxRaw))})
		}
	}
	slices.SortFunc(out, func(a, b Hit[string]) int {
		if a.better(b) {
			return -1
		}
		return 1
	})
	return out
}

// TestRandomAgainstReference applies random writes and checks, every so
// often, the invariants and every search against the reference scores,
// bit for bit.
func TestRandomAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa")
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	x := new(Index[string])
	model := map[string]doc{}
	for step := range 1500 {
		id := fmt.Sprintf("d%02d", r.IntN(60))
		if d := x.Get(id); d != nil && r.IntN(3) == 0 {
			x.Remove(d)
			delete(model, id)
		} else {
			d := doc{id, text(r.IntN(3)), text(r.IntN(12))}
			add(x, defaults, d)
			model[id] = d
		}
		if step%100 != 99 {
			continue
		}
		require.NoError(t, x.Check())
		require.Equal(t, len(model), x.Len())
		for range 20 {
			terms := strings.Fields(text(1 + r.IntN(4)))
			want := reference(model, terms, defaults)
			got := x.Search(slices.Clone(terms), 1000, defaults)
			require.Equal(t, len(want), len(got), "%v", terms)
			for i := range want {
				require.Equal(t, want[i].Doc.ID, got[i].Doc.ID, "%v: rank %d", terms, i)
				require.Equal(t, want[i].Raw, got[i].Raw, "%v: %s", terms, got[i].Doc.ID)
				require.Equal(t, want[i].Score, got[i].Score, "%v: %s", terms, got[i].Doc.ID)
			}
			top := x.Search(slices.Clone(terms), 3, defaults)
			require.Equal(t, hitIDs(got[:min(3, len(got))]), hitIDs(top), "%v, limit 3", terms)
		}
	}
}

func TestUniqueTerms(t *testing.T) {
	long := strings.Fields(strings.Repeat("a b c d e f g h i j ", 3))
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"a", "b", "a", "c", "b"}, []string{"a", "b", "c"}},
		{long, strings.Fields("a b c d e f g h i j")},
	} {
		assert.Equal(t, tc.want, UniqueTerms(slices.Clone(tc.in)))
	}
}

// cosines is a Dense of fixed similarities by ID.
func cosines(w float64, cos map[string]float64) Dense[string] {
	return Dense[string]{Weight: w, Cos: func(d *Doc[string]) float64 { return cos[d.ID] }}
}

// TestFuse checks the fused score (1 − a·w)·bm25 + a·w·cos and its gate.
func TestFuse(t *testing.T) {
	ctx := context.Background()
	docs := []doc{{"d1", "", "raft consensus raft"}, {"d2", "raft", "log replication"}, {"d3", "", "paxos consensus protocol design"}}
	x := build(t, defaults, docs...)
	bm := map[string]float64{}
	for _, h := range x.Search([]string{"raft"}, 10, defaults) {
		bm[h.Doc.ID] = h.Score
	}
	cos := map[string]float64{"d1": 0.1, "d2": 0.2, "d3": 0.9}

	// Both BM25 pages are among the nearest (there are only 3): a = 1.
	hits, err := x.Fuse(ctx, []string{"raft"}, 10, defaults, cosines(0.3, cos))
	require.NoError(t, err)
	want := map[string]float64{
		"d1": 0.7*bm["d1"] + 0.3*0.1,
		"d2": 0.7*bm["d2"] + 0.3*0.2,
		"d3": 0.3 * 0.9,
	}
	require.Equal(t, []string{"d1", "d2", "d3"}, hitIDs(hits))
	for _, h := range hits {
		assert.InDelta(t, want[h.Doc.ID], h.Score, 1e-12, h.Doc.ID)
		assert.Equal(t, h.Raw, h.Score)
	}

	// No document has the term: a = 1, the score is w·cos.
	hits, err = x.Fuse(ctx, []string{"zookeeper"}, 2, defaults, cosines(0.5, cos))
	require.NoError(t, err)
	require.Equal(t, []string{"d3", "d2"}, hitIDs(hits))
	assert.InDelta(t, 0.45, hits[0].Score, 1e-12)

	// Weight 0 is BM25 exactly, pages of similarity alone scoring 0.
	hits, err = x.Fuse(ctx, []string{"raft"}, 10, defaults, cosines(0, cos))
	require.NoError(t, err)
	require.Equal(t, []string{"d1", "d2"}, hitIDs(hits))
	assert.Equal(t, bm["d1"], hits[0].Score)

	// A similarity of 0 everywhere leaves BM25's order.
	hits, err = x.Fuse(ctx, []string{"raft", "consensus"}, 10, defaults, cosines(0.3, nil))
	require.NoError(t, err)
	require.Equal(t, hitIDs(x.Search([]string{"raft", "consensus"}, 10, defaults)), hitIDs(hits))
}

// TestFuseGate: the agreement is measured on BM25's top 10 among the 100
// nearest; BM25 pages outside the nearest lower a.
func TestFuseGate(t *testing.T) {
	ctx := context.Background()
	x := new(Index[string])
	cos := map[string]float64{}
	// 10 pages with the term, 5 of them among the 100 nearest; 100 more
	// pages without it, 95 of them nearer than the other 5.
	for i := range 10 {
		id := fmt.Sprintf("t%02d", i)
		add(x, defaults, doc{id, "", "raft"})
		cos[id] = 0.01
		if i < 5 {
			cos[id] = 0.99
		}
	}
	for i := range 100 {
		id := fmt.Sprintf("o%03d", i)
		add(x, defaults, doc{id, "", "other"})
		cos[id] = 0.5
		if i >= 95 {
			cos[id] = 0
		}
	}
	bm := x.Search([]string{"raft"}, 1, defaults)[0].Score
	hits, err := x.Fuse(ctx, []string{"raft"}, 200, defaults, cosines(0.4, cos))
	require.NoError(t, err)
	wq := 0.5 * 0.4
	got := map[string]float64{}
	for _, h := range hits {
		got[h.Doc.ID] = h.Score
	}
	assert.InDelta(t, (1-wq)*bm+wq*0.99, got["t00"], 1e-12)
	assert.InDelta(t, (1-wq)*bm+wq*0.01, got["t09"], 1e-12)
	assert.InDelta(t, wq*0.5, got["o000"], 1e-12)
	assert.NotContains(t, got, "o099", "a page of score 0 is left out")
	assert.Len(t, hits, 105)
}

// TestFuseNearest: with Nearest returning every document, the fusion
// equals the exact one; unknown IDs are skipped; errors are returned.
func TestFuseNearest(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("a b c d e f")
	x := new(Index[string])
	cos := map[string]float64{}
	for i := range 200 {
		id := fmt.Sprintf("p%03d", i)
		add(x, defaults, doc{id, "", words[r.IntN(6)] + " " + words[r.IntN(6)]})
		cos[id] = r.Float64()
	}
	all := func(k int) ([]string, error) {
		var ids []string
		x.Each(func(d *Doc[string]) { ids = append(ids, d.ID) })
		slices.SortFunc(ids, func(a, b string) int {
			if cos[a] != cos[b] {
				if cos[a] > cos[b] {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		return append(ids[:min(k, len(ids))], "unknown"), nil
	}
	for _, terms := range [][]string{{"a"}, {"a", "b"}, {"z"}} {
		exact, err := x.Fuse(ctx, slices.Clone(terms), 150, defaults, cosines(0.3, cos))
		require.NoError(t, err)
		d := cosines(0.3, cos)
		d.Nearest = all
		approx, err := x.Fuse(ctx, slices.Clone(terms), 150, defaults, d)
		require.NoError(t, err)
		require.Equal(t, hitIDs(exact), hitIDs(approx), "%v", terms)
	}
	boom := errors.New("boom")
	d := cosines(0.3, cos)
	d.Nearest = func(int) ([]string, error) { return nil, boom }
	_, err := x.Fuse(ctx, []string{"a"}, 10, defaults, d)
	require.ErrorIs(t, err, boom)
}

// TestFuseCancelled: a cancelled context stops a scan of every document.
func TestFuseCancelled(t *testing.T) {
	x := new(Index[string])
	for i := range 5000 {
		add(x, defaults, doc{fmt.Sprintf("p%04d", i), "", "a"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := x.Fuse(ctx, []string{"a"}, 10, defaults, cosines(0.3, nil))
	require.ErrorIs(t, err, context.Canceled)
}
