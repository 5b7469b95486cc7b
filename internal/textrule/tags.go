package textrule

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
)

// MaxTagBytes is the longest tag, in bytes once normalised, that an entity
// may carry: kgmem.MaxTagBytes, which package kgmem checks is the same.
const MaxTagBytes = 128

// MaxTagsPerEntity is the most tags an entity keeps when its graph's
// TagConstraints set no MaxTagsPerEntity: the default of every backend.
const MaxTagsPerEntity = 8

// NormalizeTag is the tag rule applied to one tag: trimmed of white space
// and lower-cased. EntityCountByTag applies it to its argument.
func NormalizeTag(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// TagPrefix is the rule FindTags applies to its prefix: lower-cased, not
// trimmed.
func TagPrefix(prefix string) string { return strings.ToLower(prefix) }

// NormalizeTags applies the tag rule of AddEntity and SetEntityTags: tags
// trimmed, lower-cased, de-duplicated (first occurrence kept), without
// empties and cut to max. It returns an error wrapping invalid (the
// caller's ErrInvalidArgument) when a tag, kept or not, is not valid UTF-8
// or is longer than MaxTagBytes once normalised. The result never aliases
// tags. Cost: linear in the total length of tags, whatever max is.
func NormalizeTags(tags []string, max int, invalid error) ([]string, error) {
	var out UniqueStrings
	for _, t := range tags {
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("kgmem: tag %s is not valid UTF-8: %w", quote.Value(t), invalid)
		}
		norm := NormalizeTag(t)
		if len(norm) > MaxTagBytes {
			return nil, fmt.Errorf("kgmem: tag %s: %w", TagTooLong(t, len(norm)), invalid)
		}
		if norm == "" || len(out.Items) == max {
			continue
		}
		out.Add(norm)
	}
	return out.Items, nil
}

// TagTooLong says that tag t, n bytes long once normalised, is too long:
// `"xx…"... (200 bytes) is longer than MaxTagBytes (128)`, or, when
// normalising changed its length, `… is 192 bytes once normalised, more
// than MaxTagBytes (128)`.
func TagTooLong(t string, n int) string {
	if n == len(t) {
		return fmt.Sprintf("%s is longer than MaxTagBytes (%d)", quote.Value(t), MaxTagBytes)
	}
	return fmt.Sprintf("%s is %d bytes once normalised, more than MaxTagBytes (%d)", quote.Value(t), n, MaxTagBytes)
}

// UniqueStrings collects distinct strings in first-seen order, as the tag
// and keyword rules de-duplicate. While it holds few, a new string is
// compared with each; past ScanLimit it keeps a set, so that adding n
// strings costs O(n) whatever n is. The zero value is empty and ready to
// use.
type UniqueStrings struct {
	// Items are the strings added, each once, in first-seen order. Only
	// Add may append to it.
	Items []string
	set   map[string]struct{} // Items as a set, once there are more than ScanLimit
}

// ScanLimit is the number of strings up to which UniqueStrings scans
// rather than hashes: up to it a scan is as fast, and past it the cost of
// scanning for every new string would grow quadratically.
const ScanLimit = 16

// Add appends s unless it is already there, and reports whether it did.
func (u *UniqueStrings) Add(s string) bool {
	if u.set != nil {
		if _, dup := u.set[s]; dup {
			return false
		}
		u.set[s] = struct{}{}
	} else {
		if slices.Contains(u.Items, s) {
			return false
		}
		if len(u.Items) == ScanLimit {
			u.set = make(map[string]struct{}, 2*ScanLimit)
			for _, it := range u.Items {
				u.set[it] = struct{}{}
			}
			u.set[s] = struct{}{}
		}
	}
	u.Items = append(u.Items, s)
	return true
}
