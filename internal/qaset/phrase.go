package qaset

import (
	"fmt"
	"strings"
)

// A question is composed from fragments, one per unit of its path. A unit
// names one relation walked in one direction between two entity types, or
// a short fixed walk (a two-hop pivot such as "co-starred with"). Each
// unit has ask fragments, which are whole questions about a slot {X}, and
// noun-phrase fragments, which name the unit's targets given {X} and nest
// inside other fragments: "who directed {X}" around "the films {X}
// starred in" around a topic name gives "who directed the films Tom Hanks
// starred in".
//
// Fragment lines are written as
//
//	a ID: TEXT                ask fragment
//	n ID KIND NUM: TEXT       noun phrase; KIND s (short), l (long: has a
//	                          clause) or p (possessive); NUM 1, 2, or x
//	                          (the number of the slot's filler)
//	w ID NUM: TEXT            wrapper turning a noun phrase of number NUM
//	                          (1, 2 or x for any) into a question
//
// In TEXT, {X} is the slot; {X:s} accepts only a name or a short or
// possessive phrase (the slot is embedded, not at the end), {X:p} only a
// name or a singular possessive phrase (it is followed by 's), {X:n} only
// the topic's name. {a|b} is a when the slot's filler is singular, b when
// it is plural. Fragments whose TEXT contains Chinese are Chinese.

type slotKind uint8

const (
	slotAny slotKind = iota
	slotShort
	slotPoss
	slotName
)

type npKind uint8

const (
	npName npKind = iota
	npShort
	npLong
	npPoss
)

// frag is one phrasing.
type frag struct {
	id   string
	kind byte // 'a', 'n' or 'w'
	text string
	slot slotKind
	out  npKind // result kind of a noun phrase
	num  int8   // result number of a noun phrase (0: the slot's); for a wrapper, the required number (0: any)
	lang string
	para bool
}

// np is a filled noun phrase.
type np struct {
	text string
	kind npKind
	num  int8 // 1 singular, 2 plural
}

// unit is a relation walked in one direction, or a fixed short walk.
type unit struct {
	code     string
	steps    []Step
	from, to string
	pivot    bool
	frags    []*frag
}

