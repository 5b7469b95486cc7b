package kgmem

import (
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/quote"
)

// pagesData is a copy of a store's pages, as a snapshot holds them.
type pagesData struct {
	seq   uint64
	pages []KnowledgePage // by ID once sorted
}

// capture copies the store's pages; the caller holds s.mu. Stored pages
// are never modified, so the copy shares them safely.
func (s *InMemoryKnowledgeStore) capture() *pagesData {
	d := &pagesData{pages: make([]KnowledgePage, 0, len(s.pages))}
	for _, e := range s.pages {
		d.pages = append(d.pages, e.page)
	}
	return d
}

// sort orders the pages by ID.
func (d *pagesData) sort() {
	slices.SortFunc(d.pages, func(a, b KnowledgePage) int { return strings.Compare(a.ID, b.ID) })
}

// WriteTo writes d, sorted, as a snapshot.
func (d *pagesData) WriteTo(w io.Writer) (int64, error) {
	lw := newLineWriter(w)
	d.writeLines(lw)
	return lw.finish()
}

// writeLines writes d, sorted, as the lines of a snapshot.
func (d *pagesData) writeLines(lw *lineWriter) {
	lw.encode(pagesHeader{Format: pagesFormat, Version: snapshotVersion, Seq: d.seq, Pages: int64(len(d.pages))})
	for i := range d.pages {
		lw.encode(&d.pages[i])
	}
}

// WriteTo writes a snapshot of the store to w: the header line
// {"format":"kgmem-pages","version":2,"pages":N}, then one [KnowledgePage]
// per line in its JSON form, ordered by ID (see Snapshots in the package
// documentation). Equal stores give byte-identical snapshots. The pages are
// copied under the read lock, which is released before anything is
// written. It returns the number of bytes written; a page whose line would
// be longer than 64 MiB returns an error wrapping ErrInvalidArgument.
func (s *InMemoryKnowledgeStore) WriteTo(w io.Writer) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.mu.RLock()
	d := s.capture()
	s.mu.RUnlock()
	d.sort()
	return d.WriteTo(w)
}

// readPages reads a page snapshot from r into fresh, an empty store nobody
// else holds.
func readPages(r io.Reader, fresh *InMemoryKnowledgeStore) (pagesHeader, int64, error) {
	lr := newLineReader(r, "snapshot")
	h, err := readPagesLines(lr, fresh)
	if err == nil {
		err = lr.end()
	}
	return h, lr.n, err
}

// readPagesLines reads a page snapshot's lines from lr into fresh, an
// empty store nobody else holds, and stops after the last line its header
// announces.
func readPagesLines(lr *lineReader, fresh *InMemoryKnowledgeStore) (pagesHeader, error) {
	var h pagesHeader
	if err := lr.header(&h); err != nil {
		return h, err
	}
	switch {
	case h.Format != pagesFormat:
		return h, lr.invalid("format %s, want %q", quote.Value(h.Format), pagesFormat)
	case !readableVersion(h.Version):
		return h, lr.invalid("unsupported version %d, want %d", h.Version, snapshotVersion)
	case h.Version == 1 && h.Seq != 0:
		return h, lr.invalid("version 1 has no seq")
	case h.Pages < 0:
		return h, lr.invalid("negative page count %d", h.Pages)
	}
	pageNames := jsonNames(reflect.TypeFor[KnowledgePage]())
	for i := int64(0); i < h.Pages; i++ {
		var p KnowledgePage
		if err := lr.value(&p, "page", pageNames); err != nil {
			return h, err
		}
		if err := validatePage(p); err != nil {
			return h, lr.wrap(err)
		}
		if _, dup := fresh.pages[p.ID]; dup {
			return h, lr.invalid("duplicate page %s", quote.Value(p.ID))
		}
		fresh.put(p)
	}
	return h, nil
}
