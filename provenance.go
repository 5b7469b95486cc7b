package kgmem

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/citeindex"
	"github.com/kgmem/kgmem/internal/quote"
)

var _ SourceIndex = (*InMemoryGraph)(nil)

// sourceIndex maps the page IDs that entities and relations cite to the
// slots citing them. Its zero value is empty and usable.
//
// Invariant (with the graph's mu): ents[p] holds exactly the live entity
// slots whose SourceIDs contain p, rels[p] the live relation slots whose
// SourceIDs contain p, and neither holds an empty set.
type sourceIndex struct {
	ents, rels citeindex.Index
}

// entity and relation record that slot s cites the sources of more (add)
// or no longer does; the caller holds the graph's mu for writing.
func (x *sourceIndex) entity(s int32, more *entityMore, add bool) {
	if more == nil {
		return
	}
	if add {
		x.ents.Add(more.sourceIDs, s)
	} else {
		x.ents.Remove(more.sourceIDs, s)
	}
}

func (x *sourceIndex) relation(i int32, more *relMore, add bool) {
	if more == nil {
		return
	}
	if add {
		x.rels.Add(more.sourceIDs, i)
	} else {
		x.rels.Remove(more.sourceIDs, i)
	}
}

// replaceEntity and replaceRelation record that slot s, citing the
// sources of old, now cites those of new (see citeindex.Index.Replace: an
// entity or relation that one more page states costs what it adds).
func (x *sourceIndex) replaceEntity(s int32, old, new *entityMore) {
	var o, n []string
	if old != nil {
		o = old.sourceIDs
	}
	if new != nil {
		n = new.sourceIDs
	}
	x.ents.Replace(o, n, s)
}

func (x *sourceIndex) replaceRelation(i int32, old, new *relMore) {
	var o, n []string
	if old != nil {
		o = old.sourceIDs
	}
	if new != nil {
		n = new.sourceIDs
	}
	x.rels.Replace(o, n, i)
}

// EntitiesCitedBy returns, for each of pageIDs, the IDs of the entities
// whose SourceIDs cite it, sorted; pages nothing cites are absent. It
// reads an index kept on every write: the cost is O(pages + entities
// returned), whatever the size of the graph. An empty, whitespace-only
// or invalid page ID returns an error wrapping ErrInvalidArgument.
func (g *InMemoryGraph) EntitiesCitedBy(ctx context.Context, pageIDs []string) (map[string][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, id := range pageIDs {
		if err := validateSourceID(id); err != nil {
			return nil, fmt.Errorf("kgmem: entities cited by page %s: %w", quote.Value(id), err)
		}
	}
	if err := g.rlock(); err != nil {
		return nil, err
	}
	out := make(map[string][]string)
	for _, p := range pageIDs {
		if g.sources.ents.Count(p) == 0 || out[p] != nil {
			continue
		}
		slots := g.sources.ents.Slots(p)
		ids := make([]string, len(slots))
		for i, s := range slots {
			ids[i] = g.nodes[s].id
		}
		out[p] = ids
	}
	g.mu.RUnlock()
	for _, ids := range out {
		slices.SortFunc(ids, strings.Compare)
	}
	return out, nil
}

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
// is zero). Cost: O(what cites the source), read from an index kept on
// every write (see SourceIndex), plus the cascade of removed entities.
func (g *InMemoryGraph) RemoveSource(ctx context.Context, sourceID string) (RemoveSourceReport, error) {
	m := &mutation{Op: opRemoveSource, ID: sourceID}
	if err := g.apply(ctx, m); err != nil {
		return RemoveSourceReport{}, err
	}
	return m.removed, nil
}

// cites reports whether any entity or relation cites sourceID.
func (g *InMemoryGraph) cites(sourceID string) bool {
	return g.sources.ents.Count(sourceID) > 0 || g.sources.rels.Count(sourceID) > 0
}

// removeSource does RemoveSource's work; the caller holds g.mu for writing.
func (g *InMemoryGraph) removeSource(sourceID string) RemoveSourceReport {
	var rep RemoveSourceReport
	// Slots in ascending order, as a scan would meet them.
	var deadRels []int32
	for _, i := range g.sources.rels.Slots(sourceID) {
		rec := &g.rels[i]
		left := slices.DeleteFunc(slices.Clone(rec.more.sourceIDs), func(s string) bool { return s == sourceID })
		if len(left) == 0 {
			deadRels = append(deadRels, i)
			continue
		}
		g.sources.relation(i, rec.more, false)
		rec.more = &relMore{properties: rec.more.properties, sourceIDs: left, from: rec.more.from, to: rec.more.to}
		g.sources.relation(i, rec.more, true)
		rep.RelationsUpdated++
	}
	for _, i := range deadRels {
		g.removeRel(i)
		rep.RelationsRemoved++
	}
	var deadNodes []string
	for _, s := range g.sources.ents.Slots(sourceID) {
		n := &g.nodes[s]
		left := slices.DeleteFunc(slices.Clone(n.more.sourceIDs), func(x string) bool { return x == sourceID })
		if len(left) == 0 {
			deadNodes = append(deadNodes, n.id)
			continue
		}
		g.sources.entity(s, n.more, false)
		more := *n.more
		more.sourceIDs = left
		n.more = &more
		g.sources.entity(s, n.more, true)
		g.changes.record(n.id)
		rep.EntitiesUpdated++
	}
	for _, id := range deadNodes {
		rep.RelationsRemoved += g.removeEntity(g.ids[id])
		rep.EntitiesRemoved++
	}
	return rep
}
