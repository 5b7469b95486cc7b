// Package nameindex is entity linking's index: the match keys of names
// and aliases (internal/textrule's LinkKey and LinkVariant) mapped to the
// entity slots that bear them, and Match, which finds the indexed names in
// a text cut into units. It knows slots, not entities: package kgmem keeps
// one per graph and builds one for a backend's candidates.
package nameindex

import (
	"cmp"
	"slices"
	"unicode"

	"github.com/kgmem/kgmem/internal/textrule"
)

// Link qualities: how sure a match is that the text means the entity.
const (
	NameQuality  = 1.0 // the text spells the entity's name
	AliasQuality = 0.9 // the text spells one of its aliases
)

// Ref is an entity bearing a key: slot<<1, plus 1 for an alias.
type Ref int32

// Slot returns the entity's slot.
func (r Ref) Slot() int32 { return int32(r) >> 1 }

// Alias reports whether the key is one of the entity's aliases.
func (r Ref) Alias() bool { return r&1 == 1 }

// MakeRef returns the Ref of the entity in slot, for its name or an alias.
func MakeRef(slot int32, alias bool) Ref {
	if alias {
		return Ref(slot<<1 | 1)
	}
	return Ref(slot << 1)
}

// Index maps the match keys of names and aliases to the entities that
// bear them. Most keys name one entity, so they live in one; keys borne by
// several entities (or by one entity twice, as name and alias) move to many.
//
// Invariant: a key is in at most one of one and many; many[k] has at least
// two refs, sorted; lengths[n] counts the keys of n units; starts[u]
// counts the keys of two or more units whose first unit is u, and
// longest is at least the units of the longest of them.
type Index struct {
	one     map[string]Ref
	many    map[string][]Ref
	lengths [textrule.MaxLinkUnits + 1]int
	// starts lets Match skip, at a word that begins no key of several
	// units, the lookups of every longer span; nil, it skips none.
	starts map[string]keyStart
}

// keyStart is what an Index knows of the keys of several units that
// begin with one unit.
type keyStart struct {
	keys    int32 // how many
	longest int32 // units of the longest ever indexed; only a bound once keys are removed
}

// Add indexes name (its match key and variant) as borne by ref.
func (x *Index) Add(name string, ref Ref) {
	keysOf(name, func(key string, n int) { x.addKey(key, n, ref) })
}

// keysOf calls f with each match key of name, and its units: its link key
// and its variant.
func keysOf(name string, f func(key string, n int)) {
	if key, n, ok := textrule.LinkKey(name); ok {
		f(key, n)
	}
	if key, n, ok := textrule.LinkVariant(name); ok {
		f(key, n)
	}
}

func (x *Index) addKey(key string, n int, ref Ref) {
	if x.one == nil {
		x.one, x.many = make(map[string]Ref), make(map[string][]Ref)
	}
	if refs, ok := x.many[key]; ok {
		i, _ := slices.BinarySearch(refs, ref)
		x.many[key] = slices.Insert(refs, i, ref)
		return
	}
	if first, ok := x.one[key]; ok {
		delete(x.one, key)
		x.many[key] = []Ref{min(first, ref), max(first, ref)}
		return
	}
	x.one[key] = ref
	x.lengths[n]++
	if n > 1 {
		if x.starts == nil {
			x.starts = make(map[string]keyStart)
		}
		u := textrule.FirstUnit(key)
		st := x.starts[u]
		st.keys++
		st.longest = max(st.longest, int32(n))
		x.starts[u] = st
	}
}

// Remove undoes Add(name, ref).
func (x *Index) Remove(name string, ref Ref) {
	keysOf(name, func(key string, n int) { x.removeKey(key, n, ref) })
}

func (x *Index) removeKey(key string, n int, ref Ref) {
	if refs, ok := x.many[key]; ok {
		if i, found := slices.BinarySearch(refs, ref); found {
			refs = slices.Delete(refs, i, i+1)
		}
		if len(refs) == 1 {
			delete(x.many, key)
			x.one[key] = refs[0]
		} else {
			x.many[key] = refs
		}
		return
	}
	if got, ok := x.one[key]; ok && got == ref {
		delete(x.one, key)
		x.lengths[n]--
		if n > 1 {
			u := textrule.FirstUnit(key)
			if st := x.starts[u]; st.keys > 1 {
				st.keys--
				x.starts[u] = st
			} else {
				delete(x.starts, u)
			}
		}
	}
}

// Lookup returns the refs bearing key, sorted (a slot's name before its
// aliases); buf is reused for the answer.
func (x *Index) Lookup(key []byte, buf []Ref) []Ref {
	if r, ok := x.one[string(key)]; ok {
		return append(buf[:0], r)
	}
	return append(buf[:0], x.many[string(key)]...)
}

// Mention is a match: the entity, the unit span of the words that name it
// (inclusive) and the link's quality.
type Mention struct {
	Ref         Ref
	First, Last int
	Quality     float64
}

