package question

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/textrule"
)

// concepts is the built-in lexicon (see textrule.Concepts); a concept's ID
// is its index. Read-only.
var concepts = textrule.Concepts()

// lexiconIndex finds the concepts of words and phrases.
type lexiconIndex struct {
	// words maps the stem of a one-word English entry to its senses.
	words map[string][]sense
	// phrases maps the stem of the first word of a multi-word English entry
	// to the entries, each a sequence of stems.
	phrases map[string][]lexPhrase
	// zh maps the first rune of a Chinese entry to its entries, longest
	// first.
	zh map[rune][]lexPhrase
}

type lexPhrase struct {
	stems []string // English: the words' stems
	text  string   // Chinese: the word
	sense
}

// sense is a word's membership of a concept. An entry written "~son"
// names the concept's relation the other way round: a son is who a parent
// relation comes from, a father where it goes. An entry written "^manage"
// does so only as a verb (see verbInverse).
type sense struct {
	concept int
	Inverse bool
	// verbInverse marks a word that names the relation the other way round
	// when used as a verb ("^manage": who X manages reports to X) but not
	// as a noun (X's manager is whom X reports to); its noun shares its
	// stem, so only the question's syntax tells them apart.
	verbInverse bool
}

// lexicon is the index of concepts, built once.
var lexicon = buildLexicon(concepts)

func buildLexicon(cs []textrule.Concept) *lexiconIndex {
	x := &lexiconIndex{words: map[string][]sense{}, phrases: map[string][]lexPhrase{}, zh: map[rune][]lexPhrase{}}
	for id, c := range cs {
		for _, e := range c.En {
			sn := sense{concept: id}
			if rest, ok := strings.CutPrefix(e, "~"); ok {
				e, sn.Inverse = rest, true
			}
			if rest, ok := strings.CutPrefix(e, "^"); ok {
				e, sn.verbInverse = rest, true
			}
			words := strings.Fields(textrule.Fold(e))
			for i, w := range words {
				words[i] = textrule.Stem(w)
			}
			if len(words) == 1 {
				if !slices.Contains(x.words[words[0]], sn) {
					x.words[words[0]] = append(x.words[words[0]], sn)
				}
				continue
			}
			x.phrases[words[0]] = append(x.phrases[words[0]], lexPhrase{stems: words, sense: sn})
		}
		for _, z := range c.Zh {
			sn := sense{concept: id}
			if rest, ok := strings.CutPrefix(z, "~"); ok {
				z, sn.Inverse = rest, true
			}
			r, _ := utf8.DecodeRuneInString(z)
			x.zh[r] = append(x.zh[r], lexPhrase{text: z, sense: sn})
		}
	}
	for r, list := range x.zh {
		// Longest first, then in lexicon order, so that matching is
		// deterministic.
		sortStableBy(list, func(a, b lexPhrase) bool { return len(a.text) > len(b.text) })
		x.zh[r] = list
	}
	return x
}

// sortStableBy is an insertion sort: the lexicon's lists are short.
func sortStableBy[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// sensesOf returns the senses of one English word's stem.
func (x *lexiconIndex) sensesOf(stem string) []sense { return x.words[stem] }

// conceptID returns the index of the concept with the given name; the
// lexicon's own code asks only for names it defines.
func conceptID(name string) int {
	for i, c := range concepts {
		if c.Name == name {
			return i
		}
	}
	panic("kgmem: lexicon has no concept " + name)
}

// conceptProfession is the concept "what does X do" asks about.
var conceptProfession = conceptID("profession")
