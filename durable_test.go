package kgmem_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

// openGraph opens a durable graph and closes it when the test ends.
func openGraph(t testing.TB, dir string, opts ...kgmem.DurableOption) *kgmem.DurableGraph {
	t.Helper()
	g, err := kgmem.OpenGraph(dir, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { g.Close() })
	return g
}

// reopenGraph closes g and opens dir again.
func reopenGraph(t testing.TB, g *kgmem.DurableGraph, dir string, opts ...kgmem.DurableOption) *kgmem.DurableGraph {
	t.Helper()
	require.NoError(t, g.Close())
	return openGraph(t, dir, opts...)
}

// requireSame fails unless the two graphs hold the same entities and
// relations.
func requireSame(t testing.TB, want, got *kgmem.InMemoryGraph) {
	t.Helper()
	ctx := context.Background()
	we, err := want.Entities(ctx)
	require.NoError(t, err)
	ge, err := got.Entities(ctx)
	require.NoError(t, err)
	require.Equal(t, we, ge, "entities differ")
	wr, err := want.Relations(ctx)
	require.NoError(t, err)
	gr, err := got.Relations(ctx)
	require.NoError(t, err)
	require.Equal(t, wr, gr, "relations differ")
	require.Equal(t, want.Stats(), got.Stats())
}

// TestDurableConformance runs the KnowledgeGraph conformance suite against
// a durable graph and the graph of a memory.
func TestDurableConformance(t *testing.T) {
	t.Parallel()
	t.Run("DurableGraph", func(t *testing.T) {
		kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
			return openGraph(t, t.TempDir(), kgmem.WithSync(kgmem.SyncNone))
		})
	})
	t.Run("Memory", func(t *testing.T) {
		if testing.Short() {
			t.Skip("a Memory's graph is the DurableGraph's journal and snapshot over the same graph: left out of -short")
		}
		kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
			return openMemory(t, t.TempDir(), kgmem.WithSync(kgmem.SyncNone)).Graph()
		})
	})
}

// step is one write applied to both a durable graph and a plain model.
type step struct {
	name  string
	apply func(g *kgmem.InMemoryGraph) error
}

func mutationSteps() []step {
	ctx := context.Background()
	return []step{
		{"AddEntity", func(g *kgmem.InMemoryGraph) error {
			for _, e := range []kgmem.Entity{
				{ID: "person:alice", Name: "Alice", Type: "person", Description: "leads\nApollo", Aliases: []string{"Al"},
					Tags: []string{" Lead ", "lead", "Team"}, Properties: map[string]string{"email": "a@x"}, SourceIDs: []string{"page-1", "page-2"}},
				{ID: "person:张三", Name: "张三", SourceIDs: []string{"page-1"}},
				{ID: "project:apollo", Name: "Project Apollo", Tags: []string{"project"}},
			} {
				if err := g.AddEntity(ctx, e); err != nil {
					return err
				}
			}
			return nil
		}},
		{"AddRelation", func(g *kgmem.InMemoryGraph) error {
			if err := g.AddRelation(ctx, kgmem.Relation{SourceID: "person:alice", TargetID: "project:apollo", Type: "leads", Weight: 1}); err != nil {
				return err
			}
			return g.AddRelation(ctx, kgmem.Relation{SourceID: "person:张三", TargetID: "project:apollo", Type: "works_on", Weight: 0.9,
				Properties: map[string]string{"since": "2024"}, SourceIDs: []string{"page-1"}})
		}},
		{"AddRelation replaces", func(g *kgmem.InMemoryGraph) error {
			return g.AddRelation(ctx, kgmem.Relation{SourceID: "person:alice", TargetID: "project:apollo", Type: "leads", Weight: 0.25,
				SourceIDs: []string{"page-2"}})
		}},
		{"SetEntityTags", func(g *kgmem.InMemoryGraph) error {
			_, err := g.SetEntityTags(ctx, "project:apollo", []string{"Space", "space", "NASA", ""})
			return err
		}},
		{"AddEntity upsert", func(g *kgmem.InMemoryGraph) error {
			return g.AddEntity(ctx, kgmem.Entity{ID: "person:alice", Name: "Alice B.", Tags: []string{"renamed"}, SourceIDs: []string{"page-2"}})
		}},
		{"AddBatch", func(g *kgmem.InMemoryGraph) error {
			return g.AddBatch(ctx,
				[]kgmem.Entity{{ID: "tech:raft", Name: "Raft"}, {ID: "team:infra", Name: "基础架构部", SourceIDs: []string{"page-3"}}},
				[]kgmem.Relation{
					{SourceID: "project:apollo", TargetID: "tech:raft", Type: "uses", Weight: 0.6},
					{SourceID: "project:apollo", TargetID: "team:infra", Type: "part_of", Weight: 0.8},
					{SourceID: "person:张三", TargetID: "team:infra", Type: "member_of", Weight: 0.7},
				})
		}},
		{"RemoveRelation", func(g *kgmem.InMemoryGraph) error {
			return g.RemoveRelation(ctx, "project:apollo", "tech:raft", "uses")
		}},
		{"RemoveSource", func(g *kgmem.InMemoryGraph) error {
			rep, err := g.RemoveSource(ctx, "page-1")
			if err == nil && rep.EntitiesRemoved != 1 {
				return fmt.Errorf("RemoveSource removed %d entities, want 1", rep.EntitiesRemoved)
			}
			return err
		}},
		{"RemoveEntity", func(g *kgmem.InMemoryGraph) error {
			return g.RemoveEntity(ctx, "team:infra")
		}},
		{"ReadFrom", func(g *kgmem.InMemoryGraph) error {
			_, err := g.ReadFrom(strings.NewReader(`{"format":"kgmem-graph","version":2,"entities":2,"relations":1}
{"id":"a","name":"A","tags":["x"]}
{"id":"b","name":"B"}
{"source_id":"a","target_id":"b","type":"knows","weight":0.5}
`))
			return err
		}},
		{"AddEntity after ReadFrom", func(g *kgmem.InMemoryGraph) error {
			return g.AddEntity(ctx, kgmem.Entity{ID: "c", Name: "C"})
		}},
	}
}

