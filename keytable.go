package kgmem

// keyTable indexes the outgoing relations of an entity with many of them
// by key (target, type), so that AddRelation and GetRelation find a
// relation of a hub without scanning its adjacency list.
//
// It is an open-addressing hash table with linear probing that stores
// only positions in the entity's out list, 4 bytes each, hashed by key: a
// probe compares the target in the out entry, and loads the relation
// record for its type only when the target matches. It holds exactly the positions of the out list, so its load is
// len(out)/len(slots), kept at most maxKeyLoadNum/maxKeyLoadDen; removal
// shifts later entries back, leaving no tombstones.
type keyTable struct {
	// slots holds out position + 1, 0 for an empty slot; its length is a
	// power of two.
	slots []int32
}

// maxKeyLoadNum/maxKeyLoadDen is the largest share of a keyTable's slots
// in use.
const maxKeyLoadNum, maxKeyLoadDen = 3, 4

// newKeyTable indexes every relation of out.
func newKeyTable(g *InMemoryGraph, out []adj) *keyTable {
	t := &keyTable{}
	t.rebuild(g, out)
	return t
}

// rebuild sizes the table for out, at most half full, and indexes every
// position of it.
func (t *keyTable) rebuild(g *InMemoryGraph, out []adj) {
	size := 8
	for size < 2*len(out) {
		size *= 2
	}
	t.slots = make([]int32, size)
	for p := range out {
		t.place(keyOf(g, out, int32(p)), int32(p))
	}
}

// outKey is a relation's key among its source's outgoing relations.
type outKey struct{ dst, typ int32 }

// keyOf returns the key of the relation at out position p.
func keyOf(g *InMemoryGraph, out []adj, p int32) outKey {
	a := &out[p]
	return outKey{a.To, g.relTypes[a.Rel]}
}

// home is the first slot probed for key k.
func (t *keyTable) home(k outKey) int {
	h := (uint64(uint32(k.dst))<<32 | uint64(uint32(k.typ))) * 0x9e3779b97f4a7c15
	return int(h >> 32 & uint64(len(t.slots)-1))
}

// place stores out position p, whose relation has key k.
func (t *keyTable) place(k outKey, p int32) {
	mask := len(t.slots) - 1
	i := t.home(k)
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = p + 1
}

// slot returns the slot that holds out position p, whose relation has
// key k, or -1.
func (t *keyTable) slot(k outKey, p int32) int {
	mask := len(t.slots) - 1
	for i := t.home(k); t.slots[i] != 0; i = (i + 1) & mask {
		if t.slots[i] == p+1 {
			return i
		}
	}
	return -1
}

// find returns the slot of the relation of out to dst of type typ.
func (t *keyTable) find(g *InMemoryGraph, out []adj, dst, typ int32) (int32, bool) {
	mask := len(t.slots) - 1
	for i := t.home(outKey{dst, typ}); t.slots[i] != 0; i = (i + 1) & mask {
		if a := &out[t.slots[i]-1]; a.To == dst && g.relTypes[a.Rel] == typ {
			return a.Rel, true
		}
	}
	return 0, false
}

// insert indexes the last position of out, just appended.
func (t *keyTable) insert(g *InMemoryGraph, out []adj) {
	if len(out)*maxKeyLoadDen > len(t.slots)*maxKeyLoadNum {
		t.rebuild(g, out)
		return
	}
	p := int32(len(out) - 1)
	t.place(keyOf(g, out, p), p)
}

// remove drops out position p, about to be removed from out (the last
// position moving into it, see move), shifting back the entries of its
// probe run that would otherwise no longer be found.
func (t *keyTable) remove(g *InMemoryGraph, out []adj, p int32) {
	i := t.slot(keyOf(g, out, p), p)
	if i < 0 {
		return // not indexed; cannot happen while the invariants hold
	}
	mask := len(t.slots) - 1
	t.slots[i] = 0
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		h := t.home(keyOf(g, out, t.slots[j]-1))
		// The entry at j stays when its home lies cyclically in (i, j].
		if i <= j && i < h && h <= j || i > j && (i < h || h <= j) {
			continue
		}
		t.slots[i], t.slots[j] = t.slots[j], 0
		i = j
	}
}

// move records that the relation at out position from, of key k, now
// sits at position to.
func (t *keyTable) move(k outKey, from, to int32) {
	if i := t.slot(k, from); i >= 0 {
		t.slots[i] = to + 1
	}
}

// len returns the number of positions indexed.
func (t *keyTable) len() int {
	n := 0
	for _, s := range t.slots {
		if s != 0 {
			n++
		}
	}
	return n
}
