package kgmem

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sleepyEmbedder is wordEmbedder taking pause per Embed call, whether or
// not ctx ends sooner, as an embedder that cannot stop a call in flight.
type sleepyEmbedder struct {
	wordEmbedder
	pause time.Duration
}

func (e *sleepyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(e.pause)
	return e.wordEmbedder.Embed(ctx, texts)
}

// cancellingEmbedder is wordEmbedder that calls cancel on its at-th call
// (1-based) and returns what ctx then says, as the caller giving up while
// the entity vectors are being built.
type cancellingEmbedder struct {
	wordEmbedder
	at     int64
	n      atomic.Int64
	cancel context.CancelFunc
}

func (e *cancellingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.n.Add(1) == e.at {
		e.cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return e.wordEmbedder.Embed(ctx, texts)
}

// roverMemory is a graph of n entities named "Thing i" (IDs e0000 …) and a
// last one, by ID, that the question "which lunar rover vehicle" means
// without naming it, and a store with a page that answers the question.
func roverMemory(t *testing.T, n int) (*InMemoryGraph, *InMemoryKnowledgeStore) {
	t.Helper()
	ctx := context.Background()
	g := NewInMemoryGraph()
	ents := make([]Entity, n, n+1)
	for i := range ents {
		ents[i] = Entity{ID: fmt.Sprintf("e%04d", i), Name: fmt.Sprintf("Thing %d", i)}
	}
	ents = append(ents, Entity{ID: "zz-rover", Name: "Moon Buggy", Description: "the lunar rover vehicle"})
	require.NoError(t, g.AddBatch(ctx, ents, nil))
	s := NewInMemoryKnowledgeStore()
	require.NoError(t, s.Put(ctx, KnowledgePage{ID: "page", Title: "Lunar rover", Content: "The lunar rover drove on the Moon."}))
	return g, s
}

const roverQuestion = "which lunar rover vehicle"

// keptVectors is how many entity vectors graph gi's index holds.
func keptVectors(r *MemoryRetriever, gi int) int {
	x := r.meaning.indexes[gi]
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// TestLinkingByMeaningWithinADeadline: on a graph whose entity vectors take
// longer to build than a query may spend, linking by meaning spends half
// the time the query has left (before its ctx's deadline, or SourceTimeout),
// keeps what it embedded, and answers from the content channel with a
// warning; each query goes on where the last stopped, no text is embedded
// twice, and once every entity is embedded the question links the entity
// it means, without a warning. No goroutine outlives the queries. (The
// SourceTimeout case runs one query, to keep the test short.)
func TestLinkingByMeaningWithinADeadline(t *testing.T) {
	// 24 batches of entity texts, 30 ms each: 720 ms, more than one
	// query's half of 900 ms (wide enough that a loaded machine still
	// answers the content channel within the deadline).
	const n = 1500
	g, s := roverMemory(t, n)
	before := runtime.NumGoroutine()
	for _, c := range []struct {
		name     string
		cfg      RetrieverConfig
		deadline time.Duration
		queries  int // at most
	}{
		{"ctx deadline", RetrieverConfig{}, 900 * time.Millisecond, 20},
		{"SourceTimeout", RetrieverConfig{SourceTimeout: 900 * time.Millisecond}, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			emb := &sleepyEmbedder{wordEmbedder: wordEmbedder{dims: 256}, pause: 30 * time.Millisecond}
			r := NewMemoryRetriever(s, c.cfg, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0.7))
			warning := regexp.MustCompile(`^graph "graph": linking by meaning: incomplete: (\d+) of 1501 entities embedded: context deadline exceeded$`)
			kept, queries, linked := 0, 0, false
			for !linked && queries < c.queries {
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if c.deadline > 0 {
					ctx, cancel = context.WithTimeout(ctx, c.deadline)
				}
				res, err := r.Retrieve(ctx, roverQuestion)
				cancel()
				queries++
				require.NoError(t, err)
				require.NotNil(t, itemByID(res, ItemPage, "page"), "the content answer")
				if len(res.Warnings) == 0 && queries > 1 {
					require.Equal(t, 1, res.Stats.LinkedByMeaning)
					require.NotNil(t, itemByID(res, ItemEntity, "zz-rover"))
					require.Equal(t, n+1, keptVectors(r, 0))
					linked = true
					continue
				}
				require.Len(t, res.Warnings, 1, "query %d", queries)
				m := warning.FindStringSubmatch(res.Warnings[0])
				require.NotNil(t, m, res.Warnings[0])
				require.ErrorIs(t, res.Errors[0], context.DeadlineExceeded)
				require.Zero(t, res.Stats.LinkedByMeaning, "the rover is embedded last")
				got, _ := strconv.Atoi(m[1])
				require.Equal(t, keptVectors(r, 0), got)
				require.Greater(t, got, kept, "query %d made no progress", queries)
				require.Zero(t, got%defaultEmbedBatch, "whole batches")
				kept = got
			}
			if c.queries > 1 {
				require.True(t, linked, "no query linked")
				kept = n + 1
			}
			// Every entity text kept was embedded once, and the query
			// once per call.
			require.EqualValues(t, kept+queries, emb.texts.Load())
			require.EqualValues(t, (kept+defaultEmbedBatch-1)/defaultEmbedBatch+queries, emb.calls.Load())
		})
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// TestLinkingByMeaningHangingEmbedder: an embedder that answers only when
// ctx ends costs a query half its deadline, not all of it: the answer
// comes from the content channel with a warning that linking by meaning
// was skipped. The caller cancelling ctx still ends Retrieve with
// ctx.Err().
func TestLinkingByMeaningHangingEmbedder(t *testing.T) {
	g, s := roverMemory(t, 10)
	r := NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(blockingEmbedder{started: make(chan struct{}, 1)}, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := r.Retrieve(ctx, roverQuestion)
	took := time.Since(start)
	require.NoError(t, err)
	require.Equal(t, []string{`graph "graph": linking by meaning: skipped: embed query "which lunar rover vehicle": context deadline exceeded`}, res.Warnings)
	require.ErrorIs(t, res.Errors[0], context.DeadlineExceeded)
	require.Equal(t, "page", res.Items[0].ID())
	require.GreaterOrEqual(t, took, 300*time.Millisecond)
	require.Less(t, took, 600*time.Millisecond)

	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	emb := blockingEmbedder{started: make(chan struct{}, 1)}
	r = NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0))
	go func() {
		<-emb.started
		cancel()
	}()
	_, err = r.Retrieve(ctx, roverQuestion)
	require.ErrorIs(t, err, context.Canceled)
}

// TestLinkingByMeaningKeepsWhatItEmbeds: a refresh the caller cancels
// keeps the batches it embedded; the next goes on from there, and embeds
// an entity written in between once, whether it was embedded already or
// not yet. Changing one entity's text re-embeds that text alone.
func TestLinkingByMeaningKeepsWhatItEmbeds(t *testing.T) {
	const n = 300 // 5 batches: 64 × 4 + 45
	g, _ := roverMemory(t, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Calls: the query, 2 batches, the third cancelled.
	emb := &cancellingEmbedder{wordEmbedder: wordEmbedder{dims: 256}, at: 4, cancel: cancel}
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0.7))
	_, err := r.Retrieve(ctx, roverQuestion)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 2*defaultEmbedBatch, keptVectors(r, 0))
	require.EqualValues(t, 1+2*defaultEmbedBatch, emb.texts.Load())

	// e0000 is embedded, e0200 is not: each is embedded once, as it is now.
	bg := context.Background()
	require.NoError(t, g.AddEntity(bg, Entity{ID: "e0000", Name: "Thing 0", Description: "changed"}))
	require.NoError(t, g.AddEntity(bg, Entity{ID: "e0200", Name: "Thing 200", Description: "changed too"}))
	res, err := r.Retrieve(bg, roverQuestion)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	require.Equal(t, 1, res.Stats.LinkedByMeaning)
	require.Equal(t, "zz-rover", res.Items[0].ID())
	require.Equal(t, n+1, keptVectors(r, 0))
	// Then: the query, and the 301 − 128 entities not embedded, plus e0000.
	require.EqualValues(t, 1+2*defaultEmbedBatch+1+(n+1-2*defaultEmbedBatch)+1, emb.texts.Load())

	texts, calls := emb.texts.Load(), emb.calls.Load()
	require.NoError(t, g.AddEntity(bg, Entity{ID: "e0007", Name: "Thing 7", Description: "a new text"}))
	_, err = g.SetEntityTags(bg, "e0008", []string{"same-text"})
	require.NoError(t, err)
	_, err = r.Retrieve(bg, roverQuestion)
	require.NoError(t, err)
	require.Equal(t, texts+2, emb.texts.Load(), "the changed entity and the query")
	require.Equal(t, calls+2, emb.calls.Load())

	require.NoError(t, g.RemoveEntity(bg, "e0007"))
	_, err = r.Retrieve(bg, roverQuestion)
	require.NoError(t, err)
	require.Equal(t, texts+3, emb.texts.Load(), "the query alone")
	require.Equal(t, n, keptVectors(r, 0))
}

