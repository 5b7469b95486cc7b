package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reference tool set: the tools of the reference MCP memory server
// (create_entities, create_relations, add_observations, delete_entities,
// delete_observations, delete_relations, read_graph, search_nodes,
// open_nodes), with its names, argument shapes and results, on kgmem's
// graph. An assistant written for that server works with this one as it
// is.
//
// An entity is a kgmem entity: name its Name, entityType its Type (kgmem's
// "entity" when given none). Relations are kgmem relations, their ends
// shown by name; read_graph, search_nodes and open_nodes show the ones
// that hold now. create_relations states a fact that holds now: with a
// single-valued type (-single-valued) it ends the source's current value,
// and a relation that had ended holds again from now. Every entity
// argument is a name, an alias or an ID.
//
// An observation is a knowledge page of its own, which the entity cites:
// ID "obs:" and a hash of the entity's ID and the text, title the entity's
// name, content the text, metadata kgmem-mcp=observation. So recall and
// search_nodes find it as they find any page ("Who speaks Spanish?" finds
// "Speaks fluent Spanish", and search_nodes gives its entity), and
// delete_observations removes exactly that page and the citation, leaving
// the entity and its other observations. An entity's observations are the
// observation pages it cites, in the order they were added.

// Observation pages.
const (
	obsPrefix = "obs:"        // the ID of every observation page begins with it
	obsKey    = "kgmem-mcp"   // the metadata key that marks one
	obsValue  = "observation" // and its value
)

// obsPageID is the ID of the page of observation text about the entity id.
func obsPageID(entityID, text string) string {
	h := sha256.Sum256([]byte(entityID + "\x00" + text))
	return obsPrefix + hex.EncodeToString(h[:12])
}

// isObservation reports whether p is an observation page.
func isObservation(p kgmem.KnowledgePage) bool {
	return strings.HasPrefix(p.ID, obsPrefix) && p.Metadata[obsKey] == obsValue
}

// RefEntity is an entity as the reference server shows it.
type RefEntity struct {
	Name         string   `json:"name" jsonschema:"the name of the entity"`
	EntityType   string   `json:"entityType" jsonschema:"the type of the entity"`
	Observations []string `json:"observations" jsonschema:"an array of observation contents associated with the entity"`
}

// RefRelation is a relation as the reference server shows it.
type RefRelation struct {
	From         string `json:"from" jsonschema:"the name of the entity where the relation starts"`
	To           string `json:"to" jsonschema:"the name of the entity where the relation ends"`
	RelationType string `json:"relationType" jsonschema:"the type of the relation"`
}

// KnowledgeGraph is read_graph's, search_nodes' and open_nodes' answer.
type KnowledgeGraph struct {
	Entities  []RefEntity   `json:"entities"`
	Relations []RefRelation `json:"relations"`
}

// Status is the answer of the delete tools.
type Status struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// jsonText is v as the reference server's text results render it:
// indented by two spaces, with no HTML escaping.
func jsonText(v any) *mcp.CallToolResult {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return textResult(err.Error())
	}
	return textResult(strings.TrimSuffix(b.String(), "\n"))
}

