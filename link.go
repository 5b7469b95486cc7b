package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// Entity linking finds the entities a text names, by exact match of their
// names and aliases: the text and every name are cut into units (a word,
// or one CJK character) and compared by match keys, the rules of
// internal/textrule (SplitUnits, LinkKey, LinkVariant), so that "Project
// Apollo" matches "who works on project apollo?" and 张三 matches
// "张三负责什么项目？", while "go" does not match inside "google".

// Link qualities: how sure a match is that the text means the entity.
const (
	nameQuality  = 1.0 // the text spells the entity's name
	aliasQuality = 0.9 // the text spells one of its aliases
)

// EntityMention is an entity that a text names.
type EntityMention struct {
	Entity Entity // a copy of the entity named
	// Text is the part of the linked text that names the entity, as
	// written, and Start and End are its byte offsets.
	Text       string
	Start, End int
	// Alias reports that Text matched an alias rather than the name.
	Alias bool
	// Quality in (0,1] says how sure the match is: 1 for the name, 0.9 for
	// an alias, divided by the number of entities the same words name.
	Quality float64
}

var (
	_ EntityLinker = (*InMemoryGraph)(nil)
	_ NameFinder   = (*InMemoryGraph)(nil)
)

// nameRef is an entity bearing a key: slot<<1, plus 1 for an alias.
type nameRef int32

func (r nameRef) slot() int32 { return int32(r) >> 1 }
func (r nameRef) alias() bool { return r&1 == 1 }
func makeRef(slot int32, alias bool) nameRef {
	if alias {
		return nameRef(slot<<1 | 1)
	}
	return nameRef(slot << 1)
}

// nameIndex maps the match keys of names and aliases to the entities that
// bear them. Most keys name one entity, so they live in one; keys borne by
// several entities (or by one entity twice, as name and alias) move to many.
//
// Invariant: a key is in at most one of one and many; many[k] has at least
// two refs, sorted; lengths[n] counts the keys of n units; starts[u]
// counts the keys of two or more units whose first unit is u, and
// longest is at least the units of the longest of them.
type nameIndex struct {
	one     map[string]nameRef
	many    map[string][]nameRef
	lengths [textrule.MaxLinkUnits + 1]int
	// starts lets match skip, at a word that begins no key of several
	// units, the lookups of every longer span; nil, it skips none.
	starts map[string]keyStart
}

// keyStart is what a nameIndex knows of the keys of several units that
// begin with one unit.
type keyStart struct {
	keys    int32 // how many
	longest int32 // units of the longest ever indexed; only a bound once keys are removed
}

func (x *nameIndex) add(name string, ref nameRef) {
	if key, n, ok := textrule.LinkKey(name); ok {
		x.addKey(key, n, ref)
	}
	if key, n, ok := textrule.LinkVariant(name); ok {
		x.addKey(key, n, ref)
	}
}

