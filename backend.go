package kgmem

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/nameindex"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/kgmem/kgmem/internal/traverse"
)

// This file is for the authors of backends: graphs on other storage, such
// as package pgraph. An application that uses InMemoryGraph, DurableGraph
// or a Memory needs none of it. A backend implements KnowledgeGraph; the
// optional interfaces below make it faster, never different (see "Other
// backends" in the package documentation), TraverseRelated and
// TraversePaths run the in-memory graph's algorithms over its
// Neighborhood, and the Validate functions give it the in-memory graph's
// rules and errors (validate.go), so that kgmemtest's conformance suite
// passes.

// Neighborhood is the read access kgmem's traversal algorithms need from a
// graph backend: the relations around a set of entities, one hop at a
// time, and the entities themselves. A backend that implements it gets
// GetRelated and FindPaths with exactly InMemoryGraph's semantics — the
// same ordering, ties, caps and errors — from TraverseRelated and
// TraversePaths. Each call covers a whole frontier, so a database backend
// answers each hop with one query. Order matters in one case only: when
// TraversePaths' budget or per-hop cap cuts a search, which partial paths
// were explored among equally scored ones can depend on the order Neighbors
// reports relations in; every answer that is not Truncated is independent
// of it.
type Neighborhood interface {
	// Neighbors calls visit once for every relation that touches one of ids
	// and may be walked away from it in direction dir, restricted to the
	// given types when types is not empty: from is the index in ids of the
	// entity the relation is walked from, r the relation as stored (a
	// Weight of 0 is read as 1, unweighted, as every backend stores it).
	// ids holds no duplicates. Under Both, a relation between two entities
	// of ids is reported once for each, and a self-loop once. Neighbors
	// must not call visit after it returns.
	Neighbors(ctx context.Context, ids []string, dir Direction, types []string, visit func(from int, r Relation)) error
	// Entities returns the entities with the given IDs, in the same order.
	// An ID without an entity makes it return an error wrapping ErrNotFound.
	Entities(ctx context.Context, ids []string) ([]Entity, error)
}

// NeighborhoodReader is implemented by graph backends whose relations
// kgmem's algorithms can read hop by hop. MemoryRetriever's graph channel
// uses it to follow the relations a question asks about with one request
// per hop; pgraph implements it over one read-only transaction. A graph
// that does not implement it gets the same answers, read through
// GetRelated (one call per entity reached) and FindPaths (one call per
// neighbour, for every relation between the two); InMemoryGraph and the
// types that embed it search their own storage directly.
type NeighborhoodReader interface {
	// ReadNeighborhood calls read with a Neighborhood over one consistent
	// view of the graph, valid until read returns, and returns read's
	// error.
	ReadNeighborhood(ctx context.Context, read func(Neighborhood) error) error
}

// TraverseRelated runs GetRelated's traversal over a backend's
// Neighborhood: see KnowledgeGraph.GetRelated for the semantics and errors.
// It asks n for one hop per level of the traversal and, at the end, for the
// entities of the results in one call.
func TraverseRelated(ctx context.Context, n Neighborhood, start string, opts TraverseOptions) ([]ScoredEntity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := prepareTraverse(&opts); err != nil {
		return nil, err
	}
	if err := checkID("start entity", start); err != nil {
		return nil, err
	}
	if _, err := n.Entities(ctx, []string{start}); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, relatedNotFound(start)
		}
		return nil, errmsg.Wrapf(err, "kgmem: related to entity %s", quote.Value(start))
	}
	st := newNeighborStep(n, opts.RelationTypes, opts.AsOf)
	return getRelated(ctx, st, new(traverse.Traversal), st.intern(start), opts)
}

// TraversePaths runs FindPaths' search over a backend's Neighborhood: see
// KnowledgeGraph.FindPaths for the semantics and errors. budget caps the
// relations scanned (each relation Neighbors reports, once for each
// partial path grown from its entity), and with them the partial paths
// built, and the pairs of partial paths joined, as WithPathBudget does for
// InMemoryGraph; 0 or less means the default, 2¹⁹ relations. Relations Neighbors
// reports past the budget, or after ctx is cancelled, are dropped without
// being kept; Neighbors is not interrupted, so the time a backend spends
// reporting them is the backend's to bound.
func TraversePaths(ctx context.Context, n Neighborhood, sourceID, targetID string, opts PathOptions, budget int) (PathResult, error) {
	if err := ctx.Err(); err != nil {
		return PathResult{}, err
	}
	if err := validatePathOptions(&opts); err != nil {
		return PathResult{}, err
	}
	if err := checkPathEnds(sourceID, targetID); err != nil {
		return PathResult{}, err
	}
	for _, end := range [2]struct{ what, id string }{{"source", sourceID}, {"target", targetID}} {
		if _, err := n.Entities(ctx, []string{end.id}); err != nil {
			if errors.Is(err, ErrNotFound) {
				return PathResult{}, pathEndNotFound(end.what, end.id)
			}
			return PathResult{}, errmsg.Wrapf(err, "kgmem: find paths: %s entity %s", end.what, quote.Value(end.id))
		}
	}
	if sourceID == targetID {
		return PathResult{Paths: []Path{{EntityIDs: []string{sourceID}, Score: 1}}}, nil
	}
	if budget <= 0 {
		budget = defaultPathBudget
	}
	st := newNeighborStep(n, opts.RelationTypes, opts.AsOf)
	return searchPaths(ctx, new(traverse.PathSearch), st, st.intern(sourceID), st.intern(targetID), opts, budget)
}

// Clock is implemented by graph backends and Neighborhoods that have their
// own idea of "now" (a fixed clock in tests, see WithClock): the traversal
// algorithms answer a read with a zero AsOf at the time Now returns, and
// at time.Now otherwise.
type Clock interface {
	Now() time.Time
}

