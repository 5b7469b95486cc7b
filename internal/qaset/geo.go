package qaset

import (
	"math/rand/v2"
	"strings"
)

// Geo relation types: a mix of Freebase-style paths and camelCase names.
const (
	geoContainedBy = "location/location/containedby"
	geoContains    = "location/location/contains"
	geoCapital     = "capitalOf"
	geoBirthPlace  = "people/person/place_of_birth"
	geoNationality = "people/person/nationality"
	geoSpouse      = "spouse_s"
	geoBorders     = "borders"
	geoLanguage    = "officialLanguage"
	geoCurrency    = "location/country/currency_used"
	geoFlows       = "flowsThrough"
	geoTributary   = "tributaryOf"
	geoHQ          = "organization/organization/headquarters"
	geoFounder     = "foundedBy"
	geoEmployer    = "people/person/employer"
	geoParents     = "people/person/parents"
	geoChildren    = "people/person/children"
	geoLedBy       = "ledBy"
)

// Geo returns a geography and people knowledge graph of invented places,
// with about 400 English questions for each of 1, 2 and 3 hops.
//
// Entity types: "country" (60), "region" (about 400), "city" (about
// 1,400; a few names are used in two countries), "river", "person",
// "organization", "language" and "currency".
//
// Relation types: location/location/containedby (city → region, region →
// country) and location/location/contains (country → region, always
// stored, and region → city, stored only for a third of the countries),
// capitalOf (city → country), people/person/place_of_birth (person →
// city), people/person/nationality (person → country), spouse_s (stored
// in both directions), borders (country → country, both directions),
// officialLanguage (country → language), location/country/currency_used
// (country → currency), flowsThrough (river → country), tributaryOf (river
// → river), organization/organization/headquarters (organization → city),
// foundedBy (organization → person), people/person/employer (person →
// organization), people/person/parents (child → parent, always stored),
// people/person/children (parent → child, stored for half of the
// families) and ledBy (country → person).
func Geo() *Set { return geoSet(rand.New(rand.NewPCG(0x6b676d656d, 0x67656f))) }

func geoSet(rng *rand.Rand) *Set {
	b := newBuilder()
	buildGeo(b, rng)
	x := b.finish()
	qs := generate(x, geoSpec(), rng)
	return &Set{
		Name:      "geo",
		Entities:  x.ents,
		Relations: x.rels,
		Vocabulary: map[string][]string{
			geoContainedBy: {"located in", "part of", "in which region", "in which country", "province"},
			geoContains:    {"contains", "regions of"},
			geoCapital:     {"capital", "capital city"},
			geoBirthPlace:  {"born", "birthplace", "place of birth"},
			geoNationality: {"nationality", "citizen"},
			geoSpouse:      {"spouse", "married to", "wife", "husband"},
			geoBorders:     {"borders", "neighbouring countries"},
			geoLanguage:    {"official language", "language", "spoken"},
			geoCurrency:    {"currency", "money"},
			geoFlows:       {"flows through", "river through"},
			geoTributary:   {"tributary", "flows into"},
			geoHQ:          {"headquarters", "headquartered", "based"},
			geoFounder:     {"founded", "founder"},
			geoEmployer:    {"employer", "works for"},
			geoParents:     {"parents", "mother", "father"},
			geoChildren:    {"children", "kids"},
			geoLedBy:       {"leader", "leads", "president"},
		},
		InverseVocabulary: map[string][]string{
			geoContainedBy: {"contains", "cities in", "regions of"},
			geoParents:     {"children", "kids", "sons and daughters"},
			geoLedBy:       {"leader of"},
			geoTributary:   {"tributaries"},
		},
		TypeWords: map[string][]string{
			"country":      {"country", "nation", "state"},
			"region":       {"region", "province"},
			"city":         {"city", "town"},
			"river":        {"river"},
			"person":       {"person", "people", "who"},
			"organization": {"organization", "company", "firm"},
			"language":     {"language", "tongue"},
			"currency":     {"currency", "money"},
		},
		Questions: qs,
	}
}

// nameGen invents place names from syllables and never repeats one.
type nameGen struct {
	r    *rand.Rand
	used map[string]bool
}

var (
	geoOnsets = []string{"b", "br", "c", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "r", "s", "st", "t", "tr", "v", "z", "sh", "th", "j", "y", "w", ""}
	geoVowels = []string{"a", "e", "i", "o", "u", "a", "e", "o", "ia", "ae", "ei", "ou", "y"}
	geoCodas  = []string{"", "", "", "n", "r", "l", "s", "th", "nd", "m", "x", "k"}
)

