package kgmem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// schemaClock is the fixed "now" of the schema tests.
var schemaClock = func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }

// moveBob ingests "Bob lives in city" into m, as a page of its own.
func moveBob(t *testing.T, m *kgmem.Memory, page, city string) {
	t.Helper()
	x := kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "Bob", Type: "person"}, {Name: city, Type: "city"}},
		Relations: []kgmem.ExtractedRelation{{Source: "Bob", Type: "lives_in", Target: city}},
	}
	_, err := m.Ingest(context.Background(), kgmem.KnowledgePage{ID: page, Content: "Bob lives in " + city + "."}, x)
	require.NoError(t, err)
}

// currentCities returns the cities Bob lives in now, sorted.
func currentCities(t *testing.T, m *kgmem.Memory) []string {
	t.Helper()
	rels, err := m.Graph().RelationsAsOf(context.Background(), kgmem.AsOf{})
	require.NoError(t, err)
	var out []string
	for _, r := range rels {
		if r.Type == "lives_in" {
			out = append(out, r.TargetID)
		}
	}
	return out
}

func openSchemaMemory(t *testing.T, dir string, opts ...kgmem.DurableOption) *kgmem.Memory {
	t.Helper()
	m, err := kgmem.OpenMemory(dir, append([]kgmem.DurableOption{kgmem.WithClock(schemaClock), kgmem.WithSync(kgmem.SyncNone)}, opts...)...)
	require.NoError(t, err)
	return m
}

// TestSchemaKeptAcrossReopen: a memory opened once with WithSingleValued
// still supersedes after a reopen without it, with or without a snapshot.
func TestSchemaKeptAcrossReopen(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(map[bool]string{false: "journal", true: "snapshot"}[compact], func(t *testing.T) {
			dir := t.TempDir()
			m := openSchemaMemory(t, dir, kgmem.WithSingleValued("lives_in"))
			moveBob(t, m, "p1", "Paris")
			if compact {
				require.NoError(t, m.Compact())
			}
			require.NoError(t, m.Close())

			m = openSchemaMemory(t, dir)
			defer m.Close()
			require.Equal(t, kgmem.Schema{SingleValued: []string{"lives_in"}}, m.Schema())
			require.Equal(t, []string{"lives_in"}, m.Graph().SingleValuedTypes())
			moveBob(t, m, "p2", "Rome")
			require.Equal(t, []string{"city:rome"}, currentCities(t, m), "Rome supersedes Paris")
			got, why := firstAnswer(t, m.Retriever(), "Where does Bob live?")
			require.Equal(t, "city:rome", got, why)
		})
	}
}

// TestSchemaReopenOptions: what a reopen's options do to the stored
// schema, and how many journal records that writes.
func TestSchemaReopenOptions(t *testing.T) {
	vocab := kgmem.Vocabulary{Relations: map[string][]string{"lives_in": {"home"}}}
	stored := kgmem.Schema{SingleValued: []string{"lives_in"}, Vocabulary: vocab}
	tests := []struct {
		name    string
		opts    []kgmem.DurableOption
		want    kgmem.Schema
		records uint64 // journal records the reopen writes
	}{
		{"no option keeps it", nil, stored, 0},
		{"the same WithSingleValued writes nothing", []kgmem.DurableOption{kgmem.WithSingleValued("lives_in", "lives_in")}, stored, 0},
		{"the same WithSchema writes nothing", []kgmem.DurableOption{kgmem.WithSchema(stored)}, stored, 0},
		{"WithSingleValued replaces the types and keeps the vocabulary",
			[]kgmem.DurableOption{kgmem.WithSingleValued("works_at", "lives_in")},
			kgmem.Schema{SingleValued: []string{"lives_in", "works_at"}, Vocabulary: vocab}, 1},
		{"WithSingleValued() clears the types", []kgmem.DurableOption{kgmem.WithSingleValued()}, kgmem.Schema{Vocabulary: vocab}, 1},
		{"WithSchema replaces it all", []kgmem.DurableOption{kgmem.WithSchema(kgmem.Schema{SingleValued: []string{"works_at"}})},
			kgmem.Schema{SingleValued: []string{"works_at"}}, 1},
		{"WithSchema of nothing clears it", []kgmem.DurableOption{kgmem.WithSchema(kgmem.Schema{})}, kgmem.Schema{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			m := openSchemaMemory(t, dir, kgmem.WithSchema(stored))
			seq := m.JournalStats().Seq
			require.Equal(t, uint64(1), seq, "the first open journals the declaration")
			require.NoError(t, m.Close())

			m = openSchemaMemory(t, dir, tt.opts...)
			require.Equal(t, tt.want, m.Schema())
			require.Equal(t, seq+tt.records, m.JournalStats().Seq)
			require.NoError(t, m.Close())

			m = openSchemaMemory(t, dir)
			require.Equal(t, tt.want, m.Schema(), "a reopen without options finds what the last one declared")
			require.NoError(t, m.Close())
		})
	}
}