// TestLinkingByMeaningOutlivesASlowBatch: a batch that once took long
// does not stop every later refresh under a deadline: the expectation
// that a batch takes as long as the last one is halved each time it stops
// a refresh, until a batch is tried again.
func TestLinkingByMeaningOutlivesASlowBatch(t *testing.T) {
	g, _ := roverMemory(t, 10)
	emb := &wordEmbedder{dims: 64}
	m := newMeaningLinker(emb, 0.7, 1)
	x := m.indexes[0]
	x.batch = time.Hour
	tries := 0
	for ; keptVectorsOf(x) == 0 && tries < 40; tries++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := x.update(ctx, g, emb, m.model)
		cancel()
		if keptVectorsOf(x) == 0 {
			require.EqualError(t, err, "incomplete: 0 of 11 entities embedded: context deadline exceeded")
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Zero(t, emb.calls.Load())
			continue
		}
		require.NoError(t, err)
	}
	require.Equal(t, 11, keptVectorsOf(x))
	require.Equal(t, 13, tries, "an hour halved 12 times is under a second")
}

func keptVectorsOf(x *entityVectors) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// TestLinkingByMeaningConcurrentQueries: queries that need the refresh at
// the same time take turns; none fails, each answers from the content
// channel, and what they embed together is every entity once.
func TestLinkingByMeaningConcurrentQueries(t *testing.T) {
	const n = 500 // 8 batches
	g, s := roverMemory(t, n)
	emb := &sleepyEmbedder{wordEmbedder: wordEmbedder{dims: 256}, pause: 15 * time.Millisecond}
	r := NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0.7))
	const queries = 4
	errs := make(chan error, queries)
	for range queries {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			res, err := r.Retrieve(ctx, roverQuestion)
			if err == nil && itemByID(res, ItemPage, "page") == nil {
				err = errors.New("no content answer")
			}
			errs <- err
		}()
	}
	for range queries {
		require.NoError(t, <-errs)
	}
	// Without a deadline, a query refreshes to the end.
	res, err := r.Retrieve(context.Background(), roverQuestion)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	require.Equal(t, 1, res.Stats.LinkedByMeaning)
	require.Equal(t, n+1, keptVectors(r, 0))
	require.EqualValues(t, n+1+queries+1, emb.texts.Load())
}

