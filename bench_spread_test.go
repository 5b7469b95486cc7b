package kgmem_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/extractset"
)

// BenchmarkRetrieveExtracted times Retrieve with defaults (Hybrid, page
// spreading) and with the content channel alone over memories built from
// a model's open extraction: musique-dev (skipped when KGMEM_DATA lacks
// it) and the generated gen2, each question of the set in turn.
//
//	go test -run '^$' -bench RetrieveExtracted -benchmem .
func BenchmarkRetrieveExtracted(b *testing.B) {
	sets := []struct {
		name string
		load func(b *testing.B) *xeSet
	}{
		{"musique", func(b *testing.B) *xeSet { return xeLoadMusique(b, kgmem.EvalData(b, "musique-dev")) }},
		{"gen2", func(*testing.B) *xeSet { s, _ := xeGenerated(extractset.Small()); return s }},
	}
	for _, s := range sets {
		b.Run(s.name, func(b *testing.B) {
			set := s.load(b)
			built := xeBuild(b, set)
			for _, c := range []struct {
				name string
				opts []kgmem.RetrieverOption
			}{
				{"content", []kgmem.RetrieverOption{kgmem.WithStrategy(kgmem.KnowledgeOnly)}},
				{"defaults", nil},
			} {
				b.Run(c.name, func(b *testing.B) {
					r := kgmem.NewMemoryRetriever(built.store, kgmem.RetrieverConfig{MaxResults: 50},
						append([]kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(built.graph)}, c.opts...)...)
					ctx := context.Background()
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; b.Loop(); i++ {
						_, err := r.Retrieve(ctx, set.questions[i%len(set.questions)].Question)
						require.NoError(b, err)
					}
				})
			}
		})
	}
}
