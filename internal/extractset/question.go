package extractset

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// askable lists, per kind, the one-valued relations a question may follow
// from an entity of that kind.
var askable = map[Kind][]Relation{
	Film:       {DirectedBy, ProducedBy},
	Book:       {WrittenBy, PublishedBy},
	Person:     {Spouse, BornIn, EducatedAt, Employer, Father},
	Company:    {FoundedBy, Headquartered, CEO},
	University: {LocatedIn},
	City:       {InCountry, Mayor},
	Country:    {Capital, HeadOfState},
}

// phrase holds a relation's wordings in questions: noun phrases that
// name the fact's object given its subject (%s), those that may wrap any
// phrase first ("the director of %s"), then those that only wrap a name
// ("the city where %s was born"); and questions asking for it directly.
type phrase struct {
	wrap, named, ask []string
}

var phrases = map[Relation]phrase{
	DirectedBy: {[]string{"the director of %s"}, []string{"the person who directed %s", "the filmmaker who made %s"},
		[]string{"Who directed %s?", "Who was the director of %s?"}},
	ProducedBy: {[]string{"the producer of %s", "the studio behind %s"}, []string{"the company that produced %s"},
		[]string{"Which company produced %s?"}},
	WrittenBy: {[]string{"the author of %s", "the writer of %s"}, []string{"the person who wrote %s"},
		[]string{"Who wrote %s?", "Who is the author of %s?"}},
	PublishedBy: {[]string{"the publisher of %s"}, []string{"the company that published %s"},
		[]string{"Who published %s?", "Which company published %s?"}},
	Spouse: {[]string{"the spouse of %s"}, []string{"the person married to %s", "the person %s married"},
		[]string{"Who is %s married to?", "Who did %s marry?", "Who is the spouse of %s?"}},
	BornIn: {[]string{"the birthplace of %s", "the place of birth of %s"}, []string{"the city where %s was born"},
		[]string{"Where was %s born?", "In which city was %s born?"}},
	EducatedAt: {[]string{"the alma mater of %s"}, []string{"the university %s attended", "the school where %s studied"},
		[]string{"Where did %s study?", "Which university did %s attend?"}},
	Employer: {[]string{"the employer of %s"}, []string{"the company %s worked for"},
		[]string{"Which company did %s work for?", "Who employed %s?"}},
	Father: {[]string{"the father of %s"}, nil,
		[]string{"Who is the father of %s?", "Who was %s's father?"}},
	FoundedBy: {[]string{"the founder of %s"}, []string{"the person who founded %s"},
		[]string{"Who founded %s?", "Who established %s?"}},
	Headquartered: {[]string{"the headquarters city of %s"}, []string{"the city where %s is headquartered"},
		[]string{"Where is %s headquartered?", "In which city is %s based?"}},
	CEO: {[]string{"the CEO of %s", "the chief executive of %s"}, nil,
		[]string{"Who is the CEO of %s?", "Who runs %s?"}},
	LocatedIn: {[]string{"the home city of %s"}, []string{"the city where %s is located"},
		[]string{"In which city is %s?", "Where is %s located?"}},
	InCountry: {[]string{"the country of %s"}, []string{"the country %s is in", "the country where %s is located"},
		[]string{"In which country is %s?", "What country is %s located in?"}},
	Mayor: {[]string{"the mayor of %s"}, nil,
		[]string{"Who is the mayor of %s?"}},
	Capital: {[]string{"the capital of %s", "the capital city of %s"}, nil,
		[]string{"What is the capital of %s?"}},
	HeadOfState: {[]string{"the president of %s", "the head of state of %s"}, nil,
		[]string{"Who is the president of %s?", "Who leads %s?"}},
}

// topicKinds are the kinds a question starts from, weighted by
// repetition.
var topicKinds = []Kind{Film, Film, Film, Book, Book, Company, Company, Person, Person, Person, University}

// nameStopWords are words of names that say what kind of thing an entity
// is rather than which one; the rule that no bridge's name appears in a
// question ignores them.
var nameStopWords = map[string]bool{
	"the": true, "of": true, "a": true, "and": true, "in": true, "university": true, "college": true,
	"institute": true, "technology": true, "tech": true, "city": true, "republic": true, "corp": true,
	"corporation": true, "inc": true, "incorporated": true, "group": true, "ltd": true, "plc": true,
	"pictures": true, "studios": true, "studio": true, "holdings": true, "media": true, "industries": true,
	"labs": true, "laboratories": true, "publishing": true, "publishers": true, "film": true, "novel": true, "u": true,
}

