package kgmem_test

import (
	"context"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// openMemories opens a set of memories and closes it when the test ends.
func openMemories(t testing.TB, dir string, opts ...kgmem.MemoriesOption) *kgmem.Memories {
	t.Helper()
	ms, err := kgmem.OpenMemories(dir, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ms.Close() })
	return ms
}

// leased returns scope's memory, released when the test ends.
func leased(t testing.TB, ms *kgmem.Memories, scope string) *kgmem.Memory {
	t.Helper()
	m, release, err := ms.Memory(context.Background(), scope)
	require.NoError(t, err)
	t.Cleanup(release)
	return m
}

// dirNames lists the names in dir, sorted.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

var testScopeEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func TestMemoriesScopeNames(t *testing.T) {
	ctx := context.Background()
	accepted := []string{
		"..", ".", "/", "a/../b", "../../etc", `C:\x`, "\x00", "a\x00b", "\xff\xfe",
		"user", "User", "USER", "é", "e\u0301", "ﬁ", "fi", " ", "\n",
		strings.Repeat("x", kgmem.MaxScopeBytes), strings.Repeat("é", kgmem.MaxScopeBytes/2),
	}
	refused := []string{"", strings.Repeat("x", kgmem.MaxScopeBytes+1), strings.Repeat("é", kgmem.MaxScopeBytes/2) + "x"}

	dir := filepath.Join(t.TempDir(), "m")
	ms, err := kgmem.OpenMemories(dir)
	require.NoError(t, err)
	for _, name := range refused {
		_, _, err := ms.Memory(ctx, name)
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument, "%q", name)
		require.ErrorIs(t, ms.Remove(ctx, name), kgmem.ErrInvalidArgument, "%q", name)
		_, err = ms.Retrieve(ctx, "x", []string{name})
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument, "%q", name)
	}
	for _, name := range accepted {
		m, release, err := ms.Memory(ctx, name)
		require.NoError(t, err, "%q", name)
		require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: "owner", Name: "owner", Description: hex.EncodeToString([]byte(name))}))
		release()
	}
	require.NoError(t, ms.Close())

	// Every scope is one directory right under dir, named by the
	// documented encoding, and nothing else is there.
	var want []string
	for _, name := range accepted {
		want = append(want, testScopeEncoding.EncodeToString([]byte(name)))
	}
	slices.Sort(want)
	require.Equal(t, want, dirNames(t, dir))

	ms = openMemories(t, dir)
	scopes, err := ms.Scopes(ctx)
	require.NoError(t, err)
	sorted := slices.Clone(accepted)
	slices.Sort(sorted)
	require.Equal(t, sorted, scopes)
	for _, name := range accepted {
		m := leased(t, ms, name)
		ents, err := m.Graph().Entities(ctx)
		require.NoError(t, err)
		require.Len(t, ents, 1, "%q", name)
		require.Equal(t, hex.EncodeToString([]byte(name)), ents[0].Description, "%q", name)
	}
}

func TestMemoriesDirectoryName(t *testing.T) {
	dir := t.TempDir()
	ms := openMemories(t, dir)
	leased(t, ms, "alice") // the example of the documentation
	require.Equal(t, []string{"mfwgsy3f"}, dirNames(t, dir))
}

func TestMemoriesForeignEntriesAreNotScopes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// Names that are not canonical encodings of a scope: upper case,
	// characters outside the alphabet, a file, a non-canonical tail.
	for _, name := range []string{"MFWGSY3F", "notes.txt", "ab", "a"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, name), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mfwgsy3f"), []byte("a file"), 0o644))
	ms := openMemories(t, dir)
	scopes, err := ms.Scopes(ctx)
	require.NoError(t, err)
	require.Empty(t, scopes)
	require.ErrorIs(t, ms.Remove(ctx, "alice"), kgmem.ErrNotFound)
	_, _, err = ms.Memory(ctx, "alice")
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}

func TestMemoriesOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  kgmem.MemoriesOption
	}{
		{"max open 0", kgmem.WithMaxOpenMemories(0)},
		{"concurrency 0", kgmem.WithScopeConcurrency(0)},
		{"negative timeout", kgmem.WithScopeTimeout(-time.Second)},
		{"nil", nil},
		{"invalid memory option", kgmem.WithMemoryOptions(kgmem.WithBM25(-1, 0.75))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "m")
			_, err := kgmem.OpenMemories(dir, tc.opt)
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
			_, serr := os.Stat(dir)
			require.ErrorIs(t, serr, os.ErrNotExist, "a refused open creates nothing")
		})
	}
	_, err := kgmem.OpenMemories("")
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = kgmem.OpenMemories(file)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}

