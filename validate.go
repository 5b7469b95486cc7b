package kgmem

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
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

// validateEntity checks the rules AddEntity enforces. The ID is checked
// first, so that every later message can quote it.
func validateEntity(e *Entity) error {
	if err := validateID("entity", e.ID); err != nil {
		return err
	}
	bad := func(field string) error {
		return fmt.Errorf("kgmem: entity %s: %s is not valid UTF-8: %w", quote.Value(e.ID), field, ErrInvalidArgument)
	}
	long := func(field, value string, limit int, name string) error {
		return fmt.Errorf("kgmem: entity %s: %s %s is longer than %s (%d): %w",
			quote.Value(e.ID), field, quote.Value(value), name, limit, ErrInvalidArgument)
	}
	switch {
	case !utf8.ValidString(e.Name):
		return bad("name")
	case len(e.Name) > MaxNameBytes:
		return long("name", e.Name, MaxNameBytes, "MaxNameBytes")
	case !utf8.ValidString(e.Type):
		return bad("type")
	case len(e.Type) > MaxTypeBytes:
		return long("type", e.Type, MaxTypeBytes, "MaxTypeBytes")
	case !utf8.ValidString(e.Description):
		return bad("description")
	case !validStrings(e.Aliases):
		return bad("an alias")
	case !validStrings(e.Tags):
		return bad("a tag")
	case !validStrings(e.SourceIDs):
		return bad("a source ID")
	case !validMap(e.Properties):
		return bad("a property")
	}
	for i, a := range e.Aliases {
		if len(a) > MaxNameBytes {
			return long(fmt.Sprintf("alias %d", i), a, MaxNameBytes, "MaxNameBytes")
		}
	}
	for i, t := range e.Tags {
		if n, ok := tagFits(t); !ok {
			return fmt.Errorf("kgmem: entity %s: tag %d %s: %w", quote.Value(e.ID), i, textrule.TagTooLong(t, n), ErrInvalidArgument)
		}
	}
	return nil
}

// tagFits reports whether tag t, once normalised, is at most MaxTagBytes
// long, and that length when it is not. Lower-casing makes a string at most
// 1.5 times longer (Ⱥ, 2 bytes, becomes ⱥ, 3), so a tag of up to
// 2/3 × MaxTagBytes fits without being normalised.
func tagFits(t string) (int, bool) {
	if len(t) <= MaxTagBytes*2/3 {
		return len(t), true
	}
	n := len(textrule.NormalizeTag(t))
	return n, n <= MaxTagBytes
}

// validateRelation checks the rules AddRelation enforces and normalises r
// as every backend stores it: a zero Weight (or -0) becomes 1, unweighted.
// The key is checked first, so that every later message can quote it.
func validateRelation(r *Relation) error {
	if err := validateKey(r.SourceID, r.TargetID, r.Type); err != nil {
		return err
	}
	if math.IsNaN(r.Weight) || r.Weight < 0 || r.Weight > 1 {
		return fmt.Errorf("kgmem: relation %s: weight %v is outside [0,1]: %w",
			describeKey(r.SourceID, r.Type, r.TargetID), r.Weight, ErrInvalidArgument)
	}
	bad := func(field string) error {
		return fmt.Errorf("kgmem: relation %s: %s is not valid UTF-8: %w",
			describeKey(r.SourceID, r.Type, r.TargetID), field, ErrInvalidArgument)
	}
	switch {
	case !validStrings(r.SourceIDs):
		return bad("a source ID")
	case !validMap(r.Properties):
		return bad("a property")
	}
	if err := normalizeValidity(r); err != nil {
		return fmt.Errorf("kgmem: relation %s: %v: %w", describeKey(r.SourceID, r.Type, r.TargetID), err, ErrInvalidArgument)
	}
	r.Weight = storedWeight(r.Weight)
	return nil
}

// storedWeight returns the weight a relation stating w is stored with: 1
// for 0 (and -0), which means unweighted, and w otherwise.
func storedWeight(w float64) float64 {
	if w == 0 {
		return 1
	}
	return w
}

