package pgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

// WithSchema declares the schema of the memory OpenMemory opens: its
// single-valued relation types, whose values Ingest supersedes, and its
// vocabulary, which its retriever reads questions with, as
// kgmem.WithSchema does for kgmem.OpenMemory. OpenMemory stores it in the
// namespace, replacing the schema stored there when it differs (the
// declaration wins, as in process), so that every later OpenMemory of the
// namespace, in any process, finds it without options. It is an option
// of OpenMemory (and of Memories, through WithMemoryOptions) only; New and
// NewStore ignore it. An invalid type or phrase, or WithSchema given
// twice, makes OpenMemory (and New) fail with an error wrapping
// kgmem.ErrInvalidArgument.
func WithSchema(s kgmem.Schema) Option {
	n, err := s.Normalize()
	return optionFunc(func(c *config) {
		switch {
		case c.schemaErr != nil:
		case c.schema != nil:
			c.schemaErr = fmt.Errorf("pgraph: WithSchema: given twice: %w", kgmem.ErrInvalidArgument)
		case err != nil:
			c.schemaErr = errmsg.Wrap("pgraph: WithSchema", err)
		default:
			c.schema = &n
		}
	})
}

// Schema returns the memory's schema as the namespace stores it now: what
// WithSchema or the last SetSchema declared, in any process, normalized
// (see kgmem.Schema.Normalize); the zero Schema when none was declared.
// When another process changed it, the memory's Retriever takes the new
// vocabulary from this call on.
func (m *Memory) Schema(ctx context.Context) (kgmem.Schema, error) {
	if err := ctx.Err(); err != nil {
		return kgmem.Schema{}, err
	}
	s, err := m.readSchema(ctx, m.graph.pool)
	if err != nil {
		return kgmem.Schema{}, err
	}
	m.useSchema(s)
	return cloneSchema(s), nil
}

// SetSchema replaces the memory's schema with s and stores it in the
// namespace, in one statement, as kgmem.Memory.SetSchema does in process:
// from its return, every Ingest into the namespace, in any process,
// supersedes values of s.SingleValued (and no longer of types it drops),
// and this memory's Retriever reads questions with s.Vocabulary (another
// process's at its next Ingest or Schema call). Relations already stored
// are not changed: declaring a type single-valued settles its values as
// Ingest writes new ones.
//
// An empty, blank or invalid type or a phrase that is not valid UTF-8
// returns an error wrapping kgmem.ErrInvalidArgument, and the schema is
// unchanged; so does a schema holding a NUL byte, which PostgreSQL cannot
// store.
func (m *Memory) SetSchema(ctx context.Context, s kgmem.Schema) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n, err := s.Normalize()
	if err != nil {
		return errmsg.Wrap("pgraph: set schema", err)
	}
	if err := m.writeSchema(ctx, n); err != nil {
		return err
	}
	m.useSchema(n)
	return nil
}

// writeSchema stores n, normalized, as the namespace's schema; the empty
// schema deletes the namespace's row.
func (m *Memory) writeSchema(ctx context.Context, n kgmem.Schema) error {
	if reflect.DeepEqual(n, kgmem.Schema{}) {
		if _, err := m.graph.pool.Exec(ctx, "DELETE FROM "+memSchemaTable+" WHERE namespace = $1", m.graph.ns); err != nil {
			return fail("set schema", true, err)
		}
		return nil
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("pgraph: set schema: %w", err)
	}
	if bytes.Contains(b, []byte(`\u0000`)) {
		return fmt.Errorf("pgraph: set schema: a type or phrase holds a NUL byte, which PostgreSQL cannot store: %w", kgmem.ErrInvalidArgument)
	}
	if _, err := m.graph.pool.Exec(ctx, "INSERT INTO "+memSchemaTable+" (namespace, schema) VALUES ($1, $2::jsonb) "+
		"ON CONFLICT (namespace) DO UPDATE SET schema = excluded.schema", m.graph.ns, string(b)); err != nil {
		return fail("set schema", true, err)
	}
	return nil
}

// schemaQuerier is what readSchema reads through: the pool or a
// connection of it.
type schemaQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// readSchema reads the namespace's stored schema: decoded strictly (an
// unknown field is an error) and required to be in normalized form.
func (m *Memory) readSchema(ctx context.Context, q schemaQuerier) (kgmem.Schema, error) {
	var b []byte
	err := q.QueryRow(ctx, "SELECT schema FROM "+memSchemaTable+" WHERE namespace = $1", m.graph.ns).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return kgmem.Schema{}, nil
	}
	if err != nil {
		return kgmem.Schema{}, fail("read schema", false, err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var s kgmem.Schema
	if err := d.Decode(&s); err != nil {
		return kgmem.Schema{}, fmt.Errorf("pgraph: read schema of namespace %s: %v: %w", quote.Value(m.graph.ns), err, kgmem.ErrInvalidArgument)
	}
	n, err := s.Normalize()
	if err != nil || !reflect.DeepEqual(n, s) {
		return kgmem.Schema{}, fmt.Errorf("pgraph: read schema of namespace %s: not in the form pgraph writes (kgmem.Schema.Normalize): %w", quote.Value(m.graph.ns), kgmem.ErrInvalidArgument)
	}
	return n, nil
}

// useSchema makes s, normalized, the schema this memory's Ingest and
// Retriever go by, making a new retriever when the vocabulary changed.
func (m *Memory) useSchema(s kgmem.Schema) {
	m.schemaMu.Lock()
	defer m.schemaMu.Unlock()
	old := m.schema.Load()
	if old != nil && reflect.DeepEqual(*old, s) {
		return
	}
	s = cloneSchema(s)
	m.schema.Store(&s)
	if old == nil || !reflect.DeepEqual(old.Vocabulary, s.Vocabulary) || m.retriever.Load() == nil {
		m.retriever.Store(m.newRetriever(s.Vocabulary))
	}
}

// newRetriever returns a retriever over the memory's store and graph
// with vocabulary v.
func (m *Memory) newRetriever(v kgmem.Vocabulary) *kgmem.MemoryRetriever {
	ropts := []kgmem.RetrieverOption{kgmem.WithKnowledgeGraph(m.graph)}
	if m.store.emb != nil {
		ropts = append(ropts, kgmem.WithLinkEmbedder(m.store.emb, 0))
	}
	return kgmem.NewMemoryRetriever(m.store, kgmem.RetrieverConfig{Vocabulary: v}, ropts...)
}

// SingleValuedTypes returns the single-valued relation types of the
// schema the Ingest under way read, sorted: kgmem.Ingest supersedes
// their values (kgmem.SingleValuedDeclarer).
func (v *ingestView) SingleValuedTypes() []string { return slices.Clone(v.singleValued) }

var _ kgmem.SingleValuedDeclarer = (*ingestView)(nil)

// cloneSchema returns a deep copy of s.
func cloneSchema(s kgmem.Schema) kgmem.Schema {
	words := func(m map[string][]string) map[string][]string {
		if m == nil {
			return nil
		}
		out := make(map[string][]string, len(m))
		for k, v := range m {
			out[k] = slices.Clone(v)
		}
		return out
	}
	v := s.Vocabulary
	return kgmem.Schema{
		SingleValued: slices.Clone(s.SingleValued),
		Vocabulary:   kgmem.Vocabulary{Relations: words(v.Relations), InverseRelations: words(v.InverseRelations), Types: words(v.Types)},
	}
}