func TestMemoriesLocked(t *testing.T) {
	dir := t.TempDir()
	ms := openMemories(t, dir)
	_, err := kgmem.OpenMemories(dir)
	require.ErrorIs(t, err, kgmem.ErrLocked)
	require.NoError(t, ms.Close())
	openMemories(t, dir)
}

func TestMemoriesSameMemoryForConcurrentCallers(t *testing.T) {
	ctx := context.Background()
	ms := openMemories(t, t.TempDir())
	const n = 16
	got := make([]*kgmem.Memory, n)
	releases := make([]func(), n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, release, err := ms.Memory(ctx, "shared")
			if err == nil {
				got[i], releases[i] = m, release
			}
		}()
	}
	wg.Wait()
	for i := range n {
		require.NotNil(t, got[i])
		require.Same(t, got[0], got[i])
		releases[i]()
	}
	require.Equal(t, 1, ms.NumOpen())
}

func TestMemoriesIdleClosedLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	ms := openMemories(t, t.TempDir(), kgmem.WithMaxOpenMemories(2))
	mems := map[string]*kgmem.Memory{}
	for _, s := range []string{"a", "b", "c"} {
		m, release, err := ms.Memory(ctx, s)
		require.NoError(t, err)
		require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: "in-" + s}))
		mems[s] = m
		release()
	}
	// a was used least recently: it was closed to open c.
	require.Equal(t, 2, ms.NumOpen())
	require.ErrorIs(t, mems["a"].Graph().AddEntity(ctx, kgmem.Entity{ID: "x"}), kgmem.ErrClosed)
	require.NoError(t, mems["b"].Graph().AddEntity(ctx, kgmem.Entity{ID: "still-open"}))

	// Using b makes c the least recently used.
	_, release, err := ms.Memory(ctx, "b")
	require.NoError(t, err)
	release()
	a, releaseA, err := ms.Memory(ctx, "a") // reopened, with what it held
	require.NoError(t, err)
	require.NotSame(t, mems["a"], a)
	_, ok, err := a.Graph().GetEntity(ctx, "in-a")
	require.NoError(t, err)
	require.True(t, ok)
	require.ErrorIs(t, mems["c"].Graph().AddEntity(ctx, kgmem.Entity{ID: "x"}), kgmem.ErrClosed)
	require.NoError(t, mems["b"].Graph().AddEntity(ctx, kgmem.Entity{ID: "still-open-2"}))

	// Leased memories are never closed: the limit is exceeded while all
	// are leased, and met again once they are released.
	var releases []func()
	leasedMems := map[string]*kgmem.Memory{"a": a}
	releases = append(releases, releaseA)
	for _, s := range []string{"b", "c", "d"} {
		m, release, err := ms.Memory(ctx, s)
		require.NoError(t, err)
		leasedMems[s] = m
		releases = append(releases, release)
	}
	require.Equal(t, 4, ms.NumOpen())
	for s, m := range leasedMems {
		require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: "leased"}), s)
	}
	for _, release := range releases {
		release()
		release() // a second call does nothing
	}
	require.Equal(t, 2, ms.NumOpen())
	// a and b were released first, so they were closed.
	require.ErrorIs(t, leasedMems["a"].Graph().AddEntity(ctx, kgmem.Entity{ID: "y"}), kgmem.ErrClosed)
	require.ErrorIs(t, leasedMems["b"].Graph().AddEntity(ctx, kgmem.Entity{ID: "y"}), kgmem.ErrClosed)
	require.NoError(t, leasedMems["d"].Graph().AddEntity(ctx, kgmem.Entity{ID: "y"}))
}

// closedMemoryErrors returns the errors of a memory's writes and graph
// reads.
func closedMemoryErrors(ctx context.Context, m *kgmem.Memory) map[string]error {
	_, _, gerr := m.Graph().GetEntity(ctx, "e")
	_, ierr := m.Ingest(ctx, kgmem.KnowledgePage{ID: "p2", Content: "x"}, kgmem.Extraction{})
	return map[string]error{
		"AddEntity": m.Graph().AddEntity(ctx, kgmem.Entity{ID: "f"}),
		"GetEntity": gerr,
		"Put":       m.Store().Put(ctx, kgmem.KnowledgePage{ID: "p3", Content: "x"}),
		"Delete":    m.Store().Delete(ctx, "p"),
		"Ingest":    ierr,
	}
}

