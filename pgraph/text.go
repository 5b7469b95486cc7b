package pgraph

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// This file holds kgmem's rules for validating, normalising and folding
// text, as the in-memory graph applies them, and the derived columns that
// let PostgreSQL narrow keyword searches and entity linking with an index.
// Every rule here must stay identical to kgmem's: the differential and
// linking tests compare this package with kgmem.InMemoryGraph on random
// inputs.

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

// validateEntity checks the rules kgmem's AddEntity enforces, then that
// every string can be stored.
func validateEntity(e *kgmem.Entity) error {
	if err := validateID("entity", e.ID); err != nil {
		return err
	}
	bad := func(field string) error {
		return fmt.Errorf("pgraph: entity %q: %s is not valid UTF-8: %w", e.ID, field, kgmem.ErrInvalidArgument)
	}
	switch {
	case !utf8.ValidString(e.Name):
		return bad("name")
	case !utf8.ValidString(e.Type):
		return bad("type")
	case !utf8.ValidString(e.Description):
		return bad("description")
	case !validStrings(e.Aliases):
		return bad("an alias")
	case !validStrings(e.Tags):
		return bad("a tag")
	case !validStrings(e.SourceIDs):
		return bad("a source ID")
	case !validMap(e.Properties):
		return bad("a property")
	}
	nul := func(field string) error {
		return fmt.Errorf("pgraph: entity %q: %s contains a NUL byte, which PostgreSQL cannot store: %w", e.ID, field, kgmem.ErrInvalidArgument)
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

// validateRelation checks the rules kgmem's AddRelation enforces, then that
// every string can be stored.
func validateRelation(r *kgmem.Relation) error {
	if err := validateKey(r.SourceID, r.TargetID, r.Type); err != nil {
		return err
	}
	if r.Weight != r.Weight || r.Weight < 0 || r.Weight > 1 {
		return fmt.Errorf("pgraph: relation %q -[%s]-> %q: weight %v is outside [0,1]: %w",
			r.SourceID, r.Type, r.TargetID, r.Weight, kgmem.ErrInvalidArgument)
	}
	bad := func(field string) error {
		return fmt.Errorf("pgraph: relation %q -[%s]-> %q: %s is not valid UTF-8: %w",
			r.SourceID, r.Type, r.TargetID, field, kgmem.ErrInvalidArgument)
	}
	switch {
	case !validStrings(r.SourceIDs):
		return bad("a source ID")
	case !validMap(r.Properties):
		return bad("a property")
	}
	nul := func(field string) error {
		return fmt.Errorf("pgraph: relation %q -[%s]-> %q: %s contains a NUL byte, which PostgreSQL cannot store: %w",
			r.SourceID, r.Type, r.TargetID, field, kgmem.ErrInvalidArgument)
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

// validateKey checks a relation key as kgmem does. It does not reject NUL
// bytes: a key with one names no stored relation.
func validateKey(sourceID, targetID, typ string) error {
	if err := validateID("source entity", sourceID); err != nil {
		return err
	}
	if err := validateID("target entity", targetID); err != nil {
		return err
	}
	if typ == "" {
		return fmt.Errorf("pgraph: relation %q -> %q: empty relation type: %w", sourceID, targetID, kgmem.ErrInvalidArgument)
	}
	if !utf8.ValidString(typ) {
		return fmt.Errorf("pgraph: relation %q -> %q: type %q is not valid UTF-8: %w", sourceID, targetID, typ, kgmem.ErrInvalidArgument)
	}
	return nil
}

func validateID(what, id string) error {
	if id == "" {
		return fmt.Errorf("pgraph: empty %s ID: %w", what, kgmem.ErrInvalidArgument)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("pgraph: %s ID %q is not valid UTF-8: %w", what, id, kgmem.ErrInvalidArgument)
	}
	return nil
}

func validStrings(ss []string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func validMap(m map[string]string) bool {
	for k, v := range m {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
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

// normalizeTags applies kgmem's tag rule: trimmed, lower-cased,
// de-duplicated keeping the first occurrence, empties dropped, cut to max.
// Every tag is checked for UTF-8, even past the cut.
func normalizeTags(tags []string, max int) ([]string, error) {
	var out []string
	for _, t := range tags {
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("pgraph: tag %q is not valid UTF-8: %w", t, kgmem.ErrInvalidArgument)
		}
		t = normalizeTag(t)
		if t == "" || slices.Contains(out, t) || len(out) == max {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

func normalizeTag(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// foldRune narrows full-width ASCII forms, then maps r to the lower case of
// its upper case, so that every rune of a case-folding orbit maps to the
// same rune, as kgmem folds.
func foldRune(r rune) rune {
	r = narrow(r)
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// foldString passes every rune of s through foldRune.
func foldString(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldKeywords trims and folds keywords, dropping empty ones and
// duplicates, as kgmem's FindByKeywords does.
func foldKeywords(keywords []string) ([]string, error) {
	var out []string
	for _, k := range keywords {
		if !utf8.ValidString(k) {
			return nil, fmt.Errorf("pgraph: keyword %q is not valid UTF-8: %w", k, kgmem.ErrInvalidArgument)
		}
		if k = foldString(strings.TrimSpace(k)); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// countKeywordMatches returns how many of the folded keywords occur in the
// entity's ID, name, an alias or a tag, after folding.
func countKeywordMatches(e *kgmem.Entity, folded []string) int {
	texts := make([]string, 0, 2+len(e.Aliases)+len(e.Tags))
	texts = append(texts, foldString(e.ID), foldString(e.Name))
	for _, a := range e.Aliases {
		texts = append(texts, foldString(a))
	}
	for _, t := range e.Tags {
		texts = append(texts, foldString(t))
	}
	count := 0
	for _, k := range folded {
		for _, t := range texts {
			if strings.Contains(t, k) {
				count++
				break
			}
		}
	}
	return count
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
		runes = append(runes[:0], []rune(foldString(t))...)
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
// kgmem links an entity when a run of the text's units (words, or single
// CJK characters, folded and with full-width forms narrowed) spells the
// match key of its name or an alias. Each entity stores the match keys of
// its name and aliases in a GIN-indexed array; LinkEntities computes the key
// of every run of at most maxLinkUnits units of the text and asks for the
// entities holding one of them. Those are exactly the entities kgmem's
// matching can link, and kgmem.LinkWithKeywords then applies its matching
// rules to them. The unit rules below mirror kgmem's.

// maxLinkUnits is the longest name, in units, that kgmem links.
const maxLinkUnits = 16

// linkUnit is one unit of a text: its folded form and its byte span.
type linkUnit struct {
	key        string
	start, end int
	word       bool // a word unit, not a CJK character
}

// splitUnits cuts text into link units as kgmem does.
func splitUnits(text string) []linkUnit {
	var units []linkUnit
	var word []byte
	wordStart := -1
	endWord := func(at int) {
		if wordStart >= 0 {
			units = append(units, linkUnit{key: string(word), start: wordStart, end: at, word: true})
			word, wordStart = word[:0], -1
		}
	}
	for i := 0; i < len(text); {
		r, size := decode(text, i)
		switch {
		case r != utf8.RuneError && isCJK(r):
			endWord(i)
			units = append(units, linkUnit{key: string(foldRune(r)), start: i, end: i + size})
		case r != utf8.RuneError && isWordRune(r):
			if wordStart < 0 {
				wordStart = i
			}
			word = utf8.AppendRune(word, foldRune(r))
		default:
			endWord(i)
		}
		i += size
	}
	endWord(len(text))
	return units
}

// appendKey appends the match key of units: their folded forms, with a
// space between two adjacent word units and nothing elsewhere.
func appendKey(dst []byte, units []linkUnit) []byte {
	for i, u := range units {
		if i > 0 && u.word && units[i-1].word {
			dst = append(dst, ' ')
		}
		dst = append(dst, u.key...)
	}
	return dst
}

// linkKey returns the match key of a name, and false when kgmem does not
// link the name: it has no units or more than maxLinkUnits.
func linkKey(name string) (string, bool) {
	units := splitUnits(name)
	if len(units) == 0 || len(units) > maxLinkUnits {
		return "", false
	}
	return string(appendKey(nil, units)), true
}

// entityLinkKeys returns the distinct match keys of a name and aliases,
// sorted.
func entityLinkKeys(name string, aliases []string) []string {
	set := make(map[string]struct{}, 1+len(aliases))
	for _, n := range append([]string{name}, aliases...) {
		if k, ok := linkKey(n); ok {
			set[k] = struct{}{}
		}
	}
	return sortedKeys(set)
}

// spanKeys returns the distinct match keys of every run of at most
// maxLinkUnits units of text.
func spanKeys(units []linkUnit) []string {
	set := make(map[string]struct{})
	var key []byte
	for i := range units {
		for n := 1; n <= maxLinkUnits && i+n <= len(units); n++ {
			key = appendKey(key[:0], units[i:i+n])
			set[string(key)] = struct{}{}
		}
	}
	return sortedKeys(set)
}

const (
	fullWidthFirst  = 0xFF01 // FULLWIDTH EXCLAMATION MARK
	fullWidthLast   = 0xFF5E // FULLWIDTH TILDE
	fullWidthOffset = 0xFF01 - 0x21
	ideographicSp   = 0x3000
)

// narrow maps full-width ASCII forms and the ideographic space to ASCII.
func narrow(r rune) rune {
	switch {
	case r >= fullWidthFirst && r <= fullWidthLast:
		return r - fullWidthOffset
	case r == ideographicSp:
		return ' '
	}
	return r
}

// isCJK reports whether r belongs to a script written without spaces
// between words.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		r == 0x30FC // KATAKANA-HIRAGANA PROLONGED SOUND MARK
}

// isWordRune reports whether r (already narrowed) starts or continues a
// word outside CJK runs.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// decode returns the narrowed rune at text[i:] and its width in bytes; an
// invalid byte decodes as utf8.RuneError of width 1.
func decode(text string, i int) (rune, int) {
	c := text[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if r == utf8.RuneError && size <= 1 {
		return utf8.RuneError, 1
	}
	return narrow(r), size
}
