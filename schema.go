package kgmem

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/jsonl"
)

// Schema is what a memory knows about its relation types and entity types
// besides the facts themselves: the relation types that hold one value at
// each instant, and the words that name its types in questions. A Memory
// keeps its schema in its files (see OpenMemory and Memory.SetSchema), so
// that a reopen supersedes and reads questions as before without passing
// options again. The zero value declares nothing.
type Schema struct {
	// SingleValued lists the relation types of which an entity holds one
	// value at each instant (lives_in, works_at): Ingest ends the old
	// value when it writes a new one, as for WithSingleValued. Types are
	// compared exactly; the memory keeps them sorted and without
	// duplicates.
	SingleValued []string `json:"single_valued,omitempty"`
	// Vocabulary registers words for the relation and entity types, as
	// RetrieverConfig.Vocabulary does; the memory's Retriever uses it.
	Vocabulary Vocabulary `json:"vocabulary,omitzero"`
}

// normalized returns a copy of s in the form a memory keeps: SingleValued
// sorted and distinct, entries without phrases dropped, empty parts nil.
// It returns an error wrapping ErrInvalidArgument naming the first
// invalid type or phrase.
func (s Schema) normalized() (Schema, error) {
	var n Schema
	for _, t := range s.SingleValued {
		if err := checkType("relation type", t); err != nil {
			return Schema{}, errmsg.Wrap("kgmem: schema: single-valued", err)
		}
		n.SingleValued = append(n.SingleValued, t)
	}
	slices.Sort(n.SingleValued)
	n.SingleValued = slices.Compact(n.SingleValued)
	if err := s.Vocabulary.validate(); err != nil {
		return Schema{}, errmsg.Wrap("kgmem: schema", err)
	}
	words := func(m map[string][]string) map[string][]string {
		var out map[string][]string
		for k, phrases := range m {
			if len(phrases) == 0 {
				continue
			}
			if out == nil {
				out = make(map[string][]string, len(m))
			}
			out[k] = slices.Clone(phrases)
		}
		return out
	}
	n.Vocabulary = Vocabulary{Relations: words(s.Vocabulary.Relations), InverseRelations: words(s.Vocabulary.InverseRelations), Types: words(s.Vocabulary.Types)}
	return n, nil
}

// clone returns a deep copy of s.
func (s Schema) clone() Schema {
	words := func(m map[string][]string) map[string][]string {
		if m == nil {
			return nil
		}
		out := make(map[string][]string, len(m))
		for k, v := range maps.All(m) {
			out[k] = slices.Clone(v)
		}
		return out
	}
	return Schema{
		SingleValued: slices.Clone(s.SingleValued),
		Vocabulary:   Vocabulary{Relations: words(s.Vocabulary.Relations), InverseRelations: words(s.Vocabulary.InverseRelations), Types: words(s.Vocabulary.Types)},
	}
}

// empty reports whether s, normalized, declares nothing.
func (s Schema) empty() bool { return reflect.DeepEqual(s, Schema{}) }

// storedSchema is a Schema as a memory's snapshot header and journal hold
// it: decoded strictly, an unknown field at any depth being an error, as
// everywhere else in kgmem's files.
type storedSchema struct{ Schema }

func (s *storedSchema) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var v Schema
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	s.Schema = v
	return nil
}

// WithSchema declares the schema of the memory OpenMemory opens: its
// single-valued relation types and its vocabulary, replacing the schema
// the memory's files hold (see OpenMemory). It is an option of OpenMemory
// only, and cannot be combined with WithSingleValued; an invalid type or
// phrase makes OpenMemory fail with an error wrapping ErrInvalidArgument.
func WithSchema(s Schema) DurableOption {
	s = s.clone()
	return durableOptionFunc(func(c *durableConfig) {
		if c.schema != nil {
			c.fail("WithSchema: given twice")
			return
		}
		n, err := s.normalized()
		if err != nil {
			c.fail("WithSchema: %s", errorText(err))
			return
		}
		c.schema = &n
	})
}

// declaredSchema returns the schema c declares for a memory whose files
// hold stored, and whether it declares one. newDurableConfig checked c.
func (c *durableConfig) declaredSchema(stored Schema) (Schema, bool) {
	if c.schema != nil {
		return *c.schema, true
	}
	if gc := newGraphConfig(c.graph); gc.svSet {
		s := stored.clone()
		s.SingleValued = gc.singleValued
		return s, true
	}
	return Schema{}, false
}

// Schema returns a copy of the memory's schema: what OpenMemory's options
// or the last SetSchema declared, as the memory's files keep it.
func (m *Memory) Schema() Schema { return m.schema.Load().clone() }

// SetSchema replaces the memory's schema with s: from its return, Ingest
// supersedes values of s.SingleValued (and no longer of types it drops),
// and Retriever returns a retriever with s.Vocabulary. The change is one
// journal record, written before SetSchema returns, so that a crash keeps
// the old schema or the new one, and every later OpenMemory finds it
// without options. Relations already stored are not changed: declaring a
// type single-valued settles its values as Ingest writes new ones.
//
// An empty, blank or invalid type (see WithSingleValued) or a phrase that
// is not valid UTF-8 returns an error wrapping ErrInvalidArgument, and the
// schema is unchanged; a schema equal to the memory's writes nothing.
// After Close it returns an error wrapping ErrClosed.
func (m *Memory) SetSchema(ctx context.Context, s Schema) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n, err := s.normalized()
	if err != nil {
		return withContext(err, "set schema")
	}
	if err := m.graph.lock(); err != nil {
		return err
	}
	defer m.graph.mu.Unlock()
	if reflect.DeepEqual(n, *m.schema.Load()) {
		return nil
	}
	if err := m.log.Append(&schemaRecord{Op: opSetSchema, Schema: &storedSchema{n}}); err != nil {
		return err
	}
	m.setSchema(n)
	return nil
}

