// Package pgraph stores a kgmem knowledge graph in PostgreSQL, so that many
// agent processes share one memory.
//
// [Graph] implements [kgmem.KnowledgeGraph], [kgmem.EntityLinker],
// [kgmem.NameFinder], [kgmem.NeighborhoodReader], [kgmem.SourceIndex],
// [kgmem.EntityChangeFeed], [kgmem.EntityMerger] and RemoveSource with the semantics of
// [kgmem.InMemoryGraph], the reference: the same validation and sentinel
// errors, defaults (a zero relation weight is stored as 1), tag
// normalisation, case folding, result ordering, tie-breaking and caps. GetRelated and FindPaths do not
// re-implement the traversals: they run kgmem's own code
// ([kgmem.TraverseRelated], [kgmem.TraversePaths]) over a
// [kgmem.Neighborhood] that answers each hop with one query. The package
// passes kgmem's conformance suite (package kgmem/kgmemtest), and a
// differential test replays random histories against both graphs and
// requires identical answers.
//
// [Store] keeps the knowledge pages of a namespace, a [kgmem.KnowledgeStore]
// and [kgmem.PageGetter] that ranks exactly as kgmem's in-memory store
// (with [WithEmbedder], the pages' vectors too, fused with BM25 as in
// process, by exact cosine computed in Go: no vector extension is used or
// needed), and [Memory] ([OpenMemory]) is the whole memory of a namespace: its Graph,
// its Store and a retriever over both, with an Ingest that writes a page
// and what was extracted from it in one transaction.
//
// It is a separate module, so that users of kgmem's core never download a
// database driver. It is tested with PostgreSQL 15 and needs no extension.
//
// # Setup
//
// Open a pgx pool on the database, make a Graph, and migrate the schema once
// at start-up (every process may do it; it is idempotent and serialised by
// an advisory lock):
//
//	pool, err := pgxpool.New(ctx, "postgres://agent@db.internal:5432/memory")
//	if err != nil { … }
//	defer pool.Close()
//	g, err := pgraph.New(ctx, pool, pgraph.WithNamespace("team-alpha"))
//	if err != nil { … }
//	if err := g.Migrate(ctx); err != nil { … }
//	r := kgmem.NewMemoryRetriever(store, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
//
// Migrate creates eight tables in the connection's current schema:
// kgmem_entities, kgmem_relations, kgmem_entity_removals,
// kgmem_entity_feed, kgmem_pages, kgmem_page_terms, kgmem_page_stats and
// kgmem_schema_version, and two PL/pgSQL trigger
// functions on kgmem_entities (see Change feed). Later versions
// of this package add migrations; New refuses a database whose schema is
// newer than it knows. Version 3 stores weights in (0,1]: it sets the
// weight of every relation stored with weight 0 to 1, which is what the
// in-memory graph has always read a zero weight as. Version 4 adds a GIN
// index on source_ids for EntitiesCitedBy. Version 5 adds valid
// time to relations: the columns valid_from and valid_to (timestamptz,
// NULL for kgmem's zero time: an unknown start, an open end) and a check
// that the end is not before the start; relations written before have
// neither and stay valid at every instant. Traversals read a relation's
// validity with it and kgmem drops the relations not valid at the instant
// asked for (by default now, by the graph's clock, see [WithClock]), so an
// ended relation is never walked by a default read. Version 6 adds the
// change feed: a change_xid column on kgmem_entities (existing rows get
// the migration's transaction ID), the tables kgmem_entity_removals and
// kgmem_entity_feed, and the triggers that keep them; it needs PostgreSQL
// 13 or later (xid8). Version 11 adds kgmem_memory_schemas, the schema of
// each namespace's Memory (see Memory.SetSchema).
//
// # Namespaces
//
// Graphs share the tables and are told apart by a namespace column that is
// part of every key and every query ([WithNamespace]; the default is
// "default"). A graph never reads, changes or links to another namespace's
// rows, and [Graph.Clear] empties one namespace. Processes that share a
// namespace share one graph; they should use the same [WithTagConstraints].
//
// # Consistency
//
// Every write is one statement (AddBatch, Merge and Clear: one
// transaction), so it applies whole or not at all. AddEntity, AddRelation
// and SetEntityTags are upserts (INSERT … ON CONFLICT or UPDATE), so
// concurrent writers never lose an update: the last one to commit wins,
// whole. Foreign keys with ON
// DELETE CASCADE tie relations to their endpoints: RemoveEntity takes its
// relations with it in the same statement, and an AddRelation racing a
// RemoveEntity of an endpoint either commits first (and is cascaded) or
// fails with kgmem.ErrNotFound; no relation can outlive an endpoint. A write
// that PostgreSQL aborts as a deadlock or serialization failure, which two
// cascading deletes can cause, is retried a few times.
//
// [Graph.Merge] locks both entities' rows and the relations it moves, so
// concurrent merges into one entity all survive; of two merges of a pair
// in opposite directions one wins and the other finds its entity gone; and
// an AddRelation to the entity merged away either commits first, and its
// relation is moved, or fails with kgmem.ErrNotFound.
//
// kgmem.Ingest calls that one process makes into one Graph take turns
// between their reads and their writes, so concurrent merges into one
// entity all survive. Calls from several processes into one graph do not
// take turns: two processes that merge into the same entity at the same
// moment keep the merge that commits last; have one process ingest, or
// partition ingestion by entity.
//
// GetRelated and FindPaths run all their queries in one read-only
// REPEATABLE READ transaction, so each answer reflects one moment of the
// graph even while other processes write. Cancelling the context cancels
// the running query on the server.
//
// # Change feed
//
// [Graph.EntityChanges] lists the entities written and removed since an
// earlier answer, so that kgmem.MemoryRetriever's linking by meaning
// ([kgmem.WithLinkEmbedder]) embeds only what changed, whichever process
// wrote it. The database keeps the feed, not the Graph: a BEFORE INSERT OR
// UPDATE trigger stamps each entity row with the ID of the transaction
// that wrote it (change_xid), and a statement-level AFTER DELETE trigger
// logs every removed entity with its transaction's ID, so every write path
// is covered — AddEntity, AddBatch's COPY and upsert, SetEntityTags,
// RemoveEntity, Merge (into as changed, from as removed), Clear, and SQL
// run by hand. A version is the oldest
// transaction running when an answer was read (its snapshot's xmin);
// the next answer lists every change by that transaction or a newer one.
// A writer that began before a read and commits after it is therefore
// never skipped, however the commits of several processes interleave. The
// price is re-delivery: an entity written by a transaction is delivered
// again by every answer read while a transaction that began before it is
// still running anywhere on the server (a session left idle in a
// transaction keeps such changes coming); the retriever re-embeds only
// entities whose text changed.
//
// The removal log keeps the database's last 65,536 removals, trimmed every
// 1,024 by the trigger. A version older than a trimmed removal of its
// namespace, one from before Clear, one newer than any transaction the
// server has started, and 0 are answered with a Reset: every entity of the
// namespace. kgmem_entity_feed keeps that floor: one small row per
// namespace ever cleared or trimmed. Writers pay a trigger per entity written and a log row per
// entity removed (see BenchmarkChangeFeedWrites). The triggers run with the
// writer's privileges: a role that writes entities also needs INSERT and
// DELETE on kgmem_entity_removals and INSERT and UPDATE on
// kgmem_entity_feed (the role that ran Migrate owns them all).
//
// # Indexes and costs
//
// A traversal hop is one query for the whole frontier, served by the
// primary key (namespace, source, target, type) when walking outgoing
// relations and by an index on (namespace, target) when walking incoming
// ones; Both combines the two. A GetRelated of depth d costs at most d+4
// round trips (begin, start check, one per hop, entity fetch, end), each an
// index lookup, never a scan.
//
// FindByKeywords, a case-folded substring match, is narrowed by GIN indexes
// on arrays of the 1- to 3-rune substrings of each entity's folded ID, name,
// aliases and tags, computed in Go with kgmem's folding; the exact test and
// the ordering run in Go. LinkEntities looks up the match keys of every run
// of up to 16 words or CJK characters of the text in a GIN index of the
// entities' name and alias keys, then applies kgmem's matching rules, so it
// links exactly what the in-memory graph links; FindByName, one lookup of
// the name's match key in the same index, finds exactly the entities the
// in-memory graph finds, and Ingest uses it to resolve names. None needs
// pg_trgm, and
// both work the same in every database locale and for CJK text. The GIN
// indexes do not include the namespace: their candidates are filtered by
// namespace afterwards, so many large namespaces make each other's searches
// slower, not wrong. FindTags reads the tags of every entity of the
// namespace; EntityCountByTag uses a GIN index on tags.
//
// # Differences from the in-memory graph
//
// PostgreSQL cannot store the NUL byte in text or jsonb, so a write holding
// one in any string returns kgmem.ErrInvalidArgument; reads naming such a
// string find nothing, as they would in a graph where it was never written.
// When FindPaths' path budget cuts a search (PathResult.Truncated), which
// partial paths were explored depends on the order in which relations are
// read, and may differ from the in-memory graph's. Each call costs round
// trips to the server: where one process owns its memory and latency
// matters most, kgmem.InMemoryGraph answers in microseconds rather than
// milliseconds.
//
// # Limits
//
// Graph enforces kgmem's length limits ([kgmem.MaxIDBytes],
// [kgmem.MaxTypeBytes], [kgmem.MaxNameBytes], [kgmem.MaxTagBytes]) through
// the same validation as the in-memory graph, before touching the
// database, and limits the namespace to [MaxNamespaceBytes]. Together they
// keep every index entry within PostgreSQL's bounds (2,704 bytes for a
// B-tree entry, 2,712 for a GIN one) even for text that does not
// compress, so a write never fails in the database for a value's length.
//
// # Errors
//
// Errors wrap kgmem's sentinels ([kgmem.ErrNotFound],
// [kgmem.ErrInvalidArgument], [kgmem.ErrNoPath]) exactly where the
// in-memory graph's do, and name the offending value, a long one by a
// prefix. Messages name the package once ("pgraph: remove entity "x": not
// found"; a rule of kgmem's reads as kgmem's own error). Database failures are returned wrapped, with the operation and
// the value named. When the connection to PostgreSQL cannot be made or
// breaks (the server restarts or ends the session, the network fails),
// the error wraps [ErrConnectionLost] and says so, and, for a write,
// whether it was sent and so may have been applied.
package pgraph
