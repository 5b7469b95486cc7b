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
// A Retriever answers with one kgmem.MemoryRetriever: give it a memory's
// own (RetrieverConfig.Retriever: mem.Retriever(), which links by meaning
// with the memory's embedder and keeps its entity vectors), or let
// NewRetriever build one over a store and a graph. Each call's options
// become kgmem's per-call options of that retriever; no call builds
// another.
//
// # Documents
//
// Retriever returns one *schema.Document per kgmem.RetrievalItem, best
// first, mapped as every kgmem adapter maps it. A page's ID and Content are
// the page's; an entity's ID is the entity's and its Content is the path
// that explains it followed, on the next line, by its description. Its
// score (Document.Score) is the item's score, in [0,1]. MetaData holds the
// keys listed in kgmem's README ("Use it with…"), the same in every kgmem
// adapter, which the Meta* constants name.
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
