package kgmem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawScores returns the raw BM25 of every page matching query, by ID.
func rawScores(t *testing.T, s *InMemoryKnowledgeStore, query string) map[string]float64 {
	t.Helper()
	hits, err := s.search(context.Background(), query, math.MaxInt)
	require.NoError(t, err)
	out := make(map[string]float64, len(hits))
	for _, h := range hits {
		out[h.Doc.ID] = h.Raw
	}
	return out
}

func mustPut(t testing.TB, s *InMemoryKnowledgeStore, pages ...KnowledgePage) {
	t.Helper()
	for _, p := range pages {
		require.NoError(t, s.Put(context.Background(), p))
	}
}

func ids(res []ScoredPage) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Page.ID
	}
	return out
}

// TestBM25HandComputed checks raw and normalised scores against values
// worked out by hand with k1 = 1.2, b = 0.75, title boost 2.
//
// Pages, as terms:
//
//	d1: content "raft consensus raft"          → raft×2, consensus×1; dl = 3
//	d2: title "Raft", content "log replication" → raft×1 in the title, counted
//	    twice, so f(raft) = 2; dl = 2·1 + 2 = 4
//	d3: content "paxos consensus protocol design" → consensus×1; dl = 4
//
// N = 3, avgdl = (3 + 4 + 4)/3 = 11/3. "raft" and "consensus" are each in
// n = 2 pages: idf = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln 1.6 = 0.4700036292.
//
// Length norms, 1 − b + b·dl/avgdl:
//
//	dl = 3: 0.25 + 0.75·9/11  = 0.8636363636
//	dl = 4: 0.25 + 0.75·12/11 = 1.0681818182
//
// Term scores, idf · f·(k1+1) / (f + k1·norm):
//
//	d1 raft      f=2: 0.4700036292 · 4.4/(2 + 1.0363636364) = 0.4700036292 · 1.4491017964 = 0.6810831035
//	d2 raft      f=2: 0.4700036292 · 4.4/(2 + 1.2818181818) = 0.4700036292 · 1.3407202216 = 0.6301433700
//	d1 consensus f=1: 0.4700036292 · 2.2/(1 + 1.0363636364) = 0.4700036292 · 1.0803571429 = 0.5077717780
//	d3 consensus f=1: 0.4700036292 · 2.2/(1 + 1.2818181818) = 0.4700036292 · 0.9641434263 = 0.4531509095
//
// Largest attainable score per term: idf·(k1+1) = 1.0340079843.
//
//	"raft":           d1 0.6810831035 / 1.0340079843 = 0.6586826347
//	                  d2 0.6301433700 / 1.0340079843 = 0.6094182825
//	"raft consensus": d1 1.1888548815 / 2.0680159687 = 0.5748770317
//	                  d2 0.6301433700 / 2.0680159687 = 0.3047091413
//	                  d3 0.4531509095 / 2.0680159687 = 0.2191235060
//
// "raft zookeeper": zookeeper is in no page, idf = ln(1 + 3.5/0.5) = ln 8 =
// 2.0794415417, so the denominator grows by 2.0794415417·2.2 = 4.5747713917:
//
//	d1 0.6810831035 / 5.6087793760 = 0.1214316089
func TestBM25HandComputed(t *testing.T) {
	s := NewInMemoryKnowledgeStore()
	mustPut(t, s,
		KnowledgePage{ID: "d1", Content: "raft consensus raft"},
		KnowledgePage{ID: "d2", Title: "Raft", Content: "log replication"},
		KnowledgePage{ID: "d3", Content: "paxos consensus protocol design"},
	)
	const eps = 1e-9

	raw := rawScores(t, s, "raft")
	require.Len(t, raw, 2)
	assert.InDelta(t, 0.6810831035, raw["d1"], eps)
	assert.InDelta(t, 0.6301433700, raw["d2"], eps)

	res, err := s.Search(context.Background(), "raft", 10)
	require.NoError(t, err)
	require.Equal(t, []string{"d1", "d2"}, ids(res))
	assert.InDelta(t, 0.6586826347, res[0].Score, eps)
	assert.InDelta(t, 0.6094182825, res[1].Score, eps)

	raw = rawScores(t, s, "raft consensus")
	require.Len(t, raw, 3)
	assert.InDelta(t, 1.1888548815, raw["d1"], eps)
	assert.InDelta(t, 0.6301433700, raw["d2"], eps)
	assert.InDelta(t, 0.4531509095, raw["d3"], eps)

	res, err = s.Search(context.Background(), "raft consensus", 10)
	require.NoError(t, err)
	require.Equal(t, []string{"d1", "d2", "d3"}, ids(res))
	assert.InDelta(t, 0.5748770317, res[0].Score, eps)
	assert.InDelta(t, 0.3047091413, res[1].Score, eps)
	assert.InDelta(t, 0.2191235060, res[2].Score, eps)

	res, err = s.Search(context.Background(), "raft zookeeper", 10)
	require.NoError(t, err)
	require.Equal(t, []string{"d1", "d2"}, ids(res))
	assert.InDelta(t, 0.1214316089, res[0].Score, eps)

	// Repeating a query term changes nothing: each distinct term counts once.
	again, err := s.Search(context.Background(), "Raft RAFT raft's consensus", 10)
	require.NoError(t, err)
	want, err := s.Search(context.Background(), "raft consensus", 10)
	require.NoError(t, err)
	assert.Equal(t, want, again)
}