func addReferenceTools(s *mcp.Server, t tools) {
	write := &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	destroy := &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	addTool(s, t, &mcp.Tool{Name: "create_entities", Title: "Create Entities", Annotations: write,
		Description: "Create multiple new entities in the knowledge graph. An entity whose name the graph already holds (as a name or an alias, case and punctuation aside) is skipped; the result lists those created."}, tools.createEntities)
	addTool(s, t, &mcp.Tool{Name: "create_relations", Title: "Create Relations", Annotations: write,
		Description: "Create multiple new relations between entities in the knowledge graph (from and to: a name, alias or ID). Relations should be in active voice. The result lists those created; duplicates (relations that hold now) are skipped, and one that had ended holds again from now."}, tools.createRelations)
	addTool(s, t, &mcp.Tool{Name: "add_observations", Title: "Add Observations", Annotations: write,
		Description: "Add new observations to existing entities in the knowledge graph. Each observation is stored as a page the entity cites, which recall and search_nodes find."}, tools.addObservations)
	addTool(s, t, &mcp.Tool{Name: "delete_entities", Title: "Delete Entities", Annotations: destroy,
		Description: "Delete multiple entities, their relations and their observations from the knowledge graph."}, tools.deleteEntities)
	addTool(s, t, &mcp.Tool{Name: "delete_observations", Title: "Delete Observations", Annotations: destroy,
		Description: "Delete specific observations from entities in the knowledge graph."}, tools.deleteObservations)
	addTool(s, t, &mcp.Tool{Name: "delete_relations", Title: "Delete Relations", Annotations: destroy,
		Description: "Delete multiple relations from the knowledge graph."}, tools.deleteRelations)
	addTool(s, t, &mcp.Tool{Name: "read_graph", Title: "Read Graph", Annotations: read,
		Description: "Read the entire knowledge graph: every entity with its observations, and the relations that hold now."}, tools.readGraph)
	addTool(s, t, &mcp.Tool{Name: "search_nodes", Title: "Search Nodes", Annotations: read,
		Description: "Search for nodes in the knowledge graph based on a query: the entities kgmem's retrieval finds for it (best first: those it names, and those an observation it finds is about), " +
			"then those whose name, type or an observation contains it, and the relations that touch them."}, tools.searchNodes)
	addTool(s, t, &mcp.Tool{Name: "open_nodes", Title: "Open Nodes", Annotations: read,
		Description: "Open specific nodes in the knowledge graph by their names (or aliases or IDs): the entities and the relations that touch them. " +
			"A name several entities share opens each of them."}, tools.openNodes)
}

// CreateEntitiesInput is create_entities' input.
type CreateEntitiesInput struct {
	Entities []RefEntity `json:"entities"`
}

// CreateEntitiesOutput is what create_entities created.
type CreateEntitiesOutput struct {
	Entities []RefEntity `json:"entities"`
}

// checkText returns a tool error when s, the field of what, is blank.
func checkText(tool, what, s string) error {
	if strings.TrimSpace(s) == "" {
		return toolError(tool, "%s is empty", what)
	}
	return nil
}

func (t tools) createEntities(ctx context.Context, _ *mcp.CallToolRequest, in CreateEntitiesInput) (*mcp.CallToolResult, CreateEntitiesOutput, error) {
	const tool = "create_entities"
	out := CreateEntitiesOutput{Entities: []RefEntity{}}
	for i, e := range in.Entities {
		if err := checkText(tool, fmt.Sprintf("entities[%d].name", i), e.Name); err != nil {
			return nil, out, err
		}
		if err := kgmem.ValidateEntity(kgmem.Entity{ID: kgmem.DeriveEntityID(e.EntityType, e.Name), Name: e.Name, Type: e.EntityType}); err != nil {
			return nil, out, t.kgError(tool+": "+fmt.Sprintf("entities[%d]", i), err)
		}
		for j, o := range e.Observations {
			if err := checkText(tool, fmt.Sprintf("entities[%d].observations[%d]", i, j), o); err != nil {
				return nil, out, err
			}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var seen []string // names created by this call
	for _, e := range in.Entities {
		found, err := t.findEntities(ctx, e.Name)
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		if len(found) > 0 || slices.Contains(seen, e.Name) {
			continue // the reference server's rule: an existing name is skipped
		}
		x := kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: e.Name, Type: e.EntityType}}}
		rep, err := kgmem.Ingest(ctx, t.mem.Graph(), x, kgmem.WithExactNames())
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		if len(rep.EntityIDs) != 1 || rep.EntityIDs[0] == "" {
			return nil, out, toolError(tool, "entity %q was not stored: %v", e.Name, rep.Skipped)
		}
		stored, ok, err := t.mem.Graph().GetEntity(ctx, rep.EntityIDs[0])
		if err != nil || !ok {
			return nil, out, toolError(tool, "entity %q was not stored", e.Name)
		}
		seen = append(seen, e.Name)
		added, err := t.observe(ctx, stored, e.Observations)
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		out.Entities = append(out.Entities, RefEntity{Name: stored.Name, EntityType: stored.Type, Observations: added})
	}
	return jsonText(out.Entities), out, nil
}

