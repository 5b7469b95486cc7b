package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultScope is the scope a call that names none uses, unless
// -default-scope names another.
const DefaultScope = "default"

// errScopeRefused is what a call naming a scope it may not use reads. It
// names no scope, so that it tells nothing of the scopes the client may
// not use, not even whether one exists.
const errScopeRefused = "the scope asked for is not one this client may use"

// A toolMethod is a tool's handler as a method expression of tools: it is
// called with the tools of the call's memory.
type toolMethod[In, Out any] func(tools, context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)

// scopeConfig is the scopes a server serves.
type scopeConfig struct {
	ms      *kgmem.Memories
	def     string   // the scope of a call that names none
	allowed []string // the scopes a client may use, sorted; nil: every one
}

// ScopeOptions configure NewScopedServer.
type ScopeOptions struct {
	// Default is the scope of a call that names none; "" is DefaultScope.
	Default string
	// Allowed lists the scopes clients may use; nil or empty: every one.
	// A call naming another is refused with an error that names no scope.
	// Default must be one of them.
	Allowed []string
}

// NewScopedServer returns an MCP server whose tools read and write the
// memories of ms, one per scope: every tool takes an optional scope
// argument (default: opts.Default) and works on that scope's memory
// alone, leasing it from ms for the call (kgmem.Memories.Memory); recall
// also takes scopes, a list of scopes to search together
// (kgmem.Memories.Retrieve), and its items say their scope. dir is the
// directory of ms, which no message names (see NewServer). The caller
// keeps ms open while the server runs and closes it afterwards.
func NewScopedServer(ms *kgmem.Memories, dir string, opts ScopeOptions) (*mcp.Server, error) {
	if ms == nil {
		return nil, fmt.Errorf("no memories: %w", kgmem.ErrInvalidArgument)
	}
	sc := &scopeConfig{ms: ms, def: opts.Default}
	if sc.def == "" {
		sc.def = DefaultScope
	}
	if len(opts.Allowed) > 0 {
		sc.allowed = slices.Clone(opts.Allowed)
		slices.Sort(sc.allowed)
		sc.allowed = slices.Compact(sc.allowed)
		if !slices.Contains(sc.allowed, sc.def) {
			return nil, fmt.Errorf("the default scope %q is not one of the allowed scopes: %w", sc.def, kgmem.ErrInvalidArgument)
		}
	}
	for _, s := range append([]string{sc.def}, sc.allowed...) {
		if s == "" || len(s) > kgmem.MaxScopeBytes {
			return nil, fmt.Errorf("scope %q: empty or longer than %d bytes: %w", s, kgmem.MaxScopeBytes, kgmem.ErrInvalidArgument)
		}
	}
	t := newTools(nil, dir)
	t.sc = sc
	return newServer(t), nil
}

// allows reports whether a client may use scope: one the command line
// allows, and, for a call that came with a token (g not nil), that the
// token allows.
func (sc *scopeConfig) allows(g *tokenGrant, scope string) bool {
	_, ok := slices.BinarySearch(sc.allowed, scope)
	return (sc.allowed == nil || ok) && (g == nil || g.allows(scope))
}

// defaultFor returns the scope of a call that names none, made with the
// token of g (nil: none): the server's default scope, or, for a token
// that may not use it, the first scope the tokens file lists for it.
func (sc *scopeConfig) defaultFor(g *tokenGrant) string {
	if g == nil || g.allows(sc.def) || len(g.scopes) == 0 {
		return sc.def
	}
	return g.scopes[0]
}

// scopeArgs is the scope arguments of a call.
type scopeArgs struct {
	Scope  string   `json:"scope"`
	Scopes []string `json:"scopes"`
}

// addScopeSchema adds the scope argument to t's input schema, and the
// scopes argument to recall's.
func addScopeSchema(t *mcp.Tool) {
	in := t.InputSchema.(*jsonschema.Schema)
	if in.Properties == nil {
		in.Properties = map[string]*jsonschema.Schema{}
	}
	in.Properties["scope"] = &jsonschema.Schema{Type: "string",
		Description: "the scope (memory) to work on; default: the server's default scope"}
	if t.Name == "recall" {
		in.Properties["scopes"] = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"},
			Description: "instead of scope: several scopes to search together; each item says its scope"}
	}
}

