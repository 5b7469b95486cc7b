package kgmem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

func weight(w float64) *float64 { return &w }

// A response the way chat models write them: prose, a fenced block, key
// synonyms, string weights, Chinese and English names.
const fencedResponse = "好的，下面是抽取结果：\n\n```json\n" + `{
  "nodes": [
    {"name": "张三", "type": "Person", "aliases": ["Zhang San"]},
    {"name": "项目A", "entity_type": "project", "other_names": "Project A"}
  ],
  "edges": [
    {"from": "张三", "to": "项目A", "predicate": "works on", "confidence": "0.85"}
  ]
}` + "\n```\n\n如需更多细节请告诉我。"

func TestParseExtraction(t *testing.T) {
	zhangsanA := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "张三", Type: "Person", Aliases: []string{"Zhang San"}},
			{Name: "项目A", Type: "project", Aliases: []string{"Project A"}},
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "张三", Target: "项目A", Type: "works on", Weight: weight(0.85)},
		},
	}
	canonical := `{"entities":[{"id":"person:alice","name":"Alice","type":"person","description":"Engineer","aliases":["Al"],"tags":["go"],"properties":{"team":"infra"}}],` +
		`"relations":[{"source":"person:alice","target":"project:x","type":"leads","weight":0.5,"description":"since 2023","properties":{"role":"lead"}}]}`
	canonicalWant := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{ID: "person:alice", Name: "Alice", Type: "person", Description: "Engineer",
			Aliases: []string{"Al"}, Tags: []string{"go"}, Properties: map[string]string{"team": "infra"}}},
		Relations: []kgmem.ExtractedRelation{{Source: "person:alice", Target: "project:x", Type: "leads", Weight: weight(0.5),
			Description: "since 2023", Properties: map[string]string{"role": "lead"}}},
	}
	tests := []struct {
		name  string
		input string
		want  kgmem.Extraction
	}{
		{name: "bare canonical JSON", input: canonical, want: canonicalWant},
		{name: "canonical JSON with surrounding white space", input: "\n\n  " + canonical + "\n", want: canonicalWant},
		{name: "fenced json block with Chinese prose and synonyms", input: fencedResponse, want: zhangsanA},
		{name: "fence without a language", input: "Result:\n```\n" + canonical + "\n```", want: canonicalWant},
		{
			name:  "prose around an unfenced object",
			input: "I found these entities: " + canonical + " Hope this helps!",
			want:  canonicalWant,
		},
		{
			name: "prose braces and a JSON object without entities come first",
			input: "Use the {name} of each entity. First my reasoning as JSON: {\"thoughts\": \"two people, one project\", \"n\": 3}\n" +
				"Then the answer:\n```json\n" + canonical + "\n```",
			want: canonicalWant,
		},
		{
			name:  "an unbalanced brace in prose before the object",
			input: "Smile :-{ here it is:\n" + canonical,
			want:  canonicalWant,
		},
		{
			name:  "a brace inside a string does not end the object",
			input: `{"entities": [{"name": "a } b", "description": "uses \"{\" and \\ escapes"}]}`,
			want:  kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "a } b", Description: `uses "{" and \ escapes`}}},
		},
		{
			name: "key spellings: case, camelCase and separators",
			input: `{"Entities": [{"Entity Name": "Alice", "EntityType": "person", "Other-Names": ["Al"], "Attributes": {"k": "v"}}],
			  "relationships": [{"sourceId": "Alice", "TARGET_ID": "Bob", "relationType": "knows", "Strength": 0.3,
			    "source_type": "person", "tail_type": "person"}]}`,
			want: kgmem.Extraction{
				Entities: []kgmem.ExtractedEntity{{Name: "Alice", Type: "person", Aliases: []string{"Al"}, Properties: map[string]string{"k": "v"}}},
				Relations: []kgmem.ExtractedRelation{{Source: "Alice", SourceType: "person", Target: "Bob", TargetType: "person",
					Type: "knows", Weight: weight(0.3)}},
			},
		},
		{
			name: "relation synonyms head/tail, subject/object, label, score",
			input: `{"relations": [
				{"head": "A", "tail": "B", "relation": "r1"},
				{"subject": "A", "object": "B", "label": "r2", "score": 1},
				{"src": "A", "dst": "B", "rel": "r3", "weight": null}]}`,
			want: kgmem.Extraction{Relations: []kgmem.ExtractedRelation{
				{Source: "A", Target: "B", Type: "r1"},
				{Source: "A", Target: "B", Type: "r2", Weight: weight(1)},
				{Source: "A", Target: "B", Type: "r3"},
			}},
		},
		{
			name: "string, percent and numeric weights",
			input: `{"relations": [
				{"source": "A", "target": "B", "type": "t", "weight": "0.8"},
				{"source": "A", "target": "B", "type": "t", "weight": " 80% "},
				{"source": "A", "target": "B", "type": "t", "weight": 1.5},
				{"source": "A", "target": "B", "type": "t", "weight": "-0.25"},
				{"source": "A", "target": "B", "type": "t", "weight": 8}]}`,
			want: kgmem.Extraction{Relations: []kgmem.ExtractedRelation{
				{Source: "A", Target: "B", Type: "t", Weight: weight(0.8)},
				{Source: "A", Target: "B", Type: "t", Weight: weight(0.8)},
				{Source: "A", Target: "B", Type: "t", Weight: weight(1.5)},
				{Source: "A", Target: "B", Type: "t", Weight: weight(-0.25)},
				{Source: "A", Target: "B", Type: "t", Weight: weight(8)},
			}},
		},
		{
			name:  "the first key of a synonym list wins",
			input: `{"entities": [{"label": "second", "name": "first", "desc": "short", "description": "long"}]}`,
			want:  kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "first", Description: "long"}}},
		},
		{
			name:  "numbers where strings are wanted keep their literal text",
			input: `{"entities": [{"id": 7, "name": 2024, "aliases": [1e3, "x"]}], "relations": [{"source": 7, "target": 8, "type": "next"}]}`,
			want: kgmem.Extraction{
				Entities:  []kgmem.ExtractedEntity{{ID: "7", Name: "2024", Aliases: []string{"1e3", "x"}}},
				Relations: []kgmem.ExtractedRelation{{Source: "7", Target: "8", Type: "next"}},
			},
		},
		{
			name: "nested and non-string properties are converted",
			input: `{"entities": [{"name": "Apollo", "properties": {
				"budget": 1.50, "active": true, "owner": null, "milestones": ["beta", "GA"],
				"lead": {"name": "Alice", "since": 2023}, "note": "ok"}}]}`,
			want: kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Apollo", Properties: map[string]string{
				"budget": "1.50", "active": "true", "milestones": `["beta","GA"]`,
				"lead": `{"name":"Alice","since":2023}`, "note": "ok",
			}}}},
		},
		{
			name:  "entities as bare names, relations as triples",
			input: `{"entities": ["张三", "项目A"], "relations": [["张三", "负责", "项目A"], ["张三", "knows", "李四", "90%"]]}`,
			want: kgmem.Extraction{
				Entities: []kgmem.ExtractedEntity{{Name: "张三"}, {Name: "项目A"}},
				Relations: []kgmem.ExtractedRelation{
					{Source: "张三", Type: "负责", Target: "项目A"},
					{Source: "张三", Type: "knows", Target: "李四", Weight: weight(0.9)},
				},
			},
		},
		{
			name:  "endpoints given as objects",
			input: `{"relations": [{"source": {"name": "张三", "type": "person"}, "target": {"id": "project:a"}, "type": "works_on"}]}`,
			want: kgmem.Extraction{Relations: []kgmem.ExtractedRelation{
				{Source: "张三", SourceType: "person", Target: "project:a", Type: "works_on"},
			}},
		},
		{
			name: "trailing commas are tolerated",
			input: "```json\n{\"entities\": [{\"name\": \"A\",}, {\"name\": \"B\"},\n],\n" +
				"\"relations\": [{\"source\": \"A\", \"target\": \"B\", \"type\": \"t\",},],}\n```",
			want: kgmem.Extraction{
				Entities:  []kgmem.ExtractedEntity{{Name: "A"}, {Name: "B"}},
				Relations: []kgmem.ExtractedRelation{{Source: "A", Target: "B", Type: "t"}},
			},
		},
		{
			name:  "null lists, null fields and unknown keys",
			input: `{"entities": [{"name": "A", "type": null, "reasoning": "mentioned twice", "aliases": [null, "B"]}], "relations": null}`,
			want:  kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "A", Aliases: []string{"B"}}}},
		},
		{
			name:  "an empty extraction",
			input: `{"entities": [], "relations": []}`,
			want:  kgmem.Extraction{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kgmem.ParseExtraction([]byte(tc.input))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseExtractionErrors(t *testing.T) {
	badJSON := `{"entities": [{"name": "A"} {"name": "B"}]}`
	var se *json.SyntaxError
	require.ErrorAs(t, json.Unmarshal([]byte(badJSON), new(any)), &se)
	const prose = "Here you go:\n"

	tests := []struct {
		name       string
		input      string
		wantPath   string
		wantOffset int
		wantIn     string // a part of the message
	}{
		{name: "weight true", input: `{"relations": [{"source": "A", "target": "B", "type": "t"}, {"source": "A", "target": "B", "type": "t", "weight": true}]}`,
			wantPath: "relations[1].weight", wantOffset: -1, wantIn: "got true"},
		{name: "weight as a word", input: `{"edges": [{"source": "A", "target": "B", "type": "t", "confidence": "high"}]}`,
			wantPath: "edges[0].confidence", wantOffset: -1, wantIn: `"high"`},
		{name: "weight NaN", input: `{"relations": [{"source": "A", "target": "B", "type": "t", "weight": "NaN"}]}`,
			wantPath: "relations[0].weight", wantOffset: -1},
		{name: "weight overflowing", input: `{"relations": [{"source": "A", "target": "B", "type": "t", "weight": 1e400}]}`,
			wantPath: "relations[0].weight", wantOffset: -1},
		{name: "weight in hex", input: `{"relations": [{"source": "A", "target": "B", "type": "t", "weight": "0x1p-2"}]}`,
			wantPath: "relations[0].weight", wantOffset: -1},
		{name: "triple weight", input: `{"relations": [["A", "t", "B", false]]}`,
			wantPath: "relations[0][3]", wantOffset: -1},
		{name: "entity list not an array", input: `{"entities": {"张三": "person"}}`,
			wantPath: "entities", wantOffset: -1, wantIn: "want an array"},
		{name: "name an object", input: `{"entities": [{"name": {"first": "San"}}]}`,
			wantPath: "entities[0].name", wantOffset: -1, wantIn: "an object"},
		{name: "alias a boolean", input: `{"entities": [{"name": "A", "aliases": ["B", true]}]}`,
			wantPath: "entities[0].aliases[1]", wantOffset: -1},
		{name: "properties an array", input: `{"entities": [{"name": "A", "attributes": ["tall"]}]}`,
			wantPath: "entities[0].attributes", wantOffset: -1},
		{name: "null entity", input: `{"entities": [null]}`, wantPath: "entities[0]", wantOffset: -1},
		{name: "entity a boolean", input: `{"entities": [false]}`, wantPath: "entities[0]", wantOffset: -1},
		{name: "relation a string", input: `{"relations": ["A knows B"]}`, wantPath: "relations[0]", wantOffset: -1},
		{name: "triple too short", input: `{"relations": [["A", "B"]]}`, wantPath: "relations[0]", wantOffset: -1},
		{name: "odd key in the path", input: `{"relations": [{"source": "A", "target": "B", "type": "t", "weight": []}]}`,
			wantPath: "relations[0].weight", wantOffset: -1},
		{name: "syntax error", input: prose + badJSON, wantOffset: len(prose) + int(se.Offset), wantIn: "invalid JSON"},
		{name: "cut off", input: prose + "```json\n{\"entities\": [{\"name\": \"A\"}, {\"na",
			wantOffset: len(prose) + len("```json\n"), wantIn: "unterminated"},
		{name: "no object at all", input: "I could not find any entities in this text.", wantOffset: -1, wantIn: "no JSON object"},
		{name: "only objects of something else", input: `{"error": "rate limited"} {"retry": true}`, wantOffset: -1},
		{name: "an array, not an object", input: `[{"name": "A"}]`, wantOffset: -1},
		{name: "empty", input: "", wantOffset: -1},
		{name: "too deep", input: `{"entities": [{"properties": {"a": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}]}`,
			wantOffset: len(`{"entities": [{"properties": {"a": `) + kgmem.MaxExtractionDepth - 4, wantIn: "deeper than 64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kgmem.ParseExtraction([]byte(tc.input))
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
			var pe *kgmem.ParseError
			require.ErrorAs(t, err, &pe)
			require.Equal(t, tc.wantPath, pe.Path, "%v", err)
			require.Equal(t, tc.wantOffset, pe.Offset, "%v", err)
			require.Contains(t, err.Error(), tc.wantIn)
			if tc.wantPath != "" {
				require.Contains(t, err.Error(), tc.wantPath+": ")
			}
		})
	}
}

func TestParseExtractionLimits(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		big := bytes.Repeat([]byte(" "), kgmem.MaxExtractionBytes+1)
		_, err := kgmem.ParseExtraction(big)
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
		require.ErrorContains(t, err, "exceeds the limit")
	})
	t.Run("entity count", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"entities": [`)
		for i := range kgmem.MaxExtractedEntities + 1 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"e"`)
		}
		b.WriteString(`]}`)
		_, err := kgmem.ParseExtraction([]byte(b.String()))
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
		require.ErrorContains(t, err, fmt.Sprintf("more than %d entities", kgmem.MaxExtractedEntities))
	})
	t.Run("depth at the limit is accepted", func(t *testing.T) {
		// The object is level 1, the list 2, the entity 3, properties 4.
		n := kgmem.MaxExtractionDepth - 4
		in := `{"entities": [{"name": "A", "properties": {"deep": ` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}]}`
		x, err := kgmem.ParseExtraction([]byte(in))
		require.NoError(t, err)
		require.Equal(t, strings.Repeat("[", n)+strings.Repeat("]", n), x.Entities[0].Properties["deep"])
		in = `{"entities": [{"name": "A", "properties": {"deep": ` + strings.Repeat("[", n+1) + strings.Repeat("]", n+1) + `}}]}`
		_, err = kgmem.ParseExtraction([]byte(in))
		require.ErrorContains(t, err, "deeper than")
	})
}

// hostileInputs are inputs built to make a parser slow or hungry.
func hostileInputs() map[string][]byte {
	const n = 100_000
	return map[string][]byte{
		"100k nested objects":                bytes.Repeat([]byte("{"), n),
		"100k nested arrays inside entities": []byte(`{"entities": ` + strings.Repeat("[", n)),
		"100k nested objects closed":         []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)),
		"100k nested arrays, no object":      bytes.Repeat([]byte("["), n),
		// A valid extraction after more prose than the size limit allows.
		"over the size limit": append(bytes.Repeat([]byte("lorem ipsum "), kgmem.MaxExtractionBytes/12+1),
			`{"entities": ["A"]}`...),
		"small objects up to the size limit": bytes.Repeat([]byte(`{"a":1} `), kgmem.MaxExtractionBytes/8),
		// Many openings that never close make every candidate scan run to
		// the end of the input.
		"unbalanced prose braces": []byte(strings.Repeat("{ ", kgmem.MaxExtractionDepth-1) +
			strings.Repeat("{} ", 300_000)),
		"many quotes and braces": bytes.Repeat([]byte(`{"\`), 300_000),
	}
}