// TestSchemaInvalidOptions: invalid schema options fail OpenMemory before
// it touches the files, and OpenGraph and OpenStore refuse WithSchema.
func TestSchemaInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		open func(dir string) error
	}{
		{"WithSchema with WithSingleValued", func(dir string) error {
			_, err := kgmem.OpenMemory(dir, kgmem.WithSchema(kgmem.Schema{}), kgmem.WithSingleValued("lives_in"))
			return err
		}},
		{"WithSchema twice", func(dir string) error {
			_, err := kgmem.OpenMemory(dir, kgmem.WithSchema(kgmem.Schema{}), kgmem.WithSchema(kgmem.Schema{}))
			return err
		}},
		{"blank type", func(dir string) error {
			_, err := kgmem.OpenMemory(dir, kgmem.WithSchema(kgmem.Schema{SingleValued: []string{" "}}))
			return err
		}},
		{"phrase not UTF-8", func(dir string) error {
			_, err := kgmem.OpenMemory(dir, kgmem.WithSchema(kgmem.Schema{Vocabulary: kgmem.Vocabulary{Types: map[string][]string{"film": {"\xff"}}}}))
			return err
		}},
		{"OpenGraph", func(dir string) error {
			_, err := kgmem.OpenGraph(dir, kgmem.WithSchema(kgmem.Schema{}))
			return err
		}},
		{"OpenStore", func(dir string) error {
			_, err := kgmem.OpenStore(dir, kgmem.WithSchema(kgmem.Schema{}))
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "m")
			require.ErrorIs(t, tt.open(dir), kgmem.ErrInvalidArgument)
			_, err := os.Stat(dir)
			require.ErrorIs(t, err, os.ErrNotExist, "nothing was created")
		})
	}
}

