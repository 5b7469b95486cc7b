package kgmem

import (
	"context"
	"errors"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// opReader turns fuzz input into a sequence of small choices.
type opReader struct{ data []byte }

func (r *opReader) next(n int) int {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return int(b) % n
}

var (
	fuzzIDs     = []string{"a", "b", "c", "person:张三", "d:e", "", "\xff"}
	fuzzTypes   = []string{"knows", "works_on", "part_of", "", "\xfe"}
	fuzzTags    = []string{"go", " Go ", "GO", "", "数据库", "rust", "x", "y", "z", "w", "\xff"}
	fuzzSources = []string{"doc1", "doc2", ""}
	fuzzWeights = []float64{0, 0.25, 0.5, 1, -0.5, 1.5, math.NaN(), math.Inf(1)}
)

// graphModel is the obvious map-based model of a graph's contents.
type graphModel struct {
	entities  map[string]Entity
	relations map[RelationKey]Relation
}

// removeSource is RemoveSource's documented effect on the model.
func (m *graphModel) removeSource(src string) {
	strip := func(ids []string) ([]string, bool) {
		if !slices.Contains(ids, src) {
			return ids, false
		}
		left := slices.DeleteFunc(slices.Clone(ids), func(s string) bool { return s == src })
		if len(left) == 0 {
			left = nil
		}
		return left, true
	}
	for k, r := range m.relations {
		if left, ok := strip(r.SourceIDs); ok {
			if left == nil {
				delete(m.relations, k)
				continue
			}
			r.SourceIDs = left
			m.relations[k] = r
		}
	}
	for id, e := range m.entities {
		if left, ok := strip(e.SourceIDs); ok {
			if left == nil {
				delete(m.entities, id)
				for k := range m.relations {
					if k.SourceID == id || k.TargetID == id {
						delete(m.relations, k)
					}
				}
				continue
			}
			e.SourceIDs = left
			m.entities[id] = e
		}
	}
}

func (m *graphModel) snapshot() ([]Entity, []Relation) {
	es := slices.SortedFunc(maps.Values(m.entities), func(a, b Entity) int { return strings.Compare(a.ID, b.ID) })
	rs := slices.SortedFunc(maps.Values(m.relations), func(a, b Relation) int { return compareKeys(a.Key(), b.Key()) })
	return es, rs
}

// applyFuzzOps applies the operations encoded in data to g and to a model,
// checking after every step that g's invariants hold, that g holds what the
// model holds, and that a failed write changed nothing.
func applyFuzzOps(t *testing.T, data []byte) {
	ctx := context.Background()
	g := NewInMemoryGraph(WithTagConstraints(TagConstraints{MaxTagsPerEntity: 3}))
	m := &graphModel{entities: map[string]Entity{}, relations: map[RelationKey]Relation{}}
	r := &opReader{data: data}
	pick := func(from []string) string { return from[r.next(len(from))] }
	pickTags := func() []string {
		tags := make([]string, r.next(5))
		for i := range tags {
			tags[i] = pick(fuzzTags)
		}
		return tags
	}
	for step := 0; len(r.data) > 0 && step < 200; step++ {
		beforeE, beforeR := m.snapshot()
		var err error
		op := r.next(9)
		switch op {
		case 0, 1:
			e := Entity{ID: pick(fuzzIDs), Name: pick(fuzzIDs), Tags: pickTags()}
			if r.next(2) == 1 {
				e.Aliases = []string{pick(fuzzIDs)}
			}
			if r.next(2) == 1 {
				e.SourceIDs = []string{pick(fuzzSources)}
			}
			err = g.AddEntity(ctx, e)
			if err == nil {
				norm, _ := normalizeTags(e.Tags, 3)
				e.Tags = norm
				m.entities[e.ID] = e
			}
		case 2:
			id := pick(fuzzIDs)
			err = g.RemoveEntity(ctx, id)
			if err == nil {
				delete(m.entities, id)
				for k := range m.relations {
					if k.SourceID == id || k.TargetID == id {
						delete(m.relations, k)
					}
				}
			}
		case 3, 4:
			rel := Relation{SourceID: pick(fuzzIDs), TargetID: pick(fuzzIDs), Type: pick(fuzzTypes), Weight: fuzzWeights[r.next(len(fuzzWeights))]}
			if r.next(2) == 1 {
				rel.SourceIDs = []string{pick(fuzzSources), pick(fuzzSources)}
			}
			err = g.AddRelation(ctx, rel)
			if err == nil {
				m.relations[rel.Key()] = rel
			}
		case 5:
			k := RelationKey{pick(fuzzIDs), pick(fuzzIDs), pick(fuzzTypes)}
			err = g.RemoveRelation(ctx, k.SourceID, k.TargetID, k.Type)
			if err == nil {
				delete(m.relations, k)
			}
		case 6:
			id, tags := pick(fuzzIDs), pickTags()
			var n int
			n, err = g.SetEntityTags(ctx, id, tags)
			if err == nil {
				e := m.entities[id]
				e.Tags, _ = normalizeTags(tags, 3)
				if n != len(e.Tags) {
					t.Fatalf("SetEntityTags returned %d, kept %d", n, len(e.Tags))
				}
				m.entities[id] = e
			}
		case 8:
			src := pick(fuzzSources)
			_, err = g.RemoveSource(ctx, src)
			if err == nil {
				m.removeSource(src)
			}
		case 7:
			opts := TraverseOptions{Depth: r.next(4), Direction: Direction(r.next(4)), MaxNodesPerHop: r.next(3), Limit: r.next(3)}
			if r.next(2) == 1 {
				opts.RelationTypes = []string{pick(fuzzTypes)}
			}
			var res []ScoredEntity
			res, err = g.GetRelated(ctx, pick(fuzzIDs), opts)
			for _, s := range res {
				if len(s.Relations) != len(s.Path)-1 || s.Score < 0 || s.Score > 1 {
					t.Fatalf("malformed result %+v", s)
				}
			}
		}
		if err != nil && !errors.Is(err, ErrInvalidArgument) && !errors.Is(err, ErrNotFound) {
			t.Fatalf("step %d op %d: error wraps no sentinel: %v", step, op, err)
		}
		if err := g.checkInvariants(); err != nil {
			t.Fatalf("step %d op %d: %v", step, op, err)
		}
		gotE, _ := g.Entities(ctx)
		gotR, _ := g.Relations(ctx)
		wantE, wantR := m.snapshot()
		if !reflect.DeepEqual(nilIfEmptyE(gotE), nilIfEmptyE(wantE)) || !reflect.DeepEqual(nilIfEmptyR(gotR), nilIfEmptyR(wantR)) {
			t.Fatalf("step %d op %d (err %v): graph holds\n%+v\n%+v\nmodel holds\n%+v\n%+v", step, op, err, gotE, gotR, wantE, wantR)
		}
		if err != nil && (!reflect.DeepEqual(beforeE, wantE) || !reflect.DeepEqual(beforeR, wantR)) {
			t.Fatalf("step %d op %d: failed write changed the model", step, op)
		}
	}
}

func nilIfEmptyE(s []Entity) []Entity {
	if len(s) == 0 {
		return nil
	}
	for i := range s {
		if len(s[i].Tags) == 0 {
			s[i].Tags = nil
		}
		if len(s[i].Aliases) == 0 {
			s[i].Aliases = nil
		}
	}
	return s
}

func nilIfEmptyR(s []Relation) []Relation {
	if len(s) == 0 {
		return nil
	}
	return s
}

func FuzzGraphOps(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 1, 1, 1, 3, 0, 1, 0, 2, 7, 0, 2, 2, 0, 0})
	f.Add([]byte{0, 3, 3, 2, 1, 4, 0, 4, 4, 0, 3, 3, 3, 0, 3, 3, 4, 1, 2, 3, 6, 3, 3, 1, 1, 2, 5, 3, 4, 0})
	f.Add([]byte{1, 0, 0, 4, 4, 5, 6, 7, 3, 0, 0, 0, 3, 6, 0, 4, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		applyFuzzOps(t, data)
	})
}