func TestBM25Options(t *testing.T) {
	pages := []KnowledgePage{
		{ID: "title", Title: "raft", Content: "leader election log replication"},
		{ID: "body", Title: "notes", Content: "raft leader election log replication"},
	}
	search := func(opts ...StoreOption) []ScoredPage {
		s := NewInMemoryKnowledgeStore(opts...)
		mustPut(t, s, pages...)
		res, err := s.Search(context.Background(), "raft", 10)
		require.NoError(t, err)
		return res
	}
	// The same term in the title outweighs it in the content with the
	// default boost, weighs the same with boost 1, and is invisible with 0.
	res := search()
	require.Equal(t, []string{"title", "body"}, ids(res))
	assert.Greater(t, res[0].Score, res[1].Score)
	res = search(WithTitleBoost(0))
	require.Equal(t, []string{"body"}, ids(res))
	res = search(WithTitleBoost(3), WithBM25(0, 0))
	// k1 = 0: every matching page gets idf·1, the largest score: 1.
	require.Len(t, res, 2)
	assert.Equal(t, 1.0, res[0].Score)
	assert.Equal(t, 1.0, res[1].Score)
	assert.Equal(t, []string{"body", "title"}, ids(res), "equal scores are ordered by ID")

	for _, tc := range []struct {
		name         string
		opts         []StoreOption
		k1, b, boost float64
	}{
		{"defaults", nil, 1.2, 0.75, 2},
		{"valid", []StoreOption{WithBM25(1.5, 0.5), WithTitleBoost(3)}, 1.5, 0.5, 3},
		{"bounds", []StoreOption{WithBM25(100, 0), WithTitleBoost(100)}, 100, 0, 100},
		{"last wins", []StoreOption{WithBM25(2, 0.1), WithBM25(1.5, 0.5)}, 1.5, 0.5, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewInMemoryKnowledgeStore(tc.opts...)
			k1, b, boost := s.params()
			assert.Equal(t, tc.k1, k1)
			assert.Equal(t, tc.b, b)
			assert.Equal(t, tc.boost, boost)
		})
	}
}

