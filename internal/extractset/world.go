package extractset

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// world is the generator's state: the entities, the facts and the
// indexes the passage writer and the question maker read.
type world struct {
	cfg      Config
	rng      *rand.Rand
	entities []Entity
	byID     map[string]int
	byKind   map[Kind][]int
	facts    []Fact
	// out[e] lists the facts whose subject is entity e, about[e] those the
	// passages about entity e state.
	out map[int][]int
	// one[e][rel] is the one-valued fact of rel from entity e, followed in
	// a question's direction (for Spouse, from either end).
	one map[int]map[Relation]int
	// roleOf[i] is the role of the i-th person; pool lists people by role.
	roleOf []string
	pool   map[string][]int
}

func newWorld(cfg Config, rng *rand.Rand) *world {
	w := &world{cfg: cfg, rng: rng, byID: map[string]int{}, byKind: map[Kind][]int{}, out: map[int][]int{}, one: map[int]map[Relation]int{}}
	w.places()
	w.people()
	w.organisations()
	w.works()
	w.personFacts()
	return w
}

// add appends an entity and returns its index.
func (w *world) add(e Entity) int {
	e.ID = fmt.Sprintf("%s:%04d", e.Kind, len(w.byKind[e.Kind]))
	i := len(w.entities)
	w.entities = append(w.entities, e)
	w.byID[e.ID] = i
	w.byKind[e.Kind] = append(w.byKind[e.Kind], i)
	return i
}

// fact records subject rel object.
func (w *world) fact(subject int, rel Relation, object int) int {
	f := Fact{Subject: w.entities[subject].ID, Relation: rel, Object: w.entities[object].ID}
	i := len(w.facts)
	w.facts = append(w.facts, f)
	w.out[subject] = append(w.out[subject], i)
	if rel == Starring {
		return i
	}
	w.link(subject, rel, i)
	if rel == Spouse {
		w.link(object, rel, i)
	}
	return i
}

func (w *world) link(e int, rel Relation, f int) {
	if w.one[e] == nil {
		w.one[e] = map[Relation]int{}
	}
	w.one[e][rel] = f
}

// other returns the end of fact f that is not entity e.
func (w *world) other(f, e int) int {
	s, o := w.byID[w.facts[f].Subject], w.byID[w.facts[f].Object]
	if s == e {
		return o
	}
	return s
}

func (w *world) pick(xs []int) int { return xs[w.rng.IntN(len(xs))] }

