package traverse

import (
	"cmp"
	"slices"
	"strings"
)

// Path is a path in handles: Nodes[0] is where it starts, and Rels[i]
// joins Nodes[i] and Nodes[i+1].
type Path struct {
	Nodes, Rels []int32
	Score       float64 // the product of the relations' weights
}

// Best keeps the k best paths offered to it, in the order Compare gives,
// with their handles in an arena of its own. The zero Best is empty; Reset
// it before offering paths.
type Best struct {
	st           Stepper
	k            int
	paths        []Path  // best first, at most k
	arena, spare []int32 // the nodes and relations of paths; see store
}

// Reset empties b, keeping its buffers, for the k best paths (at least
// one) of st.
func (b *Best) Reset(st Stepper, k int) {
	b.st, b.k = st, max(k, 1)
	b.paths, b.arena = b.paths[:0], b.arena[:0]
}

// Paths returns the paths kept, best first. They are b's until its next
// Reset.
func (b *Best) Paths() []Path { return b.paths }

// Threshold is the score a new path must reach to be kept: the k-th best
// score once k paths are kept, -1 before.
func (b *Best) Threshold() float64 {
	if len(b.paths) < b.k {
		return -1
	}
	return b.paths[len(b.paths)-1].Score
}

// Add keeps a copy of p if it is among the k best paths offered, pushing
// out the k-th, and reports whether it did. p's slices are not kept: a path
// that misses costs no memory.
func (b *Best) Add(p Path) bool {
	if len(b.paths) == b.k && b.Compare(p, b.paths[b.k-1]) >= 0 {
		return false
	}
	b.consider(b.store(p))
	return true
}

// store copies p's handles into the arena and returns p pointing at the
// copy. The arena holds the paths of one search; entries of paths that
// dropped out are not reused, but when the arena is full and mostly such
// garbage, the live paths move to the spare arena, which becomes the
// arena. Earlier backing arrays stay valid when the arena grows.
func (b *Best) store(p Path) Path {
	need := len(p.Nodes) + len(p.Rels)
	if len(b.arena)+need > cap(b.arena) {
		live := need
		for _, q := range b.paths {
			live += len(q.Nodes) + len(q.Rels)
		}
		if 2*live <= len(b.arena) {
			moved := b.spare[:0]
			for i := range b.paths {
				b.paths[i], moved = copyPath(moved, b.paths[i])
			}
			b.arena, b.spare = moved, b.arena[:0]
		}
	}
	p, b.arena = copyPath(b.arena, p)
	return p
}

// arenaCap is how many handles b's arenas can hold.
func (b *Best) arenaCap() int { return cap(b.arena) + cap(b.spare) }

// copyPath appends p's handles to arena and returns p pointing at the
// copy, its slices capped so that later appends never write into them.
func copyPath(arena []int32, p Path) (Path, []int32) {
	start := len(arena)
	arena = append(append(arena, p.Nodes...), p.Rels...)
	mid := start + len(p.Nodes)
	p.Nodes, p.Rels = arena[start:mid:mid], arena[mid:len(arena):len(arena)]
	return p, arena
}

// consider keeps p if it is among the k best paths seen.
func (b *Best) consider(p Path) {
	pos, _ := slices.BinarySearchFunc(b.paths, p, b.Compare)
	if pos >= b.k {
		return
	}
	if len(b.paths) == b.k {
		b.paths = b.paths[:b.k-1]
	}
	b.paths = slices.Insert(b.paths, pos, p)
}

// Compare orders complete paths: score descending, then fewer hops, then
// entity IDs, then relation keys, position by position. Two distinct paths
// never compare equal.
func (b *Best) Compare(x, y Path) int {
	if c := cmp.Compare(y.Score, x.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(len(x.Rels), len(y.Rels)); c != 0 {
		return c
	}
	for i := range x.Nodes {
		if x.Nodes[i] != y.Nodes[i] {
			return strings.Compare(b.st.ID(x.Nodes[i]), b.st.ID(y.Nodes[i]))
		}
	}
	for i := range x.Rels {
		if x.Rels[i] != y.Rels[i] {
			return b.st.CompareRels(x.Rels[i], y.Rels[i])
		}
	}
	return 0
}
