package embedmodel

import "testing"

func TestProblem(t *testing.T) {
	for _, tt := range []struct {
		name string
		dims int
		want string
	}{
		{"m", 1, ""},
		{"m", MaxDimensions, ""},
		{" ", 4, `embedding model name " " is blank or not valid UTF-8`},
		{"\xff", 4, `embedding model name "\xff" is blank or not valid UTF-8`},
		{"m", 0, `embedding model "m": 0 dimensions, want 1 to 65536`},
		{"m", -1, `embedding model "m": -1 dimensions, want 1 to 65536`},
		{"m", MaxDimensions + 1, `embedding model "m": 65537 dimensions, want 1 to 65536`},
	} {
		if got := Problem(tt.name, tt.dims); got != tt.want {
			t.Errorf("Problem(%q, %d) = %q, want %q", tt.name, tt.dims, got, tt.want)
		}
	}
}
