package kgmem

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
)

// Question analysis: the graph channel reads a question without a model by
// matching its words to the names of relation types and entity types it
// meets in the graph. A relation type's name is split into words
// (snake_case, camelCase and paths such as "people/person/spouse_s", whose
// last segment counts most), each compared with the question's words by
// spelling, by stem (directed, director, directs), by the built-in lexicon
// (couple and spouse, 负责 and works_on) and by the phrases a Vocabulary
// registers. Chinese is compared by substring. What each hop of an answer's
// path matched is kept for its explanation.

// Vocabulary is the words a user registers for the relation types and
// entity types of their graph, for questions whose wording the names and
// the built-in lexicon do not cover: "directed_by" asked as "who made", a
// "film" type asked as "movie" or 电影. Every entry is optional; the zero
// value registers nothing.
//
// Phrases are compared like question words: case-insensitively, by stem
// for English (so "direct" also matches directed and director) and by
// exact substring for Chinese; English stop words in a phrase are ignored
// unless the phrase has nothing else.
type Vocabulary struct {
	// Relations maps a relation type, as stored, to words and phrases that
	// name it in questions: {"directed_by": {"direct", "who made", "导演"}}.
	Relations map[string][]string `json:"relations,omitempty"`
	// InverseRelations maps a relation type to words that name it walked
	// from its target to its source: {"parent_of": {"child", "son",
	// "daughter"}} lets "Ann's son" follow parent_of backwards.
	InverseRelations map[string][]string `json:"inverse_relations,omitempty"`
	// Types maps an entity type, as stored in Entity.Type, to words that
	// name it: {"movie": {"film", "picture", "电影"}}.
	Types map[string][]string `json:"types,omitempty"`
}

// validate reports the first entry that is empty or not valid UTF-8.
func (v Vocabulary) validate() error {
	for _, m := range []struct {
		field string
		m     map[string][]string
	}{{"Relations", v.Relations}, {"InverseRelations", v.InverseRelations}, {"Types", v.Types}} {
		for _, k := range slices.Sorted(maps.Keys(m.m)) {
			if strings.TrimSpace(k) == "" || !utf8.ValidString(k) {
				return fmt.Errorf("kgmem: vocabulary: %s key %s is empty or not valid UTF-8: %w", m.field, quote.Value(k), ErrInvalidArgument)
			}
			for _, p := range m.m[k] {
				if !utf8.ValidString(p) {
					return fmt.Errorf("kgmem: vocabulary: %s[%s] phrase %s is not valid UTF-8: %w", m.field, quote.Value(k), quote.Value(p), ErrInvalidArgument)
				}
			}
		}
	}
	return nil
}

// vocabIndex is a Vocabulary compiled for matching: each phrase as the keys
// of its units.
type vocabIndex struct {
	rel, inv, types map[string][][]string
}

func compileVocabulary(v Vocabulary) *vocabIndex {
	compile := func(m map[string][]string) map[string][][]string {
		if len(m) == 0 {
			return nil
		}
		out := make(map[string][][]string, len(m))
		for k, phrases := range m {
			for _, p := range phrases {
				if keys := phraseKeys(p); len(keys) > 0 {
					out[k] = append(out[k], keys)
				}
			}
		}
		return out
	}
	return &vocabIndex{rel: compile(v.Relations), inv: compile(v.InverseRelations), types: compile(v.Types)}
}

// phraseKeys returns the unit keys of a registered phrase: stems of its
// words and its CJK characters, stop words dropped unless nothing else is
// left.
func phraseKeys(p string) []string {
	units := analyzeUnits(p)
	var keys, all []string
	for _, u := range units {
		all = append(all, u.stem)
		if !u.stop {
			keys = append(keys, u.stem)
		}
	}
	if len(keys) == 0 {
		return all
	}
	return keys
}

// tunit is one unit of an analysed text: a word, or one CJK character.
type tunit struct {
	fold       string // case-folded
	stem       string // the word's stem; the character itself for CJK
	start, end int    // byte offsets in the text
	word       bool   // a word, not a CJK character
	stop       bool   // an English stop word or a Chinese stop character
}

