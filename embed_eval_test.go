package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/internal/bm25"
	"github.com/kgmem/kgmem/internal/hashembed"
	"github.com/stretchr/testify/require"
)

// The fusion evaluation compares, on Cranfield and on a paraphrase set,
// BM25 alone, the dense ranking alone and several ways of fusing them, with
// the hashing test embedder, random vectors, and a real sentence encoder
// (when KGMEM_USE_MODULES is set: see usemodel_test.go). It chose the fusion the store uses (a convex
// combination with defaultDenseWeight, scaled per query by the agreement
// gate) and checks that the store's fused ranking is never worse than
// BM25 alone.

// hashTestEmbedder is kgmemtest.HashEmbedder for the tests of this
// package, which kgmemtest imports.
type hashTestEmbedder struct{ dims int }

func (h hashTestEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "kgmemtest-hash-v1", Dimensions: h.dims}
}

func (h hashTestEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashembed.Embed(t, h.dims)
	}
	return out, nil
}

// evalSet is a collection with graded judgements: gain[q][id] > 0 for the
// pages relevant to query q.
type evalSet struct {
	name    string
	docs    []KnowledgePage
	queries []string
	gain    []map[string]float64
}

func (c *cranfield) evalSet() *evalSet {
	s := &evalSet{name: "Cranfield", docs: c.docs}
	for i, q := range c.queries {
		g := map[string]float64{}
		for id, grade := range c.grades[i+1] {
			if grade >= 1 && grade <= 4 {
				g[id] = float64(5 - grade)
			}
		}
		if len(g) > 0 {
			s.queries = append(s.queries, q)
			s.gain = append(s.gain, g)
		}
	}
	return s
}

// quality is the mean of nDCG@10, MAP (over the whole ranking, at most
// 100 deep) and recall@100 over the queries.
type quality struct{ ndcg10, mapScore, recall100 float64 }

func (q quality) String() string {
	return fmt.Sprintf("nDCG@10 %.4f  MAP %.4f  R@100 %.4f", q.ndcg10, q.mapScore, q.recall100)
}

// measure scores ranked, one list of page IDs per query, best first.
func (s *evalSet) measure(ranked [][]string) quality {
	var q quality
	for i, ids := range ranked {
		gain := s.gain[i]
		var ideal []float64
		for _, g := range gain {
			ideal = append(ideal, g)
		}
		slices.SortFunc(ideal, func(a, b float64) int { return cmp.Compare(b, a) })
		dcg, idcg, ap, found := 0.0, 0.0, 0.0, 0
		for r, id := range ids[:min(100, len(ids))] {
			g := gain[id]
			if r < 10 {
				dcg += g / math.Log2(float64(r)+2)
			}
			if g > 0 {
				found++
				ap += float64(found) / float64(r+1)
			}
		}
		for r, g := range ideal[:min(10, len(ideal))] {
			idcg += g / math.Log2(float64(r)+2)
		}
		q.ndcg10 += dcg / idcg
		q.mapScore += ap / float64(len(ideal))
		q.recall100 += float64(found) / float64(len(ideal))
	}
	n := float64(len(ranked))
	return quality{q.ndcg10 / n, q.mapScore / n, q.recall100 / n}
}

// scoredRun holds, per query, the normalised BM25 score and the cosine
// similarity of every page.
type scoredRun struct {
	ids  []string
	bm25 [][]float64 // [query][doc]
	cos  [][]float64
}

