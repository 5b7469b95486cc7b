package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool adds a tool to s as mcp.AddTool does, with input and output
// schemas that strict tool-schema validators accept (see strictSchema),
// calling h with base, or, when base serves scopes, with base on the
// memory of the scope the call names (see scopedHandler). A type whose
// schema cannot be made strict is a programming error, which the tests
// catch: addTool panics with it.
func addTool[In, Out any](s *mcp.Server, base tools, t *mcp.Tool, h toolMethod[In, Out]) {
	in, err := strictSchema[In]()
	if err != nil {
		panic(fmt.Sprintf("kgmem-mcp: tool %s: input schema: %v", t.Name, err))
	}
	out, err := strictSchema[Out]()
	if err != nil {
		panic(fmt.Sprintf("kgmem-mcp: tool %s: output schema: %v", t.Name, err))
	}
	t.InputSchema, t.OutputSchema = in, out
	if base.sc == nil {
		mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			return h(base, ctx, req, in)
		})
		return
	}
	addScopeSchema(t)
	mcp.AddTool(s, t, scopedHandler(base, t.Name, h))
}

// strictSchema returns the JSON schema the SDK infers for T, with every
// type union of "null" and one type (which the inference gives slices,
// maps and pointers, since Go encodes a nil one as null) narrowed to that
// type: a tool never sends null for them, and strict validators reject
// unions. A schema left without a single type (an interface field) is an
// error.
func strictSchema[T any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	if err := narrow(s, "$"); err != nil {
		return nil, err
	}
	return s, nil
}

// narrow narrows s and the schemas in it, as strictSchema says; at is
// where s is, for the error.
func narrow(s *jsonschema.Schema, at string) error {
	if s == nil {
		return nil
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) != 1 {
			return fmt.Errorf("%s: types %v: want one type", at, s.Types)
		}
		s.Type, s.Types = types[0], nil
	}
	if s.Type == "" {
		return fmt.Errorf("%s: no type", at)
	}
	for name, p := range s.Properties {
		if err := narrow(p, at+"."+name); err != nil {
			return err
		}
	}
	if err := narrow(s.Items, at+"[]"); err != nil {
		return err
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Not == nil {
		// A map's values (a struct's is false: {"not": {}}).
		if err := narrow(s.AdditionalProperties, at+"{}"); err != nil {
			return err
		}
	}
	return nil
}
