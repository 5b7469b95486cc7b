package kgmem

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// Ingest defaults and markers.
const (
	// defaultIngestWeight is the weight Ingest gives a new relation whose
	// extraction states none: the model asserted it without qualification,
	// so a traversal does not discount it. WithDefaultWeight changes it.
	defaultIngestWeight = 1.0
	// defaultEntityType is the type Ingest gives an extracted entity
	// that has none, and the type part of its derived ID.
	defaultEntityType = "entity"
	// PlaceholderProperty is the property that marks an entity Ingest
	// created, under WithPlaceholders, for a relation endpoint the
	// extraction did not list; its value is "true". An extracted entity
	// that later resolves to a placeholder clears the mark.
	PlaceholderProperty = "kgmem:placeholder"
)

// SkippedKind says what a SkippedItem is: an extracted entity or an
// extracted relation. It prints as "entity" or "relation".
type SkippedKind string

// Kinds of SkippedItem.
const (
	// SkippedEntity is the Kind of a skipped extracted entity.
	SkippedEntity SkippedKind = "entity"
	// SkippedRelation is the Kind of a skipped extracted relation.
	SkippedRelation SkippedKind = "relation"
)

// WeightPolicy says what Ingest does with a relation weight above 1.
// Relation weights lie in (0,1]; a weight of 0 or less (or NaN) is never
// written, whatever the policy: the relation is skipped and reported.
type WeightPolicy uint8

const (
	// WeightClamp writes a weight above 1 as 1 (so 8 and "800%" become 1)
	// and counts it in IngestReport.WeightsClamped. It is the default.
	WeightClamp WeightPolicy = iota
	// WeightReject skips a relation whose weight is above 1 (or, with
	// WithStrict, fails the call).
	WeightReject
)

// String returns "clamp", "reject", or "WeightPolicy(n)".
func (p WeightPolicy) String() string {
	switch p {
	case WeightClamp:
		return "clamp"
	case WeightReject:
		return "reject"
	}
	return fmt.Sprintf("WeightPolicy(%d)", uint8(p))
}

// IngestOption configures one Ingest call.
type IngestOption interface {
	applyIngest(*ingestConfig)
}

type ingestConfig struct {
	source        string
	sourceSet     bool
	strict        bool
	exact         bool // WithExactNames
	replace       bool
	placeholders  bool
	localIDs      bool
	policy        WeightPolicy
	defaultWeight float64
	singleValued  []string // WithSingleValuedTypes, normalised

	// commit, when set, writes the plan instead of the graph's AddBatch
	// (Memory.Ingest, which journals the page with it).
	commit func(ctx context.Context, entities []Entity, relations []Relation) error
	err    error // an option that cannot be applied
}

// fail records the first option that cannot be applied.
func (c *ingestConfig) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("kgmem: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
}

type ingestOptionFunc func(*ingestConfig)

func (f ingestOptionFunc) applyIngest(c *ingestConfig) { f(c) }

// WithSource records pageID, the knowledge page the extraction came from,
// in the SourceIDs of every entity and relation the call writes, so that
// retrieval can surface the page and InMemoryGraph.RemoveSource can forget
// it. An empty or invalid pageID makes Ingest return ErrInvalidArgument.
func WithSource(pageID string) IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.source, c.sourceSet = pageID, true })
}

// WithStrict makes Ingest all or nothing at the level of the extraction:
// when any entity or relation would be skipped, it writes nothing and
// returns an error wrapping ErrInvalidArgument that lists every problem.
// Without it, Ingest writes everything valid and reports the rest in
// IngestReport.Skipped.
func WithStrict() IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.strict = true })
}

// WithExactNames turns off Ingest's drift rules (see Surface-form drift
// under Ingest): names and aliases then match only when equal after case
// folding and white space, an entity only one of the same type (or a
// placeholder), and relation types are stored as written, case-folded and
// with '_' for white space ("WorksAt" stays "worksat", apart from
// "works_at"). Use it when the extraction's types and spellings are
// curated and two forms that look alike are two things.
func WithExactNames() IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.exact = true })
}

// WithReplace makes Ingest write each resolved entity and relation as the
// extraction states it, replacing what the graph held under the same ID or
// key, instead of merging into it. Resolution is unchanged (a replaced
// entity keeps its ID), entities the same extraction names twice are still
// merged with each other, and an entity's relations are kept.
func WithReplace() IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.replace = true })
}

// WithPlaceholders makes Ingest create an entity for a relation endpoint
// that resolves to nothing, instead of skipping the relation. The
// placeholder is named by the reference and typed by it when the reference
// has the form "type:name" or the relation states the endpoint's type
// (otherwise "entity"); its ID is derived as for any entity and
// it carries PlaceholderProperty = "true".
func WithPlaceholders() IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.placeholders = true })
}

// WithWeightPolicy sets what happens to weights above 1; the default is
// WeightClamp. A weight of 0 or less, or NaN, is always skipped (or fails a
// strict call): relation weights lie in (0,1], and a zero Weight would be
// stored as 1, unweighted, the opposite of what a model stating 0 means.
func WithWeightPolicy(p WeightPolicy) IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.policy = p })
}

// WithDefaultWeight sets the weight of new relations whose extraction
// states none; the default is 1 (unweighted). It must
// lie in (0,1]. An existing relation keeps its weight when the extraction
// states none.
func WithDefaultWeight(w float64) IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.defaultWeight = w })
}

// WithLocalIDs treats the IDs an extraction gives its entities as labels
// local to the extraction, as models that number their entities "e1",
// "e2" use them: they connect relations to entities, but every entity is
// resolved by name and written under its derived ID (see DeriveEntityID),
// so that the "e1" of one response never merges with the "e1" of another.
func WithLocalIDs() IngestOption {
	return ingestOptionFunc(func(c *ingestConfig) { c.localIDs = true })
}

// IngestReport says what Ingest did. Counts of written items describe what
// reached the graph: on a write error they count only what was written
// before it. An entity or relation the graph held counts as merged or
// updated only when the write changes it; one the extraction adds nothing
// to is not written and counts as unchanged, so ingesting the same
// extraction twice reports no write the second time.
type IngestReport struct {
	// EntitiesCreated counts extracted entities written as new entities.
	EntitiesCreated int
	// EntitiesMerged counts entities the graph held that extracted
	// entities resolved to and changed: merged into (or, with WithReplace,
	// replaced) and written back different. Each such entity counts once,
	// however many extracted entities resolved to it.
	EntitiesMerged int
	// EntitiesUnchanged counts entities the graph held that extracted
	// entities resolved to without changing anything in them; they are
	// not written.
	EntitiesUnchanged int
	// EntitiesDeduplicated counts extracted entities that resolved to an
	// entity an earlier item of the same extraction had already resolved
	// to, and were merged into it.
	EntitiesDeduplicated int
	// EntitiesSkipped counts extracted entities not written; Skipped says
	// why.
	EntitiesSkipped int
	// RelationsCreated counts relations written under a new key.
	RelationsCreated int
	// RelationsUpdated counts relations written under a key the graph
	// held, changing its weight, properties or sources.
	RelationsUpdated int
	// RelationsUnchanged counts extracted relations whose key the graph
	// held and which add nothing to the stored relation; they are not
	// written.
	RelationsUnchanged int
	// RelationsDeduplicated counts extracted relations that resolved to the
	// key of an earlier relation of the same extraction and were merged
	// into it.
	RelationsDeduplicated int
	// RelationsSkipped counts extracted relations not written; Skipped
	// says why.
	RelationsSkipped int
	// PlaceholdersCreated counts entities created by WithPlaceholders
	// (they are not in EntitiesCreated).
	PlaceholdersCreated int
	// WeightsClamped counts weights above 1 that WeightClamp moved to 1.
	WeightsClamped int
	// EntityIDs[i] is the ID extracted entity i resolved to, "" when it
	// was skipped.
	EntityIDs []string
	// Skipped lists what was not written and why: entities first, then
	// relations, each by index.
	Skipped []SkippedItem
	// Ended lists the relations whose end single-valued supersession
	// moved earlier (see Supersession under Ingest), as written, with their
	// new ValidTo, in write order: held values that a value of the
	// extraction starts inside, and values of the extraction that another
	// of its values ends. A value of the extraction that ends where a
	// value the graph held begins (an older fact arriving late) is not
	// listed: it ends nothing and goes into the history. Listed relations
	// are also counted in RelationsUpdated (or RelationsCreated, for a
	// value the same extraction added). Only written relations are listed.
	Ended []Relation
	// Unified lists what the drift rules read as another form of something
	// held (see Surface-form drift under Ingest): extracted entities and
	// relation endpoints resolved to an entity of another type or under a
	// name that differs only in punctuation or accents, and relation types
	// stored in another spelling than written (once per spelling), entities first,
	// then relations, each by index. It is empty with WithExactNames.
	Unified []UnifiedItem
}

