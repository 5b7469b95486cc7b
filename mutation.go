package kgmem

import (
	"context"
	"fmt"
	"reflect"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/jsonl"
	"github.com/kgmem/kgmem/internal/quote"
)

// mutation is one write to a graph, as a value. Every write method builds
// one and hands it to apply, and so does a journal's replay: apply is the
// only way a graph changes, and journal, called from its step's commit,
// the only place a write is recorded. The exported fields are the journal's record
// (see docs/DURABILITY.md and docs/FORMAT.md); entities carry their
// normalised tags and relations their stored weight once check has run.
type mutation struct {
	Op        mutationOp   `json:"op"`
	Entities  []Entity     `json:"entities,omitempty"`  // opAddEntity (one), opAddBatch
	Relations []Relation   `json:"relations,omitempty"` // opAddRelation (one), opAddBatch
	ID        string       `json:"id,omitempty"`        // opRemoveEntity, opSetTags, opRemoveSource, opMerge (from)
	Into      string       `json:"into,omitempty"`      // opMerge
	Key       *RelationKey `json:"key,omitempty"`       // opRemoveRelation
	Tags      []string     `json:"tags,omitempty"`      // opSetTags

	fresh *InMemoryGraph // opReplace: the new contents, which nobody else holds

	// Set by check (outside the lock).
	replayed  bool // from a journal: tags are already normalised, and must fit
	mores     []*entityMore
	relMores  []*relMore
	typeOf    []int32 // opAddBatch: batchTypes
	typeNames []string

	// Set by resolve (under the lock).
	noop     bool       // changes nothing; not journaled
	slot     int32      // opRemoveEntity, opSetTags, opMerge: the entity
	merge    *mergePlan // opMerge
	rel      int32      // opRemoveRelation: the relation
	src, dst int32      // opAddRelation: the endpoints
	ends     [][2]int32 // opAddBatch: endpoints, -1 for an entity of the batch

	// Set by do.
	removed RemoveSourceReport // opRemoveSource
}

type mutationOp string

const (
	opAddEntity      mutationOp = "add_entity"
	opRemoveEntity   mutationOp = "remove_entity"
	opAddRelation    mutationOp = "add_relation"
	opRemoveRelation mutationOp = "remove_relation"
	opSetTags        mutationOp = "set_tags"
	opAddBatch       mutationOp = "add_batch"
	opRemoveSource   mutationOp = "remove_source"
	opMerge          mutationOp = "merge"
	opReplace        mutationOp = "replace" // ReadFrom; journaled as a snapshot, never as a record
	opPutPage        mutationOp = "put_page"
	opDeletePage     mutationOp = "delete_page"
	opIngest         mutationOp = "ingest"     // Memory.Ingest: a page and a batch
	opSetSchema      mutationOp = "set_schema" // Memory.SetSchema
)

// apply performs m, the graph's write step (see step.go): check outside
// the lock, then commitWrite, recorded by the graph's journal when it has
// one.
func (g *InMemoryGraph) apply(ctx context.Context, m *mutation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := g.check(m); err != nil {
		return err
	}
	var journal func() error
	if g.journal != nil {
		journal = func() error { return g.journal(m) }
	}
	return g.commitWrite(m, journal)
}

// replay applies m, a record read from a journal.
func (g *InMemoryGraph) replay(m *mutation) error {
	m.replayed = true
	return g.apply(context.Background(), m)
}

