package textrule

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConcepts(t *testing.T) {
	cs := Concepts()
	names := map[string]bool{}
	cues := 0
	for _, c := range cs {
		require.False(t, names[c.Name], "concept %q twice", c.Name)
		names[c.Name] = true
		require.NotEmpty(t, c.En, "%q has no English words", c.Name)
		for _, e := range c.En {
			e = strings.TrimLeft(e, "~^")
			require.Equal(t, Fold(e), e, "%q: English entries are written folded", c.Name)
		}
		if c.Cue {
			cues++
		}
	}
	require.Equal(t, 4, cues) // person, time, place, quantity
	require.True(t, names["profession"])
	// Each call returns the caller's own table.
	cs[0].Name = "changed"
	require.Equal(t, "person", Concepts()[0].Name)
}
