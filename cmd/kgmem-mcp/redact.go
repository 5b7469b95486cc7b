package main

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// memoryName is what the messages a client reads call the memory's
// directory and the files in it.
const memoryName = "the memory"

// A redactor puts memoryName in place of a memory directory's paths in a
// message.
type redactor struct {
	forms []string // the directory's paths, longest first
}

// newRedactor returns a redactor of dir, known by dir as given (without
// trailing separators), its absolute path and the path its symbolic links
// resolve to. A root directory or "" is known by no path: no message is
// changed.
func newRedactor(dir string) redactor {
	var forms []string
	add := func(p string) {
		if p != "" && p != "." && filepath.Dir(p) != p && !slices.Contains(forms, p) {
			forms = append(forms, p)
		}
	}
	if dir == "" {
		return redactor{}
	}
	if trimmed := strings.TrimRightFunc(dir, func(r rune) bool { return r < 0x80 && isSep(byte(r)) }); trimmed != "" {
		add(trimmed)
	}
	add(filepath.Clean(dir))
	if abs, err := filepath.Abs(dir); err == nil {
		add(abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			add(real)
		}
	}
	slices.SortStableFunc(forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return redactor{forms: forms}
}

// redact returns s with memoryName in place of each path that is the
// directory or a file in it. A path is one where it starts a word (no
// letter, digit or separator right before it) and the directory's name
// ends (a separator, a character that cannot be in a name, a full stop
// closing a sentence, or the end follows); a separator and the rest of a
// path after the directory are replaced with it. The replacement is not
// searched again.
func (r redactor) redact(s string) string {
	if len(r.forms) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		n := 0
		if i == 0 || !isNameByte(s[i-1]) && !isSep(s[i-1]) {
			for _, f := range r.forms {
				if n = r.match(s[i:], f); n > 0 {
					break
				}
			}
		}
		if n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(memoryName)
		i += n
	}
	return b.String()
}

// match returns the length of the path s begins with when it is the
// directory f or a file in it, and 0 when it is not.
func (redactor) match(s, f string) int {
	if !strings.HasPrefix(s, f) {
		return 0
	}
	n := len(f)
	switch {
	case n == len(s) || endsSentence(s, n):
		return n
	case isSep(s[n]):
		for n < len(s) && (isNameByte(s[n]) || isSep(s[n])) && !endsSentence(s, n) {
			n++
		}
		return n
	case isNameByte(s[n]):
		return 0 // a longer name: another directory
	}
	return n
}

// endsSentence reports whether s[n] is a full stop that ends a sentence:
// the end of s or a character that cannot be in a name follows.
func endsSentence(s string, n int) bool {
	return s[n] == '.' && (n+1 == len(s) || !isNameByte(s[n+1]) && !isSep(s[n+1]))
}

func isSep(c byte) bool { return c == '/' || c == filepath.Separator }

// isNameByte reports whether c can be in a file name as kgmem's messages
// hold one: not a blank, a quote, a bracket or punctuation that separates
// the parts of a message. Bytes of multi-byte UTF-8 characters are.
func isNameByte(c byte) bool {
	switch {
	case c >= 0x80, 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("._-~+@%#", c) >= 0
}
