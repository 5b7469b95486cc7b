package textrule

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFoldKeywords(t *testing.T) {
	got, err := FoldKeywords([]string{" Go ", "ＧＯ", "", "  ", "Graph", "go"}, errInvalid)
	require.NoError(t, err)
	require.Equal(t, []string{"go", "graph"}, got)
	got, err = FoldKeywords(nil, errInvalid)
	require.NoError(t, err)
	require.Nil(t, got)
	_, err = FoldKeywords([]string{"ok", "\xff"}, errInvalid)
	require.ErrorIs(t, err, errInvalid)
	require.EqualError(t, err, `kgmem: keyword "\xff" is not valid UTF-8: invalid argument`)
}

func TestCountKeywords(t *testing.T) {
	var buf []string
	tests := []struct {
		folded []string
		want   int
	}{
		{[]string{"go"}, 1},            // the ID
		{[]string{"apollo", "go"}, 2},  // the name (folded) and the ID
		{[]string{"阿波罗"}, 1},           // an alias
		{[]string{"space", "ｘ"}, 1},    // a tag; a keyword is compared as given
		{[]string{"mars", "nasa"}, 0},  // nowhere
		{[]string{"ject a", "pro"}, 2}, // substrings, across words
	}
	for _, tt := range tests {
		got := CountKeywords(tt.folded, &buf, "go-1", "Project APOLLO", []string{"阿波罗计划"}, []string{"Space"})
		require.Equal(t, tt.want, got, "%q", tt.folded)
	}
}