// TestStoreInvalidOptions pins the policy for a bad option: never ignored,
// never a panic; NewInMemoryKnowledgeStore keeps the error and every call
// returns it, and OpenStore refuses at once.
func TestStoreInvalidOptions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []StoreOption
		msg  string
	}{
		{"nil option", []StoreOption{nil}, "kgmem: store option: option 0 is nil: invalid argument"},
		{"nan k1", []StoreOption{WithBM25(math.NaN(), 0.5)}, "kgmem: store option: WithBM25: k1 NaN outside [0,100]: invalid argument"},
		{"inf b", []StoreOption{WithBM25(1, math.Inf(-1))}, "kgmem: store option: WithBM25: b -Inf outside [0,1]: invalid argument"},
		{"negative boost", []StoreOption{WithTitleBoost(-1)}, "kgmem: store option: WithTitleBoost: boost -1 outside [0,100]: invalid argument"},
		{"too large", []StoreOption{WithBM25(101, 0.5)}, "kgmem: store option: WithBM25: k1 101 outside [0,100]: invalid argument"},
		{"first error kept", []StoreOption{WithTitleBoost(101), WithBM25(1, 2)}, "kgmem: store option: WithTitleBoost: boost 101 outside [0,100]: invalid argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewInMemoryKnowledgeStore(tc.opts...)
			errs := map[string]error{}
			errs["put"] = s.Put(ctx, KnowledgePage{ID: "a", Content: "alpha"})
			errs["delete"] = s.Delete(ctx, "a")
			_, _, errs["get"] = s.Get(ctx, "a")
			_, errs["search"] = s.Search(ctx, "alpha", 3)
			_, errs["write"] = s.WriteTo(io.Discard)
			_, errs["read"] = s.ReadFrom(strings.NewReader(""))
			for call, err := range errs {
				require.ErrorIs(t, err, ErrInvalidArgument, call)
				require.EqualError(t, err, tc.msg, call)
			}
			assert.Zero(t, s.Len())

			opts := make([]DurableOption, len(tc.opts))
			for i, o := range tc.opts {
				if o != nil {
					opts[i] = o
				}
			}
			_, err := OpenStore(t.TempDir(), opts...)
			require.ErrorIs(t, err, ErrInvalidArgument)
		})
	}
}

func TestStorePutGetDelete(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	assert.Equal(t, 0, s.Len())

	p := KnowledgePage{ID: "person:ada", Title: "Ada", Content: "Ada writes the compiler",
		Tags: []string{"people"}, Metadata: map[string]string{"source": "chat"}}
	require.NoError(t, s.Put(ctx, p))
	assert.Equal(t, 1, s.Len())
	got, ok, err := s.Get(ctx, "person:ada")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, p, got)

	_, ok, err = s.Get(ctx, "nobody")
	require.NoError(t, err)
	assert.False(t, ok)

	// Upsert: the new version replaces the old one in the index too.
	p2 := KnowledgePage{ID: "person:ada", Title: "Ada", Content: "Ada reviews the linker"}
	require.NoError(t, s.Put(ctx, p2))
	assert.Equal(t, 1, s.Len())
	got, _, err = s.Get(ctx, "person:ada")
	require.NoError(t, err)
	assert.Equal(t, p2, got)
	res, err := s.Search(ctx, "compiler", 10)
	require.NoError(t, err)
	assert.Empty(t, res)
	res, err = s.Search(ctx, "linker", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"person:ada"}, ids(res))
	checkIndex(t, s)

	require.NoError(t, s.Delete(ctx, "person:ada"))
	assert.Equal(t, 0, s.Len())
	err = s.Delete(ctx, "person:ada")
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), `"person:ada"`)
	res, err = s.Search(ctx, "linker ada", 10)
	require.NoError(t, err)
	assert.Empty(t, res)
	checkIndex(t, s)
	assert.Zero(t, s.ix.Terms())
	titleTerms, contentTerms := s.ix.TermTotals()
	assert.Zero(t, titleTerms)
	assert.Zero(t, contentTerms)
}

