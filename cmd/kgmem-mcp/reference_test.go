package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refCall calls a reference tool that must succeed, decodes its structured
// result into out, and checks that its text is that result as the
// reference server renders it (JSON indented by two spaces; the create
// and add tools render the list alone, the delete tools the message).
func refCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	text := call(t, cs, name, args, out)
	var want any
	switch o := out.(type) {
	case *CreateEntitiesOutput:
		want = o.Entities
	case *CreateRelationsOutput:
		want = o.Relations
	case *AddObservationsOutput:
		want = o.Results
	case *Status:
		assert.True(t, o.Success)
		assert.Equal(t, o.Message, text)
		return
	default:
		want = out
	}
	b, err := json.MarshalIndent(want, "", "  ")
	require.NoError(t, err)
	assert.Equal(t, string(b), text, name)
}

func john(obs ...string) RefEntity {
	return RefEntity{Name: "John_Smith", EntityType: "person", Observations: obs}
}

var (
	anthropic = RefEntity{Name: "Anthropic", EntityType: "organization", Observations: []string{}}
	worksAt   = RefRelation{From: "John_Smith", To: "Anthropic", RelationType: "works_at"}
)

// The reference memory server's example conversation, with the argument
// shapes an assistant written for it sends: create entities with
// observations, relate them, add observations, search, open, delete.
func TestReferenceConversation(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem)
	ctx := context.Background()

	var ce CreateEntitiesOutput
	refCall(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "John_Smith", "entityType": "person", "observations": []any{"Speaks fluent Spanish"}},
		map[string]any{"name": "Anthropic", "entityType": "organization", "observations": []any{}},
		map[string]any{"name": "Anthropic", "entityType": "organization", "observations": []any{"a duplicate in the batch"}},
	}}, &ce)
	assert.Equal(t, []RefEntity{john("Speaks fluent Spanish"), anthropic}, ce.Entities)
	// An existing name is skipped, as the reference server skips it, by
	// its name or its ID.
	refCall(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "John_Smith", "entityType": "person", "observations": []any{"ignored"}},
		map[string]any{"name": "person:john_smith", "entityType": "person", "observations": []any{}},
	}}, &ce)
	assert.Empty(t, ce.Entities)

	var cr CreateRelationsOutput
	refCall(t, cs, "create_relations", map[string]any{"relations": []any{
		map[string]any{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
	}}, &cr)
	assert.Equal(t, []RefRelation{worksAt}, cr.Relations)
	refCall(t, cs, "create_relations", map[string]any{"relations": []any{
		map[string]any{"from": "john smith", "to": "organization:anthropic", "relationType": "works_at"},
	}}, &cr)
	assert.Empty(t, cr.Relations, "a duplicate, by other names")

	var ao AddObservationsOutput
	refCall(t, cs, "add_observations", map[string]any{"observations": []any{
		map[string]any{"entityName": "John_Smith", "contents": []any{"Graduated in 2019", "Prefers morning meetings", "Speaks fluent Spanish"}},
	}}, &ao)
	assert.Equal(t, []AddedObservations{{EntityName: "John_Smith", AddedObservations: []string{"Graduated in 2019", "Prefers morning meetings"}}}, ao.Results)

	full := KnowledgeGraph{
		Entities:  []RefEntity{anthropic, john("Speaks fluent Spanish", "Graduated in 2019", "Prefers morning meetings")},
		Relations: []RefRelation{worksAt},
	}
	var g KnowledgeGraph
	refCall(t, cs, "read_graph", map[string]any{}, &g)
	assert.Equal(t, full, g)

	// search_nodes finds an observation, by a word of it (ranked
	// retrieval) and by a part of a word (the reference server's match).
	for _, q := range []string{"Spanish", "Who speaks Spanish?", "spani"} {
		refCall(t, cs, "search_nodes", map[string]any{"query": q}, &g)
		assert.Equal(t, KnowledgeGraph{Entities: full.Entities[1:], Relations: []RefRelation{worksAt}}, g, q)
	}
	refCall(t, cs, "search_nodes", map[string]any{"query": "quantum chromodynamics"}, &g)
	assert.Equal(t, KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}, g)

	// recall finds the observation as a page of its entity.
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "Who speaks Spanish?"}, &rec)
	require.NotEmpty(t, rec.Items)
	assert.Equal(t, obsPageID("person:john_smith", "Speaks fluent Spanish"), rec.Items[0].ID)
	assert.Equal(t, "page", rec.Items[0].Kind)
	assert.Equal(t, "John_Smith", rec.Items[0].Name)
	assert.Contains(t, rec.Context, "Speaks fluent Spanish")

	// open_nodes: the named entities and every relation that touches one;
	// a name that names nothing is left out.
	refCall(t, cs, "open_nodes", map[string]any{"names": []any{"Anthropic", "Nobody"}}, &g)
	assert.Equal(t, KnowledgeGraph{Entities: []RefEntity{anthropic}, Relations: []RefRelation{worksAt}}, g)
	refCall(t, cs, "open_nodes", map[string]any{"names": []any{"John_Smith", "person:john_smith"}}, &g)
	assert.Equal(t, KnowledgeGraph{Entities: full.Entities[1:], Relations: []RefRelation{worksAt}}, g)

	// delete_observations removes that observation's page and citation.
	var st Status
	gone := obsPageID("person:john_smith", "Prefers morning meetings")
	refCall(t, cs, "delete_observations", map[string]any{"deletions": []any{
		map[string]any{"entityName": "John_Smith", "observations": []any{"Prefers morning meetings"}},
	}}, &st)
	assert.Equal(t, "Observations deleted successfully", st.Message)
	_, ok, err := mem.Store().Get(ctx, gone)
	require.NoError(t, err)
	assert.False(t, ok)
	e, ok, err := mem.Graph().GetEntity(ctx, "person:john_smith")
	require.NoError(t, err)
	require.True(t, ok)
	assert.NotContains(t, e.SourceIDs, gone)
	refCall(t, cs, "open_nodes", map[string]any{"names": []any{"John_Smith"}}, &g)
	assert.Equal(t, []RefEntity{john("Speaks fluent Spanish", "Graduated in 2019")}, g.Entities)
	call(t, cs, "recall", map[string]any{"query": "morning meetings"}, &rec)
	for _, it := range rec.Items {
		assert.NotEqual(t, gone, it.ID)
	}
	refCall(t, cs, "delete_observations", map[string]any{"deletions": []any{
		map[string]any{"entityName": "John_Smith", "observations": []any{"Prefers morning meetings"}},
		map[string]any{"entityName": "Nobody", "observations": []any{"x"}},
	}}, &st)
	assert.Equal(t, "Deleted 0 of 2 observations. Entities not found: Nobody", st.Message)

	// delete_relations
	refCall(t, cs, "delete_relations", map[string]any{"relations": []any{
		map[string]any{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
		map[string]any{"from": "John_Smith", "to": "Anthropic", "relationType": "founded"},
	}}, &st)
	assert.Equal(t, "Deleted 1 of 2 relations. The rest matched nothing.", st.Message)
	refCall(t, cs, "read_graph", map[string]any{}, &g)
	assert.Empty(t, g.Relations)

	// delete_entities takes the entity's observations with it.
	refCall(t, cs, "delete_entities", map[string]any{"entityNames": []any{"John_Smith", "Nobody"}}, &st)
	assert.Equal(t, "Deleted 1 of 2 entities. Not found: Nobody", st.Message)
	refCall(t, cs, "read_graph", map[string]any{}, &g)
	assert.Equal(t, KnowledgeGraph{Entities: []RefEntity{anthropic}, Relations: []RefRelation{}}, g)
	assert.Zero(t, mem.Store().Len(), "observation pages left")
	refCall(t, cs, "delete_entities", map[string]any{"entityNames": []any{"Anthropic"}}, &st)
	assert.Equal(t, "Entities deleted successfully", st.Message)
}

