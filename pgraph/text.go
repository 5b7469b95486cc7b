package pgraph

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// This file applies kgmem's rules for validating, normalising and folding
// text (kgmem.ValidateEntity and the rest, and the text rules of
// internal/textrule: Fold, NormalizeTags, the link keys), adds what
// PostgreSQL needs on top (no NUL byte in stored text), and computes the derived columns that let
// PostgreSQL narrow keyword searches and entity linking with an index.

// storable reports whether PostgreSQL can hold s: text columns and jsonb
// reject the NUL byte, and every string kgmem accepts is valid UTF-8.
func storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

func allStorable(ss []string) bool {
	for _, s := range ss {
		if !storable(s) {
			return false
		}
	}
	return true
}

func storableMap(m map[string]string) bool {
	for k, v := range m {
		if !storable(k) || !storable(v) {
			return false
		}
	}
	return true
}

// validateEntity checks the rules kgmem's AddEntity enforces, then that
// every string can be stored.
func validateEntity(e *kgmem.Entity) error {
	if err := kgmem.ValidateEntity(*e); err != nil {
		return err
	}
	nul := func(field string) error {
		return fmt.Errorf("pgraph: entity %s: %s contains a NUL byte, which PostgreSQL cannot store: %w", quote.Value(e.ID), field, kgmem.ErrInvalidArgument)
	}
	switch {
	case !storable(e.ID):
		return nul("the ID")
	case !storable(e.Name):
		return nul("the name")
	case !storable(e.Type):
		return nul("the type")
	case !storable(e.Description):
		return nul("the description")
	case !allStorable(e.Aliases):
		return nul("an alias")
	case !allStorable(e.Tags):
		return nul("a tag")
	case !allStorable(e.SourceIDs):
		return nul("a source ID")
	case !storableMap(e.Properties):
		return nul("a property")
	}
	return nil
}

// validateRelation checks the rules kgmem's AddRelation enforces, and
// normalises r as kgmem does (a zero Weight becomes 1, unweighted), then
// checks that every string can be stored.
func validateRelation(r *kgmem.Relation) error {
	if err := kgmem.ValidateRelation(r); err != nil {
		return err
	}
	nul := func(field string) error {
		return fmt.Errorf("pgraph: relation %s: %s contains a NUL byte, which PostgreSQL cannot store: %w",
			quote.Key(r.SourceID, r.Type, r.TargetID), field, kgmem.ErrInvalidArgument)
	}
	switch {
	case !storable(r.SourceID):
		return nul("the source ID")
	case !storable(r.TargetID):
		return nul("the target ID")
	case !storable(r.Type):
		return nul("the type")
	case !allStorable(r.SourceIDs):
		return nul("a source ID")
	case !storableMap(r.Properties):
		return nul("a property")
	}
	return nil
}

// validateID checks an entity ID a write names, as kgmem's RemoveEntity
// and SetEntityTags do: not empty or only white space, valid UTF-8, at
// most kgmem.MaxIDBytes.
func validateID(id string) error {
	return kgmem.ValidateEntity(kgmem.Entity{ID: id})
}

// checkReadID checks an entity ID a read names, as kgmem's GetEntity does:
// validateID's rule without the length limit, since an ID longer than
// kgmem.MaxIDBytes names no entity and the read says so as for any other.
func checkReadID(id string) error {
	err := validateID(id)
	if err != nil && len(id) > kgmem.MaxIDBytes && utf8.ValidString(id) && strings.TrimSpace(id) != "" {
		return nil // too long is all that is wrong with it
	}
	return err
}

// Keyword grams.
//
// FindByKeywords is a substring match, which no B-tree can answer. Each
// entity therefore stores the distinct 1-, 2- and 3-rune substrings
// ("grams") of its folded ID, name and aliases in one array column and those
// of its folded tags in another, both with GIN indexes. A keyword of at most
// three runes is contained in a text only if it is one of the text's grams;
// a longer keyword only if every 3-rune substring of it is. The database
// returns the entities whose grams contain a keyword's grams, a superset of
// the answer, and the exact case-folded substring test runs in Go.
// Computing grams in Go keeps the folding identical to kgmem's and makes the
// index independent of the database's locale and of extensions.

// maxGram is the longest gram stored.
const maxGram = 3

// appendGrams adds the distinct grams of the folded form of each text to
// set.
func appendGrams(set map[string]struct{}, texts ...string) {
	var runes []rune
	for _, t := range texts {
		runes = append(runes[:0], []rune(textrule.Fold(t))...)
		for i := range runes {
			for n := 1; n <= maxGram && i+n <= len(runes); n++ {
				set[string(runes[i:i+n])] = struct{}{}
			}
		}
	}
}

// entityGrams returns the grams of an entity's ID, name and aliases, and
// those of its tags, sorted.
func entityGrams(id, name string, aliases, tags []string) (names, tagGrams []string) {
	set := make(map[string]struct{})
	appendGrams(set, id, name)
	appendGrams(set, aliases...)
	names = sortedKeys(set)
	clear(set)
	appendGrams(set, tags...)
	return names, sortedKeys(set)
}

// tagGrams returns the grams of tags, sorted.
func tagGrams(tags []string) []string {
	set := make(map[string]struct{})
	appendGrams(set, tags...)
	return sortedKeys(set)
}

// keywordGrams returns the grams every text containing the folded keyword k
// has: k itself when it has at most maxGram runes, else its distinct
// maxGram-rune substrings.
func keywordGrams(k string) []string {
	runes := []rune(k)
	if len(runes) <= maxGram {
		return []string{k}
	}
	set := make(map[string]struct{}, len(runes))
	for i := 0; i+maxGram <= len(runes); i++ {
		set[string(runes[i:i+maxGram])] = struct{}{}
	}
	return sortedKeys(set)
}

func sortedKeys(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Link keys.
//
// kgmem links an entity when a run of the text's words and CJK characters
// spells a match key (textrule.LinkKeys) of its name or an alias. Each entity
// stores those keys in a GIN-indexed array; LinkEntities looks up every key
// the text contains (textrule.LinkSpanKeys) to find the entities kgmem's
// matching can link, and kgmem.LinkWithKeywords then applies its matching
// rules to them.

// entityLinkKeys returns the distinct match keys of a name and aliases,
// sorted.
func entityLinkKeys(name string, aliases []string) []string {
	keys := make([]string, 0, 1+len(aliases)) // never nil: the column is NOT NULL
	for _, n := range append([]string{name}, aliases...) {
		keys = append(keys, textrule.LinkKeys(n)...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
