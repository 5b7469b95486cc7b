// Package errmsg composes the messages of errors that wrap other errors,
// so that a message names its package once: kgmem's errors start with
// "kgmem: " and pgraph's with "pgraph: ", and an error that adds context to
// one of them must not repeat the prefix ("kgmem: ingest: kgmem: …").
package errmsg

import (
	"fmt"
	"strings"
)

// prefixes are the package prefixes a message may start with.
var prefixes = [...]string{"kgmem: ", "pgraph: "}

// Trim returns msg without its leading package prefix, if it has one.
func Trim(msg string) string {
	for _, p := range prefixes {
		if s, ok := strings.CutPrefix(msg, p); ok {
			return s
		}
	}
	return msg
}

// Wrap returns an error that reads context, ": " and err's message without
// its package prefix, and unwraps to err, so that errors.Is and errors.As
// see everything err wraps. context starts with the caller's own prefix:
//
//	Wrap("kgmem: batch entity 3", err) // kgmem: batch entity 3: empty entity ID: invalid argument
func Wrap(context string, err error) error {
	return &wrapped{msg: context + ": " + Trim(err.Error()), err: err}
}

// Wrapf is Wrap with a context formatted as fmt.Sprintf formats it.
func Wrapf(err error, format string, args ...any) error {
	return Wrap(fmt.Sprintf(format, args...), err)
}

type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }
