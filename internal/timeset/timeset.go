// Package timeset generates a deterministic evaluation set for questions
// about time and about connections: a memory of people who moved between
// cities and changed jobs over the years (lives_in and works_at stints
// with random timelines, each fact stated on its own with its start only,
// to be ingested in random order with both types single-valued), people
// related to each other (colleague_of, friend_of, mentor_of, sibling_of),
// and questions in English and Chinese:
//
//   - "in": the value at a year, a month or a time relative to [Set.Now]
//     ("Where did X live in 2019?", "X去年住在哪里？");
//   - "before" and "after": the value just before or after another fact
//     or a year ("Where did X live before Lisbon?", "X离开Acme以后在哪里工作？");
//   - "history": every value over time ("Where has X lived?", "X曾经住在哪里？");
//   - "now": a control without time words ("Where does X live?"), which
//     shows how well the relation words alone are read;
//   - "direct" and "two-hop": how two people are related, through one
//     relation or, when none joins them, through two ("How is X related
//     to Y?", "X和Y是什么关系？").
//
// Each kind has several wordings per language; some are marked HeldOut:
// wordings kept out of the development of kgmem's reading of time and of
// connection questions, to be reported on their own.
//
// Generate seeds math/rand/v2's PCG with the seed and never depends on map
// iteration order: two calls with the same seed return deeply equal sets.
package timeset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Entity is a person, city or company.
type Entity struct {
	ID, Name, Type string
	Aliases        []string // the Chinese name
}

// Fact is one relation, stated with its start only; the end of a stint is
// the start of the next one of the same source and type, which Ingest with
// single-valued types works out.
type Fact struct {
	Source, Type, Target string // entity IDs and the relation type
	From                 time.Time
	Weight               float64
}

// Question is one question with its expected answer.
type Question struct {
	Text    string
	Kind    string // "in", "before", "after", "history", "now", "direct", "two-hop"
	Lang    string // "en" or "zh"
	Wording string // the wording's template
	HeldOut bool
	// Subject is the entity the question is about (the first of a
	// connection question's two).
	Subject string
	// Answers are the expected entities: one for every kind but history,
	// which expects every value its subject held.
	Answers []string
	// Hops is, for connection questions, the length of the shortest path
	// between Subject and Answers[0].
	Hops int
}

// Set is a generated memory with its questions.
type Set struct {
	Now       time.Time // the memory's clock
	Entities  []Entity
	Facts     []Fact // in the random order to ingest them in
	Questions []Question
}

// Stint is a value a person held over [From, To), To zero for still.
type stint struct {
	target   string
	from, to time.Time
}

var (
	cities = [][2]string{
		{"Berlin", "柏林"}, {"Lisbon", "里斯本"}, {"Paris", "巴黎"}, {"Rome", "罗马"}, {"Madrid", "马德里"},
		{"Vienna", "维也纳"}, {"Prague", "布拉格"}, {"Tokyo", "东京"}, {"Seoul", "首尔"}, {"Sydney", "悉尼"},
		{"Toronto", "多伦多"}, {"Boston", "波士顿"}, {"Chicago", "芝加哥"}, {"Oslo", "奥斯陆"}, {"Cairo", "开罗"},
		{"Lima", "利马"}, {"Warsaw", "华沙"}, {"Athens", "雅典"}, {"Zurich", "苏黎世"}, {"Munich", "慕尼黑"},
	}
	companies = []string{
		"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Cyberdyne", "Tyrell", "Soylent",
		"Aperture", "Oscorp", "Wonka", "Gringotts", "Nakatomi", "Monarch",
	}
	firstNames = []string{
		"Maria", "Jonas", "Elena", "Tomas", "Sofia", "Lukas", "Ines", "Mateo", "Clara", "Oskar", "Nadia",
		"Felix", "Greta", "Hugo", "Irene", "Jakob", "Lena", "Marco", "Nora", "Pablo",
	}
	lastNames = []string{"Kowalski", "Moreau", "Lindqvist", "Okafor", "Tanaka", "Brennan", "Castillo", "Novak", "Haddad"}
	zhFamily  = []string{"王", "李", "张", "刘", "陈", "杨", "黄", "赵", "周", "吴", "孙", "马"}
	zhGiven   = []string{"芳", "伟", "娜", "敏", "静", "磊", "洋", "艳", "勇", "军", "杰", "涛", "明", "超", "秀英", "桂英", "建华", "志强"}
	months    = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	social    = []string{"colleague_of", "friend_of", "mentor_of", "sibling_of"}
)