// UnifiedItem is an extracted entity, relation endpoint or relation type
// that Ingest's drift rules resolved to another form.
type UnifiedItem struct {
	Kind   SkippedKind // SkippedEntity or SkippedRelation
	Index  int         // position in Extraction.Entities or Extraction.Relations
	Ref    string      // the name or relation type as written
	Into   string      // the entity ID, or the relation type, it was stored as
	Reason string      // human-readable, such as `type "human" read as the type "person" of person:tom`
}

// String renders the item as `entity 1 ("Tom") into person:tom: type
// "human" read as "person"`.
func (u UnifiedItem) String() string {
	return fmt.Sprintf("%s %d (%s) into %s: %s", u.Kind, u.Index, quote.Value(u.Ref), u.Into, u.Reason)
}

// SkippedItem is an extracted entity or relation that Ingest did not
// write.
type SkippedItem struct {
	Kind   SkippedKind // SkippedEntity or SkippedRelation
	Index  int         // position in Extraction.Entities or Extraction.Relations
	Ref    string      // the entity's name or ID, or the relation reference at fault
	Reason string      // human-readable, such as `target "Raft" names no entity`
}

// String renders the item as `relation 3 ("Raft"): target "Raft" names no
// entity`.
func (s SkippedItem) String() string {
	return fmt.Sprintf("%s %d (%s): %s", s.Kind, s.Index, quote.Value(s.Ref), s.Reason)
}

// ingestBatcher is implemented by graphs that can apply a batch of writes
// all or nothing, as InMemoryGraph.AddBatch does.
type ingestBatcher interface {
	AddBatch(ctx context.Context, entities []Entity, relations []Relation) error
}

// ingestLocks serialise the Ingest calls into one graph, from their first
// read to their last write.
var ingestLocks keyedLocks

// keyedLocks holds one mutex per key while some caller holds or waits for
// it, and none once all are done, so it grows with the callers, not with
// the keys ever used.
type keyedLocks struct {
	mu    sync.Mutex
	locks map[any]*keyedLock
}

type keyedLock struct {
	sync.Mutex
	users int // holders and waiters
}

