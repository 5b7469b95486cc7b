package kgmem

import "github.com/kgmem/kgmem/internal/textrule"

// The text rules live in internal/textrule, which package pgraph shares.
// The unexported names below forward to it for the files that use them
// under these names (time and connection questions, the walk, spreading
// activation), and bind the rules that return errors to ErrInvalidArgument.

// linkUnit is one link unit of a text (textrule.Unit).
type linkUnit = textrule.Unit

// uniqueStrings collects distinct strings in first-seen order
// (textrule.UniqueStrings).
type uniqueStrings = textrule.UniqueStrings

// splitUnits forwards to textrule.SplitUnits.
func splitUnits(text string) []linkUnit { return textrule.SplitUnits(text) }

// isStopWord forwards to textrule.IsStopWord.
func isStopWord(w string) bool { return textrule.IsStopWord(w) }

// normalizeTags is textrule.NormalizeTags with its errors wrapping
// ErrInvalidArgument.
func normalizeTags(tags []string, max int) ([]string, error) {
	return textrule.NormalizeTags(tags, max, ErrInvalidArgument)
}

// foldKeywords is textrule.FoldKeywords with its errors wrapping
// ErrInvalidArgument.
func foldKeywords(keywords []string) ([]string, error) {
	return textrule.FoldKeywords(keywords, ErrInvalidArgument)
}

// MaxTagBytes and textrule.MaxTagBytes must be equal: the conversions
// below overflow, and the package does not compile, when they differ.
const (
	_ = uint(MaxTagBytes - textrule.MaxTagBytes)
	_ = uint(textrule.MaxTagBytes - MaxTagBytes)
)