// A bad call of a reference tool is an error and changes nothing.
func TestReferenceErrors(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem)
	ctx := context.Background()
	var ce CreateEntitiesOutput
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Apollo", "entityType": "project", "observations": []any{"Started in 2024"}},
		map[string]any{"name": "Apollo", "entityType": "mission", "observations": []any{}}, // skipped: the name exists
	}}, &ce)
	require.Len(t, ce.Entities, 1)
	// A second Apollo, by another route.
	call(t, cs, "remember", map[string]any{"extraction": map[string]any{"entities": []any{map[string]any{"name": "Apollo", "type": "mission"}}}}, nil)
	beforeE, _ := mem.Graph().Entities(ctx)
	beforeR, _ := mem.Graph().Relations(ctx)
	beforeP := mem.Store().Len()

	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": " ", "entityType": "x", "observations": []any{}}}}, "entities[0].name is empty"},
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "B", "entityType": "x", "observations": []any{""}}}}, "entities[0].observations[0] is empty"},
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "B"}}}, "entityType"},
		{"create_entities", map[string]any{"entities": []any{
			map[string]any{"name": "Fine", "entityType": "x", "observations": []any{}},
			map[string]any{"name": strings.Repeat("n", 5000), "entityType": "x", "observations": []any{}}}}, "entities[1]: "},
		{"create_relations", map[string]any{"relations": []any{map[string]any{"from": "project:apollo", "to": "mission:apollo", "relationType": strings.Repeat("r", 5000)}}},
			"relations[0]: "},
		{"create_relations", map[string]any{"relations": []any{map[string]any{"from": "project:apollo", "to": "Nobody", "relationType": "r"}}},
			`unknown entity "Nobody" (relations[0].to)`},
		{"create_relations", map[string]any{"relations": []any{map[string]any{"from": "Apollo", "to": "project:apollo", "relationType": "r"}}},
			`relations[0].from "Apollo" names 2 entities: mission:apollo (Apollo, mission), project:apollo (Apollo, project); give one's ID`},
		{"create_relations", map[string]any{"relations": []any{map[string]any{"from": "project:apollo", "to": "mission:apollo", "relationType": ""}}},
			"relations[0].relationType is empty"},
		{"add_observations", map[string]any{"observations": []any{map[string]any{"entityName": "Nobody", "contents": []any{"x"}}}}, `unknown entity "Nobody"`},
		{"add_observations", map[string]any{"observations": []any{
			map[string]any{"entityName": "project:apollo", "contents": []any{"fine"}},
			map[string]any{"entityName": "Apollo", "contents": []any{"x"}}}}, "names 2 entities"},
		{"delete_entities", map[string]any{"entityNames": []any{"project:apollo", "Apollo"}}, "names 2 entities"},
		{"delete_observations", map[string]any{"deletions": []any{map[string]any{"entityName": "Apollo", "observations": []any{"Started in 2024"}}}}, "names 2 entities"},
		{"delete_relations", map[string]any{"relations": []any{map[string]any{"from": "Apollo", "to": "x", "relationType": "r"}}}, "names 2 entities"},
		{"search_nodes", map[string]any{"query": string(make([]byte, maxQuery+1))}, "more than 2048"},
		{"open_nodes", map[string]any{}, "names"},
	}
	for _, tt := range tests {
		assert.Contains(t, callErr(t, cs, tt.tool, tt.args), tt.want, "%s %v", tt.tool, tt.args)
	}
	afterE, _ := mem.Graph().Entities(ctx)
	afterR, _ := mem.Graph().Relations(ctx)
	assert.Equal(t, beforeE, afterE)
	assert.Equal(t, beforeR, afterR)
	assert.Equal(t, beforeP, mem.Store().Len())

	// open_nodes answers an ambiguous name with every candidate.
	var g KnowledgeGraph
	call(t, cs, "open_nodes", map[string]any{"names": []any{"Apollo"}}, &g)
	assert.Equal(t, []RefEntity{{Name: "Apollo", EntityType: "mission", Observations: []string{}},
		{Name: "Apollo", EntityType: "project", Observations: []string{"Started in 2024"}}}, g.Entities)
}

