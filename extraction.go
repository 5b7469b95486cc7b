package kgmem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
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
	var b strings.Builder
	b.WriteString("kgmem: parse extraction: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (at byte %d)", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(ErrInvalidArgument.Error())
	return b.String()
}

// Unwrap returns ErrInvalidArgument.
func (e *ParseError) Unwrap() error { return ErrInvalidArgument }

// Key synonyms, in canonical form (see canonicalKey) and in order of
// preference: when an object has several keys of one list, the first
// listed wins.
var (
	extEntityListKeys   = []string{"entities", "nodes"}
	extRelationListKeys = []string{"relations", "edges", "relationships"}

	extEntityIDKeys    = []string{"id", "entityid"}
	extEntityNameKeys  = []string{"name", "entity", "entityname", "label", "title"}
	extEntityTypeKeys  = []string{"type", "entitytype", "category", "kind"}
	extDescriptionKeys = []string{"description", "desc", "summary"}
	extAliasKeys       = []string{"aliases", "alias", "othernames", "aka", "synonyms"}
	extTagKeys         = []string{"tags", "tag"}
	extPropertyKeys    = []string{"properties", "attributes", "props"}

	extSourceKeys     = []string{"source", "sourceid", "sourceentity", "sourcename", "from", "fromid", "head", "subject", "src"}
	extTargetKeys     = []string{"target", "targetid", "targetentity", "targetname", "to", "toid", "tail", "object", "dst"}
	extSourceTypeKeys = []string{"sourcetype", "headtype", "fromtype", "subjecttype"}
	extTargetTypeKeys = []string{"targettype", "tailtype", "totype", "objecttype"}
	extRelTypeKeys    = []string{"type", "relation", "relationtype", "relationship", "relationshiptype", "predicate", "label", "rel"}
	extWeightKeys     = []string{"weight", "confidence", "score", "strength", "relationshipstrength"}
	extRelDescKeys    = []string{"description", "desc", "relationshipdescription", "evidence"}
	extValidFromKeys  = []string{"validfrom", "start", "startdate", "started", "since", "begin", "validsince", "fromdate"}
	extValidToKeys    = []string{"validto", "end", "enddate", "until", "validuntil", "todate"}
	extEndedKeys      = []string{"ended"}
)

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
	if len(data) > MaxExtractionBytes {
		return Extraction{}, &ParseError{Offset: -1,
			Reason: fmt.Sprintf("input of %d bytes exceeds the limit of %d", len(data), MaxExtractionBytes)}
	}
	top, err := findExtractionObject(data)
	if err != nil {
		return Extraction{}, err
	}
	var x Extraction
	if f, ok := top.lookup(extEntityListKeys); ok {
		err := forEachElement(f, MaxExtractedEntities, "entities", func(path string, raw json.RawMessage) error {
			e, err := parseExtractedEntity(path, raw)
			x.Entities = append(x.Entities, e)
			return err
		})
		if err != nil {
			return Extraction{}, err
		}
	}
	if f, ok := top.lookup(extRelationListKeys); ok {
		err := forEachElement(f, MaxExtractedRelations, "relations", func(path string, raw json.RawMessage) error {
			r, err := parseExtractedRelation(path, raw)
			x.Relations = append(x.Relations, r)
			return err
		})
		if err != nil {
			return Extraction{}, err
		}
	}
	return x, nil
}

// scanResult is how a scan of a candidate object ended.
type scanResult uint8

const (
	scanClosed  scanResult = iota // the object's closing brace was found
	scanOpen                      // the input ended inside the object
	scanTooDeep                   // nesting passed MaxExtractionDepth
)