func TestStoreValidation(t *testing.T) {
	ctx := context.Background()
	const bad = "a\xffb"
	old := KnowledgePage{ID: "p", Title: "old title", Content: "old content"}
	for _, tc := range []struct {
		name, field string
		page        KnowledgePage
	}{
		{"empty id", "ID", KnowledgePage{Content: "x"}},
		{"blank id", "only white space", KnowledgePage{ID: " \u3000", Content: "x"}},
		{"id", "ID", KnowledgePage{ID: bad, Content: "x"}},
		{"title", "title", KnowledgePage{ID: "p", Title: bad}},
		{"content", "content", KnowledgePage{ID: "p", Content: bad}},
		{"tag", "tag 1", KnowledgePage{ID: "p", Tags: []string{"ok", bad}}},
		{"metadata key", "metadata key", KnowledgePage{ID: "p", Metadata: map[string]string{bad: "v"}}},
		{"metadata value", `metadata "k" value`, KnowledgePage{ID: "p", Metadata: map[string]string{"k": bad}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewInMemoryKnowledgeStore()
			mustPut(t, s, old)
			err := s.Put(ctx, tc.page)
			require.ErrorIs(t, err, ErrInvalidArgument)
			assert.Contains(t, err.Error(), tc.field)
			assert.Equal(t, 1, s.Len())
			got, ok, err := s.Get(ctx, "p")
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, old, got, "a rejected upsert leaves the old page")
			res, err := s.Search(ctx, "old", 10)
			require.NoError(t, err)
			assert.Len(t, res, 1)
			checkIndex(t, s)
		})
	}
}

// TestStoreZeroValue uses a store that no constructor made: it is empty,
// ready to use, and ranks exactly as NewInMemoryKnowledgeStore() does.
func TestStoreZeroValue(t *testing.T) {
	ctx := context.Background()
	pages := []KnowledgePage{
		{ID: "a", Title: "consistent hashing", Content: "a ring of nodes and keys"},
		{ID: "b", Title: "raft", Content: "consensus with a leader; the ring is not involved"},
		{ID: "c", Content: "一致性哈希把节点映射到环上"},
	}
	var zero InMemoryKnowledgeStore
	require.Zero(t, zero.Len())
	_, ok, err := zero.Get(ctx, "a")
	require.NoError(t, err)
	require.False(t, ok)
	require.ErrorIs(t, zero.Delete(ctx, "a"), ErrNotFound)
	res, err := zero.Search(ctx, "ring", 10)
	require.NoError(t, err)
	require.Empty(t, res)

	made := NewInMemoryKnowledgeStore()
	for _, p := range pages {
		require.NoError(t, zero.Put(ctx, p))
		mustPut(t, made, p)
	}
	for _, q := range []string{"ring", "consistent hashing ring", "一致性哈希", "leader"} {
		want, err := made.Search(ctx, q, 10)
		require.NoError(t, err)
		got, err := zero.Search(ctx, q, 10)
		require.NoError(t, err)
		require.Equal(t, want, got, "query %q", q)
	}
	checkIndex(t, &zero)
	require.NoError(t, zero.Delete(ctx, "a"))
	require.Equal(t, 2, zero.Len())

	// Concurrent first writes to a zero store are safe.
	var fresh InMemoryKnowledgeStore
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, fresh.Put(ctx, KnowledgePage{ID: fmt.Sprint(i), Content: "ring"}))
		}()
	}
	wg.Wait()
	require.Equal(t, 8, fresh.Len())

	// An explicit 0 is not the default: WithTitleBoost(0) still leaves
	// titles out, and WithBM25(0, 0) is kept.
	k1, b, boost := NewInMemoryKnowledgeStore(WithBM25(0, 0), WithTitleBoost(0)).params()
	require.Equal(t, [3]float64{0, 0, 0}, [3]float64{k1, b, boost})
	k1, b, boost = zero.params()
	require.Equal(t, [3]float64{defaultBM25K1, defaultBM25B, defaultTitleBoost}, [3]float64{k1, b, boost})

	// A snapshot loads into a zero store, and into a store with an
	// explicit 0, keeping each one's ranking.
	var snap strings.Builder
	_, err = made.WriteTo(&snap)
	require.NoError(t, err)
	var loaded InMemoryKnowledgeStore
	_, err = loaded.ReadFrom(strings.NewReader(snap.String()))
	require.NoError(t, err)
	noTitles := NewInMemoryKnowledgeStore(WithTitleBoost(0))
	_, err = noTitles.ReadFrom(strings.NewReader(snap.String()))
	require.NoError(t, err)
	for _, q := range []string{"ring", "raft"} {
		want, _ := made.Search(ctx, q, 10)
		got, err := loaded.Search(ctx, q, 10)
		require.NoError(t, err)
		require.Equal(t, want, got, "query %q", q)
	}
	res, err = noTitles.Search(ctx, "raft", 10)
	require.NoError(t, err)
	require.Empty(t, res, "titles are not indexed with WithTitleBoost(0), and only a title says raft")
}