// wording is one template of a kind and language.
type wording struct {
	kind, lang string
	text       string
	heldOut    bool
}

// The wordings. Placeholders: {P} the subject, {Y} a year, {M} a month's
// name, {m} its number, {N} a count of years, {C}/{Z} a city's English and
// Chinese name, {O} a company, {A}/{B} two people.
var wordings = []wording{
	// in: a year, a month, or relative to now.
	{"in", "en", "Where did {P} live in {Y}?", false},
	{"in", "en", "Where did {P} work in {M} {Y}?", false},
	{"in", "en", "Where was {P} living {N} years ago?", false},
	{"in", "en", "During {Y}, which city did {P} live in?", true},
	{"in", "en", "Which company did {P} work for in the year {Y}?", true},
	{"in", "en", "Where did {P} work back in {M} {Y}?", true},
	{"in", "en", "Where did {P} live last year?", true},
	{"in", "zh", "{P}{Y}年住在哪里？", false},
	{"in", "zh", "{P}在{Y}年{m}月在哪里工作？", false},
	{"in", "zh", "{P}去年住在哪里？", false},
	{"in", "zh", "{Y}年的时候{P}住在哪个城市？", true},
	{"in", "zh", "{P}{N}年前在哪家公司工作？", true},
	{"in", "zh", "{Y}年{m}月，{P}住在哪里？", true},
	// before: another fact or a year.
	{"before", "en", "Where did {P} live before {C}?", false},
	{"before", "en", "Where did {P} work before {O}?", false},
	{"before", "en", "Where did {P} live before {Y}?", false},
	{"before", "en", "Before moving to {C}, where did {P} live?", true},
	{"before", "en", "Where did {P} work prior to joining {O}?", true},
	{"before", "en", "Prior to {Y}, where did {P} work?", true},
	{"before", "zh", "{P}在{Z}之前住在哪里？", false},
	{"before", "zh", "{P}加入{O}之前在哪里工作？", false},
	{"before", "zh", "搬到{Z}以前，{P}住在哪里？", true},
	{"before", "zh", "{P}{Y}年以前在哪里工作？", true},
	// after: another fact or a year.
	{"after", "en", "Where did {P} work after {O}?", false},
	{"after", "en", "Where did {P} live after leaving {C}?", false},
	{"after", "en", "After she left {O}, where did {P} work?", true},
	{"after", "en", "Where did {P} live after {Y}?", true},
	{"after", "zh", "{P}离开{O}以后在哪里工作？", false},
	{"after", "zh", "{P}在{Z}之后住在哪里？", false},
	{"after", "zh", "离开{Z}之后，{P}住在哪里？", true},
	{"after", "zh", "{P}{Y}年以后在哪里工作？", true},
	// history: every value.
	{"history", "en", "Where has {P} lived?", false},
	{"history", "en", "Where did {P} use to work?", false},
	{"history", "en", "Which companies has {P} ever worked at?", false},
	{"history", "en", "List every city {P} has lived in.", true},
	{"history", "en", "Where did {P} previously work?", true},
	{"history", "en", "What places did {P} live in over the years?", true},
	{"history", "zh", "{P}曾经住在哪里？", false},
	{"history", "zh", "{P}都在哪些公司工作过？", false},
	{"history", "zh", "{P}以前在哪些城市住过？", true},
	{"history", "zh", "{P}过去在哪里工作？", true},
	// control: no time words, the value now; shows how well the relation
	// words alone are read.
	{"now", "en", "Where does {P} live?", false},
	{"now", "en", "Where does {P} work?", false},
	{"now", "zh", "{P}住在哪里？", false},
	{"now", "zh", "{P}在哪里工作？", false},
	{"now", "zh", "{P}在哪家公司工作？", false},
	// connections.
	{"connect", "en", "How is {A} related to {B}?", false},
	{"connect", "en", "What is the relationship between {A} and {B}?", false},
	{"connect", "en", "How are {A} and {B} connected?", true},
	{"connect", "en", "What's the connection between {A} and {B}?", true},
	{"connect", "en", "In what way is {A} linked to {B}?", true},
	{"connect", "zh", "{A}和{B}是什么关系？", false},
	{"connect", "zh", "{A}与{B}有什么关系？", false},
	{"connect", "zh", "{A}跟{B}之间有什么联系？", true},
	{"connect", "zh", "{A}和{B}有关系吗？", true},
}

