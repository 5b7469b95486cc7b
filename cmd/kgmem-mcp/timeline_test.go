package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maria is an extraction with a timeline: Maria lived in Berlin from 2019
// to March 2024, then in Lisbon; Carol manages her.
const maria = `{"entities": [{"name": "Maria", "type": "person", "aliases": ["Mia"]}, {"name": "Berlin", "type": "city"},
 {"name": "Lisbon", "type": "city"}, {"name": "Carol", "type": "person"}],
 "relations": [{"source": "Maria", "type": "lives_in", "target": "Berlin", "valid_from": "2019-01-01", "valid_to": "2024-03-01"},
  {"source": "Maria", "type": "lives_in", "target": "Lisbon", "valid_from": "2024-03-01"},
  {"source": "Carol", "type": "manages", "target": "Maria"}]}`

// timelineMemory is a memory holding maria, whose clock reads 2025-01-01.
func timelineMemory(t *testing.T, opts ...kgmem.DurableOption) (*kgmem.Memory, *mcp.ClientSession) {
	t.Helper()
	opts = append(opts, kgmem.WithClock(func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }))
	mem, err := kgmem.OpenMemory(t.TempDir(), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	cs := connect(t, mem)
	call(t, cs, "remember", map[string]any{"extraction_text": maria}, nil)
	return mem, cs
}

// firstEntity returns the first entity item of a recall that walked a
// relation.
func firstEntity(rec RecallOutput) string {
	for _, it := range rec.Items {
		if it.Kind == "entity" && len(it.Path) > 1 {
			return it.ID
		}
	}
	return ""
}

// firstCity returns the first city a recall returns.
func firstCity(rec RecallOutput) string {
	for _, it := range rec.Items {
		if it.Type == "city" {
			return it.ID
		}
	}
	return ""
}

func TestRecallAsOf(t *testing.T) {
	_, cs := timelineMemory(t)
	tests := []struct {
		asOf string
		want string
	}{
		{"", "city:lisbon"},
		{"2023-06-01", "city:berlin"},
		{"2023-06-01T12:00:00Z", "city:berlin"},
		{"2024-02-29T23:59:59.5Z", "city:berlin"},
		{"2024-03-01T00:00:00Z", "city:lisbon"},
		{"2024-03-01T01:00:00+02:00", "city:berlin"}, // 2024-02-29T23:00Z
		{"2018-06-01", ""},                           // before Maria lived anywhere the memory knows
	}
	for _, tt := range tests {
		t.Run(tt.asOf, func(t *testing.T) {
			var rec RecallOutput
			args := map[string]any{"query": "Where does Maria live?", "strategy": "graph"}
			if tt.asOf != "" {
				args["as_of"] = tt.asOf
			}
			call(t, cs, "recall", args, &rec)
			assert.Equal(t, tt.want, firstCity(rec), "%+v", rec.Items)
		})
	}
	for _, bad := range []string{"2023", "2023-06", "2023-13-01", "2023-06-01 12:00:00", "2023-06-01T12:00:00", "yesterday", " 2023-06-01"} {
		t.Run("invalid "+bad, func(t *testing.T) {
			text := callErr(t, cs, "recall", map[string]any{"query": "Where does Maria live?", "as_of": bad})
			assert.Equal(t, `recall: as_of "`+bad+`" is not an RFC 3339 date (2023-06-01) or date-time (2023-06-01T12:00:00Z, with its offset)`, text)
		})
	}
}

