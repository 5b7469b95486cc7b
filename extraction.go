package kgmem

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/extract"
	"github.com/kgmem/kgmem/internal/quote"
)

// Limits that ParseExtraction and Ingest enforce, so that hostile or broken
// model output costs bounded time and memory.
const (
	// MaxExtractionBytes is the largest input ParseExtraction reads: 8 MiB.
	MaxExtractionBytes = 8 << 20
	// MaxExtractionDepth is the deepest nesting of JSON objects and arrays
	// that ParseExtraction accepts, the extraction object itself counting
	// as 1. It is enforced by a scan of the raw bytes before anything is
	// decoded, in constant memory, so that deeper input is rejected after
	// reading at most MaxExtractionDepth+1 brackets of it.
	MaxExtractionDepth = 64
	// MaxExtractedEntities is the most entities an Extraction may hold.
	MaxExtractedEntities = 10_000
	// MaxExtractedRelations is the most relations an Extraction may hold.
	MaxExtractedRelations = 50_000
)

// Extraction is what an extraction model says a text contains: entities
// and the relations between them, in the model's own words. Unlike Entity
// and Relation, its values need not be in graph form yet: IDs may be
// missing, relations may name their endpoints by name or alias, weights
// may be absent. Ingest turns it into graph writes; ParseExtraction reads
// it from model output. The JSON tags give its canonical encoding, which
// ParseExtraction accepts along with the synonyms it documents.
type Extraction struct {
	Entities  []ExtractedEntity   `json:"entities"`
	Relations []ExtractedRelation `json:"relations"`
}