// scopedHandler returns the handler of a tool on a server that serves
// scopes: it reads the call's scope (or recall's scopes), refuses one the
// client may not use, leases the scope's memory for the call and calls h
// with base on it.
func scopedHandler[In, Out any](base tools, tool string, h toolMethod[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		var args scopeArgs
		if raw := req.Params.Arguments; len(raw) > 0 {
			// The SDK checked the arguments against the schema already.
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, zero, toolError(tool, "arguments: %v", err)
			}
		}
		sc := base.sc
		t := base
		g := callGrant(req)
		if args.Scopes != nil {
			if args.Scope != "" {
				return nil, zero, toolError(tool, "give scope or scopes, not both")
			}
			if len(args.Scopes) == 0 {
				return nil, zero, toolError(tool, "scopes is empty")
			}
			for _, s := range args.Scopes {
				if !sc.allows(g, s) {
					return nil, zero, toolError(tool, errScopeRefused)
				}
			}
			t.scopes = args.Scopes
			return h(t, ctx, req, in)
		}
		scope := args.Scope
		if scope == "" {
			scope = sc.defaultFor(g)
		}
		if !sc.allows(g, scope) {
			return nil, zero, toolError(tool, errScopeRefused)
		}
		mem, release, err := sc.ms.Memory(ctx, scope)
		if err != nil {
			return nil, zero, t.kgError(tool, err)
		}
		defer release()
		t.mem, t.scope = mem, scope
		return h(t, ctx, req, in)
	}
}

// scopeLines lists the scope of each of a cross-scope recall's items, for
// the text a model reads beside the context block.
func scopeLines(items []Item) string {
	var b strings.Builder
	b.WriteString("\n\nScopes of the items:")
	for _, it := range items {
		fmt.Fprintf(&b, "\n- %s: %s", it.Scope, it.ID)
	}
	return b.String()
}

// ListScopesInput is the list_scopes tool's input: none.
type ListScopesInput struct{}

// ListScopesOutput is the list_scopes tool's result.
type ListScopesOutput struct {
	Scopes  []string `json:"scopes" jsonschema:"the scopes this client may use, sorted: those it is limited to, existing or not, or, when open, the scopes that hold a memory"`
	Default string   `json:"default" jsonschema:"the scope of a call that names none"`
	Open    bool     `json:"open" jsonschema:"true when the client may also name a scope not listed, which the call creates"`
}

// addListScopes adds the list_scopes tool to a server that serves scopes.
// It lists only scopes the calling client may use: a client limited to
// some (by -allow-scopes or its token) learns nothing of the others, not
// even whether one exists.
func addListScopes(s *mcp.Server, base tools) {
	in, err := strictSchema[ListScopesInput]()
	if err != nil {
		panic(fmt.Sprintf("kgmem-mcp: tool list_scopes: input schema: %v", err))
	}
	out, err := strictSchema[ListScopesOutput]()
	if err != nil {
		panic(fmt.Sprintf("kgmem-mcp: tool list_scopes: output schema: %v", err))
	}
	tool := &mcp.Tool{Name: "list_scopes", Description: "List the scopes (memories) this client may use, and the scope of a call that names none.",
		InputSchema: in, OutputSchema: out, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	sc := base.sc
	mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, _ ListScopesInput) (*mcp.CallToolResult, ListScopesOutput, error) {
		g := callGrant(req)
		res := ListScopesOutput{Default: sc.defaultFor(g), Scopes: []string{}}
		switch {
		case g != nil && !g.all:
			for _, scope := range g.scopes {
				if sc.allows(g, scope) {
					res.Scopes = append(res.Scopes, scope)
				}
			}
			slices.Sort(res.Scopes)
		case sc.allowed != nil:
			res.Scopes = append(res.Scopes, sc.allowed...)
		default:
			existing, err := sc.ms.Scopes(ctx)
			if err != nil {
				return nil, res, base.kgError("list_scopes", err)
			}
			res.Scopes = append(res.Scopes, existing...)
			res.Open = true
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Default scope: %s\nScopes:", strconv.Quote(res.Default))
		for _, scope := range res.Scopes {
			fmt.Fprintf(&b, " %s", strconv.Quote(scope))
		}
		if len(res.Scopes) == 0 {
			b.WriteString(" none yet")
		}
		if res.Open {
			b.WriteString("\nAny other scope may be named too: a call that names one creates it.")
		}
		return textResult(b.String()), res, nil
	})
}
