package qaset

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// builder accumulates a set's entities and relations.
type builder struct {
	ents []Entity
	byID map[string]int
	rels []Relation // may hold duplicates until finish
}

func newBuilder() *builder {
	return &builder{byID: make(map[string]int, 1<<14)}
}

// add adds an entity and returns its ID. A duplicate ID is a bug.
func (b *builder) add(id, name, typ string, aliases ...string) string {
	if _, dup := b.byID[id]; dup {
		panic("qaset: duplicate entity ID " + id)
	}
	b.byID[id] = len(b.ents)
	var al []string
	if len(aliases) > 0 {
		al = slices.Clone(aliases) // never share a package-level list
	}
	b.ents = append(b.ents, Entity{ID: id, Name: name, Type: typ, Aliases: al})
	return id
}

// has reports whether id names an entity.
func (b *builder) has(id string) bool {
	_, ok := b.byID[id]
	return ok
}

// rel adds the relation src -[typ]-> dst; self-loops are ignored.
func (b *builder) rel(src, typ, dst string) {
	if src == dst {
		return
	}
	if !b.has(src) || !b.has(dst) {
		panic(fmt.Sprintf("qaset: relation %s -[%s]-> %s names a missing entity", src, typ, dst))
	}
	b.rels = append(b.rels, Relation{Source: src, Target: dst, Type: typ})
}

// uniqueID returns base, or base with the smallest suffix "_2", "_3", ...
// that no entity uses yet.
func (b *builder) uniqueID(base string) string {
	if !b.has(base) {
		return base
	}
	for i := 2; ; i++ {
		id := fmt.Sprintf("%s_%d", base, i)
		if !b.has(id) {
			return id
		}
	}
}

// slug lower-cases s and turns every run of characters other than letters
// and digits into one underscore.
func slug(s string) string {
	var sb strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if isLetterOrDigit(r) {
			if under && sb.Len() > 0 {
				sb.WriteByte('_')
			}
			under = false
			sb.WriteRune(r)
		} else {
			under = true
		}
	}
	return sb.String()
}

func isLetterOrDigit(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '–' && r != '½' && r != '’'
}

// half is one end of a relation seen from an entity: the relation type
// index, the entity at the other end and the relation's index.
type half struct{ t, nb, r int32 }

// index is a finished graph with adjacency lists over dense entity numbers.
type index struct {
	ents    []Entity
	rels    []Relation
	pos     map[string]int32
	types   map[string]int32
	out, in [][]half
	ofType  map[string][]int32
	// walk scratch space
	stamp []int32
	inc   []int32
	gen   int32
}

// finish sorts the builder's entities and relations and indexes them.
func (b *builder) finish() *index {
	ents := slices.Clone(b.ents)
	slices.SortFunc(ents, func(a, b Entity) int { return strings.Compare(a.ID, b.ID) })
	pos := make(map[string]int32, len(ents))
	for i, e := range ents {
		pos[e.ID] = int32(i)
	}
	// Entities are sorted by ID, so sorting relations by their endpoints'
	// positions sorts them by (Source, Target, Type).
	type keyed struct {
		s, d int32
		r    Relation
	}
	ks := make([]keyed, 0, len(b.rels))
	for _, r := range b.rels {
		ks = append(ks, keyed{pos[r.Source], pos[r.Target], r})
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.s, b.s), cmp.Compare(a.d, b.d), strings.Compare(a.r.Type, b.r.Type))
	})
	ks = slices.CompactFunc(ks, func(a, b keyed) bool { return a.s == b.s && a.d == b.d && a.r.Type == b.r.Type })
	rels := make([]Relation, len(ks))
	for i, k := range ks {
		rels[i] = k.r
	}
	x := &index{ents: ents, rels: rels, pos: pos, types: map[string]int32{}, ofType: map[string][]int32{}}
	for i, e := range ents {
		x.ofType[e.Type] = append(x.ofType[e.Type], int32(i))
	}
	var typeNames []string
	for _, r := range rels {
		if _, ok := x.types[r.Type]; !ok {
			x.types[r.Type] = -1
			typeNames = append(typeNames, r.Type)
		}
	}
	slices.Sort(typeNames)
	for i, t := range typeNames {
		x.types[t] = int32(i)
	}
	// One backing array per direction, cut into per-entity lists.
	nOut, nIn := make([]int, len(ents)), make([]int, len(ents))
	for _, k := range ks {
		nOut[k.s]++
		nIn[k.d]++
	}
	x.out, x.in = make([][]half, len(ents)), make([][]half, len(ents))
	outBuf, inBuf := make([]half, 0, len(ks)), make([]half, 0, len(ks))
	for i := range ents {
		x.out[i] = outBuf[len(outBuf) : len(outBuf) : len(outBuf)+nOut[i]]
		outBuf = outBuf[:len(outBuf)+nOut[i]]
		x.in[i] = inBuf[len(inBuf) : len(inBuf) : len(inBuf)+nIn[i]]
		inBuf = inBuf[:len(inBuf)+nIn[i]]
	}
	typeOf := make([]int32, len(ks))
	for i, k := range ks {
		if i > 0 && k.r.Type == ks[i-1].r.Type {
			typeOf[i] = typeOf[i-1]
		} else {
			typeOf[i] = x.types[k.r.Type]
		}
	}
	for i, k := range ks {
		x.out[k.s] = append(x.out[k.s], half{typeOf[i], k.d, int32(i)})
		x.in[k.d] = append(x.in[k.d], half{typeOf[i], k.s, int32(i)})
	}
	x.stamp = make([]int32, len(ents))
	x.inc = make([]int32, len(ents))
	return x
}

// degree is the number of relations of type t at entity e in the given
// direction.
func (x *index) degree(e int32, t string, fwd bool) int {
	ti, ok := x.types[t]
	if !ok {
		return 0
	}
	adj := x.in[e]
	if fwd {
		adj = x.out[e]
	}
	n := 0
	for _, h := range adj {
		if h.t == ti {
			n++
		}
	}
	return n
}

// walk executes path from topic and returns the reached entities, sorted.
// An entity does not go back over the relation it was reached by; one
// reached by several relations may go back over any of them. It returns
// nil when the result would have more than limit entities, or when a
// frontier before the last step has more than midLimit (limits <= 0 mean
// no limit).
func (x *index) walk(topic int32, path []Step, limit, midLimit int) []int32 {
	const many = -2
	cur := []int32{topic}
	curInc := []int32{-1}
	for i, st := range path {
		t, ok := x.types[st.Type]
		if !ok {
			return nil
		}
		x.gen++
		g := x.gen
		var next []int32
		for k, n := range cur {
			adj := x.in[n]
			if st.Forward {
				adj = x.out[n]
			}
			for _, h := range adj {
				if h.t != t || h.r == curInc[k] {
					continue
				}
				if x.stamp[h.nb] != g {
					x.stamp[h.nb] = g
					x.inc[h.nb] = h.r
					next = append(next, h.nb)
				} else if x.inc[h.nb] != h.r {
					x.inc[h.nb] = many
				}
			}
		}
		if i == len(path)-1 {
			if limit > 0 && len(next) > limit {
				return nil
			}
		} else if midLimit > 0 && len(next) > midLimit {
			return nil
		}
		nextInc := make([]int32, len(next))
		for k, n := range next {
			nextInc[k] = x.inc[n]
		}
		cur, curInc = next, nextInc
		if len(cur) == 0 {
			return nil
		}
	}
	slices.Sort(cur)
	return cur
}
