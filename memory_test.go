package kgmem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// openMemory opens a memory and closes it when the test ends.
func openMemory(t testing.TB, dir string, opts ...kgmem.DurableOption) *kgmem.Memory {
	t.Helper()
	m, err := kgmem.OpenMemory(dir, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

func TestDurableStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := kgmem.OpenStore(dir)
	require.NoError(t, err)
	model := kgmem.NewInMemoryKnowledgeStore()
	o := &opened{store: s.InMemoryKnowledgeStore}
	m := &opened{store: model}
	for i, w := range pageWrites() {
		require.NoError(t, w(ctx, o), "write %d", i)
		require.NoError(t, w(ctx, m), "write %d", i)
	}
	require.ErrorIs(t, s.Delete(ctx, "nobody"), kgmem.ErrNotFound)
	require.ErrorIs(t, s.Put(ctx, kgmem.KnowledgePage{ID: "", Content: "x"}), kgmem.ErrInvalidArgument)
	require.Equal(t, uint64(len(pageWrites())), s.JournalStats().Seq, "refused writes are not journaled")
	require.NoError(t, s.Close())

	s, err = kgmem.OpenStore(dir)
	require.NoError(t, err)
	require.Equal(t, snapshotOfStore(model), snapshotOfStore(s.InMemoryKnowledgeStore))
	want, err := model.Search(ctx, "apollo alice", 5)
	require.NoError(t, err)
	got, err := s.Search(ctx, "apollo alice", 5)
	require.NoError(t, err)
	require.Equal(t, want, got, "the reopened store ranks as the one it was")

	// ReadFrom (through LoadFile) replaces the pages durably.
	other := kgmem.NewInMemoryKnowledgeStore()
	require.NoError(t, other.Put(ctx, kgmem.KnowledgePage{ID: "only", Content: "the only page"}))
	backup := filepath.Join(t.TempDir(), "pages.kg")
	require.NoError(t, kgmem.SaveFile(backup, other))
	require.NoError(t, kgmem.LoadFile(backup, s))
	require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "after", Content: "written after the load"}))
	require.NoError(t, other.Put(ctx, kgmem.KnowledgePage{ID: "after", Content: "written after the load"}))
	require.NoError(t, s.Compact())
	require.NoError(t, s.Close())

	require.ErrorIs(t, s.Put(ctx, kgmem.KnowledgePage{ID: "late", Content: "x"}), kgmem.ErrClosed)
	require.ErrorIs(t, s.Delete(ctx, "only"), kgmem.ErrClosed)
	_, ok, err := s.Get(ctx, "only")
	require.NoError(t, err, "reads go on after Close")
	require.True(t, ok)
	require.ErrorIs(t, s.Close(), kgmem.ErrClosed)

	s, err = kgmem.OpenStore(dir)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, snapshotOfStore(other), snapshotOfStore(s.InMemoryKnowledgeStore))
}

func apolloExtraction() kgmem.Extraction {
	return kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "Alice", Type: "person", Description: "leads Apollo"},
			{Name: "Project Apollo", Type: "project", Aliases: []string{"Apollo"}},
		},
		Relations: []kgmem.ExtractedRelation{{Source: "Alice", Target: "Project Apollo", Type: "leads"}},
	}
}

