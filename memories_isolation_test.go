package kgmem_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

// isoScope is the test's model of one scope: what was written through it
// since it was last removed. Writes and reads hold mu for reading, so
// that they run concurrently; Remove holds it for writing.
type isoScope struct {
	name string
	idx  int
	mu   sync.RWMutex
	gen  int // bumped by every Remove; guarded by mu
	// dmu guards the fields below, which change under mu held for reading
	// too; exists goes from false to true only then, and back only under
	// mu held for writing.
	dmu    sync.Mutex
	exists bool // Memory opened it since the last Remove
	names  map[string]bool
	pages  map[string]bool
}

// has returns exists.
func (s *isoScope) has() bool {
	s.dmu.Lock()
	defer s.dmu.Unlock()
	return s.exists
}

// note records what a call through the scope made.
func (s *isoScope) note(names, pages []string) {
	s.dmu.Lock()
	defer s.dmu.Unlock()
	s.exists = true
	for _, n := range names {
		s.names[n] = true
	}
	for _, p := range pages {
		s.pages[p] = true
	}
}

// marker is the word every name, ID and text written through the scope in
// its current generation holds.
func (s *isoScope) marker() string { return fmt.Sprintf("zs%dg%d", s.idx, s.gen) }

// markerRE finds the markers in a text.
var markerRE = regexp.MustCompile(`zs\d+g\d+`)

// foreignMarkers returns the markers of text other than want.
func foreignMarkers(text, want string) []string {
	var out []string
	for _, m := range markerRE.FindAllString(strings.ToLower(text), -1) {
		if m != want {
			out = append(out, m)
		}
	}
	return out
}

// itemTexts are the texts of an item a user sees: its text, its
// explanation, its path and its relations.
func itemTexts(it kgmem.RetrievalItem) string {
	parts := []string{it.ID(), it.Text(), it.Explain(), strings.Join(it.Path, " "), strings.Join(it.PathNames, " ")}
	for _, r := range it.Relations {
		parts = append(parts, r.SourceID, r.TargetID, strings.Join(r.SourceIDs, " "))
	}
	if it.Entity != nil {
		parts = append(parts, strings.Join(it.Entity.SourceIDs, " "))
	}
	return strings.Join(parts, "\n")
}

// isoHarness runs random operations over several scopes.
type isoHarness struct {
	t      *testing.T
	ms     *kgmem.Memories
	dir    string
	scopes []*isoScope
}

const isoQuery = "common shared words"

func (h *isoHarness) checkItems(res kgmem.RetrievalResult, byName map[string]*isoScope) error {
	for _, it := range res.Items {
		s := byName[it.Scope]
		if s == nil {
			return fmt.Errorf("item %s from scope %q, which was not asked", it.ID(), it.Scope)
		}
		if bad := foreignMarkers(itemTexts(it), s.marker()); len(bad) > 0 {
			return fmt.Errorf("scope %q (marker %s) answered %s holding %v: %s", s.name, s.marker(), it.ID(), bad, it.Explain())
		}
	}
	return nil
}

// op runs one random operation.
func (h *isoHarness) op(ctx context.Context, rng *rand.Rand, worker, n int) error {
	s := h.scopes[rng.IntN(len(h.scopes))]
	kind := rng.IntN(20)
	if kind == 0 { // remove
		s.mu.Lock()
		defer s.mu.Unlock()
		err := h.ms.Remove(ctx, s.name)
		switch {
		case s.exists && err != nil:
			return fmt.Errorf("remove %q: %w", s.name, err)
		case !s.exists && !errors.Is(err, kgmem.ErrNotFound):
			return fmt.Errorf("remove %q that does not exist: %v, want ErrNotFound", s.name, err)
		}
		s.gen++
		s.exists = false
		clear(s.names)
		clear(s.pages)
		if _, err := os.Lstat(filepath.Join(h.dir, testScopeEncoding.EncodeToString([]byte(s.name)))); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %q left its directory: %v", s.name, err)
		}
		return nil
	}
	if kind < 4 { // a cross-scope retrieve over two scopes
		o := h.scopes[rng.IntN(len(h.scopes))]
		if o == s {
			return nil
		}
		pair := []*isoScope{s, o}
		slices.SortFunc(pair, func(a, b *isoScope) int { return a.idx - b.idx })
		for _, p := range pair {
			p.mu.RLock()
			defer p.mu.RUnlock()
		}
		both := s.has() && o.has() // if true, stays true during the call
		res, err := h.ms.Retrieve(ctx, isoQuery, []string{s.name, o.name})
		if !both && errors.Is(err, kgmem.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("retrieve %q %q: %w", s.name, o.name, err)
		}
		if len(res.Warnings) > 0 {
			return fmt.Errorf("retrieve %q %q: warnings %v", s.name, o.name, res.Warnings)
		}
		return h.checkItems(res, map[string]*isoScope{s.name: s, o.name: o})
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	m, release, err := h.ms.Memory(ctx, s.name)
	if err != nil {
		return fmt.Errorf("memory %q: %w", s.name, err)
	}
	defer release()
	mk := s.marker()
	id := fmt.Sprintf("%sw%dn%d", mk, worker, n)
	switch {
	case kind < 8:
		name := id + " common entity"
		if err := m.Graph().AddEntity(ctx, kgmem.Entity{ID: id, Name: name, Type: "thing", Description: "common shared words of " + mk}); err != nil {
			return err
		}
		s.note([]string{name}, nil)
	case kind < 11:
		if err := m.Store().Put(ctx, kgmem.KnowledgePage{ID: id, Title: id, Content: "common shared words " + mk}); err != nil {
			return err
		}
		s.note(nil, []string{id})
	case kind < 14:
		a, b := id+" alpha", id+" beta"
		_, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: id, Content: fmt.Sprintf("%s links to %s with common shared words", a, b)}, kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: a, Type: "thing"}, {Name: b, Type: "thing"}},
			Relations: []kgmem.ExtractedRelation{{Source: a, Target: b, Type: "links_to"}},
		})
		if err != nil {
			return err
		}
		s.note([]string{a, b}, []string{id})
	case kind < 17:
		res, err := m.Retriever().Retrieve(ctx, isoQuery+" "+mk+" alpha")
		if err != nil {
			return err
		}
		for _, it := range res.Items {
			if bad := foreignMarkers(itemTexts(it), mk); len(bad) > 0 {
				return fmt.Errorf("scope %q retriever answered %s holding %v", s.name, it.ID(), bad)
			}
		}
	default:
		ents, err := m.Graph().Entities(ctx)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if bad := foreignMarkers(e.ID+" "+e.Name+" "+e.Description, mk); len(bad) > 0 {
				return fmt.Errorf("scope %q holds entity %s of %v", s.name, e.ID, bad)
			}
		}
		pages, err := m.Store().Search(ctx, isoQuery, 1000)
		if err != nil {
			return err
		}
		for _, p := range pages {
			if bad := foreignMarkers(p.Page.ID+" "+p.Page.Content, mk); len(bad) > 0 {
				return fmt.Errorf("scope %q holds page %s of %v", s.name, p.Page.ID, bad)
			}
		}
	}
	s.note(nil, nil)
	return nil
}