// NameWords returns the distinctive words of name, lower-cased: its runs
// of letters and digits, without the words that only say what kind of
// thing it names ("University", "Corp.", "The").
func NameWords(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !nameStopWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// words returns the set of lower-cased words of s.
func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		m[w] = true
	}
	return m
}

// ask makes the questions: for each hop count, chains of one-valued facts
// from topics not asked about before, until the configured number is
// reached or the world runs out of chains.
func (w *world) ask(set *Set) {
	used := map[int]bool{}
	texts := map[string]bool{}
	for hi, want := range w.cfg.Questions {
		hops := hi + 2
		made := 0
		for tries := 0; made < want && tries < want*400; tries++ {
			q, ok := w.chain(hops, used)
			if !ok || texts[q.Text] {
				continue
			}
			texts[q.Text] = true
			used[w.byID[q.Chain[0]]] = true
			q.ID = fmt.Sprintf("%dhop_%04d", hops, made)
			set.Questions = append(set.Questions, q)
			made++
		}
	}
}

// chain tries one random chain of hops facts and words it as a question.
func (w *world) chain(hops int, used map[int]bool) (Question, bool) {
	kind := topicKinds[w.rng.IntN(len(topicKinds))]
	topic := w.pick(w.byKind[kind])
	if used[topic] {
		return Question{}, false
	}
	chain := []int{topic}
	var facts []int
	var rels []Relation
	cur := topic
	for range hops {
		var opts []Relation
		for _, r := range askable[w.entities[cur].Kind] {
			if f, ok := w.rel(cur, r); ok && !slices.Contains(chain, w.other(f, cur)) {
				opts = append(opts, r)
			}
		}
		if len(opts) == 0 {
			return Question{}, false
		}
		r := opts[w.rng.IntN(len(opts))]
		f, _ := w.rel(cur, r)
		cur = w.other(f, cur)
		chain = append(chain, cur)
		facts = append(facts, f)
		rels = append(rels, r)
	}
	// Gold passages must differ: one passage per hop.
	var gold []string
	for _, f := range facts {
		id := w.facts[f].Passage
		if slices.Contains(gold, id) {
			return Question{}, false
		}
		gold = append(gold, id)
	}
	text := w.word(w.entities[topic].Name, rels)
	// No bridge's or answer's name or form, not even inside a longer
	// word, and no distinctive word of one may appear in the question.
	qw, lower := words(text), strings.ToLower(text)
	for _, e := range chain[1:] {
		ent := &w.entities[e]
		for _, n := range append([]string{ent.Name}, ent.Forms...) {
			if strings.Contains(lower, strings.ToLower(n)) {
				return Question{}, false
			}
			for _, x := range NameWords(n) {
				if qw[x] {
					return Question{}, false
				}
			}
		}
	}
	q := Question{Text: text, Answer: w.entities[cur].Name, Hops: hops, Gold: gold, Facts: facts}
	for _, e := range chain {
		q.Chain = append(q.Chain, w.entities[e].ID)
	}
	return q, true
}

// word writes the question that follows rels from the entity named topic.
func (w *world) word(topic string, rels []Relation) string {
	np := topic
	last := len(rels) - 1
	for i, r := range rels[:last] {
		np = fmt.Sprintf(w.nounPhrase(r, i == 0), np)
	}
	r := rels[last]
	if w.rng.IntN(2) == 0 {
		return capitalise(fmt.Sprintf(pickString(w.rng, phrases[r].ask), np))
	}
	lead := "What is "
	if objectKind(r) == Person {
		lead = "Who is "
	}
	return lead + fmt.Sprintf(w.nounPhrase(r, last == 0), np) + "?"
}

// nounPhrase picks a noun phrase of r; named says whether it wraps a name.
func (w *world) nounPhrase(r Relation, named bool) string {
	ph := phrases[r]
	opts := ph.wrap
	if named {
		opts = append(slices.Clone(opts), ph.named...)
	}
	return pickString(w.rng, opts)
}

// objectKind is the kind of the entities r leads to.
func objectKind(r Relation) Kind {
	switch r {
	case ProducedBy, PublishedBy, Employer:
		return Company
	case BornIn, Headquartered, LocatedIn, Capital:
		return City
	case EducatedAt:
		return University
	case InCountry:
		return Country
	}
	return Person
}
