package kgmem

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/kgmem/kgmem/internal/traverse"
)

var errClosed = fmt.Errorf("kgmem: graph: %w", ErrClosed)

// Length limits, in bytes of UTF-8, that every write enforces, in every
// backend: InMemoryGraph, AddBatch, Ingest, the snapshot and journal
// readers, and package pgraph all apply them through the same validation
// ([ValidateEntity], [ValidateRelation]). A value over its limit is
// rejected with an error wrapping [ErrInvalidArgument] that names the
// field and the limit and quotes at most a short prefix of the value; it is
// never truncated silently.
//
// The limits are generous for real use and small enough for every backend
// to index what it must. PostgreSQL refuses a B-tree index entry larger
// than 2,704 bytes: pgraph's relation key (namespace, source, target,
// type) is one such entry, and 2 × MaxIDBytes + MaxTypeBytes plus
// pgraph's namespace limit (128) and the per-column overhead comes to at
// most 2,456. Its GIN index entries (2,712 bytes at most) hold the match
// key of each name and alias, which case folding can make up to 1.5 times
// longer than the name (Ⱥ folds to ⱥ, 2 bytes to 3): MaxNameBytes keeps
// it under 1,536. Tags are short labels, indexed one entry each.
const (
	// MaxIDBytes is the longest entity ID: 1 KiB, room for any URL or
	// path-like identifier a model or a program produces. It also bounds
	// a relation's SourceID and TargetID, which are entity IDs.
	MaxIDBytes = 1024
	// MaxTypeBytes is the longest entity type or relation type: 256
	// bytes; types are vocabulary words such as "works_on".
	MaxTypeBytes = 256
	// MaxNameBytes is the longest entity name and the longest alias:
	// 1 KiB, about 150 English words or 340 CJK characters. Linking only
	// matches names of up to 16 words or CJK characters, so a longer name
	// is stored but never linked.
	MaxNameBytes = 1024
	// MaxTagBytes is the longest tag once normalised (trimmed and
	// lower-cased): 128 bytes.
	MaxTagBytes = 128
)

// Entity is a node of the knowledge graph: a person, project, concept or
// anything else an agent wants to remember facts about.
//
// ID is the identity; every other field is data. Only ID must be set: an
// empty or whitespace-only ID is rejected. Every string must be valid
// UTF-8. ID, Name, Type, each alias and each tag
// have length limits (MaxIDBytes, MaxNameBytes, MaxTypeBytes,
// MaxTagBytes); Description, Properties and SourceIDs have none beyond
// what a snapshot line or a journal record (64 MiB each) can hold.
type Entity struct {
	ID          string            `json:"id"`                    // identity; not blank, at most MaxIDBytes
	Name        string            `json:"name"`                  // display name, used for linking; at most MaxNameBytes
	Type        string            `json:"type,omitempty"`        // kind, such as "person" or "project"; at most MaxTypeBytes
	Description string            `json:"description,omitempty"` // one line about it
	Aliases     []string          `json:"aliases,omitempty"`     // other surface forms, used for linking; each at most MaxNameBytes
	Tags        []string          `json:"tags,omitempty"`        // normalised on write, see SetEntityTags; each at most MaxTagBytes once normalised
	Properties  map[string]string `json:"properties,omitempty"`  // free-form attributes
	SourceIDs   []string          `json:"source_ids,omitempty"`  // knowledge pages that mention it
}