// TestDurableReopenAfterEveryMutation applies every kind of write, and
// after each one closes the graph, opens it again and compares it with a
// plain graph that received the same writes.
func TestDurableReopenAfterEveryMutation(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) {
			dir := t.TempDir()
			g := openGraph(t, dir)
			model := kgmem.NewInMemoryGraph()
			for _, s := range mutationSteps() {
				require.NoError(t, s.apply(model), s.name)
				require.NoError(t, s.apply(g.InMemoryGraph), s.name)
				requireSame(t, model, g.InMemoryGraph)
				if compact {
					require.NoError(t, g.Compact())
				}
				g = reopenGraph(t, g, dir)
				requireSame(t, model, g.InMemoryGraph)
			}
		})
	}
}

func TestDurableCompact(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g := openGraph(t, dir, kgmem.WithSync(kgmem.SyncNone))
	model := kgmem.NewInMemoryGraph()
	write := func(i int) {
		for _, h := range []*kgmem.InMemoryGraph{g.InMemoryGraph, model} {
			require.NoError(t, h.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprintf("e%d", i), Name: fmt.Sprintf("entity %d", i)}))
			if i > 0 {
				require.NoError(t, h.AddRelation(ctx, kgmem.Relation{SourceID: fmt.Sprintf("e%d", i-1), TargetID: fmt.Sprintf("e%d", i), Type: "next", Weight: 0.5}))
			}
		}
	}
	for i := range 100 {
		write(i)
	}
	before := g.JournalStats()
	require.Equal(t, uint64(199), before.Seq)
	require.Zero(t, before.SnapshotSeq)
	require.Zero(t, before.Compactions)

	require.NoError(t, g.Compact())
	after := g.JournalStats()
	require.Equal(t, before.Seq, after.Seq)
	require.Equal(t, before.Seq, after.SnapshotSeq)
	require.Equal(t, 1, after.Compactions)
	require.Less(t, after.JournalBytes, int64(96), "the new journal holds only its header")
	fi, err := os.Stat(filepath.Join(dir, "graph.snapshot"))
	require.NoError(t, err)
	require.Equal(t, fi.Size(), after.SnapshotBytes)
	fi, err = os.Stat(filepath.Join(dir, "graph.journal"))
	require.NoError(t, err)
	require.Equal(t, fi.Size(), after.JournalBytes)

	for i := 100; i < 110; i++ {
		write(i)
	}
	g = reopenGraph(t, g, dir)
	requireSame(t, model, g.InMemoryGraph)
	rec := g.Recovery()
	require.Equal(t, uint64(199), rec.SnapshotSeq)
	require.Equal(t, 20, rec.Replayed)
	require.Zero(t, rec.Skipped)
	require.Zero(t, rec.TornBytes)

	// The snapshot is an ordinary snapshot: a plain graph loads it.
	plain := kgmem.NewInMemoryGraph()
	require.NoError(t, kgmem.LoadFile(filepath.Join(dir, "graph.snapshot"), plain))
	require.Equal(t, 100, plain.Stats().Entities)
}