// lock locks the mutex of key and returns its unlock.
func (k *keyedLocks) lock(key any) (unlock func()) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = make(map[any]*keyedLock)
	}
	l := k.locks[key]
	if l == nil {
		l = new(keyedLock)
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

// memGraph is implemented by InMemoryGraph and so by every type that
// embeds it: it returns the graph that holds the data.
type memGraph interface{ inMemory() *InMemoryGraph }

func (g *InMemoryGraph) inMemory() *InMemoryGraph { return g }

// ingestKey returns what identifies g's data among the graphs of the
// process: the InMemoryGraph behind it, or g itself when it is comparable
// (a pointer, or a wrapper holding one), or, for the rare graph value that
// is not, its type, so that such graphs share one turn.
func ingestKey(g KnowledgeGraph) any {
	if m, ok := g.(memGraph); ok {
		return m.inMemory()
	}
	if v := reflect.ValueOf(g); v.Comparable() {
		return g
	}
	return reflect.TypeOf(g)
}

// ingestRelationGetter is implemented by graphs that can return a relation
// by key, as InMemoryGraph.GetRelation does.
type ingestRelationGetter interface {
	GetRelation(ctx context.Context, sourceID, targetID, relationType string) (Relation, bool, error)
}

// relationType is the stored form of an extracted relation type: see
// textrule.RelationTypeKey and WithExactNames.
func (c *ingestConfig) relationType(s string) string {
	if c.exact {
		return textrule.TypeKey(s)
	}
	return textrule.RelationTypeKey(s)
}

// entityTypeKey is textrule.TypeKey with defaultEntityType for an empty type.
func entityTypeKey(s string) string {
	if t := textrule.TypeKey(s); t != "" {
		return t
	}
	return defaultEntityType
}

// DeriveEntityID returns the ID Ingest gives an entity that has none:
// "type:name", both normalised the same way: trimmed, full-width ASCII
// forms narrowed to ASCII, case-folded (Unicode simple folding, so "Zhang"
// and "ZHANG" agree and scripts without case are unchanged), and every run
// of white space inside replaced by one '_'. An empty type is
// "entity". No other Unicode normalisation (such as NFC) is
// applied. The result is stable: it depends on the two strings alone.
// An empty name (after trimming) returns "".
//
//	DeriveEntityID("Person", "  Zhang   San ") == "person:zhang_san"
//	DeriveEntityID("person", "张三")            == "person:张三"
//	DeriveEntityID("", "Project Apollo")       == "entity:project_apollo"
func DeriveEntityID(typ, name string) string {
	n := textrule.Surface(name, '_')
	if n == "" {
		return ""
	}
	return entityTypeKey(typ) + ":" + n
}

// splitTypedRef splits a reference of the form "type:name", where type is
// a run of letters, digits, '_' or '-' and name is not empty (and does not
// start with '/', as URLs do).
func splitTypedRef(ref string) (typ, name string, ok bool) {
	i := strings.IndexByte(ref, ':')
	if i <= 0 || i > 64 {
		return "", "", false
	}
	typ, name = ref[:i], strings.TrimSpace(ref[i+1:])
	if name == "" || name[0] == '/' {
		return "", "", false
	}
	for _, r := range typ {
		if !(r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return "", "", false
		}
	}
	return typ, name, true
}

// ingestName is an entry of the planner's name index.
type ingestName struct {
	id    string
	alias bool
}

// ingestWrite says why an entity or relation is written.
type ingestWrite uint8

const (
	writeNone        ingestWrite = iota // known, not written
	writeCreated                        // new to the graph
	writeMerged                         // the graph held it
	writePlaceholder                    // created for a missing endpoint
)

// ingestEntity is an entity the planner knows: one the graph held (loaded
// because the extraction might mean it) or one the call will write.
type ingestEntity struct {
	e        Entity
	orig     Entity      // when inGraph, the entity as the graph held it, sharing nothing with e
	inGraph  bool        // the graph held it before the call
	write    ingestWrite // writeNone until the call decides to write it
	replaced bool        // WithReplace has reset it to the extraction's account
	merged   *mergeState // nil until the first merge into e, and after e is reset
}

// mergeState lets each merge into an entity cost what it adds, not what
// the entity already holds: the 2,000th mention of an entity with 20 new
// aliases each is as cheap as the first.
type mergeState struct {
	name      string              // e.Name when the state was built; a new name rebuilds it
	typ       string              // entityTypeKey(e.Type) under which its names are filed
	keys      map[string]struct{} // nameKey of the name and of every alias
	tags      uniqueStrings       // e.Tags
	sources   uniqueStrings       // e.SourceIDs
	descRunes int                 // rune count of e.Description
}

// ingestRelation is a relation the call will write.
type ingestRelation struct {
	r     Relation
	orig  Relation    // when write is writeMerged, the relation as the graph held it
	write ingestWrite // writeCreated or writeMerged
	// sources is r.SourceIDs as a set, built by the first merge.
	sources *uniqueStrings
	// ownProps reports that r.Properties is a map made by the planner,
	// which merges change in place.
	ownProps bool
}

// ingestInput is an extracted entity after validation and normalisation.
type ingestInput struct {
	e          Entity // Name, Type (normalised), Description, Aliases, Tags, Properties, SourceIDs
	explicitID string // the ID the extraction gave, trimmed
	ref        string // the name, else the ID, as given: for SkippedItem.Ref
	typeGiven  bool   // the extraction gave a type
	skip       string // why it is skipped, "" when valid
}

// ingestPlanner computes every write of one Ingest call before any is
// made.
type ingestPlanner struct {
	ctx   context.Context
	g     KnowledgeGraph
	cfg   ingestConfig
	known map[string]*ingestEntity
	// names files every known entity under nameKey of its name and of
	// each alias, prefixed by "t\x00<type>\x00" (typed) and "n\x00" (any
	// type), and placeholders also by "p\x00", so that looking for a
	// placeholder of a name does not walk every entity bearing it.
	names    map[string][]ingestName
	local    map[string]string // extraction IDs → resolved IDs
	order    []string          // IDs of entities to write, in write order
	rels     map[RelationKey]*ingestRelation
	relOrder []RelationKey
	// refMemo remembers how relation references resolved by name, keyed
	// by reference and stated type (see resolveRef).
	refMemo map[[2]string]refResolution
	// respelled holds the relation types (typeKey) this call stored in
	// another spelling, reported once each in IngestReport.Unified.
	respelled map[string]bool
	// graphRels caches the relations the graph holds from one entity
	// with one type, for graphs without ingestRelationGetter.
	graphRels map[[2]string]map[string]Relation
	report    IngestReport
	now       time.Time            // the instant the call takes as now (see ingestNow)
	endedKeys map[RelationKey]bool // relations supersession ended
}

// Ingest writes an extraction into g: it resolves every extracted entity to
// the entity it means, merges what the extraction says into it, resolves
// relation endpoints the same way, and writes the result.
//
// # IDs and resolution
//
// An extracted entity without an ID gets DeriveEntityID(Type, Name); one
// without a type gets the type "entity", and one without a name is named by
// its ID. Types, of entities and relations, are stored normalised as in
// DeriveEntityID ("Works On" becomes "works_on"). Names and aliases are
// compared after the same normalisation, with white space kept as one
// space, so "Zhang  San" and "zhang san" are one name.
//
// Each extracted entity resolves, in order: to the entity with its ID (the
// graph's or one this extraction already wrote; with WithLocalIDs, only to
// the entity an earlier item of the extraction gave that ID); to the entity
// with its derived ID; to the entity of the same type that has its name or
// one of its aliases as name or alias (a name-to-name match beats one
// involving an alias, and name-to-alias beats alias-to-alias); to a
// placeholder of any type so named; and otherwise to a new entity, under
// its own ID or else the derived one. The graph and the entities this
// extraction has already resolved are searched alike, so two spellings of
// one person in one extraction, one listing the other as an alias, become
// one entity. Candidates come from the graph's NameFinder when it
// implements one (InMemoryGraph and pgraph.Graph do), one FindByName call
// per distinct name, and from FindByKeywords otherwise (and for names
// without a match key); the comparison itself is exact on the normalised
// forms. An entity that matches several entities equally well is skipped
// as ambiguous.
//
// A relation endpoint resolves: to the entity the extraction gave that ID;
// to the entity with that ID; for "type:name" or an endpoint with a stated
// type, to the derived ID and then to a name or alias match within that
// type; and then to a name or alias match of any type, preferring entities
// this extraction lists and then names over aliases. An endpoint that
// resolves to nothing is skipped (see WithPlaceholders), and so is one that
// resolves to several entities and a relation with no type. A relation
// whose two ends resolve to one entity is written as a self-loop, as
// AddRelation writes one.
//
// # Surface-form drift
//
// A model names one thing several ways, so by default (not with
// WithExactNames) the resolution above also reads as one, each rule only
// when the ones before found nothing and only when exactly one entity
// matches: a name that differs only in case, punctuation, spacing or the
// accents of Latin letters, by its match key ("ACME Corp." and "Acme Corp",
// "Akinoshū Kenji" and "Akinoshu Kenji"); a type of the same family ("Tom"
// as person, human or PER; organisation, location, work, time and event
// likewise); and an untyped mention of a typed entity. Relation types are
// stored by their words (WorksAt, works-at and "works at" are all
// works_at). IngestReport.Unified lists every such reading. A graph
// without a NameFinder gives Ingest its candidates by keyword, a substring
// match, which misses some of these forms: an accent variant, for one, is
// found only through a NameFinder.
//
// # Merging
//
// Writing an entity that resolved to one already held (unless WithReplace)
// merges into it: the name is kept unless empty, and a different incoming
// name becomes an alias; the type is kept unless empty (a placeholder takes
// the stated type); the longer description is kept (by runes, the existing
// one on a tie); aliases, tags and source IDs become the union, existing
// ones first, then new ones, without duplicates (aliases compared
// normalised, tags as the graph normalises them, sources exactly);
// properties are overwritten key by key. A relation whose key the graph
// held keeps its weight unless the extraction states one, has its
// properties overwritten key by key and its source IDs united the same way.
// An entity or relation the merge leaves as the graph held it is not
// written (IngestReport.EntitiesUnchanged, RelationsUnchanged), so
// ingesting the same extraction twice writes nothing the second time.
//
// # Valid time
//
// A relation's ValidFrom and ValidTo (see ExtractedRelation) are stored as
// stated. Merging into a held relation extends it back to a stated start
// that is earlier than the held one (or where the held start is unknown)
// and keeps the held start otherwise, since the fact already held then;
// a stated end replaces the held one; a bound the extraction does not
// state is kept. So restating a fact without dates, or with a later start
// inside its interval, changes nothing, whichever statement comes first.
// A stated start at or after the held relation's end is a new stint: it
// replaces the held interval, since a key holds one interval. An interval
// that ends before the held one begins is an earlier stint and is skipped
// (reported in Skipped). Ended ends the relation at the time of the call
// (the graph's clock, see Clock) unless ValidTo says when. With
// WithReplace the extraction's interval is taken as stated.
//
// # Supersession
//
// A relation type declared single-valued (WithSingleValuedTypes, or the
// graph's WithSingleValued) holds one value per source at each instant:
// where Alice lives. When the extraction writes a value of such a type for
// a source, Ingest reads every value the source has of that type, ended
// ones included, and settles their timeline deterministically, with no
// model, so that no two of them are valid at the same instant:
//   - a new value without a start, beside other values, is taken as news
//     and starts now (its start stays unknown when it states an end no
//     later than now);
//   - every value ends no later than the next value starts: a value that
//     starts inside a held stint, new or an older fact arriving late, ends
//     that stint at its start, instead of deleting it or keeping a second
//     truth, and itself ends where the next stint begins, whatever end it
//     states; IngestReport.Ended lists what was ended;
//   - of values that start at the same instant, the one ingested last
//     (within one extraction, the last listed) holds, and the others keep
//     an empty interval, valid at no instant;
//   - values with an unknown start come before every dated one, ordered by
//     end, and each after the first starts where the one before it ends.
//
// So dated facts about different values with different starts leave the
// same timeline whatever order they are ingested in, one extraction each
// or together: the one chronological ingestion leaves. Values the source
// held from before the type was declared are settled too. Re-ingesting
// the same facts changes nothing and writes nothing, and a value stated
// again merges into the one held (see Valid time). To record a move back
// to an earlier value, state its new start. Nothing is deleted. Values
// are compared per source and type.
//
// # Weights
//
// A relation without a weight gets 1, unweighted (see
// WithDefaultWeight): a missing weight means what a zero Relation.Weight
// means to the graph. A weight above 1 is clamped or the relation skipped,
// per WithWeightPolicy; a weight of 0 or less, or NaN, is always skipped,
// since the graph would store 0 as 1.
//
// # Atomicity
//
// Ingest reads what it needs from g, computes every write, and then
// writes. With WithStrict, any problem means no write at all. A graph that
// has AddBatch (InMemoryGraph) receives everything in one all-or-nothing
// call. Any other graph receives AddEntity calls, then AddRelation calls,
// in order; an error from it midway leaves the earlier writes applied,
// and the report then counts only those.
//
// # Concurrency
//
// Ingest is safe for concurrent use, and concurrent calls into one graph
// lose nothing: each plans from what the calls before it wrote, so sixteen
// calls that each add an alias to "Alice" leave her with all sixteen. The
// calls of one process into one graph take turns between their first read
// and their last write. The graph is told by the value passed: equal
// values (one pointer, or copies of one wrapper) are one graph, and so are
// a DurableGraph, or any type embedding an InMemoryGraph, and that
// InMemoryGraph; pass the same value from every caller. What other callers
// write directly, with AddEntity and the others, between a call's reads
// and its writes is replaced by that call's merge, as any upsert replaces;
// Ingest calls from several processes into one shared backend take turns
// only if the backend makes them.
//
// # Limits
//
// An extracted entity whose name, an alias, its type or a tag (normalised)
// is longer than MaxNameBytes, MaxTypeBytes or MaxTagBytes, or whose ID
// (given or derived) is longer than MaxIDBytes, is skipped and reported,
// as is a relation whose type is longer than MaxTypeBytes or whose
// placeholder would break one of these limits; nothing is truncated.
//
// # Errors
//
// A nil graph, an invalid option value or an extraction larger than
// MaxExtractedEntities or MaxExtractedRelations returns ErrInvalidArgument;
// so does a strict call with problems, whose report then lists them in
// Skipped and counts nothing written. Errors from g are returned wrapped;
// a cancelled ctx returns ctx.Err().
//
// Cost: a few lookups in g per extracted entity and relation endpoint,
// then one batch (or one call per item) of writes. Planning the writes
// takes time linear in the size of the extraction, however often it names
// the same entity and however many aliases, tags or sources each mention
// adds: merging a mention costs what the mention holds, not what the
// entity has gathered.
func Ingest(ctx context.Context, g KnowledgeGraph, x Extraction, opts ...IngestOption) (IngestReport, error) {
	cfg := ingestConfig{policy: WeightClamp, defaultWeight: defaultIngestWeight}
	for i, o := range opts {
		if o == nil {
			cfg.fail("ingest: option %d is nil", i)
			continue
		}
		o.applyIngest(&cfg)
	}
	if err := ctx.Err(); err != nil {
		return IngestReport{}, err
	}
	if cfg.err != nil {
		return IngestReport{}, cfg.err
	}
	if err := validateIngest(g, &x, &cfg); err != nil {
		return IngestReport{}, err
	}
	defer ingestLocks.lock(ingestKey(g))()
	p := &ingestPlanner{
		ctx:   ctx,
		g:     g,
		cfg:   cfg,
		known: make(map[string]*ingestEntity),
		names: make(map[string][]ingestName),
		local: make(map[string]string),
		rels:  make(map[RelationKey]*ingestRelation),
		now:   ingestNow(g),
	}
	inputs := p.normalizeEntities(x.Entities)
	if err := p.prefetch(inputs, x.Relations); err != nil {
		return IngestReport{}, p.wrapErr(err)
	}
	p.planEntities(inputs)
	if err := p.planRelations(x.Relations); err != nil {
		return IngestReport{}, p.wrapErr(err)
	}
	if err := p.supersede(); err != nil {
		return IngestReport{}, p.wrapErr(err)
	}
	slices.SortStableFunc(p.report.Skipped, func(a, b SkippedItem) int {
		if a.Kind != b.Kind {
			if a.Kind == SkippedEntity {
				return -1
			}
			return 1
		}
		return a.Index - b.Index
	})
	if cfg.strict && len(p.report.Skipped) > 0 {
		return p.strictFailure()
	}
	return p.apply()
}

// validateIngest checks the arguments of Ingest.
func validateIngest(g KnowledgeGraph, x *Extraction, cfg *ingestConfig) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("kgmem: ingest: "+format+": %w", append(args, ErrInvalidArgument)...)
	}
	switch {
	case g == nil:
		return bad("nil graph")
	case len(x.Entities) > MaxExtractedEntities:
		return bad("%d entities exceed the limit of %d", len(x.Entities), MaxExtractedEntities)
	case len(x.Relations) > MaxExtractedRelations:
		return bad("%d relations exceed the limit of %d", len(x.Relations), MaxExtractedRelations)
	case cfg.policy > WeightReject:
		return bad("unknown weight policy %v", cfg.policy)
	case !(cfg.defaultWeight > 0 && cfg.defaultWeight <= 1):
		return bad("default weight %v is outside (0,1]", cfg.defaultWeight)
	}
	if cfg.sourceSet {
		if err := validateSourceID(cfg.source); err != nil {
			return errmsg.Wrap("kgmem: ingest", err)
		}
	}
	return nil
}