func TestParseExtractionRejectsHostileInputQuickly(t *testing.T) {
	for name, in := range hostileInputs() {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := kgmem.ParseExtraction(in)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
			require.Less(t, elapsed, 2*time.Second, "%v", err)
			// Nothing proportional to the input or its depth: a few small
			// values for the error.
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<10), "%v", err)
		})
	}
}

func FuzzParseExtraction(f *testing.F) {
	f.Add([]byte(fencedResponse))
	f.Add([]byte(`{"entities": [{"name": "A", "aliases": ["B"]}, "B"], "relations": [["A", "t", "B", "50%"], {"from": {"name": "A"}, "to": "C", "type": "x", "weight": -3}]}`))
	f.Add([]byte("```json\n{\"entities\": [{\"name\": \"A\",},],}\n```"))
	f.Add([]byte(`prose {not json} {"status": "ok"} {"edges": [{"source": "a\"}", "target": "b", "predicate": "r"}]}`))
	f.Add([]byte(`{"entities": [{"name": "A", "properties": {"x": [1, {"y": null}], "z": false}}]}`))
	f.Add([]byte(`{"relations": [{"source": "A", "target": "A", "type": "self"}]}`))
	for name, in := range hostileInputs() {
		if name != "small objects up to the size limit" { // too slow to mutate
			f.Add(in)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := kgmem.ParseExtraction(data)
		if err != nil {
			if !errors.Is(err, kgmem.ErrInvalidArgument) {
				t.Fatalf("error does not wrap ErrInvalidArgument: %v", err)
			}
			var pe *kgmem.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			return
		}
		if len(x.Entities) > kgmem.MaxExtractedEntities || len(x.Relations) > kgmem.MaxExtractedRelations {
			t.Fatalf("limits not enforced: %d entities, %d relations", len(x.Entities), len(x.Relations))
		}
		// The canonical encoding reads back to the same extraction.
		canonical, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		again, err := kgmem.ParseExtraction(canonical)
		if err != nil {
			t.Fatalf("canonical encoding %s does not parse: %v", canonical, err)
		}
		if !reflect.DeepEqual(x, again) {
			t.Fatalf("round trip through %s:\n got %#v\nwant %#v", canonical, again, x)
		}
		// Whatever parses can be ingested leniently without an error, and
		// the graph stays consistent.
		g := kgmem.NewInMemoryGraph()
		rep, err := kgmem.Ingest(context.Background(), g, x, kgmem.WithPlaceholders(), kgmem.WithSource("page"))
		if err != nil {
			t.Fatalf("Ingest of a parsed extraction: %v", err)
		}
		if got := rep.EntitiesCreated + rep.EntitiesDeduplicated + rep.EntitiesSkipped; got != len(x.Entities) {
			t.Fatalf("entity counts %+v do not add up to %d", rep, len(x.Entities))
		}
		if got := rep.RelationsCreated + rep.RelationsDeduplicated + rep.RelationsSkipped; got != len(x.Relations) {
			t.Fatalf("relation counts %+v do not add up to %d", rep, len(x.Relations))
		}
		stats := g.Stats()
		if stats.Entities != rep.EntitiesCreated+rep.PlaceholdersCreated || stats.Relations != rep.RelationsCreated {
			t.Fatalf("graph holds %+v, report says %+v", stats, rep)
		}
	})
}