// scanObject scans the JSON value that starts with '{' at data[start]. It
// returns the offset just past the bracket that closes it (scanClosed), the
// input's length (scanOpen) or the offset of the first bracket nested
// deeper than MaxExtractionDepth (scanTooDeep). Brackets inside strings do
// not count; objects and arrays count together, and a mismatched closing
// bracket is left for the JSON decoder to report. The offsets of trailing
// commas (a comma followed by nothing but white space and a closing
// bracket) are appended to commas. open is set to the offsets of the
// brackets still open where the scan stopped. It uses memory bounded by
// MaxExtractionDepth whatever the depth of the input.
func scanObject(data []byte, start int, commas, open *[]int) (int, scanResult) {
	*open = (*open)[:0]
	depth := 0
	inString, escaped := false, false
	lastComma := -1
	for i := start; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString, lastComma = true, -1
		case '{', '[':
			lastComma = -1
			if depth++; depth > MaxExtractionDepth {
				return i, scanTooDeep
			}
			*open = append(*open, i)
		case '}', ']':
			if lastComma >= 0 {
				*commas = append(*commas, lastComma)
				lastComma = -1
			}
			*open = (*open)[:len(*open)-1]
			if depth--; depth == 0 {
				return i + 1, scanClosed
			}
		case ',':
			lastComma = i
		case ' ', '\t', '\n', '\r':
		default:
			lastComma = -1
		}
	}
	return len(data), scanOpen
}

// looksLikeJSON reports whether b, which starts with '{', continues the way
// a JSON object does (a key or the closing brace), so that a failure to
// decode it is worth reporting rather than a brace in prose.
func looksLikeJSON(b []byte) bool {
	rest := bytes.TrimLeft(b[1:], " \t\r\n")
	return len(rest) > 0 && (rest[0] == '"' || rest[0] == '}')
}

// findExtractionObject finds and decodes the top level of the first
// balanced JSON object in data that has an entity or relation list.
func findExtractionObject(data []byte) (extObject, error) {
	budget := 8*len(data) + 1<<16
	var firstErr *ParseError // an unterminated object, reported when nothing better is found
	unterminated := func(p int) {
		if firstErr == nil && looksLikeJSON(data[p:]) {
			firstErr = &ParseError{Offset: p, Reason: "unterminated JSON object (is the output cut off?)"}
		}
	}
	// unclosed holds, in order, the offsets of the braces that the last
	// scan to reach the end of the input left open. A scan from one of them
	// would read the same bytes in the same state and reach the end too, so
	// it is skipped: prose full of unclosed braces costs one pass, not one
	// per brace.
	var commas, open, unclosed []int
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '{')
		if j < 0 {
			break
		}
		p := i + j
		for len(unclosed) > 0 && unclosed[0] < p {
			unclosed = unclosed[1:]
		}
		if len(unclosed) > 0 && unclosed[0] == p {
			unterminated(p)
			i = p + 1
			continue
		}
		commas = commas[:0]
		end, res := scanObject(data, p, &commas, &open)
		budget -= end - p + 1
		switch res {
		case scanTooDeep:
			return extObject{}, &ParseError{Offset: end,
				Reason: fmt.Sprintf("JSON nests deeper than %d levels", MaxExtractionDepth)}
		case scanOpen:
			unterminated(p)
			unclosed = unclosed[:0]
			for _, q := range open[1:] {
				if data[q] == '{' {
					unclosed = append(unclosed, q)
				}
			}
			i = p + 1
		case scanClosed:
			cand := data[p:end]
			if len(commas) > 0 {
				// Blank trailing commas out rather than delete them, so
				// that offsets in decoding errors stay true.
				cand = bytes.Clone(cand)
				for _, c := range commas {
					cand[c-p] = ' '
				}
			}
			budget -= len(cand) // hasListKey reads it once more
			switch {
			case hasListKey(cand):
				top, err := decodeObject("", cand)
				if err == nil {
					return top, nil
				}
				if looksLikeJSON(cand) {
					return extObject{}, syntaxError(err, p)
				}
				i = p + 1 // prose that happens to quote a list key
			case looksLikeJSON(cand):
				i = end // a JSON object of something else: skip it whole
			default:
				i = p + 1 // a brace pair in prose: the object may start inside it
			}
		}
		if budget < 0 {
			return extObject{}, &ParseError{Offset: p,
				Reason: "gave up looking for a JSON object with entities or relations"}
		}
	}
	if firstErr != nil {
		return extObject{}, firstErr
	}
	return extObject{}, &ParseError{Offset: -1,
		Reason: `no JSON object with "entities" or "relations" found`}
}

