package kgmem

import (
	"testing"
	"unicode"
)

// TestFoldRuneOrbits checks every rune: all runes of a simple case-folding
// orbit fold to the same rune, and a letter folds to a letter.
func TestFoldRuneOrbits(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		f := foldRune(r)
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if foldRune(o) != f {
				t.Fatalf("foldRune(%U) = %U but foldRune(%U) = %U", r, f, o, foldRune(o))
			}
		}
		if unicode.IsLetter(r) && !unicode.IsLetter(f) {
			t.Fatalf("foldRune(%U) = %U is not a letter", r, f)
		}
	}
	if got := foldString("ΣΊΣΥΦΟΣ Kelvin STRASSE ＡＰＩ"); got != "σίσυφοσ kelvin strasse api" {
		t.Fatalf("foldString = %q", got)
	}
}
