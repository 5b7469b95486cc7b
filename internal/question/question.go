package question

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/textrule"
)

// Vocab is a vocabulary of registered phrases compiled for matching: each
// phrase as the keys of its units, and for relation phrases also as its
// words as spelled (folded), so that a question's word that spells a
// phrase can be told from one that only shares its stem.
type Vocab struct {
	rel, inv, types  map[string][][]string
	relFold, invFold map[string][][]string // the folds of rel's and inv's phrases, index for index
}

// CompileVocab compiles the phrases registered for relation types
// (relations), for relation types walked from target to source (inverse)
// and for entity types (types), each map keyed by the type as stored.
func CompileVocab(relations, inverse, types map[string][]string) *Vocab {
	compile := func(m map[string][]string) (keys, folds map[string][][]string) {
		if len(m) == 0 {
			return nil, nil
		}
		keys, folds = make(map[string][][]string, len(m)), make(map[string][][]string, len(m))
		for k, phrases := range m {
			for _, p := range phrases {
				if ks, fs := phraseKeys(p); len(ks) > 0 {
					keys[k] = append(keys[k], ks)
					folds[k] = append(folds[k], fs)
				}
			}
		}
		return keys, folds
	}
	v := &Vocab{}
	v.rel, v.relFold = compile(relations)
	v.inv, v.invFold = compile(inverse)
	v.types, _ = compile(types)
	return v
}

// phraseKeys returns the unit keys of a registered phrase: stems of its
// words and its CJK characters, stop words dropped unless nothing else is
// left; and the same units' folded forms.
func phraseKeys(p string) (keys, folds []string) {
	units := analyzeUnits(p)
	var all, allFolds []string
	for _, u := range units {
		all, allFolds = append(all, u.stem), append(allFolds, u.fold)
		if !u.stop {
			keys, folds = append(keys, u.stem), append(folds, u.fold)
		}
	}
	if len(keys) == 0 {
		return all, allFolds
	}
	return keys, folds
}

// Unit is one unit of an analysed text: a word, or one CJK character.
type Unit struct {
	fold       string // case-folded
	stem       string // the word's stem; the character itself for CJK
	Start, End int    // byte offsets in the text
	word       bool   // a word, not a CJK character
	stop       bool   // an English stop word or a Chinese stop character
}

// occurrence is a run of units that spells a lexicon entry.
type occurrence struct {
	sense
	First, Last int // unit indexes, inclusive
}

// analyzeUnits cuts text into units with their stems.
func analyzeUnits(text string) []Unit {
	link := textrule.SplitUnits(text)
	units := make([]Unit, len(link))
	for i, u := range link {
		t := Unit{fold: u.Key, stem: u.Key, Start: u.Start, End: u.End, word: u.Word}
		if u.Word {
			t.stop = textrule.IsStopWord(u.Key)
			t.stem = textrule.Stem(u.Key)
		} else {
			r, _ := utf8.DecodeRuneInString(u.Key)
			t.stop = textrule.IsCJKStopChar(r)
		}
		units[i] = t
	}
	return units
}

// findOccurrences returns every run of units that spells a lexicon entry:
// English entries by stem, word for word; Chinese entries by their
// characters.
func findOccurrences(units []Unit) []occurrence {
	var out []occurrence
	for i, u := range units {
		if u.word {
			for _, sn := range lexicon.sensesOf(u.stem) {
				out = append(out, occurrence{sn, i, i})
			}
			for _, p := range lexicon.phrases[u.stem] {
				if i+len(p.stems) > len(units) {
					continue
				}
				ok := true
				for k, s := range p.stems {
					if !units[i+k].word || units[i+k].stem != s {
						ok = false
						break
					}
				}
				if ok {
					out = append(out, occurrence{p.sense, i, i + len(p.stems) - 1})
				}
			}
			continue
		}
		r, _ := utf8.DecodeRuneInString(u.fold)
		for _, p := range lexicon.zh[r] {
			if last, ok := cjkRunHasPrefix(units, i, p.text); ok {
				out = append(out, occurrence{p.sense, i, last})
			}
		}
	}
	// A Chinese character inside a longer Chinese entry is part of that
	// word, not a word of its own: 导 (direct) in 导师 (mentor). And 哪 before
	// a classifier asks "which", not "where": 在哪个团队 is "in which team".
	return slices.DeleteFunc(out, func(o occurrence) bool {
		if !units[o.First].word && o.Last+1 < len(units) && strings.HasSuffix(units[o.Last].fold, "哪") &&
			strings.Contains("个些家位种类", units[o.Last+1].fold) {
			return true
		}
		if o.First != o.Last || units[o.First].word {
			return false
		}
		return slices.ContainsFunc(out, func(p occurrence) bool {
			return p.Last > p.First && !units[p.First].word && p.First <= o.First && o.Last <= p.Last
		})
	})
}