// TestSetSchema: SetSchema's validation, normalisation and records.
func TestSetSchema(t *testing.T) {
	ctx := context.Background()
	base := kgmem.Schema{SingleValued: []string{"lives_in"}}
	tests := []struct {
		name    string
		set     kgmem.Schema
		want    kgmem.Schema
		records uint64
		err     error
	}{
		{"equal writes nothing", kgmem.Schema{SingleValued: []string{"lives_in", "lives_in"}}, base, 0, nil},
		{"sorted and distinct", kgmem.Schema{SingleValued: []string{"works_at", "lives_in", "works_at"}},
			kgmem.Schema{SingleValued: []string{"lives_in", "works_at"}}, 1, nil},
		{"a type without phrases is dropped",
			kgmem.Schema{SingleValued: []string{"lives_in"}, Vocabulary: kgmem.Vocabulary{Types: map[string][]string{"film": {}, "city": {"town"}}}},
			kgmem.Schema{SingleValued: []string{"lives_in"}, Vocabulary: kgmem.Vocabulary{Types: map[string][]string{"city": {"town"}}}}, 1, nil},
		{"cleared", kgmem.Schema{}, kgmem.Schema{}, 1, nil},
		{"empty type", kgmem.Schema{SingleValued: []string{""}}, base, 0, kgmem.ErrInvalidArgument},
		{"type not UTF-8", kgmem.Schema{SingleValued: []string{"\xff"}}, base, 0, kgmem.ErrInvalidArgument},
		{"type too long", kgmem.Schema{SingleValued: []string{strings.Repeat("x", kgmem.MaxTypeBytes+1)}}, base, 0, kgmem.ErrInvalidArgument},
		{"blank vocabulary key", kgmem.Schema{Vocabulary: kgmem.Vocabulary{Relations: map[string][]string{" ": {"x"}}}}, base, 0, kgmem.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			m := openSchemaMemory(t, dir, kgmem.WithSchema(base))
			seq := m.JournalStats().Seq
			err := m.SetSchema(ctx, tt.set)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.want, m.Schema())
			require.Equal(t, tt.want.SingleValued, nilIfEmpty(m.Graph().SingleValuedTypes()))
			require.Equal(t, seq+tt.records, m.JournalStats().Seq)
			require.NoError(t, m.Close())
			m = openSchemaMemory(t, dir)
			require.Equal(t, tt.want, m.Schema())
			require.NoError(t, m.Close())
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestSetSchemaChangesSupersession: types declared later supersede from
// then on, and a type dropped stops superseding; Schema returns a copy.
func TestSetSchemaChangesSupersession(t *testing.T) {
	ctx := context.Background()
	m := openSchemaMemory(t, t.TempDir())
	defer m.Close()
	moveBob(t, m, "p1", "Paris")
	moveBob(t, m, "p2", "Oslo")
	require.Equal(t, []string{"city:oslo", "city:paris"}, currentCities(t, m), "not single-valued yet: both hold")

	require.NoError(t, m.SetSchema(ctx, kgmem.Schema{SingleValued: []string{"lives_in"}}))
	moveBob(t, m, "p3", "Rome")
	require.Equal(t, []string{"city:rome"}, currentCities(t, m))

	s := m.Schema()
	s.SingleValued[0] = "changed"
	require.Equal(t, []string{"lives_in"}, m.Schema().SingleValued, "Schema returns a copy")

	require.NoError(t, m.SetSchema(ctx, kgmem.Schema{}))
	moveBob(t, m, "p4", "Lima")
	require.Equal(t, []string{"city:lima", "city:rome"}, currentCities(t, m), "no longer single-valued")

	require.NoError(t, m.Close())
	require.ErrorIs(t, m.SetSchema(ctx, kgmem.Schema{}), kgmem.ErrClosed)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	m2 := openSchemaMemory(t, t.TempDir())
	defer m2.Close()
	require.ErrorIs(t, m2.SetSchema(cancelled, kgmem.Schema{SingleValued: []string{"x"}}), context.Canceled)
	require.Equal(t, kgmem.Schema{}, m2.Schema())
}

// TestSchemaVocabularyInRetriever: the memory's Retriever reads questions
// with the stored vocabulary, after a reopen too.
func TestSchemaVocabularyInRetriever(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := openSchemaMemory(t, dir)
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{Name: "Alien", Type: "flick"}, {Name: "Ridley", Type: "person"}, {Name: "Jerry", Type: "person"}},
		Relations: []kgmem.ExtractedRelation{
			{Source: "Alien", Type: "dir", Target: "Ridley"},
			{Source: "Alien", Type: "prod", Target: "Jerry"},
		},
	}
	_, err := kgmem.Ingest(ctx, m.Graph(), x)
	require.NoError(t, err)
	const q = "who was behind the camera of Alien?"
	got, _ := firstAnswer(t, m.Retriever(), q)
	require.Equal(t, "person:jerry", got, "without a vocabulary the two relations tie, broken by ID")

	before := m.Retriever()
	require.NoError(t, m.SetSchema(ctx, kgmem.Schema{Vocabulary: kgmem.Vocabulary{Relations: map[string][]string{"dir": {"behind the camera"}}}}))
	got, why := firstAnswer(t, m.Retriever(), q)
	require.Equal(t, "person:ridley", got, why)
	require.Contains(t, why, `dir ← "behind the camera"`)
	got, _ = firstAnswer(t, before, q)
	require.Equal(t, "person:jerry", got, "a retriever returned before keeps its vocabulary")
	require.NoError(t, m.Close())

	m = openSchemaMemory(t, dir)
	defer m.Close()
	got, why = firstAnswer(t, m.Retriever(), q)
	require.Equal(t, "person:ridley", got, why)
}