// hasListKey reports whether the balanced object b has, at its top level,
// a key naming an entity or relation list. It decodes nothing, so that
// objects of anything else cost one pass over their bytes.
func hasListKey(b []byte) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			j, escaped := i+1, false
			for ; j < len(b); j++ {
				if escaped {
					escaped = false
				} else if b[j] == '\\' {
					escaped = true
				} else if b[j] == '"' {
					break
				}
			}
			if depth == 1 && j < len(b) && isListKey(b[i:j+1]) {
				if rest := bytes.TrimLeft(b[j+1:], " \t\r\n"); len(rest) > 0 && rest[0] == ':' {
					return true
				}
			}
			i = j
		}
	}
	return false
}

// isListKey reports whether the JSON string quoted is, in canonical form,
// one of the keys of an entity or relation list.
func isListKey(quoted []byte) bool {
	var buf [32]byte
	n := 0
	for _, c := range quoted[1 : len(quoted)-1] {
		if c >= utf8.RuneSelf || c == '\\' {
			var key string
			if json.Unmarshal(quoted, &key) != nil {
				return false
			}
			k := canonicalKey(key)
			return slices.Contains(extEntityListKeys, k) || slices.Contains(extRelationListKeys, k)
		}
		switch c {
		case '_', '-', ' ', '.':
			continue
		}
		if n == len(buf) {
			return false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	switch string(buf[:n]) {
	case "entities", "nodes", "relations", "edges", "relationships":
		return true
	}
	return false
}

// syntaxError turns a JSON decoding error of a candidate starting at base
// into a ParseError with an absolute offset.
func syntaxError(err error, base int) *ParseError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &ParseError{Offset: base + int(se.Offset), Reason: "invalid JSON: " + se.Error()}
	}
	return &ParseError{Offset: base, Reason: "invalid JSON: " + err.Error()}
}

// extField is one member of a JSON object: its key as written and its raw
// value.
type extField struct {
	path string // JSON path of the value
	key  string
	raw  json.RawMessage
}

// extObject is a decoded JSON object, its members indexed by canonical key.
type extObject struct {
	path   string
	fields map[string]extField
}

// canonicalKey folds a key for synonym matching: lower case, without '_',
// '-', '.' and spaces.
func canonicalKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		switch r {
		case '_', '-', ' ', '.':
			continue
		}
		b.WriteRune(textrule.FoldRune(r))
	}
	return b.String()
}

// childPath returns the path of member key of the value at path.
func childPath(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || textrule.IsWordRune(r)) {
			plain = false
			break
		}
	}
	if !plain {
		key = "[" + strconv.Quote(key) + "]"
	} else if path != "" {
		key = "." + key
	}
	return path + key
}

// decodeObject decodes raw, which must be a JSON object, at path.
func decodeObject(path string, raw []byte) (extObject, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return extObject{}, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // of keys with one canonical form, the smallest wins
	o := extObject{path: path, fields: make(map[string]extField, len(m))}
	for _, k := range keys {
		c := canonicalKey(k)
		if _, dup := o.fields[c]; !dup {
			o.fields[c] = extField{path: childPath(path, k), key: k, raw: bytes.TrimSpace(m[k])}
		}
	}
	return o, nil
}

// lookup returns the first member named by names whose value is not null.
func (o extObject) lookup(names []string) (extField, bool) {
	for _, n := range names {
		if f, ok := o.fields[n]; ok && !isNull(f.raw) {
			return f, true
		}
	}
	return extField{}, false
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// describe names the JSON value raw for an error message.
func describe(raw json.RawMessage) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case len(raw) > 40:
		return string(raw[:37]) + "..."
	}
	return string(raw)
}

