package qaset

import (
	"strings"
	"unicode"
)

// This file decides whether a wording shares a stem with a relation name,
// for Question.Paraphrase and for the vocabulary coverage report.

// irregular maps irregular English forms to a base form before stemming.
var irregular = map[string]string{
	"wrote": "write", "written": "write", "writing": "write",
	"made": "make", "making": "make",
	"spoke": "speak", "spoken": "speak",
	"born": "birth",
	"led":  "lead", "leading": "lead",
	"children": "child", "kids": "kid",
	"actress": "act", "actresses": "act",
	"people": "person",
	"sold":   "sell", "bought": "buy",
	"ran": "run", "running": "run",
	"began": "begin", "begun": "begin",
	"thought": "think", "knew": "know", "known": "know",
	"went": "go", "gone": "go",
	"came": "come", "coming": "come",
	"grew": "grow", "grown": "grow",
	"met":  "meet",
	"paid": "pay",
	"held": "hold",
	"took": "take", "taken": "take",
	"gave": "give", "given": "give",
	"built": "build",
	"sat":   "sit",
	"tech":  "technology",
	"used":  "use", "uses": "use", "using": "use",
	"nation": "national", "nations": "national",
}

// stopwords are function words and question scaffolding that never carry a
// relation's meaning.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of in on at to for by with from into onto about as and or but nor
		is are was were be been being am has have had do does did done
		what which who whom whose where when how why that this these those there here
		it its it's i me my we us our you your they them their he him his she her
		some any all each every other others else same such many much more most one ones
		also ever still just only very really even then than so not no yes
		can could would should will shall may might must
		s 's name list show give tell find get got let please know want need like
		whoever whatever whichever there's what's who's where's when's
		through across along over under between within near behind up down out off`) {
		stopwords[w] = true
	}
}

// words splits English text into lower-cased words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r)) || isCJK(r)
	})
}

func isCJK(r rune) bool { return unicode.Is(unicode.Han, r) }

// stem reduces an English word to a crude stem.
func stem(w string) string {
	w = strings.ToLower(w)
	if b, ok := irregular[w]; ok {
		w = b
	}
	w = strings.TrimSuffix(w, "'s")
	strip := func(suf string, min int) bool {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= min {
			w = w[:len(w)-len(suf)]
			return true
		}
		return false
	}
	// plurals and third person
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") && len(w) > 3:
		w = w[:len(w)-1]
	}
	// verb inflections
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strip("ed", 3), strip("ing", 3):
		if n := len(w); n >= 2 && w[n-1] == w[n-2] && strings.ContainsRune("bdgmnprt", rune(w[n-1])) {
			w = w[:n-1]
		}
	}
	// derivations
	for _, suf := range []string{"ation", "ition", "ity", "ion", "ment", "ship", "er", "or", "al", "ive", "ian", "y"} {
		if strip(suf, 3) {
			break
		}
	}
	if n := len(w); n >= 2 && w[n-1] == w[n-2] && strings.ContainsRune("bdgmnprt", rune(w[n-1])) {
		w = w[:n-1]
	}
	if len(w) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}

// sameStem reports whether two stems are the same or one of at least four
// letters contains the other.
func sameStem(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.Contains(b, a)
}

// contentStems returns the stems of the content words of English text.
func contentStems(s string) []string {
	var out []string
	for _, w := range words(s) {
		if stopwords[w] || len(w) < 2 {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// relationNameParts splits a relation type name into its English stems and
// its Chinese text: for a path-style name only the last segment counts;
// snake_case and camelCase are split into words.
func relationNameParts(name string) (stems []string, han string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var sb strings.Builder
	var hb strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case isCJK(r):
			hb.WriteRune(r)
			sb.WriteByte(' ')
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				sb.WriteByte(' ')
			}
			sb.WriteRune(unicode.ToLower(r))
			prevLower = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			sb.WriteRune(r)
			prevLower = true
		default:
			sb.WriteByte(' ')
			prevLower = false
		}
	}
	return contentStems(sb.String()), hb.String()
}

// hanOnly keeps the Chinese characters of s.
func hanOnly(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isCJK(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sharesStem reports whether wording (with its slot and alternation
// syntax already removed) shares a stem with relation name rel.
func sharesStem(wording, rel string) bool {
	relStems, relHan := relationNameParts(rel)
	for _, w := range contentStems(wording) {
		for _, r := range relStems {
			if sameStem(w, r) {
				return true
			}
		}
	}
	if relHan == "" {
		return false
	}
	han := hanOnly(wording)
	for _, r := range relHan {
		if !strings.ContainsRune(hanFunction, r) && strings.ContainsRune(han, r) {
			return true
		}
	}
	return false
}

// hanFunction holds Chinese function characters that never carry a
// relation's meaning.
const hanFunction = "于给的在是了和与向对从把被之"

// covers reports whether a vocabulary phrase covers a wording: every
// content word of the phrase has a stem in the wording, or, for a phrase
// in Chinese, the wording contains it.
func covers(phrase, wording string) bool {
	if h := hanOnly(phrase); h != "" {
		return strings.Contains(hanOnly(wording), h) && latinCovered(phrase, wording)
	}
	return latinCovered(phrase, wording)
}

func latinCovered(phrase, wording string) bool {
	ws := contentStems(wording)
	ps := contentStems(phrase)
	if len(ps) == 0 {
		// A phrase made of function words only ("in") covers nothing.
		return hanOnly(phrase) != ""
	}
	for _, p := range ps {
		found := false
		for _, w := range ws {
			if sameStem(p, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