// TestSchemaTornRecord: a set_schema record cut short by a crash is cut
// off, and the memory opens with the schema before it.
func TestSchemaTornRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := openSchemaMemory(t, dir, kgmem.WithSingleValued("lives_in"))
	journal := filepath.Join(dir, "memory.journal")
	fi, err := os.Stat(journal)
	require.NoError(t, err)
	before := fi.Size()
	require.NoError(t, m.SetSchema(ctx, kgmem.Schema{SingleValued: []string{"lives_in", "works_at"}}))
	require.NoError(t, m.Close())
	fi, err = os.Stat(journal)
	require.NoError(t, err)
	after := fi.Size()
	require.Greater(t, after, before)
	for _, cut := range []int64{before + 1, before + 8, (before + after) / 2, after - 1} {
		require.NoError(t, os.Truncate(journal, cut))
		m = openSchemaMemory(t, dir)
		require.Equal(t, kgmem.Schema{SingleValued: []string{"lives_in"}}, m.Schema(), "cut at %d", cut)
		require.Equal(t, cut-before, m.Recovery().TornBytes, "cut at %d", cut)
		require.NoError(t, m.SetSchema(ctx, kgmem.Schema{SingleValued: []string{"lives_in", "works_at"}}))
		require.NoError(t, m.Close())
		fi, err = os.Stat(journal)
		require.NoError(t, err)
		require.Equal(t, after, fi.Size(), "the record is written again in the same bytes")
	}
}