func TestMemoriesRemove(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms := openMemories(t, dir)
	require.ErrorIs(t, ms.Remove(ctx, "nobody"), kgmem.ErrNotFound)

	m, release, err := ms.Memory(ctx, "alice")
	require.NoError(t, err)
	defer release()
	require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: "e"}))
	require.NoError(t, m.Store().Put(ctx, kgmem.KnowledgePage{ID: "p", Content: "alice's page"}))
	leased(t, ms, "bob")

	require.NoError(t, ms.Remove(ctx, "alice"))
	for what, err := range closedMemoryErrors(ctx, m) {
		require.ErrorIs(t, err, kgmem.ErrClosed, what)
	}
	require.Equal(t, []string{testScopeEncoding.EncodeToString([]byte("bob"))}, dirNames(t, dir), "nothing of alice is left")
	scopes, err := ms.Scopes(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"bob"}, scopes)
	require.ErrorIs(t, ms.Remove(ctx, "alice"), kgmem.ErrNotFound)
	_, err = ms.Retrieve(ctx, "alice", []string{"alice"})
	require.ErrorIs(t, err, kgmem.ErrNotFound)
	release() // after Remove: does nothing

	// The scope can be made again, empty.
	m2 := leased(t, ms, "alice")
	require.NotSame(t, m, m2)
	require.Equal(t, 0, m2.Graph().Stats().Entities)
	require.Equal(t, 0, m2.Store().Len())
}

func TestMemoriesRemoveIdle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms := openMemories(t, dir, kgmem.WithMaxOpenMemories(1))
	for _, s := range []string{"a", "b"} {
		m, release, err := ms.Memory(ctx, s)
		require.NoError(t, err)
		require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: s}))
		release()
	}
	require.NoError(t, ms.Remove(ctx, "a")) // closed: only its files
	require.NoError(t, ms.Remove(ctx, "b")) // open and idle
	require.Empty(t, dirNames(t, dir))
	require.Equal(t, 0, ms.NumOpen())
}

func TestMemoriesInterruptedRemove(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms := openMemories(t, dir)
	m := leased(t, ms, "a")
	require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: "e"}))
	require.NoError(t, ms.Close())
	// A crash after Remove's rename, before its deletion finished.
	name := testScopeEncoding.EncodeToString([]byte("a"))
	require.NoError(t, os.Rename(filepath.Join(dir, name), filepath.Join(dir, "removing-"+name)))
	ms = openMemories(t, dir)
	require.Empty(t, dirNames(t, dir))
	scopes, err := ms.Scopes(ctx)
	require.NoError(t, err)
	require.Empty(t, scopes)
}

func TestMemoriesClose(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms, err := kgmem.OpenMemories(dir)
	require.NoError(t, err)
	m, release, err := ms.Memory(ctx, "alice")
	require.NoError(t, err)
	require.NoError(t, m.Graph().AddEntity(ctx, kgmem.Entity{ID: "e"}))
	require.NoError(t, m.Store().Put(ctx, kgmem.KnowledgePage{ID: "p", Content: "alice's page"}))
	require.NoError(t, ms.Close())
	for what, err := range closedMemoryErrors(ctx, m) {
		require.ErrorIs(t, err, kgmem.ErrClosed, what)
	}
	release()
	_, _, err = ms.Memory(ctx, "alice")
	require.ErrorIs(t, err, kgmem.ErrClosed)
	_, err = ms.Scopes(ctx)
	require.ErrorIs(t, err, kgmem.ErrClosed)
	require.ErrorIs(t, ms.Remove(ctx, "alice"), kgmem.ErrClosed)
	_, err = ms.Retrieve(ctx, "e", []string{"alice"})
	require.ErrorIs(t, err, kgmem.ErrClosed)
	require.ErrorIs(t, ms.Close(), kgmem.ErrClosed)

	ms = openMemories(t, dir)
	m = leased(t, ms, "alice")
	_, ok, err := m.Graph().GetEntity(ctx, "e")
	require.NoError(t, err)
	require.True(t, ok)
}

func TestMemoriesCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ms := openMemories(t, t.TempDir())
	_, _, err := ms.Memory(ctx, "a")
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, ms.Remove(ctx, "a"), context.Canceled)
	_, err = ms.Scopes(ctx)
	require.ErrorIs(t, err, context.Canceled)
	_, err = ms.Retrieve(ctx, "q", []string{"a"})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 0, ms.NumOpen())
}

// fillTeam makes a user memory and a team knowledge base that share a page
// ID, and returns the set.
func fillTeam(t testing.TB, dir string, opts ...kgmem.MemoriesOption) *kgmem.Memories {
	t.Helper()
	ctx := context.Background()
	ms := openMemories(t, dir, opts...)
	user := leased(t, ms, "user:alice")
	_, err := user.Ingest(ctx, kgmem.KnowledgePage{ID: "note-1", Title: "Alice's note", Content: "Alice is on call for the billing service this week."},
		kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: "Alice", Type: "person"}, {Name: "billing service", Type: "service"}},
			Relations: []kgmem.ExtractedRelation{{Source: "Alice", Target: "billing service", Type: "on_call_for"}},
		})
	require.NoError(t, err)
	team := leased(t, ms, "kb:platform")
	for _, p := range []kgmem.KnowledgePage{
		{ID: "note-1", Title: "Billing runbook", Content: "The billing service restarts with the deploy tool; page the on call engineer."},
		{ID: "kb-2", Title: "Search service", Content: "The search service indexes documents nightly."},
		{ID: "kb-3", Title: "Billing alerts", Content: "Billing service alerts go to the platform channel."},
	} {
		require.NoError(t, team.Store().Put(ctx, p))
	}
	other := leased(t, ms, "user:bob")
	require.NoError(t, other.Store().Put(ctx, kgmem.KnowledgePage{ID: "bob-1", Content: "Bob's billing service notes."}))
	return ms
}

func itemKeys(res kgmem.RetrievalResult) []string {
	var out []string
	for _, it := range res.Items {
		out = append(out, fmt.Sprintf("%s/%s/%s/%.6f", it.Scope, it.Kind, it.ID(), it.Score))
	}
	return out
}

