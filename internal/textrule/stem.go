package textrule

import "strings"

// The light English stemmer question analysis compares words by, so that
// directed, director and directs agree.

// Stem returns the light stem of a folded word (see Fold): for words of the letters
// a–z, inflections and common derivational suffixes are removed
// (directed, director, directs → direct; starring, starred → star;
// nationality → nat, nation → nat; movies, movie → movi); irregular forms
// map to their base (wrote, written → writ; children → child). Other words
// are returned unchanged. The stem is a comparison key, not a word.
func Stem(w string) string {
	if len(w) < 3 || !isLowerASCII(w) {
		return w
	}
	if base, ok := irregularForms[w]; ok {
		w = base
	}
	w = stripInflection(w)
	for range 2 {
		next := stripDerivation(w)
		if next == w {
			break
		}
		w = next
	}
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	if n := len(w); n >= 4 && w[n-1] == 'y' {
		w = w[:n-1] + "i"
	}
	return undouble(w)
}

func isLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// stripInflection removes a plural ending, then a past or progressive one
// (ratings → rating → rat; released → releas).
func stripInflection(w string) string {
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ies") && n >= 5:
		return w[:n-3] + "i"
	case strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		if n-2 >= 3 {
			w = w[:n-2]
		}
	case n >= 4 && w[n-1] == 's' && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case strings.HasSuffix(w, "ied") && n >= 5:
		return w[:n-3] + "i"
	case strings.HasSuffix(w, "ing") && n-3 >= 3:
		return undouble(w[:n-3])
	case strings.HasSuffix(w, "ed") && n-2 >= 3:
		return undouble(w[:n-2])
	case strings.HasSuffix(w, "ed") && n >= 4:
		return w[:n-1] // used → use
	}
	return w
}

// undouble turns a final doubled consonant into one (starr → star), except
// ll, ss and zz, which English keeps in base forms (call, class, jazz).
func undouble(w string) string {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// derivations are derivational suffixes, longest first, with the length the
// remaining stem must keep.
var derivations = []struct {
	suffix, with string
	keep         int
}{
	{"ational", "ate", 3}, {"ality", "", 3}, {"ional", "", 3}, {"ation", "ate", 3},
	{"ition", "", 3}, {"ment", "", 4}, {"ness", "", 4}, {"ship", "", 4}, {"hood", "", 4},
	{"ious", "", 3}, {"ence", "", 4}, {"ance", "", 4}, {"ian", "", 4},
	{"ity", "", 4}, {"ion", "", 3}, {"ous", "", 3}, {"ive", "", 4}, {"ist", "", 4},
	{"er", "", 3}, {"or", "", 3}, {"ee", "", 5}, {"al", "", 4},
	{"en", "", 4}, {"ly", "", 4}, {"ic", "", 4},
}

// stripDerivation removes the first derivational suffix that applies.
func stripDerivation(w string) string {
	for _, d := range derivations {
		if strings.HasSuffix(w, d.suffix) && len(w)-len(d.suffix) >= d.keep {
			return undouble(w[:len(w)-len(d.suffix)] + d.with)
		}
	}
	return w
}

// irregularForms maps irregular English forms to a regular base.
var irregularForms = map[string]string{
	"wrote": "write", "written": "write", "writ": "write",
	"children": "child", "men": "man", "women": "woman",
	"made": "make", "did": "do", "done": "do",
	"sang": "sing", "sung": "sing", "spoke": "speak", "spoken": "speak",
	"taught": "teach", "led": "lead", "won": "win", "began": "begin",
	"begun": "begin", "built": "build", "bought": "buy", "sold": "sell",
	"grew": "grow", "grown": "grow", "knew": "know", "known": "know",
	"held": "hold", "ran": "run", "took": "take", "taken": "take",
	"gave": "give", "given": "give", "became": "become", "drove": "drive",
	"driven": "drive", "flew": "fly", "flown": "fly", "chose": "choose",
	"chosen": "choose", "wore": "wear", "worn": "wear", "kept": "keep",
	"met": "meet", "paid": "pay", "said": "say", "sent": "send",
	"spent": "spend", "stood": "stand", "told": "tell", "thought": "think",
	"went": "go", "gone": "go", "wives": "wife", "lives": "live",
	"halves": "half", "shot": "shoot", "found": "found", "felt": "feel",
	"brought": "bring", "caught": "catch", "fought": "fight",
	"drew": "draw", "drawn": "draw", "sought": "seek", "struck": "strike",
	"hid": "hide", "hidden": "hide", "rode": "ride", "ridden": "ride",
	"rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall",
	"ate": "eat", "eaten": "eat", "died": "die", "dies": "die",
	"dying": "die", "lying": "lie", "ties": "tie", "tied": "tie",
	"movies": "movie", "cookies": "cookie",
}
