package errmsg

import (
	"errors"
	"fmt"
	"testing"
)

var errSentinel = errors.New("not found")

type typed struct{ error }

func TestWrap(t *testing.T) {
	inner := fmt.Errorf("kgmem: entity %q: %w", "x", errSentinel)
	tests := []struct {
		err  error
		want string
	}{
		{Wrap("kgmem: ingest", inner), `kgmem: ingest: entity "x": not found`},
		{Wrap("pgraph: batch entity 3", inner), `pgraph: batch entity 3: entity "x": not found`},
		{Wrapf(fmt.Errorf("pgraph: lost: %w", errSentinel), "kgmem: related to entity %q", "y"), `kgmem: related to entity "y": lost: not found`},
		{Wrap("kgmem: outer", Wrap("kgmem: inner", inner)), `kgmem: outer: inner: entity "x": not found`},
		{Wrap("kgmem: io", errors.New("disk full")), "kgmem: io: disk full"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("message %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, errSentinel) && tt.want != "kgmem: io: disk full" {
			t.Errorf("%q does not wrap the sentinel", tt.err)
		}
	}
	var target typed
	if err := Wrap("kgmem: x", typed{errSentinel}); !errors.As(err, &target) {
		t.Errorf("errors.As does not see through Wrap")
	}
}

func TestTrim(t *testing.T) {
	for in, want := range map[string]string{
		"kgmem: a":        "a",
		"pgraph: b":       "b",
		"kgmem:c":         "kgmem:c",
		"other: kgmem: d": "other: kgmem: d",
		"":                "",
	} {
		if got := Trim(in); got != want {
			t.Errorf("Trim(%q) = %q, want %q", in, got, want)
		}
	}
}
