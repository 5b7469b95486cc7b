package textrule

import (
	"slices"
	"unicode/utf8"
)

// Entity linking finds the entities a text names, by exact match of their
// names and aliases. Matching works on units: a word (a run of letters and
// digits outside CJK scripts) is one unit, and each CJK character is one
// unit, so that "Project Apollo" matches "who works on project apollo?" and
// 张三 matches "张三负责什么项目？", while "go" does not match inside "google".
// Units are compared after case folding and full-width narrowing; anything
// that is neither a letter, a digit nor CJK only separates units.

// MaxLinkUnits is the longest name, in units, that linking indexes. Longer
// names and aliases are stored but cannot be linked by an exact match.
const MaxLinkUnits = 64

// Unit is one unit of a text: its folded form and its byte span.
type Unit struct {
	Key        string // the folded word, or the folded CJK character
	Start, End int    // byte offsets of the unit in the text
	Word       bool   // a word unit, not a CJK character
}

// SplitUnits cuts text into link units, in order. Invalid UTF-8 bytes
// separate units.
func SplitUnits(text string) []Unit {
	units := make([]Unit, 0, len(text)/6+1)
	// A unit whose folded form is its text takes its Key from text; the
	// others' folded forms go back to back into folded, made one string at
	// the end, so that splitting allocates the same few times whatever the
	// number of units.
	var folded []byte
	type refold struct{ unit, from, to int }
	var refolds []refold
	key := func(start, end, from int) {
		if string(folded[from:]) == text[start:end] {
			folded = folded[:from]
			units[len(units)-1].Key = text[start:end]
			return
		}
		refolds = append(refolds, refold{len(units) - 1, from, len(folded)})
	}
	wordStart, wordFrom := -1, 0
	endWord := func(at int) {
		if wordStart >= 0 {
			units = append(units, Unit{Start: wordStart, End: at, Word: true})
			key(wordStart, at, wordFrom)
			wordStart = -1
		}
	}
	for i := 0; i < len(text); {
		r, size := Decode(text, i)
		switch {
		case r != utf8.RuneError && IsCJK(r):
			endWord(i)
			from := len(folded)
			folded = utf8.AppendRune(folded, FoldRune(r))
			units = append(units, Unit{Start: i, End: i + size})
			key(i, i+size, from)
		case r != utf8.RuneError && IsWordRune(r):
			if wordStart < 0 {
				wordStart, wordFrom = i, len(folded)
			}
			folded = utf8.AppendRune(folded, FoldRune(r))
		default:
			endWord(i)
		}
		i += size
	}
	endWord(len(text))
	if len(refolds) > 0 {
		all := string(folded)
		for _, f := range refolds {
			units[f.unit].Key = all[f.from:f.to]
		}
	}
	if len(units) == 0 {
		return nil
	}
	return units
}

// AppendKey appends the match key of units to dst: their folded forms
// bare of the accents of Latin letters (see Bare), with a space between two
// adjacent word units and nothing elsewhere.
func AppendKey(dst []byte, units []Unit) []byte {
	for i, u := range units {
		if i > 0 && u.Word && units[i-1].Word {
			dst = append(dst, ' ')
		}
		dst = appendBare(dst, u.Key)
	}
	return dst
}

// FirstUnit returns the first unit of a match key (see AppendKey): a key
// is its units' folded forms, a space between two words, nothing around a
// CJK character, and neither a space nor a CJK character ever falls inside
// a word, so the key alone tells where its first unit ends.
func FirstUnit(key string) string {
	for i, r := range key {
		switch {
		case r == ' ':
			return key[:i]
		case IsCJK(r):
			if i == 0 {
				return key[:utf8.RuneLen(r)]
			}
			return key[:i]
		}
	}
	return key
}

