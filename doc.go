// Package kgmem is memory with structure for AI agents: an in-process
// knowledge graph plus a hybrid retriever.
//
// An agent's extraction code turns model output into [Entity] and [Relation]
// values and writes them with [KnowledgeGraph.AddEntity] and
// [KnowledgeGraph.AddRelation]. At question time
// [KnowledgeGraph.GetRelated] answers "what is related to X?" by a
// breadth-first walk with weight decay, and [KnowledgeGraph.FindPaths]
// answers "how is X related to Y?" with the best simple paths between them.
// Tags organise entities ([KnowledgeGraph.SetEntityTags]).
//
// [InMemoryGraph] is the reference implementation. Other backends implement
// [KnowledgeGraph] and prove that they behave the same by passing the
// conformance suite in package kgmem/kgmemtest.
//
// # Semantics
//
// Scores are products of relation weights, which lie in [0,1], so a longer
// path never scores higher than its prefix. Every ordering kgmem returns is
// total and documented: results never depend on insertion order or map
// iteration.
//
// # Concurrency
//
// All methods of [InMemoryGraph] are safe for concurrent use. Reads share a
// sync.RWMutex and run in parallel; writes hold it briefly. Traversals hold
// the read lock for their whole duration, so they see one consistent graph.
// No user code runs under the lock, and values returned are copies that the
// caller owns.
//
// # Errors
//
// Errors wrap one of the sentinels [ErrNotFound], [ErrInvalidArgument] or
// [ErrNoPath] (test with errors.Is) and name the offending value. A write
// that fails leaves the graph exactly as it was. A cancelled context makes
// a method return ctx.Err(); traversals check it between hops.
//
// # Performance
//
// Entity IDs are interned to dense slot numbers and each entity keeps its
// relations in incoming and outgoing adjacency lists, so GetRelated costs
// O(V+E) over what it reaches, never a scan of the whole graph. The
// benchmarks in bench_test.go time it against graphs of up to a million
// relations.
package kgmem