// observe stores each text as an observation of e that e does not hold
// yet, and returns those it stored, in order. The caller holds t.mu.
func (t tools) observe(ctx context.Context, e kgmem.Entity, texts []string) ([]string, error) {
	added := []string{}
	for _, text := range texts {
		id := obsPageID(e.ID, text)
		if _, ok, err := t.mem.Store().Get(ctx, id); err != nil {
			return added, err
		} else if ok && slices.Contains(e.SourceIDs, id) {
			continue
		}
		page := kgmem.KnowledgePage{ID: id, Title: e.Name, Content: text, Metadata: map[string]string{obsKey: obsValue}}
		x := kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{ID: e.ID, Name: e.Name, Type: e.Type}}}
		rep, err := t.mem.Ingest(ctx, page, x, kgmem.WithExactNames())
		if err != nil {
			return added, err
		}
		if len(rep.EntityIDs) != 1 || rep.EntityIDs[0] != e.ID {
			return added, fmt.Errorf("observation %q was stored for %v, not %s", text, rep.EntityIDs, e.ID)
		}
		e.SourceIDs = append(e.SourceIDs, id)
		added = append(added, text)
	}
	return added, nil
}

// observations returns the texts of e's observations, in the order they
// were added.
func (t tools) observations(ctx context.Context, e kgmem.Entity) ([]string, error) {
	out := []string{}
	for _, id := range e.SourceIDs {
		if !strings.HasPrefix(id, obsPrefix) {
			continue
		}
		p, ok, err := t.mem.Store().Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if ok && isObservation(p) {
			out = append(out, p.Content)
		}
	}
	return out, nil
}

// refEntity returns e as the reference server shows it.
func (t tools) refEntity(ctx context.Context, e kgmem.Entity) (RefEntity, error) {
	obs, err := t.observations(ctx, e)
	return RefEntity{Name: e.Name, EntityType: e.Type, Observations: obs}, err
}

// CreateRelationsInput is create_relations' input.
type CreateRelationsInput struct {
	Relations []RefRelation `json:"relations"`
}

// CreateRelationsOutput is what create_relations created.
type CreateRelationsOutput struct {
	Relations []RefRelation `json:"relations"`
}

// refEnds resolves the ends of relation i of a call: each must name one
// entity.
func (t tools) refEnds(ctx context.Context, tool string, i int, r RefRelation) (from, to kgmem.Entity, err error) {
	if err := checkText(tool, fmt.Sprintf("relations[%d].relationType", i), r.RelationType); err != nil {
		return from, to, err
	}
	if from, err = t.mustEntity(ctx, tool, fmt.Sprintf("relations[%d].from", i), r.From); err != nil {
		return from, to, err
	}
	if to, err = t.mustEntity(ctx, tool, fmt.Sprintf("relations[%d].to", i), r.To); err != nil {
		return from, to, err
	}
	if err := kgmem.ValidateRelationKey(from.ID, to.ID, r.RelationType); err != nil {
		return from, to, t.kgError(tool+": "+fmt.Sprintf("relations[%d]", i), err)
	}
	return from, to, nil
}