func (s *evalSet) score(t testing.TB, e Embedder) *scoredRun {
	t.Helper()
	ctx := context.Background()
	st := NewInMemoryKnowledgeStore()
	require.NoError(t, st.PutBatch(ctx, s.docs))
	texts := make([]string, len(s.docs))
	r := &scoredRun{}
	index := map[string]int{}
	for i, d := range s.docs {
		texts[i] = pageText(d)
		r.ids = append(r.ids, d.ID)
		index[d.ID] = i
	}
	m := e.Model()
	dv, err := embedTexts(ctx, e, m, texts, func(int) string { return "doc" }, rejectZero)
	require.NoError(t, err)
	qv, err := embedTexts(ctx, e, m, s.queries, func(int) string { return "query" }, rejectZero)
	require.NoError(t, err)
	for qi, q := range s.queries {
		bm := make([]float64, len(s.docs))
		hits, err := st.Search(ctx, q, len(s.docs))
		require.NoError(t, err)
		for _, h := range hits {
			bm[index[h.Page.ID]] = h.Score
		}
		cos := make([]float64, len(s.docs))
		for i := range s.docs {
			cos[i] = float64(dot(qv[qi], dv[i]))
		}
		r.bm25 = append(r.bm25, bm)
		r.cos = append(r.cos, cos)
	}
	return r
}

// rank orders the pages with positive score, best first, ties by ID.
func (r *scoredRun) rank(score []float64) []string {
	idx := make([]int, 0, len(score))
	for i, s := range score {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		return strings.Compare(r.ids[a], r.ids[b])
	})
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = r.ids[j]
	}
	return out
}

// fusion is one way of combining the two scores of every page for a query.
type fusion struct {
	name string
	fuse func(bm, cos []float64) []float64
}

func convexFusion(w float64) fusion {
	return fusion{fmt.Sprintf("convex w=%.2f", w), func(bm, cos []float64) []float64 {
		out := make([]float64, len(bm))
		for i := range bm {
			out[i] = (1-w)*bm[i] + w*max(0, cos[i])
		}
		return out
	}}
}

// gatedFusion is the store's fusion: the convex combination with weight
// a·w, a being the fraction of BM25's top topB pages found among the topD
// nearest by vector (1 when BM25 finds nothing).
func gatedFusion(r *scoredRun, w float64, topB, topD int) fusion {
	return fusion{fmt.Sprintf("gated w=%.2f", w), func(bm, cos []float64) []float64 {
		bt, dt := r.rank(bm), r.rank(cos)
		near := map[string]bool{}
		for _, id := range dt[:min(topD, len(dt))] {
			near[id] = true
		}
		a := 1.0
		if len(bt) > 0 {
			n := 0
			for _, id := range bt[:min(topB, len(bt))] {
				if near[id] {
					n++
				}
			}
			a = float64(n) / float64(min(topB, len(bt)))
		}
		out := make([]float64, len(bm))
		for i := range bm {
			out[i] = (1-a*w)*bm[i] + a*w*max(0, cos[i])
		}
		return out
	}}
}

// rrfFusion is reciprocal rank fusion with constant k over the top 100 of
// each ranking, the dense list weighted w and BM25's 1 − w.
func rrfFusion(r *scoredRun, k, w float64) fusion {
	return fusion{fmt.Sprintf("RRF k=%.0f w=%.2f", k, w), func(bm, cos []float64) []float64 {
		out := make([]float64, len(bm))
		for _, part := range []struct {
			s []float64
			w float64
		}{{bm, 1 - w}, {cos, w}} {
			for rank, id := range r.rank(part.s)[:min(100, len(r.rank(part.s)))] {
				i := slices.Index(r.ids, id)
				out[i] += part.w / (k + float64(rank+1))
			}
		}
		return out
	}}
}

// runFusions measures every fusion over r and returns the lines of a
// table and the quality of each, keyed by name.
func (s *evalSet) runFusions(r *scoredRun, fusions []fusion) ([]string, map[string]quality) {
	res := map[string]quality{}
	var lines []string
	for _, f := range fusions {
		ranked := make([][]string, len(s.queries))
		for q := range s.queries {
			ranked[q] = r.rank(f.fuse(r.bm25[q], r.cos[q]))
		}
		res[f.name] = s.measure(ranked)
		lines = append(lines, fmt.Sprintf("%-18s %v", f.name, res[f.name]))
	}
	return lines, res
}

