package kgmem

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/traverse"
	"github.com/kgmem/kgmem/internal/walk"
)

// neighborStep adapts a Neighborhood to the traversal algorithms: it
// interns the entity IDs it meets to node handles and keeps every relation
// it is told about under a relation handle, for the length of one call.
type neighborStep struct {
	n         Neighborhood
	types     []string
	ids       []string // node handle → entity ID
	hashes    []uint64 // node handle → idHash of its ID
	handles   map[string]int32
	rels      []Relation // relation handle → relation
	entities  map[int32]Entity
	typeIDs   map[string]int32 // relation type → type handle, for the walk search
	typeNames []string
	relTypes  []int32 // relation handle → type handle
	at        instant // relations not valid then are dropped
}

func newNeighborStep(n Neighborhood, types []string, a AsOf) *neighborStep {
	now := time.Now
	if c, ok := n.(Clock); ok {
		now = c.Now
	}
	return &neighborStep{n: n, types: types, handles: make(map[string]int32), at: a.resolve(now)}
}

func (s *neighborStep) intern(id string) int32 {
	if h, ok := s.handles[id]; ok {
		return h
	}
	h := int32(len(s.ids))
	s.ids = append(s.ids, id)
	s.hashes = append(s.hashes, walk.IDHash(id))
	s.handles[id] = h
	return h
}

// Expand implements traverse.Stepper.
func (s *neighborStep) Expand(ctx context.Context, frontier []int32, td traverse.Dir, limit int, visit func(int, int32, int32, float64)) (int, bool, error) {
	dir := Direction(td)
	// Ask once per distinct entity; fan the answers out to every frontier
	// position that holds it. Each position a relation reaches counts as one
	// relation scanned; past the limit, the backend's answers are ignored.
	var unique []string
	positions := make(map[int32][]int, len(frontier))
	for i, h := range frontier {
		if _, ok := positions[h]; !ok {
			unique = append(unique, s.ids[h])
		}
		positions[h] = append(positions[h], i)
	}
	var bad error
	scanned, nextCheck, cut := 0, traverse.ScanCheckEvery, false
	err := s.n.Neighbors(ctx, unique, dir, s.types, func(from int, r Relation) {
		if bad != nil || cut {
			return
		}
		if scanned >= nextCheck {
			nextCheck = scanned + traverse.ScanCheckEvery
			if err := ctx.Err(); err != nil {
				bad = err
				return
			}
		}
		if from < 0 || from >= len(unique) {
			bad = fmt.Errorf("kgmem: neighborhood reported index %d for %d entities: %w", from, len(unique), ErrInvalidArgument)
			return
		}
		at := unique[from]
		var to string
		switch {
		case dir != Incoming && r.SourceID == at:
			to = r.TargetID
		case dir != Outgoing && r.TargetID == at:
			to = r.SourceID
		default:
			bad = fmt.Errorf("kgmem: neighborhood reported relation %s for entity %s walking %v: %w",
				describeKey(r.SourceID, r.Type, r.TargetID), quote.Value(at), dir, ErrInvalidArgument)
			return
		}
		r.Weight = storedWeight(r.Weight)
		if math.IsNaN(r.Weight) || r.Weight < 0 || r.Weight > 1 ||
			(len(s.types) > 0 && !slices.Contains(s.types, r.Type)) {
			bad = fmt.Errorf("kgmem: neighborhood reported relation %s with weight %v outside the request: %w",
				describeKey(r.SourceID, r.Type, r.TargetID), r.Weight, ErrInvalidArgument)
			return
		}
		if !s.at.admitsRelation(&r) {
			return // not valid at the instant read: as if not stored
		}
		if scanned == limit {
			cut = true
			return
		}
		toH := s.intern(to)
		relH := int32(len(s.rels))
		s.rels = append(s.rels, r)
		s.relTypes = append(s.relTypes, s.internType(r.Type))
		for _, i := range positions[s.handles[at]] {
			if scanned == limit {
				cut = true
				return
			}
			scanned++
			visit(i, toH, relH, r.Weight)
		}
	})
	if err != nil {
		return scanned, false, err
	}
	return scanned, cut, bad
}

func (s *neighborStep) internType(t string) int32 {
	if h, ok := s.typeIDs[t]; ok {
		return h
	}
	if s.typeIDs == nil {
		s.typeIDs = make(map[string]int32)
	}
	h := int32(len(s.typeNames))
	s.typeIDs[t] = h
	s.typeNames = append(s.typeNames, t)
	return h
}

