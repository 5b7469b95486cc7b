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

// openDurable opens a durable graph and closes it when the test ends.
func openDurable(t testing.TB, path string, opts ...kgmem.Option) *kgmem.InMemoryGraph {
	t.Helper()
	g, err := kgmem.Open(path, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { g.Close() })
	return g
}

// reopen closes g and opens path again.
func reopen(t testing.TB, g *kgmem.InMemoryGraph, path string, opts ...kgmem.Option) *kgmem.InMemoryGraph {
	t.Helper()
	require.NoError(t, g.Close())
	return openDurable(t, path, opts...)
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
// a durable graph.
func TestDurableConformance(t *testing.T) {
	kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
		return openDurable(t, filepath.Join(t.TempDir(), "memory.kg"), kgmem.WithSync(kgmem.SyncNone))
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
			_, err := g.ReadFrom(strings.NewReader(`{"format":"kgmem-graph","version":1,"entities":2,"relations":1}
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
			path := filepath.Join(t.TempDir(), "memory.kg")
			g := openDurable(t, path)
			model := kgmem.NewInMemoryGraph()
			for _, s := range mutationSteps() {
				require.NoError(t, s.apply(model), s.name)
				require.NoError(t, s.apply(g), s.name)
				requireSame(t, model, g)
				if compact {
					require.NoError(t, g.Compact())
				}
				g = reopen(t, g, path)
				requireSame(t, model, g)
			}
		})
	}
}

func TestDurableCompact(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.kg")
	g := openDurable(t, path, kgmem.WithSync(kgmem.SyncNone))
	model := kgmem.NewInMemoryGraph()
	write := func(i int) {
		for _, h := range []*kgmem.InMemoryGraph{g, model} {
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
	require.Less(t, after.JournalBytes, int64(64), "the new journal holds only its header")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, fi.Size(), after.SnapshotBytes)
	fi, err = os.Stat(path + ".journal")
	require.NoError(t, err)
	require.Equal(t, fi.Size(), after.JournalBytes)

	for i := 100; i < 110; i++ {
		write(i)
	}
	g = reopen(t, g, path)
	requireSame(t, model, g)
	rec := g.Recovery()
	require.Equal(t, uint64(199), rec.SnapshotSeq)
	require.Equal(t, 20, rec.Replayed)
	require.Zero(t, rec.Skipped)
	require.Zero(t, rec.TornBytes)

	// The snapshot is an ordinary snapshot: a plain graph loads it.
	plain := kgmem.NewInMemoryGraph()
	require.NoError(t, plain.LoadFile(path))
	require.Equal(t, 100, plain.Stats().Entities)
}

func TestDurableAutoCompact(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.kg")
	opts := []kgmem.Option{kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(8 << 10)}
	g := openDurable(t, path, opts...)
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
	g = reopen(t, g, path, opts...)
	requireSame(t, model, g)
}

// TestDurableNeverCompacts checks that a negative threshold turns automatic
// compaction off.
func TestDurableNeverCompacts(t *testing.T) {
	ctx := context.Background()
	g := openDurable(t, filepath.Join(t.TempDir(), "memory.kg"), kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(-1))
	for i := range 2000 {
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprint(i), Name: strings.Repeat("x", 40)}))
	}
	time.Sleep(20 * time.Millisecond)
	require.Zero(t, g.JournalStats().Compactions)
	require.NoError(t, g.Close())
	requireDurableGoroutines(t, 0)
	openDurable(t, filepath.Join(t.TempDir(), "memory.kg"), kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(-1))
	time.Sleep(10 * time.Millisecond)
	require.Zero(t, durableGoroutines(), "no background goroutine is needed")
}

// TestClosed checks that every method of a closed graph, durable or not,
// fails with ErrClosed.
func TestClosed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, durable := range []bool{false, true} {
		t.Run(fmt.Sprintf("durable=%v", durable), func(t *testing.T) {
			g := kgmem.NewInMemoryGraph()
			if durable {
				var err error
				g, err = kgmem.Open(filepath.Join(dir, "memory.kg"))
				require.NoError(t, err)
			}
			require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "a"}))
			require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "b"}))
			require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 1}))
			snap := filepath.Join(dir, "other.kg")
			require.NoError(t, g.SaveFile(snap))
			require.NoError(t, g.Close())
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
					_, err := g.ReadFrom(strings.NewReader(`{"format":"kgmem-graph","version":1,"entities":0,"relations":0}` + "\n"))
					return err
				},
				"SaveFile": func() error { return g.SaveFile(filepath.Join(dir, "closed.kg")) },
				"LoadFile": func() error { return g.LoadFile(snap) },
				"Compact":  g.Compact,
				"Close":    g.Close,
			}
			for name, call := range calls {
				require.ErrorIs(t, call(), kgmem.ErrClosed, name)
			}
			_, err := os.Stat(filepath.Join(dir, "closed.kg"))
			require.ErrorIs(t, err, fs.ErrNotExist, "SaveFile of a closed graph wrote a file")
			if durable {
				g2 := openDurable(t, filepath.Join(dir, "memory.kg"))
				require.Equal(t, kgmem.GraphStats{Entities: 2, Relations: 1}, g2.Stats())
			}
		})
	}
}

func TestDurableLocked(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no file locking on " + runtime.GOOS)
	}
	path := filepath.Join(t.TempDir(), "memory.kg")
	g := openDurable(t, path)
	_, err := kgmem.Open(path)
	require.ErrorIs(t, err, kgmem.ErrLocked)
	require.ErrorContains(t, err, path+".lock")
	require.NoError(t, g.AddEntity(context.Background(), kgmem.Entity{ID: "a"}), "the failed Open disturbed the first")
	require.NoError(t, g.Close())
	g = openDurable(t, path)
	require.Equal(t, 1, g.Stats().Entities)
}

// durableGoroutines counts the background goroutines of durable graphs.
func durableGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "kgmem.(*durableLog).run(")
}

// requireDurableGoroutines waits up to a second for the number of
// background goroutines of durable graphs to become n (goroutines take a
// moment to start and to finish exiting) and fails if it does not.
func requireDurableGoroutines(t *testing.T, n int) {
	t.Helper()
	for range 100 {
		if durableGoroutines() == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d background goroutines of durable graphs, want %d", durableGoroutines(), n)
}

func TestDurableSyncPolicies(t *testing.T) {
	ctx := context.Background()
	write := func(g *kgmem.InMemoryGraph, n int) {
		for i := range n {
			require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: fmt.Sprint(i)}))
		}
	}
	t.Run("always", func(t *testing.T) {
		g := openDurable(t, filepath.Join(t.TempDir(), "memory.kg"))
		write(g, 10)
		require.GreaterOrEqual(t, g.JournalStats().Syncs, int64(10))
	})
	t.Run("none", func(t *testing.T) {
		g := openDurable(t, filepath.Join(t.TempDir(), "memory.kg"), kgmem.WithSync(kgmem.SyncNone))
		write(g, 10)
		require.Zero(t, g.JournalStats().Syncs)
	})
	t.Run("interval", func(t *testing.T) {
		requireDurableGoroutines(t, 0)
		path := filepath.Join(t.TempDir(), "memory.kg")
		g := openDurable(t, path, kgmem.WithSyncInterval(5*time.Millisecond))
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
		g = openDurable(t, path, kgmem.WithSyncInterval(5*time.Millisecond))
		require.Equal(t, 10, g.Stats().Entities)
	})
	t.Run("goroutines stop", func(t *testing.T) {
		var gs []*kgmem.InMemoryGraph
		for i := range 5 {
			gs = append(gs, openDurable(t, filepath.Join(t.TempDir(), fmt.Sprint(i)), kgmem.WithSyncInterval(time.Millisecond)))
		}
		requireDurableGoroutines(t, 5)
		for _, g := range gs {
			write(g, 3)
			require.NoError(t, g.Close())
		}
		requireDurableGoroutines(t, 0)
	})
	require.Panics(t, func() { kgmem.WithSync(kgmem.SyncPolicy(9)) })
	require.Equal(t, "interval", kgmem.SyncInterval.String())
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

// tornFixture is a closed durable graph's files, and the graph it holds
// without its last write.
type tornFixture struct {
	journal []byte // no snapshot has been written
	offs    []int  // frame offsets in journal
	without *kgmem.InMemoryGraph
	full    *kgmem.InMemoryGraph
}

func newTornFixture(t *testing.T) *tornFixture {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.kg")
	g := openDurable(t, path, kgmem.WithSync(kgmem.SyncNone))
	f := &tornFixture{without: kgmem.NewInMemoryGraph(), full: kgmem.NewInMemoryGraph()}
	steps := mutationSteps()
	steps = steps[:len(steps)-2] // no ReadFrom: it starts a new journal
	for _, s := range steps {
		require.NoError(t, s.apply(g))
		require.NoError(t, s.apply(f.full))
	}
	for _, s := range steps[:len(steps)-1] {
		require.NoError(t, s.apply(f.without))
	}
	require.NoError(t, g.Close())
	var err error
	f.journal, err = os.ReadFile(path + ".journal")
	require.NoError(t, err)
	f.offs = frameOffsets(t, f.journal)
	_, err = os.Stat(path)
	require.ErrorIs(t, err, fs.ErrNotExist, "no snapshot yet")
	return f
}

// open writes the fixture's files, with journal in place of its journal,
// into a new directory and opens them.
func (f *tornFixture) open(t *testing.T, journal []byte) (*kgmem.InMemoryGraph, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.kg")
	require.NoError(t, os.WriteFile(path+".journal", journal, 0o600))
	g, err := kgmem.Open(path, kgmem.WithSync(kgmem.SyncNone))
	if err == nil {
		t.Cleanup(func() { g.Close() })
	}
	return g, path, err
}

// TestDurableTornTail cuts the journal at every byte of its last record and
// opens it: the last write is gone, everything before it is there, and
// Recovery reports the discarded bytes.
func TestDurableTornTail(t *testing.T) {
	f := newTornFixture(t)
	last := f.offs[len(f.offs)-1]
	for cut := last; cut < len(f.journal); cut++ {
		g, path, err := f.open(t, f.journal[:cut])
		require.NoError(t, err, "cut at %d", cut)
		requireSame(t, f.without, g)
		rec := g.Recovery()
		require.Equal(t, int64(cut-last), rec.TornBytes, "cut at %d", cut)
		if cut > last {
			require.Equal(t, int64(last), rec.TornOffset)
		}
		require.Equal(t, len(f.offs)-2, rec.Replayed)
		fi, err := os.Stat(path + ".journal")
		require.NoError(t, err)
		require.Equal(t, int64(last), fi.Size(), "the torn record is cut off")
		if cut == last+3 {
			// The journal goes on cleanly after the cut.
			require.NoError(t, g.AddEntity(context.Background(), kgmem.Entity{ID: "after"}))
			g = reopen(t, g, path)
			require.Equal(t, f.without.Stats().Entities+1, g.Stats().Entities)
			require.Zero(t, g.Recovery().TornBytes)
		}
	}
	g, _, err := f.open(t, f.journal)
	require.NoError(t, err)
	requireSame(t, f.full, g)
	require.Zero(t, g.Recovery().TornBytes)

	// Zeros after the last record, as a file system may leave after a
	// crash, are a torn tail too.
	g, _, err = f.open(t, append(bytes.Clone(f.journal), make([]byte, 100)...))
	require.NoError(t, err)
	requireSame(t, f.full, g)
	require.Equal(t, int64(100), g.Recovery().TornBytes)
}

// TestDurableFlippedByte damages one byte: in the last record it is a torn
// write and is discarded; in any earlier record it is corruption, and Open
// fails naming the record's offset and changes no file.
func TestDurableFlippedByte(t *testing.T) {
	f := newTornFixture(t)
	last := f.offs[len(f.offs)-1]
	for i := last; i < len(f.journal); i++ {
		j := bytes.Clone(f.journal)
		j[i] ^= 0x20
		g, _, err := f.open(t, j)
		require.NoError(t, err, "flip at %d", i)
		requireSame(t, f.without, g)
		require.Equal(t, int64(len(f.journal)-last), g.Recovery().TornBytes)
	}
	for k := 1; k < len(f.offs)-1; k++ {
		off := f.offs[k]
		for _, i := range []int{off, off + 5, off + 9, f.offs[k+1] - 1} {
			j := bytes.Clone(f.journal)
			j[i] ^= 0x01
			_, path, err := f.open(t, j)
			require.Error(t, err, "flip at %d in record %d", i, k)
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
			require.ErrorContains(t, err, fmt.Sprintf("offset %d:", off))
			require.ErrorContains(t, err, path+".journal")
			after, err := os.ReadFile(path + ".journal")
			require.NoError(t, err)
			require.Equal(t, j, after, "the damaged journal was changed")
		}
	}
	// A damaged header is corruption too.
	j := bytes.Clone(f.journal)
	j[10] ^= 0x01
	_, _, err := f.open(t, j)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.ErrorContains(t, err, "offset 0:")
}

// TestDurableJournalRules feeds Open hand-made journals that break the
// sequence rules.
func TestDurableJournalRules(t *testing.T) {
	header := frame(`{"format":"kgmem-journal","version":1}`)
	rec := func(seq int, id string) []byte {
		return frame(fmt.Sprintf(`{"seq":%d,"op":"add_entity","entities":[{"id":%q,"name":""}]}`, seq, id))
	}
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	f := &tornFixture{}
	cases := []struct {
		name    string
		journal []byte
		msg     string
	}{
		{"gap", join(header, rec(1, "a"), rec(3, "b")), "record seq 3, want 2"},
		{"not starting at 1", join(header, rec(2, "a")), "record seq 2, want 1"},
		{"repeated", join(header, rec(1, "a"), rec(1, "b")), "record seq 1, want 2"},
		{"wrong format", join(frame(`{"format":"kgmem-graph","version":1}`), rec(1, "a")), "header"},
		{"wrong version", join(frame(`{"format":"kgmem-journal","version":2}`)), "version 2"},
		{"unknown op", join(header, frame(`{"seq":1,"op":"explode"}`)), "unknown operation"},
		{"unknown field", join(header, frame(`{"seq":1,"op":"add_entity","entities":[{"id":"a"}],"x":1}`)), "unknown field"},
		{"does not apply", join(header, frame(`{"seq":1,"op":"remove_entity","id":"nobody"}`)), "does not apply"},
		{"malformed", join(header, frame(`{"seq":1,"op":"add_relation"}`)), "malformed"},
		{"too many tags", join(header, frame(`{"seq":1,"op":"add_entity","entities":[{"id":"a","tags":["1","2","3","4","5","6","7","8","9"]}]}`)), "MaxTagsPerEntity"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := f.open(t, c.journal)
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
			require.ErrorContains(t, err, c.msg)
		})
	}
	g, _, err := f.open(t, join(header, rec(1, "a"), rec(2, "b")))
	require.NoError(t, err)
	require.Equal(t, 2, g.Stats().Entities)
	require.Equal(t, uint64(2), g.JournalStats().Seq)
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := kgmem.Open(filepath.Join(dir, "no-such-dir", "memory.kg"))
	require.ErrorIs(t, err, fs.ErrNotExist)

	path := filepath.Join(dir, "memory.kg")
	require.NoError(t, os.WriteFile(path, []byte(`{"format":"kgmem-graph","version":1,"entities":1,"relations":0}`+"\n"+`{"id":""}`+"\n"), 0o600))
	_, err = kgmem.Open(path)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "snapshot line 2")
	// A failed Open releases the lock.
	require.NoError(t, os.Remove(path))
	g := openDurable(t, path)
	require.NoError(t, g.Close())

	// A snapshot that lost its journal's early records is refused.
	require.NoError(t, os.WriteFile(path+".journal",
		bytes.Join([][]byte{frame(`{"format":"kgmem-journal","version":1}`), frame(`{"seq":5,"op":"add_entity","entities":[{"id":"a"}]}`)}, nil), 0o600))
	_, err = kgmem.Open(path)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.ErrorContains(t, err, "records are missing")
}

func TestDurableLoadFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := kgmem.NewInMemoryGraph()
	require.NoError(t, src.AddEntity(ctx, kgmem.Entity{ID: "x", Name: "X"}))
	require.NoError(t, src.SaveFile(filepath.Join(dir, "backup.kg")))

	path := filepath.Join(dir, "memory.kg")
	g := openDurable(t, path)
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "old"}))
	// A bad snapshot changes nothing, on disk either.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.kg"), []byte("garbage\n"), 0o600))
	require.ErrorIs(t, g.LoadFile(filepath.Join(dir, "bad.kg")), kgmem.ErrInvalidArgument)
	g = reopen(t, g, path)
	require.Equal(t, 1, g.Stats().Entities)

	require.NoError(t, g.LoadFile(filepath.Join(dir, "backup.kg")))
	requireSame(t, src, g)
	st := g.JournalStats()
	require.Equal(t, uint64(2), st.Seq, "the replacement counts as one write")
	require.Equal(t, st.Seq, st.SnapshotSeq)
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "y"}))
	require.NoError(t, src.AddEntity(ctx, kgmem.Entity{ID: "y"}))
	g = reopen(t, g, path)
	requireSame(t, src, g)
	require.Equal(t, 1, g.Recovery().Replayed)
}

func TestDurableRecordTooLarge(t *testing.T) {
	if testing.Short() || raceEnabled() {
		t.Skip("encodes a 64 MiB record, slow under -short and the race detector")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.kg")
	g := openDurable(t, path, kgmem.WithSync(kgmem.SyncNone))
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "a"}))
	err := g.AddEntity(ctx, kgmem.Entity{ID: "huge", Description: strings.Repeat("x", kgmem.MaxRecordSize)})
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.ErrorContains(t, err, "MaxRecordSize")
	_, ok, err := g.GetEntity(ctx, "huge")
	require.NoError(t, err)
	require.False(t, ok, "a write whose record was refused must not be applied")
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "b"}), "a refused record does not stop later writes")
	g = reopen(t, g, path)
	require.Equal(t, 2, g.Stats().Entities)
}

func TestDurableRemovesTempFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.kg")
	for _, name := range []string{"memory.kg.tmp-123", "memory.kg.journal.tmp-9", "other.kg.tmp-1"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o600))
	}
	g := openDurable(t, path)
	require.Equal(t, 2, g.Recovery().TempFiles)
	_, err := os.Stat(filepath.Join(dir, "other.kg.tmp-1"))
	require.NoError(t, err, "another graph's temporary file is not touched")
}

func TestDurableErrorsWrapSentinels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.kg")
	g := openDurable(t, path)
	require.NoError(t, g.Close())
	err := g.Close()
	require.ErrorIs(t, err, kgmem.ErrClosed)
	require.False(t, errors.Is(err, kgmem.ErrJournal))
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
