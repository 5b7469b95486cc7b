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
// Errors wrap one of the sentinels (test with errors.Is) and name the
// offending value: [ErrNotFound] for a missing entity, relation or page,
// [ErrInvalidArgument] for a value that breaks a documented rule,
// [ErrNoPath] when FindPaths finds nothing, [ErrClosed] after Close,
// [ErrLocked] when another Open holds a durable graph's files, and
// [ErrJournal] when a durable graph cannot write its journal. A write that
// fails leaves the graph exactly as it was. A cancelled context makes a
// method return ctx.Err(); traversals check it between hops and every few
// thousand relations they scan.
//
// # Persistence
//
// [Open] returns an [InMemoryGraph] that lives on disk: every write is
// appended to a CRC-framed journal (and, by default, fsynced) before it
// returns, [InMemoryGraph.Compact] folds the journal into a snapshot, and
// a crash at any point loses no acknowledged write. Snapshots alone are
// [InMemoryGraph.WriteTo], [InMemoryGraph.ReadFrom], SaveFile and LoadFile,
// for graphs and for [InMemoryKnowledgeStore]. The formats and the crash
// cases are described below, under Durable graphs and Snapshots.
//
// # Performance
//
// Entity IDs are interned to dense slot numbers and each entity keeps its
// relations in incoming and outgoing adjacency lists, so GetRelated costs
// O(V+E) over what it reaches, never a scan of the whole graph; building the
// answer (paths, relation and entity copies) is most of its cost, so pass
// TraverseOptions.Limit when you need the best few. FindPaths meets in the
// middle and prunes by score; a path budget bounds the relations it scans
// and the partial paths it builds (DefaultPathBudget). A graph holds about 180 bytes per entity and
// 95 per relation. The benchmarks (go test -bench .) time every operation
// on generated graphs of up to a million relations against specialised
// baselines; the README quotes the figures.
//
// # Backends
//
// Another storage engine implements [KnowledgeGraph] and reuses kgmem's
// traversal by implementing [Neighborhood] and calling [TraverseRelated] and
// [TraversePaths], and applies InMemoryGraph's text rules through
// [ValidateEntity], [ValidateRelation], [NormalizeTags], [Fold],
// [PrepareKeywords] and [LinkKey]; package kgmem/kgmemtest checks it against
// the contract, and the module github.com/kgmem/kgmem/pgraph is such a
// backend on PostgreSQL.
package kgmem
