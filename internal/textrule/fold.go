package textrule

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// FoldRune maps r to one lower-case representative of its case-folding
// orbit: the lower case of its upper case, after narrowing full-width ASCII
// forms (U+FF01–U+FF5E) and the ideographic space to ASCII. Every rune of an
// orbit maps to the same rune (K, k, ｋ and the Kelvin sign to k; Σ, σ and ς
// to σ; S, s and ſ to s; Ι, ι and the combining ypogegrammeni to ι), and a
// letter always maps to a letter.
func FoldRune(r rune) rune {
	r = Narrow(r)
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// Fold returns the form kgmem compares text in: s with every rune passed
// through FoldRune. Two strings that differ only in case or in full-width
// forms fold to the same string (ＡＰＩ is api). Invalid UTF-8 bytes become
// U+FFFD. A string that needs no folding is returned as it is.
func Fold(s string) string {
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
		b.WriteRune(FoldRune(r))
	}
	return b.String()
}

const (
	fullWidthFirst  = 0xFF01 // FULLWIDTH EXCLAMATION MARK
	fullWidthLast   = 0xFF5E // FULLWIDTH TILDE
	fullWidthOffset = 0xFF01 - 0x21
	ideographicSp   = 0x3000
)

// Narrow maps full-width ASCII forms (U+FF01–U+FF5E) to their ASCII
// counterparts and the ideographic space U+3000 to a space; other runes are
// returned unchanged.
func Narrow(r rune) rune {
	switch {
	case r >= fullWidthFirst && r <= fullWidthLast:
		return r - fullWidthOffset
	case r == ideographicSp:
		return ' '
	}
	return r
}
