package kgmem

import (
	"context"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/quote"
)

// WriteTo writes a snapshot of the store to w: the header line
// {"format":"kgmem-pages","version":1,"pages":N}, then one [KnowledgePage]
// per line in its JSON form, ordered by ID (see Snapshots in the package
// documentation). Equal stores give byte-identical snapshots. The pages are
// copied under the read lock, which is released before anything is
// written. It returns the number of bytes written; a page whose line would
// be longer than MaxLineSize returns an error wrapping ErrInvalidArgument.
func (s *InMemoryKnowledgeStore) WriteTo(w io.Writer) (int64, error) {
	s.mu.RLock()
	pages := make([]KnowledgePage, 0, len(s.pages))
	for _, e := range s.pages {
		pages = append(pages, e.page) // stored pages are never modified, so sharing is safe
	}
	s.mu.RUnlock()
	slices.SortFunc(pages, func(a, b KnowledgePage) int { return strings.Compare(a.ID, b.ID) })
	lw := newLineWriter(w)
	lw.encode(pagesHeader{Format: PagesFormat, Version: SnapshotVersion, Pages: int64(len(pages))})
	for i := range pages {
		lw.encode(&pages[i])
	}
	return lw.finish()
}

// ReadFrom replaces the store's pages with the snapshot read from r,
// reading r to its end, and returns the number of bytes read.
//
// Every page is checked as Put checks it, IDs must be unique, the header's
// format, version and count must hold and nothing may follow the last
// page. The pages are indexed into a new store with the same ranking
// parameters first; only when everything is valid are the contents swapped
// in, under the write lock. On any error the store is unchanged. An invalid
// snapshot returns an error wrapping ErrInvalidArgument that names the line
// (the header is line 1).
func (s *InMemoryKnowledgeStore) ReadFrom(r io.Reader) (int64, error) {
	lr := newLineReader(r, "snapshot")
	var h pagesHeader
	if err := lr.header(&h); err != nil {
		return lr.n, err
	}
	switch {
	case h.Format != PagesFormat:
		return lr.n, lr.invalid("format %s, want %q", quote.Value(h.Format), PagesFormat)
	case h.Version != SnapshotVersion:
		return lr.n, lr.invalid("unsupported version %d, want %d", h.Version, SnapshotVersion)
	case h.Pages < 0:
		return lr.n, lr.invalid("negative page count %d", h.Pages)
	}
	fresh := &InMemoryKnowledgeStore{
		k1: s.k1, b: s.b, titleBoost: s.titleBoost,
		pages:    make(map[string]*pageEntry, min(h.Pages, preallocCap)),
		postings: make(map[string]*postingList),
	}
	ctx := context.Background()
	pageNames := jsonNames(reflect.TypeFor[KnowledgePage]())
	for i := int64(0); i < h.Pages; i++ {
		var p KnowledgePage
		if err := lr.value(&p, "page", pageNames); err != nil {
			return lr.n, err
		}
		if err := validatePage(p); err != nil {
			return lr.n, lr.wrap(err)
		}
		if _, dup := fresh.pages[p.ID]; dup {
			return lr.n, lr.invalid("duplicate page %q", p.ID)
		}
		if err := fresh.Put(ctx, p); err != nil {
			return lr.n, lr.wrap(err)
		}
	}
	if err := lr.end(); err != nil {
		return lr.n, err
	}
	s.mu.Lock()
	s.pages, s.postings = fresh.pages, fresh.postings
	s.numbered, s.free = fresh.numbered, fresh.free
	s.titleTerms, s.contentTerms = fresh.titleTerms, fresh.contentTerms
	s.mu.Unlock()
	return lr.n, nil
}

// SaveFile writes a snapshot of the store to the file at path atomically,
// as [InMemoryGraph.SaveFile] does: temporary file, sync, rename, sync of
// the directory.
func (s *InMemoryKnowledgeStore) SaveFile(path string) error {
	return saveFile(path, func(w io.Writer) error {
		_, err := s.WriteTo(w)
		return err
	})
}

// LoadFile replaces the store's pages with the snapshot in the file at
// path, as ReadFrom does; on any error the store is unchanged.
func (s *InMemoryKnowledgeStore) LoadFile(path string) error {
	return loadFile(path, func(r io.Reader) error {
		_, err := s.ReadFrom(r)
		return err
	})
}
