package extractset

import (
	"fmt"
	"strings"
)

// Sentence templates. {S} and {s} refer to the passage's topic (at the
// start of a sentence and inside one), {P} is its possessive ("Her",
// "Its"), {o} and {o2} name the fact's object, {x} the subject of a fact
// stated from the object's side, {y} a year and {child} "daughter" or
// "son". A template without {S}, {s} or {P} refers to the topic by its
// kind's generic noun ("the film").
var subjectSide = map[Relation][]string{
	DirectedBy:    {"{S} was directed by {o}.", "{o} directed the film.", "Directed by {o}, {s} premiered in {y}.", "The film's director was {o}."},
	ProducedBy:    {"{S} was produced by {o}.", "{o} produced the film.", "The film was a {o} production.", "Production of {s} was handled by {o}."},
	Starring:      {"{S} stars {o} and {o2}.", "The cast of {s} includes {o} and {o2}.", "{o} and {o2} play the leading roles."},
	WrittenBy:     {"{S} was written by {o}.", "{S} is a novel by {o}.", "{o} wrote the book."},
	PublishedBy:   {"{S} was published by {o}.", "{o} published the novel.", "The first edition of {s} appeared from {o}."},
	Spouse:        {"{S} is married to {o}.", "{S} married {o} in {y}.", "{P} spouse is {o}.", "{S} and {o} were married in {y}."},
	BornIn:        {"{S} was born in {o}.", "Born in {o}, {s} moved abroad as a child.", "{S} grew up in {o}, where {s} was born."},
	EducatedAt:    {"{S} studied at {o}.", "{S} graduated from {o}.", "{P} alma mater is {o}.", "{S} attended {o}."},
	Employer:      {"{S} worked for {o}.", "{S} joined {o} in {y}.", "{S} was employed by {o} for several years."},
	Father:        {"{S} is the {child} of {o}.", "{P} father was {o}.", "{S} was born to {o}."},
	FoundedBy:     {"{S} was founded by {o} in {y}.", "{o} founded the company in {y}.", "The company was established by {o}."},
	Headquartered: {"{S} is headquartered in {o}.", "{S} is based in {o}.", "The company's head office is in {o}."},
	CEO:           {"{P} chief executive is {o}.", "{o} serves as CEO of the company.", "{S} is led by {o}."},
	LocatedIn:     {"{S} is located in {o}.", "The campus lies in {o}.", "{S} is a university in {o}."},
	InCountry:     {"{S} is a city in {o}.", "{S} lies in {o}.", "It is one of the largest cities of {o}."},
	Mayor:         {"{P} mayor is {o}.", "{o} has served as mayor of the city since {y}.", "{o} was elected mayor of {s}."},
	Capital:       {"{P} capital is {o}.", "The capital and largest city is {o}.", "{o} serves as the capital of {s}."},
	HeadOfState:   {"{P} head of state is {o}.", "{o} is the president of the country.", "{o} became president in {y}."},
}

// objectSide holds the templates of facts stated in the passage about
// their object (a person).
var objectSide = map[Relation][]string{
	DirectedBy: {"{S} directed {x}.", "{S} is known for directing {x}.", "{P} films include {x}."},
	WrittenBy:  {"{S} wrote {x}.", "{P} novel {x} appeared in {y}.", "{S} is the author of {x}."},
	FoundedBy:  {"{S} founded {x} in {y}.", "In {y}, {s} established {x}."},
}

// Predicates the imitated model writes for a fact, stated from the
// subject (forward) and from the object (inverse).
var forward = map[Relation][]string{
	DirectedBy:    {"directed by", "was directed by", "director", "has director", "film by"},
	ProducedBy:    {"produced by", "was produced by", "production company", "producer"},
	Starring:      {"stars", "starring", "features", "cast member"},
	WrittenBy:     {"written by", "author", "is a novel by", "was written by"},
	PublishedBy:   {"published by", "publisher", "was published by"},
	Spouse:        {"married to", "spouse", "is married to", "married"},
	BornIn:        {"born in", "was born in", "place of birth", "birthplace"},
	EducatedAt:    {"studied at", "graduated from", "attended", "alma mater", "educated at"},
	Employer:      {"worked for", "employed by", "joined", "employer"},
	Father:        {"child of", "father", "has father", "born to"},
	FoundedBy:     {"founded by", "was founded by", "established by", "founder"},
	Headquartered: {"headquartered in", "based in", "head office in", "located in"},
	CEO:           {"chief executive", "CEO", "led by", "is led by"},
	LocatedIn:     {"located in", "is in", "campus in", "lies in"},
	InCountry:     {"city in", "located in", "lies in", "is in", "part of"},
	Mayor:         {"mayor", "has mayor", "mayor is"},
	Capital:       {"capital", "has capital", "capital is"},
	HeadOfState:   {"head of state", "president", "led by"},
}

