package kgmem

import (
	"context"
	"slices"
)

// RemoveSourceReport says what RemoveSource changed.
type RemoveSourceReport struct {
	EntitiesUpdated  int // entities that cited the source and cite others too
	EntitiesRemoved  int // entities that cited only the source
	RelationsUpdated int // relations that cited the source and cite others too
	RelationsRemoved int // relations that cited only the source, or joined a removed entity
}

// RemoveSource forgets a knowledge page: it strips sourceID from the
// SourceIDs of every entity and relation that cites it, then deletes the
// relations and entities left citing nothing (an entity's relations go
// with it). Entities and relations that never had sources are kept. All of
// it happens under one write lock, so readers see the graph before or
// after, never in between. An empty or invalid sourceID returns
// ErrInvalidArgument; a source nothing cites is not an error (the report
// is zero). Cost: O(entities + relations), a full scan.
func (g *InMemoryGraph) RemoveSource(ctx context.Context, sourceID string) (RemoveSourceReport, error) {
	m := &mutation{Op: opRemoveSource, ID: sourceID}
	if err := g.apply(ctx, m); err != nil {
		return RemoveSourceReport{}, err
	}
	return m.removed, nil
}

// cites reports whether any entity or relation cites sourceID.
func (g *InMemoryGraph) cites(sourceID string) bool {
	for i := range g.nodes {
		if m := g.nodes[i].more; m != nil && slices.Contains(m.sourceIDs, sourceID) {
			return true
		}
	}
	for i := range g.rels {
		if m := g.rels[i].more; m != nil && slices.Contains(m.sourceIDs, sourceID) {
			return true
		}
	}
	return false
}

// removeSource does RemoveSource's work; the caller holds g.mu for writing.
func (g *InMemoryGraph) removeSource(sourceID string) RemoveSourceReport {
	var rep RemoveSourceReport
	var deadRels []int32
	for i := range g.rels {
		rec := &g.rels[i]
		if !rec.live || rec.more == nil || !slices.Contains(rec.more.sourceIDs, sourceID) {
			continue
		}
		left := slices.DeleteFunc(slices.Clone(rec.more.sourceIDs), func(s string) bool { return s == sourceID })
		if len(left) == 0 {
			deadRels = append(deadRels, int32(i))
			continue
		}
		rec.more = &relMore{properties: rec.more.properties, sourceIDs: left, from: rec.more.from, to: rec.more.to}
		rep.RelationsUpdated++
	}
	for _, i := range deadRels {
		g.removeRel(i)
		rep.RelationsRemoved++
	}
	var deadNodes []string
	for s := range g.nodes {
		n := &g.nodes[s]
		if !n.live() || n.more == nil || !slices.Contains(n.more.sourceIDs, sourceID) {
			continue
		}
		left := slices.DeleteFunc(slices.Clone(n.more.sourceIDs), func(x string) bool { return x == sourceID })
		if len(left) == 0 {
			deadNodes = append(deadNodes, n.id)
			continue
		}
		more := *n.more
		more.sourceIDs = left
		n.more = &more
		rep.EntitiesUpdated++
	}
	for _, id := range deadNodes {
		rep.RelationsRemoved += g.removeEntity(g.ids[id])
		rep.EntitiesRemoved++
	}
	return rep
}
