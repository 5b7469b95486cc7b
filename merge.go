package kgmem

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

var _ EntityMerger = (*InMemoryGraph)(nil)

// Merge merges the entity from into the entity into, for two entities that
// are one thing (an extraction's "Acme" and "ACME Corporation"), as one
// write, and removes from:
//   - into keeps its ID, name, type and, unless it has none, its
//     description; from's name (when it is not into's name or an alias of
//     it) and aliases become aliases of into, after its own; tags and
//     source IDs become the union, into's first; properties into lacks
//     are taken from from;
//   - every relation of from is moved to into, keeping its type, weight,
//     properties, sources and valid time; one whose moved key into already
//     holds merges into that relation (its weight and properties kept,
//     and its valid time unless it has none, in which case the moved
//     relation's is taken; properties it lacks and sources added);
//     relations between
//     from and into are dropped, since they would relate the entity to
//     itself, while a self-loop of from becomes one of into.
//
// It returns an error wrapping ErrInvalidArgument when an ID is empty,
// only white space, too long or not valid UTF-8, or when from equals into;
// one
// wrapping ErrNotFound when either entity does not exist. On error the
// graph is unchanged. Cost: O(degree of from + tags and aliases of both).
func (g *InMemoryGraph) Merge(ctx context.Context, from, into string) error {
	return g.apply(ctx, &mutation{Op: opMerge, ID: from, Into: into})
}

// mergePlan is what an opMerge mutation writes, worked out under the lock
// by resolve.
type mergePlan struct {
	entity    Entity
	more      *entityMore
	relations []Relation
	relMores  []*relMore
}

// checkMerge checks an opMerge mutation on its own.
func checkMerge(m *mutation) error {
	if m.Entities != nil || m.Relations != nil || m.Key != nil || m.Tags != nil {
		return malformed(m.Op)
	}
	if err := validateID("entity", m.ID); err != nil {
		return err
	}
	if err := validateID("entity", m.Into); err != nil {
		return err
	}
	if m.ID == m.Into {
		return fmt.Errorf("kgmem: merge entity %s into itself: %w", quote.Value(m.ID), ErrInvalidArgument)
	}
	return nil
}

// resolveMerge works out the merge of m.ID into m.Into; the caller holds
// g.mu for writing.
func (g *InMemoryGraph) resolveMerge(m *mutation) error {
	what := fmt.Sprintf("kgmem: merge entity %s into %s", quote.Value(m.ID), quote.Value(m.Into))
	from, ok := g.ids[m.ID]
	if !ok {
		return fmt.Errorf("%s: entity %s: %w", what, quote.Value(m.ID), ErrNotFound)
	}
	into, ok := g.ids[m.Into]
	if !ok {
		return fmt.Errorf("%s: entity %s: %w", what, quote.Value(m.Into), ErrNotFound)
	}
	src, dst := g.nodes[from].entity(), g.nodes[into].entity()
	e := mergeEntity(dst, src)
	tags, err := normalizeTags(e.Tags, g.tags.MaxTagsPerEntity)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	e.Tags = tags
	plan := &mergePlan{entity: e, more: newEntityMore(&e, tags)}
	// Moved relations, in adjacency order; a key moved twice (from's
	// relation and into's, or two of from's) merges in order.
	at := make(map[RelationKey]int)
	move := func(r Relation) {
		k := r.Key()
		if i, ok := at[k]; ok {
			plan.relations[i] = mergeRelation(plan.relations[i], r)
			return
		}
		if i, ok := g.lookupRel(k.SourceID, k.TargetID, k.Type); ok {
			r = mergeRelation(g.relation(i), r)
		}
		at[k] = len(plan.relations)
		plan.relations = append(plan.relations, r)
	}
	n := &g.nodes[from]
	for _, list := range [2][]adj{n.out, n.in} {
		for _, a := range list {
			if a.To == into {
				continue // between the two: dropped
			}
			r := g.relation(a.Rel)
			if r.SourceID == m.ID {
				r.SourceID = m.Into
			}
			if r.TargetID == m.ID {
				r.TargetID = m.Into
			}
			if _, ok := at[r.Key()]; ok && r.SourceID == r.TargetID && a.To == from {
				continue // a self-loop is listed in both directions
			}
			move(r)
		}
	}
	plan.relMores = make([]*relMore, len(plan.relations))
	for i := range plan.relations {
		plan.relMores[i] = newRelMore(&plan.relations[i])
	}
	m.slot, m.merge = from, plan
	return nil
}

// doMerge applies a resolved opMerge mutation; the caller holds g.mu for
// writing.
func (g *InMemoryGraph) doMerge(m *mutation) {
	plan := m.merge
	g.removeEntity(m.slot)
	g.putEntity(&plan.entity, plan.more)
	for i := range plan.relations {
		r := &plan.relations[i]
		g.putRelation(g.ids[r.SourceID], g.ids[r.TargetID], r.Type, r.Weight, plan.relMores[i])
	}
}

// mergeEntity returns into with from merged into it, by the rules of
// InMemoryGraph.Merge; tags are united but not yet normalised.
func mergeEntity(into, from Entity) Entity {
	e := into
	if e.Description == "" {
		e.Description = from.Description
	}
	e.Aliases = textrule.UnionAliases(into.Name, into.Aliases, append([]string{from.Name}, from.Aliases...))
	e.Tags = unionTags(into.Tags, from.Tags)
	e.SourceIDs = unionSources(into.SourceIDs, from.SourceIDs)
	for k, v := range from.Properties {
		if _, ok := e.Properties[k]; !ok {
			if e.Properties == nil {
				e.Properties = make(map[string]string, len(from.Properties))
			}
			e.Properties[k] = v
		}
	}
	return e
}

// mergeRelation returns held with moved merged into it: held's weight,
// properties and valid time kept (moved's valid time when held has none),
// properties it lacks and sources added.
func mergeRelation(held, moved Relation) Relation {
	r := held
	for k, v := range moved.Properties {
		if _, ok := r.Properties[k]; !ok {
			if r.Properties == nil {
				r.Properties = make(map[string]string, len(moved.Properties))
			}
			r.Properties[k] = v
		}
	}
	r.SourceIDs = unionSources(held.SourceIDs, moved.SourceIDs)
	if !held.HasValidity() {
		r.ValidFrom, r.ValidTo = moved.ValidFrom, moved.ValidTo
	}
	return r
}

// unionSources returns the source IDs of a, then those of b that a lacks,
// each once.
func unionSources(a, b []string) []string {
	var out uniqueStrings
	for _, list := range [2][]string{a, b} {
		for _, s := range list {
			out.Add(s)
		}
	}
	return out.Items
}