// Relation is a directed, typed, weighted edge from SourceID to TargetID.
//
// A relation is identified by its Key: the graph holds at most one relation
// per (SourceID, TargetID, Type), so two entities may be joined by several
// relations of different types, in either direction. The key's parts have
// length limits (MaxIDBytes, MaxTypeBytes); Properties and SourceIDs have
// none beyond what a snapshot line or a journal record can hold.
//
// SourceID and TargetID may be the same entity: a self-loop ("X cites
// itself", "a process restarts itself") is a fact like any other, stored,
// returned and removed like any other, by every backend and by Ingest.
// GetRelated and FindPaths never return one, since it reaches no entity
// the walk has not seen (the start is never a result, and a simple path
// visits no entity twice); the retriever's walks may follow one.
//
// Weight lies in (0,1]. A zero Weight means "unweighted" and is stored as
// 1, so Relation{SourceID: a, TargetID: b, Type: t} is a full-strength
// fact and GetRelation and Relations return it with Weight 1; there is no
// way to store a weight of 0.
//
// ValidFrom and ValidTo say when the fact held: [ValidFrom, ValidTo), a
// zero end being open. A relation with neither is valid at every instant.
// Reads answer as of an instant (TraverseOptions.AsOf, PathOptions.AsOf),
// by default now, so an ended relation is not walked unless asked for;
// GetRelation and Relations return the stored record whatever its
// validity (see RelationsAsOf and History). ValidTo before ValidFrom, or a
// time outside the years 1 to 9999, is ErrInvalidArgument; times are
// stored in UTC to the microsecond.
type Relation struct {
	SourceID   string            `json:"source_id"`            // the entity the relation starts at; at most MaxIDBytes
	TargetID   string            `json:"target_id"`            // the entity it ends at (may be SourceID); at most MaxIDBytes
	Type       string            `json:"type"`                 // what it says, such as "works_on"; not blank, at most MaxTypeBytes
	Weight     float64           `json:"weight"`               // (0,1], 0 meaning unweighted (stored as 1); the factor a traversal multiplies a path's score by
	Properties map[string]string `json:"properties,omitempty"` // free-form attributes
	SourceIDs  []string          `json:"source_ids,omitempty"` // knowledge pages that state it
	ValidFrom  time.Time         `json:"valid_from,omitzero"`  // when it became true; zero: unknown (see Valid time in the package documentation)
	ValidTo    time.Time         `json:"valid_to,omitzero"`    // when it stopped being true, exclusive; zero: still true
}

// RelationKey identifies a relation. It is a struct rather than a joined
// string because entity IDs commonly contain separators such as ':'.
type RelationKey struct {
	SourceID string `json:"source_id"` // as in Relation
	TargetID string `json:"target_id"`
	Type     string `json:"type"`
}

// Key returns the relation's identity.
func (r Relation) Key() RelationKey {
	return RelationKey{SourceID: r.SourceID, TargetID: r.TargetID, Type: r.Type}
}

// compareKeys orders relation keys by SourceID, TargetID, then Type.
func compareKeys(a, b RelationKey) int {
	switch {
	case a.SourceID != b.SourceID:
		return strings.Compare(a.SourceID, b.SourceID)
	case a.TargetID != b.TargetID:
		return strings.Compare(a.TargetID, b.TargetID)
	default:
		return strings.Compare(a.Type, b.Type)
	}
}

// Direction says which way a traversal may walk a relation.
type Direction uint8

const (
	// Outgoing walks relations from SourceID to TargetID. It is the zero value.
	Outgoing Direction = iota
	// Incoming walks relations from TargetID to SourceID.
	Incoming
	// Both walks every relation either way.
	Both
)

// The searches of internal/traverse take a Direction as a traverse.Dir,
// which has the same values: this fails to compile if they differ.
var _ = [1]struct{}{}[uint8(Outgoing^Direction(traverse.Out))|uint8(Incoming^Direction(traverse.In))|uint8(Both^Direction(traverse.Both))]

