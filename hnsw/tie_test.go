package hnsw

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTiedDistances: 300 standard basis vectors, every two of them at
// distance 1, so that every comparison the graph makes is a tie. Pruning a
// full neighbour list must not always drop the newest node: every node but
// the entry point has a link to it on layer 0, and each vector is found first by itself.
func TestTiedDistances(t *testing.T) {
	const n = 300
	x := New(n, Options{})
	for i := range n {
		v := make([]float32, n)
		v[i] = 1
		x.Add(fmt.Sprintf("e%03d", i), v)
	}
	in := make([]int, x.g.len())
	for _, ls := range x.g.links {
		for _, m := range ls[0] {
			in[m]++
		}
	}
	unlinked := 0
	for m, c := range in {
		if c == 0 && int32(m) != x.g.entry {
			unlinked++
		}
	}
	require.Equal(t, 0, unlinked, "nodes no node links to on layer 0")
	missed := 0
	for i := range n {
		v := make([]float32, n)
		v[i] = 1
		got, err := x.Search(v, 1)
		require.NoError(t, err)
		if len(got) == 0 || got[0] != fmt.Sprintf("e%03d", i) {
			missed++
		}
	}
	require.Equal(t, 0, missed, "vectors not found first by themselves")
}