// cjkRunHasPrefix reports whether the CJK units from i on spell s, and the
// index of the last unit of s.
func cjkRunHasPrefix(units []Unit, i int, s string) (int, bool) {
	j := i
	for s != "" {
		if j >= len(units) || units[j].word || !strings.HasPrefix(s, units[j].fold) {
			return 0, false
		}
		s = s[len(units[j].fold):]
		j++
	}
	return j - 1, true
}

// Match strengths of a question word against a name's word.
const (
	strengthExact   = 1.0  // the same word
	strengthStem    = 0.95 // the same stem: directed and director
	strengthLexicon = 0.85 // the same lexicon concept: couple and spouse
	strengthIdiom   = 0.9  // a lexicon phrase of several words: "work for"
	inverseSense    = 0.95 // times the above, for a word naming the relation the other way: son for parents
	strengthVocab   = 1.0  // a registered phrase
	domainWeight    = 0.3  // weight of a name's words outside its last segment
)

// NamePart is one word of a relation or entity type name (or one run of
// CJK characters) with the lexicon concepts it takes part in.
type NamePart struct {
	fold, stem string
	cjk        bool // fold is a run of CJK characters
	// Weight is 1 for a word of the name's last segment, domainWeight for
	// the others.
	Weight float64
	senses []sense
}

// splitName cuts a relation or entity type name into its parts. Paths
// ("film/film/directed_by", "__people__person__spouse_s", "a.b.c", "a:b")
// are cut into segments, and the words of the last segment weigh 1, the
// others domainWeight; within a segment, underscores, hyphens and camelCase
// separate words. Stop words are dropped unless nothing else is left.
func splitName(name string) []NamePart {
	segs := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '.' || r == ':' || r == '#' })
	if len(segs) == 1 && strings.Contains(segs[0], "__") {
		segs = strings.Split(segs[0], "__")
	}
	segs = slices.DeleteFunc(segs, func(s string) bool { return strings.Trim(s, "_- ") == "" })
	var parts []NamePart
	for si, seg := range segs {
		weight := 1.0
		if si < len(segs)-1 {
			weight = domainWeight
		}
		parts = append(parts, segmentParts(textrule.SplitCamel(seg), weight)...)
	}
	if len(parts) == 0 {
		return nil
	}
	// Only the last segment's words, when it has any, weigh 1.
	return parts
}

func segmentParts(seg string, weight float64) []NamePart {
	units := analyzeUnits(seg)
	occs := findOccurrences(units)
	var parts []NamePart
	partOf := make([]int, len(units)) // unit → part, -1 for none
	for i := 0; i < len(units); {
		u := units[i]
		if u.word {
			partOf[i] = -1
			if !u.stop {
				partOf[i] = len(parts)
				parts = append(parts, NamePart{fold: u.fold, stem: u.stem, Weight: weight})
			}
			i++
			continue
		}
		// A run of CJK characters is one part.
		j := i
		var run strings.Builder
		for j < len(units) && !units[j].word {
			run.WriteString(units[j].fold)
			partOf[j] = len(parts)
			j++
		}
		parts = append(parts, NamePart{fold: run.String(), stem: run.String(), cjk: true, Weight: weight})
		i = j
	}
	if len(parts) == 0 {
		// A name of stop words only ("in", "has"): keep them.
		for i, u := range units {
			partOf[i] = len(parts)
			parts = append(parts, NamePart{fold: u.fold, stem: u.stem, Weight: weight})
		}
	}
	for _, o := range occs {
		for i := o.First; i <= o.Last; i++ {
			if p := partOf[i]; p >= 0 && !slices.Contains(parts[p].senses, o.sense) {
				parts[p].senses = append(parts[p].senses, o.sense)
			}
		}
	}
	return parts
}

// Analysis is the analysis of one query against the mentions linked in it.
type Analysis struct {
	text string
	// Units are the query's units, in order.
	Units []Unit
	// Content lists the units that can match a relation or type name: not
	// stop words, not inside a linked mention. A unit's bit in a mask is its
	// index in Content; only the first MaxBits are used.
	Content []int
	bit     []int // unit → bit, -1 for none
	occs    []occurrence
	// Cues are the words that say what kind of answer is wanted.
	Cues []Cue
	// Pivot: the question asks for something shared: share, same, co-,
	// together.
	Pivot bool
	// PivotAt holds the bit (see Content) of the relation word a "co-"
	// compound joins ("stars" in "X's co-stars", "founded" in "who
	// co-founded"): the neighbour is shared over that word's relation, so
	// the walk pivots right after the hop that matched it; 0 when no such
	// compound.
	PivotAt uint64
	// PivotWith holds the bits of the words right before a "with" ("acted
	// with X", "wrote scripts with X"): a hop that matched one may be
	// followed by a pivot over its relation, to who shares it with X, though
	// Pivot is not set (the question does not ask for something shared
	// when "with" follows another word: "the films with music by X").
	PivotWith uint64
	// Tail is the last content unit of a question asked with do-support or
	// a perfect ("what films did the cast of X direct", "which films have
	// the people who financed X produced"), whose last verb is the main
	// clause's and so names the outermost hop; -1 for other questions.
	Tail int
}