var inverse = map[Relation][]string{
	DirectedBy:    {"directed", "is the director of", "director of", "made"},
	ProducedBy:    {"produced", "is the producer of"},
	Starring:      {"stars in", "acted in", "appeared in"},
	WrittenBy:     {"wrote", "is the author of", "author of"},
	PublishedBy:   {"published"},
	Spouse:        {"married to", "spouse of", "married"},
	BornIn:        {"birthplace of"},
	EducatedAt:    {"alma mater of"},
	Employer:      {"employed"},
	Father:        {"father of", "parent of"},
	FoundedBy:     {"founded", "established", "founder of"},
	Headquartered: {"home of"},
	CEO:           {"CEO of", "serves as CEO of", "chief executive of"},
	LocatedIn:     {"home to"},
	InCountry:     {"contains", "has city"},
	Mayor:         {"mayor of", "served as mayor of", "elected mayor of"},
	Capital:       {"capital of", "is the capital of"},
	HeadOfState:   {"president of", "head of state of", "became president of"},
}

// Entity types the imitated model gives, the first the usual one.
var typeSpellings = map[Kind][]string{
	Person:     {"person", "human", "PER", "individual"},
	Film:       {"film", "movie", "work of art", "creative work"},
	Book:       {"book", "novel", "literary work", "work of art"},
	Company:    {"organization", "company", "ORG", "business"},
	University: {"organization", "university", "ORG", "educational institution"},
	City:       {"location", "city", "GPE", "place"},
	Country:    {"location", "country", "GPE", "nation"},
	"year":     {"date", "DATE", "year"},
	"nation":   {"nationality", "NORP", "group"},
	"event":    {"event", "EVENT", "festival"},
}

// genericNoun is how a passage refers to its topic without naming it.
var genericNoun = map[Kind]string{
	Film: "the film", Book: "the novel", Company: "the company", University: "the university",
	City: "the city", Country: "the country",
}

// passage is a passage being written.
type passage struct {
	w        *world
	topic    int // entity index, -1 for a distractor
	title    string
	text     []string
	facts    []int
	mentions []int
	forms    map[int]string // the form the text names each entity by
	ext      Extraction
	listed   map[string]bool
	// started says whether the topic was named in a sentence already.
	started bool
}

func (w *world) newPassage(topic int, title string) *passage {
	return &passage{w: w, topic: topic, title: title, forms: map[int]string{}, listed: map[string]bool{}}
}

// chance draws a Bernoulli trial.
func (w *world) chance(p float64) bool { return p > 0 && w.rng.Float64() < p }

// form returns the form the text names entity e by: the topic and, unless
// SurfaceDrift picks another of its forms, every entity by its name; the
// same form throughout the passage.
func (p *passage) form(e int) string {
	if f, ok := p.forms[e]; ok {
		return f
	}
	ent := &p.w.entities[e]
	f := ent.Name
	if e != p.topic && len(ent.Forms) > 0 && p.w.chance(p.w.cfg.Noise.SurfaceDrift) {
		f = pickString(p.w.rng, ent.Forms)
	}
	p.forms[e] = f
	return f
}

// mention lists an entity (or a generic value, kind "year" or "nation")
// among the extraction's named entities, unless MissEntity leaves it out.
func (p *passage) mention(name string, kind Kind) {
	if p.listed[name] {
		return
	}
	p.listed[name] = true
	n := p.w.cfg.Noise
	if p.w.chance(n.MissEntity) {
		return
	}
	m := Mention{Name: p.caseDrift(name)}
	if n.Typed {
		ts := typeSpellings[kind]
		m.Type = ts[0]
		if p.w.chance(n.TypeDrift) {
			m.Type = pickString(p.w.rng, ts[1:])
		}
	}
	p.ext.Entities = append(p.ext.Entities, m)
}

