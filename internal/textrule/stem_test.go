package textrule

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStemGroups(t *testing.T) {
	// Each group's words share a stem; words of different groups do not.
	groups := [][]string{
		{"directed", "director", "directs", "direct", "directing"},
		{"starring", "starred", "stars", "star"},
		{"written", "writer", "wrote", "writes", "write", "writers"},
		{"nationality", "nation", "national", "nations"},
		{"religion", "religious"},
		{"movies", "movie"},
		{"cities", "city"},
		{"location", "located", "locate", "locations"},
		{"employee", "employ", "employer", "employs"},
		{"rating", "rated", "ratings", "rate"},
		{"released", "release", "releases"},
		{"genre", "genres"},
		{"children", "child"},
		{"mentor", "mentors"},
		{"mentee", "mentees"},
		{"used", "use", "uses"},
	}
	stems := map[string]string{}
	for _, g := range groups {
		want := Stem(g[0])
		for _, w := range g {
			require.Equal(t, want, Stem(w), "%q and %q", g[0], w)
		}
		if other, ok := stems[want]; ok {
			t.Fatalf("%q and %q share the stem %q", g[0], other, want)
		}
		stems[want] = g[0]
	}
	// Words outside a–z are their own stem.
	for _, w := range []string{"导演", "straße", "b2b", "x"} {
		require.Equal(t, w, Stem(w))
	}
}
