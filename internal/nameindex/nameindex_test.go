package nameindex

import (
	"strings"
	"testing"

	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/stretchr/testify/require"
)

// FuzzNameIndexStarts checks that the first-unit filter of Index.Match
// changes no answer: names are indexed (and some removed again), and every
// text matches the same with the filter as with none (starts nil). The
// input is names and a text separated by '|'; a name starting with '-'
// is removed after being added.
func FuzzNameIndexStarts(f *testing.F) {
	for _, s := range []string{
		"Project Apollo|Apollo|who works on project apollo?",
		"Spider-Man|Spider-Man 2|spiderman 2 and spider man",
		"张三|张三丰|Go语言|张三丰 and 张三 use Go语言",
		"New York|-New York City|New York City|new york city now",
		"a b c|a b|b c|a b c d",
		"ＡＰＩ Gateway|api gateway?",
		"Ocean's Eleven|oceans eleven|Ocean's  Eleven",
		"Gila monster|Gila|-Gila monsters|gila monsters and gilas",
		"Akinoshū Kenji|Ōsaka|akinoshu kenji in osaka and Ōsaka",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		parts := strings.Split(in, "|")
		text := parts[len(parts)-1]
		var x Index
		for i, name := range parts[:len(parts)-1] {
			name, drop := strings.CutPrefix(name, "-")
			ref := MakeRef(int32(i), i%2 == 1)
			x.Add(name, ref)
			if drop {
				x.Remove(name, ref)
			}
		}
		units := textrule.SplitUnits(text)
		always := func(Ref, string) bool { return true }
		got := x.Match(text, units, always)
		x.starts = nil
		require.Equal(t, x.Match(text, units, always), got, "%q", in)
	})
}

// TestMatch pins the rules of Match: the longest name wins and a name
// inside it is dropped, a name several entities bear is shared among them
// unless some spell it as the text does, an alias counts less than a
// name, and an entity named twice keeps its best mention.
func TestMatch(t *testing.T) {
	var x Index
	x.Add("Project Apollo", MakeRef(0, false))
	x.Add("Apollo", MakeRef(1, false))
	x.Add("Mercury", MakeRef(2, false))
	x.Add("mercury", MakeRef(3, false))
	x.Add("Gemini", MakeRef(4, true))
	x.Add("Apollos", MakeRef(5, false))
	x.Add("Bos", MakeRef(6, false))
	x.Add("Ab", MakeRef(7, false))
	x.Add("Akinoshū Kenji", MakeRef(8, false))
	cases := []struct {
		text    string
		spelled func(Ref, string) bool
		want    []Mention
	}{
		{"who works on project apollo?", nil, []Mention{{Ref: MakeRef(0, false), First: 3, Last: 4, Quality: NameQuality}}},
		{"apollo and project apollo", nil, []Mention{{Ref: MakeRef(0, false), First: 2, Last: 3, Quality: NameQuality}, {Ref: MakeRef(1, false), First: 0, Last: 0, Quality: NameQuality}}},
		{"MERCURY", nil, []Mention{{Ref: MakeRef(2, false), First: 0, Last: 0, Quality: NameQuality / 2}, {Ref: MakeRef(3, false), First: 0, Last: 0, Quality: NameQuality / 2}}},
		{"Mercury", func(r Ref, s string) bool { return r.Slot() == 2 }, []Mention{{Ref: MakeRef(2, false), First: 0, Last: 0, Quality: NameQuality}}},
		{"gemini", nil, []Mention{{Ref: MakeRef(4, true), First: 0, Last: 0, Quality: AliasQuality}}},
		{"nothing here", nil, nil},
		// A plural the index does not hold links the singular, as an
		// alias would; the plural of an alias counts as an alias twice.
		{"the project apollos", nil, []Mention{{Ref: MakeRef(0, false), First: 1, Last: 2, Quality: NameQuality * AliasQuality}}},
		{"two geminis", nil, []Mention{{Ref: MakeRef(4, true), First: 1, Last: 1, Quality: AliasQuality * AliasQuality}}},
		// A name the index holds as written wins over a singular.
		{"apollos", nil, []Mention{{Ref: MakeRef(5, false), First: 0, Last: 0, Quality: NameQuality}}},
		// Accents of Latin letters do not matter, either way round.
		{"who is akinoshu kenji", nil, []Mention{{Ref: MakeRef(8, false), First: 2, Last: 3, Quality: NameQuality}}},
		{"the apolló project", nil, []Mention{{Ref: MakeRef(1, false), First: 1, Last: 1, Quality: NameQuality}}},
		// Only words of more than three letters, not ending in "ss".
		{"the boss abs", nil, nil},
	}
	for _, c := range cases {
		spelled := c.spelled
		if spelled == nil {
			spelled = func(Ref, string) bool { return false }
		}
		got := x.Match(c.text, textrule.SplitUnits(c.text), spelled)
		require.Equal(t, c.want, got, "%q", c.text)
	}
	require.Equal(t, []Ref{MakeRef(2, false), MakeRef(3, false)}, x.Lookup([]byte(mustKey(t, "mercury")), nil))

	// Removing what was added leaves an index equal to one never given it.
	var y Index
	y.Add("Project Apollo", MakeRef(0, false))
	y.Add("Apollo", MakeRef(1, false))
	y.Add("Mercury", MakeRef(2, false))
	y.Add("mercury", MakeRef(3, false))
	y.Add("Gemini", MakeRef(4, true))
	y.Add("Apollos", MakeRef(5, false))
	y.Add("Bos", MakeRef(6, false))
	y.Add("Ab", MakeRef(7, false))
	y.Add("Akinoshū Kenji", MakeRef(8, false))
	y.Add("Vostok", MakeRef(9, false))
	require.False(t, x.Equal(&y))
	y.Remove("Vostok", MakeRef(9, false))
	require.True(t, x.Equal(&y))
}

func mustKey(t *testing.T, name string) string {
	k, _, ok := textrule.LinkKey(name)
	require.True(t, ok)
	return k
}