func (t tools) createRelations(ctx context.Context, _ *mcp.CallToolRequest, in CreateRelationsInput) (*mcp.CallToolResult, CreateRelationsOutput, error) {
	const tool = "create_relations"
	out := CreateRelationsOutput{Relations: []RefRelation{}}
	t.mu.Lock()
	defer t.mu.Unlock()
	type pair struct{ from, to kgmem.Entity }
	ends := make([]pair, len(in.Relations))
	for i, r := range in.Relations {
		from, to, err := t.refEnds(ctx, tool, i, r)
		if err != nil {
			return nil, out, err
		}
		ends[i] = pair{from, to}
	}
	g := t.mem.Graph()
	now := g.Now()
	for i, r := range in.Relations {
		from, to := ends[i].from, ends[i].to
		xr := kgmem.ExtractedRelation{Source: from.ID, Target: to.ID, Type: r.RelationType}
		if old, ok, err := t.findRelation(ctx, from.ID, to.ID, r.RelationType); err != nil {
			return nil, out, t.kgError(tool, err)
		} else if ok && old.ValidAt(now) {
			continue // a duplicate
		} else if ok {
			// A fact that held and has ended (or not begun) holds again
			// from now: a new stint.
			xr.ValidFrom = now
		}
		// Through Ingest, which ends the current value of a single-valued
		// type.
		x := kgmem.Extraction{Relations: []kgmem.ExtractedRelation{xr}}
		rep, err := kgmem.Ingest(ctx, g, x, kgmem.WithExactNames())
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		if len(rep.Skipped) > 0 {
			return nil, out, toolError(tool, "relation %d (%s %s %s) was not stored: %s", i, r.From, r.RelationType, r.To, rep.Skipped[0])
		}
		stored, ok, err := t.findRelation(ctx, from.ID, to.ID, r.RelationType)
		if err != nil || !ok {
			return nil, out, toolError(tool, "relation %d (%s %s %s) was not stored", i, r.From, r.RelationType, r.To)
		}
		out.Relations = append(out.Relations, RefRelation{From: from.Name, To: to.Name, RelationType: stored.Type})
	}
	return jsonText(out.Relations), out, nil
}

// findRelation returns the relation from one entity to another of type
// typ as given, or as Ingest stores it with WithExactNames (case-folded,
// white space as '_').
func (t tools) findRelation(ctx context.Context, from, to, typ string) (kgmem.Relation, bool, error) {
	g := t.mem.Graph()
	r, ok, err := g.GetRelation(ctx, from, to, typ)
	if err != nil || ok {
		return r, ok, err
	}
	if folded := strings.Join(strings.Fields(strings.ToLower(typ)), "_"); folded != typ && folded != "" {
		return g.GetRelation(ctx, from, to, folded)
	}
	return r, false, nil
}

// ObservationsToAdd are the observations add_observations adds to one
// entity.
type ObservationsToAdd struct {
	EntityName string   `json:"entityName" jsonschema:"the name of the entity to add the observations to (or an alias or its ID)"`
	Contents   []string `json:"contents" jsonschema:"an array of observation contents to add"`
}

// AddObservationsInput is add_observations' input.
type AddObservationsInput struct {
	Observations []ObservationsToAdd `json:"observations"`
}

// AddedObservations are the observations add_observations added to one
// entity.
type AddedObservations struct {
	EntityName        string   `json:"entityName"`
	AddedObservations []string `json:"addedObservations"`
}

// AddObservationsOutput is what add_observations added.
type AddObservationsOutput struct {
	Results []AddedObservations `json:"results"`
}