func (f extField) errorf(format string, args ...any) error {
	return &ParseError{Path: f.path, Offset: -1, Reason: fmt.Sprintf(format, args...)}
}

// forEachElement calls fn with each element of the JSON array in f,
// refusing more than limit elements before decoding the one past it.
func forEachElement(f extField, limit int, what string, fn func(path string, raw json.RawMessage) error) error {
	if f.raw[0] != '[' {
		return f.errorf("want an array of %s, got %s", what, describe(f.raw))
	}
	dec := json.NewDecoder(bytes.NewReader(f.raw))
	if _, err := dec.Token(); err != nil {
		return f.errorf("invalid JSON: %v", err)
	}
	for n := 0; dec.More(); n++ {
		if n == limit {
			return f.errorf("more than %d %s", limit, what)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return f.errorf("invalid JSON: %v", err)
		}
		if err := fn(fmt.Sprintf("%s[%d]", f.path, n), bytes.TrimSpace(raw)); err != nil {
			return err
		}
	}
	return nil
}

// scalarText returns the text of a JSON string or number, the literal text
// for a number. Anything else is an error.
func (f extField) scalarText() (string, error) {
	switch c := f.raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(f.raw, &s); err != nil {
			return "", f.errorf("invalid string: %v", err)
		}
		return s, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return string(f.raw), nil
	}
	return "", f.errorf("want a string, got %s", describe(f.raw))
}

// text returns the string value of the first of names present, or "".
func (o extObject) text(names []string) (string, error) {
	f, ok := o.lookup(names)
	if !ok {
		return "", nil
	}
	return f.scalarText()
}