// caseDrift changes the case of name with CaseDrift.
func (p *passage) caseDrift(name string) string {
	if !p.w.chance(p.w.cfg.Noise.CaseDrift) {
		return name
	}
	if p.w.rng.IntN(2) == 0 {
		return strings.ToUpper(name)
	}
	return strings.ToLower(name)
}

// topicRef returns how a sentence refers to the topic: by name in the
// first sentence, then by pronoun, a part of the name or the generic noun.
// short is the name-like form an unresolved extraction would keep.
func (p *passage) topicRef() (ref, poss, short string) {
	e := &p.w.entities[p.topic]
	if !p.started {
		p.started = true
		return e.Name, e.Name + "'s", e.Name
	}
	if e.Kind == Person {
		pr, ps := "He", "His"
		if e.female {
			pr, ps = "She", "Her"
		}
		switch r := p.w.rng.IntN(10); {
		case r < 6:
			return pr, ps, e.first
		case r < 9:
			return e.last, e.last + "'s", e.last
		default:
			return e.first, e.first + "'s", e.first
		}
	}
	g := genericNoun[e.Kind]
	switch r := p.w.rng.IntN(10); {
	case r < 5:
		return "It", "Its", g
	case r < 9:
		return capitalise(g), capitalise(g) + "'s", g
	default:
		return e.Name, e.Name + "'s", e.Name
	}
}

// article returns "an" before a word starting with a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fill writes template t with the topic reference and the values.
func (p *passage) fill(t string, vals map[string]string) (text string, named bool, short string) {
	ref, poss, short := "", "", ""
	if strings.Contains(t, "{S}") || strings.Contains(t, "{s}") || strings.Contains(t, "{P}") {
		ref, poss, short = p.topicRef()
		named = ref == p.w.entities[p.topic].Name
	} else {
		short = genericNoun[p.w.entities[p.topic].Kind]
		if short == "" {
			short = p.w.entities[p.topic].first
		}
	}
	// Inside a sentence a pronoun reads well for a person ("where she
	// was born"), not for a thing ("the cast of it"): things take their
	// generic noun there.
	lower := ref
	switch g := genericNoun[p.w.entities[p.topic].Kind]; {
	case ref == "He" || ref == "She":
		lower = strings.ToLower(ref)
	case ref == "It" || strings.EqualFold(ref, g):
		lower = g
	}
	pairs := []string{"{S}", ref, "{s}", lower, "{P}", poss}
	for _, k := range []string{"{o}", "{o2}", "{x}", "{y}", "{child}"} {
		pairs = append(pairs, k, vals[k])
	}
	text = strings.NewReplacer(pairs...).Replace(t)
	// A name that ends a sentence with its own full stop ("Acme Corp.")
	// keeps one.
	text = strings.TrimSuffix(text, "..") + map[bool]string{true: ".", false: ""}[strings.HasSuffix(text, "..")]
	return capitalise(text), named, short
}

// state writes one sentence stating fact f (and g, a second Starring
// fact, when g >= 0) and its triples.
func (p *passage) state(f, g int) {
	w := p.w
	fa := &w.facts[f]
	subj, obj := w.byID[fa.Subject], w.byID[fa.Object]
	vals := map[string]string{"{y}": fmt.Sprint(w.eventYear(subj)), "{child}": "son"}
	if w.entities[p.topic].female {
		vals["{child}"] = "daughter"
	}
	var tmpl string
	if fa.objectSide {
		tmpl = pickString(w.rng, objectSide[fa.Relation])
		vals["{x}"] = p.form(subj)
		vals["{y}"] = fmt.Sprint(w.entities[subj].year)
	} else {
		vals["{o}"] = p.form(obj)
		switch {
		case g >= 0:
			vals["{o2}"] = p.form(w.byID[w.facts[g].Object])
			tmpl = pickString(w.rng, subjectSide[Starring])
		case fa.Relation == Starring:
			tmpl = "{S} stars {o}."
		default:
			tmpl = pickString(w.rng, subjectSide[fa.Relation])
		}
	}
	text, named, short := p.fill(tmpl, vals)
	p.text = append(p.text, text)
	for _, h := range []int{f, g} {
		if h < 0 {
			continue
		}
		p.facts = append(p.facts, h)
		p.triple(h, named, short)
	}
}