func (t tools) addObservations(ctx context.Context, _ *mcp.CallToolRequest, in AddObservationsInput) (*mcp.CallToolResult, AddObservationsOutput, error) {
	const tool = "add_observations"
	out := AddObservationsOutput{Results: []AddedObservations{}}
	t.mu.Lock()
	defer t.mu.Unlock()
	ents := make([]kgmem.Entity, len(in.Observations))
	for i, o := range in.Observations {
		e, err := t.mustEntity(ctx, tool, fmt.Sprintf("observations[%d].entityName", i), o.EntityName)
		if err != nil {
			return nil, out, err
		}
		for j, c := range o.Contents {
			if err := checkText(tool, fmt.Sprintf("observations[%d].contents[%d]", i, j), c); err != nil {
				return nil, out, err
			}
		}
		ents[i] = e
	}
	for i, o := range in.Observations {
		// Read again: an earlier item may have observed the same entity.
		e, ok, err := t.mem.Graph().GetEntity(ctx, ents[i].ID)
		if err != nil || !ok {
			return nil, out, toolError(tool, "entity %q is gone", o.EntityName)
		}
		added, err := t.observe(ctx, e, o.Contents)
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		out.Results = append(out.Results, AddedObservations{EntityName: o.EntityName, AddedObservations: added})
	}
	return jsonText(out.Results), out, nil
}

// DeleteEntitiesInput is delete_entities' input.
type DeleteEntitiesInput struct {
	EntityNames []string `json:"entityNames" jsonschema:"an array of entity names (or aliases or IDs) to delete"`
}

// resolveOrMissing returns the entity ref names, or ok false when it names
// none; a name several entities share is an error.
func (t tools) resolveOrMissing(ctx context.Context, tool, field, ref string) (kgmem.Entity, bool, error) {
	if strings.TrimSpace(ref) == "" {
		return kgmem.Entity{}, false, nil
	}
	found, err := t.findEntities(ctx, ref)
	if err != nil {
		return kgmem.Entity{}, false, t.kgError(tool, err)
	}
	if len(found) == 0 {
		return kgmem.Entity{}, false, nil
	}
	e, err := t.mustEntity(ctx, tool, field, ref) // the candidates' error when several
	return e, err == nil, err
}

func (t tools) deleteEntities(ctx context.Context, _ *mcp.CallToolRequest, in DeleteEntitiesInput) (*mcp.CallToolResult, Status, error) {
	const tool = "delete_entities"
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids, notFound []string
	for i, name := range in.EntityNames {
		e, ok, err := t.resolveOrMissing(ctx, tool, fmt.Sprintf("entityNames[%d]", i), name)
		switch {
		case err != nil:
			return nil, Status{}, err
		case !ok:
			notFound = append(notFound, name)
		case !slices.Contains(ids, e.ID):
			ids = append(ids, e.ID)
		}
	}
	for _, id := range ids {
		if err := t.removeEntity(ctx, id); err != nil {
			return nil, Status{}, t.kgError(tool, err)
		}
	}
	msg := "Entities deleted successfully"
	if len(notFound) > 0 {
		msg = fmt.Sprintf("Deleted %d of %d entities. Not found: %s", len(in.EntityNames)-len(notFound), len(in.EntityNames), strings.Join(notFound, ", "))
	}
	return textResult(msg), Status{Success: true, Message: msg}, nil
}

