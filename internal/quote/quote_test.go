package quote

import (
	"strings"
	"testing"
)

func TestValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{"a\xffb", `"a\xffb"`},
		{strings.Repeat("x", MaxBytes), `"` + strings.Repeat("x", MaxBytes) + `"`},
		{strings.Repeat("x", 100000), `"` + strings.Repeat("x", MaxBytes) + `"... (100000 bytes)`},
		// A three-byte rune straddling the cut is left out whole.
		{strings.Repeat("x", MaxBytes-1) + "张" + "yy", `"` + strings.Repeat("x", MaxBytes-1) + `"... (68 bytes)`},
	}
	for _, tt := range tests {
		if got := Value(tt.in); got != tt.want {
			t.Errorf("Value(%.20q…) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestKey(t *testing.T) {
	long := strings.Repeat("a", MaxBytes+1)
	tests := []struct {
		src, typ, dst, want string
	}{
		{"a", "works_on", "b", `"a" -["works_on"]-> "b"`},
		{"", "t", "\xff", `"" -["t"]-> "\xff"`},
		{long, "t", "b", Value(long) + ` -["t"]-> "b"`},
	}
	for _, tt := range tests {
		if got := Key(tt.src, tt.typ, tt.dst); got != tt.want {
			t.Errorf("Key(%q, %q, %q) = %s, want %s", tt.src, tt.typ, tt.dst, got, tt.want)
		}
	}
}
