package question

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitName(t *testing.T) {
	type part struct {
		stem   string
		weight float64
	}
	parts := func(name string) []part {
		var out []part
		for _, p := range splitName(name) {
			out = append(out, part{p.stem, p.Weight})
		}
		return out
	}
	tests := []struct {
		name string
		want []part
	}{
		{"directed_by", []part{{"direct", 1}}},
		{"directedBy", []part{{"direct", 1}}},
		{"people/person/spouse_s", []part{{"peopl", domainWeight}, {"person", domainWeight}, {"spous", 1}}},
		{"__film__film__written_by", []part{{"film", domainWeight}, {"film", domainWeight}, {"writ", 1}}},
		{"has_imdb_rating", []part{{"imdb", 1}, {"rat", 1}}},
		{"汇报给", []part{{"汇报给", 1}}},
		{"works_on", []part{{"work", 1}}},
		{"in", []part{{"in", 1}}}, // only stop words: kept
		{"", nil},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, parts(tt.name), tt.name)
	}
	// The lexicon's concepts reach the parts, phrases included: "work on".
	wo := splitName("works_on")
	require.True(t, slices.ContainsFunc(wo[0].senses, func(s sense) bool { return concepts[s.concept].Name == "work-on" }))
}

func TestQuestionCues(t *testing.T) {
	cueStems := func(text string, spans ...[2]int) []string {
		q := Analyze(text, spans)
		var out []string
		for _, c := range q.Cues {
			out = append(out, c.stem)
		}
		return out
	}
	tests := []struct {
		text string
		want []string
	}{
		{"which films did Tom Hanks star in", []string{"film"}},
		{"who directed Alien", []string{"who"}},
		{"what is the genre of Alien", []string{"genr"}},
		{"List the producers of Alien", []string{"produc"}},
		{"please name the country of Alien", []string{"countri"}},
		{"where was Ann born", []string{"wher"}},
		{"张三负责什么项目？", []string{"项目"}},
		{"高磊所在的团队是哪个？", []string{"团队"}},
		{"谁是张三的经理", []string{"谁"}},
		// 在哪个 asks "in which", not "where".
		{"高磊在哪个团队", []string{"团队"}},
		// A verb sharing a stem with a role noun is no cue: "directed" is
		// not "director".
		{"Give me the films directed by Ann", []string{"film"}},
		// After which/what, an auxiliary puts the subject next: "people"
		// speaks, it is not what is asked for.
		{"what do people speak in the films made by Ann", nil},
		{"what have the actors of Alien written", nil},
		// A wh-word after a noun opens a relative clause; after a word
		// that frames a question, or at the start, it asks.
		{"what are the films by the people who penned Alien", []string{"film"}},
		{"the films of the city where Ann was born", nil},
		{"the director's partner who lives in Rome", nil},
		{"Any idea who directed Alien", []string{"who"}},
		{"tell me who penned Alien", []string{"who"}},
		{"I was wondering who composed the music for Alien", []string{"who"}},
		{"Alien was directed by whom", []string{"whom"}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, cueStems(tt.text), tt.text)
	}
}

func TestQuestionSyntax(t *testing.T) {
	// syntaxOf of the word at the given unit.
	tests := []struct {
		text          string
		word          string
		noun, passive bool
	}{
		{"who is Bob's manager", "manager", true, false},
		{"who is the director of Alien", "director", true, false},
		{"films directed by Ann", "directed", false, true},
		{"Alien was directed by whom", "directed", false, true},
		{"who reports to Bob", "reports", false, false},
		{"张三的导演是谁", "导", true, false},
		{"被张三导演的电影", "导", false, false}, // the agent before the verb, as in the active
	}
	for _, tt := range tests {
		q := Analyze(tt.text, nil)
		i := slices.IndexFunc(q.Units, func(u Unit) bool { return u.fold == tt.word })
		require.GreaterOrEqual(t, i, 0, tt.text)
		last := i
		if !q.Units[i].word {
			last = i + 1
		}
		noun, passive := q.syntaxOf(i, last)
		require.Equal(t, []bool{tt.noun, tt.passive}, []bool{noun, passive}, tt.text)
	}
}