// TestRefreshEntityVectors: RefreshEntityVectors builds the vectors before
// any query, so that the first query embeds only itself; a cancelled ctx
// keeps what was embedded and returns an error wrapping ctx.Err() naming
// the graph; an embedder failure wraps ErrEmbedding. With linking by
// meaning off it does nothing.
func TestRefreshEntityVectors(t *testing.T) {
	const n = 300
	bg := context.Background()
	g, s := roverMemory(t, n)
	require.NoError(t, NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g)).RefreshEntityVectors(bg))

	emb := &wordEmbedder{dims: 256}
	r := NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0.7), WithKnowledgeGraph(plainGraph{g}))
	require.NoError(t, r.RefreshEntityVectors(bg))
	require.EqualValues(t, n+1, emb.texts.Load())
	require.EqualValues(t, 5, emb.calls.Load())
	res, err := r.Retrieve(bg, roverQuestion)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	require.Equal(t, 1, res.Stats.LinkedByMeaning)
	require.EqualValues(t, n+2, emb.texts.Load())

	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	cemb := &cancellingEmbedder{wordEmbedder: wordEmbedder{dims: 256}, at: 3, cancel: cancel}
	r = NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(cemb, 0.7))
	err = r.RefreshEntityVectors(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, `kgmem: refresh entity vectors: graph "graph": incomplete: 128 of 301 entities embedded: context canceled`)
	require.Equal(t, 2*defaultEmbedBatch, keptVectors(r, 0))

	offline := errors.New("model offline")
	r = NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(&wordEmbedder{dims: 8, fail: offline}, 0))
	err = r.RefreshEntityVectors(bg)
	require.ErrorIs(t, err, ErrEmbedding)
	require.ErrorIs(t, err, offline)
	require.EqualError(t, err, `kgmem: refresh entity vectors: graph "graph": incomplete: 0 of 301 entities embedded: embed entity "e0000": model offline: embedding failed`)

	require.ErrorIs(t, NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 2)).RefreshEntityVectors(bg), ErrInvalidArgument)
}

