package kgmem

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkGetRelatedAsOf measures what valid time costs GetRelated at
// depth 2, both directions, on the benchmark graphs: validity=none is the
// graph as BenchmarkGetRelated builds it, where no relation has a valid
// time and reads never look at one (the baseline, run in the same
// process); validity=all-current gives every relation a start in the
// past, so every relation is checked and none is dropped; half-ended ends
// every other relation in the past, so a default read walks half of them.
// Each variant reads as of now (the default) and, for half-ended, as of an
// instant before the ends and over all time too.
func BenchmarkGetRelatedAsOf(b *testing.B) {
	ctx := context.Background()
	start, end := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, size := range benchSizes() {
		spec := benchGraphSpec{Shape: "powerlaw", Entities: size[0], Relations: size[1]}
		f := fixture(b, spec)
		variants := []struct {
			name string
			g    *InMemoryGraph
			at   []AsOf
		}{
			{"validity=none", f.g, []AsOf{{}}},
			{"validity=all-current", timedCopy(b, f, func(i int, r *Relation) { r.ValidFrom = start }), []AsOf{{}}},
			{"validity=half-ended", timedCopy(b, f, func(i int, r *Relation) {
				r.ValidFrom = start
				if i%2 == 0 {
					r.ValidTo = end
				}
			}), []AsOf{{}, At(start.AddDate(1, 0, 0)), AsOf{AllTime: true}}},
		}
		for _, v := range variants {
			for _, at := range v.at {
				asOf := "now"
				switch {
				case at.AllTime:
					asOf = "all"
				case !at.Time.IsZero():
					asOf = "past"
				}
				opts := TraverseOptions{Depth: 2, Direction: Both, AsOf: at}
				b.Run(fmt.Sprintf("%s/%s/asof=%s", spec, v.name, asOf), func(b *testing.B) {
					b.ReportAllocs()
					reached := 0
					for i := 0; b.Loop(); i++ {
						res, err := v.g.GetRelated(ctx, f.starts[i%len(f.starts)], opts)
						if err != nil {
							b.Fatal(err)
						}
						reached += len(res)
					}
					b.ReportMetric(float64(reached)/float64(b.N), "entities/op")
				})
			}
		}
	}
}

// timedCopy returns a copy of the fixture's graph whose relations, in
// key order, are given a valid time by set.
func timedCopy(tb testing.TB, f *benchFixture, set func(i int, r *Relation)) *InMemoryGraph {
	ctx := context.Background()
	rels, err := f.g.Relations(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range rels {
		set(i, &rels[i])
	}
	ents, err := f.g.Entities(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	g := NewInMemoryGraph()
	if err := g.AddBatch(ctx, ents, rels); err != nil {
		tb.Fatal(err)
	}
	return g
}