func TestQuestionPivot(t *testing.T) {
	for text, want := range map[string]bool{
		"which films share actors with Alien":   true,
		"who has the same manager as Bob":       true,
		"who co-starred with Ann":               true,
		"谁和张三在同一个团队":                            true,
		"what is Ann's other half's job":        false, // "other half" is a phrase for a spouse
		"Daniel Fisher的导师都有哪些人":                 false,
		"who directed the films Ann starred in": false,
	} {
		require.Equal(t, want, Analyze(text, nil).Pivot, text)
	}
	// A "co-" compound says which relation is shared: the unit of its
	// word, or -1.
	pivotAt := func(text string) string {
		q := Analyze(text, nil)
		for i := range q.Units {
			if q.PivotAt&q.Span(i, i) != 0 {
				return q.Units[i].fold
			}
		}
		return ""
	}
	for text, want := range map[string]string{
		"what did Ann's co-stars write":        "stars",
		"who co-founded Acme with Bob":         "founded",
		"which films share actors with Alien":  "",
		"who co starred with Ann":              "", // no hyphen: no compound
		"Ann's coworkers":                      "",
		"the co- and lead writers of Alien":    "",
		"who has the same manager as Bob's co": "",
	} {
		require.Equal(t, want, pivotAt(text), text)
	}
	// The word before a "with" outside a lexicon phrase.
	pivotWith := func(text string) []string {
		q := Analyze(text, nil)
		var out []string
		for i := range q.Units {
			if q.PivotWith&q.Span(i, i) != 0 {
				out = append(out, q.Units[i].fold)
			}
		}
		return out
	}
	for text, want := range map[string][]string{
		"the films directed by the people who acted with Ann": {"acted"},
		"who wrote scripts with Ann":                          {"scripts"},
		"which projects are built with Rust":                  nil, // "built with" is a phrase for use
		"the films with music by Ann":                         {"films"},
		"who works with Ann":                                  {"works"},
		"with Ann, who directed Alien":                        nil,
	} {
		require.Equal(t, want, pivotWith(text), text)
	}
}

func TestMatchRelationTerms(t *testing.T) {
	// How strongly each word of a question names a relation type.
	strength := func(text, relation string, v *Vocab) map[string]float64 {
		q := Analyze(text, nil)
		out := map[string]float64{}
		for _, tm := range q.MatchRelation(relation, v).Terms {
			out[text[tm.Start:tm.End]] = max(out[text[tm.Start:tm.End]], tm.Strength)
		}
		return out
	}
	require.Equal(t, map[string]float64{"directed": strengthExact}, strength("who directed it", "directed_by", nil))
	require.Equal(t, map[string]float64{"director": strengthStem}, strength("the director of it", "directed_by", nil))
	require.Equal(t, map[string]float64{"couple": strengthLexicon}, strength("her couple's job", "spouse", nil))
	require.Equal(t, map[string]float64{"other half": strengthIdiom}, strength("her other half", "spouse", nil))
	require.Equal(t, map[string]float64{"负责": strengthLexicon}, strength("张三负责什么", "works_on", nil))
	require.Equal(t, map[string]float64{"导演": strengthExact}, strength("英雄的导演是谁", "导演", nil))
	// "Where does X work" is one phrase that names the employer.
	for q, w := range map[string]string{"Maria在哪里工作？": "在哪里工作", "Maria去年在哪儿上班？": "在哪儿上班"} {
		require.Equal(t, strengthLexicon, strength(q, "works_at", nil)[w], q)
	}
	require.Equal(t, map[string]float64{"住在": strengthLexicon, "在哪": strengthLexicon, "哪里": strengthLexicon}, strength("Maria住在哪里？", "lives_in", nil))
	require.NotContains(t, strength("Maria住在哪里？", "works_at", nil), "在哪里工作")
	require.Equal(t, map[string]float64{"screenwriter": strengthLexicon}, strength("the screenwriter of it", "writer", nil))
	require.Equal(t, map[string]float64{"son": strengthLexicon * inverseSense}, strength("her son", "parents", nil))
	v := CompileVocab(map[string][]string{"directed_by": {"who made"}}, nil, nil)
	require.Equal(t, map[string]float64{"made": strengthVocab}, strength("made it", "directed_by", v))
	require.Empty(t, strength("the weather", "directed_by", v))

	// A phrase that repeats the name's own match is that match: one term,
	// at the phrase's strength, spanning the phrase's words too.
	v = CompileVocab(map[string][]string{"directed_by": {"director"}, "released": {"release year"}}, nil, nil)
	q := Analyze("the director of it", nil)
	terms := q.MatchRelation("directed_by", v).Terms
	require.Len(t, terms, 1)
	require.Equal(t, strengthVocab, terms[0].Strength)
	require.Equal(t, 0, terms[0].Part)
	q = Analyze("the release years of it", nil)
	terms = q.MatchRelation("released", v).Terms
	require.Len(t, terms, 1)
	require.Equal(t, q.Span(1, 2), terms[0].Mask, "release years")
	require.Equal(t, "release", "the release years of it"[terms[0].Start:terms[0].End])
	// The other way round, a phrase is a reading of its own.
	v = CompileVocab(nil, map[string][]string{"directed_by": {"director"}}, nil)
	require.Len(t, Analyze("the director of it", nil).MatchRelation("directed_by", v).Terms, 2)
}