// schemaRecord is the journal record of SetSchema.
type schemaRecord struct {
	Op     mutationOp    `json:"op"`
	Schema *storedSchema `json:"schema"`
}

// setSchema makes s, normalized, the memory's schema: the graph's
// single-valued types and the retriever's vocabulary. The caller holds
// the graph's lock for writing, or nobody else holds the memory.
func (m *Memory) setSchema(s Schema) {
	m.schema.Store(&s)
	m.graph.setSingleValued(slices.Clone(s.SingleValued))
	m.retriever.Store(m.newRetriever(s.Vocabulary))
}

// newRetriever returns a retriever over the memory with vocabulary v.
func (m *Memory) newRetriever(v Vocabulary) *MemoryRetriever {
	ropts := []RetrieverOption{WithKnowledgeGraph(m.graph)}
	if e := m.store.embedder; e != nil {
		ropts = append(ropts, WithLinkEmbedder(e, 0))
	}
	return NewMemoryRetriever(m.store, RetrieverConfig{Vocabulary: v}, ropts...)
}

// checkStoredSchema checks a schema read from a journal or a snapshot: it
// must be valid and in the form kgmem writes.
func checkStoredSchema(s *storedSchema) error {
	n, err := s.normalized()
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(n, s.Schema) {
		return fmt.Errorf("kgmem: schema: not in the form kgmem writes (single-valued types sorted and distinct, no type without phrases): %w", ErrInvalidArgument)
	}
	return nil
}

// replaySchema applies a set_schema record's schema.
func (m *Memory) replaySchema(s *storedSchema) error {
	if err := checkStoredSchema(s); err != nil {
		return err
	}
	m.setSchema(s.Schema)
	return nil
}

// durableSchema returns the schema a durable graph's snapshot holds: its
// single-valued types; nil when it declares none.
func (g *InMemoryGraph) durableSchema() *storedSchema {
	if sv := g.SingleValuedTypes(); len(sv) > 0 {
		return &storedSchema{Schema{SingleValued: sv}}
	}
	return nil
}

// SetSingleValued replaces the graph's single-valued relation types (see
// WithSingleValued) with types, sorted and without duplicates: from its
// return, Ingest supersedes values of those types, and no longer of types
// it drops. The change is one journal record, written before it returns,
// so that every later OpenGraph finds the types without options (see
// OpenGraph). Relations already stored are not changed. An empty, blank or
// invalid type returns an error wrapping ErrInvalidArgument and changes
// nothing; the types the graph already declares write nothing. After Close
// it returns an error wrapping ErrClosed.
func (d *DurableGraph) SetSingleValued(ctx context.Context, types ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n, err := Schema{SingleValued: types}.normalized()
	if err != nil {
		return withContext(err, "set single-valued")
	}
	g := d.InMemoryGraph
	if err := g.lock(); err != nil {
		return err
	}
	defer g.mu.Unlock()
	if slices.Equal(n.SingleValued, g.SingleValuedTypes()) {
		return nil
	}
	if err := d.log.Append(&schemaRecord{Op: opSetSchema, Schema: &storedSchema{n}}); err != nil {
		return err
	}
	g.setSingleValued(n.SingleValued)
	return nil
}

// replayGraphSchema applies body, a durable graph's journal record, when
// it is a set_schema record, and reports whether it was one.
func replayGraphSchema(g *InMemoryGraph, body []byte) (bool, error) {
	if !bytes.Contains(body, []byte(`"op":"set_schema"`)) {
		return false, nil
	}
	var op struct {
		Op mutationOp `json:"op"`
	}
	if json.Unmarshal(body, &op) != nil || op.Op != opSetSchema {
		return false, nil
	}
	var r schemaRecord
	if err := jsonl.DecodeStrict(body, &r, schemaRecordNames); err != nil {
		return true, fmt.Errorf("kgmem: record: %v: %w", err, ErrInvalidArgument)
	}
	if r.Schema == nil || !reflect.DeepEqual(r.Schema.Schema, Schema{SingleValued: r.Schema.SingleValued}) {
		return true, malformed(r.Op)
	}
	if err := checkStoredSchema(r.Schema); err != nil {
		return true, err
	}
	g.setSingleValued(r.Schema.SingleValued)
	return true, nil
}

var schemaRecordNames = jsonl.Names(reflect.TypeFor[schemaRecord]())

// Normalize returns a copy of s in the form a memory keeps it:
// SingleValued sorted and without duplicates, vocabulary entries without
// phrases dropped, empty parts nil, so that two schemas that declare the
// same are equal (reflect.DeepEqual). An empty, blank or invalid type or a
// phrase that is not valid UTF-8 returns an error wrapping
// ErrInvalidArgument. Backends that keep a memory's schema themselves,
// such as package pgraph, store and compare schemas in this form, as
// OpenMemory and Memory.SetSchema do.
func (s Schema) Normalize() (Schema, error) { return s.normalized() }