// Cue is a question word that says what kind of answer is wanted: a wh-word
// (who, when, where, 谁, 哪里) or the noun after which/what (which films,
// 什么项目).
type Cue struct {
	// Unit and Last are its units, inclusive.
	Unit, Last int
	stem       string // the word's stem, or the CJK characters
	cjk        bool
	// Wh marks a wh-word (who, 谁), not a noun.
	Wh       bool
	concepts []int
}

// MaxBits is how many content units a question can use.
const MaxBits = 64

// headSkip are words skipped between which/what and the noun they ask for.
// An auxiliary (auxWords) ends the search instead: the noun after it is
// the subject ("what do people speak").
var headSkip = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "the": true, "a": true, "an": true,
	"s": true, "of": true, "name": true, "names": true,
	"be": true, "been": true, "all": true, "some": true,
	"other": true, "any": true, "exactly": true, "me": true, "us": true, "out": true, "up": true,
	"every": true, "each": true,
}

// pivotWords are words that ask for something two entities share.
var pivotWords = map[string]bool{
	"share": true, "shares": true, "shared": true, "sharing": true, "same": true, "co": true, "together": true,
	"also": true, "both": true, "common": true, "commonly": true, "similar": true, "fellow": true,
	"another": true, "other": true, "teammate": true, "teammates": true, "colleague": true, "colleagues": true,
	"coworker": true, "coworkers": true, "collaborator": true, "collaborators": true, "peer": true, "peers": true,
	"costar": true, "costars": true,
}

// Analyze analyses text, with the byte spans of the linked
// mentions excluded from the words that can match names.
func Analyze(text string, spans [][2]int) *Analysis {
	q := &Analysis{text: text, Units: analyzeUnits(text)}
	inSpan := func(u Unit) bool {
		for _, s := range spans {
			if u.Start >= s[0] && u.End <= s[1] {
				return true
			}
		}
		return false
	}
	q.bit = make([]int, len(q.Units))
	entity := make([]bool, len(q.Units))
	for i, u := range q.Units {
		q.bit[i] = -1
		entity[i] = inSpan(u)
		if u.stop || entity[i] || len(q.Content) == MaxBits {
			continue
		}
		q.bit[i] = len(q.Content)
		q.Content = append(q.Content, i)
	}
	q.doIdiom(entity)
	q.Tail = q.findTail(entity)
	for _, o := range findOccurrences(q.Units) {
		keep := true
		for i := o.First; i <= o.Last; i++ {
			if entity[i] {
				keep = false
			}
		}
		if keep {
			q.occs = append(q.occs, o)
		}
	}
	q.findCues(entity)
	// A word asking for something shared, unless it belongs to a phrase
	// of the lexicon ("other" in "other half").
	for i, u := range q.Units {
		if entity[i] || !(u.word && pivotWords[u.fold] || !u.word && (u.fold == "同" || u.fold == "共")) {
			continue
		}
		if !q.inPhrase(i) {
			q.Pivot = true
		}
		if u.fold == "co" && i+1 < len(q.Units) && q.Units[i+1].word && !entity[i+1] &&
			u.End < len(text) && text[u.End] == '-' && q.Units[i+1].Start == u.End+1 {
			q.PivotAt |= q.Span(i+1, i+1)
		}
	}
	// The word before a "with" that belongs to no phrase of the lexicon
	// ("built with" is one, for a use relation).
	for i := 1; i < len(q.Units); i++ {
		if !q.Units[i].word || q.Units[i].fold != "with" || !q.Units[i-1].word || entity[i-1] || q.Units[i-1].stop {
			continue
		}
		if !q.inPhrase(i) {
			q.PivotWith |= q.Span(i-1, i-1)
		}
	}
	return q
}

// auxWords make a wh-question's last verb its main verb: "what films did
// … direct", "who do … star", "which films have … produced".
var auxWords = map[string]bool{"do": true, "does": true, "did": true, "have": true, "has": true, "had": true}

// findTail returns the question's last content unit, other than a polite
// word, when the question opens with which, what, who or whom followed,
// within three words and before any named entity, by do, does, did, have,
// has or had; -1 otherwise.
func (q *Analysis) findTail(entity []bool) int {
	words := 0
	wh := -1
	for i, u := range q.Units {
		if !u.word {
			return -1
		}
		if entity[i] {
			break
		}
		words++
		switch {
		case wh < 0 && words > 6:
			return -1
		case wh < 0:
			switch u.fold {
			case "what", "which", "who", "whom":
				wh = words
			}
			continue
		case words-wh > 3:
			return -1
		case auxWords[u.fold]:
			for k := len(q.Content) - 1; k >= 0; k-- {
				if j := q.Content[k]; !politeWords[q.Units[j].fold] {
					return j
				}
			}
			return -1
		}
	}
	return -1
}