// Sizes of the generated set.
const (
	people      = 60
	perWording  = 12
	socialLinks = 70
)

// Generate returns the set of seed.
func Generate(seed uint64) Set {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := Set{Now: now}
	zhOf := map[string]string{}
	nameOf := map[string]string{}
	for _, c := range cities {
		id := "city:" + strings.ToLower(c[0])
		s.Entities = append(s.Entities, Entity{ID: id, Name: c[0], Type: "city", Aliases: []string{c[1]}})
		zhOf[id], nameOf[id] = c[1], c[0]
	}
	for _, c := range companies {
		id := "company:" + strings.ToLower(c)
		s.Entities = append(s.Entities, Entity{ID: id, Name: c, Type: "company"})
		zhOf[id], nameOf[id] = c, c
	}
	// People, each with a unique English and Chinese name.
	var persons []string
	usedName, usedZh := map[string]bool{}, map[string]bool{}
	for len(persons) < people {
		n := firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))]
		z := zhFamily[rng.IntN(len(zhFamily))] + zhGiven[rng.IntN(len(zhGiven))]
		if usedName[n] || usedZh[z] {
			continue
		}
		usedName[n], usedZh[z] = true, true
		id := fmt.Sprintf("person:%03d", len(persons))
		persons = append(persons, id)
		s.Entities = append(s.Entities, Entity{ID: id, Name: n, Type: "person", Aliases: []string{z}})
		zhOf[id], nameOf[id] = z, n
	}
	// Timelines.
	lives, works := map[string][]stint{}, map[string][]stint{}
	var facts []Fact
	cityIDs, companyIDs := idsOf(s.Entities, "city"), idsOf(s.Entities, "company")
	for _, p := range persons {
		lives[p] = timeline(rng, cityIDs, 2+rng.IntN(3), now)
		works[p] = timeline(rng, companyIDs, 1+rng.IntN(3), now)
		for _, st := range lives[p] {
			facts = append(facts, Fact{Source: p, Type: "lives_in", Target: st.target, From: st.from, Weight: 1})
		}
		for _, st := range works[p] {
			facts = append(facts, Fact{Source: p, Type: "works_at", Target: st.target, From: st.from, Weight: 1})
		}
	}
	// People related to each other, at most one relation a pair.
	pair := map[[2]string]bool{}
	for len(pair) < socialLinks {
		a, b := persons[rng.IntN(len(persons))], persons[rng.IntN(len(persons))]
		if a == b || pair[[2]string{a, b}] || pair[[2]string{b, a}] {
			continue
		}
		pair[[2]string{a, b}] = true
		facts = append(facts, Fact{Source: a, Type: social[rng.IntN(len(social))], Target: b, Weight: 0.6 + 0.4*rng.Float64()})
	}
	rng.Shuffle(len(facts), func(i, j int) { facts[i], facts[j] = facts[j], facts[i] })
	s.Facts = facts

	g := &gen{rng: rng, now: now, zh: zhOf, name: nameOf, persons: persons, lives: lives, works: works, facts: facts}
	for _, w := range wordings {
		for range perWording {
			if q, ok := g.question(w); ok {
				s.Questions = append(s.Questions, q)
			}
		}
	}
	return s
}