// TestLinkingByMeaningAtScale measures linking by meaning on a large graph
// with a slow embedder: 12,000 entities, 4 ms an Embed call, ten queries
// under a 300 ms deadline each. It logs how many queries failed, which
// first linked the entity the question means, and how many texts were
// embedded and vectors kept. It runs when KGMEM_MEANING_SCALE is set:
//
//	KGMEM_MEANING_SCALE=1 go test -run TestLinkingByMeaningAtScale -v .
func TestLinkingByMeaningAtScale(t *testing.T) {
	if os.Getenv("KGMEM_MEANING_SCALE") == "" {
		t.Skip("set KGMEM_MEANING_SCALE=1 to run")
	}
	g, s := roverMemory(t, 11_999)
	emb := &sleepyEmbedder{wordEmbedder: wordEmbedder{dims: 256}, pause: 4 * time.Millisecond}
	r := NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g), WithLinkEmbedder(emb, 0.7))
	failed, content, first := 0, 0, 0
	for i := 1; i <= 10; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		res, err := r.Retrieve(ctx, roverQuestion)
		cancel()
		took := time.Since(start).Round(time.Millisecond)
		if err != nil {
			failed++
			t.Logf("query %d: %v after %v; texts embedded %d, vectors kept %d", i, err, took, emb.texts.Load(), keptVectors(r, 0))
			continue
		}
		if itemByID(res, ItemPage, "page") != nil {
			content++
		}
		if first == 0 && itemByID(res, ItemEntity, "zz-rover") != nil {
			first = i
		}
		t.Logf("query %d: %d items, linked by meaning %d, warnings %q, in %v; texts embedded %d, vectors kept %d",
			i, len(res.Items), res.Stats.LinkedByMeaning, res.Warnings, took, emb.texts.Load(), keptVectors(r, 0))
	}
	t.Logf("failed %d of 10 queries, %d answered from content; first query to link the rover: %d (0: none); texts embedded %d, vectors kept %d",
		failed, content, first, emb.texts.Load(), keptVectors(r, 0))
}
