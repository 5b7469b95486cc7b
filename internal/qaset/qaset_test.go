package qaset

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The sets are built once for the tests that only read them.
var (
	setsOnce sync.Once
	sets     []*Set
)

func allSets(t *testing.T) []*Set {
	t.Helper()
	setsOnce.Do(func() {
		var wg sync.WaitGroup
		sets = make([]*Set, 3)
		for i, mk := range []func() *Set{Movies, Org, Geo} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sets[i] = mk()
			}()
		}
		wg.Wait()
	})
	return sets
}

// specs returns the phrasing spec of each set, by set name.
func specs() map[string]*spec {
	return map[string]*spec{"movies": moviesSpec(), "org": orgSpec(), "geo": geoSpec()}
}

func TestDeterminism(t *testing.T) {
	built := allSets(t)
	for i, mk := range []func() *Set{Movies, Org, Geo} {
		want := built[i]
		t.Run(want.Name, func(t *testing.T) {
			t.Parallel()
			a := mk()
			if !reflect.DeepEqual(a, want) {
				t.Fatal("two calls returned different sets")
			}
			// Each call returns a fresh set: changing one changes no other.
			changed := false
			for j := range a.Entities {
				if len(a.Entities[j].Aliases) > 0 {
					a.Entities[j].Aliases[0] = "changed"
					if want.Entities[j].Aliases[0] == "changed" {
						t.Fatal("sets share alias lists")
					}
					changed = true
				}
			}
			if !changed {
				t.Fatal("no entity has an alias")
			}
			a.Vocabulary[a.Relations[0].Type][0] = "changed"
			a.TypeWords[a.Entities[0].Type][0] = "changed"
			if reflect.DeepEqual(a.Vocabulary, want.Vocabulary) || reflect.DeepEqual(a.TypeWords, want.TypeWords) {
				t.Fatal("sets share vocabularies")
			}
		})
	}
}

// refIndex is the test's own adjacency, built from the relation list.
type refIndex struct {
	out, in map[string][]Relation
}

func newRefIndex(rels []Relation) *refIndex {
	x := &refIndex{out: map[string][]Relation{}, in: map[string][]Relation{}}
	for _, r := range rels {
		x.out[r.Source] = append(x.out[r.Source], r)
		x.in[r.Target] = append(x.in[r.Target], r)
	}
	return x
}

// walk is a straightforward set-based execution of path: the state is the
// set of (entity, relation it was reached by) pairs, and a pair never
// goes back over its own relation.
func (x *refIndex) walk(topic string, path []Step) []string {
	type state struct {
		e   string
		via Relation
		has bool
	}
	cur := map[state]bool{{e: topic}: true}
	for _, st := range path {
		next := map[state]bool{}
		for s := range cur {
			adj := x.in[s.e]
			if st.Forward {
				adj = x.out[s.e]
			}
			for _, r := range adj {
				if r.Type != st.Type || s.has && r == s.via {
					continue
				}
				nb := r.Source
				if st.Forward {
					nb = r.Target
				}
				next[state{e: nb, via: r, has: true}] = true
			}
		}
		cur = next
	}
	seen := map[string]bool{}
	var out []string
	for s := range cur {
		if !seen[s.e] {
			seen[s.e] = true
			out = append(out, s.e)
		}
	}
	sort.Strings(out)
	return out
}