// String returns "outgoing", "incoming", "both", or "Direction(n)" for a
// value that is none of them.
func (d Direction) String() string {
	switch d {
	case Outgoing:
		return "outgoing"
	case Incoming:
		return "incoming"
	case Both:
		return "both"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

func (d Direction) valid() bool { return d <= Both }

// ScoredEntity is one result of GetRelated: an entity, the path by which the
// traversal reached it, and the path's score.
type ScoredEntity struct {
	Entity    Entity     // a copy of the entity reached
	Score     float64    // product of weights along Path
	Path      []string   // entity IDs, start first, this entity last
	Relations []Relation // the len(Path)-1 relations walked, in order, as stored
}

// Hops returns the number of relations between the start and the entity.
func (s ScoredEntity) Hops() int { return len(s.Relations) }

// TraverseOptions configures GetRelated. The zero value is a useful
// traversal: the entities one hop away along outgoing relations, of every
// type, with no cap.
type TraverseOptions struct {
	// Depth is the maximum number of relations between the start and a
	// result. 0 means 1 (the direct neighbours); negative is
	// ErrInvalidArgument.
	Depth int
	// Direction is the way relations are walked; the zero value is
	// Outgoing. GetRelated and FindPaths follow relations the way they are
	// stated unless asked otherwise, because Direction's zero value is
	// Outgoing and a walk against the arrows ("who works on X?" from X)
	// is a different question. MemoryRetriever's graph channel walks Both
	// by default instead: a question may name either end of a relation,
	// and the words of the question, not the zero value, decide the
	// direction of each hop.
	Direction Direction
	// RelationTypes restricts the walk to relations of these types; nil or
	// empty walks every type. An empty or whitespace-only string in the
	// list is ErrInvalidArgument.
	RelationTypes []string
	// MaxNodesPerHop keeps, at each hop, only the best N newly reached
	// entities (score descending, then ID ascending); an entity cut this way
	// counts as visited and never appears at a deeper hop. 0 means no cap;
	// negative is ErrInvalidArgument.
	MaxNodesPerHop int
	// Limit cuts the ordered result to its first Limit entries. 0 means no
	// cap; negative is ErrInvalidArgument.
	Limit int
	// AsOf is the instant the walk is answered at: only relations valid
	// then are walked. The zero value is now, by the graph's clock;
	// AllTime walks every relation, ended ones included.
	AsOf AsOf
}

// Path is one way from a source entity to a target entity.
type Path struct {
	EntityIDs []string   // source first, target last
	Relations []Relation // the len(EntityIDs)-1 relations walked, in order, as stored
	Score     float64    // product of the relations' weights; 1 for a zero-hop path
}

// Hops returns the number of relations on the path.
func (p Path) Hops() int { return len(p.Relations) }

// PathOptions configures FindPaths. The zero value is a useful search: the
// 3 best paths of up to 4 relations, walking relations from source towards
// target the way they are stated (Outgoing; see TraverseOptions.Direction
// for why), over every type.
type PathOptions struct {
	// MaxHops is the longest path considered, in relations. 0 means 4;
	// negative is ErrInvalidArgument. Whatever MaxHops, a search from an
	// entity to itself returns the one zero-hop path.
	MaxHops int
	// Direction is the way relations may be walked from source towards
	// target; the zero value is Outgoing, and Both walks each relation
	// either way.
	Direction Direction
	// RelationTypes restricts paths to relations of these types; nil or
	// empty allows every type. An empty or whitespace-only string in the
	// list is ErrInvalidArgument.
	RelationTypes []string
	// MaxPaths is how many paths to return, best first. 0 means 3; negative
	// is ErrInvalidArgument.
	MaxPaths int
	// MaxNodesPerHop caps how many entities each side of the search expands
	// per hop, best partial scores first. 0 means no cap; negative is
	// ErrInvalidArgument. When the cap cuts the search, PathResult.Truncated
	// is set.
	MaxNodesPerHop int
	// AsOf is the instant the paths are answered at, as in
	// TraverseOptions: the zero value is now, so a path never crosses a
	// relation that has ended unless AllTime is asked for.
	AsOf AsOf
}

// PathResult is the answer of FindPaths.
type PathResult struct {
	Paths []Path // best first: score descending, then fewer hops, then entity IDs, then relation keys
	// Truncated reports that a fan-out cap or the path budget stopped
	// the search early: the paths are exact among those explored, but better
	// ones may exist beyond the cut.
	Truncated bool
}

// TagConstraints limits the tags an entity may carry.
type TagConstraints struct {
	// MaxTagsPerEntity is how many normalised tags an entity keeps; tags
	// past it are dropped. 0 means the default, 8; a negative value is
	// invalid.
	MaxTagsPerEntity int
}

func (c TagConstraints) withDefaults() TagConstraints {
	if c.MaxTagsPerEntity <= 0 {
		c.MaxTagsPerEntity = textrule.MaxTagsPerEntity
	}
	return c
}

// KnowledgeGraph is the contract every kgmem graph backend fulfils. The
// conformance suite in package kgmemtest checks an implementation against it.
//
// Every method returns ctx.Err() when ctx is already cancelled, and writes
// then leave the graph unchanged. A write that returns an error leaves the
// graph exactly as it was. Values returned are the caller's: mutating them
// changes nothing inside the graph.
//
// Every method that takes an entity ID (or a relation's endpoints) treats
// it the same way: an empty or whitespace-only ID, or one that is not valid
// UTF-8, returns an error wrapping ErrInvalidArgument, from reads as from
// writes. Writes and removals also reject an ID longer than MaxIDBytes;
// reads answer it as they answer any ID no entity has.
//
// Optional capabilities are exported interfaces a backend may implement
// beside this one: NameFinder (lookup by name or alias), EntityLinker
// (entities a text names) and NeighborhoodReader (hop-by-hop reads).
type KnowledgeGraph interface {
	// AddEntity inserts e, or replaces the entity with e.ID keeping its
	// relations. Tags are normalised as in SetEntityTags. An empty or
	// whitespace-only e.ID, a string that is not valid UTF-8 or a value
	// longer than its limit (MaxIDBytes, MaxNameBytes, MaxTypeBytes,
	// MaxTagBytes) returns ErrInvalidArgument.
	AddEntity(ctx context.Context, e Entity) error

	// GetEntity returns the entity with the given ID; ok is false when
	// there is none (that is not an error). An empty, whitespace-only or
	// invalid id returns ErrInvalidArgument.
	GetEntity(ctx context.Context, id string) (e Entity, ok bool, err error)

	// RemoveEntity deletes the entity, every relation that starts or ends
	// at it, and its tag index entries. An unknown id returns ErrNotFound;
	// an empty, whitespace-only, invalid or over-long one (see MaxIDBytes)
	// ErrInvalidArgument.
	RemoveEntity(ctx context.Context, id string) error

	// AddRelation inserts r, or replaces the stored relation with the same
	// Key (weight, properties, sources). A zero Weight is stored as 1
	// (unweighted), and SourceID may equal TargetID (a self-loop). An empty
	// or whitespace-only endpoint or type, an endpoint longer than
	// MaxIDBytes or a type longer than MaxTypeBytes, invalid UTF-8 or a
	// weight that is NaN, infinite or outside [0,1] returns
	// ErrInvalidArgument; an endpoint that is not an entity returns
	// ErrNotFound.
	AddRelation(ctx context.Context, r Relation) error

	// RemoveRelation deletes the relation with the given key; ErrNotFound
	// when there is none, ErrInvalidArgument when a part of the key is
	// empty, whitespace-only, invalid or longer than its limit.
	RemoveRelation(ctx context.Context, sourceID, targetID, relationType string) error

	// GetRelated walks the graph breadth-first from id and returns each
	// entity reached within opts.Depth hops (0 means 1) once, at its
	// fewest-hop distance, with the best-scoring path of that length
	// (score: product of weights; ties: the lexicographically smallest
	// path, compared ID by ID, then the smallest relation key). The start
	// is never in the result. Results are ordered by score descending,
	// then hops ascending, then ID ascending, and cut to opts.Limit. An
	// unknown id returns ErrNotFound; an empty, whitespace-only or invalid
	// one and invalid options return ErrInvalidArgument. A cancelled ctx
	// returns ctx.Err() rather than a result; it is checked throughout a
	// long traversal, not only between hops.
	GetRelated(ctx context.Context, id string, opts TraverseOptions) ([]ScoredEntity, error)

	// FindPaths returns the opts.MaxPaths (0 means 3) best simple paths (no
	// entity twice) of at most opts.MaxHops (0 means 4) relations from
	// sourceID to targetID. Unknown endpoints return ErrNotFound; empty,
	// whitespace-only or invalid ones ErrInvalidArgument; no path returns
	// ErrNoPath; sourceID == targetID returns one zero-hop path of score 1.
	// A cancelled ctx returns ctx.Err() rather than a result.
	FindPaths(ctx context.Context, sourceID, targetID string, opts PathOptions) (PathResult, error)

	// FindByKeywords returns the entities whose name, an alias, ID or a tag
	// contains any of the keywords, compared with Unicode case folding;
	// entities matching more keywords come first, then by ID. No (non-empty)
	// keywords returns an empty result.
	FindByKeywords(ctx context.Context, keywords []string) ([]Entity, error)

	// FindTags returns, sorted, every tag in use that starts with prefix
	// (lower-cased first). An empty prefix returns every tag.
	FindTags(ctx context.Context, prefix string) ([]string, error)

	// SetEntityTags replaces the entity's tags with tags after normalising
	// them (trimmed, lower-cased, de-duplicated in order, empties dropped,
	// cut to MaxTagsPerEntity) and returns how many it kept. An unknown id
	// returns ErrNotFound; an empty, whitespace-only or invalid id, or a
	// tag that is not valid UTF-8 or is longer than MaxTagBytes once
	// normalised, returns ErrInvalidArgument.
	SetEntityTags(ctx context.Context, id string, tags []string) (int, error)

	// EntityCountByTag returns how many entities carry tag (normalised
	// first); 0 for a tag nobody has.
	EntityCountByTag(ctx context.Context, tag string) (int, error)

	// TagConstraints returns the limits tags are normalised with.
	TagConstraints() TagConstraints
}
