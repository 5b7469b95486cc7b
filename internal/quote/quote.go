// Package quote formats values for error messages without echoing
// unbounded input: kgmem and its backends quote what a caller passed, and a
// 100 KB ID must not become a 100 KB error message.
package quote

import (
	"strconv"
	"unicode/utf8"
)

// MaxBytes is the most bytes of a value Value quotes.
const MaxBytes = 64

// Value returns s quoted as %q quotes it when it is at most MaxBytes long,
// and otherwise its first MaxBytes bytes or fewer (cut at a rune boundary)
// quoted, followed by "..." and the total length:
//
//	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (100000 bytes)
//
// Invalid UTF-8 is escaped, as %q escapes it.
func Value(s string) string {
	if len(s) <= MaxBytes {
		return strconv.Quote(s)
	}
	cut := MaxBytes
	for i := cut; i > MaxBytes-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			cut = i
			break
		}
	}
	return strconv.Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// Key renders a relation key for an error message, every part quoted by
// Value: "a" -["works_on"]-> "b".
func Key(sourceID, typ, targetID string) string {
	return Value(sourceID) + " -[" + Value(typ) + "]-> " + Value(targetID)
}
