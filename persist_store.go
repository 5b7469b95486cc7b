package kgmem

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/jsonl"
	"github.com/kgmem/kgmem/internal/quote"
)

// pagesData is a copy of a store's pages, as a snapshot holds them.
type pagesData struct {
	seq   uint64
	model *modelHeader // the store's embedding model; nil without one
	pages []pageLine   // by ID once sorted
}

// pageLine is a line of a page snapshot: the page's JSON form, and with an
// embedder its vector.
type pageLine struct {
	KnowledgePage
	Vector vector `json:"vector,omitempty"`
}

// modelHeader is the embedding model in a page snapshot's header.
type modelHeader struct {
	Name       string `json:"name"`
	Dimensions int    `json:"dimensions"`
}

// capture copies the store's pages; the caller holds s.mu. Stored pages
// and vectors are never modified, so the copy shares them safely.
func (s *InMemoryKnowledgeStore) capture() *pagesData {
	d := &pagesData{pages: make([]pageLine, 0, s.ix.Len())}
	if m := s.storeModel(); m != nil {
		d.model = &modelHeader{Name: m.Name, Dimensions: m.Dimensions}
	}
	s.ix.Each(func(e *pageEntry) {
		d.pages = append(d.pages, pageLine{KnowledgePage: e.Value.page, Vector: e.Value.vec})
	})
	return d
}

// sort orders the pages by ID.
func (d *pagesData) sort() {
	slices.SortFunc(d.pages, func(a, b pageLine) int { return strings.Compare(a.ID, b.ID) })
}

// WriteTo writes d, sorted, as a snapshot.
func (d *pagesData) WriteTo(w io.Writer) (int64, error) { return writeSnapshot(w, d) }

// writeLines writes d, sorted, as the lines of a snapshot.
func (d *pagesData) writeLines(lw *jsonl.Writer) {
	version := snapshotVersion
	if d.model != nil {
		version = pagesVectorVersion
	}
	lw.Encode(pagesHeader{Format: pagesFormat, Version: version, Seq: d.seq, Pages: int64(len(d.pages)), Model: d.model, Checksum: jsonl.Checksum})
	for i := range d.pages {
		lw.Encode(&d.pages[i])
	}
}

// WriteTo writes a snapshot of the store to w: the header line
// {"format":"kgmem-pages","version":2,"pages":N,"checksum":"crc32c"}, then
// one [KnowledgePage] per line in its JSON form, ordered by ID, then the
// checksum line of all those bytes (see Snapshots and Checksums in
// docs/FORMAT.md). A store with an embedder writes version 3, whose
// header names the model and whose lines carry each page's vector. Equal
// stores give byte-identical snapshots. The pages are copied under the
// read lock, which is released before anything is written. It returns the
// number of bytes written; a page whose line would be longer than 64 MiB
// returns an error wrapping ErrInvalidArgument.
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
	lr := newSnapshotReader(r)
	h, err := readPagesLines(lr, fresh)
	err = lr.Done(err)
	return h, lr.Consumed(), err
}

// readPagesLines reads a page snapshot's lines from lr into fresh, an
// empty store nobody else holds, and stops after the last line its header
// announces.
func readPagesLines(lr *jsonl.Reader, fresh *InMemoryKnowledgeStore) (pagesHeader, error) {
	var h pagesHeader
	if err := lr.Header(&h); err != nil {
		return h, err
	}
	if err := lr.Declare(h.Checksum); err != nil {
		return h, err
	}
	switch {
	case h.Format != pagesFormat:
		return h, lr.Invalid("format %s, want %q", quote.Value(h.Format), pagesFormat)
	case !readableVersion(h.Version) && h.Version != pagesVectorVersion:
		return h, lr.Invalid("unsupported version %d, want %d or %d", h.Version, snapshotVersion, pagesVectorVersion)
	case h.Version < pagesVectorVersion && h.Model != nil:
		return h, lr.Invalid("version %d has no model", h.Version)
	case h.Version == pagesVectorVersion && h.Model == nil:
		return h, lr.Invalid("version %d without a model", h.Version)
	case h.Version == 1 && h.Seq != 0:
		return h, lr.Invalid("version 1 has no seq")
	case h.Pages < 0:
		return h, lr.Invalid("negative page count %d", h.Pages)
	}
	want := fresh.storeModel()
	recModel := ""
	switch {
	case h.Model != nil && want == nil:
		return h, lr.Wrap(fmt.Errorf("kgmem: vectors of model %s, and the store has no embedder: %w", quote.Value(h.Model.Name), ErrEmbeddingModel))
	case h.Model == nil && want != nil && h.Pages > 0:
		return h, lr.Wrap(fmt.Errorf("kgmem: pages without vectors, and the store embeds with model %s; "+
			"open the pages without an embedder and Put them into a store with one: %w", quote.Value(want.Name), ErrEmbeddingModel))
	case h.Model != nil && (h.Model.Name != want.Name || h.Model.Dimensions != want.Dimensions):
		return h, lr.Wrap(fmt.Errorf("kgmem: vectors of model %s with %d dimensions, and the store embeds with model %s with %d: %w",
			quote.Value(h.Model.Name), h.Model.Dimensions, quote.Value(want.Name), want.Dimensions, ErrEmbeddingModel))
	case h.Model != nil:
		recModel = h.Model.Name
	}
	lineNames := jsonl.Names(reflect.TypeFor[pageLine]())
	if h.Model == nil {
		lineNames = jsonl.Names(reflect.TypeFor[KnowledgePage]())
	}
	for i := int64(0); i < h.Pages; i++ {
		var p pageLine
		if err := lr.Value(&p, "page", lineNames); err != nil {
			return h, err
		}
		if err := validatePage(p.KnowledgePage); err != nil {
			return h, lr.Wrap(err)
		}
		if fresh.ix.Get(p.ID) != nil {
			return h, lr.Invalid("duplicate page %s", quote.Value(p.ID))
		}
		if err := checkStored(p.Vector, recModel, want, "page "+quote.Value(p.ID)); err != nil {
			return h, lr.Wrap(err)
		}
		fresh.put(p.KnowledgePage, p.Vector)
	}
	return h, nil
}
