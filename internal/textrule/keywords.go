package textrule

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
)

// FoldKeywords prepares keywords as FindByKeywords does: trimmed, folded,
// empty ones and duplicates dropped, in first-seen order. A keyword that
// is not valid UTF-8 returns an error wrapping invalid (the caller's
// ErrInvalidArgument).
func FoldKeywords(keywords []string, invalid error) ([]string, error) {
	var out UniqueStrings
	for _, k := range keywords {
		if !utf8.ValidString(k) {
			return nil, fmt.Errorf("kgmem: keyword %s is not valid UTF-8: %w", quote.Value(k), invalid)
		}
		if k = Fold(strings.TrimSpace(k)); k != "" {
			out.Add(k)
		}
	}
	return out.Items, nil
}

// CountKeywords returns how many of the folded keywords (see FoldKeywords)
// occur, as substrings, in the folded form of an entity's ID, name, an
// alias or a tag: FindByKeywords returns the entities with a count above
// zero. buf is scratch space reused across calls; it must not be nil.
func CountKeywords(folded []string, buf *[]string, id, name string, aliases, tags []string) int {
	texts := append((*buf)[:0], Fold(id), Fold(name))
	for _, a := range aliases {
		texts = append(texts, Fold(a))
	}
	for _, t := range tags {
		texts = append(texts, Fold(t))
	}
	*buf = texts
	count := 0
	for _, k := range folded {
		for _, t := range texts {
			if strings.Contains(t, k) {
				count++
				break
			}
		}
	}
	return count
}