// Match finds the names x knows in text, cut into units. For each position
// it tries the longest key first; overlapping matches are resolved longest
// first (then leftmost), so a name inside a longer matched name is dropped.
// Keys are bare of the accents of Latin letters (textrule.AppendKey), so
// those do not matter. A run whose own key matches no name but whose
// singular key does
// (textrule.AppendSingularKey: "Gila monsters" for the entity named "Gila
// monster") matches at the quality of the name times AliasQuality.
// When several entities bear the matched words, the ones spelled (reports
// whether an entity's name, or for an alias ref one of its aliases, is the
// surface text exactly) says match take it alone, if any; the others share
// the Mention's quality. An entity named several times keeps its best
// Mention. Cost: O(units × maxUnits) map
// lookups, independent of how many entities x holds.
func (x *Index) Match(text string, units []textrule.Unit, spelled func(r Ref, surface string) bool) []Mention {
	var lens []int // the lengths of the keys x holds, longest first
	for n := textrule.MaxLinkUnits; n > 0; n-- {
		if x.lengths[n] > 0 {
			lens = append(lens, n)
		}
	}
	// A span matched by its singular key (textrule.AppendSingularKey) is
	// plural: the text writes a form of the name the index does not hold.
	type span struct {
		first, last int
		plural      bool
	}
	var spans []span
	var key []byte
	for i := range units {
		longest := textrule.MaxLinkUnits // the most units a key starting at i can have
		if x.starts != nil {
			longest = 1
			if st, ok := x.starts[textrule.Bare(units[i].Key)]; ok {
				longest = int(st.longest)
			}
		}
		for _, n := range lens {
			if n > len(units)-i || n > longest {
				continue
			}
			key = textrule.AppendKey(key[:0], units[i:i+n])
			if x.holds(key) {
				spans = append(spans, span{i, i + n - 1, false})
				continue
			}
			if k, ok := textrule.AppendSingularKey(key[:0], units[i:i+n]); ok && x.holds(k) {
				spans = append(spans, span{i, i + n - 1, true})
			}
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		if c := cmp.Compare(b.last-b.first, a.last-a.first); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	taken := make([]bool, len(units))
	var out []Mention
	var refs []Ref
	exactRefs := func(s span) ([]Ref, bool) {
		k := textrule.AppendKey(key[:0], units[s.first:s.last+1])
		if s.plural {
			k = k[:len(k)-1] // the singular key: the plural's "s" dropped
		}
		refs = x.Lookup(k, refs)
		surface := text[units[s.first].Start:units[s.last].End]
		exact := refs[:0:0]
		for _, r := range refs {
			if spelled(r, surface) {
				exact = append(exact, r)
			}
		}
		if len(exact) > 0 {
			return exact, true
		}
		return refs, false
	}
	for _, s := range spans {
		if slices.Contains(taken[s.first:s.last+1], true) {
			continue
		}
		for i := s.first; i <= s.last; i++ {
			taken[i] = true
		}
		// Where several entities bear the words, those spelled exactly as
		// the text writes them (case and spacing) take the Mention.
		refs, exact := exactRefs(s)
		n := len(out)
		out = appendMentions(out, refs, s.first, s.last)
		if s.plural {
			// A plural stands as an alias does: a form of the name that
			// the entity does not spell.
			for j := n; j < len(out); j++ {
				out[j].Quality *= AliasQuality
			}
		}
		if exact {
			continue
		}
		// A longer match spelled otherwise than the text ("the Eclipse"
		// for The_Eclipse) keeps as an alternative a nested match that the
		// text spells exactly, capitals included ("Eclipse").
		for _, in := range spans {
			if in.first >= s.first && in.last <= s.last && in != s &&
				hasUpper(text[units[in.first].Start:units[in.last].End]) {
				if nested, ok := exactRefs(in); ok {
					out = appendMentions(out, nested, in.first, in.last)
				}
			}
		}
	}
	// One Mention per entity: the best quality, then the leftmost.
	slices.SortFunc(out, func(a, b Mention) int {
		if c := cmp.Compare(a.Ref.Slot(), b.Ref.Slot()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Quality, a.Quality); c != 0 {
			return c
		}
		return cmp.Compare(a.First, b.First)
	})
	return slices.CompactFunc(out, func(a, b Mention) bool { return a.Ref.Slot() == b.Ref.Slot() })
}

// holds reports whether x has a name or alias whose match key is key.
func (x *Index) holds(key []byte) bool {
	if _, ok := x.one[string(key)]; ok {
		return true
	}
	_, ok := x.many[string(key)]
	return ok
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// appendMentions appends a Mention of units first..last for each entity
// of refs, the quality shared among the entities.
func appendMentions(out []Mention, refs []Ref, first, last int) []Mention {
	bearers := 1
	for i := 1; i < len(refs); i++ {
		if refs[i].Slot() != refs[i-1].Slot() {
			bearers++
		}
	}
	for _, r := range refs {
		q := NameQuality
		if r.Alias() {
			q = AliasQuality
		}
		out = append(out, Mention{Ref: r, First: first, Last: last, Quality: q / float64(bearers)})
	}
	return out
}

// Equal reports whether x and y index the same keys for the same refs: a
// rebuilt index equals one kept up to date. The longest key by first unit
// is a bound that may stay above a rebuilt index's after removals, so y's
// may be larger than x's.
func (x *Index) Equal(y *Index) bool {
	if len(x.one) != len(y.one) || len(x.many) != len(y.many) || x.lengths != y.lengths {
		return false
	}
	for k, v := range x.one {
		if w, ok := y.one[k]; !ok || w != v {
			return false
		}
	}
	for k, v := range x.many {
		if !slices.Equal(v, y.many[k]) {
			return false
		}
	}
	if len(x.starts) != len(y.starts) {
		return false
	}
	for u, fresh := range x.starts {
		if got, ok := y.starts[u]; !ok || got.keys != fresh.keys || got.longest < fresh.longest {
			return false
		}
	}
	return true
}