// doIdiom reads "what does X do" as a question about X's occupation: the
// final "do" becomes a content word standing for the profession concept.
func (q *Analysis) doIdiom(entity []bool) {
	words := make([]int, 0, len(q.Units))
	for i, u := range q.Units {
		if u.word {
			words = append(words, i)
		}
	}
	if len(words) < 3 || q.Units[words[0]].fold != "what" {
		return
	}
	last := words[len(words)-1]
	switch q.Units[last].fold {
	case "do", "does", "did":
	default:
		return
	}
	switch q.Units[words[1]].fold {
	case "do", "does", "did":
	default:
		return
	}
	if entity[last] || q.bit[last] >= 0 || len(q.Content) == MaxBits {
		return
	}
	q.bit[last] = len(q.Content)
	q.Content = append(q.Content, last)
	q.Units[last].stem = "do-for-a-living"
	q.occs = append(q.occs, occurrence{sense{concept: conceptProfession}, last, last})
}

// findCues records the question's answer-type cues: wh-words (who, when,
// where, how many, 谁, 哪里, 什么时候, 多少), the noun after which/what or
// after an imperative (list the films, name the country), and the noun
// after 什么/哪个/哪些/哪.
func (q *Analysis) findCues(entity []bool) {
	for _, o := range q.occs {
		if concepts[o.concept].Cue && whWords[q.textOf(o.First, o.Last)] {
			c := q.cueAt(o.First, o.Last, []int{o.concept})
			c.Wh = true
			q.Cues = append(q.Cues, c)
		}
	}
	for i, u := range q.Units {
		if !u.word || entity[i] {
			continue
		}
		head := false
		switch u.fold {
		case "who", "whom", "whose", "when", "where":
			if q.relativeAt(i) {
				continue
			}
			for _, sn := range lexicon.sensesOf(u.stem) {
				if concepts[sn.concept].Cue {
					c := q.cueAt(i, i, []int{sn.concept})
					c.Wh = true
					q.Cues = append(q.Cues, c)
				}
			}
		case "which", "what":
			head = true
		case "list", "name", "give", "show", "tell", "find", "enumerate", "get":
			// An imperative: only at the start, after "please" and the like.
			head = !slices.ContainsFunc(q.Units[:i], func(v Unit) bool { return v.word && !politeWords[v.fold] })
		}
		if !head {
			continue
		}
		for j := i + 1; j < len(q.Units); j++ {
			v := q.Units[j]
			if entity[j] || !v.word || auxWords[v.fold] {
				break
			}
			if headSkip[v.fold] {
				continue
			}
			if !v.stop {
				q.Cues = append(q.Cues, q.cueAt(j, j, q.conceptsAt(j)))
			}
			break
		}
	}
	// Chinese: the noun before 是哪/是什么/是谁/有哪些 ("X的团队是哪个").
	for i := 1; i < len(q.Units); i++ {
		if q.Units[i].word || !(q.cjkAt(i, "是哪") || q.cjkAt(i, "是什么") || q.cjkAt(i, "是谁") ||
			q.cjkAt(i, "有哪") || q.cjkAt(i, "都有哪") || q.cjkAt(i, "是多少")) {
			continue
		}
		last := i - 1
		if q.Units[last].word || q.Units[last].stop || entity[last] {
			continue // "X的是什么" names no noun
		}
		first := last
		for _, o := range q.occs {
			if o.Last == last && o.First < first && !concepts[o.concept].Cue {
				first = o.First
			}
		}
		if first == last && last > 0 && !q.Units[last-1].word && !q.Units[last-1].stop && !entity[last-1] {
			first = last - 1 // a two-character noun
		}
		q.Cues = append(q.Cues, q.cueAt(first, last, q.conceptsAt(first)))
	}
	// Chinese: the characters after 什么/哪个/哪些/哪/几个.
	for i := 0; i < len(q.Units); i++ {
		u := q.Units[i]
		if u.word || entity[i] {
			continue
		}
		n := 0
		switch {
		case q.cjkAt(i, "什么"), q.cjkAt(i, "哪个"), q.cjkAt(i, "哪些"), q.cjkAt(i, "哪家"), q.cjkAt(i, "哪位"), q.cjkAt(i, "几个"):
			n = 2
		case q.cjkAt(i, "哪"), q.cjkAt(i, "何"):
			n = 1
		default:
			continue
		}
		j := i + n
		if j >= len(q.Units) || q.Units[j].word || q.Units[j].stop || entity[j] {
			continue
		}
		last := j
		for _, o := range q.occs {
			if o.First == j && o.Last > last && !concepts[o.concept].Cue {
				last = o.Last
			}
		}
		if last == j && j+1 < len(q.Units) && !q.Units[j+1].word && !q.Units[j+1].stop && !entity[j+1] {
			last = j + 1 // a two-character noun
		}
		q.Cues = append(q.Cues, q.cueAt(j, last, q.conceptsAt(j)))
	}
}

