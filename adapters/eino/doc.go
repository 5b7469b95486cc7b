// Package kgmemeino plugs kgmem into CloudWeGo Eino
// (github.com/cloudwego/eino): a [Retriever] that implements Eino's
// retriever.Retriever over kgmem's hybrid retriever, an [Indexer] that
// implements indexer.Indexer by storing Eino documents as knowledge pages
// of a kgmem.Memory (and, optionally, what a model extracted from each),
// and an [Embedder] that wraps an Eino embedding.Embedder as a
// kgmem.Embedder.
//
// The adapters convert types and map options; retrieval, ranking and
// ingestion are kgmem's own (kgmem.MemoryRetriever, kgmem.Memory.Ingest).
//
// # Documents
//
// Retriever returns one *schema.Document per kgmem.RetrievalItem, best
// first. Its score (Document.Score) is the item's score, in [0,1]. A page's
// ID and Content are the page's; an entity's ID is the entity's and its
// Content is the path that explains it followed by its description. The
// MetaData keys named by the Meta* constants carry the item kind, the
// explanation, the path and the rest.
//
// # Errors
//
// Bad arguments and options return errors that wrap kgmem.ErrInvalidArgument
// and start with "kgmemeino: "; errors from kgmem are wrapped, so errors.Is
// sees their sentinels.
//
// # Concurrency
//
// Retriever, Indexer and Embedder are safe for concurrent use when what they
// wrap is.
package kgmemeino
