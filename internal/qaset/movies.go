package qaset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Movies returns a film knowledge graph in the spirit of WikiMovies/MetaQA,
// with its own relation names, and about 700 English questions for each
// of 1, 2 and 3 hops.
//
// Entity types: "movie" (8,000, some with the same title: their IDs end in
// the release year), "person" (12,000; directors, writers, actors,
// composers, producers, some in several roles), "genre" (25), "language"
// (30), "year" (80), "tag" (600), "country" (12), "rating" (critics'
// scores such as "7.3") and "popularity" (5 levels).
//
// Relation types: directed and acted_in (person → movie); writer,
// composer, producer, genre, original_language, released, tagged_with,
// rated, popularity and origin_country (movie → value); follows (sequel →
// the film it follows). Popularity levels and the big genres, languages,
// years and countries are hubs: questions walk back from them only at the
// topic, and a popularity level is in practice asked about only forward,
// since every level has more than 30 films.
func Movies() *Set { return moviesSet(rand.New(rand.NewPCG(0x6b676d656d, 0x6d6f76696573))) }

func moviesSet(rng *rand.Rand) *Set {
	b := newBuilder()
	buildMovies(b, rng)
	x := b.finish()
	qs := generate(x, moviesSpec(), rng)
	return &Set{
		Name:              "movies",
		Entities:          x.ents,
		Relations:         x.rels,
		Vocabulary:        moviesVocabulary(),
		InverseVocabulary: map[string][]string{"follows": {"sequel", "followed by", "came after"}},
		TypeWords: map[string][]string{
			"movie":      {"film", "movie", "picture"},
			"person":     {"person", "people", "actor", "director"},
			"genre":      {"genre", "kind of film"},
			"language":   {"language"},
			"year":       {"year"},
			"tag":        {"tag", "theme", "topic"},
			"country":    {"country", "nation"},
			"rating":     {"rating", "score"},
			"popularity": {"popularity"},
		},
		Questions: qs,
	}
}

func moviesVocabulary() map[string][]string {
	return map[string][]string{
		"directed":          {"directed", "director", "made"},
		"acted_in":          {"acted in", "actor", "starred", "cast"},
		"writer":            {"writer", "wrote", "written by", "screenplay"},
		"composer":          {"composer", "music", "score", "soundtrack"},
		"producer":          {"producer", "produced"},
		"genre":             {"genre", "kind of film", "type of movie"},
		"original_language": {"language", "original language", "speak"},
		"released":          {"released", "release year", "came out"},
		"tagged_with":       {"tagged", "tags", "themes", "keywords"},
		"rated":             {"rating", "rated"},
		"popularity":        {"popularity", "popular"},
		"origin_country":    {"country", "country of origin"},
		"follows":           {"follows", "prequel"},
	}
}

type film struct {
	title string
	year  int
	root  int // index of the first film of a series (itself if none)
	prev  int // the film this one follows, or -1
	part  int // 1 for an original, 2 for its first sequel, ...
	id    string
}