func allFusions(r *scoredRun) []fusion {
	fs := []fusion{
		{"BM25", func(bm, _ []float64) []float64 { return bm }},
		{"dense", func(_, cos []float64) []float64 { return cos }},
	}
	for _, w := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.7} {
		fs = append(fs, convexFusion(w))
	}
	for _, w := range []float64{0.2, 0.3, 0.4, 0.5} {
		fs = append(fs, gatedFusion(r, w, bm25.GateBM25, bm25.GateDense))
	}
	for _, w := range []float64{0.3, 0.5} {
		fs = append(fs, rrfFusion(r, 60, w))
	}
	return fs
}

// evaluateFusion measures every fusion on s with e, checks that the
// store's own fused Search ranks as the convex fusion at its default
// weight, and that this fusion is no worse than BM25 alone.
func evaluateFusion(t *testing.T, s *evalSet, e Embedder) map[string]quality {
	r := s.score(t, e)
	lines, res := s.runFusions(r, allFusions(r))
	t.Logf("%s, %d queries, embedder %s (%d dims):\n%s", s.name, len(s.queries), e.Model().Name, e.Model().Dimensions, strings.Join(lines, "\n"))

	// The store's fused Search is the convex fusion at defaultDenseWeight.
	ctx := context.Background()
	st := NewInMemoryKnowledgeStore(WithEmbedder(e))
	require.NoError(t, st.PutBatch(ctx, s.docs))
	ranked := make([][]string, len(s.queries))
	for q, query := range s.queries {
		hits, err := st.Search(ctx, query, 100)
		require.NoError(t, err)
		for _, h := range hits {
			ranked[q] = append(ranked[q], h.Page.ID)
		}
	}
	got := s.measure(ranked)
	want := res[gatedFusion(r, defaultDenseWeight, bm25.GateBM25, bm25.GateDense).name]
	require.InDelta(t, want.ndcg10, got.ndcg10, 1e-3, "store vs reference fusion")
	require.InDelta(t, want.mapScore, got.mapScore, 1e-3, "store vs reference fusion")
	bm := res["BM25"]
	require.GreaterOrEqual(t, got.ndcg10, bm.ndcg10-1e-9, "fused nDCG@10 below BM25's")
	require.GreaterOrEqual(t, got.mapScore, bm.mapScore-1e-9, "fused MAP below BM25's")
	return res
}

func TestFusionCranfieldHashEmbedder(t *testing.T) {
	s := loadCranfield(t).evalSet()
	evaluateFusion(t, s, hashTestEmbedder{dims: 384})
}

// TestFusionCranfieldNoiseEmbedder: even vectors that carry no information
// (random for each text) leave the content channel no worse than BM25.
func TestFusionCranfieldNoiseEmbedder(t *testing.T) {
	s := loadCranfield(t).evalSet()
	evaluateFusion(t, s, randomEmbedder{dims: 384})
}