func TestMemoriesRetrieveAcrossScopes(t *testing.T) {
	ctx := context.Background()
	ms := fillTeam(t, t.TempDir())
	scopes := []string{"user:alice", "kb:platform"}
	res, err := ms.Retrieve(ctx, "billing service", scopes)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	require.Equal(t, "billing service", res.Query)

	// Each item is one of its own scope's answers, with its score.
	var want []kgmem.RetrievalItem
	for _, s := range []string{"kb:platform", "user:alice"} { // by name
		m := leased(t, ms, s)
		one, err := m.Retriever().Retrieve(ctx, "billing service")
		require.NoError(t, err)
		for _, it := range one.Items {
			it.Scope = s
			want = append(want, it)
		}
	}
	slices.SortStableFunc(want, func(a, b kgmem.RetrievalItem) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if len(want) > 10 {
		want = want[:10]
	}
	require.Equal(t, itemKeys(kgmem.RetrievalResult{Items: want}), itemKeys(res))

	// The page both scopes hold under one ID is an item of each; bob's
	// memory, not named, gives nothing.
	var note []string
	for _, it := range res.Items {
		require.NotEqual(t, "user:bob", it.Scope)
		require.NotEqual(t, "bob-1", it.ID())
		if it.ID() == "note-1" {
			note = append(note, it.Scope+" "+it.Page.Title)
		}
	}
	slices.Sort(note)
	require.Equal(t, []string{"kb:platform Billing runbook", "user:alice Alice's note"}, note)

	// Per-call options apply in every scope.
	res, err = ms.Retrieve(ctx, "billing service", scopes, kgmem.WithMaxResults(2), kgmem.WithStrategy(kgmem.KnowledgeOnly))
	require.NoError(t, err)
	require.Len(t, res.Items, 2)
	require.Equal(t, kgmem.KnowledgeOnly, res.Strategy)
	for _, it := range res.Items {
		require.Equal(t, kgmem.ItemPage, it.Kind)
	}
}

func TestMemoriesRetrieveOrderIndependent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms := openMemories(t, dir)
	// Every scope holds the same pages, so every score ties.
	names := []string{"c", "a", "d", "b"}
	for _, s := range names {
		m := leased(t, ms, s)
		for i := range 3 {
			require.NoError(t, m.Store().Put(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", i), Content: fmt.Sprintf("shared words page %d", i)}))
		}
	}
	var first []string
	perms := [][]string{{"a", "b", "c", "d"}, {"d", "c", "b", "a"}, {"b", "d", "a", "c"}, {"c", "a", "d", "b"}}
	for _, p := range perms {
		res, err := ms.Retrieve(ctx, "shared words", p, kgmem.WithMaxResults(12))
		require.NoError(t, err)
		keys := itemKeys(res)
		require.Len(t, keys, 12)
		if first == nil {
			first = keys
			continue
		}
		require.Equal(t, first, keys, "%v", p)
	}
	// Ties are in the order of the scopes' names.
	res, err := ms.Retrieve(ctx, "shared words", perms[1], kgmem.WithMaxResults(12))
	require.NoError(t, err)
	for i := 1; i < len(res.Items); i++ {
		a, b := res.Items[i-1], res.Items[i]
		if a.Score == b.Score {
			require.LessOrEqual(t, a.Scope, b.Scope)
		}
	}
}

func TestMemoriesRetrieveBadCalls(t *testing.T) {
	ctx := context.Background()
	ms := fillTeam(t, t.TempDir())
	for _, tc := range []struct {
		name   string
		query  string
		scopes []string
		opts   []kgmem.RetrieverOption
		want   error
	}{
		{"no scopes", "q", nil, nil, kgmem.ErrInvalidArgument},
		{"named twice", "q", []string{"kb:platform", "user:alice", "kb:platform"}, nil, kgmem.ErrInvalidArgument},
		{"unknown scope", "q", []string{"kb:platform", "user:carol"}, nil, kgmem.ErrNotFound},
		{"invalid UTF-8", "\xff", []string{"kb:platform"}, nil, kgmem.ErrInvalidArgument},
		{"invalid option", "q", []string{"kb:platform"}, []kgmem.RetrieverOption{kgmem.WithMaxResults(-1)}, kgmem.ErrInvalidArgument},
		{"constructor option", "q", []string{"kb:platform"}, []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(kgmem.NewInMemoryGraph())}, kgmem.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ms.Retrieve(ctx, tc.query, tc.scopes, tc.opts...)
			require.ErrorIs(t, err, tc.want)
		})
	}
	// Retrieve never creates a scope.
	scopes, err := ms.Scopes(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"kb:platform", "user:alice", "user:bob"}, scopes)
}

// corruptScope damages every file of scope's directory.
func corruptScope(t testing.TB, dir, scope string) {
	t.Helper()
	sdir := filepath.Join(dir, testScopeEncoding.EncodeToString([]byte(scope)))
	ents, err := os.ReadDir(sdir)
	require.NoError(t, err)
	n := 0
	for _, e := range ents {
		if e.Type().IsRegular() {
			require.NoError(t, os.WriteFile(filepath.Join(sdir, e.Name()), []byte("not a kgmem file\n"), 0o644))
			n++
		}
	}
	require.Positive(t, n)
}

func TestMemoriesRetrievePartialFailure(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms := fillTeam(t, dir)
	require.NoError(t, ms.Close())
	corruptScope(t, dir, "user:bob")
	ms = openMemories(t, dir)

	res, err := ms.Retrieve(ctx, "billing service", []string{"user:bob", "kb:platform"})
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	require.Len(t, res.Errors, 1)
	require.Contains(t, res.Warnings[0], `scope "user:bob"`)
	require.ErrorIs(t, res.Errors[0], kgmem.ErrCorrupt)
	require.NotEmpty(t, res.Items)
	for _, it := range res.Items {
		require.Equal(t, "kb:platform", it.Scope)
	}

	require.NoError(t, ms.Close())
	corruptScope(t, dir, "kb:platform")
	ms = openMemories(t, dir)
	_, err = ms.Retrieve(ctx, "billing service", []string{"user:bob", "kb:platform"})
	require.ErrorIs(t, err, kgmem.ErrCorrupt)
	require.ErrorContains(t, err, "every scope failed")
}

// slowReranker blocks until its context is done when an item's text holds
// "alerts".
type slowReranker struct{}