func TestConsistency(t *testing.T) {
	for _, s := range allSets(t) {
		t.Run(s.Name, func(t *testing.T) {
			ents := map[string]Entity{}
			for i, e := range s.Entities {
				if _, dup := ents[e.ID]; dup {
					t.Fatalf("duplicate entity ID %q", e.ID)
				}
				if i > 0 && s.Entities[i-1].ID >= e.ID {
					t.Fatalf("entities not sorted at %q", e.ID)
				}
				if e.ID == "" || e.Name == "" || e.Type == "" {
					t.Fatalf("entity %+v has an empty field", e)
				}
				ents[e.ID] = e
			}
			relTypes := map[string]bool{}
			for i, r := range s.Relations {
				if _, ok := ents[r.Source]; !ok {
					t.Fatalf("relation %+v: missing source", r)
				}
				if _, ok := ents[r.Target]; !ok {
					t.Fatalf("relation %+v: missing target", r)
				}
				if i > 0 {
					p := s.Relations[i-1]
					if [3]string{p.Source, p.Target, p.Type} == [3]string{r.Source, r.Target, r.Type} {
						t.Fatalf("duplicate relation %+v", r)
					}
					if p.Source > r.Source || p.Source == r.Source && (p.Target > r.Target || p.Target == r.Target && p.Type > r.Type) {
						t.Fatalf("relations not sorted at %+v", r)
					}
				}
				relTypes[r.Type] = true
			}
			x := newRefIndex(s.Relations)
			for _, q := range s.Questions {
				topic, ok := ents[q.Topic]
				if !ok {
					t.Fatalf("%q: topic %q does not exist", q.Text, q.Topic)
				}
				low := strings.ToLower(q.Text)
				named := strings.Contains(low, strings.ToLower(topic.Name))
				for _, a := range topic.Aliases {
					named = named || strings.Contains(low, strings.ToLower(a))
				}
				if !named {
					t.Errorf("%q does not name its topic %q", q.Text, topic.Name)
				}
				if strings.ContainsAny(q.Text, "{}[]|") {
					t.Errorf("%q has template syntax left", q.Text)
				}
				if q.Hops != len(q.Path) || q.Hops < 1 || q.Hops > 3 {
					t.Errorf("%q: Hops %d, path %v", q.Text, q.Hops, q.Path)
				}
				if q.Lang != "en" && q.Lang != "zh" || q.Template == "" {
					t.Errorf("%q: Lang %q, Template %q", q.Text, q.Lang, q.Template)
				}
				for _, st := range q.Path {
					if !relTypes[st.Type] {
						t.Errorf("%q: path names unknown relation type %q", q.Text, st.Type)
					}
				}
				want := x.walk(q.Topic, q.Path)
				if q.ExcludesTopic {
					want = slices.DeleteFunc(want, func(e string) bool { return e == q.Topic })
				}
				if len(q.Answers) == 0 || len(q.Answers) > 30 {
					t.Errorf("%q: %d answers", q.Text, len(q.Answers))
				}
				if !slices.Equal(q.Answers, want) {
					t.Errorf("%q (%s, %v): answers %v, re-execution gives %v", q.Text, q.Topic, q.Path, q.Answers, want)
				}
			}
		})
	}
}

func TestCoverage(t *testing.T) {
	for _, s := range allSets(t) {
		t.Run(s.Name, func(t *testing.T) {
			hops := map[int]int{}
			langs := map[string]int{}
			asked := map[string]bool{}
			para := 0
			for _, q := range s.Questions {
				hops[q.Hops]++
				langs[q.Lang]++
				for _, st := range q.Path {
					asked[st.Type] = true
				}
				if q.Paraphrase {
					para++
				}
			}
			for h := 1; h <= 3; h++ {
				if hops[h] == 0 {
					t.Errorf("no %d-hop questions", h)
				}
			}
			if s.Name == "org" && (langs["en"] == 0 || langs["zh"] == 0) {
				t.Errorf("org languages: %v", langs)
			}
			relTypes := map[string]bool{}
			for _, r := range s.Relations {
				relTypes[r.Type] = true
			}
			for rt := range relTypes {
				if !asked[rt] {
					t.Errorf("relation type %q is never asked about", rt)
				}
				if n := len(s.Vocabulary[rt]); n < 2 || n > 5 {
					t.Errorf("relation type %q has %d vocabulary entries", rt, n)
				}
			}
			for rt := range s.Vocabulary {
				if !relTypes[rt] {
					t.Errorf("vocabulary names unknown relation type %q", rt)
				}
			}
			for rt := range s.InverseVocabulary {
				if !relTypes[rt] {
					t.Errorf("inverse vocabulary names unknown relation type %q", rt)
				}
			}
			entTypes := map[string]bool{}
			for _, e := range s.Entities {
				entTypes[e.Type] = true
			}
			for et := range entTypes {
				if n := len(s.TypeWords[et]); n < 1 || n > 4 {
					t.Errorf("entity type %q has %d type words", et, n)
				}
			}
			if share := float64(para) / float64(len(s.Questions)); share < 0.3 {
				t.Errorf("only %.0f%% of questions are paraphrases", 100*share)
			}
			if c := vocabularyCoverage(s); c < 0.5 || c > 0.8 {
				t.Errorf("vocabulary covers %.0f%% of the relation wordings used, want about two thirds", 100*c)
			}
		})
	}
}