// inPhrase reports whether unit i belongs to a phrase of the lexicon, an
// occurrence of more than one unit.
func (q *Analysis) inPhrase(i int) bool {
	return slices.ContainsFunc(q.occs, func(o occurrence) bool { return o.Last > o.First && o.First <= i && i <= o.Last })
}

// relativeAt reports whether the wh-word at unit i opens a relative
// clause rather than asking ("the films by the people who penned X": the
// answer is films): the word before it is a noun, read as a content word
// with a determiner or a possessive at most three words before it, and not
// a noun that frames a question ("any idea who").
func (q *Analysis) relativeAt(i int) bool {
	p := i - 1
	for p >= 0 && !q.Units[p].word {
		p--
	}
	if p < 0 || q.Units[p].stop || politeWords[q.Units[p].fold] || askingNouns[q.Units[p].fold] {
		return false
	}
	for k, n := p-1, 0; k >= 0 && n < 3; k-- {
		if !q.Units[k].word {
			continue
		}
		if nounOpeners[q.Units[k].fold] {
			return true
		}
		n++
	}
	return false
}

// askingNouns are the nouns after which a wh-word asks all the same: "any
// idea who directed X".
var askingNouns = map[string]bool{"idea": true, "clue": true, "guess": true}

// nounOpeners open a noun phrase; "s" is the possessive's unit.
var nounOpeners = map[string]bool{
	"the": true, "a": true, "an": true, "those": true, "these": true, "this": true, "that": true,
	"any": true, "every": true, "each": true, "all": true, "some": true, "s": true,
}

// whWords are the question words whose lexicon concept is the answer's
// type: 谁 asks for a person wherever it stands.
var whWords = map[string]bool{
	"how many": true, "how much": true,
	"谁": true, "哪位": true, "何人": true, "什么时候": true, "何时": true, "哪年": true, "哪一年": true,
	"哪里": true, "哪儿": true, "在哪": true, "何处": true, "什么地方": true, "多少": true, "几个": true,
}

// politeWords may precede an imperative: "please list", "hey, name".
var politeWords = map[string]bool{
	"please": true, "hey": true, "hi": true, "ok": true, "okay": true, "now": true, "quickly": true,
	"can": true, "could": true, "would": true, "you": true, "just": true, "kindly": true, "me": true,
}

// textOf returns the folded text of units first..last, words joined by a
// space.
func (q *Analysis) textOf(first, last int) string {
	var b strings.Builder
	for k := first; k <= last; k++ {
		if k > first && q.Units[k].word && q.Units[k-1].word {
			b.WriteByte(' ')
		}
		b.WriteString(q.Units[k].fold)
	}
	return b.String()
}

// cueAt returns the cue spelled by units first..last.
func (q *Analysis) cueAt(first, last int, cs []int) Cue {
	c := Cue{Unit: first, Last: last, concepts: cs, cjk: !q.Units[first].word}
	if c.cjk {
		var run strings.Builder
		for k := first; k <= last; k++ {
			run.WriteString(q.Units[k].fold)
		}
		c.stem = run.String()
	} else {
		c.stem = q.Units[first].stem
	}
	return c
}

// cjkAt reports whether the CJK units from i on spell s.
func (q *Analysis) cjkAt(i int, s string) bool {
	_, ok := cjkRunHasPrefix(q.Units, i, s)
	return ok
}

// conceptsAt returns the concepts of the lexicon occurrences starting at
// unit i.
func (q *Analysis) conceptsAt(i int) []int {
	var cs []int
	for _, o := range q.occs {
		if o.First == i && !slices.Contains(cs, o.concept) {
			cs = append(cs, o.concept)
		}
	}
	return cs
}

// Span returns the mask of the content units first..last.
func (q *Analysis) Span(first, last int) uint64 {
	var m uint64
	for i := first; i <= last; i++ {
		if b := q.bit[i]; b >= 0 {
			m |= 1 << uint(b)
		}
	}
	return m
}