func (g *nameGen) root(syll int) string {
	var sb strings.Builder
	for i := range syll {
		sb.WriteString(pickOne(g.r, geoOnsets))
		sb.WriteString(pickOne(g.r, geoVowels))
		if i == syll-1 || g.r.IntN(3) == 0 {
			sb.WriteString(pickOne(g.r, geoCodas))
		}
	}
	s := sb.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// fresh returns a new unused name built by f.
func (g *nameGen) fresh(f func() string) string {
	for {
		n := f()
		if len(n) < 4 || g.used[strings.ToLower(n)] {
			continue
		}
		g.used[strings.ToLower(n)] = true
		return n
	}
}

func buildGeo(b *builder, r *rand.Rand) {
	ng := &nameGen{r: r, used: map[string]bool{}}
	// Languages and currencies.
	var langs []string
	for range 50 {
		root := ng.fresh(func() string { return ng.root(2) })
		name := root + pickOne(r, []string{"ian", "ese", "ic", "ish", "i"})
		ng.used[strings.ToLower(name)] = true
		langs = append(langs, b.add("language:"+slug(name), name, "language"))
	}
	langDraw := newWeighted(zipfWeights(len(langs), 0.9, 2))
	var currencies []string
	for range 40 {
		name := ng.fresh(func() string {
			return ng.root(2) + " " + pickOne(r, []string{"dinar", "crown", "mark", "peso", "franc", "lira", "rupee", "dollar", "shilling", "lev", "florin", "real"})
		})
		currencies = append(currencies, b.add("currency:"+slug(name), name, "currency"))
	}
	curDraw := newWeighted(zipfWeights(len(currencies), 0.8, 3))

	// Countries on a grid: neighbours on the grid share a border.
	type country struct {
		id, name string
		x, y     int
		regions  []string
		cities   []string
	}
	const gridW, gridH = 10, 6
	var countries []*country
	for i := range gridW * gridH {
		name := ng.fresh(func() string {
			return ng.root(2) + pickOne(r, []string{"ia", "land", "stan", "ar", "ica", "ova", "enia", "ador", "esh", "ania", "", ""})
		})
		var al []string
		if r.IntN(3) == 0 {
			al = append(al, pickOne(r, []string{"Republic of ", "Kingdom of ", "Federation of ", "Commonwealth of "})+name)
		}
		c := &country{id: b.add("country:"+slug(name), name, "country", al...), name: name, x: i % gridW, y: i / gridW}
		countries = append(countries, c)
		for _, l := range langDraw.drawDistinct(r, 1+r.IntN(3)) {
			b.rel(c.id, geoLanguage, langs[l])
		}
		b.rel(c.id, geoCurrency, currencies[curDraw.draw(r)])
	}
	for _, a := range countries {
		for _, c := range countries {
			dx, dy := a.x-c.x, a.y-c.y
			if a != c && dx*dx+dy*dy <= 2 && (dx*dx+dy*dy == 1 || r.IntN(3) == 0) && (a.x+a.y*7)%11 != 0 {
				b.rel(a.id, geoBorders, c.id)
				b.rel(c.id, geoBorders, a.id)
			}
		}
	}

	// Regions and cities.
	var allCities []string
	var dupNames []string
	cityOf := map[string]*country{}
	for ci, c := range countries {
		storeContains := ci%3 == 0
		for range 4 + r.IntN(6) {
			name := ng.fresh(func() string {
				switch r.IntN(7) {
				case 0:
					return pickOne(r, []string{"North ", "South ", "East ", "West ", "Upper ", "Lower "}) + c.name
				case 1, 2:
					return ng.root(2) + " Province"
				case 3:
					return ng.root(2) + pickOne(r, []string{" Highlands", " Coast", " Valley", " County"})
				}
				return ng.root(2) + pickOne(r, []string{"a", "ia", "or", ""})
			})
			reg := b.add(b.uniqueID("region:"+slug(name)), name, "region")
			b.rel(reg, geoContainedBy, c.id)
			b.rel(c.id, geoContains, reg)
			c.regions = append(c.regions, reg)
			for range 2 + r.IntN(4) {
				var name string
				if len(dupNames) > 0 && r.IntN(120) == 0 {
					name = dupNames[r.IntN(len(dupNames))]
				} else {
					name = ng.fresh(func() string {
						switch r.IntN(12) {
						case 0:
							return "Port " + ng.root(2)
						case 1:
							return "San " + ng.root(2) + "o"
						case 2:
							return "New " + ng.root(2)
						case 3:
							return ng.root(1) + pickOne(r, []string{"burg", "ville", "grad", "polis", "ton", "ford", "mouth", "haven", "port"})
						case 4:
							return ng.root(2) + pickOne(r, []string{" Springs", " Falls", " Bay"})
						case 5:
							return "St. " + ng.root(2)
						}
						return ng.root(2 + r.IntN(2))
					})
					if r.IntN(40) == 0 {
						dupNames = append(dupNames, name)
					}
				}
				id := "city:" + slug(name)
				if b.has(id) {
					id = b.uniqueID(id + "_" + slug(c.name))
				}
				city := b.add(id, name, "city")
				b.rel(city, geoContainedBy, reg)
				if storeContains {
					b.rel(reg, geoContains, city)
				}
				c.cities = append(c.cities, city)
				allCities = append(allCities, city)
				cityOf[city] = c
			}
		}
		b.rel(c.cities[r.IntN(len(c.cities))], geoCapital, c.id)
	}
	cityDraw := newWeighted(zipfWeights(len(allCities), 0.7, 5))

	// Rivers flow through a country and some of its neighbours.
	var rivers []string
	riverCountries := map[string][]*country{}
	for range 150 {
		root := ng.fresh(func() string { return ng.root(2) })
		id := b.add("river:"+slug(root), root+" River", "river", root)
		c := countries[r.IntN(len(countries))]
		path := []*country{c}
		for range r.IntN(4) {
			n := countries[(c.y*gridW+c.x+pickOne(r, []int{1, -1, gridW, -gridW})+len(countries))%len(countries)]
			path = append(path, n)
			c = n
		}
		for _, pc := range path {
			b.rel(id, geoFlows, pc.id)
		}
		if len(rivers) > 0 && r.IntN(5) < 2 {
			b.rel(id, geoTributary, rivers[r.IntN(len(rivers))])
		}
		riverCountries[id] = path
		rivers = append(rivers, id)
	}

	// People.
	fd := newWeighted(zipfWeights(len(firstNames), 0.5, 5))
	ld := newWeighted(zipfWeights(len(lastNames), 0.5, 5))
	seen := map[string]bool{}
	var people []string
	for len(people) < 2000 {
		name := firstNames[fd.draw(r)] + " " + strings.ReplaceAll(lastNames[ld.draw(r)], "_", " ")
		if seen[name] {
			continue
		}
		seen[name] = true
		p := b.add(b.uniqueID("person:"+slug(name)), name, "person")
		city := allCities[cityDraw.draw(r)]
		b.rel(p, geoBirthPlace, city)
		nat := cityOf[city]
		if r.IntN(10) == 0 {
			nat = countries[r.IntN(len(countries))]
		}
		b.rel(p, geoNationality, nat.id)
		if r.IntN(20) == 0 {
			b.rel(p, geoNationality, countries[r.IntN(len(countries))].id)
		}
		people = append(people, p)
	}
	r.Shuffle(len(people), func(i, j int) { people[i], people[j] = people[j], people[i] })
	// Couples, and families: children of a couple, parents always stored,
	// children stored for half the families.
	next := 0
	for range 320 {
		a, c := people[next], people[next+1]
		next += 2
		b.rel(a, geoSpouse, c)
		b.rel(c, geoSpouse, a)
		both := r.IntN(2) == 0
		for range r.IntN(4) {
			if next >= 1500 {
				break
			}
			k := people[next]
			next++
			for _, p := range []string{a, c} {
				b.rel(k, geoParents, p)
				if both {
					b.rel(p, geoChildren, k)
				}
			}
		}
	}
	// Leaders.
	for _, c := range countries {
		b.rel(c.id, geoLedBy, people[1500+r.IntN(500)])
	}

	// Organizations.
	var orgs []string
	for range 300 {
		city := allCities[cityDraw.draw(r)]
		c := cityOf[city]
		name := ng.fresh(func() string {
			base := pickOne(r, []string{ng.root(2), c.name, b.ents[b.byID[city]].Name})
			switch r.IntN(10) {
			case 0:
				return "National Museum of " + c.name
			case 1:
				return "Royal " + base + " Society"
			}
			return base + " " + pickOne(r, []string{"University", "Bank", "Airways", "Institute", "Petroleum", "Telecom", "Motors", "Shipping", "Press", "Mining"})
		})
		o := b.add(b.uniqueID("org:"+slug(name)), name, "organization")
		b.rel(o, geoHQ, city)
		if r.IntN(10) < 6 {
			for range 1 + r.IntN(2) {
				b.rel(o, geoFounder, people[r.IntN(len(people))])
			}
		}
		orgs = append(orgs, o)
	}
	orgDraw := newWeighted(zipfWeights(len(orgs), 0.6, 5))
	for _, p := range people {
		if r.IntN(2) == 0 {
			b.rel(p, geoEmployer, orgs[orgDraw.draw(r)])
		}
	}
}