func TestDurableAutoCompact(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := []kgmem.DurableOption{kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(8 << 10)}
	g := openGraph(t, dir, opts...)
	model := kgmem.NewInMemoryGraph()
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; g.JournalStats().Compactions < 3; i++ {
		require.True(t, time.Now().Before(deadline), "no automatic compaction: %+v", g.JournalStats())
		e := kgmem.Entity{ID: fmt.Sprintf("e%d", i%300), Name: strings.Repeat("n", i%50)}
		require.NoError(t, g.AddEntity(ctx, e))
		require.NoError(t, model.AddEntity(ctx, e))
		if i%7 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	st := g.JournalStats()
	require.NoError(t, st.LastCompactError)
	require.Greater(t, st.SnapshotSeq, uint64(0))
	g = reopenGraph(t, g, dir, opts...)
	requireSame(t, model, g.InMemoryGraph)
}

// TestDurableNeverCompacts checks that a negative threshold turns automatic
// compaction off, and that no goroutine runs without a need.
func TestDurableNeverCompacts(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, t.TempDir(), kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(-1))
	for i := range 2000 {
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprint(i), Name: strings.Repeat("x", 40)}))
	}
	time.Sleep(20 * time.Millisecond)
	require.Zero(t, g.JournalStats().Compactions)
	require.NoError(t, g.Close())
	requireDurableGoroutines(t, 0)
	openGraph(t, t.TempDir(), kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(-1))
	time.Sleep(10 * time.Millisecond)
	require.Zero(t, durableGoroutines(), "no background goroutine is needed")
}

// TestClosed checks that every method of a closed graph, durable or not,
// fails with ErrClosed.
func TestClosed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, kind := range []string{"plain", "durable", "memory"} {
		t.Run(kind, func(t *testing.T) {
			g := kgmem.NewInMemoryGraph()
			closeAll := g.Close
			compact := func() error { return kgmem.ErrClosed }
			switch kind {
			case "durable":
				d, err := kgmem.OpenGraph(filepath.Join(dir, kind))
				require.NoError(t, err)
				g, closeAll, compact = d.InMemoryGraph, d.Close, d.Compact
			case "memory":
				m, err := kgmem.OpenMemory(filepath.Join(dir, kind))
				require.NoError(t, err)
				g, closeAll, compact = m.Graph(), m.Close, m.Compact
			}
			require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "a"}))
			require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "b"}))
			require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 1}))
			snap := filepath.Join(dir, kind+".kg")
			require.NoError(t, kgmem.SaveFile(snap, g))
			require.NoError(t, closeAll())
			calls := map[string]func() error{
				"AddEntity":    func() error { return g.AddEntity(ctx, kgmem.Entity{ID: "c"}) },
				"GetEntity":    func() error { _, _, err := g.GetEntity(ctx, "a"); return err },
				"RemoveEntity": func() error { return g.RemoveEntity(ctx, "a") },
				"AddRelation": func() error {
					return g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "u", Weight: 1})
				},
				"AddBatch":         func() error { return g.AddBatch(ctx, []kgmem.Entity{{ID: "c"}}, nil) },
				"RemoveRelation":   func() error { return g.RemoveRelation(ctx, "a", "b", "t") },
				"GetRelation":      func() error { _, _, err := g.GetRelation(ctx, "a", "b", "t"); return err },
				"GetRelated":       func() error { _, err := g.GetRelated(ctx, "a", kgmem.TraverseOptions{Depth: 1}); return err },
				"FindPaths":        func() error { _, err := g.FindPaths(ctx, "a", "b", kgmem.PathOptions{MaxHops: 2}); return err },
				"FindByKeywords":   func() error { _, err := g.FindByKeywords(ctx, []string{"a"}); return err },
				"FindTags":         func() error { _, err := g.FindTags(ctx, ""); return err },
				"SetEntityTags":    func() error { _, err := g.SetEntityTags(ctx, "a", []string{"x"}); return err },
				"EntityCountByTag": func() error { _, err := g.EntityCountByTag(ctx, "x"); return err },
				"Entities":         func() error { _, err := g.Entities(ctx); return err },
				"Relations":        func() error { _, err := g.Relations(ctx); return err },
				"LinkEntities":     func() error { _, err := g.LinkEntities(ctx, "a"); return err },
				"RemoveSource":     func() error { _, err := g.RemoveSource(ctx, "p"); return err },
				"WriteTo":          func() error { _, err := g.WriteTo(&bytes.Buffer{}); return err },
				"ReadFrom": func() error {
					_, err := g.ReadFrom(strings.NewReader(`{"format":"kgmem-graph","version":2,"entities":0,"relations":0}` + "\n"))
					return err
				},
				"SaveFile": func() error { return kgmem.SaveFile(filepath.Join(dir, "closed.kg"), g) },
				"LoadFile": func() error { return kgmem.LoadFile(snap, g) },
				"Compact":  compact,
				"Close":    closeAll,
			}
			for name, call := range calls {
				require.ErrorIs(t, call(), kgmem.ErrClosed, name)
			}
			_, err := os.Stat(filepath.Join(dir, "closed.kg"))
			require.ErrorIs(t, err, fs.ErrNotExist, "SaveFile of a closed graph wrote a file")
			switch kind {
			case "durable":
				g2 := openGraph(t, filepath.Join(dir, kind))
				require.Equal(t, kgmem.GraphStats{Entities: 2, Relations: 1}, g2.Stats())
			case "memory":
				m := openMemory(t, filepath.Join(dir, kind))
				require.Equal(t, kgmem.GraphStats{Entities: 2, Relations: 1}, m.Graph().Stats())
			}
		})
	}
}