func idsOf(es []Entity, typ string) []string {
	var out []string
	for _, e := range es {
		if e.Type == typ {
			out = append(out, e.ID)
		}
	}
	return out
}

// timeline returns n stints (fewer when they reach now) at distinct
// targets, each 14 to 60 months long, the last one open.
func timeline(rng *rand.Rand, targets []string, n int, now time.Time) []stint {
	order := rng.Perm(len(targets))
	start := time.Date(2008+rng.IntN(7), time.Month(1+rng.IntN(12)), 1, 0, 0, 0, 0, time.UTC)
	var out []stint
	for i := 0; i < n; i++ {
		st := stint{target: targets[order[i]], from: start}
		start = start.AddDate(0, 14+rng.IntN(47), 0)
		if i < n-1 && start.Before(now.AddDate(0, -14, 0)) {
			st.to = start
		} else {
			out = append(out, st)
			break
		}
		out = append(out, st)
	}
	return out
}

type gen struct {
	rng          *rand.Rand
	now          time.Time
	zh, name     map[string]string
	persons      []string
	lives, works map[string][]stint
	facts        []Fact
}

// valueAt returns the target of the stint holding t.
func valueAt(sts []stint, t time.Time) (string, bool) {
	for _, st := range sts {
		if !t.Before(st.from) && (st.to.IsZero() || t.Before(st.to)) {
			return st.target, true
		}
	}
	return "", false
}

// question makes one question of wording w, or false when the random
// subject it picked has no fitting timeline.
func (g *gen) question(w wording) (Question, bool) {
	for range 50 {
		if q, ok := g.try(w); ok {
			return q, true
		}
	}
	return Question{}, false
}