// LinkKey returns the main match key under which entity linking finds a
// name or alias, and its number of units; ok is false when the name has
// no units or more than MaxLinkUnits. A name that is its own key is
// returned as it is, sharing its bytes.
func LinkKey(name string) (key string, units int, ok bool) {
	us := SplitUnits(name)
	if len(us) == 0 || len(us) > MaxLinkUnits {
		return "", 0, false
	}
	k := AppendKey(nil, us)
	if string(k) == name {
		return name, len(us), true // share the name's bytes
	}
	return string(k), len(us), true
}

// LinkVariant returns a second match key for a name whose words are joined
// by a single hyphen, apostrophe, dot or middle dot ("Spider-Man",
// "Ocean's Eleven", "U.S.A.", "WALL·E"): the key with those words run
// together, as people often type them ("spiderman", "oceans eleven"), and
// its number of units. ok is false when the name has no such joint.
func LinkVariant(name string) (key string, units int, ok bool) {
	us := SplitUnits(name)
	if len(us) < 2 || len(us) > MaxLinkUnits {
		return "", 0, false
	}
	var k []byte
	n, joined := 0, false
	for i, u := range us {
		if i > 0 && u.Word && us[i-1].Word {
			if r, size := utf8.DecodeRuneInString(name[us[i-1].End:]); us[i-1].End+size == u.Start && isJoiner(r) {
				joined = true
				k = appendBare(k, u.Key)
				continue
			}
			k = append(k, ' ')
		}
		k = appendBare(k, u.Key)
		n++
	}
	if !joined {
		return "", 0, false
	}
	return string(k), n, true
}

// isJoiner reports whether r, alone between two words, joins them into
// one name ("Spider-Man", "Ocean's").
func isJoiner(r rune) bool {
	switch r {
	case '-', '\'', '\u2019', '.', '\u00b7', '\u2010', '\u2011', '*', '/':
		return true
	}
	return false
}

// LinkKeys returns the match keys under which entity linking finds a name
// or alias, sorted: LinkKey's, and, for a name whose words are joined by a
// single hyphen, apostrophe, dot or middle dot ("Spider-Man", "Ocean's
// Eleven"), LinkVariant's, with those words run together ("spiderman",
// "oceans eleven"). None when linking cannot find the name.
func LinkKeys(name string) []string {
	var keys []string
	if k, _, ok := LinkKey(name); ok {
		keys = append(keys, k)
	}
	if k, _, ok := LinkVariant(name); ok {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AppendSingularKey appends to dst the match key of units (see AppendKey)
// with the plural "s" of its last unit dropped ("gila monsters" → "gila
// monster"), and reports whether the last unit is a word it applies to: a
// word, not a CJK character, of more than three letters that ends in "s"
// but not in "ss". When it does not apply, dst comes back as it was.
// Linking tries this key where the text's own key matches no name, so that
// a question's plural links the entity named in the singular.
func AppendSingularKey(dst []byte, units []Unit) ([]byte, bool) {
	if len(units) == 0 {
		return dst, false
	}
	last := units[len(units)-1].Key
	if !units[len(units)-1].Word || len(last) <= 3 || last[len(last)-1] != 's' || last[len(last)-2] == 's' {
		return dst, false
	}
	dst = AppendKey(dst, units)
	return dst[:len(dst)-1], true
}

// LinkSpanKeys returns, sorted and without duplicates, the match keys of
// every run of words and CJK characters in text that linking could match,
// and their singular keys (AppendSingularKey): an entity can be linked
// from text only if the key of its name or of an alias is among them. A
// backend stores the LinkKeys of each name and alias and looks these up to
// find the candidates for kgmem's LinkWithKeywords.
func LinkSpanKeys(text string) []string {
	units := SplitUnits(text)
	var keys []string
	var key []byte
	for i := range units {
		for n := 1; n <= MaxLinkUnits && i+n <= len(units); n++ {
			key = AppendKey(key[:0], units[i:i+n])
			keys = append(keys, string(key))
			if k, ok := AppendSingularKey(key[:0], units[i:i+n]); ok {
				keys = append(keys, string(k))
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