func (x *nameIndex) addKey(key string, n int, ref nameRef) {
	if x.one == nil {
		x.one, x.many = make(map[string]nameRef), make(map[string][]nameRef)
	}
	if refs, ok := x.many[key]; ok {
		i, _ := slices.BinarySearch(refs, ref)
		x.many[key] = slices.Insert(refs, i, ref)
		return
	}
	if first, ok := x.one[key]; ok {
		delete(x.one, key)
		x.many[key] = []nameRef{min(first, ref), max(first, ref)}
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

func (x *nameIndex) remove(name string, ref nameRef) {
	if key, n, ok := textrule.LinkKey(name); ok {
		x.removeKey(key, n, ref)
	}
	if key, n, ok := textrule.LinkVariant(name); ok {
		x.removeKey(key, n, ref)
	}
}

func (x *nameIndex) removeKey(key string, n int, ref nameRef) {
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

// lookup returns the refs bearing key; buf is reused for the answer.
func (x *nameIndex) lookup(key []byte, buf []nameRef) []nameRef {
	if r, ok := x.one[string(key)]; ok {
		return append(buf[:0], r)
	}
	return append(buf[:0], x.many[string(key)]...)
}

// indexNames adds or removes the names and aliases of the entity in slot s.
func (x *nameIndex) indexNames(s int32, n *node, add bool) {
	op := x.remove
	if add {
		op = x.add
	}
	op(n.name, makeRef(s, false))
	if n.more != nil {
		for _, a := range n.more.aliases {
			op(a, makeRef(s, true))
		}
	}
}

// mention is a match before it is turned into an EntityMention.
type mention struct {
	ref         nameRef
	first, last int // unit span, inclusive
	quality     float64
}

// match finds the names x knows in text, cut into units. For each position
// it tries the longest key first; overlapping matches are resolved longest
// first (then leftmost), so a name inside a longer matched name is dropped.
// When several entities bear the matched words, the ones spelled (reports
// whether an entity's name, or for an alias ref one of its aliases, is the
// surface text exactly) says match take it alone, if any; the others share
// the mention's quality. An entity named several times keeps its best
// mention. Cost: O(units × maxUnits) map
// lookups, independent of how many entities x holds.
func (x *nameIndex) match(text string, units []textrule.Unit, spelled func(r nameRef, surface string) bool) []mention {
	var lens []int // the lengths of the keys x holds, longest first
	for n := textrule.MaxLinkUnits; n > 0; n-- {
		if x.lengths[n] > 0 {
			lens = append(lens, n)
		}
	}
	type span struct{ first, last int }
	var spans []span
	var key []byte
	for i := range units {
		longest := textrule.MaxLinkUnits // the most units a key starting at i can have
		if x.starts != nil {
			longest = 1
			if st, ok := x.starts[units[i].Key]; ok {
				longest = int(st.longest)
			}
		}
		for _, n := range lens {
			if n > len(units)-i || n > longest {
				continue
			}
			key = textrule.AppendKey(key[:0], units[i:i+n])
			if _, ok := x.one[string(key)]; ok {
				spans = append(spans, span{i, i + n - 1})
				continue
			}
			if _, ok := x.many[string(key)]; ok {
				spans = append(spans, span{i, i + n - 1})
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
	var out []mention
	var refs []nameRef
	exactRefs := func(s span) ([]nameRef, bool) {
		refs = x.lookup(textrule.AppendKey(key[:0], units[s.first:s.last+1]), refs)
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
		// the text writes them (case and spacing) take the mention.
		refs, exact := exactRefs(s)
		out = appendMentions(out, refs, s.first, s.last)
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
	// One mention per entity: the best quality, then the leftmost.
	slices.SortFunc(out, func(a, b mention) int {
		if c := cmp.Compare(a.ref.slot(), b.ref.slot()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.quality, a.quality); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	return slices.CompactFunc(out, func(a, b mention) bool { return a.ref.slot() == b.ref.slot() })
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// appendMentions appends a mention of units first..last for each entity
// of refs, the quality shared among the entities.
func appendMentions(out []mention, refs []nameRef, first, last int) []mention {
	bearers := 1
	for i := 1; i < len(refs); i++ {
		if refs[i].slot() != refs[i-1].slot() {
			bearers++
		}
	}
	for _, r := range refs {
		q := nameQuality
		if r.alias() {
			q = aliasQuality
		}
		out = append(out, mention{ref: r, first: first, last: last, quality: q / float64(bearers)})
	}
	return out
}

// LinkEntities returns the entities text names by their name or an alias:
// exact matches after case folding and full-width narrowing, on word
// boundaries for alphabetic scripts and anywhere for CJK. The longest match
// wins and a match inside a longer one is dropped, so "张三负责什么项目？"
// links the entity named 张三 and "who works on project apollo" the one named
// "Project Apollo". Mentions are ordered by position, then entity ID. Text
// that is not valid UTF-8 returns ErrInvalidArgument. Cost: O(units of text ×
// the longest indexed name), independent of the number of entities.
func (g *InMemoryGraph) LinkEntities(ctx context.Context, text string) ([]EntityMention, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("kgmem: link entities: text %s is not valid UTF-8: %w", quote.Value(text), ErrInvalidArgument)
	}
	units := textrule.SplitUnits(text)
	if err := g.rlock(); err != nil {
		return nil, err
	}
	found := g.names.match(text, units, func(r nameRef, surface string) bool {
		return spells(g.nodes[r.slot()].name, g.nodes[r.slot()].aliases(), r.alias(), surface)
	})
	out := make([]EntityMention, len(found))
	for i, m := range found {
		start, end := units[m.first].Start, units[m.last].End
		out[i] = EntityMention{
			Entity:  g.nodes[m.ref.slot()].entity(),
			Text:    text[start:end],
			Start:   start,
			End:     end,
			Alias:   m.ref.alias(),
			Quality: m.quality,
		}
	}
	g.mu.RUnlock()
	sortMentions(out)
	return out, nil
}

// FindByName returns every entity whose name or an alias has the same
// match key as name: the entities linking finds when the text is name
// alone. Keys fold case and width and ignore punctuation and spacing
// between words, so "project apollo" finds the
// entity named "Project Apollo", "Spiderman" and "spider man" the one
// named "Spider-Man", and "ＡＰＯＬＬＯ" one with the alias "Apollo".
// Entities are returned once each, ordered by ID, and none is an empty
// result, not an error. A name linking cannot match (no letters, digits or
// CJK characters, or more than 64 words and CJK characters) finds nothing.
// An empty or whitespace-only name, or one that is not valid UTF-8,
// returns an error wrapping ErrInvalidArgument. Cost: one lookup in the
// linking index, plus copying and sorting what it finds.
func (g *InMemoryGraph) FindByName(ctx context.Context, name string) ([]Entity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key, ok, err := nameLookupKey(name)
	if err != nil || !ok {
		return nil, err
	}
	if err := g.rlock(); err != nil {
		return nil, err
	}
	refs := g.names.lookup([]byte(key), nil)
	var out []Entity
	for i, r := range refs {
		// refs are sorted by slot, name before alias: a slot's refs are adjacent.
		if i == 0 || r.slot() != refs[i-1].slot() {
			out = append(out, g.nodes[r.slot()].entity())
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b Entity) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// nameLookupKey returns the match key FindByName looks name up by, false
// when linking cannot match name, and an error wrapping
// ErrInvalidArgument for an empty, whitespace-only or invalid name. Other
// backends apply the same rule through ValidateName and the match keys.
func nameLookupKey(name string) (string, bool, error) {
	if err := ValidateName(name); err != nil {
		return "", false, err
	}
	key, _, ok := textrule.LinkKey(name)
	return key, ok, nil
}

// spells reports whether the name (or, for an alias match, one of the
// aliases) is surface exactly.
func spells(name string, aliases []string, alias bool, surface string) bool {
	if !alias {
		return name == surface
	}
	return slices.Contains(aliases, surface)
}

func sortMentions(ms []EntityMention) {
	slices.SortFunc(ms, func(a, b EntityMention) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return strings.Compare(a.Entity.ID, b.Entity.ID)
	})
}