// removeEntity removes the entity id, its relations and its observation
// pages. The caller holds t.mu.
func (t tools) removeEntity(ctx context.Context, id string) error {
	e, ok, err := t.mem.Graph().GetEntity(ctx, id)
	if err != nil || !ok {
		return err
	}
	if err := t.mem.Graph().RemoveEntity(ctx, id); err != nil {
		return err
	}
	for _, src := range e.SourceIDs {
		if strings.HasPrefix(src, obsPrefix) {
			if err := t.dropObservationPage(ctx, src); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropObservationPage deletes the observation page id when it is one and
// no entity cites it any more.
func (t tools) dropObservationPage(ctx context.Context, id string) error {
	p, ok, err := t.mem.Store().Get(ctx, id)
	if err != nil || !ok || !isObservation(p) {
		return err
	}
	cited, err := t.mem.Graph().EntitiesCitedBy(ctx, []string{id})
	if err != nil || len(cited[id]) > 0 {
		return err
	}
	if err := t.mem.Store().Delete(ctx, id); err != nil && !errors.Is(err, kgmem.ErrNotFound) {
		return err
	}
	return nil
}

// unobserve removes the observation page id and every entity's citation
// of it: the entities stay, with their other sources. It returns the
// number of entities that cited it. The caller holds t.mu.
func (t tools) unobserve(ctx context.Context, id string) (int, error) {
	g := t.mem.Graph()
	cited, err := g.EntitiesCitedBy(ctx, []string{id})
	if err != nil {
		return 0, err
	}
	// The page first: recall no longer finds the observation, and an
	// interrupted call leaves at most a citation of a missing page, which
	// no tool shows and a retry removes.
	if err := t.mem.Store().Delete(ctx, id); err != nil && !errors.Is(err, kgmem.ErrNotFound) {
		return 0, err
	}
	for _, eid := range cited[id] {
		e, ok, err := g.GetEntity(ctx, eid)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		e.SourceIDs = slices.DeleteFunc(e.SourceIDs, func(s string) bool { return s == id })
		if err := g.AddEntity(ctx, e); err != nil {
			return 0, err
		}
	}
	return len(cited[id]), nil
}

// ObservationsToDelete are the observations delete_observations deletes
// from one entity.
type ObservationsToDelete struct {
	EntityName   string   `json:"entityName" jsonschema:"the name of the entity containing the observations (or an alias or its ID)"`
	Observations []string `json:"observations" jsonschema:"an array of observations to delete"`
}

// DeleteObservationsInput is delete_observations' input.
type DeleteObservationsInput struct {
	Deletions []ObservationsToDelete `json:"deletions"`
}

func (t tools) deleteObservations(ctx context.Context, _ *mcp.CallToolRequest, in DeleteObservationsInput) (*mcp.CallToolResult, Status, error) {
	const tool = "delete_observations"
	t.mu.Lock()
	defer t.mu.Unlock()
	type target struct {
		e  kgmem.Entity
		ok bool
	}
	targets := make([]target, len(in.Deletions))
	for i, d := range in.Deletions {
		e, ok, err := t.resolveOrMissing(ctx, tool, fmt.Sprintf("deletions[%d].entityName", i), d.EntityName)
		if err != nil {
			return nil, Status{}, err
		}
		targets[i] = target{e, ok}
	}
	deleted, requested := 0, 0
	var missing []string
	for i, d := range in.Deletions {
		requested += len(d.Observations)
		if !targets[i].ok {
			missing = append(missing, d.EntityName)
			continue
		}
		e, ok, err := t.mem.Graph().GetEntity(ctx, targets[i].e.ID)
		if err != nil {
			return nil, Status{}, t.kgError(tool, err)
		}
		if !ok {
			continue // deleted by an earlier item of this call
		}
		for _, text := range d.Observations {
			id := obsPageID(e.ID, text)
			if !slices.Contains(e.SourceIDs, id) {
				continue
			}
			if _, err := t.unobserve(ctx, id); err != nil {
				return nil, Status{}, t.kgError(tool, err)
			}
			e.SourceIDs = slices.DeleteFunc(e.SourceIDs, func(s string) bool { return s == id })
			deleted++
		}
	}
	msg := "Observations deleted successfully"
	if deleted != requested {
		msg = fmt.Sprintf("Deleted %d of %d observations.", deleted, requested)
		if len(missing) > 0 {
			msg += " Entities not found: " + strings.Join(missing, ", ")
		}
	}
	return textResult(msg), Status{Success: true, Message: msg}, nil
}

// DeleteRelationsInput is delete_relations' input.
type DeleteRelationsInput struct {
	Relations []RefRelation `json:"relations" jsonschema:"an array of relations to delete"`
}

func (t tools) deleteRelations(ctx context.Context, _ *mcp.CallToolRequest, in DeleteRelationsInput) (*mcp.CallToolResult, Status, error) {
	const tool = "delete_relations"
	t.mu.Lock()
	defer t.mu.Unlock()
	type key struct{ from, to, typ string }
	var keys []key
	for i, r := range in.Relations {
		from, okF, err := t.resolveOrMissing(ctx, tool, fmt.Sprintf("relations[%d].from", i), r.From)
		if err != nil {
			return nil, Status{}, err
		}
		to, okT, err := t.resolveOrMissing(ctx, tool, fmt.Sprintf("relations[%d].to", i), r.To)
		if err != nil {
			return nil, Status{}, err
		}
		if okF && okT && strings.TrimSpace(r.RelationType) != "" {
			keys = append(keys, key{from.ID, to.ID, r.RelationType})
		}
	}
	g := t.mem.Graph()
	deleted := 0
	for _, k := range keys {
		r, ok, err := t.findRelation(ctx, k.from, k.to, k.typ)
		if err != nil {
			return nil, Status{}, t.kgError(tool, err)
		} else if !ok {
			continue
		}
		if err := g.RemoveRelation(ctx, k.from, k.to, r.Type); err != nil {
			return nil, Status{}, t.kgError(tool, err)
		}
		deleted++
	}
	msg := "Relations deleted successfully"
	if deleted != len(in.Relations) {
		msg = fmt.Sprintf("Deleted %d of %d relations. The rest matched nothing.", deleted, len(in.Relations))
	}
	return textResult(msg), Status{Success: true, Message: msg}, nil
}

// ReadGraphInput is read_graph's input: none.
type ReadGraphInput struct{}

// graphOf returns the entities ids (in order, each once, unknown ones
// left out) as the reference server shows them, and the relations that
// hold now with at least one end among them, ordered by key (source ID,
// target ID, type); all true takes every entity, in ID order. Cost: with
// all, the whole graph; without, the entities' relations only.
func (t tools) graphOf(ctx context.Context, ids []string, all bool) (KnowledgeGraph, error) {
	out := KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}
	g := t.mem.Graph()
	var ents []kgmem.Entity
	if all {
		var err error
		if ents, err = g.Entities(ctx); err != nil {
			return out, err
		}
	} else {
		seen := make(map[string]bool, len(ids))
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			e, ok, err := g.GetEntity(ctx, id)
			if err != nil {
				return out, err
			}
			if ok {
				ents = append(ents, e)
			}
		}
	}
	names := make(map[string]string, len(ents))
	for _, e := range ents {
		names[e.ID] = e.Name
		re, err := t.refEntity(ctx, e)
		if err != nil {
			return out, err
		}
		out.Entities = append(out.Entities, re)
	}
	now := g.Now()
	var rels []kgmem.Relation
	if all {
		var err error
		if rels, err = g.RelationsAsOf(ctx, kgmem.At(now)); err != nil {
			return out, err
		}
	} else {
		seen := map[kgmem.RelationKey]bool{}
		for _, e := range ents {
			hist, err := kgmem.History(ctx, g, e.ID, kgmem.HistoryOptions{Direction: kgmem.Both})
			if err != nil {
				return out, err
			}
			for _, r := range hist {
				if r.ValidAt(now) && !seen[r.Key()] {
					seen[r.Key()] = true
					rels = append(rels, r)
				}
			}
		}
		slices.SortFunc(rels, func(a, b kgmem.Relation) int {
			return cmp.Or(cmp.Compare(a.SourceID, b.SourceID), cmp.Compare(a.TargetID, b.TargetID), cmp.Compare(a.Type, b.Type))
		})
	}
	name := func(id string) (string, error) {
		if n, ok := names[id]; ok {
			return n, nil
		}
		e, _, err := g.GetEntity(ctx, id)
		names[id] = e.Name
		return e.Name, err
	}
	for _, r := range rels {
		from, err := name(r.SourceID)
		if err != nil {
			return out, err
		}
		to, err := name(r.TargetID)
		if err != nil {
			return out, err
		}
		out.Relations = append(out.Relations, RefRelation{From: from, To: to, RelationType: r.Type})
	}
	return out, nil
}

func (t tools) readGraph(ctx context.Context, _ *mcp.CallToolRequest, _ ReadGraphInput) (*mcp.CallToolResult, KnowledgeGraph, error) {
	out, err := t.graphOf(ctx, nil, true)
	if err != nil {
		return nil, KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}, t.kgError("read_graph", err)
	}
	return jsonText(out), out, nil
}

