// Package traverse holds kgmem's graph searches over handles: the best
// simple paths between two entities (PathSearch, FindPaths' algorithm) and
// the read access they need from a graph (Stepper). A handle is a small
// non-negative integer that stands for an entity or a relation during one
// search: the in-memory graph uses its slot numbers, a database backend
// interns the IDs it reads. Everything about ordering, ties, caps and
// budgets lives here, so every backend that implements Stepper gives the
// same answers; package kgmem turns handles back into entities, relations
// and paths.
package traverse

import "context"

// Dir is a direction relations are walked in; its values are those of
// kgmem.Direction.
type Dir uint8

const (
	Out  Dir = iota // from source to target
	In              // from target to source
	Both            // either way
)

// Reverse returns the direction that walks the same relations from the
// other end.
func (d Dir) Reverse() Dir {
	switch d {
	case Out:
		return In
	case In:
		return Out
	}
	return d
}

// Stepper is the read access the searches need from a graph.
type Stepper interface {
	// Expand calls visit once for every relation that leaves an entity of
	// frontier in direction dir and passes the stepper's relation-type
	// filter: from is the index in frontier, to the handle of the entity
	// at the relation's other end, rel the relation's handle and w its
	// weight. An entity that appears at several indexes of frontier has
	// its relations visited once for each.
	//
	// It scans at most limit relations, counting those the type filter
	// drops where it sees them, and returns how many it scanned and
	// whether it stopped at limit with relations left. It checks ctx
	// every few thousand relations and returns ctx.Err() when it is
	// cancelled.
	Expand(ctx context.Context, frontier []int32, dir Dir, limit int, visit func(from int, to, rel int32, w float64)) (scanned int, cut bool, err error)
	// ID returns the entity ID behind node handle n.
	ID(n int32) string
	// CompareRels orders relation handles by relation key.
	CompareRels(a, b int32) int
}

// Degreer is a Stepper that can tell how many relations Expand scans for
// one entity.
type Degreer interface {
	// Degree returns how many relations leave node n in direction dir,
	// before any type filter.
	Degree(n int32, dir Dir) int
}
