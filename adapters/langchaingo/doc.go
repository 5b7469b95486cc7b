// Package kgmemlangchain plugs kgmem into LangChain Go
// (github.com/tmc/langchaingo): a [Retriever] that implements
// schema.Retriever over kgmem's hybrid retriever, a [Memory] that
// implements schema.Memory over a durable kgmem.Memory (its memory
// variable is kgmem's context block for the chain's input, and each turn is
// saved as a knowledge page), and an [Embedder] that wraps a langchaingo
// embeddings.Embedder as a kgmem.Embedder.
//
// The adapters convert types and map options; retrieval and ingestion are
// kgmem's own. A Retriever answers with one kgmem.MemoryRetriever: a
// memory's own (RetrieverConfig.Retriever: mem.Retriever(), which links by
// meaning with the memory's embedder and keeps its entity vectors), or one
// that NewRetriever builds over a store and a graph; no call builds
// another. Memory answers with the memory's own retriever unless its
// configuration asks for settings of another (see MemoryConfig.Retriever).
//
// # Documents
//
// Retriever returns one schema.Document per kgmem.RetrievalItem, best
// first, mapped as every kgmem adapter maps it: a page's PageContent is its
// content; an entity's is the path that explains it followed, on the next
// line, by its description. Score is the item's score, in [0,1]. Metadata
// holds the keys listed in kgmem's README ("Use it with…"), the same in
// every kgmem adapter, which the Meta* constants name; the page or entity
// ID is under MetaID.
//
// There is deliberately no vectorstores.VectorStore: kgmem's pages are
// ranked by BM25 and the graph, not by embeddings, and the vector store
// options (an embedder, filters, a namespace, a deduplicater) would have
// to be ignored or refused. Store pages with Memory or kgmem's own API,
// and retrieve with Retriever.
//
// # Errors
//
// Bad arguments return errors that wrap kgmem.ErrInvalidArgument and start
// with "kgmemlangchain: "; errors from kgmem are wrapped, so errors.Is sees
// their sentinels.
//
// # Concurrency
//
// Retriever, Memory and Embedder are safe for concurrent use when what they
// wrap is.
package kgmemlangchain