// eventYear is the year of a sentence about entity e: the release,
// publication or founding year of a work or an organisation, a year of a
// person's adult life, a recent year for a place.
func (w *world) eventYear(e int) int {
	switch ent := &w.entities[e]; ent.Kind {
	case Person:
		return min(ent.year+20+w.rng.IntN(30), 2024)
	case City, Country:
		return 1990 + w.rng.IntN(30)
	default:
		return ent.year
	}
}

// triple writes the extraction's triple for fact f, with the noise of the
// set: missed, wrong object, unresolved topic, inverse predicate, case.
func (p *passage) triple(f int, topicNamed bool, short string) {
	w := p.w
	n := w.cfg.Noise
	fa := &w.facts[f]
	subj, obj := w.byID[fa.Subject], w.byID[fa.Object]
	sName, oName := p.form(subj), p.form(obj)
	p.mention(sName, w.entities[subj].Kind)
	p.mention(oName, w.entities[obj].Kind)
	// The topic, referred to by pronoun or generic noun, is mostly
	// resolved to its name, and otherwise kept as the short form.
	unresolved := false
	topicEnd := &sName
	if fa.objectSide {
		topicEnd = &oName
	}
	if !topicNamed && w.chance(n.ShortSubject) {
		*topicEnd, unresolved = short, true
	}
	if w.chance(n.MissTriple) {
		return
	}
	wrong := false
	if w.chance(n.WrongTriple) {
		// Another entity of the object's kind: one the passage names when
		// there is one, else any.
		kind := w.entities[obj].Kind
		var cands []int
		for e := range p.forms {
			if e != obj && e != subj && w.entities[e].Kind == kind {
				cands = append(cands, e)
			}
		}
		var alt int
		if len(cands) > 0 {
			alt = cands[0]
			for _, c := range cands[1:] {
				alt = min(alt, c) // map order must not matter
			}
		} else {
			alt = w.pick(w.byKind[kind])
		}
		if alt != obj && alt != subj {
			oName, wrong = p.form(alt), true
		}
	}
	inv := w.chance(n.Inverse)
	if fa.objectSide {
		inv = !w.chance(n.Inverse / 2) // stated from the object, extracted mostly that way
	}
	s, o := p.caseDrift(sName), p.caseDrift(oName)
	var tr [3]string
	if inv {
		tr = [3]string{o, pickString(w.rng, inverse[fa.Relation]), s}
	} else {
		tr = [3]string{s, pickString(w.rng, forward[fa.Relation]), o}
	}
	p.ext.Triples = append(p.ext.Triples, tr)
	fa.Extracted = !wrong && !unresolved
}

// generic adds, with Generic, a triple from name to a generic phrase
// node, listing the phrase as a named entity when kind is not "".
func (p *passage) generic(name, pred, phrase string, kind Kind) {
	if !p.w.chance(p.w.cfg.Noise.Generic) {
		return
	}
	if kind != "" {
		p.mention(phrase, kind)
	}
	p.ext.Triples = append(p.ext.Triples, [3]string{p.caseDrift(name), pred, phrase})
}

// genericWord adds, with a tenth of Generic, a triple from name to a
// bare kind or role word ("director", "city"). Models emit those less
// often than triples to the values a sentence states (a year, a
// nationality), and the words are the ones questions use, so the nodes
// they make are kept about as rare, per passage, as in real extractions.
func (p *passage) genericWord(name, pred, word string) {
	if p.w.chance(p.w.cfg.Noise.Generic / 10) {
		p.ext.Triples = append(p.ext.Triples, [3]string{p.caseDrift(name), pred, word})
	}
}

