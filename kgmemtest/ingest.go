package kgmemtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
)

// ---------------------------------------------------------------------------
// Ingest: what kgmem.Ingest builds on the backend's methods.

func ingestChecks() []check {
	return []check{
		{"ConcurrentMergesKeepEveryMention", checkConcurrentMerges},
	}
}

// checkConcurrentMerges: callers that each add one alias and one source to
// the same entity at the same time all keep their additions, and exactly
// one of them reports creating it.
func checkConcurrentMerges(t *testing.T, g kgmem.KnowledgeGraph) {
	const callers = 16
	ctx := context.Background()
	reports := make([]kgmem.IngestReport, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			x := kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Alice", Type: "person", Aliases: []string{fmt.Sprintf("Ali %02d", i)}}}}
			rep, err := kgmem.Ingest(ctx, g, x, kgmem.WithSource(fmt.Sprintf("page:%02d", i)))
			if err != nil {
				t.Errorf("Ingest %d: %v", i, err)
			}
			reports[i] = rep
		})
	}
	wg.Wait()
	e := mustEntity(t, g, kgmem.DeriveEntityID("person", "Alice"))
	var aliases, sources []string
	for i := range callers {
		aliases, sources = append(aliases, fmt.Sprintf("Ali %02d", i)), append(sources, fmt.Sprintf("page:%02d", i))
	}
	got := slices.Sorted(slices.Values(e.Aliases))
	requireStrings(t, "aliases after concurrent merges", aliases, got)
	got = slices.Sorted(slices.Values(e.SourceIDs))
	requireStrings(t, "sources after concurrent merges", sources, got)
	created, merged := 0, 0
	for _, r := range reports {
		created, merged = created+r.EntitiesCreated, merged+r.EntitiesMerged
	}
	if created != 1 || merged != callers-1 {
		t.Errorf("reports: %d created and %d merged, want 1 and %d", created, merged, callers-1)
	}
}