// Term is one way a question's words match a relation name: which units
// (Mask), how strongly, which name part it stands for (Part; -1 for a
// registered phrase, which covers the whole name), and where it sits (its
// First unit).
type Term struct {
	// Mask holds the bits (see Analysis.Content) of the units it covers.
	Mask uint64
	// Strength is how strongly the words name the relation, at most 1.
	Strength float64
	// Part is the index of the name part in RelationMatch.Parts, or -1.
	Part int
	// First and Last are its unit indexes, inclusive.
	First, Last int
	// Noun marks words used as a noun ("X's manager", "the director of
	// X", X的导演); Passive marks a verb in the passive ("directed by X",
	// "X was directed by"). The graph walk reads the direction from them.
	Noun, Passive bool
	// verbInverse: the word names the relation the other way round when it
	// is a verb (see sense.verbInverse).
	verbInverse bool
	// Start and End are its byte span in the question, for explanations.
	Start, End int
	// Inverse marks words that name the relation walked from its target
	// to its source.
	Inverse bool
	// spelled marks a registered phrase's term whose words spell the
	// phrase, not only its stems (see spelledWins).
	spelled bool
}

// RelationMatch is what a relation type's name matches in a question.
type RelationMatch struct {
	// Terms are the ways the question's words match the name.
	Terms []Term
	// Parts are the name's parts.
	Parts       []NamePart
	totalWeight float64
	// PassiveName marks a name in the passive voice ("directed_by",
	// "writtenBy", "containedby"): its source is the object of the verb.
	PassiveName bool
}

// RelationName is a relation type's name read into the parts and voice
// MatchRelation matches against a question. It depends on the name alone,
// so a caller may keep it per type and share it between questions; it is
// never changed after ReadRelationName returns it.
type RelationName struct {
	Parts   []NamePart
	Passive bool
}

// ReadRelationName reads relation type name into its parts and voice.
func ReadRelationName(name string) *RelationName {
	return &RelationName{Parts: splitName(name), Passive: PassiveName(name)}
}

// MatchRelation computes what the question's words say about relation
// type name, using the registered vocabulary v.
func (q *Analysis) MatchRelation(name string, v *Vocab) *RelationMatch {
	return q.MatchRelationName(name, ReadRelationName(name), v)
}

// MatchRelationName is MatchRelation with the name already read by
// ReadRelationName(name).
func (q *Analysis) MatchRelationName(name string, rn *RelationName, v *Vocab) *RelationMatch {
	m := &RelationMatch{Parts: rn.Parts, PassiveName: rn.Passive}
	for _, p := range m.Parts {
		m.totalWeight += p.Weight
	}
	for pi, p := range m.Parts {
		m.Terms = append(m.Terms, q.matchPart(pi, &p)...)
	}
	if v != nil {
		named := len(m.Terms)
		var all, kept []Term // the registered phrases' terms, both ways round; those not absorbed
		for i, keys := range v.rel[name] {
			for _, t := range q.matchPhrase(keys, v.relFold[name][i], false) {
				all = append(all, t)
				if !m.absorb(named, t) {
					kept = append(kept, t)
				}
			}
		}
		for i, keys := range v.inv[name] {
			ts := q.matchPhrase(keys, v.invFold[name][i], true)
			all, kept = append(all, ts...), append(kept, ts...)
		}
		m.Terms = append(m.Terms, spelledWins(kept, all)...)
	}
	m.Terms = q.joinAlternatives(m.Terms)
	for i := range m.Terms {
		t := &m.Terms[i]
		t.Noun, t.Passive = q.syntaxOf(t.First, t.Last)
		if t.verbInverse && !t.Noun {
			t.Inverse = !t.Inverse
		}
	}
	return m
}

// joinAlternatives folds into one term two terms of a relation that the
// question joins with "or" ("the husband or wife of X", "丈夫或妻子"): two
// words for one relation offered as alternatives are one mention, not two
// hops. The joined term spans both, reads the way the first does, and takes
// the stronger strength; terms that read opposite ways round stay apart.
func (q *Analysis) joinAlternatives(ts []Term) []Term {
	if len(ts) < 2 {
		return ts
	}
	for i := 0; i < len(ts); i++ {
		for j := 0; j < len(ts); j++ {
			a, b := &ts[i], &ts[j]
			if i == j || a.Inverse != b.Inverse || b.First != a.Last+2 || !orWords[q.Units[a.Last+1].fold] {
				continue
			}
			a.Mask |= b.Mask
			a.Last, a.End = b.Last, b.End
			a.Strength = max(a.Strength, b.Strength)
			ts = slices.Delete(ts, j, j+1)
			if j < i {
				i--
			}
			j = -1 // a's span changed: look again
		}
	}
	return ts
}

// orWords join alternatives.
var orWords = map[string]bool{"or": true, "或": true}

// absorb folds a registered phrase t into the name's own matches among
// the first named terms when it repeats one: a phrase whose words overlap
// words that a word of the name's last segment (or its lexicon concept)
// already matches, the same way round, names the same relation there, so
// it is the same mention. The name's match keeps its direction and place,
// takes the phrase's strength when that is higher, and takes in the
// phrase's other words ("release years" for the "release" of released),
// so the phrase neither adds a reading nor leaves a word of itself to ask
// for another hop. It reports whether t was absorbed.
func (m *RelationMatch) absorb(named int, t Term) bool {
	absorbed := false
	for i := range m.Terms[:named] {
		n := &m.Terms[i]
		if n.Mask&t.Mask == 0 || n.Inverse != t.Inverse || m.Parts[n.Part].Weight < 1 {
			continue
		}
		n.Mask |= t.Mask
		n.Strength = max(n.Strength, t.Strength)
		absorbed = true
	}
	return absorbed
}