// ExtractedEntity is an entity as a model reports it. At least one of ID
// and Name must be set. Ingest derives a missing ID from Type and Name (see
// DeriveEntityID), uses ID as the name when Name is empty, and resolves the
// entity to one the graph or the same extraction already holds before
// writing it.
type ExtractedEntity struct {
	ID          string            `json:"id,omitempty"`
	Name        string            `json:"name,omitempty"`
	Type        string            `json:"type,omitempty"` // empty: "entity"
	Description string            `json:"description,omitempty"`
	Aliases     []string          `json:"aliases,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Properties  map[string]string `json:"properties,omitempty"`
}

// ExtractedRelation is a relation as a model reports it. Source and Target
// name the endpoints by entity ID, by an ID the same extraction gives an
// entity, by name or alias, or as "type:name"; SourceType and TargetType,
// when set, narrow name lookups to entities of that type. Weight nil means
// the model gave none (see WithDefaultWeight). Description, when set, is
// stored as the relation's "description" property unless Properties sets
// that key.
//
// ValidFrom and ValidTo, when set, say when the fact held (see Relation);
// Ended says that it no longer holds, its end unknown: Ingest ends it at
// the time it runs, unless ValidTo says when.
type ExtractedRelation struct {
	Source      string            `json:"source"`
	SourceType  string            `json:"source_type,omitempty"`
	Target      string            `json:"target"`
	TargetType  string            `json:"target_type,omitempty"`
	Type        string            `json:"type"`
	Weight      *float64          `json:"weight,omitempty"`
	Description string            `json:"description,omitempty"`
	Properties  map[string]string `json:"properties,omitempty"`
	ValidFrom   time.Time         `json:"valid_from,omitzero"`
	ValidTo     time.Time         `json:"valid_to,omitzero"`
	Ended       bool              `json:"ended,omitempty"`
}

// ParseError is the error ParseExtraction returns for input it cannot
// understand. It wraps ErrInvalidArgument, and says where the problem is
// so that a caller can show it to the model and ask again.
type ParseError struct {
	// Path locates the offending value inside the extraction object, such
	// as "relations[3].weight", spelling keys as the input does. It is
	// empty when the problem is not one value: no object found, or JSON
	// that does not parse.
	Path string
	// Offset is the byte offset in the input at which the problem was
	// found, or -1 when only Path locates it.
	Offset int
	// Reason says what is wrong.
	Reason string
}

// Error returns "kgmem: parse extraction: ", the path, the reason and the
// offset, followed by the text of ErrInvalidArgument.
func (e *ParseError) Error() string {
	where := extract.Error{Path: e.Path, Offset: e.Offset, Reason: e.Reason}
	return "kgmem: parse extraction: " + where.Error() + ": " + ErrInvalidArgument.Error()
}

// Unwrap returns ErrInvalidArgument.
func (e *ParseError) Unwrap() error { return ErrInvalidArgument }

// ParseExtraction reads an Extraction from a model's response.
//
// The response may be the JSON object alone, the object inside a ``` or
// ```json fenced block, or the object surrounded by prose: ParseExtraction
// uses the first balanced JSON object whose top level has an entity list
// ("entities" or "nodes") or a relation list ("relations", "edges" or
// "relationships"), skipping prose, other objects and brace pairs that are
// not JSON. Trailing commas before a closing bracket are tolerated.
//
// Keys are matched ignoring case and the separators '_', '-', '.' and ' ', so
// "source_id", "sourceId" and "Source ID" are one key. Entity keys: id or
// entity_id; name, entity, entity_name, label or title; type, entity_type,
// category or kind; description, desc or summary; aliases, alias,
// other_names, aka or synonyms (a list or one string); tags or tag;
// properties, attributes or props. Relation keys: source, source_id,
// from, head, subject (and a few more spellings) for the source; target,
// target_id, to, tail, object for the target; source_type/head_type and
// target_type/tail_type; type, relation, relation_type, relationship,
// predicate or label for the type; weight, confidence, score or strength
// for the weight; description, desc or evidence; valid_from, start,
// start_date, started, since or begin for when the fact became true;
// valid_to, end, end_date or until for when it stopped; ended, a date (when
// it stopped) or true (it stopped, date unknown). When an object has
// several keys for one field, the first in these lists wins. Other keys
// are ignored.
//
// Values are converted where the meaning is plain and rejected otherwise:
// a number where a string is wanted becomes its literal text (an ID of 7 is
// "7"); an entity given as a bare string is an entity with that name; a
// relation given as an array [source, type, target] or [source, type,
// target, weight] is read in that order; an endpoint given as an object is
// read for its id (or name) and type. A weight is a JSON number or a string
// holding a decimal number ("0.8") or a percentage ("80%" is 0.8); it is not
// rescaled otherwise, so 8 stays 8 for Ingest to clamp or reject; NaN and
// infinities are rejected. A date is read by ParseValidTime: RFC 3339,
// 2024-03-01, 2024-03, 2024 (a string or a number), with null, "",
// "present", "now", "current" and "ongoing" meaning none (an open end, an
// unknown start). Property values that are strings are kept,
// numbers keep their literal text, booleans become "true" or "false", null
// drops the key, and nested objects and arrays become their compact JSON
// text. A null field, or a null in a list of aliases or tags, counts as
// absent; a null entity or relation is an error.
//
// Everything else that cannot be understood, such as a weight of true or an
// entity list that is not an array, returns a *ParseError wrapping
// ErrInvalidArgument with the JSON path of the value (for example
// "relations[3].weight"); JSON that does not parse returns one with the
// byte offset of the error. Input larger than MaxExtractionBytes, nesting
// deeper than MaxExtractionDepth, and lists longer than MaxExtractedEntities
// or MaxExtractedRelations are rejected the same way, the depth before any
// decoding. Cost: linear in the input; the search for the object gives up,
// with an error, after scanning the input about eight times over.
func ParseExtraction(data []byte) (Extraction, error) {
	entities, relations, err := extract.Parse(data, extract.Dates{Parse: parseDate, Format: formatValidTime})
	if err != nil {
		var e *extract.Error
		if errors.As(err, &e) {
			return Extraction{}, &ParseError{Path: e.Path, Offset: e.Offset, Reason: e.Reason}
		}
		return Extraction{}, err
	}
	var x Extraction
	for _, e := range entities {
		x.Entities = append(x.Entities, ExtractedEntity(e))
	}
	for _, r := range relations {
		x.Relations = append(x.Relations, ExtractedRelation(r))
	}
	return x, nil
}

// parseDate reads a relation date for ParseExtraction: ParseValidTime,
// its error's text the reason.
func parseDate(text string) (time.Time, string) {
	t, err := ParseValidTime(text)
	if err != nil {
		return time.Time{}, strings.TrimPrefix(errorText(err), "kgmem: ")
	}
	return t, ""
}

// Limits of ParseExtraction and of internal/extract must be equal: the
// conversions below overflow, and the package does not compile, when they
// differ.
const (
	_ = uint(MaxExtractionBytes - extract.MaxBytes)
	_ = uint(extract.MaxBytes - MaxExtractionBytes)
	_ = uint(MaxExtractionDepth - extract.MaxDepth)
	_ = uint(extract.MaxDepth - MaxExtractionDepth)
	_ = uint(MaxExtractedEntities - extract.MaxEntities)
	_ = uint(extract.MaxEntities - MaxExtractedEntities)
	_ = uint(MaxExtractedRelations - extract.MaxRelations)
	_ = uint(extract.MaxRelations - MaxExtractedRelations)
)

// errorText is err's message without the sentinel's suffix.
func errorText(err error) string {
	return strings.TrimSuffix(err.Error(), ": "+ErrInvalidArgument.Error())
}

// ParseValidTime reads a date or time as models write them, for
// Relation.ValidFrom and ValidTo: RFC 3339 ("2024-03-01T10:00:00Z", with
// fractions or an offset), a date and time without a zone
// ("2024-03-01T10:00:00" or "2024-03-01 10:00", read as UTC), a day
// ("2024-03-01" or "2024/03/01"), a month ("2024-03" or "2024/03") or a
// year ("2024"), each read as its first instant in UTC. An empty string
// and "present", "now", "current", "ongoing" and "null" (any case) mean
// no date: the zero time, an open end or an unknown start. The result is
// UTC, truncated to the microsecond. Anything else, and a year outside 1
// to 9999, returns an error wrapping ErrInvalidArgument that quotes the
// text.
func ParseValidTime(s string) (time.Time, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "", "present", "now", "current", "ongoing", "null", "none":
		return time.Time{}, nil
	}
	for _, layout := range validTimeLayouts {
		v, err := time.Parse(layout, t)
		if err != nil {
			continue
		}
		v, err = normalizeValidTime("date", v)
		if err != nil {
			return time.Time{}, fmt.Errorf("kgmem: %v: %w", err, ErrInvalidArgument)
		}
		if v.IsZero() {
			// 0001-01-01T00:00:00Z is the zero time, which means none.
			return time.Time{}, fmt.Errorf("kgmem: date %s is the zero time: %w", quote.Value(s), ErrInvalidArgument)
		}
		return v, nil
	}
	return time.Time{}, fmt.Errorf("kgmem: cannot read date %s: want RFC 3339, 2024-03-01, 2024-03 or 2024: %w", quote.Value(s), ErrInvalidArgument)
}

// validTimeLayouts are the forms ParseValidTime reads, tried in order.
var validTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02",
	"2006-01",
	"2006/01",
	"2006",
}

// validUTF8 reports whether every string of e is valid UTF-8.
func (e *ExtractedEntity) validUTF8() bool {
	return utf8.ValidString(e.ID) && utf8.ValidString(e.Name) && utf8.ValidString(e.Type) &&
		utf8.ValidString(e.Description) && validStrings(e.Aliases) && validStrings(e.Tags) &&
		validMap(e.Properties)
}

// validUTF8 reports whether every string of r is valid UTF-8.
func (r *ExtractedRelation) validUTF8() bool {
	return utf8.ValidString(r.Source) && utf8.ValidString(r.SourceType) && utf8.ValidString(r.Target) &&
		utf8.ValidString(r.TargetType) && utf8.ValidString(r.Type) && utf8.ValidString(r.Description) &&
		validMap(r.Properties)
}