func TestStoreSearchEdgeQueries(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()

	res, err := s.Search(ctx, "anything", 10)
	require.NoError(t, err)
	assert.Empty(t, res, "empty store")

	mustPut(t, s, KnowledgePage{ID: "p", Content: "the state of the art"})
	for _, q := range []string{"", "   ", "the of is what", "?!,。", "的了吗", "🚀"} {
		res, err := s.Search(ctx, q, 10)
		require.NoError(t, err, "query %q", q)
		assert.Nil(t, res, "query %q", q)
	}
	res, err = s.Search(ctx, "unknown words only", 10)
	require.NoError(t, err)
	assert.Nil(t, res)

	_, err = s.Search(ctx, "state\xff", 10)
	require.ErrorIs(t, err, ErrInvalidArgument)
	assert.Contains(t, err.Error(), "query")
}

func TestStoreSearchLimit(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	for i := range 25 {
		// Page i says "cache" i+1 times in 30 words: distinct scores.
		content := strings.Repeat("cache ", i+1) + strings.Repeat("filler ", 29-i)
		mustPut(t, s, KnowledgePage{ID: fmt.Sprintf("p%02d", i), Content: content})
	}
	all, err := s.Search(ctx, "cache", 1000)
	require.NoError(t, err)
	require.Len(t, all, 25)
	for _, limit := range []int{-5, 0, 1, 3, 10, 24, 25, 26, math.MaxInt} {
		res, err := s.Search(ctx, "cache", limit)
		require.NoError(t, err)
		want := limit
		if limit <= 0 {
			want = defaultSearchLimit
		}
		want = min(want, 25)
		require.Len(t, res, want, "limit %d", limit)
		assert.Equal(t, all[:want], res, "limit %d: a prefix of the full ranking, same scores", limit)
	}
	assert.Equal(t, "p24", all[0].Page.ID)
}

func TestStoreScoresOrderedAndBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 11))
	s := NewInMemoryKnowledgeStore()
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa 一致 哈希 缓存 索引")
	for i := range 300 {
		mustPut(t, s, randomPage(r, fmt.Sprintf("p%03d", i), words))
	}
	// Identical pages under different IDs tie; ties go by ID.
	twin := KnowledgePage{Title: "omega", Content: "omega alpha"}
	for _, id := range []string{"twin-c", "twin-a", "twin-b"} {
		twin.ID = id
		mustPut(t, s, twin)
	}
	res, err := s.Search(ctx, "omega", 10)
	require.NoError(t, err)
	require.Equal(t, []string{"twin-a", "twin-b", "twin-c"}, ids(res))
	assert.Equal(t, res[0].Score, res[2].Score)

	matched := 0
	for range 200 {
		q := randomText(r, words, 1+r.IntN(4))
		hits, err := s.search(ctx, q, 1+r.IntN(400))
		require.NoError(t, err)
		if len(hits) == 0 {
			continue // words glued together without a separator
		}
		matched++
		assert.Greater(t, hits[0].Score, 0.0)
		for i, h := range hits {
			require.True(t, h.Score >= 0 && h.Score <= 1, "score %v", h.Score)
			if i > 0 {
				prev := hits[i-1]
				require.True(t, prev.Raw > h.Raw || prev.Raw == h.Raw && prev.Doc.ID < h.Doc.ID,
					"query %q: %v before %v", q, prev, h)
				require.GreaterOrEqual(t, prev.Score, h.Score)
			}
		}
	}
	assert.Greater(t, matched, 150)
}

