package kgmem

import (
	"fmt"
	"slices"

	"github.com/kgmem/kgmem/internal/nameindex"
	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/kgmem/kgmem/internal/walk"
)

// checkInvariants verifies every invariant documented on InMemoryGraph and
// returns the first one broken.
func (g *InMemoryGraph) checkInvariants() error {
	g.mu.RLock()
	defer g.mu.RUnlock()

	free := make(map[int32]bool)
	for _, s := range g.freeNodes {
		if free[s] {
			return fmt.Errorf("node slot %d is on the free list twice", s)
		}
		free[s] = true
	}
	live := 0
	for s := range g.nodes {
		n := &g.nodes[s]
		if n.live() == free[int32(s)] {
			return fmt.Errorf("node slot %d: live=%v but on free list=%v", s, n.live(), free[int32(s)])
		}
		if !n.live() {
			if n.id != "" || len(n.out) > 0 || len(n.in) > 0 || n.more != nil {
				return fmt.Errorf("free node slot %d holds data", s)
			}
			continue
		}
		live++
		if got, ok := g.ids[n.id]; !ok || got != int32(s) {
			return fmt.Errorf("ids[%q] = %d, %v; want slot %d", n.id, got, ok, s)
		}
	}
	if live != len(g.ids) {
		return fmt.Errorf("%d live nodes but %d IDs", live, len(g.ids))
	}

	freeRel := make(map[int32]bool)
	for _, r := range g.freeRels {
		if freeRel[r] {
			return fmt.Errorf("relation slot %d is on the free list twice", r)
		}
		freeRel[r] = true
	}
	liveRels, typeRefs, keys := 0, make(map[int32]int32), make(map[relKey]int32)
	timed := 0
	for i := range g.rels {
		r := &g.rels[i]
		if r.live() == freeRel[int32(i)] {
			return fmt.Errorf("relation slot %d: live=%v but on free list=%v", i, r.live(), freeRel[int32(i)])
		}
		if !r.live() {
			if *r != (relRec{src: -1}) {
				return fmt.Errorf("free relation slot %d holds %+v", i, *r)
			}
			continue
		}
		if int(r.src) >= len(g.nodes) || int(r.outPos) >= len(g.nodes[r.src].out) {
			return fmt.Errorf("relation slot %d: source %d or out position %d out of range", i, r.src, r.outPos)
		}
		end := g.nodes[r.src].out[r.outPos]
		liveRels++
		if r.more.timed() {
			timed++
		}
		typeRefs[g.relTypes[i]]++
		if !g.nodes[r.src].live() || !g.nodes[end.To].live() {
			return fmt.Errorf("relation slot %d joins a free node slot", i)
		}
		k := relKey{r.src, end.To, g.relTypes[i]}
		if other, dup := keys[k]; dup {
			return fmt.Errorf("relation slots %d and %d share a key", other, i)
		}
		keys[k] = int32(i)
		if got, ok := g.findRel(k); !ok || got != int32(i) {
			return fmt.Errorf("findRel for relation slot %d = %d, %v", i, got, ok)
		}
		if end.Rel != int32(i) {
			return fmt.Errorf("relation slot %d: out[%d] of its source does not point back", i, r.outPos)
		}
		in := g.nodes[end.To].in
		if int(r.inPos) >= len(in) || in[r.inPos] != (adj{To: r.src, Rel: int32(i), W: end.W}) {
			return fmt.Errorf("relation slot %d: in[%d] of its target does not point back", i, r.inPos)
		}
	}
	if liveRels != g.relCount {
		return fmt.Errorf("%d live relations but relCount %d", liveRels, g.relCount)
	}
	if timed != g.timed {
		return fmt.Errorf("%d live relations with a valid time but timed %d", timed, g.timed)
	}
	for s := range g.nodes {
		n := &g.nodes[s]
		switch {
		case n.outKeys == nil && len(n.out) > 2*hubDegree:
			return fmt.Errorf("node slot %d has %d outgoing relations and no key index", s, len(n.out))
		case n.outKeys != nil && len(n.out) < hubDegree:
			return fmt.Errorf("node slot %d keeps a key index for %d outgoing relations", s, len(n.out))
		case n.outKeys != nil && n.outKeys.len() != len(n.out):
			return fmt.Errorf("node slot %d: key index holds %d keys for %d relations", s, n.outKeys.len(), len(n.out))
		case n.outKeys != nil && n.outKeys.len()*maxKeyLoadDen > len(n.outKeys.slots)*maxKeyLoadNum:
			return fmt.Errorf("node slot %d: key index holds %d keys in %d positions", s, n.outKeys.len(), len(n.outKeys.slots))
		}
		if n.outKeys != nil {
			for p, a := range n.out {
				if n.outKeys.slot(outKey{a.To, g.relTypes[a.Rel]}, int32(p)) < 0 {
					return fmt.Errorf("node slot %d: key index does not hold out position %d", s, p)
				}
				if got, ok := n.outKeys.find(g, n.out, a.To, g.relTypes[a.Rel]); !ok || got != a.Rel {
					return fmt.Errorf("node slot %d: key index finds %d, %v for relation slot %d", s, got, ok, a.Rel)
				}
			}
		}
	}
	adjCount := 0
	for s := range g.nodes {
		adjCount += len(g.nodes[s].out) + len(g.nodes[s].in)
	}
	if adjCount != 2*liveRels {
		return fmt.Errorf("%d adjacency entries for %d relations", adjCount, liveRels)
	}

	if len(g.types.ids) != len(typeRefs) {
		return fmt.Errorf("%d interned types but %d in use", len(g.types.ids), len(typeRefs))
	}
	for name, id := range g.types.ids {
		if g.types.names[id] != name || g.types.refs[id] != typeRefs[id] {
			return fmt.Errorf("type %q: name %q refs %d, want refs %d", name, g.types.names[id], g.types.refs[id], typeRefs[id])
		}
	}

	want := make(map[string][]int32)
	for s := range g.nodes {
		n := &g.nodes[s]
		if !n.live() {
			continue
		}
		tags := n.tags()
		if len(tags) > g.tags.MaxTagsPerEntity {
			return fmt.Errorf("entity %q has %d tags, limit %d", n.id, len(tags), g.tags.MaxTagsPerEntity)
		}
		for _, t := range tags {
			if t == "" || t != textrule.NormalizeTag(t) {
				return fmt.Errorf("entity %q has unnormalised tag %q", n.id, t)
			}
			if slices.Contains(want[t], int32(s)) {
				return fmt.Errorf("entity %q has tag %q twice", n.id, t)
			}
			want[t] = append(want[t], int32(s))
		}
	}
	if len(want) != len(g.tagIndex) {
		return fmt.Errorf("tag index has %d tags, entities carry %d", len(g.tagIndex), len(want))
	}
	for t, slots := range want {
		set := g.tagIndex[t]
		if len(set) != len(slots) {
			return fmt.Errorf("tag %q indexes %d entities, %d carry it", t, len(set), len(slots))
		}
		for _, s := range slots {
			if _, ok := set[s]; !ok {
				return fmt.Errorf("tag %q does not index slot %d", t, s)
			}
		}
	}
	if len(g.relTypes) != len(g.rels) {
		return fmt.Errorf("%d relation types for %d relation slots", len(g.relTypes), len(g.rels))
	}
	if len(g.hashes) != len(g.nodes) {
		return fmt.Errorf("%d ID hashes for %d entity slots", len(g.hashes), len(g.nodes))
	}
	for s := range g.nodes {
		if g.nodes[s].live() && g.hashes[s] != walk.IDHash(g.nodes[s].id) {
			return fmt.Errorf("slot %d: ID hash %x, want walk.IDHash(%q)", s, g.hashes[s], g.nodes[s].id)
		}
	}
	var fresh nameindex.Index
	for s := range g.nodes {
		if g.nodes[s].live() {
			indexNames(&fresh, int32(s), &g.nodes[s], true)
		}
	}
	if !fresh.Equal(&g.names) {
		return fmt.Errorf("name index differs from one rebuilt from the entities:\n got %+v\nwant %+v", g.names, fresh)
	}
	var sources sourceIndex
	for s := range g.nodes {
		if g.nodes[s].live() {
			sources.entity(int32(s), g.nodes[s].more, true)
		}
	}
	for i := range g.rels {
		if g.rels[i].live() {
			sources.relation(int32(i), g.rels[i].more, true)
		}
	}
	if !sameCitations(sources.ents, g.sources.ents) || !sameCitations(sources.rels, g.sources.rels) {
		return fmt.Errorf("source index differs from one rebuilt from the entities and relations:\n got %+v\nwant %+v", g.sources, sources)
	}
	if g.changes.version != g.changes.base+uint64(len(g.changes.events)) || len(g.changes.events) > 2*maxChangeLog {
		return fmt.Errorf("change log: version %d, base %d, %d events", g.changes.version, g.changes.base, len(g.changes.events))
	}
	return nil
}

func sameCitations(a, b map[string]map[int32]struct{}) bool {
	if len(a) != len(b) {
		return false
	}
	for p, set := range a {
		if len(b[p]) != len(set) || len(set) == 0 {
			return false
		}
		for s := range set {
			if _, ok := b[p][s]; !ok {
				return false
			}
		}
	}
	return true
}
