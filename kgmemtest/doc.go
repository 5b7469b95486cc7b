// Package kgmemtest checks that an implementation of [kgmem.KnowledgeGraph]
// keeps the contract the in-memory reference, [kgmem.InMemoryGraph], keeps.
// It also offers [HashEmbedder], a deterministic [kgmem.Embedder] for the
// tests and examples of code that gives a store an embedder.
//
// A backend proves conformance with one test:
//
//	func TestConformance(t *testing.T) {
//		kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
//			return mybackend.New(...)
//		})
//	}
//
// [Run] calls the constructor once per subtest and expects an empty graph each
// time; a backend that needs cleanup registers it with t.Cleanup inside the
// constructor. Subtests run one after another, never in parallel.
//
// # What the suite covers
//
// Everything is checked through the KnowledgeGraph interface only:
//
//   - write validation: empty IDs and relation types, invalid UTF-8 in any
//     string, weights that are NaN, infinite or outside [0,1] wrap
//     [kgmem.ErrInvalidArgument]; relations to missing entities and removal
//     of absent objects wrap [kgmem.ErrNotFound]; each message names the
//     offending value, names its package once and says its sentinel once,
//     at the end ([CheckErrorMessage]), and a rejected write leaves the
//     graph as it was;
//   - IDs: an empty, whitespace-only or invalid entity ID or relation type
//     is [kgmem.ErrInvalidArgument] in every method that takes one, reads
//     (GetEntity, GetRelated, FindPaths) as well as writes;
//   - a zero relation weight is stored, returned and walked as 1;
//   - length limits: an ID, name, type, alias or tag one byte over its
//     limit ([kgmem.MaxIDBytes], [kgmem.MaxNameBytes], [kgmem.MaxTypeBytes],
//     [kgmem.MaxTagBytes]) or a hundred kilobytes over it wraps
//     [kgmem.ErrInvalidArgument], names the field and the limit, quotes at
//     most a short prefix of the value and changes nothing; values exactly
//     at the limits, of text that does not compress, are stored, read,
//     traversed and removed like any other; reads with longer values find
//     nothing and do not fail;
//   - upsert, cascade and replace semantics of AddEntity, RemoveEntity and
//     AddRelation; self-loops are stored, removed and never returned by
//     GetRelated or on a FindPaths path;
//   - returned values are copies, and inputs are copied on write;
//   - GetRelated: option validation, Depth 0 as one hop, fewest hops, best
//     score, tie-breaking by path and relation key, ordering, directions,
//     type filters, weight decay, MaxNodesPerHop, Limit, and agreement with
//     a brute-force reference on random graphs;
//   - FindPaths: the zero options (4 hops, 3 paths), ordering, ErrNoPath,
//     and agreement with exhaustive enumeration ([ReferencePaths]);
//   - tag normalisation, the tag index, FindTags and EntityCountByTag;
//   - FindByKeywords matching and ordering;
//   - FindByName, for a graph that implements [kgmem.NameFinder]: match
//     keys, ordering, copies and errors (skipped otherwise);
//   - an already-cancelled context fails every method with
//     [context.Canceled] and leaves the graph unchanged;
//   - the change feed, for a graph that implements
//     [kgmem.EntityChangeFeed] (skipped otherwise): since 0 and a version
//     never issued are a Reset listing every entity; adds, updates, tag
//     changes, AddBatch and RemoveSource (for graphs that have them) are
//     in Changed as the entities are now, removals in Removed, an entity
//     removed and added again only in Changed; both ordered by ID; and a
//     consumer that applies every answer of a random history holds exactly
//     the graph's entities. A change may be delivered more than once, so
//     the checks require every change, not only those;
//   - Merge, for a graph that implements [kgmem.EntityMerger] (skipped
//     otherwise): the rules of [kgmem.InMemoryGraph.Merge] for the
//     entity (aliases compared by match key, tags cut to the limit) and
//     its relations (moved both ways, merged into a key into holds,
//     dropped between the two, self-loops kept), the change feed, errors
//     that change nothing, and random merges that leave the graph exactly
//     as they leave the in-memory graph;
//   - valid time on relations: stored in UTC to the microsecond, replaced
//     by an upsert, validated (end before start, years outside 1 to 9999),
//     and read as of an instant: the half-open interval at its edges, now
//     by default (an ended relation is never walked by GetRelated or
//     FindPaths), a past instant and AllTime.
//
// # Comparing answers
//
// [CheckRelated] checks the invariants every GetRelated answer satisfies and
// [RequireSameRelated] compares two answers field by field; persistence and
// backend tests use them to compare a graph with a reloaded copy or with the
// reference.
//
// The package uses only the standard testing package.
package kgmemtest