// wrapErr returns ctx.Err() when the context has ended, and err wrapped
// otherwise.
func (p *ingestPlanner) wrapErr(err error) error {
	if cerr := p.ctx.Err(); cerr != nil {
		return cerr
	}
	return errmsg.Wrap("kgmem: ingest", err)
}

// skip records an item that will not be written.
func (p *ingestPlanner) skip(kind SkippedKind, index int, ref, reason string) {
	p.report.Skipped = append(p.report.Skipped, SkippedItem{Kind: kind, Index: index, Ref: ref, Reason: reason})
	if kind == SkippedEntity {
		p.report.EntitiesSkipped++
	} else {
		p.report.RelationsSkipped++
	}
}

// sources returns the source IDs every write carries.
func (p *ingestPlanner) sources() []string {
	if p.cfg.sourceSet {
		return []string{p.cfg.source}
	}
	return nil
}

// normalizeEntities validates and normalises the extracted entities.
func (p *ingestPlanner) normalizeEntities(xs []ExtractedEntity) []ingestInput {
	out := make([]ingestInput, len(xs))
	for i := range xs {
		x, in := &xs[i], &out[i]
		in.ref = strings.TrimSpace(x.Name)
		if in.ref == "" {
			in.ref = strings.TrimSpace(x.ID)
		}
		if !x.validUTF8() {
			in.skip = "a field is not valid UTF-8"
			continue
		}
		in.explicitID = strings.TrimSpace(x.ID)
		name := strings.TrimSpace(x.Name)
		if name == "" {
			name = in.explicitID
		}
		if name == "" {
			in.skip = "no name or ID"
			continue
		}
		in.typeGiven = textrule.TypeKey(x.Type) != ""
		in.e = Entity{
			Name:        name,
			Type:        entityTypeKey(x.Type),
			Description: strings.TrimSpace(x.Description),
			Aliases:     textrule.UnionAliases(name, nil, x.Aliases),
			Tags:        unionTags(nil, x.Tags),
			Properties:  cloneMap(x.Properties),
			SourceIDs:   p.sources(),
		}
		in.skip = overLimit(&in.e)
	}
	return out
}

// overLimit says which length limit of Entity a normalised extracted
// entity breaks, or returns "" when it breaks none. Its ID is checked once
// it is known (see planEntities).
func overLimit(e *Entity) string {
	over := func(what string, n int, limit string, max int) string {
		return fmt.Sprintf("%s is %d bytes, more than %s (%d)", what, n, limit, max)
	}
	if len(e.Name) > MaxNameBytes {
		return over("name", len(e.Name), "MaxNameBytes", MaxNameBytes)
	}
	if len(e.Type) > MaxTypeBytes {
		return over("type", len(e.Type), "MaxTypeBytes", MaxTypeBytes)
	}
	for _, a := range e.Aliases {
		if len(a) > MaxNameBytes {
			return fmt.Sprintf("alias %s is longer than MaxNameBytes (%d)", quote.Value(a), MaxNameBytes)
		}
	}
	for _, t := range e.Tags {
		if len(t) > MaxTagBytes {
			return fmt.Sprintf("tag %s is longer than MaxTagBytes (%d)", quote.Value(t), MaxTagBytes)
		}
	}
	return ""
}

// idOverLimit says why id cannot be an entity ID for its length, or
// returns "" when it can.
func idOverLimit(id string) string {
	if len(id) <= MaxIDBytes {
		return ""
	}
	return fmt.Sprintf("ID %s is longer than MaxIDBytes (%d)", quote.Value(id), MaxIDBytes)
}

// prefetch loads from the graph every entity the extraction might mean:
// those with an ID it gives or derives, and those whose name or an alias
// is one of its names, aliases or relation references.
func (p *ingestPlanner) prefetch(inputs []ingestInput, rels []ExtractedRelation) error {
	var ids, surfaces []string
	seenID, seenSurface := make(map[string]bool), make(map[string]bool)
	addID := func(id string) {
		if id != "" && len(id) <= MaxIDBytes && !seenID[id] {
			seenID[id] = true
			ids = append(ids, id)
		}
	}
	addSurface := func(s string) {
		if k := textrule.NameKey(s); k != "" && !seenSurface[k] {
			seenSurface[k] = true
			surfaces = append(surfaces, s)
		}
	}
	for i := range inputs {
		in := &inputs[i]
		if in.skip != "" {
			continue
		}
		if !p.cfg.localIDs {
			addID(in.explicitID)
		}
		addID(DeriveEntityID(in.e.Type, in.e.Name))
		addSurface(in.e.Name)
		for _, a := range in.e.Aliases {
			addSurface(a)
		}
	}
	for i := range rels {
		r := &rels[i]
		if !r.validUTF8() {
			continue
		}
		for _, end := range [2][2]string{{r.Source, r.SourceType}, {r.Target, r.TargetType}} {
			ref := strings.TrimSpace(end[0])
			if ref == "" {
				continue
			}
			addID(ref)
			typ, name := refTypeAndName(ref, end[1])
			addID(DeriveEntityID(typ, name))
			addSurface(ref)
			addSurface(name)
		}
	}
	for _, id := range ids {
		e, ok, err := p.g.GetEntity(p.ctx, id)
		if err != nil {
			return err
		}
		if ok {
			p.load(e)
		}
	}
	return p.loadCandidates(surfaces)
}