func TestMemoryIngest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := openMemory(t, dir)
	page := kgmem.KnowledgePage{ID: "chat-1", Title: "Standup", Content: "Alice leads Project Apollo."}
	rep, err := m.Ingest(ctx, page, apolloExtraction())
	require.NoError(t, err)
	require.Equal(t, 2, rep.EntitiesCreated)
	require.Equal(t, 1, rep.RelationsCreated)
	require.Equal(t, uint64(1), m.JournalStats().Seq, "a page and its extraction are one record")

	alice, ok, err := m.Graph().GetEntity(ctx, "person:alice")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"chat-1"}, alice.SourceIDs, "entities cite the page")

	// Refused ingests write nothing.
	_, err = m.Ingest(ctx, kgmem.KnowledgePage{ID: "", Content: "x"}, apolloExtraction())
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	_, err = m.Ingest(ctx, kgmem.KnowledgePage{ID: "chat-2", Content: "x"}, apolloExtraction(), kgmem.WithSource("chat-3"))
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.ErrorContains(t, err, "names another page")
	bad := apolloExtraction()
	bad.Relations = append(bad.Relations, kgmem.ExtractedRelation{Source: "Alice", Target: "Nobody", Type: "knows"})
	_, err = m.Ingest(ctx, kgmem.KnowledgePage{ID: "chat-2", Content: "x"}, bad, kgmem.WithStrict())
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.Equal(t, uint64(1), m.JournalStats().Seq)
	_, ok, err = m.Store().Get(ctx, "chat-2")
	require.NoError(t, err)
	require.False(t, ok, "a refused ingest stored its page")

	// The parts are ordinary and their writes durable.
	require.NoError(t, m.Store().Put(ctx, kgmem.KnowledgePage{ID: "note", Content: "Bob reviews Apollo designs."}))
	require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: "person:bob", Name: "Bob", SourceIDs: []string{"note"}}))
	require.NoError(t, m.Graph().AddRelation(ctx, kgmem.Relation{SourceID: "person:bob", TargetID: "project:project_apollo", Type: "reviews"}))

	// Replacing a part alone is refused and changes nothing.
	before := snapshotOfGraph(m.Graph()) + snapshotOfStore(m.Store())
	_, err = m.Graph().ReadFrom(strings.NewReader(`{"format":"kgmem-graph","version":2,"entities":0,"relations":0}` + "\n"))
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	_, err = m.Store().ReadFrom(strings.NewReader(`{"format":"kgmem-pages","version":2,"pages":0}` + "\n"))
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.Equal(t, before, snapshotOfGraph(m.Graph())+snapshotOfStore(m.Store()))

	res, err := m.Retriever().Retrieve(ctx, "Who leads Project Apollo?")
	require.NoError(t, err)
	require.NotEmpty(t, res.Items)

	for _, compact := range []bool{false, true} {
		if compact {
			require.NoError(t, m.Compact())
		}
		require.NoError(t, m.Close())
		m = openMemory(t, dir)
		require.Equal(t, before, snapshotOfGraph(m.Graph())+snapshotOfStore(m.Store()), "compact=%v", compact)
		again, err := m.Retriever().Retrieve(ctx, "Who leads Project Apollo?")
		require.NoError(t, err)
		require.Equal(t, res.Items, again.Items, "the reopened memory answers as it did")
	}
}

// TestMemoryConcurrentWriters runs ingests, graph writes, page writes and
// compactions at once; the race detector checks the locking, and the
// reopened memory must hold every write.
func TestMemoryConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := openMemory(t, dir, kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(4<<10))
	const n = 60
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	run := func(f func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if err := f(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	run(func(i int) error {
		_, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("ingest-%d", i), Content: fmt.Sprintf("Person %d works on project %d", i, i%7)},
			kgmem.Extraction{
				Entities:  []kgmem.ExtractedEntity{{Name: fmt.Sprintf("Person %d", i), Type: "person"}, {Name: fmt.Sprintf("Project %d", i%7), Type: "project"}},
				Relations: []kgmem.ExtractedRelation{{Source: fmt.Sprintf("Person %d", i), Target: fmt.Sprintf("Project %d", i%7), Type: "works_on"}},
			})
		return err
	})
	run(func(i int) error {
		return m.Graph().AddEntity(ctx, kgmem.Entity{ID: fmt.Sprintf("loose-%d", i), Name: strings.Repeat("x", 40)})
	})
	run(func(i int) error {
		return m.Store().Put(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("page-%d", i), Content: strings.Repeat("words ", 30)})
	})
	run(func(i int) error {
		if i%10 == 0 {
			return m.Compact()
		}
		_, err := m.Retriever().Retrieve(ctx, "who works on project 3")
		return err
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	want := snapshotOfGraph(m.Graph()) + snapshotOfStore(m.Store())
	require.Equal(t, 2*n, m.Store().Len())
	require.NoError(t, m.Close())
	m = openMemory(t, dir)
	require.Equal(t, want, snapshotOfGraph(m.Graph())+snapshotOfStore(m.Store()))
}

// TestMemoryLockSurvivesDeletedFiles deletes every file of an open memory:
// the lock is on the directory, so a second Open is still refused.
func TestMemoryLockSurvivesDeletedFiles(t *testing.T) {
	dir := t.TempDir()
	m := openMemory(t, dir)
	require.NoError(t, m.Store().Put(context.Background(), kgmem.KnowledgePage{ID: "p", Content: "x"}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		require.NoError(t, os.Remove(filepath.Join(dir, e.Name())))
	}
	_, err = kgmem.OpenMemory(dir)
	require.ErrorIs(t, err, kgmem.ErrLocked)
}
