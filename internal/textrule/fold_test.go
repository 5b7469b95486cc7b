package textrule

import (
	"testing"
	"unicode"
)

// TestFoldRuneOrbits checks every rune: all runes of a simple case-folding
// orbit fold to the same rune, and a letter folds to a letter.
func TestFoldRuneOrbits(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		f := FoldRune(r)
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if FoldRune(o) != f {
				t.Fatalf("FoldRune(%U) = %U but FoldRune(%U) = %U", r, f, o, FoldRune(o))
			}
		}
		if unicode.IsLetter(r) && !unicode.IsLetter(f) {
			t.Fatalf("FoldRune(%U) = %U is not a letter", r, f)
		}
	}
	if got := Fold("ΣΊΣΥΦΟΣ Kelvin STRASSE ＡＰＩ"); got != "σίσυφοσ kelvin strasse api" {
		t.Fatalf("Fold = %q", got)
	}
}