// maxQuery bounds search_nodes' query, as the reference server does.
const maxQuery = 2048

// SearchNodesInput is search_nodes' input.
type SearchNodesInput struct {
	Query string `json:"query" jsonschema:"the search query to match against entity names, types and observation content"`
}

// searchHits bounds the entities retrieval contributes to search_nodes.
const searchHits = 10

func (t tools) searchNodes(ctx context.Context, _ *mcp.CallToolRequest, in SearchNodesInput) (*mcp.CallToolResult, KnowledgeGraph, error) {
	const tool = "search_nodes"
	empty := KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}
	if len(in.Query) > maxQuery {
		return nil, empty, toolError(tool, "query is %d bytes, more than %d", len(in.Query), maxQuery)
	}
	var ids []string
	if strings.TrimSpace(in.Query) != "" {
		// Ranked: what recall finds, an observation page standing for its
		// entity; of the entities, those the query names, not those the
		// walk reaches from them (the relations shown lead there).
		res, err := t.mem.Retriever().Retrieve(ctx, in.Query, kgmem.WithMaxResults(searchHits))
		if err != nil {
			return nil, empty, t.kgError(tool, err)
		}
		for _, it := range res.Items {
			switch {
			case it.Entity != nil && len(it.Path) <= 1:
				ids = append(ids, it.Entity.ID)
			case it.Page != nil && isObservation(*it.Page):
				cited, err := t.mem.Graph().EntitiesCitedBy(ctx, []string{it.Page.ID})
				if err != nil {
					return nil, empty, t.kgError(tool, err)
				}
				ids = append(ids, cited[it.Page.ID]...)
			}
		}
	}
	// Then the reference server's match: the query in the name, the type
	// or an observation, case ignored.
	q := strings.ToLower(in.Query)
	ents, err := t.mem.Graph().Entities(ctx)
	if err != nil {
		return nil, empty, t.kgError(tool, err)
	}
	for _, e := range ents {
		match := strings.Contains(strings.ToLower(e.Name), q) || strings.Contains(strings.ToLower(e.Type), q)
		if !match {
			obs, err := t.observations(ctx, e)
			if err != nil {
				return nil, empty, t.kgError(tool, err)
			}
			match = slices.ContainsFunc(obs, func(o string) bool { return strings.Contains(strings.ToLower(o), q) })
		}
		if match {
			ids = append(ids, e.ID)
		}
	}
	out, err := t.graphOf(ctx, ids, false)
	if err != nil {
		return nil, empty, t.kgError(tool, err)
	}
	return jsonText(out), out, nil
}

// OpenNodesInput is open_nodes' input.
type OpenNodesInput struct {
	Names []string `json:"names" jsonschema:"an array of entity names (or aliases or IDs) to retrieve"`
}

func (t tools) openNodes(ctx context.Context, _ *mcp.CallToolRequest, in OpenNodesInput) (*mcp.CallToolResult, KnowledgeGraph, error) {
	const tool = "open_nodes"
	var ids []string
	for _, name := range in.Names {
		if strings.TrimSpace(name) == "" {
			continue
		}
		found, err := t.findEntities(ctx, name)
		if err != nil {
			return nil, KnowledgeGraph{Entities: []RefEntity{}, Relations: []RefRelation{}}, t.kgError(tool, err)
		}
		for _, e := range found {
			ids = append(ids, e.ID)
		}
	}
	out, err := t.graphOf(ctx, ids, false)
	if err != nil {
		return nil, out, t.kgError(tool, err)
	}
	return jsonText(out), out, nil
}