// TestSequelVerbs pins the direction of the sequel concept's verbs: "Z
// came after X" says what "Z follows X" says, so it reads as the relation
// follows does, and "came before" the other way round; the graph walk then
// reads the direction from the verb's place (see walk.wantForward).
func TestSequelVerbs(t *testing.T) {
	read := func(text string) bool {
		terms := Analyze(text, nil).MatchRelation("follows", nil).Terms
		require.Len(t, terms, 1, text)
		return terms[0].Inverse
	}
	for text, want := range map[string]bool{
		"what came after Alien":     false,
		"what came before Alien":    true,
		"which film precedes Alien": true,
		"what follows Alien":        false,
		"the sequel of Alien":       true,
	} {
		require.Equal(t, want, read(text), text)
	}
}

// TestJoinAlternatives pins that two words of one relation joined by "or"
// are one mention: one term spanning both.
func TestJoinAlternatives(t *testing.T) {
	spans := func(text string) []string {
		var out []string
		for _, tm := range Analyze(text, nil).MatchRelation("spouse", nil).Terms {
			out = append(out, text[tm.Start:tm.End])
		}
		slices.Sort(out)
		return out
	}
	require.Equal(t, []string{"husband or wife"}, spans("who is the husband or wife of Ann"))
	require.Equal(t, []string{"丈夫或妻子"}, spans("Ann的丈夫或妻子是谁"))
	// "and" joins two things, not two words for one: both stay.
	require.Equal(t, []string{"husband", "wife"}, spans("the husband and the wife of Ann"))
	require.Equal(t, []string{"wife"}, spans("who is the wife of Ann"))
}

// TestSpelledPhraseWins pins how registered phrases that share a stem but
// are registered opposite ways round read: the question's word takes the
// direction of the phrase it spells; a word both phrases spell, or
// neither, keeps both readings.
func TestSpelledPhraseWins(t *testing.T) {
	// readings returns, per word of the question matched by a registered
	// phrase (Part -1) or the name, the directions it is read in.
	readings := func(text, name string, v *Vocab) map[string][]bool {
		q := Analyze(text, nil)
		out := map[string][]bool{}
		for _, tm := range q.MatchRelation(name, v).Terms {
			w := text[tm.Start:tm.End]
			if !slices.Contains(out[w], tm.Inverse) {
				out[w] = append(out[w], tm.Inverse)
				if len(out[w]) == 2 {
					out[w] = []bool{false, true}
				}
			}
		}
		return out
	}
	v := CompileVocab(map[string][]string{"boss_of": {"manager"}}, map[string][]string{"boss_of": {"manages"}}, nil)
	require.Equal(t, map[string][]bool{"manager": {false}}, readings("who is the manager of Bob", "boss_of", v))
	require.Equal(t, map[string][]bool{"manages": {true}}, readings("who manages Bob", "boss_of", v))
	// "managers" spells neither phrase: both readings stay.
	require.Equal(t, map[string][]bool{"managers": {false, true}}, readings("the managers of Bob", "boss_of", v))
	// Both phrases spell "mentor": both readings stay.
	v = CompileVocab(map[string][]string{"guide_of": {"mentor"}}, map[string][]string{"guide_of": {"mentor", "mentees"}}, nil)
	require.Equal(t, map[string][]bool{"mentor": {false, true}}, readings("the mentor of Bob", "guide_of", v))
	// A phrase absorbed by the name's own match still spells its words.
	v = CompileVocab(map[string][]string{"manager": {"manager"}}, map[string][]string{"manager": {"manages"}}, nil)
	require.Equal(t, map[string][]bool{"manager": {false}}, readings("the manager of Bob", "manager", v))
}

// TestOfHeadAndMainClause pins the two readings orderKey uses to place a
// verb after a name: the noun heading "the N of <name>", and whether an
// auxiliary makes that verb the main clause's.
func TestOfHeadAndMainClause(t *testing.T) {
	unit := func(q *Analysis, word string) int {
		for i, u := range q.Units {
			if u.fold == word {
				return i
			}
		}
		t.Fatalf("no unit %q", word)
		return -1
	}
	for _, tt := range []struct {
		text, name, head string // head "" : none
		verb             string
		main             bool
	}{
		{"the movies the director of Alpha penned", "alpha", "director", "penned", false},
		{"the movies the director of the Alpha films penned", "alpha", "director", "penned", false},
		{"the films written by the director of Alpha were directed by whom", "alpha", "director", "directed", true},
		{"the films the cast of Alpha did produce", "alpha", "cast", "produce", true},
		{"the movies Alpha penned", "alpha", "", "penned", false},
		{"of Alpha", "alpha", "", "", false},
	} {
		q := Analyze(tt.text, nil)
		first := unit(q, tt.name)
		want := -1
		if tt.head != "" {
			want = unit(q, tt.head)
		}
		require.Equal(t, want, q.OfHead(first), tt.text)
		if tt.verb != "" {
			require.Equal(t, tt.main, q.MainClauseBetween(first, unit(q, tt.verb)), tt.text)
		}
	}
}