// refTypeAndName splits a relation reference into the type it states
// (normalised; "" for none) and the name it gives: a "type:name" reference
// states its type unless the relation states another.
func refTypeAndName(ref, refType string) (string, string) {
	typ := textrule.TypeKey(refType)
	if t, n, ok := splitTypedRef(ref); ok && (typ == "" || textrule.TypeKey(t) == typ) {
		return textrule.TypeKey(t), n
	}
	return typ, ref
}

// loadCandidates loads the graph's entities whose name or an alias equals
// (normalised) one of surfaces.
func (p *ingestPlanner) loadCandidates(surfaces []string) error {
	if len(surfaces) == 0 {
		return nil
	}
	want := make(map[string]bool, 2*len(surfaces))
	for _, s := range surfaces {
		want[textrule.NameKey(s)] = true
		if lk := textrule.LooseNameKey(s); lk != "" && !p.cfg.exact {
			want[anyLooseKey(lk)] = true
		}
	}
	wanted := func(s string) bool {
		return want[textrule.NameKey(s)] || (!p.cfg.exact && want[anyLooseKey(textrule.LooseNameKey(s))])
	}
	keep := func(e Entity) {
		match := wanted(e.Name)
		for _, a := range e.Aliases {
			match = match || wanted(a)
		}
		if match {
			p.load(e)
		}
	}
	if nf, ok := p.g.(NameFinder); ok {
		// Each surface by its match key, which every name equal to it
		// after normalisation shares; surfaces without one (no letters,
		// digits or CJK, or too many words) are searched by keyword.
		var rest []string
		looked := make(map[string]bool, len(surfaces))
		for _, s := range surfaces {
			key, _, ok := textrule.LinkKey(s)
			if !ok {
				rest = append(rest, s)
				continue
			}
			if looked[key] {
				continue
			}
			looked[key] = true
			found, err := nf.FindByName(p.ctx, s)
			if err != nil {
				return err
			}
			for _, e := range found {
				keep(e)
			}
		}
		if surfaces = rest; len(surfaces) == 0 {
			return nil
		}
	}
	keywords := make([]string, 0, 2*len(surfaces))
	for _, s := range surfaces {
		keywords = append(keywords, s)
		if k := textrule.NameKey(s); k != s {
			keywords = append(keywords, k)
		}
	}
	found, err := p.g.FindByKeywords(p.ctx, keywords)
	if err != nil {
		return err
	}
	for _, e := range found {
		keep(e)
	}
	return nil
}

// load makes a graph entity known to the planner.
func (p *ingestPlanner) load(e Entity) {
	if _, ok := p.known[e.ID]; ok {
		return
	}
	orig := e
	orig.Aliases, orig.Tags, orig.SourceIDs = cloneStrings(e.Aliases), cloneStrings(e.Tags), cloneStrings(e.SourceIDs)
	orig.Properties = cloneMap(e.Properties) // merges change e.Properties in place
	ent := &ingestEntity{e: e, orig: orig, inGraph: true}
	p.known[e.ID] = ent
	p.file(ent)
}

func typedNameKey(typ, key string) string  { return "t\x00" + typ + "\x00" + key }
func anyNameKey(key string) string         { return "n\x00" + key }
func placeholderNameKey(key string) string { return "p\x00" + key }

// typedLooseKey and anyLooseKey file names by looseNameKey, for the drift
// rules; "" for a name without a loose key.
func typedLooseKey(typ, key string) string {
	if key == "" {
		return ""
	}
	return "T\x00" + typ + "\x00" + key
}

func anyLooseKey(key string) string {
	if key == "" {
		return ""
	}
	return "N\x00" + key
}

// file indexes ent under its current name and aliases. Entries are never
// removed: an entity stays findable under the names the graph held it by,
// even when WithReplace drops them.
func (p *ingestPlanner) file(ent *ingestEntity) {
	p.fileName(ent, ent.e.Name, false)
	for _, a := range ent.e.Aliases {
		p.fileName(ent, a, true)
	}
}

// fileName indexes ent under one name or alias s, by its type and by any
// type, and, for a placeholder, among placeholders. A short list is
// scanned so that it holds an entry once; a long one, which only many
// entities sharing a name make, is appended to without a scan, since a
// repeated entry changes no candidate set and an entity files a name at
// most a few times (see merge).
func (p *ingestPlanner) fileName(ent *ingestEntity, s string, alias bool) {
	k := textrule.NameKey(s)
	if k == "" {
		return
	}
	n := ingestName{id: ent.e.ID, alias: alias}
	typ := entityTypeKey(ent.e.Type)
	keys := [7]string{typedNameKey(typ, k), anyNameKey(k)}
	if ent.placeholder() {
		keys[2] = placeholderNameKey(k)
	}
	if !p.cfg.exact {
		lk := textrule.LooseNameKey(s)
		keys[3], keys[4] = typedLooseKey(typ, lk), anyLooseKey(lk)
		if fam := textrule.TypeFamily(typ); fam != "" {
			keys[5], keys[6] = familyKey(fam, k), familyKey(fam, "~"+lk)
		}
	}
	for _, key := range keys {
		if key == "" {
			continue
		}
		list := p.names[key]
		if len(list) <= textrule.ScanLimit && slices.Contains(list, n) {
			continue
		}
		p.names[key] = append(list, n)
	}
}

func (ent *ingestEntity) placeholder() bool { return ent.e.Properties[PlaceholderProperty] == "true" }

// candidates collects into c the entities filed under key, each with its
// best tier: 0 for a name matched by a name, plus 1 when the matched
// surface is an alias and plus 1 when the entity's entry is an alias.
func (p *ingestPlanner) candidates(c map[string]int, key string, surfaceIsAlias bool, filter func(*ingestEntity) bool) {
	for _, n := range p.names[key] {
		if filter != nil && !filter(p.known[n.id]) {
			continue
		}
		tier := 0
		if surfaceIsAlias {
			tier++
		}
		if n.alias {
			tier++
		}
		if t, ok := c[n.id]; !ok || tier < t {
			c[n.id] = tier
		}
	}
}

// choose picks the one best candidate: among those written by this call
// when preferWritten and there are any, those of the lowest tier. Several
// at that tier are returned, sorted, as ambiguous.
func (p *ingestPlanner) choose(c map[string]int, preferWritten bool) (string, []string) {
	if preferWritten {
		written := 0
		for id := range c {
			if p.known[id].write != writeNone {
				written++
			}
		}
		if written > 0 && written < len(c) {
			maps.DeleteFunc(c, func(id string, _ int) bool { return p.known[id].write == writeNone })
		}
	}
	best, ids := math.MaxInt, []string(nil)
	for id, t := range c {
		switch {
		case t < best:
			best, ids = t, append(ids[:0], id)
		case t == best:
			ids = append(ids, id)
		}
	}
	switch len(ids) {
	case 0:
		return "", nil
	case 1:
		return ids[0], nil
	}
	slices.Sort(ids)
	return "", ids
}

// resolveEntity returns the ID of the known entity in means, "" for none,
// or the entities it matches equally well; drift says why, when a drift
// rule resolved it.
func (p *ingestPlanner) resolveEntity(in *ingestInput) (id string, ambiguous []string, drift string) {
	if id := in.explicitID; id != "" {
		if _, ok := p.known[id]; ok && !p.cfg.localIDs {
			return id, nil, ""
		}
		if resolved, ok := p.local[id]; ok {
			return resolved, nil, ""
		}
	}
	if id := DeriveEntityID(in.e.Type, in.e.Name); p.known[id] != nil {
		return id, nil, ""
	}
	c := make(map[string]int)
	byName := func(key func(name string) string, filter func(*ingestEntity) bool) {
		p.candidates(c, key(in.e.Name), false, filter)
		for _, a := range in.e.Aliases {
			p.candidates(c, key(a), true, filter)
		}
	}
	byName(func(s string) string { return typedNameKey(in.e.Type, textrule.NameKey(s)) }, nil)
	if len(c) == 0 {
		// Entities filed as placeholders may have been merged into since.
		byName(func(s string) string { return placeholderNameKey(textrule.NameKey(s)) }, func(ent *ingestEntity) bool { return ent.placeholder() })
	}
	if len(c) > 0 || p.cfg.exact {
		id, ambiguous := p.choose(c, false)
		return id, ambiguous, ""
	}
	// The drift rules, each only when the ones before found nothing, and
	// each only for exactly one entity: the same type under a looser name;
	// another type of the same family (person and human) under the name,
	// then a looser one; an untyped entity so named; and, for an untyped
	// mention, an entity of any type.
	typ, fam := in.e.Type, textrule.TypeFamily(in.e.Type)
	levels := []func(name string) string{ // familyKey is "" for a type in no family: the level is skipped
		func(s string) string { return typedLooseKey(typ, textrule.LooseNameKey(s)) },
		func(s string) string { return familyKey(fam, textrule.NameKey(s)) },
		func(s string) string { return familyKey(fam, "~"+textrule.LooseNameKey(s)) },
	}
	if typ != defaultEntityType {
		levels = append(levels,
			func(s string) string { return typedNameKey(defaultEntityType, textrule.NameKey(s)) },
			func(s string) string { return typedLooseKey(defaultEntityType, textrule.LooseNameKey(s)) })
	} else {
		levels = append(levels,
			func(s string) string { return anyNameKey(textrule.NameKey(s)) },
			func(s string) string { return anyLooseKey(textrule.LooseNameKey(s)) })
	}
	for _, key := range levels {
		id, n := "", 0
		for _, s := range append([]string{in.e.Name}, in.e.Aliases...) {
			if id, n = p.unique(key(s), id, n); n > 1 {
				break
			}
		}
		switch {
		case n == 1:
			return id, nil, p.driftReason(in.e.Name, typ, p.known[id])
		case n > 1:
			return "", nil, "" // several: a new entity, as without the rules
		}
	}
	return "", nil, ""
}

