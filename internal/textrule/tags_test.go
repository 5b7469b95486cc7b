package textrule

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var errInvalid = errors.New("invalid argument")

func TestNormalizeTags(t *testing.T) {
	tests := []struct {
		tags []string
		max  int
		want []string
		err  string // "" for no error
	}{
		{[]string{" Go ", "go", "", "Rust", "c"}, 2, []string{"go", "rust"}, ""},
		{[]string{"  ", ""}, 8, nil, ""},
		{[]string{"ＡＰＩ", "API"}, 8, []string{"ａｐｉ", "api"}, ""},
		{[]string{"ok", "\xff"}, 1, nil, `kgmem: tag "\xff" is not valid UTF-8: invalid argument`},
		{[]string{strings.Repeat("x", MaxTagBytes+1)}, 8, nil,
			"kgmem: tag " + TagTooLong(strings.Repeat("x", MaxTagBytes+1), MaxTagBytes+1) + ": invalid argument"},
		// A tag longer than the limit only once lower-cased: Ⱥ (2 bytes)
		// becomes ⱥ (3).
		{[]string{strings.Repeat("Ⱥ", 50)}, 8, nil,
			"kgmem: tag " + TagTooLong(strings.Repeat("Ⱥ", 50), 150) + ": invalid argument"},
	}
	for _, tt := range tests {
		got, err := NormalizeTags(tt.tags, tt.max, errInvalid)
		if tt.err != "" {
			require.ErrorIs(t, err, errInvalid)
			require.EqualError(t, err, tt.err)
			require.Nil(t, got)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tt.want, got, "%q", tt.tags)
	}
	require.Equal(t, "api gateway σ", Fold("ＡＰＩ Gateway ς"))
}

func TestTagRules(t *testing.T) {
	require.Equal(t, "go lang", NormalizeTag(" \tGo Lang\n"))
	require.Equal(t, " go", TagPrefix(" GO"))
	long := strings.Repeat("x", 70)
	require.Equal(t, fmt.Sprintf("%q... (70 bytes) is longer than MaxTagBytes (128)", strings.Repeat("x", 64)), TagTooLong(long, 70))
	require.Equal(t, `"Ⱥ" is 3 bytes once normalised, more than MaxTagBytes (128)`, TagTooLong("Ⱥ", 3))
}

func TestUniqueStrings(t *testing.T) {
	// Past ScanLimit the set takes over; the answers do not change.
	var u UniqueStrings
	var want []string
	for i := range 3 * ScanLimit {
		s := fmt.Sprint(i % (2 * ScanLimit))
		added := u.Add(s)
		require.Equal(t, i < 2*ScanLimit, added, "Add(%q) at %d", s, i)
		if added {
			want = append(want, s)
		}
	}
	require.Equal(t, want, u.Items)
}