// NameFinder is implemented by graphs that can look an entity up by its
// name or an alias without knowing its ID (see DeriveEntityID) and without
// scanning every entity. InMemoryGraph and pgraph.Graph implement it
// through the index entity linking uses; Ingest uses it to find the
// entities an extraction may mean, and falls back to FindByKeywords for a
// graph without it.
type NameFinder interface {
	// FindByName returns every entity whose name or an alias has the same
	// match key as name (keys fold case and width and ignore
	// punctuation between words), once each, ordered by ID. A name
	// without a match key finds nothing; an empty, whitespace-only or
	// invalid name returns an error wrapping ErrInvalidArgument (see
	// ValidateName).
	FindByName(ctx context.Context, name string) ([]Entity, error)
}

// EntityLinker is implemented by graphs that can find the entities a text
// names without scanning every entity. MemoryRetriever uses it when the
// graph offers it and falls back to FindByKeywords otherwise.
type EntityLinker interface {
	LinkEntities(ctx context.Context, text string) ([]EntityMention, error)
}

// LinkWithKeywords links the entities text names using only
// KnowledgeGraph.FindByKeywords, for graphs that do not implement
// EntityLinker. It asks for the entities whose names contain a token of the
// text (see Tokenize), then applies exactly the matching rules of
// InMemoryGraph.LinkEntities to those candidates, so both paths link the
// same entities whenever the candidate search finds them.
func LinkWithKeywords(ctx context.Context, g KnowledgeGraph, text string) ([]EntityMention, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("kgmem: link entities: text %s is not valid UTF-8: %w", quote.Value(text), ErrInvalidArgument)
	}
	units := textrule.SplitUnits(text)
	if len(units) == 0 {
		return nil, ctx.Err()
	}
	keywords := make([]string, 0, len(units))
	for _, u := range units {
		keywords = append(keywords, u.Key)
	}
	candidates, err := g.FindByKeywords(ctx, keywords)
	if err != nil {
		return nil, err
	}
	var x nameindex.Index
	for i := range candidates {
		e := &candidates[i]
		x.Add(e.Name, nameindex.MakeRef(int32(i), false))
		for _, a := range e.Aliases {
			x.Add(a, nameindex.MakeRef(int32(i), true))
		}
	}
	found := x.Match(text, units, func(r nameindex.Ref, surface string) bool {
		e := &candidates[r.Slot()]
		return spells(e.Name, e.Aliases, r.Alias(), surface)
	})
	out := make([]EntityMention, len(found))
	for i, m := range found {
		start, end := units[m.First].Start, units[m.Last].End
		out[i] = EntityMention{
			Entity:  candidates[m.Ref.Slot()],
			Text:    text[start:end],
			Start:   start,
			End:     end,
			Alias:   m.Ref.Alias(),
			Quality: m.Quality,
		}
	}
	sortMentions(out)
	return out, nil
}

// SourceIndex is implemented by graphs that can say which entities cite
// given knowledge pages (Entity.SourceIDs) without scanning every entity.
// MemoryRetriever uses it to seed the graph channel with the entities the
// top content hits mention (see RetrieverConfig.Seed); InMemoryGraph and
// pgraph.Graph implement it.
type SourceIndex interface {
	// EntitiesCitedBy returns, for each page ID of pageIDs, the IDs of the
	// live entities whose SourceIDs hold it, sorted; pages nothing cites
	// are absent from the map. An empty, whitespace-only or invalid page ID
	// returns an error wrapping ErrInvalidArgument. A done ctx returns
	// ctx.Err().
	EntitiesCitedBy(ctx context.Context, pageIDs []string) (map[string][]string, error)
}

// EntityChangeFeed is implemented by graphs that can list the entities
// written since an earlier point, so that a consumer keeping something per
// entity (MemoryRetriever's index of entity vectors, see WithLinkEmbedder)
// refreshes only what changed instead of reading the whole graph on every
// query. InMemoryGraph and pgraph.Graph implement it.
//
// A consumer keeps the Version of each answer and passes it as since next
// time; it applies Changed as "this entity is now so" and Removed as "this
// entity is gone", which is idempotent: a feed may deliver a change more
// than once (pgraph.Graph does while transactions run concurrently with
// the read), never skip one.
type EntityChangeFeed interface {
	// EntityChanges returns what changed since version since (0: since the
	// graph was created, which reports every entity as a Reset). A done
	// ctx returns ctx.Err().
	EntityChanges(ctx context.Context, since uint64) (EntityChanges, error)
}

// SingleValuedDeclarer is implemented by graphs that declare single-valued
// relation types (InMemoryGraph with WithSingleValued); Ingest supersedes
// values of the types it returns, besides those given with
// WithSingleValuedTypes.
type SingleValuedDeclarer interface {
	// SingleValuedTypes returns the declared types, sorted.
	SingleValuedTypes() []string
}

// EntityMerger is implemented by graphs that can merge one entity into
// another as one write: InMemoryGraph (and so DurableGraph and a Memory's
// graph, where the merge is one journal record) and pgraph.Graph (one
// transaction).
type EntityMerger interface {
	// Merge merges the entity from into the entity into; see
	// InMemoryGraph.Merge for the rules every implementation follows.
	Merge(ctx context.Context, from, into string) error
}

// PageGetter is implemented by knowledge stores that can return a page by
// ID. Hybrid retrieval uses it to surface the pages that entities cite
// (InMemoryKnowledgeStore implements it).
type PageGetter interface {
	Get(ctx context.Context, id string) (KnowledgePage, bool, error)
}