func TestEntityByNameOrAlias(t *testing.T) {
	mem, cs := timelineMemory(t)
	// Two entities named Apollo, of two types.
	call(t, cs, "remember", map[string]any{"extraction_text": `{"entities": [{"name": "Apollo", "type": "project"}, {"name": "Apollo", "type": "mission"}],
		"relations": [["Maria", "works_on", "project:Apollo"]]}`}, nil)
	ents, err := mem.Graph().FindByName(context.Background(), "apollo")
	require.NoError(t, err)
	require.Len(t, ents, 2)

	tests := []struct {
		ref  string
		want string // the entity related starts at; "" for an error
		err  string
	}{
		{"person:maria", "person:maria", ""},
		{"Maria", "person:maria", ""},
		{"maria", "person:maria", ""},
		{"Mia", "person:maria", ""},
		{"  MARIA ", "person:maria", ""},
		{"project:apollo", "project:apollo", ""},
		{"Apollo", "", `related: entity_id "Apollo" names 2 entities: mission:apollo (Apollo, mission), project:apollo (Apollo, project); give one's ID`},
		{"Zed", "", `related: unknown entity "Zed" (entity_id): no entity has that ID, name or alias; recall or related list entities`},
		{" ", "", "related: entity_id is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			args := map[string]any{"entity_id": tt.ref}
			if tt.err != "" {
				assert.Equal(t, tt.err, callErr(t, cs, "related", args))
				return
			}
			var rel RelatedOutput
			call(t, cs, "related", args, &rel)
			require.NotEmpty(t, rel.Entities)
			for _, e := range rel.Entities {
				assert.Equal(t, tt.want, e.Path[0])
			}
		})
	}

	// paths by names, and an ambiguous end.
	var ps PathsOutput
	call(t, cs, "paths", map[string]any{"from": "Carol", "to": "lisbon"}, &ps)
	require.Len(t, ps.Paths, 1)
	assert.Equal(t, []string{"person:carol", "person:maria", "city:lisbon"}, ps.Paths[0].EntityIDs)
	assert.Equal(t, `paths: to "Apollo" names 2 entities: mission:apollo (Apollo, mission), project:apollo (Apollo, project); give one's ID`,
		callErr(t, cs, "paths", map[string]any{"from": "Carol", "to": "Apollo"}))
	// forget takes a name too, and refuses an ambiguous one.
	assert.Equal(t, `forget: entity_id "Apollo" names 2 entities: mission:apollo (Apollo, mission), project:apollo (Apollo, project); give one's ID`,
		callErr(t, cs, "forget", map[string]any{"entity_id": "Apollo"}))
	var f ForgetOutput
	call(t, cs, "forget", map[string]any{"entity_id": "Carol"}, &f)
	assert.Equal(t, ForgetOutput{EntitiesRemoved: 1}, f)
	_, ok, err := mem.Graph().GetEntity(context.Background(), "person:carol")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestEntityCandidatesBounded(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem)
	var ents []kgmem.Entity
	for _, typ := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		ents = append(ents, kgmem.Entity{ID: typ + ":x", Name: "X", Type: typ})
	}
	require.NoError(t, mem.Graph().AddBatch(context.Background(), ents, nil))
	assert.Equal(t, `related: entity_id "x" names 12 entities: a:x (X, a), b:x (X, b), c:x (X, c), d:x (X, d), e:x (X, e), `+
		`f:x (X, f), g:x (X, g), h:x (X, h), i:x (X, i), j:x (X, j), and 2 more; give one's ID`,
		callErr(t, cs, "related", map[string]any{"entity_id": "x"}))
}

func TestHistory(t *testing.T) {
	_, cs := timelineMemory(t)
	berlin := Fact{Source: "person:maria", SourceName: "Maria", Type: "lives_in", Target: "city:berlin", TargetName: "Berlin",
		ValidFrom: "2019-01-01T00:00:00Z", ValidTo: "2024-03-01T00:00:00Z"}
	lisbon := Fact{Source: "person:maria", SourceName: "Maria", Type: "lives_in", Target: "city:lisbon", TargetName: "Lisbon",
		ValidFrom: "2024-03-01T00:00:00Z", Current: true}
	manages := Fact{Source: "person:carol", SourceName: "Carol", Type: "manages", Target: "person:maria", TargetName: "Maria", Current: true}
	tests := []struct {
		name string
		args map[string]any
		want []Fact
		text string
	}{
		{"both directions by default", map[string]any{"entity": "Maria"}, []Fact{manages, berlin, lisbon},
			"Carol —manages→ Maria\nMaria —lives_in→ Berlin (2019 → 2024-03) [ended]\nMaria —lives_in→ Lisbon (2024-03 →)\n"},
		{"outgoing", map[string]any{"entity": "person:maria", "direction": "outgoing"}, []Fact{berlin, lisbon},
			"Maria —lives_in→ Berlin (2019 → 2024-03) [ended]\nMaria —lives_in→ Lisbon (2024-03 →)\n"},
		{"incoming", map[string]any{"entity": "Mia", "direction": "incoming"}, []Fact{manages}, "Carol —manages→ Maria\n"},
		{"one type", map[string]any{"entity": "Maria", "relation_types": []string{"manages"}}, []Fact{manages}, "Carol —manages→ Maria\n"},
		{"a target's timeline", map[string]any{"entity": "Berlin"}, []Fact{berlin}, "Maria —lives_in→ Berlin (2019 → 2024-03) [ended]\n"},
		{"nothing", map[string]any{"entity": "Berlin", "direction": "outgoing"}, []Fact{}, "No facts about Berlin."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out HistoryOutput
			text := call(t, cs, "history", tt.args, &out)
			assert.Equal(t, tt.want, out.Facts)
			assert.Equal(t, tt.text, text)
		})
	}
	assert.Equal(t, `history: unknown direction "up": use both, outgoing or incoming`, callErr(t, cs, "history", map[string]any{"entity": "Maria", "direction": "up"}))
	assert.Equal(t, "history: entity is empty", callErr(t, cs, "history", map[string]any{"entity": ""}))
}