// textList returns a list of strings given as an array of strings or
// numbers, or as one string.
func (o extObject) textList(names []string) ([]string, error) {
	f, ok := o.lookup(names)
	if !ok {
		return nil, nil
	}
	if f.raw[0] != '[' {
		s, err := f.scalarText()
		if err != nil {
			return nil, f.errorf("want a string or an array of strings, got %s", describe(f.raw))
		}
		return []string{s}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(f.raw, &items); err != nil {
		return nil, f.errorf("invalid JSON: %v", err)
	}
	var out []string
	for i, raw := range items {
		el := extField{path: fmt.Sprintf("%s[%d]", f.path, i), raw: bytes.TrimSpace(raw)}
		if isNull(el.raw) {
			continue
		}
		s, err := el.scalarText()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// properties returns a string map from a JSON object, converting values as
// ParseExtraction documents.
func (o extObject) properties(names []string) (map[string]string, error) {
	f, ok := o.lookup(names)
	if !ok {
		return nil, nil
	}
	if f.raw[0] != '{' {
		return nil, f.errorf("want an object, got %s", describe(f.raw))
	}
	obj, err := decodeObject(f.path, f.raw)
	if err != nil {
		return nil, f.errorf("invalid JSON: %v", err)
	}
	out := make(map[string]string, len(obj.fields))
	for _, el := range obj.fields {
		switch c := el.raw[0]; {
		case isNull(el.raw):
		case c == '{' || c == '[':
			var b bytes.Buffer
			if err := json.Compact(&b, el.raw); err != nil {
				return nil, el.errorf("invalid JSON: %v", err)
			}
			out[el.key] = b.String()
		case c == 't' || c == 'f':
			out[el.key] = string(el.raw)
		default:
			s, err := el.scalarText()
			if err != nil {
				return nil, err
			}
			out[el.key] = s
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// parseWeight reads a weight: a JSON number, or a string holding a decimal
// number or a percentage. Non-finite values are errors.
func (f extField) parseWeight() (*float64, error) {
	text, pct := "", false
	switch c := f.raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(f.raw, &s); err != nil {
			return nil, f.errorf("invalid string: %v", err)
		}
		s = strings.TrimSpace(s)
		if strings.HasSuffix(s, "%") {
			s, pct = strings.TrimSpace(strings.TrimSuffix(s, "%")), true
		}
		text = s
	case c == '-' || ('0' <= c && c <= '9'):
		text = string(f.raw)
	default:
		return nil, f.errorf("want a number or a numeric string, got %s", describe(f.raw))
	}
	bad := text == "" || strings.Trim(text, "0123456789.+-eE") != ""
	w, err := strconv.ParseFloat(text, 64)
	if bad || err != nil || math.IsInf(w, 0) || math.IsNaN(w) {
		return nil, f.errorf("want a finite number or a numeric string, got %s", describe(f.raw))
	}
	if pct {
		w /= 100
	}
	return &w, nil
}

// parseDate reads a date: a string ParseValidTime reads, or a JSON number
// that is a year.
func (f extField) parseDate() (time.Time, error) {
	text, err := f.scalarText()
	if err != nil {
		return time.Time{}, f.errorf("want a date such as \"2024-03-01\", got %s", describe(f.raw))
	}
	t, err := ParseValidTime(text)
	if err != nil {
		return time.Time{}, &ParseError{Path: f.path, Offset: -1, Reason: strings.TrimPrefix(errorText(err), "kgmem: ")}
	}
	return t, nil
}

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

// parseExtractedEntity reads one element of the entity list.
func parseExtractedEntity(path string, raw json.RawMessage) (ExtractedEntity, error) {
	el := extField{path: path, raw: raw}
	switch {
	case isNull(raw):
		return ExtractedEntity{}, el.errorf("want an entity object, got null")
	case raw[0] == '"' || raw[0] == '-' || ('0' <= raw[0] && raw[0] <= '9'):
		name, err := el.scalarText()
		return ExtractedEntity{Name: name}, err
	case raw[0] != '{':
		return ExtractedEntity{}, el.errorf("want an entity object or a name, got %s", describe(raw))
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return ExtractedEntity{}, el.errorf("invalid JSON: %v", err)
	}
	var e ExtractedEntity
	if e.ID, err = o.text(extEntityIDKeys); err != nil {
		return ExtractedEntity{}, err
	}
	if e.Name, err = o.text(extEntityNameKeys); err != nil {
		return ExtractedEntity{}, err
	}
	if e.Type, err = o.text(extEntityTypeKeys); err != nil {
		return ExtractedEntity{}, err
	}
	if e.Description, err = o.text(extDescriptionKeys); err != nil {
		return ExtractedEntity{}, err
	}
	if e.Aliases, err = o.textList(extAliasKeys); err != nil {
		return ExtractedEntity{}, err
	}
	if e.Tags, err = o.textList(extTagKeys); err != nil {
		return ExtractedEntity{}, err
	}
	if e.Properties, err = o.properties(extPropertyKeys); err != nil {
		return ExtractedEntity{}, err
	}
	return e, nil
}

// endpoint reads a relation endpoint: a string or number naming the
// entity, or an object with its id (or name) and type.
func (o extObject) endpoint(names []string) (ref, typ string, err error) {
	f, ok := o.lookup(names)
	if !ok {
		return "", "", nil
	}
	if f.raw[0] != '{' {
		ref, err = f.scalarText()
		if err != nil {
			return "", "", f.errorf("want an entity name, ID or object, got %s", describe(f.raw))
		}
		return ref, "", nil
	}
	e, err := parseExtractedEntity(f.path, f.raw)
	if err != nil {
		return "", "", err
	}
	ref = e.ID
	if ref == "" {
		ref = e.Name
	}
	return ref, e.Type, nil
}

// parseExtractedRelation reads one element of the relation list.
func parseExtractedRelation(path string, raw json.RawMessage) (ExtractedRelation, error) {
	el := extField{path: path, raw: raw}
	switch {
	case isNull(raw):
		return ExtractedRelation{}, el.errorf("want a relation object, got null")
	case raw[0] == '[':
		return parseTriple(el)
	case raw[0] != '{':
		return ExtractedRelation{}, el.errorf("want a relation object or a [source, type, target] array, got %s", describe(raw))
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return ExtractedRelation{}, el.errorf("invalid JSON: %v", err)
	}
	var r ExtractedRelation
	var srcType, dstType string
	if r.Source, srcType, err = o.endpoint(extSourceKeys); err != nil {
		return ExtractedRelation{}, err
	}
	if r.Target, dstType, err = o.endpoint(extTargetKeys); err != nil {
		return ExtractedRelation{}, err
	}
	if r.SourceType, err = o.text(extSourceTypeKeys); err != nil {
		return ExtractedRelation{}, err
	}
	if r.TargetType, err = o.text(extTargetTypeKeys); err != nil {
		return ExtractedRelation{}, err
	}
	if r.Type, err = o.text(extRelTypeKeys); err != nil {
		return ExtractedRelation{}, err
	}
	if r.Description, err = o.text(extRelDescKeys); err != nil {
		return ExtractedRelation{}, err
	}
	if r.Properties, err = o.properties(extPropertyKeys); err != nil {
		return ExtractedRelation{}, err
	}
	if f, ok := o.lookup(extWeightKeys); ok {
		if r.Weight, err = f.parseWeight(); err != nil {
			return ExtractedRelation{}, err
		}
	}
	if f, ok := o.lookup(extValidFromKeys); ok {
		if r.ValidFrom, err = f.parseDate(); err != nil {
			return ExtractedRelation{}, err
		}
	}
	if f, ok := o.lookup(extValidToKeys); ok {
		if r.ValidTo, err = f.parseDate(); err != nil {
			return ExtractedRelation{}, err
		}
	}
	if f, ok := o.lookup(extEndedKeys); ok {
		switch string(f.raw) {
		case "true":
			r.Ended = true
		case "false":
		default:
			end, err := f.parseDate()
			if err != nil {
				return ExtractedRelation{}, err
			}
			if r.ValidTo.IsZero() {
				r.ValidTo = end
			}
			r.Ended = true
		}
	}
	if !r.ValidFrom.IsZero() && !r.ValidTo.IsZero() && r.ValidTo.Before(r.ValidFrom) {
		return ExtractedRelation{}, el.errorf("the end %s is before the start %s", formatValidTime(r.ValidTo), formatValidTime(r.ValidFrom))
	}
	if r.SourceType == "" {
		r.SourceType = srcType
	}
	if r.TargetType == "" {
		r.TargetType = dstType
	}
	return r, nil
}

// parseTriple reads a relation given as [source, type, target] or
// [source, type, target, weight].
func parseTriple(el extField) (ExtractedRelation, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(el.raw, &items); err != nil {
		return ExtractedRelation{}, el.errorf("invalid JSON: %v", err)
	}
	if len(items) != 3 && len(items) != 4 {
		return ExtractedRelation{}, el.errorf("want [source, type, target] or [source, type, target, weight], got an array of %d", len(items))
	}
	part := func(i int) extField {
		return extField{path: fmt.Sprintf("%s[%d]", el.path, i), raw: bytes.TrimSpace(items[i])}
	}
	var r ExtractedRelation
	for i, dst := range []*string{&r.Source, &r.Type, &r.Target} {
		f := part(i)
		if isNull(f.raw) {
			continue
		}
		s, err := f.scalarText()
		if err != nil {
			return ExtractedRelation{}, err
		}
		*dst = s
	}
	if len(items) == 4 {
		if f := part(3); !isNull(f.raw) {
			w, err := f.parseWeight()
			if err != nil {
				return ExtractedRelation{}, err
			}
			r.Weight = w
		}
	}
	return r, nil
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
