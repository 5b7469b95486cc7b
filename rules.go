package kgmem

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
)

// The rules below are the ones InMemoryGraph applies to text, exported so
// that a KnowledgeGraph on other storage applies exactly the same ones: the
// same validation and errors, tag normalisation, folding for keyword search,
// and match keys for entity linking. Package pgraph uses them.

// ValidateEntity returns the error AddEntity returns for an entity whose
// content breaks a rule (an empty or whitespace-only ID, a string that is
// not valid UTF-8, an ID, name, type, alias or tag longer than MaxIDBytes,
// MaxNameBytes, MaxTypeBytes or MaxTagBytes), wrapping ErrInvalidArgument,
// or nil.
func ValidateEntity(e Entity) error { return validateEntity(&e) }

// ValidateRelation returns the error AddRelation returns for a relation
// whose content breaks a rule (an empty or whitespace-only endpoint or
// type, an endpoint longer than MaxIDBytes or a type longer than
// MaxTypeBytes, a weight that is NaN or outside [0,1], a string that is
// not valid UTF-8), wrapping ErrInvalidArgument, or nil. When r is valid,
// ValidateRelation also normalises it as every backend stores it: a zero
// Weight (or -0) becomes 1, unweighted; so a backend stores *r as it is
// after the call. Whether the endpoints exist is for the backend to
// check.
func ValidateRelation(r *Relation) error { return validateRelation(r) }

// ValidateRelationKey returns the error RemoveRelation returns for a
// malformed key (an empty, whitespace-only, over-long or invalid part),
// wrapping ErrInvalidArgument, or nil.
func ValidateRelationKey(sourceID, targetID, relationType string) error {
	return validateKey(sourceID, targetID, relationType)
}

// ValidateName returns the error FindByName returns for a name it cannot
// look up (an empty or whitespace-only name, or one that is not valid
// UTF-8), wrapping ErrInvalidArgument, or nil. A backend that implements
// NameFinder applies it, then looks up LinkKey(name) among the LinkKeys
// of every name and alias.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("kgmem: find by name: empty name: %w", ErrInvalidArgument)
	case !utf8.ValidString(name):
		return fmt.Errorf("kgmem: find by name: name %s is not valid UTF-8: %w", quote.Value(name), ErrInvalidArgument)
	case blank(name):
		return fmt.Errorf("kgmem: find by name: name %s is only white space: %w", quote.Value(name), ErrInvalidArgument)
	}
	return nil
}

// NormalizeTags applies the tag rule of SetEntityTags and AddEntity: tags
// trimmed, lower-cased, de-duplicated keeping the first occurrence, empty
// ones dropped, then cut to max. A tag, kept or not, that is not valid
// UTF-8 or is longer than MaxTagBytes once normalised returns
// ErrInvalidArgument. The result never aliases tags. Cost: linear in the
// total length of tags.
func NormalizeTags(tags []string, max int) ([]string, error) {
	return normalizeTags(tags, max)
}

// Fold returns the form kgmem compares text in for keyword search and
// entity linking: every rune case-folded (K, k and the Kelvin sign alike)
// and full-width ASCII forms narrowed (ＡＰＩ is api). Two strings that
// differ only in case or width fold to the same string.
func Fold(s string) string { return foldString(s) }

// Keywords is a set of keywords prepared as FindByKeywords prepares them:
// trimmed, folded, empty ones and duplicates dropped, in first-seen order.
type Keywords struct{ folded []string }

// PrepareKeywords prepares keywords for matching. A keyword that is not
// valid UTF-8 returns ErrInvalidArgument.
func PrepareKeywords(keywords []string) (Keywords, error) {
	folded, err := foldKeywords(keywords)
	return Keywords{folded}, err
}

// Folded returns the prepared keywords; none means FindByKeywords finds
// nothing.
func (k Keywords) Folded() []string { return slices.Clone(k.folded) }

// Count returns how many of the keywords occur, as substrings after
// folding, in e's ID, name, an alias or a tag: FindByKeywords returns the
// entities with a count above zero, more first, then by ID.
func (k Keywords) Count(e Entity) int {
	var buf []string
	return keywordMatches(k.folded, &buf, e.ID, e.Name, e.Aliases, e.Tags)
}

// LinkKey returns the main match key under which entity linking finds a
// name or alias (see LinkKeys for all of them), and false when linking
// cannot find it (no letters, digits or CJK characters, or more than 64
// words and CJK characters).
func LinkKey(name string) (string, bool) {
	key, _, ok := linkKey(name)
	return key, ok
}

// LinkKeys returns the match keys under which entity linking finds a name
// or alias, sorted: LinkKey's, and, for a name whose words are joined by a
// single hyphen, apostrophe, dot or middle dot ("Spider-Man", "Ocean's
// Eleven"), the key with those words run together ("spiderman", "oceans
// eleven"). None when linking cannot find the name.
func LinkKeys(name string) []string {
	var keys []string
	if k, _, ok := linkKey(name); ok {
		keys = append(keys, k)
	}
	if k, _, ok := linkVariant(name); ok {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// LinkSpanKeys returns, sorted and without duplicates, the match keys of
// every run of words and CJK characters in text that linking could match:
// an entity can be linked from text only if the key of its name or of an
// alias is among them. A backend stores LinkKey of each name and alias and
// looks these up to find the candidates for LinkWithKeywords.
func LinkSpanKeys(text string) []string {
	units := splitUnits(text)
	var keys []string
	var key []byte
	for i := range units {
		for n := 1; n <= maxLinkUnits && i+n <= len(units); n++ {
			key = appendKey(key[:0], units[i:i+n])
			keys = append(keys, string(key))
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
