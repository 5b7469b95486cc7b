// Package extract reads an extraction, the entities and relations an
// extraction model says a text contains, from the model's response: it
// finds the JSON object among prose and code fences, tolerates trailing
// commas, matches keys by their synonyms and converts values leniently, in
// bounded time and memory.
//
// It works on plain data and returns its own Entity and Relation, whose
// fields are those of kgmem.ExtractedEntity and kgmem.ExtractedRelation, so
// that package kgmem converts them as they are; kgmem.ParseExtraction
// documents the rules its users see. Every error is an *Error.
package extract

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

	"github.com/kgmem/kgmem/internal/textrule"
)

// Limits of Parse (kgmem.MaxExtractionBytes, MaxExtractionDepth,
// MaxExtractedEntities and MaxExtractedRelations, which equal them).
const (
	MaxBytes     = 8 << 20 // the largest input read
	MaxDepth     = 64      // the deepest nesting of objects and arrays, the extraction object counting as 1
	MaxEntities  = 10_000  // the most entities
	MaxRelations = 50_000  // the most relations
)

// Entity is an entity as a model reports it (kgmem.ExtractedEntity).
type Entity struct {
	ID          string
	Name        string
	Type        string
	Description string
	Aliases     []string
	Tags        []string
	Properties  map[string]string
}

// Relation is a relation as a model reports it (kgmem.ExtractedRelation).
type Relation struct {
	Source      string
	SourceType  string
	Target      string
	TargetType  string
	Type        string
	Weight      *float64
	Description string
	Properties  map[string]string
	ValidFrom   time.Time
	ValidTo     time.Time
	Ended       bool
}

// Dates reads and writes the dates of relations.
type Dates struct {
	// Parse reads a date as models write it; it returns the zero time for
	// none, or a reason the text is not a date.
	Parse func(text string) (t time.Time, reason string)
	// Format writes a date for an error message.
	Format func(time.Time) string
}

// Error is an input Parse cannot understand: where and why.
type Error struct {
	// Path locates the offending value inside the extraction object, such
	// as "relations[3].weight"; empty when the problem is not one value.
	Path string
	// Offset is the byte offset in the input at which the problem was
	// found, or -1 when only Path locates it.
	Offset int
	// Reason says what is wrong.
	Reason string
}

// Error returns the path, the reason and the offset.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (at byte %d)", e.Offset)
	}
	return b.String()
}

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