// unique scans the entities filed under key, given the one found so far
// (id, of n found): it returns the one entity when there is exactly one,
// and n > 1 as soon as there are two, without reading further.
func (p *ingestPlanner) unique(key, id string, n int) (string, int) {
	if key == "" {
		return id, n
	}
	for _, e := range p.names[key] {
		if n == 0 {
			id, n = e.id, 1
		} else if e.id != id {
			return id, 2
		}
	}
	return id, n
}

// familyKey files names by the family of their entity's type.
func familyKey(fam, key string) string {
	if fam == "" || key == "" || key == "~" {
		return ""
	}
	return "F\x00" + fam + "\x00" + key
}

// driftReason describes how the name and type (normalised) as written
// differ from the entity ent they were resolved to.
func (p *ingestPlanner) driftReason(name, typ string, ent *ingestEntity) string {
	var parts []string
	if held := entityTypeKey(ent.e.Type); typ != "" && held != typ {
		parts = append(parts, fmt.Sprintf("type %s read as %s", quote.Value(typ), quote.Value(held)))
	}
	if k := textrule.NameKey(name); k != textrule.NameKey(ent.e.Name) && !slices.ContainsFunc(ent.e.Aliases, func(a string) bool { return textrule.NameKey(a) == k }) {
		parts = append(parts, fmt.Sprintf("name %s read as %s", quote.Value(name), quote.Value(ent.e.Name)))
	}
	if len(parts) == 0 {
		return "matched by an alias of another type"
	}
	return strings.Join(parts, ", ")
}

// planEntities resolves every valid extracted entity and merges it into
// the entity it resolves to, or plans a new one.
func (p *ingestPlanner) planEntities(inputs []ingestInput) {
	p.report.EntityIDs = make([]string, len(inputs))
	for i := range inputs {
		in := &inputs[i]
		if in.skip != "" {
			p.skip(SkippedEntity, i, in.ref, in.skip)
			continue
		}
		id, ambiguous, drift := p.resolveEntity(in)
		if len(ambiguous) > 0 {
			p.skip(SkippedEntity, i, in.ref, "ambiguous: matches entities "+quoteList(ambiguous))
			continue
		}
		if drift != "" {
			p.report.Unified = append(p.report.Unified, UnifiedItem{Kind: SkippedEntity, Index: i, Ref: in.ref, Into: id, Reason: drift})
		}
		var ent *ingestEntity
		if id == "" {
			id = in.explicitID
			if id == "" || p.cfg.localIDs {
				id = DeriveEntityID(in.e.Type, in.e.Name)
			}
			if over := idOverLimit(id); over != "" {
				p.skip(SkippedEntity, i, in.ref, over)
				continue
			}
			ent = &ingestEntity{e: Entity{ID: id}, write: writeCreated}
			p.known[id] = ent
			p.order = append(p.order, id)
			p.report.EntitiesCreated++
		} else {
			ent = p.known[id]
			if ent.write == writeNone {
				ent.write = writeMerged
				p.order = append(p.order, id)
				p.report.EntitiesMerged++ // or unchanged: decided in apply
			} else {
				p.report.EntitiesDeduplicated++
			}
			if p.cfg.replace && ent.inGraph && !ent.replaced {
				ent.e, ent.merged = Entity{ID: id}, nil
			}
		}
		ent.replaced = ent.replaced || (p.cfg.replace && ent.inGraph)
		p.merge(ent, in)
		if in.explicitID != "" {
			if _, ok := p.local[in.explicitID]; !ok {
				p.local[in.explicitID] = id
			}
		}
		p.report.EntityIDs[i] = id
	}
}

// merge merges the extracted entity in into ent.e, by the rules Ingest
// documents, and files every name or alias new to it. Its cost is linear
// in what in holds, whatever ent.e already holds.
func (p *ingestPlanner) merge(ent *ingestEntity, in *ingestInput) {
	e := &ent.e
	wasPlaceholder := e.Properties[PlaceholderProperty] == "true"
	if e.Name == "" {
		e.Name = in.e.Name
	}
	if e.Type == "" || (wasPlaceholder && in.typeGiven) {
		e.Type = in.e.Type
	}
	st := ent.merged
	if st == nil || st.name != e.Name || st.typ != entityTypeKey(e.Type) {
		// First merge, or the name or type changed: rebuild the state from
		// e and file everything under the (new) name and type.
		st = &mergeState{name: e.Name, typ: entityTypeKey(e.Type), keys: map[string]struct{}{textrule.NameKey(e.Name): {}}}
		ent.merged = st
		aliases := e.Aliases
		e.Aliases = nil
		for _, a := range aliases {
			st.addAlias(e, a)
		}
		for _, t := range e.Tags {
			if t = textrule.NormalizeTag(t); t != "" {
				st.tags.Add(t)
			}
		}
		for _, src := range e.SourceIDs {
			st.sources.Add(src)
		}
		st.descRunes = utf8.RuneCountInString(e.Description)
		p.fileName(ent, e.Name, false)
		for _, a := range e.Aliases {
			p.fileName(ent, a, true)
		}
	}
	if n := utf8.RuneCountInString(in.e.Description); n > st.descRunes {
		e.Description, st.descRunes = in.e.Description, n
	}
	for i := -1; i < len(in.e.Aliases); i++ {
		a := in.e.Name // the name it was mentioned by is an alias unless it is the name
		if i >= 0 {
			a = in.e.Aliases[i]
		}
		if a, added := st.addAlias(e, a); added {
			p.fileName(ent, a, true)
		}
	}
	for _, t := range in.e.Tags {
		if t = textrule.NormalizeTag(t); t != "" {
			st.tags.Add(t)
		}
	}
	e.Tags = st.tags.Items
	for _, src := range in.e.SourceIDs {
		st.sources.Add(src)
	}
	e.SourceIDs = st.sources.Items
	if len(in.e.Properties) > 0 || wasPlaceholder {
		// e.Properties is the planner's own map (copied from the graph
		// or the extraction, or made here), so it is changed in place.
		if e.Properties == nil {
			e.Properties = make(map[string]string, len(in.e.Properties))
		}
		delete(e.Properties, PlaceholderProperty)
		maps.Copy(e.Properties, in.e.Properties)
		if len(e.Properties) == 0 {
			e.Properties = nil
		}
		if !wasPlaceholder && ent.placeholder() {
			p.file(ent) // the extraction set the mark itself: file it among placeholders
		}
	}
}

// addAlias appends a, trimmed, to e.Aliases unless it is empty or its
// nameKey is the name's or another alias's, and reports what it appended.
func (st *mergeState) addAlias(e *Entity, a string) (string, bool) {
	a = strings.TrimSpace(a)
	k := textrule.NameKey(a)
	if k == "" {
		return "", false
	}
	if _, dup := st.keys[k]; dup {
		return "", false
	}
	st.keys[k] = struct{}{}
	e.Aliases = append(e.Aliases, a)
	return a, true
}

// unionTags returns the tags of existing and then of added, normalised as
// the graph normalises them, without empty ones or duplicates.
func unionTags(existing, added []string) []string {
	var out uniqueStrings
	for _, list := range [2][]string{existing, added} {
		for _, t := range list {
			if t = textrule.NormalizeTag(t); t != "" {
				out.Add(t)
			}
		}
	}
	return out.Items
}

