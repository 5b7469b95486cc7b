// Package textrule gives the other packages of this repository (package
// pgraph) kgmem's text rules without exporting them from package kgmem:
// the folding keyword search compares text in, the match keys entity
// linking looks names up by, and the tag rule. A backend that applies the
// same rules finds and links exactly what InMemoryGraph does.
//
// The rules are implemented in package kgmem, which sets these functions
// when it is initialised; every importer of this package imports kgmem
// too (it cannot do anything useful otherwise), so they are always set
// before use. Nothing else may assign them.
package textrule

var (
	// Fold returns the form kgmem compares text in: every rune
	// case-folded (K, k and the Kelvin sign alike) and full-width ASCII
	// forms narrowed (ＡＰＩ is api).
	Fold func(s string) string

	// LinkKey returns the main match key under which entity linking finds
	// a name or alias, and false when linking cannot find it.
	LinkKey func(name string) (string, bool)

	// LinkKeys returns every match key of a name or alias, sorted:
	// LinkKey's and, for a name whose words are joined by a hyphen,
	// apostrophe, dot or middle dot, the key with them run together.
	LinkKeys func(name string) []string

	// LinkSpanKeys returns, sorted and without duplicates, the match keys
	// of every run of words and CJK characters in text that linking could
	// match.
	LinkSpanKeys func(text string) []string

	// NormalizeTags applies the tag rule of AddEntity and SetEntityTags:
	// tags trimmed, lower-cased, de-duplicated, empty ones dropped, cut to
	// max; an invalid tag returns an error wrapping
	// kgmem.ErrInvalidArgument.
	NormalizeTags func(tags []string, max int) ([]string, error)

	// FoldKeywords prepares keywords as FindByKeywords does: trimmed,
	// folded, empty ones and duplicates dropped, in first-seen order. A
	// keyword that is not valid UTF-8 returns an error wrapping
	// kgmem.ErrInvalidArgument.
	FoldKeywords func(keywords []string) ([]string, error)

	// CountKeywords returns how many of the folded keywords occur, as
	// substrings after folding, in an entity's ID, name, an alias or a
	// tag: FindByKeywords returns the entities with a count above zero.
	CountKeywords func(folded []string, id, name string, aliases, tags []string) int
)