func TestStoreCopiesNotAliased(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	in := KnowledgePage{ID: "p", Content: "gopher", Tags: []string{"a", "b"}, Metadata: map[string]string{"k": "v"}}
	want := in.clone()
	require.NoError(t, s.Put(ctx, in))
	in.Tags[0] = "changed"
	in.Metadata["k"] = "changed"

	got, _, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	got.Tags[1] = "changed"
	got.Metadata["new"] = "x"

	res, err := s.Search(ctx, "gopher", 1)
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, want, res[0].Page)
	res[0].Page.Tags[0] = "changed"
	res[0].Page.Metadata["k"] = "changed"

	got, _, err = s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestStoreContextCancelled(t *testing.T) {
	s := NewInMemoryKnowledgeStore()
	mustPut(t, s, KnowledgePage{ID: "p", Content: "gopher"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	require.ErrorIs(t, s.Put(ctx, KnowledgePage{ID: "q", Content: "gopher"}), context.Canceled)
	_, ok, err := s.Get(ctx, "p")
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, ok)
	_, err = s.Search(ctx, "gopher", 10)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, s.Delete(ctx, "p"), context.Canceled)

	assert.Equal(t, 1, s.Len(), "nothing written under a cancelled context")
	_, ok, err = s.Get(context.Background(), "q")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestStoreMixedLanguages(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	mustPut(t, s,
		KnowledgePage{ID: "zh-hash", Title: "一致性哈希", Content: "一致性哈希把键映射到哈希环上，节点增减时只迁移少量的键。"},
		KnowledgePage{ID: "zh-raft", Title: "Raft 共识算法", Content: "Raft 通过领导者选举和日志复制保证副本的一致性。"},
		KnowledgePage{ID: "zh-lru", Title: "LRU 缓存", Content: "最近最少使用（LRU）缓存淘汰最久未访问的条目。"},
		KnowledgePage{ID: "zh-go", Title: "Go语言的并发模型", Content: "goroutine 和 channel 是 Go 并发的基础。"},
		KnowledgePage{ID: "zh-api", Title: "网关", Content: "ＡＰＩ网关负责鉴权、限流和路由。"},
		KnowledgePage{ID: "en-hash", Title: "Consistent hashing", Content: "Consistent hashing maps keys onto a ring, so adding a node moves few keys."},
		KnowledgePage{ID: "en-raft", Title: "The Raft consensus algorithm", Content: "Raft elects a leader and replicates the log to its followers."},
		KnowledgePage{ID: "en-lru", Title: "LRU caches", Content: "A least-recently-used cache evicts the entry that was read longest ago."},
	)
	first := func(q string) string {
		t.Helper()
		res, err := s.Search(ctx, q, 10)
		require.NoError(t, err)
		require.NotEmpty(t, res, "query %q", q)
		return res[0].Page.ID
	}
	assert.Equal(t, "zh-hash", first("一致性哈希"))
	assert.Equal(t, "zh-hash", first("什么是一致性哈希？"))
	assert.Equal(t, "zh-raft", first("领导者选举"))
	assert.Equal(t, "zh-go", first("Go 并发模型"))
	assert.Equal(t, "zh-lru", first("缓存淘汰"))
	assert.Equal(t, "en-hash", first("consistent hashing"))
	assert.Equal(t, "en-raft", first("Who is the leader in Raft?"))
	assert.Equal(t, "en-lru", first("what does an LRU cache evict"))
	// Full-width forms and punctuation do not break tokens.
	assert.Equal(t, "zh-api", first("api 网关"))
	assert.Equal(t, "en-raft", first("ＲＡＦＴ　ｌｅａｄｅｒ"))
	a, err := s.Search(ctx, "raft,leader!!!", 10)
	require.NoError(t, err)
	b, err := s.Search(ctx, "raft leader", 10)
	require.NoError(t, err)
	assert.Equal(t, b, a)

	// An English query finds only English pages unless Chinese pages use
	// the word too.
	res, err := s.Search(ctx, "consensus followers", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"en-raft"}, ids(res))
}