// describeKey renders a relation key for an error message, every part
// quoted and cut to a short prefix: "a" -["works_on"]-> "b".
func describeKey(sourceID, typ, targetID string) string { return quote.Key(sourceID, typ, targetID) }

// validateKey checks a relation key: both endpoints as entity IDs, then
// the type.
func validateKey(sourceID, targetID, typ string) error {
	if err := validateID("source entity", sourceID); err != nil {
		return err
	}
	if err := validateID("target entity", targetID); err != nil {
		return err
	}
	if err := checkType("relation type", typ); err != nil {
		return fmt.Errorf("kgmem: relation %s -> %s: %w", quote.Value(sourceID), quote.Value(targetID), err)
	}
	return nil
}

// checkType checks a relation type (what names it, for the message): not
// empty, not only white space, valid UTF-8 and at most MaxTypeBytes. Its
// error carries no package prefix; the caller adds its context.
func checkType(what, typ string) error {
	switch {
	case typ == "":
		return fmt.Errorf("empty %s: %w", what, ErrInvalidArgument)
	case !utf8.ValidString(typ):
		return fmt.Errorf("%s %s is not valid UTF-8: %w", what, quote.Value(typ), ErrInvalidArgument)
	case len(typ) > MaxTypeBytes:
		return fmt.Errorf("%s %s is longer than MaxTypeBytes (%d): %w", what, quote.Value(typ), MaxTypeBytes, ErrInvalidArgument)
	case blank(typ):
		return fmt.Errorf("%s %s is only white space: %w", what, quote.Value(typ), ErrInvalidArgument)
	}
	return nil
}

// validateID checks an entity ID a write names; what says which one
// ("entity", "source entity", "target entity"). See checkID for reads.
func validateID(what, id string) error {
	if err := checkID(what, id); err != nil {
		return err
	}
	if len(id) > MaxIDBytes {
		return fmt.Errorf("kgmem: %s ID %s is longer than MaxIDBytes (%d): %w",
			what, quote.Value(id), MaxIDBytes, ErrInvalidArgument)
	}
	return nil
}

// checkID checks an entity ID a read names: not empty, not only white
// space, valid UTF-8. A read does not check the length: an ID longer than
// MaxIDBytes names no entity, and the read says so as for any other.
func checkID(what, id string) error {
	switch {
	case id == "":
		return fmt.Errorf("kgmem: empty %s ID: %w", what, ErrInvalidArgument)
	case !utf8.ValidString(id):
		return fmt.Errorf("kgmem: %s ID %s is not valid UTF-8: %w", what, quote.Value(id), ErrInvalidArgument)
	case blank(id):
		return fmt.Errorf("kgmem: %s ID %s is only white space: %w", what, quote.Value(id), ErrInvalidArgument)
	}
	return nil
}

// blank reports whether s, not empty, holds nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// checkReadKey checks a relation key a read names, as checkID checks an
// entity ID.
func checkReadKey(sourceID, targetID, typ string) error {
	if err := checkID("source entity", sourceID); err != nil {
		return err
	}
	if err := checkID("target entity", targetID); err != nil {
		return err
	}
	if typ == "" || !utf8.ValidString(typ) || blank(typ) {
		return fmt.Errorf("kgmem: relation %s -> %s: %w", quote.Value(sourceID), quote.Value(targetID), checkType("relation type", typ))
	}
	return nil
}

// validateSourceID checks the ID of a knowledge page that entities and
// relations cite: like an entity ID but without a length limit, since
// SourceIDs have none.
func validateSourceID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("kgmem: empty source ID: %w", ErrInvalidArgument)
	case !utf8.ValidString(id):
		return fmt.Errorf("kgmem: source ID %s is not valid UTF-8: %w", quote.Value(id), ErrInvalidArgument)
	case blank(id):
		return fmt.Errorf("kgmem: source ID %s is only white space: %w", quote.Value(id), ErrInvalidArgument)
	}
	return nil
}

func validStrings(ss []string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func validMap(m map[string]string) bool {
	for k, v := range m {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return false
		}
	}
	return true
}