func (g *gen) try(w wording) (Question, bool) {
	p := g.persons[g.rng.IntN(len(g.persons))]
	sts := g.lives[p]
	if strings.Contains(w.text, "work") || strings.Contains(w.text, "compan") || strings.Contains(w.text, "工作") || strings.Contains(w.text, "公司") || strings.Contains(w.text, "{O}") {
		sts = g.works[p]
	}
	q := Question{Kind: w.kind, Lang: w.lang, Wording: w.text, HeldOut: w.heldOut, Subject: p}
	repl := map[string]string{"{P}": g.label(p, w.lang)}
	switch w.kind {
	case "in":
		var at time.Time
		switch {
		case strings.Contains(w.text, "{N}"):
			n := 1 + g.rng.IntN(12)
			repl["{N}"] = fmt.Sprint(n)
			if w.lang == "en" {
				repl["{N}"] = []string{"", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}[n]
			}
			at = g.now.AddDate(-n, 0, 0)
			if !wholeSpan(sts, at.AddDate(0, -2, 0), at.AddDate(0, 2, 0)) {
				return q, false
			}
		case strings.Contains(w.text, "去年") || strings.Contains(w.text, "last year"):
			at = time.Date(g.now.Year()-1, 1, 1, 0, 0, 0, 0, time.UTC)
			if !wholeSpan(sts, at, at.AddDate(1, 0, 0)) {
				return q, false
			}
		case strings.Contains(w.text, "{M}") || strings.Contains(w.text, "{m}"):
			y, m := 2008+g.rng.IntN(18), time.Month(1+g.rng.IntN(12))
			at = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
			if !wholeSpan(sts, at, at.AddDate(0, 1, 0)) {
				return q, false
			}
			repl["{Y}"], repl["{M}"], repl["{m}"] = fmt.Sprint(y), months[m-1], fmt.Sprint(int(m))
		default:
			y := 2008 + g.rng.IntN(18)
			at = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			if !wholeSpan(sts, at, at.AddDate(1, 0, 0)) {
				return q, false
			}
			repl["{Y}"] = fmt.Sprint(y)
		}
		v, _ := valueAt(sts, at)
		q.Answers = []string{v}
	case "before", "after":
		if strings.Contains(w.text, "{Y}") {
			// Before 2020: the value of late 2019; after 2020: the value
			// of early 2021. Either must hold three months at least.
			y := 2009 + g.rng.IntN(16)
			from := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, -3, 0)
			if w.kind == "after" {
				from = time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			if !wholeSpan(sts, from, from.AddDate(0, 3, 0)) {
				return q, false
			}
			v, _ := valueAt(sts, from)
			repl["{Y}"] = fmt.Sprint(y)
			q.Answers = []string{v}
			break
		}
		if len(sts) < 2 {
			return q, false
		}
		i := 1 + g.rng.IntN(len(sts)-1) // before sts[i]: sts[i-1]; after sts[i-1]: sts[i]
		named, answer := sts[i].target, sts[i-1].target
		if w.kind == "after" {
			named, answer = sts[i-1].target, sts[i].target
		}
		repl["{C}"], repl["{O}"], repl["{Z}"] = g.name[named], g.name[named], g.zh[named]
		q.Answers = []string{answer}
	case "now":
		v, ok := valueAt(sts, g.now)
		if !ok {
			return q, false
		}
		q.Answers = []string{v}
	case "history":
		if len(sts) < 2 {
			return q, false
		}
		for _, st := range sts {
			q.Answers = append(q.Answers, st.target)
		}
		slices.Sort(q.Answers)
	case "connect":
		// Direct: a pair one relation joins; two-hop: a pair no relation
		// joins but two do, as of now.
		a := p
		adj := g.neighbours()
		var b string
		if g.rng.IntN(2) == 0 {
			q.Kind, q.Hops = "direct", 1
			var ns []string
			for _, n := range adj[a] {
				if strings.HasPrefix(n, "person:") {
					ns = append(ns, n)
				}
			}
			if len(ns) == 0 {
				return q, false
			}
			b = ns[g.rng.IntN(len(ns))]
		} else {
			q.Kind, q.Hops = "two-hop", 2
			var ns []string
			for _, m := range adj[a] {
				for _, n := range adj[m] {
					if strings.HasPrefix(n, "person:") && n != a && !slices.Contains(adj[a], n) && !slices.Contains(ns, n) {
						ns = append(ns, n)
					}
				}
			}
			if len(ns) == 0 {
				return q, false
			}
			slices.Sort(ns)
			b = ns[g.rng.IntN(len(ns))]
		}
		repl["{A}"], repl["{B}"] = g.label(a, w.lang), g.label(b, w.lang)
		q.Answers = []string{b}
	}
	text := w.text
	for _, kv := range sortedRepl(repl) {
		text = strings.ReplaceAll(text, kv[0], kv[1])
	}
	q.Text = text
	return q, true
}

func sortedRepl(m map[string]string) [][2]string {
	var out [][2]string
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// neighbours returns, for each entity, the entities one relation valid
// now joins it to, sorted.
func (g *gen) neighbours() map[string][]string {
	adj := map[string][]string{}
	link := func(a, b string) {
		if !slices.Contains(adj[a], b) {
			adj[a] = append(adj[a], b)
		}
		if !slices.Contains(adj[b], a) {
			adj[b] = append(adj[b], a)
		}
	}
	for _, f := range g.facts {
		if f.Type == "lives_in" || f.Type == "works_at" {
			continue
		}
		link(f.Source, f.Target)
	}
	for _, p := range g.persons {
		for _, sts := range [][]stint{g.lives[p], g.works[p]} {
			if v, ok := valueAt(sts, g.now); ok {
				link(p, v)
			}
		}
	}
	for k := range adj {
		slices.Sort(adj[k])
	}
	return adj
}

// label names an entity in a language.
func (g *gen) label(id, lang string) string {
	if lang == "zh" {
		return g.zh[id]
	}
	return g.name[id]
}

// wholeSpan reports whether one stint holds all of [from, to).
func wholeSpan(sts []stint, from, to time.Time) bool {
	for _, st := range sts {
		if !from.Before(st.from) && (st.to.IsZero() || !to.After(st.to)) {
			return true
		}
	}
	return false
}