// paraphraseSet is a small memory of an agent's notes with questions of
// two kinds: lexical ones that share words with the note that answers
// them, and paraphrases that share none (checked by the test), which only
// an embedder can answer from the content channel.
func paraphraseSet() (s *evalSet, paraphrases int) {
	docs := []KnowledgePage{
		{ID: "n01", Title: "Apollo launch", Content: "The Apollo rocket lifts off from Cape Canaveral in March; Alice leads the launch team."},
		{ID: "n02", Title: "Budget review", Content: "Finance cut the marketing budget by ten percent for the next quarter."},
		{ID: "n03", Title: "Office move", Content: "The Berlin office relocates to a larger building near the central station in June."},
		{ID: "n04", Title: "Hiring", Content: "Bob interviews three candidates for the backend engineer position this week."},
		{ID: "n05", Title: "Outage", Content: "The payment service was down for two hours after a database failover went wrong."},
		{ID: "n06", Title: "Customer feedback", Content: "Users complain that the mobile app drains the battery too quickly."},
		{ID: "n07", Title: "Vacation", Content: "Carol is on holiday in Portugal until the end of August."},
		{ID: "n08", Title: "Security", Content: "All employees must enable two-factor authentication before Friday."},
		{ID: "n09", Title: "Lunch", Content: "The cafeteria now serves vegetarian dishes every Tuesday."},
		{ID: "n10", Title: "Conference", Content: "Dave presents our search engine at the Go conference in Singapore."},
		{ID: "n11", Title: "Contract", Content: "The agreement with the cloud provider was renewed for three more years."},
		{ID: "n12", Title: "Car", Content: "Erin sold her old car and now cycles to work every day."},
		{ID: "n13", Title: "Weather", Content: "Heavy snow closed the roads around the warehouse yesterday."},
		{ID: "n14", Title: "Pet", Content: "Frank adopted a small puppy from the animal shelter."},
		{ID: "n15", Title: "Illness", Content: "Grace stayed home with a fever and a sore throat."},
		{ID: "n16", Title: "Revenue", Content: "Sales grew strongly in Asia while Europe stayed flat."},
	}
	lexical := []struct{ q, id string }{
		{"who leads the Apollo launch team", "n01"},
		{"marketing budget cut", "n02"},
		{"when does the Berlin office relocate", "n03"},
		{"backend engineer candidates", "n04"},
		{"payment service database failover", "n05"},
		{"mobile app battery", "n06"},
		{"two-factor authentication deadline", "n08"},
		{"cloud provider agreement renewed", "n11"},
	}
	paraphrase := []struct{ q, id string }{
		{"spacecraft blastoff", "n01"},
		{"recruiting developers", "n04"},
		{"phone application consumes power", "n06"},
		{"trip abroad summer leave", "n07"},
		{"meatless meals canteen", "n09"},
		{"bicycle commute", "n12"},
		{"blizzard blocked highways", "n13"},
		{"dog rescue", "n14"},
		{"sick with flu", "n15"},
		{"turnover increased", "n16"},
	}
	s = &evalSet{name: "paraphrase set", docs: docs}
	for _, x := range append(lexical, paraphrase...) {
		s.queries = append(s.queries, x.q)
		s.gain = append(s.gain, map[string]float64{x.id: 1})
	}
	return s, len(paraphrase)
}

func TestFusionParaphraseSet(t *testing.T) {
	s, np := paraphraseSet()
	// The paraphrases share no term with their answer.
	ctx := context.Background()
	st := NewInMemoryKnowledgeStore()
	require.NoError(t, st.PutBatch(ctx, s.docs))
	for i := len(s.queries) - np; i < len(s.queries); i++ {
		hits, err := st.Search(ctx, s.queries[i], 100)
		require.NoError(t, err)
		for _, h := range hits {
			require.Zero(t, s.gain[i][h.Page.ID], "paraphrase %q shares a term with its answer", s.queries[i])
		}
	}
	embedders := []Embedder{hashTestEmbedder{dims: 384}}
	if os.Getenv("KGMEM_USE_MODULES") != "" {
		embedders = append(embedders, needModel(t))
	}
	for _, e := range embedders {
		evaluateFusion(t, s, e)
		// By kind of question.
		r := s.score(t, e)
		for _, part := range []struct {
			name     string
			from, to int
		}{{"lexical", 0, len(s.queries) - np}, {"paraphrase", len(s.queries) - np, len(s.queries)}} {
			sub := &evalSet{name: s.name + ", " + part.name, docs: s.docs, queries: s.queries[part.from:part.to], gain: s.gain[part.from:part.to]}
			subRun := &scoredRun{ids: r.ids, bm25: r.bm25[part.from:part.to], cos: r.cos[part.from:part.to]}
			lines, _ := sub.runFusions(subRun, allFusions(subRun))
			t.Logf("%s, %s (%d queries):\n%s", sub.name, e.Model().Name, len(sub.queries), strings.Join(lines, "\n"))
		}
	}
}