// check validates m on its own and prepares what applying it needs,
// normalising tags and weights in m itself; it touches nothing of g's
// mutable state. The slices of m must not be the caller's.
func (g *InMemoryGraph) check(m *mutation) error {
	shape := func(ok bool) error {
		if ok {
			return nil
		}
		return malformed(m.Op)
	}
	max := g.tags.MaxTagsPerEntity
	tagsOf := func(id string, tags []string) ([]string, error) {
		if m.replayed {
			return storedTags(id, tags, max)
		}
		return normalizeTags(tags, max)
	}
	switch m.Op {
	case opAddEntity, opAddBatch:
		if m.Op == opAddEntity {
			if err := shape(len(m.Entities) == 1 && m.Relations == nil && m.ID == "" && m.Key == nil && m.Tags == nil); err != nil {
				return err
			}
		} else if err := shape(m.ID == "" && m.Key == nil && m.Tags == nil); err != nil {
			return err
		}
		m.mores = make([]*entityMore, len(m.Entities))
		for i := range m.Entities {
			e := &m.Entities[i]
			if err := validateEntity(e); err != nil {
				if m.Op == opAddBatch {
					return errmsg.Wrapf(err, "kgmem: batch entity %d", i)
				}
				return err
			}
			tags, err := tagsOf(e.ID, e.Tags)
			if err != nil {
				return fmt.Errorf("kgmem: entity %s: %w", quote.Value(e.ID), err)
			}
			e.Tags = tags
			m.mores[i] = newEntityMore(e, tags)
		}
		if m.Op == opAddEntity {
			return nil
		}
		var err error
		if m.relMores, err = prepareRelations(m.Relations); err != nil {
			return err
		}
		m.typeOf, m.typeNames = batchTypes(m.Relations)
		return nil
	case opAddRelation:
		if err := shape(len(m.Relations) == 1 && m.Entities == nil && m.ID == "" && m.Key == nil && m.Tags == nil); err != nil {
			return err
		}
		r := &m.Relations[0]
		if err := validateRelation(r); err != nil {
			return err
		}
		r.Weight += 0 // store -0 as +0
		m.relMores = []*relMore{newRelMore(r)}
		return nil
	case opRemoveEntity:
		if err := shape(m.Entities == nil && m.Relations == nil && m.Key == nil && m.Tags == nil); err != nil {
			return err
		}
		return validateID("entity", m.ID)
	case opRemoveRelation:
		if err := shape(m.Key != nil && m.Entities == nil && m.Relations == nil && m.ID == "" && m.Tags == nil); err != nil {
			return err
		}
		return validateKey(m.Key.SourceID, m.Key.TargetID, m.Key.Type)
	case opSetTags:
		if err := shape(m.Entities == nil && m.Relations == nil && m.Key == nil); err != nil {
			return err
		}
		if err := validateID("entity", m.ID); err != nil {
			return err
		}
		tags, err := tagsOf(m.ID, m.Tags)
		if err != nil {
			return errmsg.Wrapf(err, "kgmem: set tags of entity %s", quote.Value(m.ID))
		}
		m.Tags = tags
		return nil
	case opRemoveSource:
		if err := shape(m.Entities == nil && m.Relations == nil && m.Key == nil && m.Tags == nil); err != nil {
			return err
		}
		return validateSourceID(m.ID)
	case opMerge:
		return checkMerge(m)
	case opReplace:
		if m.replayed || m.fresh == nil {
			return malformed(m.Op)
		}
		return nil
	}
	return fmt.Errorf("kgmem: unknown graph operation %s: %w", quote.Value(string(m.Op)), ErrInvalidArgument)
}

// malformed returns the error of a record whose fields do not fit its
// operation.
func malformed(op mutationOp) error {
	return fmt.Errorf("kgmem: malformed %s record: %w", quote.Value(string(op)), ErrInvalidArgument)
}

// resolve checks m, checked, against the graph and finds what it changes;
// the caller holds g.mu for writing.
func (g *InMemoryGraph) resolve(m *mutation) error {
	switch m.Op {
	case opRemoveEntity:
		s, ok := g.ids[m.ID]
		if !ok {
			return fmt.Errorf("kgmem: remove entity %s: %w", quote.Value(m.ID), ErrNotFound)
		}
		m.slot = s
	case opAddRelation:
		r := &m.Relations[0]
		var err error
		m.src, m.dst, err = g.endpoints(r.SourceID, r.TargetID, r.Type)
		return err
	case opRemoveRelation:
		k := m.Key
		i, ok := g.lookupRel(k.SourceID, k.TargetID, k.Type)
		if !ok {
			return fmt.Errorf("kgmem: remove relation %s: %w", describeKey(k.SourceID, k.Type, k.TargetID), ErrNotFound)
		}
		m.rel = i
	case opSetTags:
		s, ok := g.ids[m.ID]
		if !ok {
			return fmt.Errorf("kgmem: set tags of entity %s: %w", quote.Value(m.ID), ErrNotFound)
		}
		m.slot = s
	case opAddBatch:
		m.ends = make([][2]int32, len(m.Relations))
		var batchIDs map[string]bool
		for i := range m.Relations {
			r := &m.Relations[i]
			for j, id := range [2]string{r.SourceID, r.TargetID} {
				if s, ok := g.ids[id]; ok {
					m.ends[i][j] = s
					continue
				}
				if batchIDs == nil {
					batchIDs = make(map[string]bool, len(m.Entities))
					for k := range m.Entities {
						batchIDs[m.Entities[k].ID] = true
					}
				}
				if !batchIDs[id] {
					return fmt.Errorf("kgmem: batch relation %d: %s: entity %s: %w",
						i, describeKey(r.SourceID, r.Type, r.TargetID), quote.Value(id), ErrNotFound)
				}
				m.ends[i][j] = -1
			}
		}
	case opRemoveSource:
		m.noop = !g.cites(m.ID)
	case opMerge:
		return g.resolveMerge(m)
	}
	return nil
}