// intro writes the first sentence of a passage about its topic, and the
// generic triples of the attributes it states.
func (p *passage) intro(second bool) {
	w := p.w
	e := &w.entities[p.topic]
	y := fmt.Sprint(e.year)
	name := e.Name
	p.mention(name, e.Kind)
	if second {
		// A later section of the same article.
		ref := e.Name
		if e.Kind == Person && w.rng.IntN(2) == 0 {
			ref = e.last
		}
		p.started = true
		p.text = append(p.text, fmt.Sprintf("%s later became widely known as %s %s.", ref, article(e.occupation), e.occupation))
		p.generic(name, pickString(w.rng, []string{"is a", "occupation", "known as"}), e.occupation, "")
		return
	}
	p.started = true
	switch e.Kind {
	case Person:
		p.text = append(p.text, fmt.Sprintf("%s (born %s) is %s %s %s.", name, y, article(e.nationality), e.nationality, e.occupation))
		p.generic(name, "born in", y, "year")
		p.generic(name, pickString(w.rng, []string{"is a", "occupation", "profession"}), e.occupation, "")
		p.generic(name, "nationality", e.nationality, "nation")
	case Film:
		p.text = append(p.text, fmt.Sprintf("%s is a %s %s %s film.", name, y, e.nationality, e.genre))
		p.generic(name, pickString(w.rng, []string{"released in", "release year"}), y, "year")
		p.generic(name, pickString(w.rng, []string{"is a", "genre"}), e.genre+" film", "")
		p.genericWord(name, "has", "director")
	case Book:
		p.text = append(p.text, fmt.Sprintf("%s is a novel first published in %s.", name, y))
		p.generic(name, "published in", y, "year")
		p.genericWord(name, "is a", "novel")
	case Company:
		p.text = append(p.text, fmt.Sprintf("%s is %s %s company founded in %s.", name, article(e.ind), e.ind, y))
		p.generic(name, "founded in", y, "year")
		p.generic(name, pickString(w.rng, []string{"is a", "industry"}), e.ind+" company", "")
		p.genericWord(name, "has", "founder")
	case University:
		p.text = append(p.text, fmt.Sprintf("%s is a university established in %s.", name, y))
		p.generic(name, "established in", y, "year")
		p.genericWord(name, "is a", "university")
	case City:
		p.text = append(p.text, fmt.Sprintf("%s is a city with a population of about %d,000.", name, 20+w.rng.IntN(900)))
		p.genericWord(name, "is a", "city")
	case Country:
		p.text = append(p.text, fmt.Sprintf("%s is a sovereign country with about %d million inhabitants.", name, 1+w.rng.IntN(80)))
		p.genericWord(name, "is a", "country")
	}
}

// write builds the corpus: a passage (two for people with many facts)
// about every entity, stating the entity's facts, and the distractors;
// then it shuffles the passages and numbers them.
func (w *world) write(set *Set) {
	// Facts a director, writer or founder is known for are sometimes
	// stated in the passage about the person.
	about := map[int][]int{}
	for i := range w.facts {
		fa := &w.facts[i]
		switch fa.Relation {
		case DirectedBy, WrittenBy, FoundedBy:
			if w.chance(0.25) {
				fa.objectSide = true
				o := w.byID[fa.Object]
				about[o] = append(about[o], i)
				continue
			}
		}
		s := w.byID[fa.Subject]
		about[s] = append(about[s], i)
	}
	// Some facts stated on the subject's side are also mentioned by the
	// passage about the object, as an article links back to what its
	// subject is known for: at most maxBacklinks per entity.
	back := map[int][]int{}
	for i := range w.facts {
		fa := &w.facts[i]
		if _, ok := backlinks[fa.Relation]; !ok || fa.objectSide || !w.chance(w.cfg.Backlinks) {
			continue
		}
		if o := w.byID[fa.Object]; len(back[o]) < maxBacklinks {
			back[o] = append(back[o], i)
		}
	}
	var ps []*passage
	for e := range w.entities {
		facts := about[e]
		w.rng.Shuffle(len(facts), func(i, j int) { facts[i], facts[j] = facts[j], facts[i] })
		var bio, rest []int
		for _, f := range facts {
			switch w.facts[f].Relation {
			case BornIn, Father, EducatedAt:
				bio = append(bio, f)
			default:
				rest = append(rest, f)
			}
		}
		if w.entities[e].Kind != Person || len(rest) < 2 || len(facts) < 4 {
			ps = append(ps, w.entityPassage(e, facts, back[e], false))
			continue
		}
		ps = append(ps, w.entityPassage(e, bio, nil, false), w.entityPassage(e, rest, back[e], true))
	}
	for range w.cfg.Distractors {
		ps = append(ps, w.distractor())
	}
	w.rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	for i, p := range ps {
		id := fmt.Sprintf("g%05d", i)
		topic := ""
		if p.topic >= 0 {
			topic = w.entities[p.topic].ID
		}
		set.Passages = append(set.Passages, Passage{ID: id, Title: p.title, Text: strings.Join(p.text, " "), Topic: topic,
			Facts: p.facts, Mentions: p.mentions})
		set.Extractions = append(set.Extractions, p.ext)
		for _, f := range p.facts {
			w.facts[f].Passage = id
		}
	}
}

