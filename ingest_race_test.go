package kgmem_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// slowReads widens the window between Ingest's reads and its writes: every
// entity read sleeps, so that concurrent calls plan from the same state.
type slowReads struct {
	kgmem.KnowledgeGraph
	delay time.Duration
}

func (g slowReads) GetEntity(ctx context.Context, id string) (kgmem.Entity, bool, error) {
	time.Sleep(g.delay)
	return g.KnowledgeGraph.GetEntity(ctx, id)
}

func (g slowReads) FindByKeywords(ctx context.Context, keywords []string) ([]kgmem.Entity, error) {
	time.Sleep(g.delay)
	return g.KnowledgeGraph.FindByKeywords(ctx, keywords)
}

// slowEmbedder answers as kgmemtest.HashEmbedder after a delay.
type slowEmbedder struct {
	kgmemtest.HashEmbedder
	delay time.Duration
}

func (e slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(e.delay)
	return e.HashEmbedder.Embed(ctx, texts)
}

// TestIngestConcurrentMergesKeepEveryMention: callers that each add one
// alias and one source page to the same entity at the same time all keep
// their additions, through a graph whose reads are slow and through
// Memory.Ingest with an embedder that is slow.
func TestIngestConcurrentMergesKeepEveryMention(t *testing.T) {
	const callers = 16
	ctx := context.Background()
	extraction := func(i int) kgmem.Extraction {
		return kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Alice", Type: "person", Aliases: []string{fmt.Sprintf("Ali %d", i)}}}}
	}
	page := func(i int) string { return fmt.Sprintf("page:%02d", i) }
	check := func(t *testing.T, g kgmem.KnowledgeGraph, reports []kgmem.IngestReport) {
		t.Helper()
		e, ok, err := g.GetEntity(ctx, kgmem.DeriveEntityID("person", "Alice"))
		require.NoError(t, err)
		require.True(t, ok, "Alice is missing")
		var aliases, sources []string
		for i := range callers {
			aliases, sources = append(aliases, fmt.Sprintf("Ali %d", i)), append(sources, page(i))
		}
		got := slices.Clone(e.Aliases)
		slices.Sort(got)
		slices.Sort(aliases)
		require.Equal(t, aliases, got, "aliases kept")
		got = slices.Clone(e.SourceIDs)
		slices.Sort(got)
		require.Equal(t, sources, got, "sources kept")
		created, merged := 0, 0
		for _, r := range reports {
			created += r.EntitiesCreated
			merged += r.EntitiesMerged
		}
		require.Equal(t, 1, created, "entities created")
		require.Equal(t, callers-1, merged, "entities merged")
	}
	run := func(t *testing.T, ingest func(i int) (kgmem.IngestReport, error)) []kgmem.IngestReport {
		reports := make([]kgmem.IngestReport, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				rep, err := ingest(i)
				if err != nil {
					t.Errorf("caller %d: %v", i, err)
				}
				reports[i] = rep
			})
		}
		wg.Wait()
		return reports
	}
	// InMemoryGraph, DurableGraph, Memory's graph and a KnowledgeGraph-only
	// graph run kgmemtest's Ingest section (see the conformance tests);
	// here the window between reads and writes is widened.
	t.Run("KnowledgeGraphOnlySlowReads", func(t *testing.T) {
		g := slowReads{interfaceOnly{kgmem.NewInMemoryGraph()}, time.Millisecond}
		reports := run(t, func(i int) (kgmem.IngestReport, error) {
			return kgmem.Ingest(ctx, g, extraction(i), kgmem.WithSource(page(i)))
		})
		check(t, g, reports)
	})
	t.Run("MemoryWithSlowEmbedder", func(t *testing.T) {
		m := openMemory(t, t.TempDir(), kgmem.WithSync(kgmem.SyncNone),
			kgmem.WithEmbedder(slowEmbedder{kgmemtest.HashEmbedder{Dimensions: 16}, 20 * time.Millisecond}))
		begin := time.Now()
		reports := run(t, func(i int) (kgmem.IngestReport, error) {
			return m.Ingest(ctx, kgmem.KnowledgePage{ID: page(i), Content: fmt.Sprintf("Alice, also called Ali %d.", i)}, extraction(i))
		})
		check(t, m.Graph(), reports)
		for i := range callers {
			_, ok, err := m.Store().Get(ctx, page(i))
			require.NoError(t, err)
			require.True(t, ok, "page %s", page(i))
		}
		t.Logf("%d calls with a 20 ms embedder took %v", callers, time.Since(begin))
	})
}