// occurrence is a run of units that spells a lexicon entry.
type occurrence struct {
	sense
	first, last int // unit indexes, inclusive
}

// analyzeUnits cuts text into units with their stems.
func analyzeUnits(text string) []tunit {
	link := splitUnits(text)
	units := make([]tunit, len(link))
	for i, u := range link {
		t := tunit{fold: u.Key, stem: u.Key, start: u.Start, end: u.End, word: u.Word}
		if u.Word {
			t.stop = isStopWord(u.Key)
			t.stem = stem(u.Key)
		} else {
			r, _ := utf8.DecodeRuneInString(u.Key)
			t.stop = isCJKStopChar(r)
		}
		units[i] = t
	}
	return units
}

// findOccurrences returns every run of units that spells a lexicon entry:
// English entries by stem, word for word; Chinese entries by their
// characters.
func findOccurrences(units []tunit) []occurrence {
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
		if !units[o.first].word && o.last+1 < len(units) && strings.HasSuffix(units[o.last].fold, "哪") &&
			strings.Contains("个些家位种类", units[o.last+1].fold) {
			return true
		}
		if o.first != o.last || units[o.first].word {
			return false
		}
		return slices.ContainsFunc(out, func(p occurrence) bool {
			return p.last > p.first && !units[p.first].word && p.first <= o.first && o.last <= p.last
		})
	})
}

// cjkRunHasPrefix reports whether the CJK units from i on spell s, and the
// index of the last unit of s.
func cjkRunHasPrefix(units []tunit, i int, s string) (int, bool) {
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

// namePart is one word of a relation or entity type name (or one run of
// CJK characters) with the lexicon concepts it takes part in.
type namePart struct {
	fold, stem string
	cjk        bool // fold is a run of CJK characters
	weight     float64
	senses     []sense
}

// splitName cuts a relation or entity type name into its parts. Paths
// ("film/film/directed_by", "__people__person__spouse_s", "a.b.c", "a:b")
// are cut into segments, and the words of the last segment weigh 1, the
// others domainWeight; within a segment, underscores, hyphens and camelCase
// separate words. Stop words are dropped unless nothing else is left.
func splitName(name string) []namePart {
	segs := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '.' || r == ':' || r == '#' })
	if len(segs) == 1 && strings.Contains(segs[0], "__") {
		segs = strings.Split(segs[0], "__")
	}
	segs = slices.DeleteFunc(segs, func(s string) bool { return strings.Trim(s, "_- ") == "" })
	var parts []namePart
	for si, seg := range segs {
		weight := 1.0
		if si < len(segs)-1 {
			weight = domainWeight
		}
		parts = append(parts, segmentParts(splitCamel(seg), weight)...)
	}
	if len(parts) == 0 {
		return nil
	}
	// Only the last segment's words, when it has any, weigh 1.
	return parts
}

// splitCamel inserts a space at each lower-to-upper case change, so that
// "directedBy" reads as "directed By".
func splitCamel(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		if unicode.IsUpper(r) && prevLower {
			b.WriteByte(' ')
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		b.WriteRune(r)
	}
	return b.String()
}