// forget on an observation's page removes the observation, not its
// entity; forget on the entity removes its observations.
func TestForgetObservation(t *testing.T) {
	mem := openMemory(t)
	cs := connect(t, mem)
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Maria", "entityType": "person", "observations": []any{"Plays chess", "Likes tea"}}}}, nil)
	var f ForgetOutput
	call(t, cs, "forget", map[string]any{"page_id": obsPageID("person:maria", "Plays chess")}, &f)
	assert.Equal(t, ForgetOutput{PageRemoved: true, EntitiesUpdated: 1}, f)
	var g KnowledgeGraph
	call(t, cs, "open_nodes", map[string]any{"names": []any{"Maria"}}, &g)
	assert.Equal(t, []RefEntity{{Name: "Maria", EntityType: "person", Observations: []string{"Likes tea"}}}, g.Entities)
	call(t, cs, "forget", map[string]any{"entity_id": "Maria"}, &f)
	assert.Equal(t, ForgetOutput{EntitiesRemoved: 1}, f)
	assert.Zero(t, mem.Store().Len())
}

// Every property of every tool's input and output schema has one type,
// as strict tool-schema validators require.
func TestSchemasStrict(t *testing.T) {
	cs := connect(t, openMemory(t))
	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var check func(tool, at string, s map[string]any)
	check = func(tool, at string, s map[string]any) {
		typ, ok := s["type"].(string)
		assert.True(t, ok, "%s %s: type %v", tool, at, s["type"])
		if props, ok := s["properties"].(map[string]any); ok {
			for name, p := range props {
				check(tool, at+"."+name, p.(map[string]any))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			check(tool, at+"[]", items)
		}
		if typ == "array" {
			assert.Contains(t, s, "items", "%s %s", tool, at)
		}
	}
	for _, tool := range tools.Tools {
		for _, schema := range []any{tool.InputSchema, tool.OutputSchema} {
			b, err := json.Marshal(schema)
			require.NoError(t, err)
			var s map[string]any
			require.NoError(t, json.Unmarshal(b, &s))
			check(tool.Name, "$", s)
		}
	}
	// The reference tools take the reference server's shapes.
	for _, tool := range tools.Tools {
		if tool.Name != "create_entities" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties struct {
				Entities struct {
					Items struct {
						Properties map[string]struct {
							Type string `json:"type"`
						} `json:"properties"`
						Required []string `json:"required"`
					} `json:"items"`
				} `json:"entities"`
			} `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(b, &s))
		it := s.Properties.Entities.Items
		assert.Equal(t, "string", it.Properties["name"].Type)
		assert.Equal(t, "string", it.Properties["entityType"].Type)
		assert.Equal(t, "array", it.Properties["observations"].Type)
		assert.ElementsMatch(t, []string{"name", "entityType", "observations"}, it.Required)
	}
}

// With a single-valued type, create_relations ends the old value, and the
// graph tools show the relations that hold now; history keeps both.
func TestReferenceSingleValued(t *testing.T) {
	mem, err := kgmem.OpenMemory(t.TempDir(), kgmem.WithSingleValued("lives_in"))
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	cs := connect(t, mem)
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Bob", "entityType": "person", "observations": []any{}},
		map[string]any{"name": "Paris", "entityType": "city", "observations": []any{}},
		map[string]any{"name": "Rome", "entityType": "city", "observations": []any{}}}}, nil)
	var cr CreateRelationsOutput
	for _, city := range []string{"Paris", "Rome"} {
		call(t, cs, "create_relations", map[string]any{"relations": []any{
			map[string]any{"from": "Bob", "to": city, "relationType": "lives_in"}}}, &cr)
		assert.Equal(t, []RefRelation{{From: "Bob", To: city, RelationType: "lives_in"}}, cr.Relations)
	}
	now := []RefRelation{{From: "Bob", To: "Rome", RelationType: "lives_in"}}
	var g KnowledgeGraph
	call(t, cs, "read_graph", map[string]any{}, &g)
	assert.Equal(t, now, g.Relations)
	call(t, cs, "open_nodes", map[string]any{"names": []any{"Bob"}}, &g)
	assert.Equal(t, now, g.Relations)
	call(t, cs, "open_nodes", map[string]any{"names": []any{"Paris"}}, &g)
	assert.Empty(t, g.Relations)
	var h HistoryOutput
	call(t, cs, "history", map[string]any{"entity": "Bob"}, &h)
	require.Len(t, h.Facts, 2)
	assert.Equal(t, []bool{false, true}, []bool{h.Facts[0].Current, h.Facts[1].Current})
	// Paris again: it holds again, Rome ends.
	call(t, cs, "create_relations", map[string]any{"relations": []any{
		map[string]any{"from": "Bob", "to": "Paris", "relationType": "lives_in"}}}, &cr)
	assert.Equal(t, []RefRelation{{From: "Bob", To: "Paris", RelationType: "lives_in"}}, cr.Relations)
	call(t, cs, "open_nodes", map[string]any{"names": []any{"Bob"}}, &g)
	assert.Equal(t, []RefRelation{{From: "Bob", To: "Paris", RelationType: "lives_in"}}, g.Relations)
}