// TestPhrasings checks the phrasing inventory: every relation direction
// has at least four phrasings per language, at least one of which shares a
// stem with the relation name (when the name is in that language's script)
// and at least two of which do not.
func TestPhrasings(t *testing.T) {
	for name, sp := range specs() {
		for _, u := range sp.units {
			if len(u.steps) != 1 {
				continue
			}
			_, relHan := relationNameParts(u.steps[0].Type)
			for _, lang := range sp.langs {
				n, inflected, synonyms := 0, 0, 0
				for _, f := range u.frags {
					if f.lang != lang {
						continue
					}
					n++
					if f.para {
						synonyms++
					} else {
						inflected++
					}
				}
				sameScript := (relHan != "") == (lang == "zh")
				if n < 4 || synonyms < 2 || sameScript && inflected < 1 {
					t.Errorf("%s %s %s: %d phrasings, %d inflections, %d synonyms", name, u.code, lang, n, inflected, synonyms)
				}
			}
		}
	}
}

func TestParaphraseStems(t *testing.T) {
	for _, c := range []struct {
		wording, rel string
		shares       bool
	}{
		{"who directed", "directed", true},
		{"the director of", "directed", true},
		{"who made", "directed", false},
		{"who wrote", "writer", true},
		{"whose screenwriter", "writer", true},
		{"who penned", "writer", false},
		{"where was born", "people/person/place_of_birth", true},
		{"what is the hometown of", "people/person/place_of_birth", false},
		{"which region contains", "location/location/containedby", true},
		{"where is located", "location/location/containedby", false},
		{"向谁汇报", "汇报给", true},
		{"谁是的上级", "汇报给", false},
		{"who does report to", "汇报给", false},
		{"参与了哪些项目", "works_on", false},
		{"when was released", "released", true},
		{"when did come out", "released", false},
		{"how popular is", "popularity", true},
	} {
		if got := sharesStem(c.wording, c.rel); got != c.shares {
			t.Errorf("sharesStem(%q, %q) = %v", c.wording, c.rel, got)
		}
	}
}

// vocabularyCoverage is the share of the relation wordings used by a set's
// questions that some vocabulary phrase of their relation covers.
func vocabularyCoverage(s *Set) float64 {
	sp := specs()[s.Name]
	byKey := map[string]*frag{}
	units := map[string]*unit{}
	for _, u := range sp.units {
		for _, f := range u.frags {
			byKey[u.code+":"+f.id+"|"+f.lang] = f
			units[u.code+":"+f.id+"|"+f.lang] = u
		}
	}
	used := map[string]bool{}
	for _, q := range s.Questions {
		for _, part := range strings.Split(q.Template, "/") {
			if !strings.HasPrefix(part, "+") {
				used[part+"|"+q.Lang] = true
			}
		}
	}
	covered := 0
	for k := range used {
		f, u := byKey[k], units[k]
		if f == nil {
			panic("unknown template part " + k)
		}
		ok := false
		for _, st := range u.steps {
			phrases := slices.Clone(s.Vocabulary[st.Type])
			if !st.Forward && !u.pivot {
				phrases = append(phrases, s.InverseVocabulary[st.Type]...)
			}
			for _, p := range phrases {
				ok = ok || covers(p, f.wording())
			}
		}
		if ok {
			covered++
		}
	}
	return float64(covered) / float64(len(used))
}