func TestDurableLocked(t *testing.T) {
	dir := t.TempDir()
	g := openGraph(t, dir)
	_, err := kgmem.OpenGraph(dir)
	require.ErrorIs(t, err, kgmem.ErrLocked)
	require.ErrorContains(t, err, "already open in this process")
	_, err = kgmem.OpenMemory(dir)
	require.ErrorIs(t, err, kgmem.ErrLocked, "a memory in the directory of a graph")
	require.NoError(t, g.AddEntity(context.Background(), kgmem.Entity{ID: "a"}), "the failed Open disturbed the first")
	require.NoError(t, g.Close())
	g = openGraph(t, dir)
	require.Equal(t, 1, g.Stats().Entities)
}

// durableGoroutines counts the background goroutines of journals.
func durableGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "wal.(*Log).run(")
}

// requireDurableGoroutines waits up to a second for the number of
// background goroutines of journals to become n (goroutines take a moment
// to start and to finish exiting) and fails if it does not.
func requireDurableGoroutines(t *testing.T, n int) {
	t.Helper()
	for range 100 {
		if durableGoroutines() == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d background goroutines of journals, want %d", durableGoroutines(), n)
}

func TestDurableSyncPolicies(t *testing.T) {
	ctx := context.Background()
	write := func(g *kgmem.DurableGraph, n int) {
		for i := range n {
			require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprint(i)}))
		}
	}
	t.Run("always", func(t *testing.T) {
		g := openGraph(t, t.TempDir())
		write(g, 10)
		require.GreaterOrEqual(t, g.JournalStats().Syncs, int64(10))
	})
	t.Run("none", func(t *testing.T) {
		g := openGraph(t, t.TempDir(), kgmem.WithSync(kgmem.SyncNone))
		write(g, 10)
		require.Zero(t, g.JournalStats().Syncs)
	})
	t.Run("interval", func(t *testing.T) {
		requireDurableGoroutines(t, 0)
		dir := t.TempDir()
		g := openGraph(t, dir, kgmem.WithSyncInterval(5*time.Millisecond))
		requireDurableGoroutines(t, 1)
		write(g, 10)
		require.Less(t, g.JournalStats().Syncs, int64(10), "writes do not sync under SyncInterval")
		deadline := time.Now().Add(5 * time.Second)
		for g.JournalStats().Syncs == 0 {
			require.True(t, time.Now().Before(deadline), "the background goroutine never synced")
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, g.Close())
		requireDurableGoroutines(t, 0)
		g = openGraph(t, dir, kgmem.WithSyncInterval(5*time.Millisecond))
		require.Equal(t, 10, g.Stats().Entities)
	})
	t.Run("goroutines stop", func(t *testing.T) {
		var gs []*kgmem.DurableGraph
		for range 5 {
			gs = append(gs, openGraph(t, t.TempDir(), kgmem.WithSyncInterval(time.Millisecond)))
		}
		requireDurableGoroutines(t, 5)
		for _, g := range gs {
			write(g, 3)
			require.NoError(t, g.Close())
		}
		requireDurableGoroutines(t, 0)
	})
	require.Equal(t, "interval", kgmem.SyncInterval.String())
	require.Equal(t, "SyncPolicy(9)", kgmem.SyncPolicy(9).String())
}