func buildMovies(b *builder, r *rand.Rand) {
	// Years: recent years have far more films.
	var years []string
	var yearW []float64
	for y := 1943; y <= 2022; y++ {
		years = append(years, b.add(fmt.Sprintf("year:%d", y), fmt.Sprint(y), "year"))
		yearW = append(yearW, math.Exp(float64(y-1943)/15))
	}
	yearDraw := newWeighted(yearW)

	var genres []string
	for _, g := range genreNames {
		var al []string
		switch g {
		case "Science Fiction":
			al = []string{"sci-fi"}
		case "Film Noir":
			al = []string{"noir"}
		}
		genres = append(genres, b.add("genre:"+slug(g), g, "genre", al...))
	}
	genreDraw := newWeighted(genreWeights)
	var langs []string
	for _, l := range languageNames {
		langs = append(langs, b.add("language:"+slug(l), l, "language"))
	}
	langDraw := newWeighted(languageWeights)

	countries := map[string]string{}
	for _, c := range []struct {
		name    string
		aliases []string
	}{
		{"United States", []string{"USA", "America"}}, {"United Kingdom", []string{"UK", "Britain"}},
		{"France", nil}, {"Germany", nil}, {"Italy", nil}, {"Spain", nil}, {"Japan", nil}, {"India", nil},
		{"China", nil}, {"South Korea", []string{"Korea"}}, {"Iceland", nil}, {"New Zealand", []string{"NZ"}},
	} {
		countries[c.name] = b.add("country:"+slug(c.name), c.name, "country", c.aliases...)
	}
	countryOf := func(lang string) string {
		switch lang {
		case "English":
			switch x := r.Float64(); {
			case x < 0.003:
				return "Iceland"
			case x < 0.008:
				return "New Zealand"
			case x < 0.25:
				return "United Kingdom"
			}
			return "United States"
		case "French":
			return "France"
		case "Spanish":
			return "Spain"
		case "Hindi", "Tamil", "Telugu":
			return "India"
		case "Japanese":
			return "Japan"
		case "German":
			return "Germany"
		case "Italian":
			return "Italy"
		case "Korean":
			return "South Korea"
		case "Mandarin", "Cantonese":
			return "China"
		case "Icelandic":
			return "Iceland"
		case "Maori":
			return "New Zealand"
		}
		return pickOne(r, []string{"United States", "United Kingdom", "France", "Germany", "Italy", "Spain"})
	}

	// Tags.
	tagNames := append([]string(nil), baseTags...)
	var combos []string
	for _, m := range tagModifiers {
		for _, h := range tagHeads {
			combos = append(combos, m+" "+h)
		}
	}
	r.Shuffle(len(combos), func(i, j int) { combos[i], combos[j] = combos[j], combos[i] })
	seenTag := map[string]bool{}
	for _, t := range tagNames {
		seenTag[t] = true
	}
	for _, c := range combos {
		if len(tagNames) >= 600 {
			break
		}
		if !seenTag[c] {
			seenTag[c] = true
			tagNames = append(tagNames, c)
		}
	}
	r.Shuffle(len(tagNames), func(i, j int) { tagNames[i], tagNames[j] = tagNames[j], tagNames[i] })
	var tags []string
	for _, t := range tagNames {
		tags = append(tags, b.add("tag:"+slug(t), t, "tag"))
	}
	tagDraw := newWeighted(zipfWeights(len(tags), 1.0, 3))

	popNames := []string{"Blockbuster", "Mainstream", "Modest", "Niche", "Obscure"}
	var pops []string
	for _, p := range popNames {
		pops = append(pops, b.add("popularity:"+slug(p), p, "popularity"))
	}
	popDraw := newWeighted([]float64{5, 20, 35, 30, 10})

	// People.
	people := moviePeople(b, r, 12000)
	perm := r.Perm(len(people))
	pool := func(parts ...[]int) []string {
		var out []string
		for _, p := range parts {
			for _, i := range p {
				out = append(out, people[i])
			}
		}
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	dirs := perm[0:1700]
	writersOnly := perm[1700:3300]
	actorsOnly := perm[3300:10500]
	compOnly := perm[10500:10950]
	prodOnly := perm[10950:12000]
	directors := pool(dirs)
	writers := pool(writersOnly, dirs[0:900])
	actors := pool(actorsOnly, dirs[900:1200], writersOnly[0:150])
	composers := pool(compOnly)
	producers := pool(prodOnly, dirs[1200:1450], actorsOnly[0:200])

	films := movieFilms(r, yearDraw)
	seenID := map[string]bool{}
	dup := map[string]bool{}
	for _, t := range duplicateTitles {
		dup[t] = true
	}
	for i := range films {
		f := &films[i]
		base := "movie:" + slug(f.title)
		if dup[f.title] {
			base += fmt.Sprintf("_%d", f.year)
		}
		id := base
		for n := 2; seenID[id]; n++ {
			id = fmt.Sprintf("%s_%d", base, n)
		}
		seenID[id] = true
		f.id = id
		var al []string
		if plain := plainTitle(f.title); plain != f.title && plain != "" {
			al = append(al, plain)
		}
		b.add(id, f.title, "movie", al...)
	}

	// Counts per film for each role, then slots dealt by a power law.
	n := len(films)
	nDir, nWri, nAct, nCom, nPro := make([]int, n), make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	var tDir, tWri, tAct, tCom, tPro int
	for i := range films {
		nDir[i] = 1
		if r.Float64() < 0.04 {
			nDir[i] = 2
		}
		nWri[i] = 1
		if r.Float64() < 0.3 {
			nWri[i] = 2
		}
		nAct[i] = 3 + r.IntN(4)
		if r.Float64() < 0.75 {
			nCom[i] = 1
		}
		switch x := r.Float64(); {
		case x < 0.55:
			nPro[i] = 1
		case x < 0.8:
			nPro[i] = 2
		}
		tDir += nDir[i]
		tWri += nWri[i]
		tAct += nAct[i]
		tCom += nCom[i]
		tPro += nPro[i]
	}
	dealer := func(members []string, total int, s float64) func() string {
		slots := degreeSlots(r, len(members), total, s)
		k := 0
		return func() string {
			m := members[slots[k%len(slots)]]
			k++
			return m
		}
	}
	nextDir := dealer(directors, tDir, 0.9)
	nextWri := dealer(writers, tWri, 0.8)
	nextAct := dealer(actors, tAct, 0.9)
	nextCom := dealer(composers, tCom, 0.8)
	nextPro := dealer(producers, tPro, 0.8)

	filmDirs := make([][]string, n)
	filmActs := make([][]string, n)
	for i := range films {
		f := films[i]
		m := f.id
		b.rel(m, "released", years[f.year-1943])
		for _, g := range genreDraw.drawDistinct(r, pickOne(r, []int{1, 1, 1, 2, 2, 2, 2, 3, 3})) {
			b.rel(m, "genre", genres[g])
		}
		li := langDraw.draw(r)
		b.rel(m, "original_language", langs[li])
		b.rel(m, "origin_country", countries[countryOf(languageNames[li])])
		if r.Float64() < 0.05 {
			l2 := langDraw.draw(r)
			b.rel(m, "original_language", langs[l2])
		}
		if r.Float64() < 0.08 {
			b.rel(m, "origin_country", countries[pickOne(r, []string{"United States", "United Kingdom", "France", "Germany"})])
		}
		for _, t := range tagDraw.drawDistinct(r, pickOne(r, []int{0, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5})) {
			b.rel(m, "tagged_with", tags[t])
		}
		score := math.Round(math.Max(1.5, math.Min(9.6, 6.4+r.NormFloat64()*1.0))*10) / 10
		rid := fmt.Sprintf("rating:%.1f", score)
		if !b.has(rid) {
			b.add(rid, fmt.Sprintf("%.1f", score), "rating")
		}
		b.rel(m, "rated", rid)
		b.rel(m, "popularity", pops[popDraw.draw(r)])

		for range nDir[i] {
			d := nextDir()
			filmDirs[i] = append(filmDirs[i], d)
			b.rel(d, "directed", m)
		}
		for range nWri[i] {
			b.rel(m, "writer", nextWri())
		}
		if r.Float64() < 0.35 {
			b.rel(m, "writer", filmDirs[i][0])
		}
		for range nAct[i] {
			a := nextAct()
			filmActs[i] = append(filmActs[i], a)
			b.rel(a, "acted_in", m)
		}
		if r.Float64() < 0.04 {
			b.rel(filmDirs[i][0], "acted_in", m)
		}
		for range nCom[i] {
			b.rel(m, "composer", nextCom())
		}
		for range nPro[i] {
			b.rel(m, "producer", nextPro())
		}
		if f.prev >= 0 {
			p := films[f.prev]
			b.rel(m, "follows", p.id)
			// Sequels keep the director and some of the cast.
			if r.Float64() < 0.8 && len(filmDirs[f.prev]) > 0 {
				b.rel(filmDirs[f.prev][0], "directed", m)
			}
			for k, a := range filmActs[f.prev] {
				if k < 2 {
					b.rel(a, "acted_in", m)
				}
			}
		}
	}
}

// plainTitle drops a title's punctuation, as users often do.
func plainTitle(t string) string {
	var sb strings.Builder
	for _, c := range t {
		switch {
		case c == '\'' || c == '.' || c == '!' || c == '?' || c == ',' || c == ':':
		case c == '-' || c == '–' || c == '/' || c == '&':
			sb.WriteByte(' ')
		default:
			sb.WriteRune(c)
		}
	}
	return strings.Join(strings.Fields(sb.String()), " ")
}

// moviePeople adds n people with unique names; first and last names are
// drawn unevenly so that many people share one of them.
func moviePeople(b *builder, r *rand.Rand, n int) []string {
	fd := newWeighted(zipfWeights(len(firstNames), 0.8, 4))
	ld := newWeighted(zipfWeights(len(lastNames), 0.7, 4))
	first := append([]string(nil), firstNames...)
	last := append([]string(nil), lastNames...)
	r.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
	r.Shuffle(len(last), func(i, j int) { last[i], last[j] = last[j], last[i] })
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		name := first[fd.draw(r)] + " "
		if r.Float64() < 0.05 {
			name += string(rune('A'+r.IntN(26))) + ". "
		}
		name += strings.ReplaceAll(last[ld.draw(r)], "_", " ")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, b.add(b.uniqueID("person:"+slug(name)), name, "person"))
	}
	return out
}

