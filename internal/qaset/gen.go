package qaset

import (
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxAnswers is the largest answer set a question may have.
const maxAnswers = 30

// spec describes how a set's questions are generated.
type spec struct {
	units   []*unit
	hubs    map[string]bool // entity types left only from the topic
	persons map[string]bool // entity types answered by "who"
	attrs   map[string]bool // value types ("year", "rating") that only "what is"-style wrappers ask for
	langs   []string
	perHop  [4]int // questions per hop count and language
	// pivotShare is the share of multi-hop questions built around a pivot.
	pivotShare float64
	// rare lists units (by code) that would otherwise crowd multi-hop
	// questions: only a third of the sequences with one are kept.
	rare map[string]bool
}

// option is one thing the generator tries to ask: a sequence of units and,
// for one-hop questions, the outer fragment.
type option struct {
	seq   []*unit
	outer *frag
	pivot bool
	dead  bool
}

type gen struct {
	rng   *rand.Rand
	x     *index
	sp    *spec
	texts map[string]bool
	pairs map[string]int
	cands map[string][]int32
	out   []Question
}

// generate makes a set's questions.
func generate(x *index, sp *spec, rng *rand.Rand) []Question {
	g := &gen{rng: rng, x: x, sp: sp, texts: map[string]bool{}, pairs: map[string]int{}, cands: map[string][]int32{}}
	for hops := 1; hops <= 3; hops++ {
		for _, lang := range sp.langs {
			g.hop(hops, lang, sp.perHop[hops])
		}
	}
	return g.out
}

// sequences lists the unit sequences that walk exactly hops steps.
func (sp *spec) sequences(hops int) [][]*unit {
	var out [][]*unit
	var rec func(seq []*unit, steps int)
	rec = func(seq []*unit, steps int) {
		if steps == hops {
			out = append(out, slices.Clone(seq))
			return
		}
		for _, u := range sp.units {
			if steps+len(u.steps) > hops {
				continue
			}
			if len(seq) > 0 {
				prev := seq[len(seq)-1]
				if prev.to != u.from || sp.hubs[u.from] {
					continue
				}
				// A walk between entities of one type (sequels, reports,
				// borders) reads oddly right after a hub's members.
				if u.from == u.to && sp.hubs[prev.from] {
					continue
				}
				if u.pivot && prev.pivot {
					continue
				}
				a, b := prev.steps[len(prev.steps)-1], u.steps[0]
				if a.Type == b.Type && a.Forward != b.Forward {
					continue
				}
				if u.pivot && anyPivot(seq) {
					continue
				}
			}
			rec(append(seq, u), steps+len(u.steps))
		}
	}
	rec(nil, 0)
	return out
}

func (sp *spec) hasRare(seq []*unit) bool {
	for _, u := range seq {
		if sp.rare[u.code] {
			return true
		}
	}
	return false
}

func anyPivot(seq []*unit) bool {
	for _, u := range seq {
		if u.pivot {
			return true
		}
	}
	return false
}

// hop generates target questions of one hop count in one language.
func (g *gen) hop(hops int, lang string, target int) {
	var opts []*option
	if hops == 1 {
		for _, u := range g.sp.units {
			if len(u.steps) != 1 {
				continue
			}
			for _, f := range u.frags {
				if f.lang == lang {
					opts = append(opts, &option{seq: []*unit{u}, outer: f})
				}
			}
		}
	} else {
		for _, seq := range g.sp.sequences(hops) {
			if g.sp.hasRare(seq) && g.rng.IntN(3) != 0 {
				continue
			}
			opts = append(opts, &option{seq: seq, pivot: anyPivot(seq)})
		}
	}
	g.rng.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	tries := 15
	if hops == 1 {
		tries = 60
	}
	made, madePivot := 0, 0
	next := [2]int{} // round-robin position among chain (0) and pivot (1) options
	for made < target {
		// Choose the kind that is furthest below its share.
		want := 0
		if hops > 1 && float64(madePivot) < g.sp.pivotShare*float64(made+1) {
			want = 1
		}
		o := g.nextOption(opts, want, &next[want])
		if o == nil {
			o = g.nextOption(opts, 1-want, &next[1-want])
		}
		if o == nil {
			return
		}
		ok := false
		for range tries {
			if g.try(o, lang) {
				ok = true
				break
			}
		}
		if !ok {
			o.dead = true
			continue
		}
		made++
		if o.pivot {
			madePivot++
		}
	}
}

// nextOption returns the next live option of the wanted kind after *pos,
// cycling, or nil when there is none.
func (g *gen) nextOption(opts []*option, want int, pos *int) *option {
	for range len(opts) {
		o := opts[*pos%len(opts)]
		*pos = (*pos + 1) % len(opts)
		if !o.dead && (o.pivot == (want == 1)) {
			return o
		}
	}
	return nil
}

// candidates lists the entities a unit can start from.
func (g *gen) candidates(u *unit) []int32 {
	key := u.code + "|" + u.from
	if c, ok := g.cands[key]; ok {
		return c
	}
	var c []int32
	s := u.steps[0]
	for _, e := range g.x.ofType[u.from] {
		if g.x.degree(e, s.Type, s.Forward) > 0 {
			c = append(c, e)
		}
	}
	g.cands[key] = c
	return c
}

// try makes one question for o with a random topic; it reports success.
func (g *gen) try(o *option, lang string) bool {
	c := g.candidates(o.seq[0])
	if len(c) == 0 {
		return false
	}
	topic := c[g.rng.IntN(len(c))]
	var path []Step
	exclude := false
	for _, u := range o.seq {
		path = append(path, u.steps...)
		exclude = exclude || u.pivot
	}
	pairKey := lang + "|" + g.x.ents[topic].ID + "|" + pathKey(path)
	if g.pairs[pairKey] >= 1 {
		return false
	}
	// Walks through thousands of entities make odd questions ("what
	// languages are drama films in"); they are not generated.
	got := g.x.walk(topic, path, maxAnswers+1, 1500)
	if exclude {
		got = slices.DeleteFunc(got, func(e int32) bool { return e == topic })
	}
	if len(got) == 0 || len(got) > maxAnswers {
		return false
	}
	text, tmpl, para, ok := g.phrase(o, lang, topic)
	if !ok || g.texts[text] {
		return false
	}
	g.texts[text] = true
	g.pairs[pairKey]++
	ans := make([]string, len(got))
	for i, e := range got {
		ans[i] = g.x.ents[e].ID
	}
	slices.Sort(ans)
	g.out = append(g.out, Question{
		Text: text, Topic: g.x.ents[topic].ID, Answers: ans, Path: path, Hops: len(path),
		Lang: lang, Template: tmpl, Paraphrase: para, ExcludesTopic: exclude,
	})
	return true
}

func pathKey(p []Step) string {
	var b strings.Builder
	for _, s := range p {
		b.WriteString(s.Type)
		if s.Forward {
			b.WriteString(">")
		} else {
			b.WriteString("<")
		}
	}
	return b.String()
}

// pick returns a random element of fs accepting x, or nil.
func (g *gen) pick(fs []*frag, x np, kind byte, lang string) *frag {
	var ok []*frag
	for _, f := range fs {
		if f.kind == kind && f.lang == lang && f.accepts(x) {
			ok = append(ok, f)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	return ok[g.rng.IntN(len(ok))]
}

// phrase composes the question text for o about topic.
func (g *gen) phrase(o *option, lang string, topic int32) (text, tmpl string, para, ok bool) {
	x := np{text: g.mention(topic, lang), kind: npName, num: 1}
	var names []string
	para = true
	last := len(o.seq) - 1
	for i := 0; i < last; i++ {
		u := o.seq[i]
		f := g.pick(u.frags, x, 'n', lang)
		if f == nil {
			return "", "", false, false
		}
		x = f.result(x)
		names = append(names, u.code+":"+f.id)
		para = para && f.para
	}
	u := o.seq[last]
	f := o.outer
	if f == nil {
		var all []*frag
		for _, c := range u.frags {
			if c.lang == lang && c.kind != 'w' && c.accepts(x) {
				all = append(all, c)
			}
		}
		if len(all) == 0 {
			return "", "", false, false
		}
		f = all[g.rng.IntN(len(all))]
	} else if !f.accepts(x) {
		return "", "", false, false
	}
	para = para && f.para
	var s string
	if f.kind == 'a' {
		s = f.fill(x)
		names = append(names, u.code+":"+f.id)
	} else {
		inner := f.result(x)
		ws := g.wrappersFor(u.to, lang)
		w := g.pick(ws, inner, 'w', lang)
		if w == nil {
			return "", "", false, false
		}
		s = w.fill(inner)
		names = append(names, u.code+":"+f.id, "+"+w.id)
	}
	slices.Reverse(names)
	tmpl = strings.Join(names, "/")
	return g.finish(s, lang, f.kind == 'a'), tmpl, para, true
}

func (g *gen) wrappersFor(typ, lang string) []*frag {
	person := g.sp.persons[typ]
	var ws []*frag
	switch {
	case lang == "zh" && person:
		ws = wrapZhPerson
	case lang == "zh":
		ws = wrapZhThing
	case person:
		ws = wrapEnPerson
	default:
		ws = wrapEnThing
	}
	if g.sp.attrs[typ] {
		var out []*frag
		for _, w := range ws {
			if w.id == "what-is" || w.id == "tell-me" || w.id == "是什么" || w.id == "查一下" {
				out = append(out, w)
			}
		}
		ws = out
	}
	return ws
}

// mention is the form of the topic's name a question uses.
func (g *gen) mention(e int32, lang string) string {
	ent := g.x.ents[e]
	nameHan := hanOnly(ent.Name) != ""
	var latin, han []string
	for _, a := range ent.Aliases {
		if hanOnly(a) != "" {
			han = append(han, a)
		} else {
			latin = append(latin, a)
		}
	}
	r := g.rng.Float64()
	if lang == "zh" {
		if !nameHan && len(han) > 0 && r < 0.8 {
			return han[g.rng.IntN(len(han))]
		}
		return ent.Name
	}
	if nameHan {
		if len(latin) > 0 && r < 0.6 {
			return g.maybeLower(latin[g.rng.IntN(len(latin))])
		}
		return ent.Name
	}
	if len(latin) > 0 && r < 0.15 {
		return g.maybeLower(latin[g.rng.IntN(len(latin))])
	}
	return g.maybeLower(ent.Name)
}

func (g *gen) maybeLower(s string) string {
	if g.rng.Float64() < 0.2 {
		return strings.ToLower(s)
	}
	return s
}

var (
	// Prefixes for questions; the first two English ones also go before
	// imperatives.
	enPrefixes = []string{"please, ", "hey, ", "tell me ", "do you know ", "can you tell me ", "quick question: ", "I was wondering ", "any idea "}
	zhPrefixes = []string{"请问", "问一下，", "你知道", "帮我查一下", "我想知道"}
)

// finish adds noise words, capitalisation and punctuation as users type.
// ask is false for a wrapped noun phrase ("list ..."), which takes only
// the first two prefixes.
func (g *gen) finish(s, lang string, ask bool) string {
	pre := func(ps []string) string {
		if ask {
			return ps[g.rng.IntN(len(ps))]
		}
		return ps[g.rng.IntN(2)]
	}
	if lang == "zh" {
		// Chinese imperatives (列出…, 告诉我…) take no prefix and no 呢.
		if ask && g.rng.Float64() < 0.2 {
			s = pre(zhPrefixes) + s
		}
		switch r := g.rng.Float64(); {
		case r < 0.75:
			s += "？"
		case r < 0.85:
			s += "?"
		case r < 0.9 && ask:
			s += "呢？"
		}
		return s
	}
	if g.rng.Float64() < 0.18 {
		s = pre(enPrefixes) + s
	}
	q := 0.7 // imperatives ("list the films ...") get fewer question marks
	if !ask {
		q = 0.3
	}
	switch r := g.rng.Float64(); {
	case r < q:
		s += "?"
	case r < q+0.05 && !strings.Contains(s, "please"):
		s += " please?"
	case r < q+0.08:
		s += "??"
	}
	switch r := g.rng.Float64(); {
	case r < 0.5:
		c, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(c)) + s[n:]
	case r < 0.6:
		s = strings.ToLower(s)
	}
	return s
}