// Parse reads the entities and relations of the first balanced JSON object
// in data whose top level has an entity or relation list, as
// kgmem.ParseExtraction documents, reading relation dates with dates.
func Parse(data []byte, dates Dates) ([]Entity, []Relation, error) {
	if len(data) > MaxBytes {
		return nil, nil, &Error{Offset: -1,
			Reason: fmt.Sprintf("input of %d bytes exceeds the limit of %d", len(data), MaxBytes)}
	}
	top, err := findExtractionObject(data)
	if err != nil {
		return nil, nil, err
	}
	var entities []Entity
	var relations []Relation
	if f, ok := top.lookup(extEntityListKeys); ok {
		err := forEachElement(f, MaxEntities, "entities", func(path string, raw json.RawMessage) error {
			e, err := parseEntity(path, raw)
			entities = append(entities, e)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if f, ok := top.lookup(extRelationListKeys); ok {
		err := forEachElement(f, MaxRelations, "relations", func(path string, raw json.RawMessage) error {
			r, err := parseRelation(path, raw, &dates)
			relations = append(relations, r)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return entities, relations, nil
}

// scanResult is how a scan of a candidate object ended.
type scanResult uint8

const (
	scanClosed  scanResult = iota // the object's closing brace was found
	scanOpen                      // the input ended inside the object
	scanTooDeep                   // nesting passed MaxDepth
)

// scanObject scans the JSON value that starts with '{' at data[start]. It
// returns the offset just past the bracket that closes it (scanClosed), the
// input's length (scanOpen) or the offset of the first bracket nested
// deeper than MaxDepth (scanTooDeep). Brackets inside strings do
// not count; objects and arrays count together, and a mismatched closing
// bracket is left for the JSON decoder to report. The offsets of trailing
// commas (a comma followed by nothing but white space and a closing
// bracket) are appended to commas. open is set to the offsets of the
// brackets still open where the scan stopped. It uses memory bounded by
// MaxDepth whatever the depth of the input.
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
			if depth++; depth > MaxDepth {
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
	var firstErr *Error // an unterminated object, reported when nothing better is found
	unterminated := func(p int) {
		if firstErr == nil && looksLikeJSON(data[p:]) {
			firstErr = &Error{Offset: p, Reason: "unterminated JSON object (is the output cut off?)"}
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
			return extObject{}, &Error{Offset: end,
				Reason: fmt.Sprintf("JSON nests deeper than %d levels", MaxDepth)}
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
			return extObject{}, &Error{Offset: p,
				Reason: "gave up looking for a JSON object with entities or relations"}
		}
	}
	if firstErr != nil {
		return extObject{}, firstErr
	}
	return extObject{}, &Error{Offset: -1,
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
// into a Error with an absolute offset.
func syntaxError(err error, base int) *Error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{Offset: base + int(se.Offset), Reason: "invalid JSON: " + se.Error()}
	}
	return &Error{Offset: base, Reason: "invalid JSON: " + err.Error()}
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
	return &Error{Path: f.path, Offset: -1, Reason: fmt.Sprintf(format, args...)}
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

// parseDate reads a date: a string dates.Parse reads, or a JSON number
// that is a year.
func (f extField) parseDate(dates *Dates) (time.Time, error) {
	text, err := f.scalarText()
	if err != nil {
		return time.Time{}, f.errorf("want a date such as \"2024-03-01\", got %s", describe(f.raw))
	}
	t, reason := dates.Parse(text)
	if reason != "" {
		return time.Time{}, &Error{Path: f.path, Offset: -1, Reason: reason}
	}
	return t, nil
}

// parseEntity reads one element of the entity list.
func parseEntity(path string, raw json.RawMessage) (Entity, error) {
	el := extField{path: path, raw: raw}
	switch {
	case isNull(raw):
		return Entity{}, el.errorf("want an entity object, got null")
	case raw[0] == '"' || raw[0] == '-' || ('0' <= raw[0] && raw[0] <= '9'):
		name, err := el.scalarText()
		return Entity{Name: name}, err
	case raw[0] != '{':
		return Entity{}, el.errorf("want an entity object or a name, got %s", describe(raw))
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return Entity{}, el.errorf("invalid JSON: %v", err)
	}
	var e Entity
	if e.ID, err = o.text(extEntityIDKeys); err != nil {
		return Entity{}, err
	}
	if e.Name, err = o.text(extEntityNameKeys); err != nil {
		return Entity{}, err
	}
	if e.Type, err = o.text(extEntityTypeKeys); err != nil {
		return Entity{}, err
	}
	if e.Description, err = o.text(extDescriptionKeys); err != nil {
		return Entity{}, err
	}
	if e.Aliases, err = o.textList(extAliasKeys); err != nil {
		return Entity{}, err
	}
	if e.Tags, err = o.textList(extTagKeys); err != nil {
		return Entity{}, err
	}
	if e.Properties, err = o.properties(extPropertyKeys); err != nil {
		return Entity{}, err
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
	e, err := parseEntity(f.path, f.raw)
	if err != nil {
		return "", "", err
	}
	ref = e.ID
	if ref == "" {
		ref = e.Name
	}
	return ref, e.Type, nil
}

// parseRelation reads one element of the relation list.
func parseRelation(path string, raw json.RawMessage, dates *Dates) (Relation, error) {
	el := extField{path: path, raw: raw}
	switch {
	case isNull(raw):
		return Relation{}, el.errorf("want a relation object, got null")
	case raw[0] == '[':
		return parseTriple(el)
	case raw[0] != '{':
		return Relation{}, el.errorf("want a relation object or a [source, type, target] array, got %s", describe(raw))
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return Relation{}, el.errorf("invalid JSON: %v", err)
	}
	var r Relation
	var srcType, dstType string
	if r.Source, srcType, err = o.endpoint(extSourceKeys); err != nil {
		return Relation{}, err
	}
	if r.Target, dstType, err = o.endpoint(extTargetKeys); err != nil {
		return Relation{}, err
	}
	if r.SourceType, err = o.text(extSourceTypeKeys); err != nil {
		return Relation{}, err
	}
	if r.TargetType, err = o.text(extTargetTypeKeys); err != nil {
		return Relation{}, err
	}
	if r.Type, err = o.text(extRelTypeKeys); err != nil {
		return Relation{}, err
	}
	if r.Description, err = o.text(extRelDescKeys); err != nil {
		return Relation{}, err
	}
	if r.Properties, err = o.properties(extPropertyKeys); err != nil {
		return Relation{}, err
	}
	if f, ok := o.lookup(extWeightKeys); ok {
		if r.Weight, err = f.parseWeight(); err != nil {
			return Relation{}, err
		}
	}
	if f, ok := o.lookup(extValidFromKeys); ok {
		if r.ValidFrom, err = f.parseDate(dates); err != nil {
			return Relation{}, err
		}
	}
	if f, ok := o.lookup(extValidToKeys); ok {
		if r.ValidTo, err = f.parseDate(dates); err != nil {
			return Relation{}, err
		}
	}
	if f, ok := o.lookup(extEndedKeys); ok {
		switch string(f.raw) {
		case "true":
			r.Ended = true
		case "false":
		default:
			end, err := f.parseDate(dates)
			if err != nil {
				return Relation{}, err
			}
			if r.ValidTo.IsZero() {
				r.ValidTo = end
			}
			r.Ended = true
		}
	}
	if !r.ValidFrom.IsZero() && !r.ValidTo.IsZero() && r.ValidTo.Before(r.ValidFrom) {
		return Relation{}, el.errorf("the end %s is before the start %s", dates.Format(r.ValidTo), dates.Format(r.ValidFrom))
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
func parseTriple(el extField) (Relation, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(el.raw, &items); err != nil {
		return Relation{}, el.errorf("invalid JSON: %v", err)
	}
	if len(items) != 3 && len(items) != 4 {
		return Relation{}, el.errorf("want [source, type, target] or [source, type, target, weight], got an array of %d", len(items))
	}
	part := func(i int) extField {
		return extField{path: fmt.Sprintf("%s[%d]", el.path, i), raw: bytes.TrimSpace(items[i])}
	}
	var r Relation
	for i, dst := range []*string{&r.Source, &r.Type, &r.Target} {
		f := part(i)
		if isNull(f.raw) {
			continue
		}
		s, err := f.scalarText()
		if err != nil {
			return Relation{}, err
		}
		*dst = s
	}
	if len(items) == 4 {
		if f := part(3); !isNull(f.raw) {
			w, err := f.parseWeight()
			if err != nil {
				return Relation{}, err
			}
			r.Weight = w
		}
	}
	return r, nil
}