// quoteList quotes the first few of ids, separated by commas, and says
// how many more there are, so that a name many entities share makes a
// short reason.
func quoteList(ids []string) string {
	const shown = 10
	q := make([]string, 0, min(len(ids), shown)+1)
	for i, id := range ids {
		if i == shown {
			q = append(q, fmt.Sprintf("and %d more", len(ids)-shown))
			break
		}
		q = append(q, quote.Value(id))
	}
	return strings.Join(q, ", ")
}

// endpoint is a resolved relation endpoint: an entity ID, the entities it
// matches equally well, or, when it resolves to nothing, the type and name
// a placeholder for it would have.
type endpoint struct {
	id        string
	ambiguous []string
	phType    string
	phName    string
	drift     string // why a drift rule resolved it; "" when none did
}

// resolveRef resolves a relation endpoint reference, by the rules Ingest
// documents.
func (p *ingestPlanner) resolveRef(ref, refType string) endpoint {
	if id, ok := p.local[ref]; ok {
		return endpoint{id: id}
	}
	if p.known[ref] != nil {
		return endpoint{id: ref}
	}
	typ, name := refTypeAndName(ref, refType)
	derived := DeriveEntityID(typ, name)
	if p.known[derived] != nil {
		return endpoint{id: derived}
	}
	// Exact keys first (typed, any type), then the drift rules' loose
	// ones (typed, any type).
	var keys [4]string
	if typ != "" {
		keys[0] = typedNameKey(typ, textrule.NameKey(name))
	}
	keys[1] = anyNameKey(textrule.NameKey(ref))
	if !p.cfg.exact {
		if typ != "" {
			keys[2] = typedLooseKey(typ, textrule.LooseNameKey(name))
		}
		keys[3] = anyLooseKey(textrule.LooseNameKey(ref))
	}
	var lens [4]int
	for i, k := range keys {
		lens[i] = len(p.names[k])
	}
	// A reference resolved before resolves the same way while no entity
	// it could mean has appeared since: its ID and derived ID are still
	// unknown (checked above) and the name lists it read have not grown.
	// Without this, every relation naming a name that thousands of
	// entities share would read all of them again.
	mk := [2]string{ref, refType}
	if m, ok := p.refMemo[mk]; ok && m.lens == lens {
		return m.end
	}
	c := make(map[string]int)
	var end endpoint
	for i, k := range keys {
		if k == "" {
			continue
		}
		p.candidates(c, k, false, nil)
		if len(c) == 0 {
			continue
		}
		id, ambiguous := p.choose(c, true)
		if i < 2 {
			end = endpoint{id: id, ambiguous: ambiguous}
		} else if id != "" {
			end = endpoint{id: id, drift: p.driftReason(name, typ, p.known[id])}
		}
		break
	}
	if end.id == "" && len(end.ambiguous) == 0 {
		if typ == "" {
			typ = defaultEntityType
		}
		end = endpoint{phType: typ, phName: name}
	}
	if p.refMemo == nil {
		p.refMemo = make(map[[2]string]refResolution)
	}
	p.refMemo[mk] = refResolution{end: end, lens: lens}
	return end
}

// refResolution is how resolveRef resolved a reference by name, and the
// lengths of the name lists it read then.
type refResolution struct {
	end  endpoint
	lens [4]int
}

// weight applies the weight policy: it returns the weight to write,
// whether the extraction stated one, whether it was clamped, and why the
// relation must be skipped ("" when it need not).
func (p *ingestPlanner) weight(w *float64) (v float64, given, clamped bool, reason string) {
	if w == nil {
		return p.cfg.defaultWeight, false, false, ""
	}
	switch v = *w; {
	case math.IsNaN(v):
		return 0, true, false, "weight is NaN"
	case v <= 0:
		return 0, true, false, fmt.Sprintf("weight %v is outside (0,1] (leave the weight out for an unweighted relation)", v)
	case v <= 1:
		return v, true, false, ""
	case p.cfg.policy == WeightReject:
		return 0, true, false, fmt.Sprintf("weight %v is outside (0,1]", v)
	}
	return 1, true, true, ""
}

// planRelations resolves every extracted relation and plans its write.
func (p *ingestPlanner) planRelations(xs []ExtractedRelation) error {
	for i := range xs {
		x := &xs[i]
		src, dst := strings.TrimSpace(x.Source), strings.TrimSpace(x.Target)
		typ := p.cfg.relationType(x.Type)
		shown := fmt.Sprintf("%s -[%s]-> %s", src, strings.TrimSpace(x.Type), dst)
		skip := func(ref, reason string) { p.skip(SkippedRelation, i, ref, reason) }
		if !x.validUTF8() {
			skip(shown, "a field is not valid UTF-8")
			continue
		}
		switch {
		case src == "":
			skip(shown, "no source")
			continue
		case dst == "":
			skip(shown, "no target")
			continue
		case typ == "":
			skip(shown, "no relation type")
			continue
		case len(typ) > MaxTypeBytes:
			skip(shown, fmt.Sprintf("relation type is %d bytes, more than MaxTypeBytes (%d)", len(typ), MaxTypeBytes))
			continue
		}
		w, given, clamped, reason := p.weight(x.Weight)
		if reason != "" {
			skip(shown, reason)
			continue
		}
		ends := [2]endpoint{p.resolveRef(src, x.SourceType), p.resolveRef(dst, x.TargetType)}
		refs := [2]string{src, dst}
		ok := true
		for j, role := range [2]string{"source", "target"} {
			e := &ends[j]
			if len(e.ambiguous) > 0 {
				skip(refs[j], fmt.Sprintf("%s %s is ambiguous: matches entities %s", role, quote.Value(refs[j]), quoteList(e.ambiguous)))
				ok = false
				break
			}
			if e.id == "" {
				if !p.cfg.placeholders {
					skip(refs[j], fmt.Sprintf("%s %s names no entity", role, quote.Value(refs[j])))
					ok = false
					break
				}
				e.id = DeriveEntityID(e.phType, e.phName)
				if p.known[e.id] != nil {
					continue
				}
				over := overLimit(&Entity{Name: e.phName, Type: e.phType})
				if over == "" {
					over = idOverLimit(e.id)
				}
				if over != "" {
					skip(refs[j], fmt.Sprintf("%s %s names no entity, and a placeholder for it cannot be made: its %s",
						role, quote.Value(refs[j]), over))
					ok = false
					break
				}
			}
		}
		if !ok {
			continue
		}
		for j, e := range ends {
			if e.phName != "" && p.known[e.id] == nil {
				p.addPlaceholder(e)
			}
			if e.drift != "" {
				p.report.Unified = append(p.report.Unified, UnifiedItem{Kind: SkippedRelation, Index: i, Ref: refs[j], Into: e.id, Reason: e.drift})
			}
		}
		if written := textrule.TypeKey(x.Type); written != typ && !p.respelled[written] {
			if p.respelled == nil {
				p.respelled = make(map[string]bool)
			}
			p.respelled[written] = true
			p.report.Unified = append(p.report.Unified, UnifiedItem{Kind: SkippedRelation, Index: i, Ref: strings.TrimSpace(x.Type), Into: typ,
				Reason: fmt.Sprintf("relation type %s stored as %s", quote.Value(strings.TrimSpace(x.Type)), quote.Value(typ))})
		}
		if clamped {
			p.report.WeightsClamped++
		}
		in := Relation{
			SourceID:   ends[0].id,
			TargetID:   ends[1].id,
			Type:       typ,
			Weight:     w,
			Properties: cloneMap(x.Properties),
			SourceIDs:  p.sources(),
		}
		if reason := plannedValidity(&in, x); reason != "" {
			skip(shown, reason)
			continue
		}
		if d := strings.TrimSpace(x.Description); d != "" {
			if _, set := in.Properties["description"]; !set {
				if in.Properties == nil {
					in.Properties = make(map[string]string, 1)
				}
				in.Properties["description"] = d
			}
		}
		key := in.Key()
		if pr, ok := p.rels[key]; ok {
			if olderStint(&pr.r, &in) {
				skip(shown, describeOlderStint(&in, &pr.r))
				continue
			}
			pr.merge(&in, given)
			mergeValidity(&pr.r, &in, x.Ended, p.now)
			p.report.RelationsDeduplicated++
			continue
		}
		existing, held, err := p.graphRelation(key)
		if err != nil {
			return err
		}
		if held && !p.cfg.replace && olderStint(&existing, &in) {
			skip(shown, describeOlderStint(&in, &existing))
			continue
		}
		pr := &ingestRelation{r: Relation{SourceID: key.SourceID, TargetID: key.TargetID, Type: key.Type, Weight: w}}
		if held {
			pr.write, pr.orig = writeMerged, existing
			if !p.cfg.replace {
				pr.r = existing
			}
			p.report.RelationsUpdated++ // or unchanged: decided in apply
		} else {
			pr.write = writeCreated
			p.report.RelationsCreated++
		}
		pr.merge(&in, given)
		mergeValidity(&pr.r, &in, x.Ended, p.now)
		p.rels[key] = pr
		p.relOrder = append(p.relOrder, key)
	}
	return nil
}

