package kgmem

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkDurableAddRelation times AddRelation on a durable graph that
// syncs every write (sync=always), on one that leaves syncing to the
// operating system (sync=none), and on a plain in-memory graph
// (sync=memory), all on the same 1k entities and the same sequence of
// relations: new ones for the first 50k iterations, replacements after.
// Compare the modes with a fixed iteration count, e.g. -benchtime 20000x.
func BenchmarkDurableAddRelation(b *testing.B) {
	ctx := context.Background()
	const n = 1000
	ents := make([]Entity, n)
	for i := range ents {
		ents[i] = Entity{ID: fmt.Sprintf("e%04d", i), Name: fmt.Sprintf("entity %d", i)}
	}
	rel := func(i int) Relation {
		return Relation{SourceID: ents[i%n].ID, TargetID: ents[(i/n+i+1)%n].ID, Type: "knows", Weight: 0.5}
	}
	for _, mode := range []string{"always", "none", "memory"} {
		b.Run("sync="+mode, func(b *testing.B) {
			var g *InMemoryGraph
			switch mode {
			case "memory":
				g = NewInMemoryGraph()
			default:
				policy := SyncAlways
				if mode == "none" {
					policy = SyncNone
				}
				var err error
				g, err = Open(filepath.Join(b.TempDir(), "memory.kg"), WithSync(policy), WithCompactThreshold(-1))
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
			}
			if err := g.AddBatch(ctx, ents, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := g.AddRelation(ctx, rel(i%50_000)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkOpen times Open of a durable graph whose snapshot holds the
// power-law graph of 100k entities and 1M relations (-short: 1k and 5k),
// with an empty journal: the cost of a restart after a compaction. It also
// times WriteTo and ReadFrom of the same graph.
func BenchmarkOpen(b *testing.B) {
	sizes := benchSizes()
	size := sizes[len(sizes)-1]
	spec := benchGraphSpec{Shape: "powerlaw", Entities: size[0], Relations: size[1]}
	g := generateBench(spec).build(b)
	var snap bytes.Buffer
	if _, err := g.WriteTo(&snap); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "memory.kg")
	if err := g.SaveFile(path); err != nil {
		b.Fatal(err)
	}
	b.Run(spec.String()+"/op=Open", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(snap.Len()))
		for b.Loop() {
			h, err := Open(path, WithCompactThreshold(-1))
			if err != nil {
				b.Fatal(err)
			}
			if h.Stats().Relations != spec.Relations {
				b.Fatalf("opened %d relations, want %d", h.Stats().Relations, spec.Relations)
			}
			if err := h.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(spec.String()+"/op=WriteTo", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(snap.Len()))
		for b.Loop() {
			if _, err := g.WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(spec.String()+"/op=ReadFrom", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(snap.Len()))
		for b.Loop() {
			if _, err := NewInMemoryGraph().ReadFrom(bytes.NewReader(snap.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
}