func pickString(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

// places makes the countries and cities with their country facts.
func (w *world) places() {
	countries := w.rng.Perm(len(countryNames))[:w.cfg.Countries]
	for _, c := range countries {
		name := countryNames[c]
		w.add(Entity{Kind: Country, Name: name, Forms: []string{"Republic of " + name}})
	}
	combos := w.rng.Perm(len(cityHeads) * len(cityTails))[:w.cfg.Cities]
	for _, c := range combos {
		name := cityHeads[c/len(cityTails)] + cityTails[c%len(cityTails)]
		country := w.pick(w.byKind[Country])
		ci := w.add(Entity{Kind: City, Name: name})
		cn := w.entities[country].Name
		w.entities[ci].Forms = []string{name + ", " + cn, name + " City"}
		w.fact(ci, InCountry, country)
	}
	// A capital for every country that has a city.
	for _, co := range w.byKind[Country] {
		var in []int
		for _, ci := range w.byKind[City] {
			if w.entities[w.byID[w.facts[w.one[ci][InCountry]].Object]].ID == w.entities[co].ID {
				in = append(in, ci)
			}
		}
		if len(in) > 0 {
			w.fact(co, Capital, w.pick(in))
		}
	}
}

// Occupations by role; a person's role decides which facts they can be
// the object of.
var occupations = map[string][]string{
	"director":   {"film director", "filmmaker", "director and screenwriter"},
	"writer":     {"novelist", "writer", "author"},
	"business":   {"businessman", "entrepreneur", "executive"},
	"politician": {"politician", "lawyer and politician"},
	"actor":      {"actor", "actress", "stage actor"},
	"other":      {"physicist", "architect", "journalist", "composer", "painter", "economist", "engineer"},
}

var roles = []string{"director", "writer", "business", "politician", "actor", "other"}

// people makes the persons, each with a role, a gender, a birth year and
// a nationality.
func (w *world) people() {
	n := w.cfg.People
	share := map[string]int{
		"director":   max(1, w.cfg.Films/6),
		"writer":     max(1, w.cfg.Books/3),
		"business":   max(1, w.cfg.Companies*3/2),
		"politician": max(1, w.cfg.Cities/2+w.cfg.Countries),
		"actor":      max(2, n/5),
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		role := "other"
		k := i
		for _, r := range roles[:5] {
			if k < share[r] {
				role = r
				break
			}
			k -= share[r]
		}
		female := w.rng.IntN(2) == 0
		var first, last, name string
		for {
			if female {
				first = pickString(w.rng, femaleFirst)
			} else {
				first = pickString(w.rng, maleFirst)
			}
			last = pickString(w.rng, surnames)
			name = first + " " + last
			if !seen[name] {
				break
			}
			// Beyond the plain combinations, a middle initial.
			name = first + " " + string(rune('A'+w.rng.IntN(26))) + ". " + last
			if !seen[name] {
				break
			}
		}
		seen[name] = true
		occ := pickString(w.rng, occupations[role])
		switch {
		case occ == "actress" && !female:
			occ = "actor"
		case occ == "businessman" && female:
			occ = "businesswoman"
		}
		e := Entity{Kind: Person, Name: name, female: female, first: first, last: last,
			year: 1900 + w.rng.IntN(90), occupation: occ, nationality: pickString(w.rng, nationalities)}
		e.Forms = []string{first[:1] + ". " + last, last}
		if mid := strings.Index(name, ". "); mid > 0 && strings.Count(name, " ") == 2 {
			e.Forms = append(e.Forms, first+" "+last)
		}
		w.add(e)
		w.roleOf = append(w.roleOf, role)
	}
	for i, p := range w.byKind[Person] {
		r := w.roleOf[i]
		if w.pool == nil {
			w.pool = map[string][]int{}
		}
		w.pool[r] = append(w.pool[r], p)
	}
}

// organisations makes companies and universities with their facts.
func (w *world) organisations() {
	seen := map[string]bool{}
	for len(w.byKind[Company]) < w.cfg.Companies {
		stem := pickString(w.rng, companyStems)
		if w.rng.IntN(4) == 0 {
			stem = pickString(w.rng, surnames)
		}
		suf := companySuffixes[w.rng.IntN(len(companySuffixes))]
		name := stem + " " + suf[0]
		if seen[name] {
			stem = pickString(w.rng, companyStems) + pickString(w.rng, []string{"tech", "field", "line", "works", "way"})
			name = stem + " " + suf[0]
			if seen[name] {
				continue
			}
		}
		seen[name] = true
		var forms []string
		for _, s := range suf[1:] {
			if strings.HasPrefix(s, ",") {
				forms = append(forms, stem+s)
			} else {
				forms = append(forms, stem+" "+s)
			}
		}
		forms = append(forms, stem)
		c := w.add(Entity{Kind: Company, Name: name, Forms: forms, year: 1850 + w.rng.IntN(160), ind: pickString(w.rng, industries)})
		w.fact(c, FoundedBy, w.pick(w.pool["business"]))
		w.fact(c, Headquartered, w.pick(w.byKind[City]))
		if w.rng.Float64() < 0.6 {
			ceo := w.pick(w.pool["business"])
			if w.entities[ceo].ID != w.facts[w.one[c][FoundedBy]].Object {
				w.fact(c, CEO, ceo)
			}
		}
	}
	for len(w.byKind[University]) < w.cfg.Universities {
		city := w.pick(w.byKind[City])
		cn := w.entities[city].Name
		var name string
		var forms []string
		switch w.rng.IntN(5) {
		case 0:
			name, forms = "University of "+cn, []string{cn + " University", "U. of " + cn}
		case 1:
			name, forms = cn+" Institute of Technology", []string{cn + " Tech", cn + " Institute"}
		default:
			s := pickString(w.rng, surnames)
			kind := pickString(w.rng, []string{"University", "College"})
			name, forms = s+" "+kind, []string{s + " " + kind + " " + cn, s}
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		u := w.add(Entity{Kind: University, Name: name, Forms: forms, year: 1700 + w.rng.IntN(300)})
		w.fact(u, LocatedIn, city)
	}
	for _, ci := range w.byKind[City] {
		if w.rng.Float64() < 0.5 {
			w.fact(ci, Mayor, w.pick(w.pool["politician"]))
		}
	}
	for _, co := range w.byKind[Country] {
		w.fact(co, HeadOfState, w.pick(w.pool["politician"]))
	}
}

// works makes films and books with their facts.
func (w *world) works() {
	seen := map[string]bool{}
	for len(w.byKind[Film]) < w.cfg.Films {
		adj, noun := pickString(w.rng, filmAdjectives), pickString(w.rng, filmNouns)
		var name string
		var forms []string
		switch w.rng.IntN(3) {
		case 0:
			name, forms = "The "+adj+" "+noun, []string{adj + " " + noun}
		case 1:
			name = adj + " " + noun
		default:
			name = noun + " of the " + adj + " " + pickString(w.rng, filmNouns)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		year := 1930 + w.rng.IntN(90)
		forms = append(forms, fmt.Sprintf("%s (%d film)", name, year), name+" (film)")
		f := w.add(Entity{Kind: Film, Name: name, Forms: forms, year: year, genre: pickString(w.rng, filmGenres), nationality: pickString(w.rng, nationalities)})
		w.fact(f, DirectedBy, w.pick(w.pool["director"]))
		w.fact(f, ProducedBy, w.pick(w.byKind[Company]))
		a := w.pick(w.pool["actor"])
		b := w.pick(w.pool["actor"])
		w.fact(f, Starring, a)
		if b != a {
			w.fact(f, Starring, b)
		}
	}
	for len(w.byKind[Book]) < w.cfg.Books {
		name := pickString(w.rng, bookHeads) + " " + pickString(w.rng, bookTails)
		if w.rng.IntN(3) == 0 {
			name = "The " + pickString(w.rng, filmAdjectives) + " " + pickString(w.rng, bookTails)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		year := 1850 + w.rng.IntN(170)
		b := w.add(Entity{Kind: Book, Name: name, Forms: []string{name + " (novel)"}, year: year})
		w.fact(b, WrittenBy, w.pick(w.pool["writer"]))
		w.fact(b, PublishedBy, w.pick(w.byKind[Company]))
	}
}

// personFacts gives people birthplaces, fathers, spouses, universities
// and employers.
func (w *world) personFacts() {
	people := w.byKind[Person]
	var men []int
	for _, p := range people {
		if !w.entities[p].female {
			men = append(men, p)
		}
	}
	for _, p := range people {
		w.fact(p, BornIn, w.pick(w.byKind[City]))
		if w.rng.Float64() < 0.65 {
			w.fact(p, EducatedAt, w.pick(w.byKind[University]))
		}
		if w.rng.Float64() < 0.45 {
			w.fact(p, Employer, w.pick(w.byKind[Company]))
		}
		if w.rng.Float64() < 0.3 {
			f := w.pick(men)
			if f != p && w.entities[f].year < w.entities[p].year {
				w.fact(p, Father, f)
			}
		}
	}
	// Spouses: pairs of unmarried people, each pair one fact.
	for _, p := range people {
		if w.rng.Float64() >= 0.35 || w.has(p, Spouse) {
			continue
		}
		q := w.pick(people)
		if q == p || w.has(q, Spouse) || w.isFather(q, p) || w.isFather(p, q) {
			continue
		}
		w.fact(p, Spouse, q)
	}
}

// rel returns the one-valued fact of rel from entity e.
func (w *world) rel(e int, rel Relation) (int, bool) {
	f, ok := w.one[e][rel]
	return f, ok
}

func (w *world) has(e int, rel Relation) bool {
	_, ok := w.one[e][rel]
	return ok
}

// isFather reports whether f is the father of p.
func (w *world) isFather(f, p int) bool {
	x, ok := w.rel(p, Father)
	return ok && w.other(x, p) == f
}