// PassiveName reports whether a relation type's name is in the passive
// voice: it ends in "by" ("directed_by", "writtenBy", "containedby") or
// with the Chinese passive 被 at its start.
func PassiveName(name string) bool {
	lower := strings.ToLower(strings.TrimRight(name, "_-/ "))
	return strings.HasSuffix(lower, "by") || strings.HasPrefix(name, "被")
}

// beWords make a following participle passive: "X was directed by".
var beWords = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "being": true, "get": true, "got": true}

// nounMarks before a word make it a noun: "X's manager", "the director".
var nounMarks = map[string]bool{"s": true, "the": true, "a": true, "an": true, "whose": true, "my": true, "our": true,
	"his": true, "her": true, "their": true, "its": true, "your": true}

// syntaxOf reads how the words first..last are used: as a noun (after a
// possessive or an article, or before "of"; in Chinese after 的) or as a
// verb, and, for an English verb, whether it is passive (followed by "by",
// or after a form of "be").
func (q *Analysis) syntaxOf(first, last int) (noun, passive bool) {
	prev, next := first-1, last+1
	if !q.Units[first].word {
		// Chinese puts the agent before the verb in the passive too (被张三
		// 导演的), so only the noun matters.
		if prev >= 0 && !q.Units[prev].word && (q.Units[prev].fold == "的" || q.Units[prev].fold == "之") {
			return true, false
		}
		return false, false
	}
	if prev >= 0 && q.Units[prev].word && nounMarks[q.Units[prev].fold] {
		return true, false
	}
	if next < len(q.Units) && q.Units[next].word {
		switch q.Units[next].fold {
		case "of":
			return true, false
		case "by":
			return false, true
		}
	}
	if prev >= 0 && q.Units[prev].word && beWords[q.Units[prev].fold] && strings.HasSuffix(q.Units[first].fold, "ed") {
		return false, true
	}
	return false, false
}

// matchPart returns the question's matches of one name part.
func (q *Analysis) matchPart(pi int, p *NamePart) []Term {
	var out []Term
	add := func(first, last int, s float64, inverse bool) {
		mask := q.Span(first, last)
		if mask == 0 {
			return
		}
		// Keep the strongest match of each span and direction.
		for i := range out {
			if out[i].Mask == mask && out[i].Inverse == inverse {
				out[i].Strength = max(out[i].Strength, s)
				return
			}
		}
		out = append(out, Term{Mask: mask, Strength: s, Part: pi, First: first, Last: last,
			Start: q.Units[first].Start, End: q.Units[last].End, Inverse: inverse})
	}
	if p.cjk {
		for _, i := range q.Content {
			if q.Units[i].word {
				continue
			}
			if last, ok := cjkRunHasPrefix(q.Units, i, p.fold); ok {
				add(i, last, strengthExact, false)
			}
		}
		// A shared run of two or more characters: 出生 in 出生地.
		if first, last, n := q.commonRun(p.fold); n >= 2 && n < utf8.RuneCountInString(p.fold) {
			add(first, last, 0.9*float64(n)/float64(utf8.RuneCountInString(p.fold)), false)
		}
	} else {
		for _, i := range q.Content {
			u := q.Units[i]
			switch {
			case !u.word:
			case u.fold == p.fold:
				add(i, i, strengthExact, false)
			case u.stem == p.stem:
				add(i, i, strengthStem, false)
			case len(p.fold) >= 5 && len(u.fold) > len(p.fold) && (strings.HasSuffix(u.fold, p.fold) || strings.HasSuffix(u.stem, p.stem)):
				add(i, i, strengthLexicon, false) // a compound: scriptwriter, screenwriter
			}
		}
	}
	for _, o := range q.occs {
		if concepts[o.concept].Cue {
			continue
		}
		for _, sn := range p.senses {
			if sn.concept != o.concept {
				continue
			}
			s := strengthLexicon
			if o.Last > o.First && q.Units[o.First].word {
				s = strengthIdiom
			}
			inverse := sn.Inverse != o.Inverse
			if inverse {
				s *= inverseSense
			}
			add(o.First, o.Last, s, inverse)
			if o.verbInverse != sn.verbInverse {
				out[len(out)-1].verbInverse = true
			}
		}
	}
	return out
}