// checkAll compares every scope with the model, and the directory with the
// scopes.
func (h *isoHarness) checkAll(ctx context.Context) {
	t := h.t
	var want, wantDirs []string
	for _, s := range h.scopes {
		if s.exists {
			want = append(want, s.name)
			wantDirs = append(wantDirs, testScopeEncoding.EncodeToString([]byte(s.name)))
		}
	}
	sort.Strings(want)
	sort.Strings(wantDirs)
	got, err := h.ms.Scopes(ctx)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, wantDirs, dirNames(t, h.dir), "the directory holds the scopes and nothing else")
	for _, s := range h.scopes {
		if !s.exists {
			continue
		}
		m, release, err := h.ms.Memory(ctx, s.name)
		require.NoError(t, err)
		ents, err := m.Graph().Entities(ctx)
		require.NoError(t, err)
		names := map[string]bool{}
		for _, e := range ents {
			names[e.Name] = true
		}
		require.Equal(t, s.names, names, "scope %q", s.name)
		pages := map[string]bool{}
		res, err := m.Store().Search(ctx, isoQuery, 100000)
		require.NoError(t, err)
		for _, p := range res {
			pages[p.Page.ID] = true
		}
		require.Equal(t, s.pages, pages, "scope %q", s.name)
		require.Equal(t, len(s.pages), m.Store().Len(), "scope %q", s.name)
		release()
	}
}

// copyTree copies the directory src to dst, as a crash leaves the files.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}))
}

// TestMemoriesIsolation runs random interleavings of writes, ingests,
// removals and reads over scopes whose names differ only in case, in
// Unicode normalisation, or are path-like, from several goroutines, with a
// close and reopen or a crash between rounds: nothing written through one
// scope is ever visible through another, and each scope holds exactly what
// was written through it since its last Remove.
func TestMemoriesIsolation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	names := []string{"alice", "Alice", "é", "e\u0301", "..", "/", "a/../alice", "\x00"}
	root := t.TempDir()
	dir := filepath.Join(root, "r0")
	opts := []kgmem.MemoriesOption{
		kgmem.WithMaxOpenMemories(3), // most operations close or reopen a scope
		kgmem.WithMemoryOptions(kgmem.WithEmbedder(kgmemtest.HashEmbedder{Dimensions: 32})),
	}
	h := &isoHarness{t: t, dir: dir}
	for i, n := range names {
		h.scopes = append(h.scopes, &isoScope{name: n, idx: i, names: map[string]bool{}, pages: map[string]bool{}})
	}
	var err error
	h.ms, err = kgmem.OpenMemories(dir, opts...)
	require.NoError(t, err)
	rounds, workers, ops := kgmem.Scaled(12, 4, 2), 4, 50
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for n := range ops {
					if err := h.op(ctx, rng, w, round*ops+n); err != nil {
						errs[w] = fmt.Errorf("round %d worker %d op %d: %w", round, w, n, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...))
		h.checkAll(ctx)
		if round%2 == 0 {
			require.NoError(t, h.ms.Close())
		} else {
			// A crash: the files as they are now, without Close.
			crashed := filepath.Join(root, fmt.Sprintf("r%d", round+1))
			copyTree(t, h.dir, crashed)
			require.NoError(t, h.ms.Close())
			h.dir = crashed
		}
		h.ms, err = kgmem.OpenMemories(h.dir, opts...)
		require.NoError(t, err)
		h.checkAll(ctx)
	}
	require.NoError(t, h.ms.Close())
}
