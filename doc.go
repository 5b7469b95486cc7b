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
// [MemoryRetriever] answers a question from knowledge pages and the graph
// at once. Its graph channel reads the question without a model — the
// entities it names, the relations its words ask for, the type of answer
// it wants — and follows those relations from the named entities, so
// "who directed the films that X starred in" returns the directors, each
// with the path and the words that chose each hop. A [Vocabulary] adds the
// words a graph's users ask with.
//
// A call runs, in order: the content channel and the graph channel from the
// named entities, at the same time (with [WithLinkEmbedder], entities the
// question means but does not name are linked by embedding similarity);
// then walks seeded by the entities that cite the best content hits
// ([SeedMode]); the pages the graph's answers cite; fusion ([Fusion]); an
// optional [Reranker]; and optional MMR diversity
// (RetrieverConfig.MMRLambda).
//
// [InMemoryGraph] is the reference implementation. Other backends implement
// [KnowledgeGraph] and prove that they behave the same by passing the
// conformance suite in package kgmem/kgmemtest. Package kgmem/render draws
// a graph, a path search or a retrieval as Graphviz DOT or Mermaid.
//
// # Linking by meaning
//
// With [WithLinkEmbedder], a question that names no entity of a graph is
// linked to the entities whose embedded text (name, aliases and
// description: [EntityText]) is nearest the question's embedding. The
// retriever keeps one vector per entity, refreshed from the graph's
// [EntityChangeFeed] by the queries that need it: only entities whose text
// changed are embedded again, and each batch is kept as soon as it is
// embedded. A query with a deadline (its ctx's, or
// RetrieverConfig.SourceTimeout) spends at most half the time it has left
// on it: one Embed call for the question, the refresh, a scan of the
// vectors. When that half runs out, or the embedder fails, the query links
// among the vectors ready, answers from its other channels as usual, and
// warns that linking by meaning was incomplete or skipped; the next query
// goes on with the refresh. [MemoryRetriever.RefreshEntityVectors] embeds
// the graphs ahead of queries.
//
// # Time and connection questions
//
// The graph channel reads, besides a question's relation and type words,
// its time words, in English and Chinese, and walks as of what they say:
// a period ("in 2023", "in March 2021", "2023年", "2021年3月", "last year",
// "two years ago", "去年"; relative ones by the graph's clock,
// [WithClock]) is read at its middle, or now when it holds now; an order
// ("before 2022", "before Lisbon", "after he left Acme", "while she lived
// in Berlin", "里斯本之前", "离开Acme以后") just before, or as of the end
// of, the fact between the entity it names and another entity the
// question names; history wording ("has lived", "used to", "ever",
// "previously", "曾经", "以前", "都…过") walks every value over time,
// [AsOf] AllTime, ended facts ranked with the current ones; "now",
// "currently", "现在" are the default. Time words are hidden from linking
// and relation matching; those that are part of an entity's name the
// question links are a name. [WithAsOf] (or WithExpansion's AsOf) wins
// over the words. Each graph item says in RetrievalItem.AsOfLabel and
// AsOfCue what time was read and which words set it, and Explain shows it:
// `Maria —lives_in→ Berlin (2019 → 2024-03) (… as of 2023 ← "in 2023")`.
//
// A question that names two entities and asks how they are related ("how
// is X related to Y", "what is the relationship between X and Y", "how
// are X and Y connected", "X和Y是什么关系", "X与Y有什么关系") is answered with
// the best paths between them of the fewest relations ([KnowledgeGraph]'s
// FindPaths within the walk's hop limit, direction, relation types and
// time), ranked above the entities themselves: the best as the second
// entity's item, `Maria —colleague_of→ 李雷`. A question for a third entity
// ("who is related to both X and Y") walks as any other.
//
// # Semantics
//
// Scores are products of relation weights, which lie in (0,1], so a longer
// path never scores higher than its prefix. Every ordering kgmem returns is
// total and documented: results never depend on insertion order or map
// iteration.
//
// Zero values are useful defaults: TraverseOptions{} walks one hop,
// PathOptions{} finds the 3 best paths of up to 4 hops, a Relation without
// a Weight is unweighted (stored as 1), and a zero [InMemoryKnowledgeStore]
// is an empty store ready to use. Both option types walk Outgoing by
// default, the zero Direction; the retriever's graph channel walks Both,
// since a question may name either end of a relation. An empty or
// whitespace-only ID is rejected by every method that takes one, reads
// included. A relation may join an entity to itself.
//
// # Limits
//
// Every write checks lengths, in bytes of UTF-8: an entity ID (and so a
// relation's endpoints) at most [MaxIDBytes] (1 KiB), an entity or
// relation type at most [MaxTypeBytes] (256), a name or an alias at most
// [MaxNameBytes] (1 KiB), a tag at most [MaxTagBytes] (128) once
// normalised. A longer value is rejected with [ErrInvalidArgument], never
// truncated, by every backend and every path into a graph: the write
// methods, AddBatch, Ingest (which skips and reports the item), and the
// snapshot and journal readers. The limits are sized so that PostgreSQL
// can index every key pgraph stores (see [MaxIDBytes]); descriptions,
// properties and source IDs have no limit of their own. Errors quote at
// most a short prefix of an offending value, whatever its length.
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
// offending value (a long one by a prefix and its length). A message names
// the package once and the sentinel last:
//
//	kgmem: remove entity "person:alice": not found
//
// The sentinels are [ErrNotFound] for a missing entity, relation or page,
// [ErrInvalidArgument] for a value that breaks a documented rule,
// [ErrNoPath] when FindPaths finds nothing, [ErrClosed] after Close,
// [ErrLocked] when another Open holds a durable memory's directory,
// [ErrCorrupt] when its files fail their checks or a snapshot its
// checksum, [ErrJournal] when it
// cannot write its journal, [ErrEmbedding] when a store's [Embedder] fails
// (and in the warnings of linking by meaning, [WithLinkEmbedder]),
// and [ErrEmbeddingModel] when stored vectors come from another model than
// the store's (see [WithEmbedder]). A write that
// fails leaves the graph exactly as it was. A cancelled context makes a
// method return ctx.Err(); traversals check it between hops and every few
// thousand relations they scan.
//
// # Persistence
//
// [OpenMemory] returns a [Memory] that lives in a directory: a graph, its
// pages and a retriever over both; [OpenGraph] and [OpenStore] do the same
// for a graph or a page store alone. Each takes its directory for its own
// (a second Open fails with [ErrLocked]) and appends every write to a
// checksummed write-ahead journal before the write returns, syncing it
// under the default [SyncAlways], so a crash loses no acknowledged write;
// [Memory.Ingest] writes a page and what was extracted from it as one
// record. Compact folds the journal into a snapshot. Open replays the
// journal onto the last snapshot: it cuts off a final record a crash tore,
// moves a damaged final record aside (or, with [WithStrictRecovery],
// refuses to open) and reports either, and fails with an error wrapping
// [ErrCorrupt], changing nothing on disk, rather than open with less than
// the files hold. A write whose record cannot be appended or synced is not
// applied and fails with [ErrJournal], and so does every later write until
// Compact or a reopen. [InMemoryGraph.WriteTo] and [InMemoryGraph.ReadFrom]
// (and [InMemoryKnowledgeStore]'s) are snapshots alone, [SaveFile] and
// [LoadFile] their files; reading checks every rule a write checks and
// replaces the contents entirely or not at all. docs/DURABILITY.md in the
// repository (https://github.com/kgmem/kgmem/blob/main/docs/DURABILITY.md)
// gives the files, recovery, sync policies and failures in full, and
// docs/FORMAT.md the formats.
//
// # Performance
//
// Entity IDs are interned to dense slot numbers and each entity keeps its
// relations in incoming and outgoing adjacency lists, so GetRelated costs
// O(V+E) over what it reaches, never a scan of the whole graph; building the
// answer (paths, relation and entity copies) is most of its cost, so pass
// TraverseOptions.Limit when you need the best few. FindPaths meets in the
// middle and prunes by score; a path budget bounds the relations it scans
// and the partial paths it builds (2¹⁹ relations unless WithPathBudget). A graph holds about 225 bytes per entity and
// 62 per relation. The benchmarks (go test -bench .) time every operation
// on generated graphs of up to a million relations against specialised
// baselines; the README quotes the figures.
//
// # Backends
//
// Another storage engine implements [KnowledgeGraph] and reuses kgmem's
// traversal by implementing [Neighborhood] and calling [TraverseRelated] and
// [TraversePaths], and accepts and rejects what InMemoryGraph does through
// [ValidateEntity], [ValidateRelation], [ValidateRelationKey] and
// [ValidateName]. Optional capabilities
// are exported interfaces it may implement: [NameFinder] (Ingest resolves
// names through it), [EntityLinker], [NeighborhoodReader], [SourceIndex]
// (content-seeded expansion) and [EntityChangeFeed] (linking by meaning).
// Each of them makes a backend faster, never different: one with only the
// KnowledgeGraph methods gets the same answers from GetRelated, FindPaths
// and the retriever, through more calls. Package
// kgmem/kgmemtest checks it against the contract, and the module
// github.com/kgmem/kgmem/pgraph is such a backend on PostgreSQL.
//
// # Valid time
//
// A relation may say when it became true (Relation.ValidFrom) and when it
// stopped being true (Relation.ValidTo). A zero ValidFrom means the start
// is unknown (true since ever, as far as kgmem knows); a zero ValidTo means
// the fact still holds. A relation with neither is valid at every instant,
// which is what every relation written before valid time existed is.
//
// The interval is half-open: a relation is valid at t when
// ValidFrom <= t (or ValidFrom is zero) and t < ValidTo (or ValidTo is
// zero). A fact that ended at 2025-06-01 is no longer true at
// 2025-06-01T00:00:00Z; its successor, starting at the same instant, is.
// ValidTo before ValidFrom is ErrInvalidArgument; ValidTo equal to
// ValidFrom is an empty interval, valid at no instant, which only
// whole-history reads return.
//
// Times are stored in UTC, truncated to the microsecond, and must lie in
// the years 1 to 9999: what JSON (RFC 3339) and PostgreSQL's timestamptz
// both round-trip exactly, so every backend, snapshot and journal returns
// the instants it was given, to the microsecond.
//
// A relation key holds one interval. A fact that was true twice (Alice
// worked on Apollo, left, came back) keeps its latest interval under the
// key; the earlier one is replaced. Keeping the key as the identity keeps
// GetRelation, RemoveRelation, AddRelation's upsert and the adjacency
// indexes unchanged, with one record per key; the history kgmem keeps is
// the history of changes between different targets (Berlin, then
// Lisbon), which is what single-valued supersession produces.
//
// Reads answer as of an instant ([AsOf] in TraverseOptions and PathOptions,
// [WithAsOf] for the retriever): by default now, by the graph's clock
// ([WithClock]), so an ended fact is never walked; [At] a past instant
// answers what was true then, and AsOf{AllTime: true} walks everything. GetRelation
// and Relations return stored records whatever their validity;
// [InMemoryGraph.RelationsAsOf] filters, and [History] lists an entity's
// facts oldest first. [Ingest] keeps one value of a single-valued type
// ([WithSingleValued], [WithSingleValuedTypes]) valid at each instant,
// deterministically and whatever order the facts arrive in: a value ends
// the stint it starts in at its start and itself ends where the next
// stint begins, and nothing is deleted.
package kgmem