// movieFilms makes the films' titles, years and series.
func movieFilms(r *rand.Rand, yearDraw *weighted) []film {
	const total, sequels = 8000, 300
	seen := map[string]bool{}
	var titles []string
	addTitle := func(t string) bool {
		k := strings.ToLower(t)
		if seen[k] {
			return false
		}
		seen[k] = true
		titles = append(titles, t)
		return true
	}
	for _, group := range [][]string{commonWordTitles, phraseTitles, punctTitles, longTitles} {
		for _, t := range group {
			addTitle(t)
		}
	}
	for _, t := range duplicateTitles {
		addTitle(t)
		titles = append(titles, t) // the second film of that name
	}
	for len(titles) < total-sequels {
		addTitle(genTitle(r))
	}
	r.Shuffle(len(titles), func(i, j int) { titles[i], titles[j] = titles[j], titles[i] })
	films := make([]film, 0, total)
	dupYears := map[string]int{}
	for i, t := range titles {
		y := 1943 + yearDraw.draw(r)
		if py, ok := dupYears[t]; ok {
			for y == py {
				y = 1943 + yearDraw.draw(r)
			}
		}
		dupYears[t] = y
		films = append(films, film{title: t, year: y, root: i, prev: -1, part: 1})
	}
	last := map[int]int{} // series root -> latest film
	romans := []string{"", "", "II", "III", "IV", "V", "VI"}
	words := []string{"", "", "Two", "Three", "Four", "Five", "Six"}
	for made := 0; made < sequels; {
		j := r.IntN(len(titles))
		if films[j].prev >= 0 {
			continue
		}
		p := j
		if l, ok := last[j]; ok {
			p = l
		}
		pf := films[p]
		if pf.year >= 2020 || pf.part >= 6 || len(strings.Fields(pf.title)) > 6 {
			continue
		}
		part := pf.part + 1
		root := films[j].title
		var t string
		switch r.IntN(4) {
		case 0:
			t = fmt.Sprintf("%s %d", root, part)
		case 1:
			t = root + " " + romans[part]
		case 2:
			t = root + ": Part " + words[part]
		default:
			t = root + ": " + pickOne(r, titleAdjectives) + " " + pickOne(r, titleNouns)
		}
		if !addTitle(t) {
			continue
		}
		y := pf.year + 1 + r.IntN(4)
		if y > 2022 {
			y = 2022
		}
		films = append(films, film{title: t, year: y, root: j, prev: p, part: part})
		last[j] = len(films) - 1
		made++
	}
	return films
}