func (slowReranker) Rerank(ctx context.Context, _ string, items []kgmem.RetrievalItem) ([]float64, error) {
	for _, it := range items {
		if strings.Contains(it.Text(), "alerts") {
			<-ctx.Done()
			return nil, ctx.Err()
		}
	}
	out := make([]float64, len(items))
	for i, it := range items {
		out[i] = it.Score
	}
	return out, nil
}

func TestMemoriesRetrieveScopeTimeout(t *testing.T) {
	ctx := context.Background()
	ms := fillTeam(t, t.TempDir(), kgmem.WithScopeTimeout(20*time.Millisecond))
	res, err := ms.Retrieve(ctx, "billing service", []string{"user:alice", "kb:platform"}, kgmem.WithReranker(slowReranker{}, 0))
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	require.Contains(t, res.Warnings[0], `scope "kb:platform": timed out after 20ms`)
	require.ErrorIs(t, res.Errors[0], context.DeadlineExceeded)
	require.NotEmpty(t, res.Items)
	for _, it := range res.Items {
		require.Equal(t, "user:alice", it.Scope)
	}
	_, err = ms.Retrieve(ctx, "billing service", []string{"kb:platform"}, kgmem.WithReranker(slowReranker{}, 0))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.True(t, errors.Is(err, context.DeadlineExceeded))
}

func TestMemoriesCompactWhenClosingIdle(t *testing.T) {
	ctx := context.Background()
	ms := openMemories(t, t.TempDir(), kgmem.WithMaxOpenMemories(1))
	write := func(scope string, pages int) {
		m, release, err := ms.Memory(ctx, scope)
		require.NoError(t, err)
		defer release()
		for i := range pages {
			require.NoError(t, m.Store().Put(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", i), Content: strings.Repeat("words of a page ", 20)}))
		}
	}
	write("big", 400)  // a journal over 64 KiB
	write("small", 10) // closes big
	write("other", 0)  // closes small
	for _, tc := range []struct {
		scope           string
		pages, replayed int
	}{{"big", 400, 0}, {"small", 10, 10}} {
		m, release, err := ms.Memory(ctx, tc.scope)
		require.NoError(t, err)
		require.Equal(t, tc.replayed, m.Recovery().Replayed, tc.scope)
		require.Equal(t, tc.pages, m.Store().Len(), tc.scope)
		release()
	}
}

func TestMemoriesRetrieveMoreScopesThanOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	all := fillTeam(t, dir)
	want, err := all.Retrieve(ctx, "billing service", []string{"user:alice", "kb:platform", "user:bob"})
	require.NoError(t, err)
	require.NoError(t, all.Close())

	for _, limit := range []int{1, 2} {
		ms := openMemories(t, dir, kgmem.WithMaxOpenMemories(limit), kgmem.WithScopeConcurrency(3))
		got, err := ms.Retrieve(ctx, "billing service", []string{"user:bob", "user:alice", "kb:platform"})
		require.NoError(t, err)
		require.Empty(t, got.Warnings)
		require.Equal(t, itemKeys(want), itemKeys(got), "limit %d", limit)
		require.LessOrEqual(t, ms.NumOpen(), limit)
		require.NoError(t, ms.Close())
	}
}

func TestMemoriesConcurrentRemoveAndUse(t *testing.T) {
	ctx := context.Background()
	ms := openMemories(t, t.TempDir(), kgmem.WithMaxOpenMemories(2))
	scopes := []string{"a", "b", "c"}
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				s := scopes[(w+i)%len(scopes)]
				var err error
				switch (w + i) % 3 {
				case 0:
					err = ms.Remove(ctx, s)
					if errors.Is(err, kgmem.ErrNotFound) {
						err = nil
					}
				case 1:
					var m *kgmem.Memory
					var release func()
					m, release, err = ms.Memory(ctx, s)
					if err == nil {
						err = m.Store().Put(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("p%d-%d", w, i), Content: "shared words"})
						if errors.Is(err, kgmem.ErrClosed) { // removed meanwhile
							err = nil
						}
						release()
					}
				default:
					_, err = ms.Retrieve(ctx, "shared words", []string{s})
					if errors.Is(err, kgmem.ErrNotFound) || errors.Is(err, kgmem.ErrClosed) {
						err = nil
					}
				}
				if err != nil {
					errs[w] = fmt.Errorf("worker %d step %d scope %q: %w", w, i, s, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.LessOrEqual(t, ms.NumOpen(), 2)
}
