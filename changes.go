package kgmem

import (
	"context"
	"slices"
	"strings"
)

// EntityChanges is the answer of EntityChangeFeed.EntityChanges.
type EntityChanges struct {
	// Version is the graph's version now: pass it as since next time.
	// Versions are opaque: only the graph that issued one (for pgraph, the
	// same database) can serve it.
	Version uint64
	// Reset reports that since could not be served (too old, from before
	// the graph's contents were replaced by ReadFrom or emptied by
	// pgraph.Graph.Clear, or never issued by this graph): Changed holds every entity, and a consumer forgets
	// everything else it kept.
	Reset bool
	// Changed holds the entities added or written since (AddEntity,
	// AddBatch, SetEntityTags, RemoveSource), as they are now, ordered by
	// ID. It may also hold entities written before since, again (see
	// EntityChangeFeed).
	Changed []Entity
	// Removed holds the IDs of entities removed since and absent now,
	// sorted; it may also hold IDs removed before since. Without Reset, an
	// ID is in at most one of Changed and Removed.
	Removed []string
}

var _ EntityChangeFeed = (*InMemoryGraph)(nil)

// maxChangeLog bounds the change log: once more entity writes than this
// happened since a consumer's version, it gets a Reset. The log costs at
// most 2 × maxChangeLog entries of a string header and a version.
const maxChangeLog = 1 << 14

// changeLog records which entities were written, in order, numbering the
// writes. Its zero value is empty and usable.
//
// Invariant: version is the number of the last write (0 before any);
// events holds the writes numbered base+1 … version in order, and
// version == base + len(events).
type changeLog struct {
	version uint64
	base    uint64
	events  []string // entity IDs
}

// record notes a write to entity id; the caller holds the graph's mu for
// writing.
func (c *changeLog) record(id string) {
	c.version++
	if len(c.events) == 2*maxChangeLog {
		drop := len(c.events) - maxChangeLog
		c.events = append(c.events[:0], c.events[drop:]...)
		c.base += uint64(drop)
	}
	c.events = append(c.events, id)
}

// reset starts a new log after the graph's contents were replaced: every
// earlier version gets a Reset.
func (c *changeLog) reset() {
	c.version++
	c.base = c.version
	c.events = nil
}

// EntityChanges returns the entities written and removed since version
// since (see EntityChangeFeed). The graph keeps a log of its last 16,384
// entity writes: the cost is O(writes since) when since is within it, and
// a Reset listing every entity, O(n log n), when it is not (since 0, an
// old version, or one from before ReadFrom replaced the graph). A version
// that no write has reached is served as a Reset too.
func (g *InMemoryGraph) EntityChanges(ctx context.Context, since uint64) (EntityChanges, error) {
	if err := ctx.Err(); err != nil {
		return EntityChanges{}, err
	}
	if err := g.rlock(); err != nil {
		return EntityChanges{}, err
	}
	c := &g.changes
	out := EntityChanges{Version: c.version}
	switch {
	case since == c.version && since != 0:
		g.mu.RUnlock()
		return out, nil
	case since == 0 || since < c.base || since > c.version:
		out.Reset = true
		out.Changed = make([]Entity, 0, len(g.ids))
		for i := range g.nodes {
			if g.nodes[i].live() {
				out.Changed = append(out.Changed, g.nodes[i].entity())
			}
		}
	default:
		seen := make(map[string]bool)
		for _, id := range c.events[since-c.base:] {
			if seen[id] {
				continue
			}
			seen[id] = true
			if s, ok := g.ids[id]; ok {
				out.Changed = append(out.Changed, g.nodes[s].entity())
			} else {
				out.Removed = append(out.Removed, id)
			}
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out.Changed, func(a, b Entity) int { return strings.Compare(a.ID, b.ID) })
	slices.Sort(out.Removed)
	return out, nil
}
