package textrule

import (
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestSplitUnits(t *testing.T) {
	tests := []struct {
		in   string
		want []Unit
	}{
		{"", nil},
		{"Project Apollo?", []Unit{{"project", 0, 7, true}, {"apollo", 8, 14, true}}},
		{"张三负责", []Unit{{"张", 0, 3, false}, {"三", 3, 6, false}, {"负", 6, 9, false}, {"责", 9, 12, false}}},
		{"Go语言", []Unit{{"go", 0, 2, true}, {"语", 2, 5, false}, {"言", 5, 8, false}}},
		{"ＡＰＩ\xffx", []Unit{{"api", 0, 9, true}, {"x", 10, 11, true}}},
		{"!?", nil},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, SplitUnits(tt.in), "%q", tt.in)
	}
}

// splitUnitsRef is SplitUnits written plainly, one string per unit: the
// reference FuzzSplitUnits checks the shared-buffer version against.
func splitUnitsRef(text string) []Unit {
	var units []Unit
	var word []byte
	wordStart := -1
	endWord := func(at int) {
		if wordStart >= 0 {
			units = append(units, Unit{Key: string(word), Start: wordStart, End: at, Word: true})
			word, wordStart = word[:0], -1
		}
	}
	for i := 0; i < len(text); {
		r, size := Decode(text, i)
		switch {
		case r != utf8.RuneError && IsCJK(r):
			endWord(i)
			units = append(units, Unit{Key: string(FoldRune(r)), Start: i, End: i + size})
		case r != utf8.RuneError && IsWordRune(r):
			if wordStart < 0 {
				wordStart = i
			}
			word = utf8.AppendRune(word, FoldRune(r))
		default:
			endWord(i)
		}
		i += size
	}
	endWord(len(text))
	return units
}

func FuzzSplitUnits(f *testing.F) {
	for _, s := range []string{"", "Project Apollo?", "张三负责", "Go语言", "ＡＰＩ\xffx", "who works on ACME Corp.", "İstanbul ǅ ß 𝐀", "a\u00a0b\ufffdc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		require.Equal(t, splitUnitsRef(text), SplitUnits(text), "%q", text)
	})
}

func TestLinkKey(t *testing.T) {
	long := strings.Repeat("a ", MaxLinkUnits)
	tests := []struct {
		name    string
		key     string
		units   int
		ok      bool
		variant string // "" when the name has no joint
		vUnits  int
	}{
		{"Go", "go", 1, true, "", 0},
		{"go", "go", 1, true, "", 0},
		{"Project  Apollo.", "project apollo", 2, true, "", 0},
		{"张三", "张三", 2, true, "", 0},
		{"Go 语言", "go语言", 3, true, "", 0},
		{"Spider-Man: Far Away", "spider man far away", 4, true, "spiderman far away", 3},
		{"Ocean's Eleven", "ocean s eleven", 3, true, "oceans eleven", 2},
		{"WALL·E", "wall e", 2, true, "walle", 1},
		{"a - b", "a b", 2, true, "", 0},
		{"!?", "", 0, false, "", 0},
		{long, strings.TrimSpace(long), MaxLinkUnits, true, "", 0},
		{long + "a", "", 0, false, "", 0},
	}
	for _, tt := range tests {
		key, n, ok := LinkKey(tt.name)
		require.Equal(t, []any{tt.key, tt.units, tt.ok}, []any{key, n, ok}, "LinkKey(%q)", tt.name)
		v, vn, vok := LinkVariant(tt.name)
		require.Equal(t, []any{tt.variant, tt.vUnits, tt.variant != ""}, []any{v, vn, vok}, "LinkVariant(%q)", tt.name)
	}
	require.Equal(t, []string{"spider man far away", "spiderman far away"}, LinkKeys("Spider-Man: Far Away"))
	require.Equal(t, []string{"go"}, LinkKeys("Go"))
	require.Empty(t, LinkKeys("!?"))
}

func TestLinkSpanKeys(t *testing.T) {
	got := LinkSpanKeys("Project Apollo, project")
	require.Equal(t, []string{"apollo", "apollo project", "project", "project apollo", "project apollo project"}, got)
	require.Equal(t, []string{"三", "张", "张三"}, LinkSpanKeys("张三"))
	require.Empty(t, LinkSpanKeys("？"))
	// A run ending in a plural also gives its singular key.
	require.Equal(t, []string{"gila", "gila monster", "gila monsters", "monster", "monsters"}, LinkSpanKeys("Gila monsters"))
	// Every key of a name appears among the span keys of a text that
	// contains it.
	for _, name := range []string{"Project Apollo", "Go 语言", "WALL·E"} {
		spans := LinkSpanKeys("about " + name + " today")
		k, _, _ := LinkKey(name)
		require.Contains(t, spans, k, "%q", name)
	}
}

func TestAppendSingularKey(t *testing.T) {
	for _, c := range []struct {
		text, want string // want "" : the rule does not apply
	}{
		{"Gila monsters", "gila monster"},
		{"APOLLOS", "apollo"},
		{"Straßes", "straße"},
		{"boss", ""},   // ends in "ss"
		{"bus", ""},    // three letters
		{"apollo", ""}, // no "s"
		{"张三s", ""},    // "s" alone is too short
		{"张三", ""},     // the last unit is a CJK character
		{"", ""},
	} {
		got, ok := AppendSingularKey(nil, SplitUnits(c.text))
		require.Equal(t, c.want != "", ok, "%q", c.text)
		require.Equal(t, c.want, string(got), "%q", c.text)
	}
	// It appends to dst, and leaves dst as it was when it does not apply.
	got, ok := AppendSingularKey([]byte("x|"), SplitUnits("monsters"))
	require.True(t, ok)
	require.Equal(t, "x|monster", string(got))
	got, ok = AppendSingularKey([]byte("x|"), SplitUnits("boss"))
	require.False(t, ok)
	require.Equal(t, "x|", string(got))
}

func TestFirstUnit(t *testing.T) {
	for _, tt := range []struct{ key, want string }{
		{"project apollo", "project"},
		{"apollo", "apollo"},
		{"张三丰", "张"},
		{"go语言", "go"},
		{"语言 go", "语"},
		{"", ""},
	} {
		require.Equal(t, tt.want, FirstUnit(tt.key), "%q", tt.key)
	}
}

func TestBare(t *testing.T) {
	for in, want := range map[string]string{
		"akinoshū kenji": "akinoshu kenji",
		"Hernández":      "Hernandez",
		"çğıİłß":         "cgıİłß", // ı, İ, ł and ß have no bare form here
		"张三":             "张三",
		"plain":          "plain",
		"":               "",
		"\xff é":         "\xff e", // invalid bytes pass through
	} {
		require.Equal(t, want, Bare(in), "%q", in)
	}
	// A text without accents is returned as it is, sharing its bytes.
	s := "no accents here"
	require.Same(t, unsafe.StringData(s), unsafe.StringData(Bare(s)))
	// Link keys are bare, so a name and a question that write it with or
	// without accents have the same key.
	for _, pair := range [][2]string{{"Akinoshū Kenji", "akinoshu kenji"}, {"Jiménez", "JIMENEZ"}, {"Ōsaka-Kōbe", "osaka-kobe"}} {
		a, _, _ := LinkKey(pair[0])
		b, _, _ := LinkKey(pair[1])
		require.Equal(t, a, b, "%q", pair)
		va, _, _ := LinkVariant(pair[0])
		vb, _, _ := LinkVariant(pair[1])
		require.Equal(t, va, vb, "%q", pair)
	}
}
