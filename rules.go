package kgmem

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// The validation rules below are the ones InMemoryGraph applies, exported
// so that a KnowledgeGraph on other storage accepts and rejects exactly the
// same values with the same errors. Package pgraph uses them, and the text
// rules (folding, match keys, tags), which it reaches through
// internal/textrule.

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
// NameFinder applies it, then looks up the name's match key among those
// of every name and alias, as InMemoryGraph.FindByName does.
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

func init() {
	textrule.Fold = foldString
	textrule.LinkKey = func(name string) (string, bool) {
		key, _, ok := linkKey(name)
		return key, ok
	}
	textrule.LinkKeys = linkKeys
	textrule.LinkSpanKeys = linkSpanKeys
	textrule.NormalizeTags = normalizeTags
	textrule.FoldKeywords = foldKeywords
	textrule.CountKeywords = func(folded []string, id, name string, aliases, tags []string) int {
		var buf []string
		return keywordMatches(folded, &buf, id, name, aliases, tags)
	}
}

// linkKeys returns the match keys under which entity linking finds a name
// or alias, sorted: linkKey's, and, for a name whose words are joined by a
// single hyphen, apostrophe, dot or middle dot ("Spider-Man", "Ocean's
// Eleven"), the key with those words run together ("spiderman", "oceans
// eleven"). None when linking cannot find the name.
func linkKeys(name string) []string {
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

// linkSpanKeys returns, sorted and without duplicates, the match keys of
// every run of words and CJK characters in text that linking could match:
// an entity can be linked from text only if the key of its name or of an
// alias is among them. A backend stores the linkKeys of each name and
// alias and looks these up to find the candidates for LinkWithKeywords.
func linkSpanKeys(text string) []string {
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
