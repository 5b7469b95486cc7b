package textrule

import "unicode/utf8"

// Link keys are bare of the accents of Latin letters, so that a name and a
// question that write it with or without them ("Akinoshū Kenji" and
// "Akinoshu Kenji", "Hernández" and "Hernandez") link: each letter of the
// Latin-1 Supplement and Latin Extended-A blocks that is a base letter with
// a mark stands for its base letter. Ligatures (æ, œ), ß, İ and letters
// without a mark (ð, þ, ı, đ, ł) stay as they are. Other scripts are untouched.

// bareFrom is the first rune with a bare form; bare[r-bareFrom] is r's bare
// form, or 0 when r has none.
const bareFrom = 0xC0

var bare = func() []rune {
	pairs := []struct {
		base  rune
		marks string
	}{
		{'a', "àáâãäåāăą"}, {'A', "ÀÁÂÃÄÅĀĂĄ"},
		{'c', "çćĉċč"}, {'C', "ÇĆĈĊČ"},
		{'d', "ď"}, {'D', "Ď"},
		{'e', "èéêëēĕėęě"}, {'E', "ÈÉÊËĒĔĖĘĚ"},
		{'g', "ĝğġģ"}, {'G', "ĜĞĠĢ"},
		{'h', "ĥ"}, {'H', "Ĥ"},
		{'i', "ìíîïĩīĭį"}, {'I', "ÌÍÎÏĨĪĬĮ"},
		{'j', "ĵ"}, {'J', "Ĵ"},
		{'k', "ķ"}, {'K', "Ķ"},
		{'l', "ĺļľ"}, {'L', "ĹĻĽ"},
		{'n', "ñńņň"}, {'N', "ÑŃŅŇ"},
		{'o', "òóôõöōŏő"}, {'O', "ÒÓÔÕÖŌŎŐ"},
		{'r', "ŕŗř"}, {'R', "ŔŖŘ"},
		{'s', "śŝşš"}, {'S', "ŚŜŞŠ"},
		{'t', "ţť"}, {'T', "ŢŤ"},
		{'u', "ùúûüũūŭůűų"}, {'U', "ÙÚÛÜŨŪŬŮŰŲ"},
		{'w', "ŵ"}, {'W', "Ŵ"},
		{'y', "ýÿŷ"}, {'Y', "ÝŶŸ"},
		{'z', "źżž"}, {'Z', "ŹŻŽ"},
	}
	t := make([]rune, 0x180-bareFrom)
	for _, p := range pairs {
		for _, r := range p.marks {
			t[r-bareFrom] = p.base
		}
	}
	return t
}()

// bareRune returns r's bare form, or r.
func bareRune(r rune) rune {
	if r >= bareFrom && int(r-bareFrom) < len(bare) && bare[r-bareFrom] != 0 {
		return bare[r-bareFrom]
	}
	return r
}

// hasMarked reports whether s holds a rune with a bare form; every such
// rune is encoded from a lead byte 0xC3–0xC5.
func hasMarked(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b >= 0xC3 && b <= 0xC5 {
			r, _ := utf8.DecodeRuneInString(s[i:])
			if bareRune(r) != r {
				return true
			}
		}
	}
	return false
}

// appendBare appends s to dst with each accented Latin letter replaced by
// its base letter.
func appendBare(dst []byte, s string) []byte {
	if !hasMarked(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if b := bareRune(r); b != r {
			dst = utf8.AppendRune(dst, b)
		} else {
			dst = append(dst, s[i:i+size]...) // invalid bytes as they are
		}
		i += size
	}
	return dst
}

// Bare returns s with each accented Latin letter replaced by its base
// letter, as link keys write it (s itself when it has none): "akinoshū"
// is "akinoshu".
func Bare(s string) string {
	if !hasMarked(s) {
		return s
	}
	return string(appendBare(nil, s))
}