// prepare fetches, in one call, the entities of the ranked nodes (distinct)
// that it has not fetched before.
func (s *neighborStep) prepare(ctx context.Context, ranked []traverse.Ranked) error {
	var ids []string
	var nodes []int32
	for _, r := range ranked {
		if _, ok := s.entities[r.N]; !ok {
			ids = append(ids, s.ids[r.N])
			nodes = append(nodes, r.N)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	es, err := s.n.Entities(ctx, ids)
	if err != nil {
		return err
	}
	if len(es) != len(ids) {
		return fmt.Errorf("kgmem: neighborhood returned %d entities for %d IDs: %w", len(es), len(ids), ErrInvalidArgument)
	}
	if s.entities == nil {
		s.entities = make(map[int32]Entity, len(ids))
	}
	for i, n := range nodes {
		s.entities[n] = es[i]
	}
	return nil
}

func (s *neighborStep) ID(n int32) string { return s.ids[n] }

func (s *neighborStep) entity(n int32) Entity {
	e := s.entities[n]
	e.Aliases, e.Tags, e.SourceIDs = cloneStrings(e.Aliases), cloneStrings(e.Tags), cloneStrings(e.SourceIDs)
	e.Properties = cloneMap(e.Properties)
	return e
}

func (s *neighborStep) relation(r int32) Relation { return cloneRelation(s.rels[r]) }

func (s *neighborStep) CompareRels(a, b int32) int {
	return compareKeys(s.rels[a].Key(), s.rels[b].Key())
}

func (s *neighborStep) relSource(r int32) int32 { return s.handles[s.rels[r].SourceID] }

var _ walkStepper = (*neighborStep)(nil)

// ExpandTyped implements walk.Stepper.
func (s *neighborStep) ExpandTyped(ctx context.Context, frontier []int32, dir traverse.Dir, visit func(int, int32, int32, int32, float64, bool)) error {
	_, _, err := s.Expand(ctx, frontier, dir, math.MaxInt, func(from int, to, rel int32, w float64) {
		visit(from, to, rel, s.relTypes[rel], w, s.relSource(rel) != frontier[from])
	})
	return err
}
func (s *neighborStep) TypeName(t int32) string { return s.typeNames[t] }
func (s *neighborStep) SameRel(a, b int32) bool { return s.CompareRels(a, b) == 0 }
func (s *neighborStep) NodeType(n int32) string { return s.entities[n].Type }
func (s *neighborStep) NodeName(n int32) string { return s.entities[n].Name }
func (s *neighborStep) IDHash(n int32) uint64   { return s.hashes[n] }

// relatedNeighborhood reads any KnowledgeGraph as a Neighborhood through
// GetRelated (one hop, for the neighbours), FindPaths (one hop, for every
// relation between an entity and a neighbour: GetRelated reports only the
// best one) and GetEntity, as of asOf. It reports what the graph's own
// Neighborhood would, except self-loops, which no search that walks simple
// paths follows.
type relatedNeighborhood struct {
	g    KnowledgeGraph
	asOf AsOf
}

// relatedPairPaths is how many relations between one pair of entities
// relatedNeighborhood asks FindPaths for at first; it asks again for more
// while the answer is full.
const relatedPairPaths = 16

// maxPairPaths is the most relations between one pair of entities that
// relatedNeighborhood asks for.
const maxPairPaths = 1 << 16

func (n relatedNeighborhood) Neighbors(ctx context.Context, ids []string, dir Direction, types []string, visit func(from int, r Relation)) error {
	for i, id := range ids {
		related, err := n.g.GetRelated(ctx, id, TraverseOptions{Depth: 1, Direction: dir, RelationTypes: types, AsOf: n.asOf})
		if errors.Is(err, ErrNotFound) {
			continue // removed since the walk reached it
		}
		if err != nil {
			return err
		}
		for _, s := range related {
			if len(s.Relations) != 1 {
				continue
			}
			rels, err := n.between(ctx, id, s.Entity.ID, dir, types)
			if err != nil {
				return err
			}
			if len(rels) == 0 {
				rels = s.Relations // removed or changed since GetRelated
			}
			for _, r := range rels {
				visit(i, r)
			}
		}
	}
	return nil
}

// between returns every relation that joins from to to in direction dir,
// restricted to types when not empty, each once.
func (n relatedNeighborhood) between(ctx context.Context, from, to string, dir Direction, types []string) ([]Relation, error) {
	for k := relatedPairPaths; ; k *= 2 {
		res, err := n.g.FindPaths(ctx, from, to, PathOptions{MaxHops: 1, Direction: dir, RelationTypes: types, MaxPaths: k, AsOf: n.asOf})
		switch {
		case errors.Is(err, ErrNoPath) || errors.Is(err, ErrNotFound):
			return nil, nil
		case err != nil:
			return nil, err
		case len(res.Paths) == k && !res.Truncated && k < maxPairPaths:
			continue // there may be more
		}
		rels := make([]Relation, 0, len(res.Paths))
		for _, p := range res.Paths {
			if len(p.Relations) == 1 {
				rels = append(rels, p.Relations[0])
			}
		}
		return rels, nil
	}
}

// Now is the graph's clock when it has one (see Clock), else time.Now.
func (n relatedNeighborhood) Now() time.Time {
	if c, ok := n.g.(Clock); ok {
		return c.Now()
	}
	return time.Now()
}

func (n relatedNeighborhood) Entities(ctx context.Context, ids []string) ([]Entity, error) {
	out := make([]Entity, len(ids))
	for i, id := range ids {
		e, ok, err := n.g.GetEntity(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("kgmem: entity %s: %w", quote.Value(id), ErrNotFound)
		}
		out[i] = e
	}
	return out, nil
}