// entityPassage writes a passage about entity e stating facts and
// mentioning the subjects of the facts in back.
func (w *world) entityPassage(e int, facts, back []int, second bool) *passage {
	p := w.newPassage(e, w.entities[e].Name)
	p.intro(second)
	var starring []int
	for _, f := range facts {
		if w.facts[f].Relation == Starring && !w.facts[f].objectSide {
			starring = append(starring, f)
			continue
		}
		p.state(f, -1)
	}
	switch len(starring) {
	case 0:
	case 1:
		p.state(starring[0], -1)
	default:
		p.state(starring[0], starring[1])
		for _, f := range starring[2:] {
			p.state(f, -1)
		}
	}
	for _, f := range back {
		p.backlink(f)
	}
	return p
}

// maxBacklinks is the most facts a passage mentions besides those it
// states.
const maxBacklinks = 3

// backlinks are the sentences in which the passage about a fact's object
// mentions its subject ({x}), and the predicates of their triples.
var backlinks = map[Relation]struct{ text, preds []string }{
	DirectedBy:    {[]string{"{S} is best known for {x}.", "{P} best-known film is {x}."}, []string{"known for", "directed"}},
	WrittenBy:     {[]string{"{S} is best known for the novel {x}."}, []string{"known for", "wrote"}},
	ProducedBy:    {[]string{"{P} productions include {x}."}, []string{"produced", "productions include"}},
	PublishedBy:   {[]string{"{P} catalogue includes {x}."}, []string{"published", "catalogue includes"}},
	FoundedBy:     {[]string{"{S} is remembered as the founder of {x}."}, []string{"founder of"}},
	CEO:           {[]string{"{S} later led {x}."}, []string{"led", "chief executive of"}},
	Spouse:        {[]string{"{S} is married to {x}."}, []string{"married to", "spouse"}},
	Father:        {[]string{"{P} children include {x}."}, []string{"father of", "children include"}},
	BornIn:        {[]string{"Notable people from {s} include {x}."}, []string{"notable people include", "birthplace of"}},
	EducatedAt:    {[]string{"{P} alumni include {x}."}, []string{"alumni include", "alumnus"}},
	Headquartered: {[]string{"{S} is home to {x}."}, []string{"home to"}},
	LocatedIn:     {[]string{"{S} is home to {x}."}, []string{"home to"}},
	InCountry:     {[]string{"{P} cities include {x}."}, []string{"cities include", "contains"}},
	Mayor:         {[]string{"{S} served as mayor of {x}."}, []string{"mayor of"}},
	Capital:       {[]string{"{S} is the capital of {x}."}, []string{"capital of"}},
	HeadOfState:   {[]string{"{S} is the president of {x}."}, []string{"president of"}},
}

// backlink writes the sentence in which the passage about fact f's object
// mentions its subject, and its triple (missed with MissTriple).
func (p *passage) backlink(f int) {
	w := p.w
	fa := &w.facts[f]
	subj := w.byID[fa.Subject]
	b := backlinks[fa.Relation]
	text, named, short := p.fill(pickString(w.rng, b.text), map[string]string{"{x}": p.form(subj)})
	p.text = append(p.text, text)
	p.mentions = append(p.mentions, f)
	topic := w.entities[p.topic].Name
	if !named && w.chance(w.cfg.Noise.ShortSubject) {
		topic = short
	}
	p.mention(p.form(subj), w.entities[subj].Kind)
	if !w.chance(w.cfg.Noise.MissTriple) {
		p.ext.Triples = append(p.ext.Triples, [3]string{p.caseDrift(topic), pickString(w.rng, b.preds), p.caseDrift(p.form(subj))})
	}
}

