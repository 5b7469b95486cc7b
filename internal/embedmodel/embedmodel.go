// Package embedmodel holds the rule an embedding model's description must
// follow, so that kgmem's store, its retriever and the adapters' embedder
// wrappers refuse the same models.
package embedmodel

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
)

// MaxDimensions bounds a vector's length: 65536 float32 values are 256 KiB
// a page, which keeps a page's journal record far below its 64 MiB limit.
const MaxDimensions = 1 << 16

// Problem says what makes a model named name, of dims dimensions, unfit to
// describe an embedder's vectors (a blank or invalid UTF-8 name,
// dimensions outside [1, MaxDimensions]), or returns "" when nothing does.
// The message has no package prefix.
func Problem(name string, dims int) string {
	switch {
	case strings.TrimSpace(name) == "" || !utf8.ValidString(name):
		return fmt.Sprintf("embedding model name %s is blank or not valid UTF-8", quote.Value(name))
	case dims <= 0 || dims > MaxDimensions:
		return fmt.Sprintf("embedding model %s: %d dimensions, want 1 to %d", quote.Value(name), dims, MaxDimensions)
	}
	return ""
}