// addPlaceholder plans a placeholder entity for an endpoint that resolves
// to nothing.
func (p *ingestPlanner) addPlaceholder(e endpoint) {
	ent := &ingestEntity{
		e: Entity{
			ID:         e.id,
			Name:       e.phName,
			Type:       e.phType,
			Properties: map[string]string{PlaceholderProperty: "true"},
			SourceIDs:  p.sources(),
		},
		write: writePlaceholder,
	}
	p.known[e.id] = ent
	p.file(ent)
	p.order = append(p.order, e.id)
	p.report.PlaceholdersCreated++
}

// merge merges the extracted relation in into pr.r: the weight when the
// extraction states one, properties key by key, source IDs as a union. Its
// cost is linear in what in holds, whatever pr.r already holds.
func (pr *ingestRelation) merge(in *Relation, weightGiven bool) {
	r := &pr.r
	if weightGiven {
		r.Weight = in.Weight
	}
	if len(in.Properties) > 0 {
		if !pr.ownProps {
			props := make(map[string]string, len(r.Properties)+len(in.Properties))
			maps.Copy(props, r.Properties)
			r.Properties, pr.ownProps = props, true
		}
		maps.Copy(r.Properties, in.Properties)
	}
	if pr.sources == nil {
		pr.sources = new(uniqueStrings)
		for _, s := range r.SourceIDs {
			pr.sources.Add(s)
		}
	}
	for _, s := range in.SourceIDs {
		pr.sources.Add(s)
	}
	r.SourceIDs = pr.sources.Items
}

// graphRelation returns the relation the graph holds under k, if any.
func (p *ingestPlanner) graphRelation(k RelationKey) (Relation, bool, error) {
	s, t := p.known[k.SourceID], p.known[k.TargetID]
	if s == nil || t == nil || !s.inGraph || !t.inGraph {
		return Relation{}, false, nil
	}
	if rg, ok := p.g.(ingestRelationGetter); ok {
		return rg.GetRelation(p.ctx, k.SourceID, k.TargetID, k.Type)
	}
	ck := [2]string{k.SourceID, k.Type}
	held, ok := p.graphRels[ck]
	if !ok {
		related, err := p.g.GetRelated(p.ctx, k.SourceID,
			TraverseOptions{Depth: 1, Direction: Outgoing, RelationTypes: []string{k.Type}, AsOf: AsOf{AllTime: true}})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Relation{}, false, err
		}
		held = make(map[string]Relation, len(related))
		for _, se := range related {
			if len(se.Relations) == 1 {
				held[se.Entity.ID] = se.Relations[0]
			}
		}
		if p.graphRels == nil {
			p.graphRels = make(map[[2]string]map[string]Relation)
		}
		p.graphRels[ck] = held
	}
	r, ok := held[k.TargetID]
	return r, ok, nil
}

// strictFailure returns the answer of a strict call with problems.
func (p *ingestPlanner) strictFailure() (IngestReport, error) {
	rep := IngestReport{
		EntitiesSkipped:  p.report.EntitiesSkipped,
		RelationsSkipped: p.report.RelationsSkipped,
		Skipped:          p.report.Skipped,
	}
	const shown = 10
	var msgs []string
	for i, s := range rep.Skipped {
		if i == shown {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(rep.Skipped)-shown))
			break
		}
		msgs = append(msgs, s.String())
	}
	return rep, fmt.Errorf("kgmem: ingest: strict: nothing written, %d problem(s): %s: %w",
		len(rep.Skipped), strings.Join(msgs, "; "), ErrInvalidArgument)
}

// apply writes the plan: in one AddBatch call when the graph has it, else
// entity by entity and then relation by relation. Entities and relations
// the graph held that the plan leaves as they were are not written, and
// the report counts them as unchanged.
func (p *ingestPlanner) apply() (IngestReport, error) {
	maxTags := p.g.TagConstraints().withDefaults().MaxTagsPerEntity
	var (
		ents     []Entity
		entKinds []ingestWrite
	)
	for _, id := range p.order {
		ent := p.known[id]
		if ent.write == writeMerged && sameEntity(&ent.orig, &ent.e, maxTags) {
			p.report.EntitiesUnchanged++
			continue
		}
		ents, entKinds = append(ents, ent.e), append(entKinds, ent.write)
	}
	var (
		rels     []Relation
		relKinds []ingestWrite
	)
	for _, k := range p.relOrder {
		pr := p.rels[k]
		if pr.write == writeMerged && sameRelation(&pr.orig, &pr.r) {
			p.report.RelationsUnchanged++
			continue
		}
		rels, relKinds = append(rels, pr.r), append(relKinds, pr.write)
	}
	p.countWritten(entKinds, relKinds)
	p.listEnded(rels)
	if p.cfg.commit != nil {
		if err := p.cfg.commit(p.ctx, ents, rels); err != nil {
			p.countWritten(nil, nil)
			p.listEnded(nil)
			return p.report, p.wrapErr(err)
		}
		return p.report, nil
	}
	if b, ok := p.g.(ingestBatcher); ok {
		if len(ents) == 0 && len(rels) == 0 {
			return p.report, nil
		}
		if err := b.AddBatch(p.ctx, ents, rels); err != nil {
			p.countWritten(nil, nil)
			p.listEnded(nil)
			return p.report, p.wrapErr(err)
		}
		return p.report, nil
	}
	for i := range ents {
		if err := p.g.AddEntity(p.ctx, ents[i]); err != nil {
			p.countWritten(entKinds[:i], nil)
			p.listEnded(nil)
			return p.report, p.wrapErr(err)
		}
	}
	for i := range rels {
		if err := p.g.AddRelation(p.ctx, rels[i]); err != nil {
			p.countWritten(entKinds, relKinds[:i])
			p.listEnded(rels[:i])
			return p.report, p.wrapErr(err)
		}
	}
	return p.report, nil
}

// listEnded sets the report's Ended to the relations of rels, written,
// that supersession ended.
func (p *ingestPlanner) listEnded(rels []Relation) {
	p.report.Ended = nil
	for i := range rels {
		if p.endedKeys[rels[i].Key()] {
			p.report.Ended = append(p.report.Ended, cloneRelation(rels[i]))
		}
	}
}

// countWritten sets the report's counts of written items to those of the
// entities and relations written, of the given kinds.
func (p *ingestPlanner) countWritten(ents, rels []ingestWrite) {
	r := &p.report
	r.EntitiesCreated, r.EntitiesMerged, r.PlaceholdersCreated = 0, 0, 0
	r.RelationsCreated, r.RelationsUpdated = 0, 0
	for _, w := range ents {
		switch w {
		case writeCreated:
			r.EntitiesCreated++
		case writeMerged:
			r.EntitiesMerged++
		case writePlaceholder:
			r.PlaceholdersCreated++
		}
	}
	for _, w := range rels {
		if w == writeCreated {
			r.RelationsCreated++
		} else {
			r.RelationsUpdated++
		}
	}
}

// sameEntity reports whether writing e would leave the stored entity orig
// as it is, once the graph has normalised e's tags (trimmed, lower-cased,
// de-duplicated, cut to maxTags). Nil and empty slices and maps are alike.
func sameEntity(orig, e *Entity, maxTags int) bool {
	if orig.ID != e.ID || orig.Name != e.Name || orig.Type != e.Type || orig.Description != e.Description ||
		!slices.Equal(orig.Aliases, e.Aliases) || !slices.Equal(orig.SourceIDs, e.SourceIDs) ||
		!maps.Equal(orig.Properties, e.Properties) {
		return false
	}
	tags, err := normalizeTags(e.Tags, maxTags)
	return err == nil && slices.Equal(orig.Tags, tags)
}

// sameRelation reports whether writing r would leave the stored relation
// orig as it is.
func sameRelation(orig, r *Relation) bool {
	return orig.Key() == r.Key() && orig.Weight == storedWeight(r.Weight) &&
		slices.Equal(orig.SourceIDs, r.SourceIDs) && maps.Equal(orig.Properties, r.Properties) &&
		orig.ValidFrom.Equal(r.ValidFrom) && orig.ValidTo.Equal(r.ValidTo)
}