// TestStoreIndexExact applies random puts, upserts and deletes and checks,
// along the way, that the store ranks exactly like a store built from
// scratch with the pages it holds: same pages, same scores bit for bit.
func TestStoreIndexExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("raft paxos leader log replica 缓存 哈希 一致 性能 cache hashing node nodes ring key keys policy policies 的 the")
	s := NewInMemoryKnowledgeStore(WithTitleBoost(1.7)) // a boost that is not an integer
	model := map[string]KnowledgePage{}
	for step := range 3000 {
		id := fmt.Sprintf("p%02d", r.IntN(60))
		switch op := r.IntN(10); {
		case op < 6: // put or upsert
			p := randomPage(r, id, words)
			require.NoError(t, s.Put(ctx, p))
			model[id] = p
		case op < 9:
			err := s.Delete(ctx, id)
			if _, ok := model[id]; ok {
				require.NoError(t, err)
				delete(model, id)
			} else {
				require.ErrorIs(t, err, ErrNotFound)
			}
		default: // a rejected write changes nothing
			require.Error(t, s.Put(ctx, KnowledgePage{ID: id, Content: "bad\xff"}))
		}
		if step%250 == 249 {
			compareWithFresh(t, r, s, model, words)
		}
	}
	compareWithFresh(t, r, s, model, words)

	// Deleting everything leaves an empty index.
	for id := range model {
		require.NoError(t, s.Delete(ctx, id))
	}
	checkIndex(t, s)
	assert.Zero(t, s.ix.Terms())
	titleTerms, contentTerms := s.ix.TermTotals()
	assert.Zero(t, titleTerms+contentTerms)
}

func compareWithFresh(t *testing.T, r *rand.Rand, s *InMemoryKnowledgeStore, model map[string]KnowledgePage, words []string) {
	t.Helper()
	ctx := context.Background()
	checkIndex(t, s)
	require.Equal(t, len(model), s.Len())
	_, _, boost := s.params()
	fresh := NewInMemoryKnowledgeStore(WithTitleBoost(boost))
	// Insert in a shuffled order: the result must not depend on it.
	keys := slices.Sorted(maps.Keys(model))
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, id := range keys {
		mustPut(t, fresh, model[id])
	}
	queries := slices.Clone(words)
	for range 40 {
		queries = append(queries, randomText(r, words, 2+r.IntN(4)))
	}
	for _, q := range queries {
		want, err := fresh.Search(ctx, q, 1000)
		require.NoError(t, err)
		got, err := s.Search(ctx, q, 1000)
		require.NoError(t, err)
		require.Equal(t, want, got, "query %q", q)
		top, err := s.Search(ctx, q, 3)
		require.NoError(t, err)
		require.Equal(t, want[:min(3, len(want))], top, "query %q, limit 3", q)
	}
}