// genTitle makes a film title from word lists.
func genTitle(r *rand.Rand) string {
	adj := func() string { return pickOne(r, titleAdjectives) }
	noun := func() string { return pickOne(r, titleNouns) }
	place := func() string { return pickOne(r, titlePlaces) }
	first := func() string { return pickOne(r, firstNames) }
	switch r.IntN(20) {
	case 0, 1, 2:
		return "The " + adj() + " " + noun()
	case 3, 4:
		return adj() + " " + noun()
	case 5:
		return "The " + noun() + " of " + place()
	case 6:
		return noun() + " in " + place()
	case 7:
		return "The " + noun() + "'s " + noun()
	case 8:
		return first() + "'s " + noun()
	case 9:
		return noun() + " and " + noun()
	case 10:
		return "The Last " + noun()
	case 11:
		return "Return to " + place()
	case 12:
		return place() + " " + noun()
	case 13:
		n := noun()
		if strings.ContainsRune("AEIOU", rune(n[0])) {
			return "An " + n + " for " + first()
		}
		return "A " + n + " for " + first()
	case 14:
		return noun() + " of the " + adj() + " " + noun()
	case 15:
		return adj() + " " + plural(noun())
	case 16:
		return "Beyond the " + noun()
	case 17:
		return noun() + ": " + adj() + " " + noun()
	case 18:
		return "The " + noun() + " Who " + pickOne(r, titleVerbs)
	}
	return pickOne(r, titleNumbers) + " " + plural(noun())
}

// plural is the plural of an English noun from the title lists.
func plural(n string) string {
	switch n {
	case "Wolf":
		return "Wolves"
	case "Thief":
		return "Thieves"
	case "Knife":
		return "Knives"
	case "Widow", "Shadow", "Window", "Echo":
		return n + "s"
	case "Ash", "Witness", "Waltz", "Compass", "Circus", "Maze", "Dust", "Smoke", "Blood", "Gold", "Silk", "Ice", "Jury":
		return n // uncountable or awkward: keep singular
	}
	switch {
	case strings.HasSuffix(n, "y") && !strings.ContainsRune("aeiou", rune(n[len(n)-2])):
		return n[:len(n)-1] + "ies"
	case strings.HasSuffix(n, "s") || strings.HasSuffix(n, "sh") || strings.HasSuffix(n, "ch") || strings.HasSuffix(n, "x"):
		return n + "es"
	}
	return n + "s"
}