func segmentParts(seg string, weight float64) []namePart {
	units := analyzeUnits(seg)
	occs := findOccurrences(units)
	var parts []namePart
	partOf := make([]int, len(units)) // unit → part, -1 for none
	for i := 0; i < len(units); {
		u := units[i]
		if u.word {
			partOf[i] = -1
			if !u.stop {
				partOf[i] = len(parts)
				parts = append(parts, namePart{fold: u.fold, stem: u.stem, weight: weight})
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
		parts = append(parts, namePart{fold: run.String(), stem: run.String(), cjk: true, weight: weight})
		i = j
	}
	if len(parts) == 0 {
		// A name of stop words only ("in", "has"): keep them.
		for i, u := range units {
			partOf[i] = len(parts)
			parts = append(parts, namePart{fold: u.fold, stem: u.stem, weight: weight})
		}
	}
	for _, o := range occs {
		for i := o.first; i <= o.last; i++ {
			if p := partOf[i]; p >= 0 && !slices.Contains(parts[p].senses, o.sense) {
				parts[p].senses = append(parts[p].senses, o.sense)
			}
		}
	}
	return parts
}

// question is the analysis of one query against the mentions linked in it.
type question struct {
	text  string
	units []tunit
	// content lists the units that can match a relation or type name: not
	// stop words, not inside a linked mention. A unit's bit in a mask is its
	// index in content; only the first 64 are used.
	content []int
	bit     []int // unit → bit, -1 for none
	occs    []occurrence
	cues    []cue
	pivot   bool // the question asks for something shared: share, same, co-, together
	// tail is the last content unit of a question asked with do-support or
	// a perfect ("what films did the cast of X direct", "which films have
	// the people who financed X produced"), whose last verb is the main
	// clause's and so names the outermost hop; -1 for other questions.
	tail int
}

// cue is a question word that says what kind of answer is wanted: a wh-word
// (who, when, where, 谁, 哪里) or the noun after which/what (which films,
// 什么项目).
type cue struct {
	unit, last int    // its units, inclusive
	stem       string // the word's stem, or the CJK characters
	cjk        bool
	wh         bool // a wh-word (who, 谁), not a noun
	concepts   []int
}

// maxQuestionBits is how many content units a question can use.
const maxQuestionBits = 64

// headSkip are words skipped between which/what and the noun they ask for.
var headSkip = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "the": true, "a": true, "an": true,
	"s": true, "do": true, "does": true, "did": true, "of": true, "name": true, "names": true,
	"be": true, "been": true, "has": true, "have": true, "had": true, "all": true, "some": true,
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

// analyzeQuestion analyses text, with the byte spans of the linked
// mentions excluded from the words that can match names.
func analyzeQuestion(text string, spans [][2]int) *question {
	q := &question{text: text, units: analyzeUnits(text)}
	inSpan := func(u tunit) bool {
		for _, s := range spans {
			if u.start >= s[0] && u.end <= s[1] {
				return true
			}
		}
		return false
	}
	q.bit = make([]int, len(q.units))
	entity := make([]bool, len(q.units))
	for i, u := range q.units {
		q.bit[i] = -1
		entity[i] = inSpan(u)
		if u.stop || entity[i] || len(q.content) == maxQuestionBits {
			continue
		}
		q.bit[i] = len(q.content)
		q.content = append(q.content, i)
	}
	q.doIdiom(entity)
	q.tail = q.findTail(entity)
	for _, o := range findOccurrences(q.units) {
		keep := true
		for i := o.first; i <= o.last; i++ {
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
	for i, u := range q.units {
		if entity[i] || !(u.word && pivotWords[u.fold] || !u.word && (u.fold == "同" || u.fold == "共")) {
			continue
		}
		if !slices.ContainsFunc(q.occs, func(o occurrence) bool { return o.last > o.first && o.first <= i && i <= o.last }) {
			q.pivot = true
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
func (q *question) findTail(entity []bool) int {
	words := 0
	wh := -1
	for i, u := range q.units {
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
			for k := len(q.content) - 1; k >= 0; k-- {
				if j := q.content[k]; !politeWords[q.units[j].fold] {
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
func (q *question) doIdiom(entity []bool) {
	words := make([]int, 0, len(q.units))
	for i, u := range q.units {
		if u.word {
			words = append(words, i)
		}
	}
	if len(words) < 3 || q.units[words[0]].fold != "what" {
		return
	}
	last := words[len(words)-1]
	switch q.units[last].fold {
	case "do", "does", "did":
	default:
		return
	}
	switch q.units[words[1]].fold {
	case "do", "does", "did":
	default:
		return
	}
	if entity[last] || q.bit[last] >= 0 || len(q.content) == maxQuestionBits {
		return
	}
	q.bit[last] = len(q.content)
	q.content = append(q.content, last)
	q.units[last].stem = "do-for-a-living"
	q.occs = append(q.occs, occurrence{sense{concept: conceptProfession}, last, last})
}

// findCues records the question's answer-type cues: wh-words (who, when,
// where, how many, 谁, 哪里, 什么时候, 多少), the noun after which/what or
// after an imperative (list the films, name the country), and the noun
// after 什么/哪个/哪些/哪.
func (q *question) findCues(entity []bool) {
	for _, o := range q.occs {
		if concepts[o.concept].Cue && whWords[q.textOf(o.first, o.last)] {
			c := q.cueAt(o.first, o.last, []int{o.concept})
			c.wh = true
			q.cues = append(q.cues, c)
		}
	}
	for i, u := range q.units {
		if !u.word || entity[i] {
			continue
		}
		head := false
		switch u.fold {
		case "who", "whom", "whose", "when", "where":
			for _, sn := range lexicon.sensesOf(u.stem) {
				if concepts[sn.concept].Cue {
					c := q.cueAt(i, i, []int{sn.concept})
					c.wh = true
					q.cues = append(q.cues, c)
				}
			}
		case "which", "what":
			head = true
		case "list", "name", "give", "show", "tell", "find", "enumerate", "get":
			// An imperative: only at the start, after "please" and the like.
			head = !slices.ContainsFunc(q.units[:i], func(v tunit) bool { return v.word && !politeWords[v.fold] })
		}
		if !head {
			continue
		}
		for j := i + 1; j < len(q.units); j++ {
			v := q.units[j]
			if entity[j] || !v.word {
				break
			}
			if headSkip[v.fold] {
				continue
			}
			if !v.stop {
				q.cues = append(q.cues, q.cueAt(j, j, q.conceptsAt(j)))
			}
			break
		}
	}
	// Chinese: the noun before 是哪/是什么/是谁/有哪些 ("X的团队是哪个").
	for i := 1; i < len(q.units); i++ {
		if q.units[i].word || !(q.cjkAt(i, "是哪") || q.cjkAt(i, "是什么") || q.cjkAt(i, "是谁") ||
			q.cjkAt(i, "有哪") || q.cjkAt(i, "都有哪") || q.cjkAt(i, "是多少")) {
			continue
		}
		last := i - 1
		if q.units[last].word || q.units[last].stop || entity[last] {
			continue // "X的是什么" names no noun
		}
		first := last
		for _, o := range q.occs {
			if o.last == last && o.first < first && !concepts[o.concept].Cue {
				first = o.first
			}
		}
		if first == last && last > 0 && !q.units[last-1].word && !q.units[last-1].stop && !entity[last-1] {
			first = last - 1 // a two-character noun
		}
		q.cues = append(q.cues, q.cueAt(first, last, q.conceptsAt(first)))
	}
	// Chinese: the characters after 什么/哪个/哪些/哪/几个.
	for i := 0; i < len(q.units); i++ {
		u := q.units[i]
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
		if j >= len(q.units) || q.units[j].word || q.units[j].stop || entity[j] {
			continue
		}
		last := j
		for _, o := range q.occs {
			if o.first == j && o.last > last && !concepts[o.concept].Cue {
				last = o.last
			}
		}
		if last == j && j+1 < len(q.units) && !q.units[j+1].word && !q.units[j+1].stop && !entity[j+1] {
			last = j + 1 // a two-character noun
		}
		q.cues = append(q.cues, q.cueAt(j, last, q.conceptsAt(j)))
	}
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
func (q *question) textOf(first, last int) string {
	var b strings.Builder
	for k := first; k <= last; k++ {
		if k > first && q.units[k].word && q.units[k-1].word {
			b.WriteByte(' ')
		}
		b.WriteString(q.units[k].fold)
	}
	return b.String()
}

// cueAt returns the cue spelled by units first..last.
func (q *question) cueAt(first, last int, cs []int) cue {
	c := cue{unit: first, last: last, concepts: cs, cjk: !q.units[first].word}
	if c.cjk {
		var run strings.Builder
		for k := first; k <= last; k++ {
			run.WriteString(q.units[k].fold)
		}
		c.stem = run.String()
	} else {
		c.stem = q.units[first].stem
	}
	return c
}

// cjkAt reports whether the CJK units from i on spell s.
func (q *question) cjkAt(i int, s string) bool {
	_, ok := cjkRunHasPrefix(q.units, i, s)
	return ok
}

// conceptsAt returns the concepts of the lexicon occurrences starting at
// unit i.
func (q *question) conceptsAt(i int) []int {
	var cs []int
	for _, o := range q.occs {
		if o.first == i && !slices.Contains(cs, o.concept) {
			cs = append(cs, o.concept)
		}
	}
	return cs
}

// span returns the mask of the content units first..last.
func (q *question) span(first, last int) uint64 {
	var m uint64
	for i := first; i <= last; i++ {
		if b := q.bit[i]; b >= 0 {
			m |= 1 << uint(b)
		}
	}
	return m
}

// term is one way a question's words match a relation name: which units
// (mask), how strongly, which name part it stands for (-1 for a registered
// phrase, which covers the whole name), and where it sits (its first unit).
type term struct {
	mask        uint64
	strength    float64
	part        int
	first, last int // unit indexes
	// noun marks words used as a noun ("X's manager", "the director of
	// X", X的导演); passive marks a verb in the passive ("directed by X",
	// "X was directed by"). See walker.wantForward.
	noun, passive bool
	// verbInverse: the word names the relation the other way round when it
	// is a verb (see sense.verbInverse).
	verbInverse bool
	start, end  int // byte span in the question, for explanations
	inverse     bool
}

// relMatch is what a relation type's name matches in a question.
type relMatch struct {
	terms       []term
	parts       []namePart
	totalWeight float64
	// passiveName marks a name in the passive voice ("directed_by",
	// "writtenBy", "containedby"): its source is the object of the verb.
	passiveName bool
}

// matchRelation computes what the question's words say about relation
// type name, using the registered vocabulary v.
func (q *question) matchRelation(name string, v *vocabIndex) *relMatch {
	m := &relMatch{parts: splitName(name), passiveName: passiveName(name)}
	for _, p := range m.parts {
		m.totalWeight += p.weight
	}
	for pi, p := range m.parts {
		m.terms = append(m.terms, q.matchPart(pi, &p)...)
	}
	if v != nil {
		named := len(m.terms)
		for _, keys := range v.rel[name] {
			for _, t := range q.matchPhrase(keys, false) {
				if !m.absorb(named, t) {
					m.terms = append(m.terms, t)
				}
			}
		}
		for _, keys := range v.inv[name] {
			m.terms = append(m.terms, q.matchPhrase(keys, true)...)
		}
	}
	for i := range m.terms {
		t := &m.terms[i]
		t.noun, t.passive = q.syntaxOf(t.first, t.last)
		if t.verbInverse && !t.noun {
			t.inverse = !t.inverse
		}
	}
	return m
}

// absorb folds a registered phrase t into the name's own matches among
// the first named terms when it repeats one: a phrase whose words overlap
// words that a word of the name's last segment (or its lexicon concept)
// already matches, the same way round, names the same relation there, so
// it is the same mention. The name's match keeps its direction and place,
// takes the phrase's strength when that is higher, and takes in the
// phrase's other words ("release years" for the "release" of released),
// so the phrase neither adds a reading nor leaves a word of itself to ask
// for another hop. It reports whether t was absorbed.
func (m *relMatch) absorb(named int, t term) bool {
	absorbed := false
	for i := range m.terms[:named] {
		n := &m.terms[i]
		if n.mask&t.mask == 0 || n.inverse != t.inverse || m.parts[n.part].weight < 1 {
			continue
		}
		n.mask |= t.mask
		n.strength = max(n.strength, t.strength)
		absorbed = true
	}
	return absorbed
}

// passiveName reports whether a relation type's name is in the passive
// voice: it ends in "by" ("directed_by", "writtenBy", "containedby") or
// with the Chinese passive 被 at its start.
func passiveName(name string) bool {
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
func (q *question) syntaxOf(first, last int) (noun, passive bool) {
	prev, next := first-1, last+1
	if !q.units[first].word {
		// Chinese puts the agent before the verb in the passive too (被张三
		// 导演的), so only the noun matters.
		if prev >= 0 && !q.units[prev].word && (q.units[prev].fold == "的" || q.units[prev].fold == "之") {
			return true, false
		}
		return false, false
	}
	if prev >= 0 && q.units[prev].word && nounMarks[q.units[prev].fold] {
		return true, false
	}
	if next < len(q.units) && q.units[next].word {
		switch q.units[next].fold {
		case "of":
			return true, false
		case "by":
			return false, true
		}
	}
	if prev >= 0 && q.units[prev].word && beWords[q.units[prev].fold] && strings.HasSuffix(q.units[first].fold, "ed") {
		return false, true
	}
	return false, false
}

// matchPart returns the question's matches of one name part.
func (q *question) matchPart(pi int, p *namePart) []term {
	var out []term
	add := func(first, last int, s float64, inverse bool) {
		mask := q.span(first, last)
		if mask == 0 {
			return
		}
		// Keep the strongest match of each span and direction.
		for i := range out {
			if out[i].mask == mask && out[i].inverse == inverse {
				out[i].strength = max(out[i].strength, s)
				return
			}
		}
		out = append(out, term{mask: mask, strength: s, part: pi, first: first, last: last,
			start: q.units[first].start, end: q.units[last].end, inverse: inverse})
	}
	if p.cjk {
		for _, i := range q.content {
			if q.units[i].word {
				continue
			}
			if last, ok := cjkRunHasPrefix(q.units, i, p.fold); ok {
				add(i, last, strengthExact, false)
			}
		}
		// A shared run of two or more characters: 出生 in 出生地.
		if first, last, n := q.commonRun(p.fold); n >= 2 && n < utf8.RuneCountInString(p.fold) {
			add(first, last, 0.9*float64(n)/float64(utf8.RuneCountInString(p.fold)), false)
		}
	} else {
		for _, i := range q.content {
			u := q.units[i]
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
			if o.last > o.first && q.units[o.first].word {
				s = strengthIdiom
			}
			inverse := sn.inverse != o.inverse
			if inverse {
				s *= inverseSense
			}
			add(o.first, o.last, s, inverse)
			if o.verbInverse != sn.verbInverse {
				out[len(out)-1].verbInverse = true
			}
		}
	}
	return out
}

// commonRun finds the longest run of the question's content CJK units that
// occurs in run, and returns its unit span and length in characters.
func (q *question) commonRun(run string) (first, last, n int) {
	for _, i := range q.content {
		if q.units[i].word {
			continue
		}
		var b strings.Builder
		for j := i; j < len(q.units) && !q.units[j].word && q.bit[j] >= 0; j++ {
			b.WriteString(q.units[j].fold)
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

// matchPhrase finds a registered phrase, given as unit keys, among the
// question's content units, in order and adjacent.
func (q *question) matchPhrase(keys []string, inverse bool) []term {
	var out []term
	for ci := range q.content {
		if ci+len(keys) > len(q.content) {
			break
		}
		ok := true
		for k, key := range keys {
			if q.units[q.content[ci+k]].stem != key {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		first, last := q.content[ci], q.content[ci+len(keys)-1]
		out = append(out, term{mask: q.span(first, last), strength: strengthVocab, part: -1, first: first, last: last,
			start: q.units[first].start, end: q.units[last].end, inverse: inverse})
	}
	return out
}

// typeMatch reports which of the question's cues an entity type matches,
// as a bit set over q.cues: by stem, by lexicon concept, or by a
// registered type word.
func (q *question) typeMatch(entityType string, v *vocabIndex) uint64 {
	if entityType == "" || len(q.cues) == 0 {
		return 0
	}
	parts := splitName(entityType)
	var words [][]string
	if v != nil {
		words = v.types[entityType]
	}
	var hit uint64
	for ci, c := range q.cues {
		if ci >= 64 {
			break
		}
		if q.cueMatches(&c, parts, words) {
			hit |= 1 << uint(ci)
		}
	}
	return hit
}

func (q *question) cueMatches(c *cue, parts []namePart, words [][]string) bool {
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

// nounOf reports whether unit i is followed by "of": a noun that names a
// relation of what follows ("the producers of the films").
func (q *question) nounOf(i int) bool {
	return i+1 < len(q.units) && q.units[i].word && q.units[i+1].word && q.units[i+1].fold == "of"
}