// do applies m, checked and resolved; the caller holds g.mu for writing.
func (g *InMemoryGraph) do(m *mutation) {
	switch m.Op {
	case opAddEntity:
		g.putEntity(&m.Entities[0], m.mores[0])
	case opRemoveEntity:
		g.removeEntity(m.slot)
	case opAddRelation:
		r := &m.Relations[0]
		g.putRelation(m.src, m.dst, r.Type, r.Weight, m.relMores[0])
	case opRemoveRelation:
		g.removeRel(m.rel)
	case opSetTags:
		g.setTags(m.slot, m.Tags)
	case opAddBatch:
		g.addBatch(m)
	case opRemoveSource:
		m.removed = g.removeSource(m.ID)
	case opMerge:
		g.doMerge(m)
	case opReplace:
		g.adopt(m.fresh)
	}
}

// addBatch applies an opAddBatch mutation; the caller holds g.mu for
// writing.
func (g *InMemoryGraph) addBatch(m *mutation) {
	for i := range m.Entities {
		g.putEntity(&m.Entities[i], m.mores[i])
	}
	g.reserve(m.Relations, m.ends)
	typeIDs := make([]int32, len(m.typeNames)) // typeIDs[j] is the interned type of typeNames[j]
	for j, name := range m.typeNames {
		t, ok := g.types.lookup(name)
		if !ok {
			t = g.types.intern(name)
		}
		typeIDs[j] = t
	}
	for i := range m.Relations {
		r := &m.Relations[i]
		src, dst := m.ends[i][0], m.ends[i][1]
		if src < 0 {
			src = g.ids[r.SourceID]
		}
		if dst < 0 {
			dst = g.ids[r.TargetID]
		}
		g.putRelationTyped(src, dst, typeIDs[m.typeOf[i]], r.Weight+0, m.relMores[i])
	}
}

// graphRecordNames are the JSON names of a graph journal record.
var graphRecordNames = jsonl.Names(reflect.TypeFor[mutation]())

// mutationV1 is a record of a version 1 journal, whose relation keys were
// written with Go's field names.
type mutationV1 struct {
	Op        mutationOp `json:"op"`
	Entities  []Entity   `json:"entities,omitempty"`
	Relations []Relation `json:"relations,omitempty"`
	ID        string     `json:"id,omitempty"`
	Key       *struct {
		SourceID, TargetID, Type string
	} `json:"key,omitempty"`
	Tags []string `json:"tags,omitempty"`
}

var graphRecordNamesV1 = jsonl.Names(reflect.TypeFor[mutationV1]())

// decodeGraphRecord decodes the body of a graph journal record of the
// given version.
func decodeGraphRecord(version int, body []byte) (*mutation, error) {
	if version == 1 {
		var r mutationV1
		if err := jsonl.DecodeStrict(body, &r, graphRecordNamesV1); err != nil {
			return nil, fmt.Errorf("kgmem: record: %v: %w", err, ErrInvalidArgument)
		}
		m := &mutation{Op: r.Op, Entities: r.Entities, Relations: r.Relations, ID: r.ID, Tags: r.Tags}
		if r.Key != nil {
			m.Key = &RelationKey{SourceID: r.Key.SourceID, TargetID: r.Key.TargetID, Type: r.Key.Type}
		}
		return m, nil
	}
	m := &mutation{}
	if err := jsonl.DecodeStrict(body, m, graphRecordNames); err != nil {
		return nil, fmt.Errorf("kgmem: record: %v: %w", err, ErrInvalidArgument)
	}
	if m.Op == opReplace {
		return nil, malformed(m.Op)
	}
	return m, nil
}
