package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCandidates bounds the entities an ambiguous name's error lists.
const maxCandidates = 10

// mustEntity returns the entity ref names: the one whose ID ref is, else
// the one whose name or alias it is, matched as kgmem links names
// (InMemoryGraph.FindByName: case, width, punctuation and spacing
// ignored). A blank ref, a ref that names no entity, and a name that
// several entities share are tool errors naming field; the last lists the
// candidates, by ID, for the client to choose from.
func (t tools) mustEntity(ctx context.Context, tool, field, ref string) (kgmem.Entity, error) {
	if strings.TrimSpace(ref) == "" {
		return kgmem.Entity{}, toolError(tool, "%s is empty", field)
	}
	found, err := t.findEntities(ctx, ref)
	if err != nil {
		return kgmem.Entity{}, t.kgError(tool, err)
	}
	switch len(found) {
	case 0:
		return kgmem.Entity{}, toolError(tool, "unknown entity %q (%s): no entity has that ID, name or alias; recall or related list entities", ref, field)
	case 1:
		return found[0], nil
	}
	var b strings.Builder
	for i, c := range found {
		if i == maxCandidates {
			fmt.Fprintf(&b, ", and %d more", len(found)-maxCandidates)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s", c.ID, c.Name)
		if c.Type != "" {
			fmt.Fprintf(&b, ", %s", c.Type)
		}
		b.WriteString(")")
	}
	return kgmem.Entity{}, toolError(tool, "%s %q names %d entities: %s; give one's ID", field, ref, len(found), b.String())
}

// findEntities returns the entities ref names: the one whose ID ref is,
// else those whose name or alias it is, as mustEntity matches them.
func (t tools) findEntities(ctx context.Context, ref string) ([]kgmem.Entity, error) {
	g := t.mem.Graph()
	e, ok, err := g.GetEntity(ctx, ref)
	switch {
	case err != nil && !errors.Is(err, kgmem.ErrInvalidArgument):
		return nil, err
	case ok:
		return []kgmem.Entity{e}, nil
	}
	return g.FindByName(ctx, ref)
}

// parseAsOf reads recall's as_of: an RFC 3339 date-time, or a date alone
// (full-date of RFC 3339), which is that day's midnight in UTC.
func parseAsOf(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("as_of %q is not an RFC 3339 date (2023-06-01) or date-time (2023-06-01T12:00:00Z, with its offset)", s)
}

// HistoryInput is the history tool's input.
type HistoryInput struct {
	Entity        string   `json:"entity" jsonschema:"the entity: its ID, name or alias"`
	Direction     string   `json:"direction,omitempty" jsonschema:"both (the default: the facts it is the source or the target of), outgoing or incoming"`
	RelationTypes []string `json:"relation_types,omitempty" jsonschema:"list only these relation types (default: every type)"`
}

// Fact is one relation of a timeline.
type Fact struct {
	Source     string `json:"source" jsonschema:"the source entity's ID"`
	SourceName string `json:"source_name"`
	Type       string `json:"type"`
	Target     string `json:"target" jsonschema:"the target entity's ID"`
	TargetName string `json:"target_name"`
	ValidFrom  string `json:"valid_from,omitempty" jsonschema:"when it began to hold, RFC 3339; empty: not known"`
	ValidTo    string `json:"valid_to,omitempty" jsonschema:"when it stopped holding, RFC 3339; empty: it still holds"`
	Current    bool   `json:"current" jsonschema:"it holds now"`
}

// HistoryOutput is history's answer.
type HistoryOutput struct {
	Entity string `json:"entity" jsonschema:"the entity's ID"`
	Facts  []Fact `json:"facts" jsonschema:"oldest first"`
}

func (t tools) history(ctx context.Context, _ *mcp.CallToolRequest, in HistoryInput) (*mcp.CallToolResult, HistoryOutput, error) {
	const tool = "history"
	out := HistoryOutput{Facts: []Fact{}}
	e, err := t.mustEntity(ctx, tool, "entity", in.Entity)
	if err != nil {
		return nil, out, err
	}
	out.Entity = e.ID
	dir, ok := parseDirection(in.Direction)
	if !ok {
		return nil, out, toolError(tool, "unknown direction %q: use both, outgoing or incoming", in.Direction)
	}
	g := t.mem.Graph()
	rels, err := kgmem.History(ctx, g, e.ID, kgmem.HistoryOptions{Direction: dir, RelationTypes: in.RelationTypes})
	if err != nil {
		return nil, out, t.kgError(tool, err)
	}
	names := map[string]string{e.ID: e.Name}
	name := func(id string) string {
		if n, ok := names[id]; ok {
			return n
		}
		n := id
		if o, ok, err := g.GetEntity(ctx, id); err == nil && ok {
			n = o.Name
		}
		names[id] = n
		return n
	}
	now := g.Now()
	var b strings.Builder
	for _, r := range rels {
		f := Fact{Source: r.SourceID, SourceName: name(r.SourceID), Type: r.Type, Target: r.TargetID, TargetName: name(r.TargetID), Current: r.ValidAt(now)}
		if !r.ValidFrom.IsZero() {
			f.ValidFrom = r.ValidFrom.UTC().Format(time.RFC3339Nano)
		}
		if !r.ValidTo.IsZero() {
			f.ValidTo = r.ValidTo.UTC().Format(time.RFC3339Nano)
		}
		out.Facts = append(out.Facts, f)
		fmt.Fprintf(&b, "%s —%s→ %s", f.SourceName, f.Type, f.TargetName)
		if v := r.ValidityString(); v != "" {
			fmt.Fprintf(&b, " (%s)", v)
		}
		switch {
		case !r.ValidTo.IsZero() && !now.Before(r.ValidTo):
			b.WriteString(" [ended]")
		case !r.ValidFrom.IsZero() && now.Before(r.ValidFrom):
			b.WriteString(" [not yet]")
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		b.WriteString("No facts about " + e.Name + ".")
	}
	return textResult(b.String()), out, nil
}