// commonRun finds the longest run of the question's content CJK units that
// occurs in run, and returns its unit span and length in characters.
func (q *Analysis) commonRun(run string) (first, last, n int) {
	for _, i := range q.Content {
		if q.Units[i].word {
			continue
		}
		var b strings.Builder
		for j := i; j < len(q.Units) && !q.Units[j].word && q.bit[j] >= 0; j++ {
			b.WriteString(q.Units[j].fold)
			if !strings.Contains(run, b.String()) {
				break
			}
			if k := j - i + 1; k > n {
				first, last, n = i, j, k
			}
		}
	}
	return first, last, n
}

// matchPhrase finds a registered phrase, given as unit keys and their
// folds, among the question's content units, in order and adjacent. A
// term whose words spell the phrase, not only its stems, is marked
// spelled.
func (q *Analysis) matchPhrase(keys, folds []string, inverse bool) []Term {
	var out []Term
	for ci := range q.Content {
		if ci+len(keys) > len(q.Content) {
			break
		}
		ok, spelled := true, true
		for k, key := range keys {
			u := &q.Units[q.Content[ci+k]]
			if u.stem != key {
				ok = false
				break
			}
			spelled = spelled && u.fold == folds[k]
		}
		if !ok {
			continue
		}
		first, last := q.Content[ci], q.Content[ci+len(keys)-1]
		out = append(out, Term{Mask: q.Span(first, last), Strength: strengthVocab, Part: -1, First: first, Last: last,
			Start: q.Units[first].Start, End: q.Units[last].End, Inverse: inverse, spelled: spelled})
	}
	return out
}

// spelledWins returns the phrase terms ts of one relation but those that
// only share stems with the question's words where a phrase registered the
// other way round (among all, absorbed or not) spells them: "manager"
// registered for reports_to and "manages" for its inverse both stem to
// "manag", and the question's "manager" asks for the first, "manages" for
// the second. Where both or neither spell the words, both readings stay.
func spelledWins(ts, all []Term) []Term {
	out := ts[:0:0]
	for _, t := range ts {
		if t.spelled || !slices.ContainsFunc(all, func(u Term) bool {
			return u.spelled && u.Mask == t.Mask && u.Inverse != t.Inverse
		}) {
			out = append(out, t)
		}
	}
	return out
}

// TypeMatch reports which of the question's cues an entity type matches,
// as a bit set over q.Cues: by stem, by lexicon concept, or by a
// registered type word.
func (q *Analysis) TypeMatch(entityType string, v *Vocab) uint64 {
	if entityType == "" || len(q.Cues) == 0 {
		return 0
	}
	parts := splitName(entityType)
	var words [][]string
	if v != nil {
		words = v.types[entityType]
	}
	var hit uint64
	for ci, c := range q.Cues {
		if ci >= 64 {
			break
		}
		if q.cueMatches(&c, parts, words) {
			hit |= 1 << uint(ci)
		}
	}
	return hit
}

func (q *Analysis) cueMatches(c *Cue, parts []NamePart, words [][]string) bool {
	for _, p := range parts {
		if p.stem == c.stem || c.cjk && p.cjk && (strings.Contains(p.fold, c.stem) || strings.Contains(c.stem, p.fold)) {
			return true
		}
		for _, sn := range p.senses {
			if slices.Contains(c.concepts, sn.concept) {
				return true
			}
		}
	}
	for _, keys := range words {
		w := strings.Join(keys, "")
		if w == c.stem || c.cjk && strings.Contains(c.stem, w) {
			return true
		}
	}
	return false
}

// NounOf reports whether unit i is followed by "of": a noun that names a
// relation of what follows ("the producers of the films").
func (q *Analysis) NounOf(i int) bool {
	return i+1 < len(q.Units) && q.Units[i].word && q.Units[i+1].word && q.Units[i+1].fold == "of"
}

// determiners are the words a noun phrase may open with before a name.
var determiners = map[string]bool{"the": true, "a": true, "an": true}

// clauseWords are the words that, between a name and a verb after it,
// make that verb the main clause's ("the films written by the director of
// X were directed by whom"), not a relative clause's ("the movies the
// director of X penned").
var clauseWords = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "been": true,
	"do": true, "does": true, "did": true, "has": true, "have": true, "had": true}

// OfHead returns the unit of the noun that heads "the N of <name>" when the
// name starting at unit first follows "of" (a determiner between them
// allowed), and -1 otherwise.
func (q *Analysis) OfHead(first int) int {
	j := first - 1
	if j >= 0 && q.Units[j].word && determiners[q.Units[j].fold] {
		j--
	}
	if j < 1 || !q.Units[j].word || q.Units[j].fold != "of" || !q.Units[j-1].word {
		return -1
	}
	return j - 1
}

// MainClauseBetween reports whether a word that makes a later verb the
// main clause's (is, were, did, has…) lies strictly between units a and b.
func (q *Analysis) MainClauseBetween(a, b int) bool {
	for i := a + 1; i < b && i < len(q.Units); i++ {
		if q.Units[i].word && clauseWords[q.Units[i].fold] {
			return true
		}
	}
	return false
}
