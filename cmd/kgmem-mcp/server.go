package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/render"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the server version reported to clients.
const Version = "0.1.0"

// Limits on tool arguments, so that no call costs unbounded time or
// output.
const (
	maxResults = 100  // recall's max_results
	maxDepth   = 5    // related's and draw's depth
	maxHops    = 8    // paths' max_hops
	maxPaths   = 20   // paths' max_paths
	maxLimit   = 1000 // related's limit
)

// NewServer returns an MCP server whose tools read and write mem, opened
// in the directory dir. The caller keeps mem open while the server runs
// and closes it afterwards. The errors the tools return say "the memory"
// where kgmem's messages name dir or a file in it (by dir as given, its
// absolute path or the path its symbolic links resolve to): the client
// learns what went wrong, not where the memory lives. With dir "" the
// messages are passed on as they are.
func NewServer(mem *kgmem.Memory, dir string) *mcp.Server {
	return newServer(newTools(mem, dir))
}

// newServer returns the MCP server of t's tools.
func newServer(t tools) *mcp.Server {
	instructions := ""
	if t.sc != nil {
		instructions = " The memory is split into scopes that share nothing: every tool takes an optional scope (default " + fmt.Sprintf("%q", t.sc.def) +
			"), and recall takes scopes, a list, to search several at once; " +
			"a client whose token may not use the default scope defaults to the first scope its token lists. list_scopes lists the scopes this client may use."
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "kgmem", Title: "kgmem memory", Version: Version}, &mcp.ServerOptions{
		Instructions: "A long-term memory: a knowledge graph of entities and relations, and the knowledge pages they come from. " +
			"Store what you learn with remember (a page and the entities and relations you extracted from it), " +
			"ask it with recall, explore with related and paths, list an entity's timeline with history, draw a subgraph with draw, and remove pages or entities with forget. " +
			"The tools of the reference memory server (create_entities, create_relations, add_observations, delete_entities, delete_observations, " +
			"delete_relations, read_graph, search_nodes, open_nodes) work on the same graph; an observation is a page its entity cites, which recall finds. " +
			"Every tool that takes an entity takes its name, an alias or its ID." + instructions,
	})
	addTool(s, t, &mcp.Tool{Name: "remember", Description: "Store a knowledge page (page_id and content) and/or entities and relations extracted from it " +
		`(extraction: {"entities": [{"name", "type", "description", "aliases"}], "relations": [{"source", "type", "target", "weight"}]}, ` +
		"or extraction_text: a model's answer holding such JSON, where entities may be plain names and relations [source, type, target] triples). " +
		"Entities are merged with those the memory already holds, by name, alias and type."}, tools.remember)
	addTool(s, t, &mcp.Tool{Name: "recall", Description: "Answer a question from memory: ranked pages and entities, each with the path that explains it, " +
		"and a context block ready to quote. as_of (a date or date-time) answers as the memory stood then.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, tools.recall)
	addTool(s, t, &mcp.Tool{Name: "related", Description: "List the entities an entity (by ID, name or alias) reaches within depth hops, best first, each with its path.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, tools.related)
	addTool(s, t, &mcp.Tool{Name: "paths", Description: "Find the best paths (chains of relations) between two entities, each given by ID, name or alias.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, tools.paths)
	addTool(s, t, &mcp.Tool{Name: "forget", Description: "Forget a page (page_id: the page and every entity and relation only it supports) " +
		"or an entity (entity_id: its ID, name or alias; the entity, its relations and its observations). Give exactly one.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)}}, tools.forget)
	addTool(s, t, &mcp.Tool{Name: "draw", Description: "Draw part of the memory as a Mermaid flowchart: around an entity (entity_id, depth), " +
		"the paths between two entities (from, to), or what a question retrieves (query). Give exactly one of these.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, tools.draw)
	addTool(s, t, &mcp.Tool{Name: "history", Description: "List the timeline of an entity's facts (by ID, name or alias), oldest first: " +
		"the relations it is the source or the target of, ended ones included, each with when it held.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, tools.history)
	addReferenceTools(s, t)
	if t.sc != nil {
		addListScopes(s, t)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

type tools struct {
	mem   *kgmem.Memory
	names redactor // the memory's directory, which no message names
	// mu serializes the tools that write, so that those that read an
	// entity and write it back (add_observations, delete_observations)
	// lose no concurrent write.
	mu *sync.Mutex
	// sc is the scopes the server serves, nil when it serves one memory;
	// then scope is the scope of the call mem belongs to, and scopes the
	// scopes recall searches together (nil: mem alone).
	sc     *scopeConfig
	scope  string
	scopes []string
}

func newTools(mem *kgmem.Memory, dir string) tools {
	return tools{mem: mem, names: newRedactor(dir), mu: new(sync.Mutex)}
}

// round4 rounds a score to 4 decimals, as the tools report scores, in
// their structured results and, with all 4 decimals written, in their
// text.
func round4(x float64) float64 { return math.Round(x*10000) / 10000 }

// toolError is the error a tool returns to the client: the SDK sends its
// text as the tool's result, marked as an error, for the model to read.
func toolError(tool, format string, args ...any) error {
	return fmt.Errorf(tool+": "+format, args...)
}

// kgError turns a kgmem error into a tool error, with kgmem's message
// (which names the offending value) in it, and "the memory" in place of
// the memory's directory and the files in it.
func (t tools) kgError(tool string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s: %s", tool, t.names.redact(strings.TrimPrefix(err.Error(), "kgmem: ")))
}

// RememberInput is the remember tool's input.
type RememberInput struct {
	PageID         string           `json:"page_id,omitempty" jsonschema:"ID of the knowledge page; required with content, and recorded as the source of the extraction"`
	Title          string           `json:"title,omitempty" jsonschema:"title of the page"`
	Content        string           `json:"content,omitempty" jsonschema:"text of the page"`
	Extraction     *ExtractionInput `json:"extraction,omitempty" jsonschema:"entities and relations extracted from the page"`
	ExtractionText string           `json:"extraction_text,omitempty" jsonschema:"instead of extraction: a model's answer holding the extraction as JSON, read leniently (prose around it, entities as plain names, relations as [source, type, target])"`
}

// ExtractionInput is an extraction as remember's extraction argument
// gives it; kgmem.ParseExtraction reads it.
type ExtractionInput struct {
	Entities  []EntityInput   `json:"entities,omitempty"`
	Relations []RelationInput `json:"relations,omitempty"`
}

// EntityInput is an extracted entity.
type EntityInput struct {
	Name        string            `json:"name" jsonschema:"the entity's name"`
	Type        string            `json:"type,omitempty" jsonschema:"its type, such as person or project (default: entity)"`
	Description string            `json:"description,omitempty" jsonschema:"one line about it"`
	Aliases     []string          `json:"aliases,omitempty" jsonschema:"other names it goes by"`
	Tags        []string          `json:"tags,omitempty" jsonschema:"labels to filter by"`
	Properties  map[string]string `json:"properties,omitempty" jsonschema:"free-form attributes"`
}

// RelationInput is an extracted relation.
type RelationInput struct {
	Source    string  `json:"source" jsonschema:"the source entity: its name, alias or ID"`
	Type      string  `json:"type" jsonschema:"the relation type, such as works_on"`
	Target    string  `json:"target" jsonschema:"the target entity: its name, alias or ID"`
	Weight    float64 `json:"weight,omitempty" jsonschema:"in (0,1]; default 1"`
	ValidFrom string  `json:"valid_from,omitempty" jsonschema:"when it began to hold: an RFC 3339 date or date-time"`
	ValidTo   string  `json:"valid_to,omitempty" jsonschema:"when it stopped holding: an RFC 3339 date or date-time"`
	Ended     bool    `json:"ended,omitempty" jsonschema:"it no longer holds, since a time not known"`
	// The ends' types narrow name lookups to entities of that type.
	SourceType  string            `json:"source_type,omitempty" jsonschema:"the source entity's type, to tell apart entities of one name"`
	TargetType  string            `json:"target_type,omitempty" jsonschema:"the target entity's type, to tell apart entities of one name"`
	Description string            `json:"description,omitempty" jsonschema:"one line about it"`
	Properties  map[string]string `json:"properties,omitempty" jsonschema:"free-form attributes"`
}

// RememberOutput is what remember did.
type RememberOutput struct {
	PageStored           bool     `json:"page_stored"`
	EntityIDs            []string `json:"entity_ids" jsonschema:"the ID each extracted entity was stored under, in order; empty for a skipped one"`
	EntitiesCreated      int      `json:"entities_created"`
	EntitiesMerged       int      `json:"entities_merged"`
	RelationsCreated     int      `json:"relations_created"`
	RelationsUpdated     int      `json:"relations_updated"`
	Skipped              []string `json:"skipped" jsonschema:"extracted items not stored, and why"`
	EntitiesDeduplicated int      `json:"entities_deduplicated"`
}

func (t tools) remember(ctx context.Context, _ *mcp.CallToolRequest, in RememberInput) (*mcp.CallToolResult, RememberOutput, error) {
	const tool = "remember"
	out := RememberOutput{EntityIDs: []string{}, Skipped: []string{}}
	var x kgmem.Extraction
	hasX := in.Extraction != nil || in.ExtractionText != ""
	if hasX {
		if in.Extraction != nil && in.ExtractionText != "" {
			return nil, out, toolError(tool, "give extraction or extraction_text, not both")
		}
		data := []byte(in.ExtractionText)
		if in.Extraction != nil {
			var err error
			if data, err = json.Marshal(in.Extraction); err != nil {
				return nil, out, toolError(tool, "extraction: %v", err)
			}
		}
		var err error
		if x, err = kgmem.ParseExtraction(data); err != nil {
			return nil, out, t.kgError(tool, err)
		}
	}
	if strings.HasPrefix(in.PageID, obsPrefix) {
		return nil, out, toolError(tool, "page_id %q: IDs beginning with %q are the observations' (add_observations)", in.PageID, obsPrefix)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var (
		rep kgmem.IngestReport
		err error
	)
	switch {
	case in.Content != "":
		if strings.TrimSpace(in.PageID) == "" {
			return nil, out, toolError(tool, "page_id is required with content")
		}
		rep, err = t.mem.Ingest(ctx, kgmem.KnowledgePage{ID: in.PageID, Title: in.Title, Content: in.Content}, x)
		out.PageStored = err == nil
	case hasX:
		if in.Title != "" {
			return nil, out, toolError(tool, "title is given without content")
		}
		var opts []kgmem.IngestOption
		if in.PageID != "" {
			opts = append(opts, kgmem.WithSource(in.PageID))
		}
		rep, err = kgmem.Ingest(ctx, t.mem.Graph(), x, opts...)
	default:
		return nil, out, toolError(tool, "give content (with page_id) or an extraction, or both")
	}
	if err != nil {
		return nil, out, t.kgError(tool, err)
	}
	if rep.EntityIDs != nil {
		out.EntityIDs = rep.EntityIDs
	}
	out.EntitiesCreated, out.EntitiesMerged, out.EntitiesDeduplicated = rep.EntitiesCreated, rep.EntitiesMerged, rep.EntitiesDeduplicated
	out.RelationsCreated, out.RelationsUpdated = rep.RelationsCreated, rep.RelationsUpdated
	for _, s := range rep.Skipped {
		out.Skipped = append(out.Skipped, s.String())
	}
	return nil, out, nil
}

// RecallInput is the recall tool's input.
type RecallInput struct {
	Query      string `json:"query" jsonschema:"the question"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"how many items to return at most (default 10, at most 100)"`
	Strategy   string `json:"strategy,omitempty" jsonschema:"hybrid (the default), knowledge (pages only) or graph (entities only)"`
	MaxChars   int    `json:"max_chars,omitempty" jsonschema:"the most characters of the context block (default: no limit)"`
	AsOf       string `json:"as_of,omitempty" jsonschema:"answer as the memory stood at this time: an RFC 3339 date (2023-06-01, midnight UTC) or date-time (2023-06-01T12:00:00Z); default now"`
}

// Item is one retrieved page or entity.
type Item struct {
	Kind        string   `json:"kind" jsonschema:"page or entity"`
	ID          string   `json:"id"`
	Score       float64  `json:"score" jsonschema:"in [0,1], higher is better"`
	Name        string   `json:"name,omitempty" jsonschema:"an entity's name or a page's title"`
	Type        string   `json:"type,omitempty" jsonschema:"an entity's type"`
	Explanation string   `json:"explanation" jsonschema:"why the item answers the question: the path of relations from an entity the question names"`
	Path        []string `json:"path,omitempty" jsonschema:"entity IDs along that path"`
	Scope       string   `json:"scope,omitempty" jsonschema:"the scope the item came from (only on a server that serves scopes)"`
}

// RecallOutput is recall's answer.
type RecallOutput struct {
	Context  string   `json:"context" jsonschema:"the items rendered as a context block for a prompt"`
	Items    []Item   `json:"items"`
	Warnings []string `json:"warnings,omitempty"`
}

func parseStrategy(s string) (kgmem.RetrievalStrategy, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "hybrid":
		return kgmem.Hybrid, true
	case "knowledge", "knowledge_only", "pages":
		return kgmem.KnowledgeOnly, true
	case "graph", "graph_only", "entities":
		return kgmem.GraphOnly, true
	}
	return 0, false
}

func (t tools) recall(ctx context.Context, _ *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, RecallOutput, error) {
	const tool = "recall"
	out := RecallOutput{Items: []Item{}}
	if strings.TrimSpace(in.Query) == "" {
		return nil, out, toolError(tool, "query is empty")
	}
	if in.MaxResults < 0 || in.MaxResults > maxResults {
		return nil, out, toolError(tool, "max_results %d is outside [0,%d]", in.MaxResults, maxResults)
	}
	if in.MaxChars < 0 {
		return nil, out, toolError(tool, "max_chars %d is negative", in.MaxChars)
	}
	strategy, ok := parseStrategy(in.Strategy)
	if !ok {
		return nil, out, toolError(tool, "unknown strategy %q: use hybrid, knowledge or graph", in.Strategy)
	}
	ropts := []kgmem.RetrieverOption{kgmem.WithMaxResults(in.MaxResults), kgmem.WithStrategy(strategy)}
	if in.AsOf != "" {
		at, err := parseAsOf(in.AsOf)
		if err != nil {
			return nil, out, toolError(tool, "%v", err)
		}
		ropts = append(ropts, kgmem.WithAsOf(kgmem.At(at)))
	}
	var (
		res kgmem.RetrievalResult
		err error
	)
	if t.scopes != nil {
		res, err = t.sc.ms.Retrieve(ctx, in.Query, t.scopes, ropts...)
	} else {
		res, err = t.mem.Retriever().Retrieve(ctx, in.Query, ropts...)
	}
	if err != nil {
		return nil, out, t.kgError(tool, err)
	}
	out.Context = res.ContextBlock(in.MaxChars)
	for _, w := range res.Warnings {
		out.Warnings = append(out.Warnings, t.names.redact(w))
	}
	for _, it := range res.Items {
		item := Item{Kind: it.Kind.String(), ID: it.ID(), Score: round4(it.Score), Explanation: it.Explain(), Path: it.Path, Scope: it.Scope}
		if item.Scope == "" {
			item.Scope = t.scope
		}
		switch {
		case it.Page != nil:
			item.Name = it.Page.Title
		case it.Entity != nil:
			item.Name, item.Type = it.Entity.Name, it.Entity.Type
		}
		out.Items = append(out.Items, item)
	}
	text := out.Context
	if text == "" {
		text = "Nothing in memory matches the question."
	} else if t.scopes != nil {
		text += scopeLines(out.Items)
	}
	return textResult(text), out, nil
}

func parseDirection(s string) (kgmem.Direction, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "both":
		return kgmem.Both, true
	case "outgoing", "out":
		return kgmem.Outgoing, true
	case "incoming", "in":
		return kgmem.Incoming, true
	}
	return 0, false
}

// RelatedInput is the related tool's input.
type RelatedInput struct {
	EntityID      string   `json:"entity_id" jsonschema:"the entity to start from: its ID, name or alias"`
	Depth         int      `json:"depth,omitempty" jsonschema:"hops to walk (default 1, at most 5)"`
	Direction     string   `json:"direction,omitempty" jsonschema:"both (the default), outgoing or incoming"`
	RelationTypes []string `json:"relation_types,omitempty" jsonschema:"walk only these relation types (default: every type)"`
	Limit         int      `json:"limit,omitempty" jsonschema:"the most entities to return (default 50, at most 1000)"`
}

// Related is one entity related reaches.
type Related struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Type        string   `json:"type,omitempty"`
	Score       float64  `json:"score" jsonschema:"the product of relation weights along the path"`
	Path        []string `json:"path" jsonschema:"entity IDs from the start to this entity"`
	Explanation string   `json:"explanation"`
}

// RelatedOutput is related's answer.
type RelatedOutput struct {
	Entities []Related `json:"entities"`
}

func traverse(tool string, depth int, direction string, types []string, limit int) (kgmem.TraverseOptions, error) {
	if depth < 0 || depth > maxDepth {
		return kgmem.TraverseOptions{}, toolError(tool, "depth %d is outside [0,%d]", depth, maxDepth)
	}
	if limit < 0 || limit > maxLimit {
		return kgmem.TraverseOptions{}, toolError(tool, "limit %d is outside [0,%d]", limit, maxLimit)
	}
	if limit == 0 {
		limit = 50
	}
	dir, ok := parseDirection(direction)
	if !ok {
		return kgmem.TraverseOptions{}, toolError(tool, "unknown direction %q: use both, outgoing or incoming", direction)
	}
	return kgmem.TraverseOptions{Depth: depth, Direction: dir, RelationTypes: types, Limit: limit}, nil
}

// explainPath renders a path of entities (names maps their IDs to names)
// as kgmem renders retrieval paths.
func explainPath(path []string, rels []kgmem.Relation, names map[string]string) string {
	it := kgmem.RetrievalItem{Kind: kgmem.ItemEntity, Path: path, Relations: rels}
	for _, id := range path {
		it.PathNames = append(it.PathNames, names[id])
	}
	return it.Explain()
}

// textResult is a tool result whose content is text.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func (t tools) related(ctx context.Context, _ *mcp.CallToolRequest, in RelatedInput) (*mcp.CallToolResult, RelatedOutput, error) {
	const tool = "related"
	out := RelatedOutput{Entities: []Related{}}
	start, err := t.mustEntity(ctx, tool, "entity_id", in.EntityID)
	if err != nil {
		return nil, out, err
	}
	opts, err := traverse(tool, in.Depth, in.Direction, in.RelationTypes, in.Limit)
	if err != nil {
		return nil, out, err
	}
	res, err := t.mem.Graph().GetRelated(ctx, start.ID, opts)
	if err != nil {
		return nil, out, t.kgError(tool, err)
	}
	names := map[string]string{start.ID: start.Name}
	for _, se := range res {
		names[se.Entity.ID] = se.Entity.Name
	}
	var b strings.Builder
	for _, se := range res {
		r := Related{ID: se.Entity.ID, Name: se.Entity.Name, Type: se.Entity.Type, Score: round4(se.Score), Path: se.Path, Explanation: explainPath(se.Path, se.Relations, names)}
		out.Entities = append(out.Entities, r)
		fmt.Fprintf(&b, "%.4f %s [%s]\n", r.Score, r.Explanation, r.ID)
	}
	if b.Len() == 0 {
		b.WriteString("No related entities.")
	}
	return textResult(b.String()), out, nil
}

// PathsInput is the paths tool's input.
type PathsInput struct {
	From          string   `json:"from" jsonschema:"the entity the paths start at: its ID, name or alias"`
	To            string   `json:"to" jsonschema:"the entity the paths end at: its ID, name or alias"`
	MaxHops       int      `json:"max_hops,omitempty" jsonschema:"the most relations on a path (default 4, at most 8)"`
	Direction     string   `json:"direction,omitempty" jsonschema:"both (the default), outgoing or incoming"`
	RelationTypes []string `json:"relation_types,omitempty" jsonschema:"follow only these relation types (default: every type)"`
	MaxPaths      int      `json:"max_paths,omitempty" jsonschema:"how many paths to return at most (default 3, at most 20)"`
}

// FoundPath is one path paths returns.
type FoundPath struct {
	EntityIDs   []string `json:"entity_ids"`
	Relations   []string `json:"relations" jsonschema:"the relation types along the path"`
	Score       float64  `json:"score" jsonschema:"the product of relation weights"`
	Explanation string   `json:"explanation"`
}

// PathsOutput is paths' answer; no paths means none within max_hops.
type PathsOutput struct {
	Paths     []FoundPath `json:"paths"`
	Truncated bool        `json:"truncated" jsonschema:"a fan-out cap stopped the search early"`
}

func (t tools) pathOptions(ctx context.Context, tool string, in PathsInput) (kgmem.Entity, kgmem.Entity, kgmem.PathOptions, error) {
	from, err := t.mustEntity(ctx, tool, "from", in.From)
	if err != nil {
		return from, from, kgmem.PathOptions{}, err
	}
	to, err := t.mustEntity(ctx, tool, "to", in.To)
	if err != nil {
		return from, to, kgmem.PathOptions{}, err
	}
	if in.MaxHops < 0 || in.MaxHops > maxHops {
		return from, to, kgmem.PathOptions{}, toolError(tool, "max_hops %d is outside [0,%d]", in.MaxHops, maxHops)
	}
	if in.MaxPaths < 0 || in.MaxPaths > maxPaths {
		return from, to, kgmem.PathOptions{}, toolError(tool, "max_paths %d is outside [0,%d]", in.MaxPaths, maxPaths)
	}
	dir, ok := parseDirection(in.Direction)
	if !ok {
		return from, to, kgmem.PathOptions{}, toolError(tool, "unknown direction %q: use both, outgoing or incoming", in.Direction)
	}
	return from, to, kgmem.PathOptions{MaxHops: in.MaxHops, Direction: dir, RelationTypes: in.RelationTypes, MaxPaths: in.MaxPaths}, nil
}

func (t tools) findPaths(ctx context.Context, tool string, in PathsInput) (kgmem.PathResult, error) {
	from, to, opts, err := t.pathOptions(ctx, tool, in)
	if err != nil {
		return kgmem.PathResult{}, err
	}
	res, err := t.mem.Graph().FindPaths(ctx, from.ID, to.ID, opts)
	if err != nil && !errors.Is(err, kgmem.ErrNoPath) {
		return res, t.kgError(tool, err)
	}
	return res, nil
}

func (t tools) paths(ctx context.Context, _ *mcp.CallToolRequest, in PathsInput) (*mcp.CallToolResult, PathsOutput, error) {
	const tool = "paths"
	out := PathsOutput{Paths: []FoundPath{}}
	res, err := t.findPaths(ctx, tool, in)
	if err != nil {
		return nil, out, err
	}
	out.Truncated = res.Truncated
	names := map[string]string{}
	for _, p := range res.Paths {
		for _, id := range p.EntityIDs {
			if _, ok := names[id]; !ok {
				if e, ok, err := t.mem.Graph().GetEntity(ctx, id); err == nil && ok {
					names[id] = e.Name
				}
			}
		}
	}
	var b strings.Builder
	for _, p := range res.Paths {
		fp := FoundPath{EntityIDs: p.EntityIDs, Relations: []string{}, Score: round4(p.Score)}
		for _, r := range p.Relations {
			fp.Relations = append(fp.Relations, r.Type)
		}
		fp.Explanation = explainPath(p.EntityIDs, p.Relations, names)
		out.Paths = append(out.Paths, fp)
		fmt.Fprintf(&b, "%.4f %s\n", fp.Score, fp.Explanation)
	}
	if b.Len() == 0 {
		b.WriteString("No path between them within max_hops.")
	}
	return textResult(b.String()), out, nil
}

// ForgetInput is the forget tool's input.
type ForgetInput struct {
	PageID   string `json:"page_id,omitempty" jsonschema:"forget this page and every entity and relation only it supports (an observation's page: the observation, its entity kept)"`
	EntityID string `json:"entity_id,omitempty" jsonschema:"forget this entity (its ID, name or alias), its relations and its observations"`
}

// ForgetOutput is what forget removed.
type ForgetOutput struct {
	PageRemoved      bool `json:"page_removed"`
	EntitiesRemoved  int  `json:"entities_removed"`
	EntitiesUpdated  int  `json:"entities_updated" jsonschema:"entities that no longer cite the page but cite others"`
	RelationsRemoved int  `json:"relations_removed"`
	RelationsUpdated int  `json:"relations_updated"`
}

func (t tools) forget(ctx context.Context, _ *mcp.CallToolRequest, in ForgetInput) (*mcp.CallToolResult, ForgetOutput, error) {
	const tool = "forget"
	var out ForgetOutput
	switch {
	case (in.PageID == "") == (in.EntityID == ""):
		return nil, out, toolError(tool, "give exactly one of page_id and entity_id")
	case in.EntityID != "":
		t.mu.Lock()
		defer t.mu.Unlock()
		e, err := t.mustEntity(ctx, tool, "entity_id", in.EntityID)
		if err != nil {
			return nil, out, err
		}
		if err := t.removeEntity(ctx, e.ID); err != nil {
			return nil, out, t.kgError(tool, err)
		}
		out.EntitiesRemoved = 1
		return nil, out, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	page, pageOK, err := t.mem.Store().Get(ctx, in.PageID)
	if err != nil {
		return nil, out, t.kgError(tool, err)
	}
	if pageOK && isObservation(page) {
		n, err := t.unobserve(ctx, in.PageID)
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		return nil, ForgetOutput{PageRemoved: true, EntitiesUpdated: n}, nil
	}
	rep, err := t.mem.Graph().RemoveSource(ctx, in.PageID)
	if err != nil {
		return nil, out, t.kgError(tool, err)
	}
	if pageOK {
		if err := t.mem.Store().Delete(ctx, in.PageID); err != nil && !errors.Is(err, kgmem.ErrNotFound) {
			return nil, out, t.kgError(tool, err)
		}
	}
	out = ForgetOutput{PageRemoved: pageOK, EntitiesRemoved: rep.EntitiesRemoved, EntitiesUpdated: rep.EntitiesUpdated,
		RelationsRemoved: rep.RelationsRemoved, RelationsUpdated: rep.RelationsUpdated}
	if !pageOK && rep == (kgmem.RemoveSourceReport{}) {
		return nil, out, toolError(tool, "unknown page %q: no page has that ID and nothing cites it", in.PageID)
	}
	return nil, out, nil
}

// DrawInput is the draw tool's input.
type DrawInput struct {
	EntityID string `json:"entity_id,omitempty" jsonschema:"draw the neighbourhood of this entity"`
	Depth    int    `json:"depth,omitempty" jsonschema:"hops around entity_id (default 1, at most 5)"`
	From     string `json:"from,omitempty" jsonschema:"with to: draw the best paths between two entities"`
	To       string `json:"to,omitempty"`
	Query    string `json:"query,omitempty" jsonschema:"draw what recall returns for this question"`
}

// DrawOutput is the diagram.
type DrawOutput struct {
	Mermaid string `json:"mermaid" jsonschema:"a Mermaid flowchart"`
}

func (t tools) draw(ctx context.Context, _ *mcp.CallToolRequest, in DrawInput) (*mcp.CallToolResult, DrawOutput, error) {
	const tool = "draw"
	var out DrawOutput
	modes := 0
	for _, set := range []bool{in.EntityID != "", in.From != "" || in.To != "", in.Query != ""} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return nil, out, toolError(tool, "give exactly one of entity_id, from and to, or query")
	}
	var sg render.Subgraph
	switch {
	case in.EntityID != "":
		start, err := t.mustEntity(ctx, tool, "entity_id", in.EntityID)
		if err != nil {
			return nil, out, err
		}
		opts, err := traverse(tool, in.Depth, "", nil, 0)
		if err != nil {
			return nil, out, err
		}
		res, err := t.mem.Graph().GetRelated(ctx, start.ID, opts)
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		sg = render.Related(start, res)
	case in.Query != "":
		res, err := t.mem.Retriever().Retrieve(ctx, in.Query)
		if err != nil {
			return nil, out, t.kgError(tool, err)
		}
		sg = render.Retrieval(res)
	default:
		res, err := t.findPaths(ctx, tool, PathsInput{From: in.From, To: in.To})
		if err != nil {
			return nil, out, err
		}
		if sg, err = render.Paths(ctx, t.mem.Graph(), res); err != nil {
			return nil, out, t.kgError(tool, err)
		}
	}
	var b bytes.Buffer
	if err := render.Mermaid(&b, sg, render.Options{}); err != nil {
		return nil, out, t.kgError(tool, err)
	}
	out.Mermaid = b.String()
	return textResult("```mermaid\n" + out.Mermaid + "```\n"), out, nil
}
