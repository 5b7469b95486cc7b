package kgmem

import (
	"fmt"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
)

// The validation rules below are the ones InMemoryGraph applies, exported
// so that a KnowledgeGraph on other storage accepts and rejects exactly the
// same values with the same errors. Package pgraph uses them, and the text
// rules (folding, match keys, tags) of internal/textrule.

// ValidateEntity returns the error AddEntity returns for an entity whose
// content breaks a rule (an empty or whitespace-only ID, a string that is
// not valid UTF-8, an ID, name, type, alias or tag longer than MaxIDBytes,
// MaxNameBytes, MaxTypeBytes or MaxTagBytes), wrapping ErrInvalidArgument,
// or nil.
func ValidateEntity(e Entity) error { return validateEntity(&e) }

// ValidateRelation returns the error AddRelation returns for a relation
// whose content breaks a rule (an empty or whitespace-only endpoint or
// type, an endpoint longer than MaxIDBytes or a type longer than
// MaxTypeBytes, a weight that is NaN or outside [0,1], a string that is
// not valid UTF-8), wrapping ErrInvalidArgument, or nil. When r is valid,
// ValidateRelation also normalises it as every backend stores it: a zero
// Weight (or -0) becomes 1, unweighted; so a backend stores *r as it is
// after the call. Whether the endpoints exist is for the backend to
// check.
func ValidateRelation(r *Relation) error { return validateRelation(r) }

// ValidateRelationKey returns the error RemoveRelation returns for a
// malformed key (an empty, whitespace-only, over-long or invalid part),
// wrapping ErrInvalidArgument, or nil.
func ValidateRelationKey(sourceID, targetID, relationType string) error {
	return validateKey(sourceID, targetID, relationType)
}

// ValidateName returns the error FindByName returns for a name it cannot
// look up (an empty or whitespace-only name, or one that is not valid
// UTF-8), wrapping ErrInvalidArgument, or nil. A backend that implements
// NameFinder applies it, then looks up the name's match key among those
// of every name and alias, as InMemoryGraph.FindByName does.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("kgmem: find by name: empty name: %w", ErrInvalidArgument)
	case !utf8.ValidString(name):
		return fmt.Errorf("kgmem: find by name: name %s is not valid UTF-8: %w", quote.Value(name), ErrInvalidArgument)
	case blank(name):
		return fmt.Errorf("kgmem: find by name: name %s is only white space: %w", quote.Value(name), ErrInvalidArgument)
	}
	return nil
}