func TestParseTypes(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"  ", nil, ""},
		{"lives_in", []string{"lives_in"}, ""},
		{"lives_in, works_at ,职位", []string{"lives_in", "works_at", "职位"}, ""},
		{"lives_in,,works_at", nil, `-single-valued "lives_in,,works_at": an empty relation type`},
		{"lives_in,", nil, `-single-valued "lives_in,": an empty relation type`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseTypes(tt.in)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	dir := filepath.Join(t.TempDir(), "m")
	assert.EqualError(t, run([]string{"-dir", dir, "-single-valued", "a,,b"}), `-single-valued "a,,b": an empty relation type`)
	_, err := os.Stat(dir)
	assert.ErrorIs(t, err, os.ErrNotExist, "the memory is not opened")
}

// TestSingleValuedFlag: -single-valued is kept in the memory's schema;
// a start without it keeps superseding, and remember ends the old value.
func TestSingleValuedFlag(t *testing.T) {
	dir := t.TempDir()
	ptr := func(s string) *string { return &s }
	steps := []struct {
		flag *string // nil: the flag is left out
		want []string
	}{
		{ptr("lives_in, works_at"), []string{"lives_in", "works_at"}},
		{nil, []string{"lives_in", "works_at"}},
		{ptr("lives_in"), []string{"lives_in"}},
		{nil, []string{"lives_in"}},
		{ptr(""), nil},
		{nil, nil},
	}
	for i, st := range steps {
		mem, err := openMemoryDir(dir, st.flag)
		require.NoError(t, err, "step %d", i)
		assert.Equal(t, st.want, mem.Schema().SingleValued, "step %d", i)
		require.NoError(t, mem.Close())
	}

	mem, err := openMemoryDir(dir, ptr("lives_in"))
	require.NoError(t, err)
	require.NoError(t, mem.Close())
	mem, err = openMemoryDir(dir, nil)
	require.NoError(t, err)
	defer mem.Close()
	cs := connect(t, mem)
	call(t, cs, "remember", map[string]any{"extraction_text": `{"entities": ["Bob", "Paris"], "relations": [["Bob", "lives_in", "Paris"]]}`}, nil)
	call(t, cs, "remember", map[string]any{"extraction_text": `{"entities": ["Bob", "Rome"], "relations": [["Bob", "lives_in", "Rome"]]}`}, nil)
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "Where does Bob live?", "strategy": "graph"}, &rec)
	assert.Equal(t, "entity:rome", firstEntity(rec), "%+v", rec.Items)
	var out HistoryOutput
	call(t, cs, "history", map[string]any{"entity": "Bob"}, &out)
	require.Len(t, out.Facts, 2)
	assert.Equal(t, []bool{false, true}, []bool{out.Facts[0].Current, out.Facts[1].Current}, "Paris ended, Rome holds: %+v", out.Facts)
	assert.Equal(t, "entity:paris", out.Facts[0].Target)
}

// TestRecallUsesTheVocabulary: recall reads questions with the memory's
// stored vocabulary.
func TestRecallUsesTheVocabulary(t *testing.T) {
	mem, cs := timelineMemory(t)
	call(t, cs, "remember", map[string]any{"extraction_text": `{"entities": ["Maria", {"name": "Dave", "type": "person"}], "relations": [["Dave", "mentors", "Maria"]]}`}, nil)
	q := map[string]any{"query": "who is the overseer of Maria?", "strategy": "graph"}
	var rec RecallOutput
	call(t, cs, "recall", q, &rec)
	assert.Equal(t, "person:carol", firstEntity(rec), "without a vocabulary the two relations tie, broken by ID: %+v", rec.Items)
	require.NoError(t, mem.SetSchema(context.Background(), kgmem.Schema{Vocabulary: kgmem.Vocabulary{InverseRelations: map[string][]string{"mentors": {"overseer"}}}}))
	call(t, cs, "recall", q, &rec)
	assert.Equal(t, "person:dave", firstEntity(rec), "%+v", rec.Items)
}