// rels returns the distinct relation types of u's steps.
func (u *unit) rels() []string {
	var out []string
	for _, s := range u.steps {
		if !contains(out, s.Type) {
			out = append(out, s.Type)
		}
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// one declares the unit walking rel once, forward or backward, from an
// entity of type from to entities of type to.
func one(code, rel string, fwd bool, from, to string, lines ...string) *unit {
	u := &unit{code: code, steps: []Step{{rel, fwd}}, from: from, to: to}
	u.parse(lines)
	return u
}

// pivot declares the two-hop unit that walks rel in direction fwd to an
// entity of type via and back again to other entities of type from; the
// topic is excluded from its answers.
func pivot(code, rel string, fwd bool, from, via string, lines ...string) *unit {
	u := &unit{code: code, steps: []Step{{rel, fwd}, {rel, !fwd}}, from: from, to: from, pivot: true}
	_ = via
	u.parse(lines)
	return u
}

func (u *unit) parse(lines []string) {
	for _, l := range lines {
		f := parseFrag(l)
		f.para = true
		for _, r := range u.rels() {
			if sharesStem(f.wording(), r) {
				f.para = false
			}
		}
		u.frags = append(u.frags, f)
	}
}

// parseFrag parses one fragment line.
func parseFrag(line string) *frag {
	head, text, ok := strings.Cut(line, ": ")
	if !ok {
		panic("qaset: fragment without text: " + line)
	}
	fs := strings.Fields(head)
	f := &frag{kind: fs[0][0], id: fs[1], text: strings.TrimSpace(text), lang: "en"}
	if hanOnly(f.text) != "" {
		f.lang = "zh"
	}
	num := func(s string) int8 {
		switch s {
		case "1":
			return 1
		case "2":
			return 2
		case "x":
			return 0
		}
		panic("qaset: bad number in " + line)
	}
	switch f.kind {
	case 'a':
		if len(fs) != 2 {
			panic("qaset: bad ask fragment " + line)
		}
	case 'n':
		if len(fs) != 4 {
			panic("qaset: bad noun-phrase fragment " + line)
		}
		switch fs[2] {
		case "s":
			f.out = npShort
		case "l":
			f.out = npLong
		case "p":
			f.out = npPoss
		default:
			panic("qaset: bad kind in " + line)
		}
		f.num = num(fs[3])
	case 'w':
		if len(fs) != 3 {
			panic("qaset: bad wrapper " + line)
		}
		f.num = num(fs[2])
	default:
		panic("qaset: bad fragment kind " + line)
	}
	for _, s := range []struct {
		mark string
		kind slotKind
	}{{"{X:s}", slotShort}, {"{X:p}", slotPoss}, {"{X:n}", slotName}} {
		if strings.Contains(f.text, s.mark) {
			f.slot = s.kind
			f.text = strings.Replace(f.text, s.mark, "{X}", 1)
		}
	}
	if strings.Count(f.text, "{X}") != 1 {
		panic("qaset: fragment needs exactly one slot: " + line)
	}
	return f
}

// wording is the fragment's text without the slot, both sides of every
// alternation kept: the relation wording whose stems decide Paraphrase.
func (f *frag) wording() string {
	t := strings.Replace(f.text, "{X}", " ", 1)
	t = strings.NewReplacer("{", " ", "}", " ", "|", " ").Replace(t)
	return t
}

// accepts reports whether f's slot accepts x.
func (f *frag) accepts(x np) bool {
	switch f.slot {
	case slotShort:
		return x.kind != npLong
	case slotPoss:
		return x.kind == npName || x.kind == npPoss && x.num == 1
	case slotName:
		return x.kind == npName
	}
	if f.kind == 'w' && f.num != 0 && f.num != x.num {
		return false
	}
	return true
}

// fill substitutes x into f's slot and resolves alternations by x's number.
func (f *frag) fill(x np) string {
	t := f.text
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(t)
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			panic("qaset: unbalanced brace in " + f.text)
		}
		b.WriteString(t[:i])
		inner := t[i+1 : i+j]
		if inner == "X" {
			b.WriteString(x.text)
		} else {
			sg, pl, ok := strings.Cut(inner, "|")
			if !ok {
				panic(fmt.Sprintf("qaset: bad alternation {%s} in %s", inner, f.text))
			}
			if x.num == 2 {
				b.WriteString(pl)
			} else {
				b.WriteString(sg)
			}
		}
		t = t[i+j+1:]
	}
	return b.String()
}

// result is the noun phrase f makes from x.
func (f *frag) result(x np) np {
	n := f.num
	if n == 0 {
		n = x.num
	}
	return np{text: f.fill(x), kind: f.out, num: n}
}

// wrappers returns the parsed wrapper fragments of lines.
func wrappers(lines ...string) []*frag {
	var out []*frag
	for _, l := range lines {
		out = append(out, parseFrag(l))
	}
	return out
}

// Generic wrappers that turn a noun phrase into a question.
var (
	wrapEnPerson = wrappers(
		"w who-is x: who {is|are} {X}",
		"w name x: name {X}",
		"w tell-me x: tell me {X}",
		"w list 2: list {X}",
		"w find x: find {X}",
	)
	wrapEnThing = wrappers(
		"w what-is x: what {is|are} {X}",
		"w name x: name {X}",
		"w list 2: list {X}",
		"w show-me 2: show me {X}",
		"w give-me x: give me {X}",
		"w tell-me x: tell me {X}",
	)
	wrapZhPerson = wrappers(
		"w 是谁 x: {X}是谁",
		"w 有谁 x: {X}有谁",
		"w 都有哪些人 x: {X}都有哪些人",
		"w 列出 x: 列出{X}",
		"w 告诉我 x: 告诉我{X}",
	)
	wrapZhThing = wrappers(
		"w 是什么 x: {X}是什么",
		"w 有哪些 x: {X}有哪些",
		"w 是哪个 x: {X}是哪个",
		"w 列出 x: 列出{X}",
		"w 查一下 x: 查一下{X}",
	)
)