func TestStats(t *testing.T) {
	for _, s := range allSets(t) {
		type key struct {
			hops int
			lang string
		}
		count := map[key]int{}
		para := map[key]int{}
		pivot := map[key]int{}
		tmpl := map[string]int{}
		outer := map[string]int{}
		topicAnswer, ambiguous := 0, 0
		names := map[string]int{}
		ent := map[string]Entity{}
		for _, e := range s.Entities {
			names[strings.ToLower(e.Name)]++
			ent[e.ID] = e
		}
		for _, q := range s.Questions {
			if names[strings.ToLower(ent[q.Topic].Name)] > 1 {
				ambiguous++
			}
			k := key{q.Hops, q.Lang}
			count[k]++
			if q.Paraphrase {
				para[k]++
			}
			if q.ExcludesTopic {
				pivot[k]++
			}
			if slices.Contains(q.Answers, q.Topic) {
				topicAnswer++
			}
			tmpl[fmt.Sprintf("%d %s %s", q.Hops, q.Lang, q.Template)]++
			parts := strings.Split(q.Template, "/")
			o := parts[0]
			if strings.HasPrefix(o, "+") && len(parts) > 1 {
				o = parts[1]
			}
			outer[fmt.Sprintf("%d %s %s", q.Hops, q.Lang, o)]++
		}
		t.Logf("%s: %d entities, %d relations, %d questions, %d with the topic among the answers, %d about a topic whose name another entity shares, vocabulary covers %.0f%% of wordings used",
			s.Name, len(s.Entities), len(s.Relations), len(s.Questions), topicAnswer, ambiguous, 100*vocabularyCoverage(s))
		var keys []key
		for k := range count {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i].hops < keys[j].hops || keys[i].hops == keys[j].hops && keys[i].lang < keys[j].lang
		})
		for _, k := range keys {
			t.Logf("  %d-hop %s: %d questions, %d paraphrases, %d pivots", k.hops, k.lang, count[k], para[k], pivot[k])
		}
		for _, m := range []struct {
			what string
			m    map[string]int
		}{{"outer phrasing", outer}, {"template", tmpl}} {
			var names []string
			for n := range m.m {
				names = append(names, n)
			}
			sort.Strings(names)
			t.Logf("  %d distinct %ss:", len(names), m.what)
			if m.what == "template" && !testing.Verbose() {
				continue
			}
			for _, n := range names {
				t.Logf("    %4d  %s", m.m[n], n)
			}
		}
	}
}

func BenchmarkSets(b *testing.B) {
	for _, mk := range []struct {
		name string
		f    func() *Set
	}{{"movies", Movies}, {"org", Org}, {"geo", Geo}} {
		b.Run(mk.name, func(b *testing.B) {
			for b.Loop() {
				mk.f()
			}
		})
	}
}

func TestSeeded(t *testing.T) {
	if Seeded("weather", 1) != nil {
		t.Fatal("an unknown name returned a set")
	}
	built := allSets(t)
	for _, want := range built[1:] { // movies is the slowest to build; org and geo cover the switch
		t.Run(want.Name, func(t *testing.T) {
			a, b := Seeded(want.Name, 7), Seeded(want.Name, 7)
			if !reflect.DeepEqual(a, b) {
				t.Fatal("two calls with one seed returned different sets")
			}
			if a.Name != want.Name || len(a.Questions) == 0 {
				t.Fatalf("set %q with %d questions", a.Name, len(a.Questions))
			}
			if reflect.DeepEqual(a.Questions, want.Questions) {
				t.Fatal("another seed returned the same questions")
			}
			if !reflect.DeepEqual(a.Vocabulary, want.Vocabulary) {
				t.Fatal("another seed changed the vocabulary")
			}
		})
	}
}
