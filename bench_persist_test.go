package kgmem

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
)

// BenchmarkDurableWrite times one write to a durable memory under each
// sync policy (sync=always, sync=interval with the default period,
// sync=none) and to the same plain in-memory graph and store
// (sync=memory), all on the same 1k entities: op=AddRelation (new
// relations for the first 50k iterations, replacements after), op=Put (a
// short page), op=Ingest (a page and an extraction of two entities and a
// relation). Compare each policy with sync=memory of the same op and run.
func BenchmarkDurableWrite(b *testing.B) {
	ctx := context.Background()
	const n = 1000
	ents := make([]Entity, n)
	for i := range ents {
		ents[i] = Entity{ID: fmt.Sprintf("e%04d", i), Name: fmt.Sprintf("entity %d", i)}
	}
	rel := func(i int) Relation {
		return Relation{SourceID: ents[i%n].ID, TargetID: ents[(i/n+i+1)%n].ID, Type: "knows", Weight: 0.5}
	}
	page := func(i int) KnowledgePage {
		return KnowledgePage{ID: fmt.Sprintf("page-%d", i%5000), Title: "Standup notes",
			Content: fmt.Sprintf("Entity %d reviewed the design of entity %d with the team.", i%n, (i+7)%n)}
	}
	extraction := func(i int) Extraction {
		a, c := fmt.Sprintf("entity %d", i%n), fmt.Sprintf("entity %d", (i+7)%n)
		return Extraction{
			Entities:  []ExtractedEntity{{ID: ents[i%n].ID, Name: a}, {ID: ents[(i+7)%n].ID, Name: c}},
			Relations: []ExtractedRelation{{Source: ents[i%n].ID, Target: ents[(i+7)%n].ID, Type: "reviewed"}},
		}
	}
	ops := map[string]func(i int, m *Memory, g *InMemoryGraph, s *InMemoryKnowledgeStore) error{
		"AddRelation": func(i int, _ *Memory, g *InMemoryGraph, _ *InMemoryKnowledgeStore) error {
			return g.AddRelation(ctx, rel(i%50_000))
		},
		"Put": func(i int, _ *Memory, _ *InMemoryGraph, s *InMemoryKnowledgeStore) error {
			return s.Put(ctx, page(i))
		},
		"Ingest": func(i int, m *Memory, g *InMemoryGraph, s *InMemoryKnowledgeStore) error {
			if m != nil {
				_, err := m.Ingest(ctx, page(i), extraction(i))
				return err
			}
			p := page(i)
			if _, err := Ingest(ctx, g, extraction(i), WithSource(p.ID)); err != nil {
				return err
			}
			return s.Put(ctx, p)
		},
	}
	for _, op := range []string{"AddRelation", "Put", "Ingest"} {
		for _, mode := range []string{"always", "interval", "none", "memory"} {
			b.Run(fmt.Sprintf("op=%s/sync=%s", op, mode), func(b *testing.B) {
				var (
					m *Memory
					g = NewInMemoryGraph()
					s = NewInMemoryKnowledgeStore()
				)
				if mode != "memory" {
					policy := map[string]SyncPolicy{"always": SyncAlways, "interval": SyncInterval, "none": SyncNone}[mode]
					var err error
					m, err = OpenMemory(b.TempDir(), WithSync(policy), WithCompactThreshold(-1))
					if err != nil {
						b.Fatal(err)
					}
					defer m.Close()
					g, s = m.Graph(), m.Store()
				}
				if err := g.AddBatch(ctx, ents, nil); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := ops[op](i, m, g, s); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkOpen times opening a durable memory whose snapshot holds the
// power-law graph of 100k entities and 1M relations and 100k pages (-short:
// 1k entities, 5k relations, 1k pages), with an empty journal: the cost of
// a restart after a compaction (op=OpenMemory); and, for comparison, the
// same with the journal holding every page as a record instead
// (op=OpenMemoryReplay), OpenGraph of the graph alone, and WriteTo and
// ReadFrom of the graph's snapshot.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	sizes := benchSizes()
	size := sizes[len(sizes)-1]
	spec := benchGraphSpec{Shape: "powerlaw", Entities: size[0], Relations: size[1]}
	data := generateBench(spec)
	pages := size[0]
	page := func(i int) KnowledgePage {
		return KnowledgePage{ID: fmt.Sprintf("page-%06d", i), Title: fmt.Sprintf("Notes %d", i),
			Content: fmt.Sprintf("Entity %d met entity %d about the quarterly plan; entity %d took notes.", i, i*7%size[0], i*13%size[0])}
	}
	build := func(b *testing.B, dir string, compact bool) {
		m, err := OpenMemory(dir, WithSync(SyncNone), WithCompactThreshold(-1))
		if err != nil {
			b.Fatal(err)
		}
		// Batches of 50k relations: a journal record holds at most 64 MiB.
		if err := m.Graph().AddBatch(ctx, data.entities, nil); err != nil {
			b.Fatal(err)
		}
		for lo := 0; lo < len(data.relations); lo += 50_000 {
			if err := m.Graph().AddBatch(ctx, nil, data.relations[lo:min(lo+50_000, len(data.relations))]); err != nil {
				b.Fatal(err)
			}
		}
		if compact {
			if err := m.Compact(); err != nil {
				b.Fatal(err)
			}
		}
		for i := range pages {
			if err := m.Store().Put(ctx, page(i)); err != nil {
				b.Fatal(err)
			}
		}
		if compact {
			if err := m.Compact(); err != nil {
				b.Fatal(err)
			}
		}
		if err := m.Close(); err != nil {
			b.Fatal(err)
		}
	}
	snapDir, replayDir := b.TempDir(), b.TempDir()
	build(b, snapDir, true)
	build(b, replayDir, false)
	name := fmt.Sprintf("%s,pages=%s", spec, shortCount(pages))
	for _, c := range []struct{ op, dir string }{{"OpenMemory", snapDir}, {"OpenMemoryReplay", replayDir}} {
		b.Run(name+"/op="+c.op, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := OpenMemory(c.dir, WithCompactThreshold(-1))
				if err != nil {
					b.Fatal(err)
				}
				if m.Graph().Stats().Relations != spec.Relations || m.Store().Len() != pages {
					b.Fatalf("opened %d relations and %d pages", m.Graph().Stats().Relations, m.Store().Len())
				}
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}

	g := data.build(b)
	var snap bytes.Buffer
	if _, err := g.WriteTo(&snap); err != nil {
		b.Fatal(err)
	}
	graphDir := b.TempDir()
	d, err := OpenGraph(graphDir, WithCompactThreshold(-1))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := d.ReadFrom(bytes.NewReader(snap.Bytes())); err != nil {
		b.Fatal(err)
	}
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	b.Run(spec.String()+"/op=OpenGraph", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(snap.Len()))
		for b.Loop() {
			h, err := OpenGraph(graphDir, WithCompactThreshold(-1))
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