// checkIndex verifies the invariants documented on InMemoryKnowledgeStore
// by recomputing the index from the stored pages.
func checkIndex(t *testing.T, s *InMemoryKnowledgeStore) {
	t.Helper()
	_, _, boost := s.params()
	s.mu.RLock()
	defer s.mu.RUnlock()
	require.NoError(t, s.ix.Check())
	type key struct{ term, id string }
	want := map[key]float64{}
	s.ix.Each(func(e *pageEntry) {
		require.Equal(t, e.ID, e.Value.page.ID)
		var title []string
		if boost > 0 {
			title = Tokenize(e.Value.page.Title)
		}
		content := Tokenize(e.Value.page.Content)
		titleLen, contentLen := e.Lengths()
		require.Equal(t, len(title), titleLen)
		require.Equal(t, len(content), contentLen)
		titleTF, contentTF := map[string]int{}, map[string]int{}
		for _, tok := range title {
			titleTF[tok]++
		}
		for _, tok := range content {
			contentTF[tok]++
		}
		for _, tok := range slices.Concat(title, content) {
			want[key{tok, e.ID}] = boost*float64(titleTF[tok]) + float64(contentTF[tok])
		}
	})
	got := map[key]float64{}
	s.ix.Postings(func(term string, e *pageEntry, tf float64) {
		require.Same(t, s.ix.Get(e.ID), e, "posting of %q for a page no longer stored", term)
		got[key{term, e.ID}] = tf
	})
	require.Equal(t, want, got)
}

func randomText(r *rand.Rand, words []string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	return strings.Join(parts, []string{" ", ", ", "", "。"}[r.IntN(4)])
}

func randomPage(r *rand.Rand, id string, words []string) KnowledgePage {
	return KnowledgePage{
		ID:      id,
		Title:   randomText(r, words, r.IntN(4)),
		Content: randomText(r, words, r.IntN(30)),
		Tags:    []string{words[r.IntN(len(words))]},
	}
}

func TestStoreConcurrent(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	words := strings.Fields("raft paxos leader log replica 缓存 哈希 一致 cache node ring key")
	const workers, ops = 8, 300
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			for range ops {
				id := fmt.Sprintf("p%d", r.IntN(40))
				var err error
				switch r.IntN(4) {
				case 0:
					err = s.Put(ctx, randomPage(r, id, words))
				case 1:
					if err = s.Delete(ctx, id); errors.Is(err, ErrNotFound) {
						err = nil
					}
				case 2:
					_, _, err = s.Get(ctx, id)
				default:
					var res []ScoredPage
					res, err = s.Search(ctx, randomText(r, words, 2), 5)
					for _, p := range res {
						if p.Score < 0 || p.Score > 1 {
							err = fmt.Errorf("score %v out of range", p.Score)
						}
					}
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	checkIndex(t, s)
}

func FuzzStorePutSearch(f *testing.F) {
	f.Add("raft consensus", "Raft is a consensus algorithm", "raft", "一致性哈希", "哈希")
	f.Add("", "", "", "ＡＰＩ网关", "api")
	f.Add("the", "of the", "the", "x\xffy", "x")
	f.Fuzz(func(t *testing.T, title, content, title2, content2, query string) {
		ctx := context.Background()
		s := NewInMemoryKnowledgeStore()
		err1 := s.Put(ctx, KnowledgePage{ID: "a", Title: title, Content: content})
		err2 := s.Put(ctx, KnowledgePage{ID: "b", Title: title2, Content: content2})
		for _, err := range []error{err1, err2} {
			if err != nil && !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("Put: %v", err)
			}
		}
		checkIndex(t, s)
		res, err := s.Search(ctx, query, 0)
		if err != nil {
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("Search(%q): %v", query, err)
			}
			return
		}
		for i, r := range res {
			if !(r.Score > 0 && r.Score <= 1) {
				t.Fatalf("Search(%q): score %v", query, r.Score)
			}
			if i > 0 && res[i-1].Score < r.Score {
				t.Fatalf("Search(%q): not sorted: %v", query, res)
			}
		}
		// Deleting and re-adding gives the same ranking.
		if err1 == nil {
			if err := s.Delete(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			if err := s.Put(ctx, KnowledgePage{ID: "a", Title: title, Content: content}); err != nil {
				t.Fatal(err)
			}
			again, err := s.Search(ctx, query, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(res), ids(again)) {
				t.Fatalf("Search(%q) after re-put: %v, before %v", query, again, res)
			}
			for i := range res {
				if res[i].Score != again[i].Score {
					t.Fatalf("Search(%q) after re-put: %v, before %v", query, again, res)
				}
			}
		}
	})
}