// distractor writes a passage about no entity that names several of them
// with the generic words the entity passages use, and states none of the
// world's facts.
func (w *world) distractor() *passage {
	year := fmt.Sprint(1950 + w.rng.IntN(70))
	p := w.newPassage(-1, "")
	ent := func(k Kind) int { return w.pick(w.byKind[k]) }
	name := func(e int) string {
		f := p.form(e)
		p.mention(f, w.entities[e].Kind)
		return f
	}
	add := func(s, pred, o string) {
		if !w.chance(w.cfg.Noise.MissTriple) {
			p.ext.Triples = append(p.ext.Triples, [3]string{p.caseDrift(s), pred, p.caseDrift(o)})
		}
	}
	// word adds a triple with a bare role word at one end, as rarely as
	// genericWord does.
	word := func(s, pred, o string) {
		if w.chance(w.cfg.Noise.Generic / 10) {
			add(s, pred, o)
		}
	}
	switch w.rng.IntN(5) {
	case 0:
		city, host := ent(City), ent(City)
		f1, f2, d, a := ent(Film), ent(Film), w.pick(w.pool["director"]), w.pick(w.pool["actor"])
		fest := fmt.Sprintf("%s %s Film Festival", year, w.entities[city].Name)
		p.title = fest
		p.text = append(p.text,
			fmt.Sprintf("The %s was held in %s.", fest, name(host)),
			fmt.Sprintf("Its programme included %s and %s.", name(f1), name(f2)),
			fmt.Sprintf("The jury was chaired by the director %s, and the actor %s attended with a spouse.", name(d), name(a)))
		p.mention(fest, "event")
		add(fest, "held in", name(host))
		add(fest, "included", name(f1))
		add(fest, "included", name(f2))
		word(name(d), "chaired", "jury")
		word(name(d), "is", "director")
		word(name(a), "attended with", "spouse")
	case 1:
		c1, c2, c3, city := ent(Company), ent(Company), ent(Company), ent(City)
		p.title = fmt.Sprintf("%s–%s partnership", w.entities[c1].Name, w.entities[c2].Name)
		p.text = append(p.text,
			fmt.Sprintf("In %s, %s announced a partnership with %s.", year, name(c1), name(c2)),
			fmt.Sprintf("The company's founder said the deal would expand its operations in %s.", name(city)),
			fmt.Sprintf("Analysts noted that the chief executive of %s had previously worked for %s.", name(c2), name(c3)))
		p.mention(year, "year")
		add(name(c1), "announced partnership with", name(c2))
		add(name(c1), "expand operations in", name(city))
		word("the company", "has", "founder")
		word("chief executive", "previously worked for", name(c3))
	case 2:
		var ps []string
		for range 4 {
			ps = append(ps, name(ent(Person)))
		}
		p.title = "People born in " + year
		p.text = append(p.text, fmt.Sprintf("Notable people born in %s include %s, %s, %s and %s, among them a director, a novelist and the spouse of a mayor.",
			year, ps[0], ps[1], ps[2], ps[3]))
		p.mention(year, "year")
		for _, x := range ps {
			add(x, "born in", year)
		}
		word("mayor", "has", "spouse")
	case 3:
		u, a, b, city := ent(University), ent(Person), ent(Person), ent(City)
		p.title = w.entities[u].Name + " honorary degrees"
		p.text = append(p.text,
			fmt.Sprintf("In %s, %s awarded honorary degrees to %s and %s.", year, name(u), name(a), name(b)),
			fmt.Sprintf("The ceremony in %s was attended by the mayor, the university's founder and several film directors.", name(city)))
		add(name(u), "awarded honorary degree to", name(a))
		add(name(u), "awarded honorary degree to", name(b))
		add("ceremony", "held in", name(city))
		word("ceremony", "attended by", "mayor")
	default:
		f1, f2, co := ent(Film), ent(Film), ent(Country)
		awards := fmt.Sprintf("%s %s Film Awards", year, w.entities[co].Name)
		p.title = awards
		p.text = append(p.text,
			fmt.Sprintf("%s was nominated for Best Picture at the %s, alongside %s.", name(f1), awards, name(f2)),
			"The founder of the awards presented the prize for best director, and the president of the country gave a speech.")
		p.mention(awards, "event")
		add(name(f1), "nominated for", "Best Picture")
		add(name(f2), "nominated for", "Best Picture")
		add(awards, "held in", w.entities[co].Name)
		word("president", "gave", "speech")
	}
	return p
}
