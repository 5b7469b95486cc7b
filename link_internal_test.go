package kgmem

import (
	"strings"
	"testing"

	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/stretchr/testify/require"
)

// FuzzNameIndexStarts checks that the first-unit filter of nameIndex.match
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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		parts := strings.Split(in, "|")
		text := parts[len(parts)-1]
		var x nameIndex
		for i, name := range parts[:len(parts)-1] {
			name, drop := strings.CutPrefix(name, "-")
			ref := makeRef(int32(i), i%2 == 1)
			x.add(name, ref)
			if drop {
				x.remove(name, ref)
			}
		}
		units := textrule.SplitUnits(text)
		always := func(nameRef, string) bool { return true }
		got := x.match(text, units, always)
		x.starts = nil
		require.Equal(t, x.match(text, units, always), got, "%q", in)
	})
}