func TestDurableOptionErrors(t *testing.T) {
	cases := []struct {
		name string
		open func(dir string) error
		msg  string
	}{
		{"unknown sync policy", func(dir string) error {
			_, err := kgmem.OpenGraph(dir, kgmem.WithSync(kgmem.SyncPolicy(9)))
			return err
		}, "WithSync: unknown SyncPolicy(9)"},
		{"interval not positive", func(dir string) error {
			_, err := kgmem.OpenStore(dir, kgmem.WithSyncInterval(0))
			return err
		}, "WithSyncInterval: interval 0s is not positive"},
		{"store option for a graph", func(dir string) error {
			_, err := kgmem.OpenGraph(dir, kgmem.WithBM25(1.2, 0.75))
			return err
		}, "open graph: a store option, and no store is opened"},
		{"graph option for a store", func(dir string) error {
			_, err := kgmem.OpenStore(dir, kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 3}))
			return err
		}, "open store: a graph option, and no graph is opened"},
		{"nil option", func(dir string) error {
			_, err := kgmem.OpenMemory(dir, nil)
			return err
		}, "nil option"},
		{"empty directory name", func(string) error {
			_, err := kgmem.OpenMemory("")
			return err
		}, "empty directory name"},
		{"directory is a file", func(dir string) error {
			file := filepath.Join(dir, "file")
			require.NoError(t, os.WriteFile(file, nil, 0o600))
			_, err := kgmem.OpenGraph(file)
			return err
		}, "not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			err := c.open(dir)
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
			require.ErrorContains(t, err, c.msg)
			entries, rerr := os.ReadDir(dir)
			require.NoError(t, rerr)
			for _, e := range entries {
				require.Equal(t, "file", e.Name(), "a refused Open created files")
			}
		})
	}
	// Options of every part are accepted by OpenMemory.
	m := openMemory(t, t.TempDir(), kgmem.WithBM25(1.5, 0.5), kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 2}),
		kgmem.WithSyncInterval(time.Second), kgmem.WithStrictRecovery())
	require.Equal(t, 2, m.Graph().TagConstraints().MaxTagsPerEntity)
}

// Journal frames, built and parsed by the documented format.

// frame frames a journal payload: length, CRC-32C, payload.
func frame(payload string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum([]byte(payload), crc32.MakeTable(crc32.Castagnoli)))
	return append(b, payload...)
}

// frameOffsets returns the offset of every frame of a journal, the header
// first, and checks that the frames cover it exactly.
func frameOffsets(t testing.TB, journal []byte) []int {
	t.Helper()
	var offs []int
	for off := 0; off < len(journal); {
		offs = append(offs, off)
		require.GreaterOrEqual(t, len(journal)-off, 8)
		n := int(binary.LittleEndian.Uint32(journal[off:]))
		payload := journal[off+8 : off+8+n]
		require.Equal(t, binary.LittleEndian.Uint32(journal[off+4:]), crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
		off += 8 + n
	}
	return offs
}

// payloads returns the payloads of a journal's frames.
func payloads(t testing.TB, journal []byte) []string {
	t.Helper()
	var ps []string
	for _, off := range frameOffsets(t, journal) {
		n := int(binary.LittleEndian.Uint32(journal[off:]))
		ps = append(ps, string(journal[off+8:off+8+n]))
	}
	return ps
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "graph.snapshot")
	require.NoError(t, os.WriteFile(path, []byte(`{"format":"kgmem-graph","version":2,"entities":1,"relations":0}`+"\n"+`{"id":""}`+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "graph.journal"),
		frame(`{"format":"kgmem-journal","version":2,"kind":"graph","base":0}`), 0o600))
	_, err := kgmem.OpenGraph(dir)
	require.ErrorIs(t, err, kgmem.ErrCorrupt)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument, "the reader's own sentinel is kept")
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "snapshot line 2")
	// A failed Open releases the lock.
	require.NoError(t, os.Remove(path))
	g := openGraph(t, dir)
	require.NoError(t, g.Close())
}

func TestDurableLoadFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := kgmem.NewInMemoryGraph()
	require.NoError(t, src.AddEntity(ctx, kgmem.Entity{ID: "x", Name: "X"}))
	backup := filepath.Join(t.TempDir(), "backup.kg")
	require.NoError(t, kgmem.SaveFile(backup, src))

	g := openGraph(t, dir)
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "old"}))
	// A bad snapshot changes nothing, on disk either.
	bad := filepath.Join(t.TempDir(), "bad.kg")
	require.NoError(t, os.WriteFile(bad, []byte("garbage\n"), 0o600))
	require.ErrorIs(t, kgmem.LoadFile(bad, g), kgmem.ErrInvalidArgument)
	g = reopenGraph(t, g, dir)
	require.Equal(t, 1, g.Stats().Entities)

	require.NoError(t, kgmem.LoadFile(backup, g))
	requireSame(t, src, g.InMemoryGraph)
	st := g.JournalStats()
	require.Equal(t, uint64(2), st.Seq, "the replacement counts as one write")
	require.Equal(t, st.Seq, st.SnapshotSeq)
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "y"}))
	require.NoError(t, src.AddEntity(ctx, kgmem.Entity{ID: "y"}))
	g = reopenGraph(t, g, dir)
	requireSame(t, src, g.InMemoryGraph)
	require.Equal(t, 1, g.Recovery().Replayed)
}

func TestSaveFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "a", Name: "A"}))
	path := filepath.Join(dir, "g.kg")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o640))
	require.NoError(t, kgmem.SaveFile(path, g))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "SaveFile keeps the permission bits")
	h := kgmem.NewInMemoryGraph()
	require.NoError(t, kgmem.LoadFile(path, h))
	requireSame(t, g, h)

	err = kgmem.LoadFile(filepath.Join(dir, "missing.kg"), h)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorContains(t, err, "missing.kg")
	err = kgmem.SaveFile(filepath.Join(dir, "no-such-dir", "x.kg"), g)
	require.ErrorIs(t, err, fs.ErrNotExist)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left behind")
}

func TestDurableRecordTooLarge(t *testing.T) {
	if testing.Short() || raceEnabled() {
		t.Skip("encodes a 64 MiB record, slow under -short and the race detector")
	}
	ctx := context.Background()
	dir := t.TempDir()
	g := openGraph(t, dir, kgmem.WithSync(kgmem.SyncNone))
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "a"}))
	err := g.AddEntity(ctx, kgmem.Entity{ID: "huge", Description: strings.Repeat("x", 64<<20)})
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.ErrorContains(t, err, "larger than the limit")
	_, ok, err := g.GetEntity(ctx, "huge")
	require.NoError(t, err)
	require.False(t, ok, "a write whose record was refused must not be applied")
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "b"}), "a refused record does not stop later writes")
	g = reopenGraph(t, g, dir)
	require.Equal(t, 2, g.Stats().Entities)
}

func TestDurableRemovesTempFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"graph.snapshot.tmp-123", "graph.journal.tmp-9", "pages.snapshot.tmp-1"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o600))
	}
	g := openGraph(t, dir)
	require.Equal(t, 2, g.Recovery().TempFiles)
	_, err := os.Stat(filepath.Join(dir, "pages.snapshot.tmp-1"))
	require.NoError(t, err, "another kind's temporary file is not touched")
}

func TestDurableErrorsWrapSentinels(t *testing.T) {
	g := openGraph(t, t.TempDir())
	require.NoError(t, g.Close())
	err := g.Close()
	require.ErrorIs(t, err, kgmem.ErrClosed)
	require.False(t, errors.Is(err, kgmem.ErrJournal))
	require.ErrorIs(t, g.Compact(), kgmem.ErrClosed)
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
