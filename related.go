package kgmem

import (
	"context"

	"github.com/kgmem/kgmem/internal/traverse"
)

// Related is the answer of InMemoryGraph.Related: the entities GetRelated
// returns, in the same order, each with its score, its hop count and a link
// to the result its best path arrives from, without copies of entities,
// paths or relations. Those are built on demand: Path and RelationKey from
// the links, Entity and Relation by reading the graph.
//
// A Related is a snapshot of IDs, scores, hops, links and relation keys,
// taken under the graph's read lock: later writes to the graph do not
// change it, and it stays valid and safe to use from any goroutine after
// them. Entity and Relation read the graph as it is when they are called,
// so they see later writes (an entity or relation removed since is
// reported missing). The zero Related is an empty answer. Index i runs
// from 0 to Len()-1; the methods taking an index panic on one outside
// that range, as indexing a slice does.
type Related struct {
	g     *InMemoryGraph
	start string
	items []relatedItem
}

// relatedItem is one entity of a Related.
type relatedItem struct {
	id     string
	typ    string // type of the relation the best path arrives by
	score  float64
	parent int32  // index of the item the path arrives from; -1: the start
	hops   uint32 // hop count, with revBit set when the relation runs from this item to its parent
}

// revBit marks, in relatedItem.hops, a relation walked from its target.
const revBit = 1 << 31

// Len returns the number of entities reached.
func (r *Related) Len() int { return len(r.items) }

// Start returns the ID of the entity the traversal started from.
func (r *Related) Start() string { return r.start }

// ID returns the ID of the i-th entity.
func (r *Related) ID(i int) string { return r.items[i].id }

// Score returns the i-th entity's score: the product of the weights along
// its best path, as ScoredEntity.Score.
func (r *Related) Score(i int) float64 { return r.items[i].score }

// Hops returns the number of relations on the i-th entity's path, at least 1.
func (r *Related) Hops(i int) int { return int(r.items[i].hops &^ revBit) }

// Parent returns the index of the result the i-th entity's best path
// arrives from, always below i, or -1 when the path starts at Start
// (Hops(i) == 1).
func (r *Related) Parent(i int) int { return int(r.items[i].parent) }

// RelationKey returns the key of the relation by which the i-th entity's
// best path arrives: the last relation of ScoredEntity.Relations.
func (r *Related) RelationKey(i int) RelationKey {
	it := &r.items[i]
	from := r.start
	if it.parent >= 0 {
		from = r.items[it.parent].id
	}
	if it.hops&revBit != 0 {
		return RelationKey{SourceID: it.id, TargetID: from, Type: it.typ}
	}
	return RelationKey{SourceID: from, TargetID: it.id, Type: it.typ}
}

// Path returns the IDs along the i-th entity's best path, from Start to
// ID(i), as ScoredEntity.Path: a new slice of Hops(i)+1 IDs.
func (r *Related) Path(i int) []string {
	hops := r.Hops(i)
	path := make([]string, hops+1)
	path[0] = r.start
	for k, j := hops, int32(i); j >= 0; k, j = k-1, r.items[j].parent {
		path[k] = r.items[j].id
	}
	return path
}

// Entity returns the i-th entity as the graph holds it now; ok is false
// when it has been removed since. It fails as GetEntity does.
func (r *Related) Entity(ctx context.Context, i int) (e Entity, ok bool, err error) {
	return r.g.GetEntity(ctx, r.items[i].id)
}

// Relation returns the relation with key RelationKey(i) as the graph holds
// it now; ok is false when it has been removed since. It fails as
// GetRelation does.
func (r *Related) Relation(ctx context.Context, i int) (rel Relation, ok bool, err error) {
	k := r.RelationKey(i)
	return r.g.GetRelation(ctx, k.SourceID, k.TargetID, k.Type)
}

// Related answers the question GetRelated answers, with the same options,
// validation, errors and order, as a compact snapshot (see Related) that
// copies no entity, path or relation: about 48 bytes per entity reached,
// in one allocation. GetRelated is Related with every entity, path and
// relation copied out under the same read lock; use Related when only
// some of them are read.
func (g *InMemoryGraph) Related(ctx context.Context, id string, opts TraverseOptions) (*Related, error) {
	var res *Related
	err := g.traverseFrom(ctx, id, &opts, func(st *memStep, t *traverse.Traversal, start int32) error {
		ranked, hop, err := t.Rank(ctx, st, start, relatedQuery(opts))
		if err == nil {
			res, err = snapshot(ctx, g, t, start, ranked)
		}
		t.End(hop)
		if err != nil {
			return err
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// snapshot builds the Related of the ranked handles, reading t's parent
// links; it returns ctx.Err() if ctx is cancelled meanwhile.
func snapshot(ctx context.Context, g *InMemoryGraph, t *traverse.Traversal, start int32, ranked []traverse.Ranked) (*Related, error) {
	res := &Related{g: g, start: g.nodes[start].id}
	if len(ranked) == 0 {
		return res, nil
	}
	items := make([]relatedItem, len(ranked))
	nodes, rels, names := g.nodes, g.rels, g.types.names
	// Three passes, each with one scattered read per item (the entity, the
	// relation's type, then its record), which the processor overlaps
	// better than several reads in one.
	for i, rn := range ranked {
		if i&(materializeCheckEvery-1) == materializeCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := rn.N
		parent := int32(-1)
		if p, _ := t.Via(v); p != start {
			parent = t.Index(p)
		}
		t.SetIndex(v, int32(i))
		items[i] = relatedItem{id: nodes[v].id, score: rn.Score, parent: parent, hops: rn.Hop}
	}
	for i, rn := range ranked {
		if i&(materializeCheckEvery-1) == materializeCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		_, via := t.Via(rn.N)
		items[i].typ = names[g.relTypes[via]]
	}
	for i, rn := range ranked {
		if i&(materializeCheckEvery-1) == materializeCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if _, via := t.Via(rn.N); rels[via].src == rn.N {
			items[i].hops |= revBit
		}
	}
	res.items = items
	return res, nil
}

// Degree implements traverse.Degreer.
func (s *memStep) Degree(n int32, dir traverse.Dir) int {
	node := &s.g.nodes[n]
	switch dir {
	case traverse.Out:
		return len(node.out)
	case traverse.In:
		return len(node.in)
	}
	return len(node.out) + len(node.in)
}
