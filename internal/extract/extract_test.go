package extract

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dates reads only "2024" and "2020"; anything else is not a date.
var dates = Dates{
	Parse: func(s string) (time.Time, string) {
		switch s {
		case "":
			return time.Time{}, ""
		case "2024", "2020":
			y := 2024
			if s == "2020" {
				y = 2020
			}
			return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC), ""
		}
		return time.Time{}, "not a year: " + s
	},
	Format: func(t time.Time) string { return t.Format("2006") },
}

func TestScanObject(t *testing.T) {
	for _, tc := range []struct {
		in     string
		end    int
		res    scanResult
		commas []int
	}{
		{`{}`, 2, scanClosed, nil},
		{`{"a": "}"} tail`, 10, scanClosed, nil},
		{`{"a": [1, 2, ], }`, 17, scanClosed, []int{11, 14}},
		{`{"a": "\"}"`, 11, scanOpen, nil},
		{`{"a": {`, 7, scanOpen, nil},
		{strings.Repeat("[", MaxDepth) + "{", 0, scanTooDeep, nil},
	} {
		in := tc.in
		if tc.res == scanTooDeep {
			in = "{" + tc.in
			tc.end = MaxDepth
		}
		var commas, open []int
		end, res := scanObject([]byte(in), 0, &commas, &open)
		assert.Equal(t, tc.res, res, "%q", in)
		assert.Equal(t, tc.end, end, "%q", in)
		assert.Equal(t, tc.commas, commas, "%q", in)
	}
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Source_ID", "sourceid"}, {"source-id", "sourceid"}, {"Source ID", "sourceid"}, {"a.b", "ab"}, {"ÉNTITÉS", "éntités"},
	} {
		assert.Equal(t, tc.want, canonicalKey(tc.in), tc.in)
	}
	for _, tc := range []struct {
		quoted string
		want   bool
	}{
		{`"entities"`, true}, {`"Nodes"`, true}, {`"relation_ships"`, true}, {`"\u0065dges"`, true},
		{`"entity"`, false}, {`"` + strings.Repeat("e", 40) + `"`, false}, {`"é"`, false},
	} {
		assert.Equal(t, tc.want, isListKey([]byte(tc.quoted)), tc.quoted)
	}
	assert.True(t, hasListKey([]byte(`{"x": {"entities": 1}, "Relations" : []}`)))
	assert.False(t, hasListKey([]byte(`{"x": {"entities": []}, "y": "entities"}`)), "nested or a value")
	for _, tc := range []struct{ path, key, want string }{
		{"", "entities", "entities"}, {"entities[0]", "name", "entities[0].name"}, {"x", "a b", `x["a b"]`}, {"", "", `[""]`},
	} {
		assert.Equal(t, tc.want, childPath(tc.path, tc.key))
	}
}

func TestParseWeight(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want float64
		err  string
	}{
		{`0.8`, 0.8, ""}, {`"0.8"`, 0.8, ""}, {`"80%"`, 0.8, ""}, {`" 50 % "`, 0.5, ""}, {`-3`, -3, ""}, {`8`, 8, ""},
		{`true`, 0, "want a number or a numeric string, got true"},
		{`"NaN"`, 0, `want a finite number or a numeric string, got "NaN"`},
		{`"0x10"`, 0, `want a finite number or a numeric string, got "0x10"`},
		{`1e999`, 0, `want a finite number or a numeric string, got 1e999`},
	} {
		w, err := extField{path: "w", raw: []byte(tc.raw)}.parseWeight()
		if tc.err != "" {
			require.EqualError(t, err, "w: "+tc.err, tc.raw)
			continue
		}
		require.NoError(t, err, tc.raw)
		assert.InDelta(t, tc.want, *w, 1e-12, tc.raw)
	}
}

func TestParse(t *testing.T) {
	in := "Here you go:\n```json\n" + `{"nodes": ["A", {"entity_id": 7, "Name": "B", "aka": "Bee", "props": {"n": 1, "ok": true, "x": null, "o": {"k": [1, 2]}}}],
 "edges": [["A", "knows", "B", "50%"], {"head": {"name": "A", "type": "person"}, "tail": "B", "predicate": "met", "since": "2020", "ended": "2024",},]}` + "\n```"
	entities, relations, err := Parse([]byte(in), dates)
	require.NoError(t, err)
	assert.Equal(t, []Entity{
		{Name: "A"},
		{ID: "7", Name: "B", Aliases: []string{"Bee"}, Properties: map[string]string{"n": "1", "ok": "true", "o": `{"k":[1,2]}`}},
	}, entities)
	half := 0.5
	assert.Equal(t, []Relation{
		{Source: "A", Type: "knows", Target: "B", Weight: &half},
		{Source: "A", SourceType: "person", Target: "B", Type: "met", Ended: true,
			ValidFrom: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), ValidTo: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
	}, relations)
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{`no object`, `no JSON object with "entities" or "relations" found`},
		{`{"entities": 3}`, `entities: want an array of entities, got 3`},
		{`{"entities": [null]}`, `entities[0]: want an entity object, got null`},
		{`{"relations": [{"source": "a", "since": "yesterday"}]}`, `relations[0].since: not a year: yesterday`},
		{`{"relations": [{"source": "a", "start": "2024", "end": "2020"}]}`, `relations[0]: the end 2020 is before the start 2024`},
		{`{"relations": [["a", "b"]]}`, `relations[0]: want [source, type, target] or [source, type, target, weight], got an array of 2`},
		{`{"entities": [1 2]}`, `invalid JSON: invalid character '2' after array element (at byte 17)`},
		{`text {"entities": [`, `unterminated JSON object (is the output cut off?) (at byte 5)`},
		{strings.Repeat("{", MaxDepth+1), `JSON nests deeper than 64 levels (at byte 64)`},
	} {
		_, _, err := Parse([]byte(tc.in), dates)
		var e *Error
		require.True(t, errors.As(err, &e), "%q: %v", tc.in, err)
		assert.Equal(t, tc.msg, err.Error(), tc.in)
	}
	_, _, err := Parse(make([]byte, MaxBytes+1), dates)
	require.EqualError(t, err, "input of 8388609 bytes exceeds the limit of 8388608")
}
