package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/nameindex"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// Entity linking finds the entities a text names, by exact match of their
// names and aliases: the text and every name are cut into units (a word,
// or one CJK character) and compared by match keys, the rules of
// internal/textrule (SplitUnits, LinkKey, LinkVariant), so that "Project
// Apollo" matches "who works on project apollo?" and 张三 matches
// "张三负责什么项目？", while "go" does not match inside "google".

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
	// an alias, times 0.9 again for a plural that names the singular (see
	// InMemoryGraph.LinkEntities), divided by the number of entities the
	// same words name.
	Quality float64
}

var (
	_ EntityLinker = (*InMemoryGraph)(nil)
	_ NameFinder   = (*InMemoryGraph)(nil)
)

// indexNames adds to x, or removes, the names and aliases of the entity in
// slot s.
func indexNames(x *nameindex.Index, s int32, n *node, add bool) {
	op := x.Remove
	if add {
		op = x.Add
	}
	op(n.name, nameindex.MakeRef(s, false))
	if n.more != nil {
		for _, a := range n.more.aliases {
			op(a, nameindex.MakeRef(s, true))
		}
	}
}

// LinkEntities returns the entities text names by their name or an alias:
// exact matches after case folding and full-width narrowing, on word
// boundaries for alphabetic scripts and anywhere for CJK. The longest match
// wins and a match inside a longer one is dropped, so "张三负责什么项目？"
// links the entity named 张三 and "who works on project apollo" the one
// named "Project Apollo". Accents of Latin letters do not matter ("Akinoshu
// Kenji" links "Akinoshū Kenji"). A run of words ending in a plural that
// matches no name links the name its singular spells ("Gila monsters" the
// entity named "Gila monster": the last word's "s" dropped, for words of
// more than three letters not ending in "ss"), at an alias's quality times
// the name's. Mentions are ordered by position, then entity ID. Text that
// is not valid UTF-8 returns ErrInvalidArgument. Cost: O(units of text ×
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
	found := g.names.Match(text, units, func(r nameindex.Ref, surface string) bool {
		return spells(g.nodes[r.Slot()].name, g.nodes[r.Slot()].aliases(), r.Alias(), surface)
	})
	out := make([]EntityMention, len(found))
	for i, m := range found {
		start, end := units[m.First].Start, units[m.Last].End
		out[i] = EntityMention{
			Entity:  g.nodes[m.Ref.Slot()].entity(),
			Text:    text[start:end],
			Start:   start,
			End:     end,
			Alias:   m.Ref.Alias(),
			Quality: m.Quality,
		}
	}
	g.mu.RUnlock()
	sortMentions(out)
	return out, nil
}

// FindByName returns every entity whose name or an alias has the same
// match key as name: the entities linking finds when the text is name
// alone. Keys fold case and width, drop the accents of Latin letters and
// ignore punctuation and spacing between words, so "project apollo" finds
// the entity named "Project Apollo", "Spiderman" and "spider man" the one
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
	refs := g.names.Lookup([]byte(key), nil)
	var out []Entity
	for i, r := range refs {
		// refs are sorted by slot, name before alias: a slot's refs are adjacent.
		if i == 0 || r.Slot() != refs[i-1].Slot() {
			out = append(out, g.nodes[r.Slot()].entity())
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
