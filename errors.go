package kgmem

import "errors"

// Sentinel errors. Every error a kgmem method returns for bad input or a
// missing object wraps exactly one of these, so callers test with errors.Is;
// the message around the sentinel names the offending value. A sentinel's
// own text carries no package prefix, so that a wrapped error names the
// package once and the sentinel last:
//
//	kgmem: remove entity "person:alice": not found
var (
	// ErrNotFound is returned when an entity, relation, page or tag that a
	// call names does not exist: an unknown traversal start, a relation whose
	// endpoint is missing, removing something absent.
	ErrNotFound = errors.New("not found")

	// ErrInvalidArgument is returned when a value handed to kgmem breaks a
	// documented rule: an empty or whitespace-only ID or relation type, a
	// string that is not valid UTF-8 or longer than its limit (MaxIDBytes
	// and the others), a weight that is NaN, infinite or outside [0,1], a
	// negative depth or cap, an unknown Direction.
	ErrInvalidArgument = errors.New("invalid argument")

	// ErrNoPath is returned by FindPaths when no path within the hop limit
	// and filters joins the two entities.
	ErrNoPath = errors.New("no path")

	// ErrClosed is returned by every method of a graph or store after its
	// Close.
	ErrClosed = errors.New("closed")

	// ErrLocked is returned by OpenMemory, OpenGraph and OpenStore when
	// another Open holds the directory.
	ErrLocked = errors.New("locked")

	// ErrJournal is returned by a write whose journal record could not be
	// appended or synced, and by every write after it until a Compact
	// succeeds or the files are reopened.
	ErrJournal = errors.New("journal failed")

	// ErrCorrupt is returned by OpenMemory, OpenGraph and OpenStore when
	// the files fail their checks: a damaged record, a snapshot that fails
	// its checksum or any other check, records missing, a journal and
	// snapshot that do not belong together. InMemoryGraph.ReadFrom,
	// InMemoryKnowledgeStore.ReadFrom and LoadFile return it, with
	// ErrInvalidArgument, for a snapshot that fails its checksum (see
	// Checksums in docs/FORMAT.md).
	ErrCorrupt = errors.New("corrupt")

	// ErrEmbeddingModel is returned when vectors of one embedding model would
	// meet those of another: a snapshot or journal whose vectors were made by
	// a model other than the store's embedder (another [EmbeddingModel] name or
	// number of dimensions), vectors read into a store that has no embedder,
	// or pages without vectors read into a store that has one.
	ErrEmbeddingModel = errors.New("embedding model mismatch")

	// ErrEmbedding is returned by a write or a search whose Embedder failed or
	// returned vectors that cannot be used (the wrong number of them, the
	// wrong length, NaN or infinite values, all zeros). The write stores
	// nothing. Linking by meaning (WithLinkEmbedder) reports the same failures
	// as warnings whose RetrievalResult.Errors wrap it.
	ErrEmbedding = errors.New("embedding failed")
)
