package kgmem

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// foldRune maps r to one lower-case representative of its case-folding
// orbit: the lower case of its upper case, after narrowing full-width ASCII
// forms (U+FF01–U+FF5E) and the ideographic space to ASCII. Every rune of an
// orbit maps to the same rune (K, k, ｋ and the Kelvin sign to k; Σ, σ and ς
// to σ; S, s and ſ to s; Ι, ι and the combining ypogegrammeni to ι), and a
// letter always maps to a letter.
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

// foldString returns s with every rune passed through foldRune. Two strings
// that differ only in case or in full-width forms fold to the same string.
// Invalid UTF-8 bytes become U+FFFD.
func foldString(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return foldSlow(s, i)
		}
	}
	return s
}

func foldSlow(s string, from int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:from])
	for _, r := range s[from:] {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}