// TestSchemaFiles: the schema's record and header as written, and the
// files that hold a schema kgmem does not write.
func TestSchemaFiles(t *testing.T) {
	dir := t.TempDir()
	m := openSchemaMemory(t, dir, kgmem.WithSchema(kgmem.Schema{SingleValued: []string{"lives_in"}, Vocabulary: kgmem.Vocabulary{Types: map[string][]string{"city": {"town"}}}}))
	require.NoError(t, m.Close())
	j, err := os.ReadFile(filepath.Join(dir, "memory.journal"))
	require.NoError(t, err)
	const record = `{"seq":1,"op":"set_schema","schema":{"single_valued":["lives_in"],"vocabulary":{"types":{"city":["town"]}}}}`
	require.True(t, strings.HasSuffix(string(j), record), "journal %q", j)
	m = openSchemaMemory(t, dir)
	require.NoError(t, m.Compact())
	require.NoError(t, m.Close())
	snap, err := os.ReadFile(filepath.Join(dir, "memory.snapshot"))
	require.NoError(t, err)
	header, _, _ := strings.Cut(string(snap), "\n")
	require.Equal(t, `{"format":"kgmem-graph","version":2,"seq":1,"entities":0,"relations":0,"schema":{"single_valued":["lives_in"],"vocabulary":{"types":{"city":["town"]}}},"checksum":"crc32c"}`, header)

	// A graph snapshot with a schema is a memory's: ReadFrom refuses it.
	g := kgmem.NewInMemoryGraph()
	_, err = g.ReadFrom(strings.NewReader(header + "\n"))
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)

	const head = `{"format":"kgmem-journal","version":2,"kind":"memory","base":0}`
	tests := []struct{ name, record string }{
		{"unknown field", `{"seq":1,"op":"set_schema","schema":{"single":["x"]}}`},
		{"unknown vocabulary field", `{"seq":1,"op":"set_schema","schema":{"vocabulary":{"words":{}}}}`},
		{"unsorted types", `{"seq":1,"op":"set_schema","schema":{"single_valued":["b","a"]}}`},
		{"blank type", `{"seq":1,"op":"set_schema","schema":{"single_valued":[" "]}}`},
		{"no schema", `{"seq":1,"op":"set_schema"}`},
		{"schema on another record", `{"seq":1,"op":"delete_page","id":"p","schema":{}}`},
		{"schema with entities", `{"seq":1,"op":"set_schema","schema":{},"entities":[{"id":"a","name":"a"}]}`},
		{"schema with into", `{"seq":1,"op":"set_schema","schema":{},"into":"b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			// A valid record after it, so that the bad one is not the final one.
			next := `{"seq":2,"op":"set_schema","schema":{}}`
			require.NoError(t, os.WriteFile(filepath.Join(dir, "memory.journal"), append(append(frame(head), frame(tt.record)...), frame(next)...), 0o600))
			_, err := kgmem.OpenMemory(dir)
			require.ErrorIs(t, err, kgmem.ErrCorrupt)
		})
	}
}

// TestSchemaGoldenMemoryIsEmpty: a memory written before schemas opens
// with the empty schema.
func TestSchemaGoldenMemoryIsEmpty(t *testing.T) {
	dir := t.TempDir()
	snap, err := os.ReadFile(filepath.Join("testdata", "golden", "memory.snapshot"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memory.snapshot"), snap, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memory.journal"), goldenJournal(t, filepath.Join("testdata", "golden", "memory.journal.txt")), 0o600))
	m, err := kgmem.OpenMemory(dir)
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, kgmem.Schema{}, m.Schema())
	require.Empty(t, m.Graph().SingleValuedTypes())
}

// TestSetSchemaConcurrent: SetSchema beside Ingest, Retrieve and Compact;
// the reopened memory holds the last schema set.
func TestSetSchemaConcurrent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := openSchemaMemory(t, dir)
	done := make(chan error, 1)
	go func() {
		for i := range 20 {
			city := fmt.Sprintf("City%d", i)
			x := kgmem.Extraction{
				Entities:  []kgmem.ExtractedEntity{{Name: "Bob", Type: "person"}, {Name: city, Type: "city"}},
				Relations: []kgmem.ExtractedRelation{{Source: "Bob", Type: "lives_in", Target: city}},
			}
			if _, err := m.Ingest(ctx, kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", i), Content: "Bob lives in " + city}, x); err != nil {
				done <- err
				return
			}
			if _, err := m.Retriever().Retrieve(ctx, "where does Bob live?"); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	schemas := []kgmem.Schema{{SingleValued: []string{"lives_in"}}, {SingleValued: []string{"works_at"}}}
	for i := range 20 {
		require.NoError(t, m.SetSchema(ctx, schemas[i%2]))
		if i%5 == 0 {
			require.NoError(t, m.Compact())
		}
	}
	require.NoError(t, <-done)
	require.NoError(t, m.Close())
	m = openSchemaMemory(t, dir)
	defer m.Close()
	require.Equal(t, schemas[1], m.Schema())
}

// TestDurableGraphSingleValued: a durable graph keeps its single-valued
// types across reopen, compaction and ReadFrom, as a memory keeps its
// schema; WithSingleValued at OpenGraph declares them.
func TestDurableGraphSingleValued(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T, dir string, opts ...kgmem.DurableOption) *kgmem.DurableGraph {
		t.Helper()
		g, err := kgmem.OpenGraph(dir, append([]kgmem.DurableOption{kgmem.WithSync(kgmem.SyncNone)}, opts...)...)
		require.NoError(t, err)
		return g
	}
	steps := []struct {
		name    string
		opts    []kgmem.DurableOption
		set     []string // SetSingleValued's types, when not nil
		compact bool
		want    []string
		records uint64
	}{
		{"declared at open", []kgmem.DurableOption{kgmem.WithSingleValued("lives_in")}, nil, false, []string{"lives_in"}, 1},
		{"kept without options", nil, nil, false, []string{"lives_in"}, 0},
		{"the same option writes nothing", []kgmem.DurableOption{kgmem.WithSingleValued("lives_in")}, nil, false, []string{"lives_in"}, 0},
		{"SetSingleValued", nil, []string{"works_at", "lives_in"}, false, []string{"lives_in", "works_at"}, 1},
		{"kept in the snapshot", nil, nil, true, []string{"lives_in", "works_at"}, 0},
		{"after the snapshot", nil, nil, false, []string{"lives_in", "works_at"}, 0},
		{"another option replaces them", []kgmem.DurableOption{kgmem.WithSingleValued("works_at")}, nil, false, []string{"works_at"}, 1},
		{"cleared", nil, []string{}, false, nil, 1},
		{"still cleared", nil, nil, false, nil, 0},
	}
	dir := t.TempDir()
	var last uint64 // the seq of the last write
	for _, st := range steps {
		g := open(t, dir, st.opts...)
		if st.set != nil {
			require.NoError(t, g.SetSingleValued(ctx, st.set...), st.name)
		}
		if st.compact {
			require.NoError(t, g.Compact())
		}
		require.Equal(t, st.want, nilIfEmpty(g.SingleValuedTypes()), st.name)
		require.Equal(t, last+st.records, g.JournalStats().Seq, st.name)
		last = g.JournalStats().Seq
		require.NoError(t, g.Close())
		g = open(t, dir)
		require.Equal(t, st.want, nilIfEmpty(g.SingleValuedTypes()), "%s, reopened", st.name)
		require.NoError(t, g.Close())
	}

	// Supersession after a reopen without options, and ReadFrom keeps the
	// types in the new snapshot.
	g := open(t, dir, kgmem.WithSingleValued("lives_in"), kgmem.WithClock(schemaClock))
	src := kgmem.NewInMemoryGraph()
	require.NoError(t, src.AddEntity(ctx, kgmem.Entity{ID: "x", Name: "X"}))
	var b strings.Builder
	_, err := src.WriteTo(&b)
	require.NoError(t, err)
	_, err = g.ReadFrom(strings.NewReader(b.String()))
	require.NoError(t, err)
	require.NoError(t, g.Close())
	g = open(t, dir, kgmem.WithClock(schemaClock))
	defer g.Close()
	require.Equal(t, []string{"lives_in"}, g.SingleValuedTypes())
	for _, city := range []string{"Paris", "Rome"} {
		_, err := kgmem.Ingest(ctx, g, kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: "Bob", Type: "person"}, {Name: city, Type: "city"}},
			Relations: []kgmem.ExtractedRelation{{Source: "Bob", Type: "lives_in", Target: city}},
		})
		require.NoError(t, err)
	}
	rels, err := g.RelationsAsOf(ctx, kgmem.AsOf{})
	require.NoError(t, err)
	require.Len(t, rels, 1)
	require.Equal(t, "city:rome", rels[0].TargetID)

	require.ErrorIs(t, g.SetSingleValued(ctx, " "), kgmem.ErrInvalidArgument)
	require.Equal(t, []string{"lives_in"}, g.SingleValuedTypes())
	require.NoError(t, g.Close())
	require.ErrorIs(t, g.SetSingleValued(ctx, "x"), kgmem.ErrClosed)
}

// TestDurableGraphSchemaFiles: a graph journal's set_schema record holds
// single-valued types only; a torn one is cut off.
func TestDurableGraphSchemaFiles(t *testing.T) {
	const head = `{"format":"kgmem-journal","version":2,"kind":"graph","base":0}`
	next := `{"seq":2,"op":"add_entity","entities":[{"id":"a","name":"a"}]}`
	tests := []struct {
		name, record string
		want         []string
		err          error
	}{
		{"valid", `{"seq":1,"op":"set_schema","schema":{"single_valued":["a","b"]}}`, []string{"a", "b"}, nil},
		{"vocabulary", `{"seq":1,"op":"set_schema","schema":{"vocabulary":{"types":{"c":["town"]}}}}`, nil, kgmem.ErrCorrupt},
		{"unsorted", `{"seq":1,"op":"set_schema","schema":{"single_valued":["b","a"]}}`, nil, kgmem.ErrCorrupt},
		{"unknown field", `{"seq":1,"op":"set_schema","schema":{"single_valued":["a"]},"id":"x"}`, nil, kgmem.ErrCorrupt},
		{"no schema", `{"seq":1,"op":"set_schema"}`, nil, kgmem.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "graph.journal"), append(append(frame(head), frame(tt.record)...), frame(next)...), 0o600))
			g, err := kgmem.OpenGraph(dir)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			defer g.Close()
			require.Equal(t, tt.want, g.SingleValuedTypes())
		})
	}

	dir := t.TempDir()
	g, err := kgmem.OpenGraph(dir, kgmem.WithSingleValued("a"))
	require.NoError(t, err)
	require.NoError(t, g.SetSingleValued(context.Background(), "a", "b"))
	require.NoError(t, g.Close())
	journal := filepath.Join(dir, "graph.journal")
	fi, err := os.Stat(journal)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(journal, fi.Size()-3))
	g, err = kgmem.OpenGraph(dir)
	require.NoError(t, err)
	defer g.Close()
	require.Equal(t, []string{"a"}, g.SingleValuedTypes())
	require.NotZero(t, g.Recovery().TornBytes)

	// A graph snapshot with a vocabulary is a memory's.
	snap := `{"format":"kgmem-graph","version":2,"seq":1,"entities":0,"relations":0,"schema":{"vocabulary":{"types":{"c":["town"]}}}}` + "\n"
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "graph.snapshot"), []byte(snap), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "graph.journal"), frame(`{"format":"kgmem-journal","version":2,"kind":"graph","base":1}`), 0o600))
	_, err = kgmem.OpenGraph(dir)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
}
