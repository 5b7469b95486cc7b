package kgmem_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

// A durableKind is one of the three things kgmem keeps in a directory,
// seen the same way by the recovery tests: a list of writes, a way to
// print the state, and the journal's name.
type durableKind struct {
	name    string // the journal's kind and file name
	variant string // "vectors" for a store with an embedder; "" otherwise
	writes  []func(ctx context.Context, o *opened) error
	openDir func(dir string, opts ...kgmem.DurableOption) (*opened, error)
}

// title names k in subtests and golden files: its name, and its variant
// after a hyphen.
func (k durableKind) title() string {
	if k.variant == "" {
		return k.name
	}
	return k.name + "-" + k.variant
}

// withEmbedder returns k opening its store with a HashEmbedder of 8
// dimensions, so that its pages carry vectors.
func withEmbedder(k durableKind) durableKind {
	open := k.openDir
	k.variant = "vectors"
	k.openDir = func(dir string, opts ...kgmem.DurableOption) (*opened, error) {
		return open(dir, append(opts, kgmem.WithEmbedder(kgmemtest.HashEmbedder{Dimensions: 8}))...)
	}
	return k
}

// opened is an open graph, store or memory.
type opened struct {
	state    func() string // the contents as snapshots, for comparison
	close    func() error
	compact  func() error
	recovery func() kgmem.RecoveryStats
	graph    *kgmem.InMemoryGraph
	store    *kgmem.InMemoryKnowledgeStore
	memory   *kgmem.Memory
}

func snapshotOfGraph(g *kgmem.InMemoryGraph) string {
	var b bytes.Buffer
	if _, err := g.WriteTo(&b); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

func snapshotOfStore(s *kgmem.InMemoryKnowledgeStore) string {
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

func pageWrites() []func(ctx context.Context, o *opened) error {
	put := func(p kgmem.KnowledgePage) func(ctx context.Context, o *opened) error {
		return func(ctx context.Context, o *opened) error { return o.store.Put(ctx, p) }
	}
	return []func(ctx context.Context, o *opened) error{
		put(kgmem.KnowledgePage{ID: "page-1", Title: "Apollo", Content: "Alice leads Project Apollo.", Tags: []string{"project"}}),
		put(kgmem.KnowledgePage{ID: "page-2", Content: "张三 works on Apollo with <Bob> & \"Carol\".", Metadata: map[string]string{"source": "chat"}}),
		put(kgmem.KnowledgePage{ID: "page-1", Title: "Apollo (rev)", Content: "Alice leads Apollo; Bob joined."}),
		func(ctx context.Context, o *opened) error { return o.store.Delete(ctx, "page-2") },
		put(kgmem.KnowledgePage{ID: "page-3", Content: strings.Repeat("raft consensus ", 20)}),
	}
}

func durableKinds() []durableKind {
	var graphWrites []func(ctx context.Context, o *opened) error
	for _, s := range mutationSteps() {
		if strings.Contains(s.name, "ReadFrom") {
			continue // it writes a snapshot, not a record
		}
		graphWrites = append(graphWrites, func(_ context.Context, o *opened) error { return s.apply(o.graph) })
	}
	memoryWrites := []func(ctx context.Context, o *opened) error{}
	pw := pageWrites()
	for i := range graphWrites {
		memoryWrites = append(memoryWrites, graphWrites[i])
		if i < len(pw) {
			memoryWrites = append(memoryWrites, pw[i])
		}
	}
	memoryWrites = append(memoryWrites, func(ctx context.Context, o *opened) error {
		_, err := o.memory.Ingest(ctx,
			kgmem.KnowledgePage{ID: "page-9", Content: "Dave mentors 张三 on Raft."},
			kgmem.Extraction{
				Entities:  []kgmem.ExtractedEntity{{Name: "Dave", Type: "person"}, {Name: "Raft", Type: "tech"}},
				Relations: []kgmem.ExtractedRelation{{Source: "Dave", Target: "Raft", Type: "knows"}},
			})
		return err
	})
	// Writes with valid times, which make the memory's snapshot version
	// 3; the files before them are kept in testdata/golden/v2.
	memoryWrites = append(memoryWrites,
		func(ctx context.Context, o *opened) error {
			return o.graph.AddRelation(ctx, kgmem.Relation{SourceID: "person:alice", TargetID: "person:dave", Type: "worked_with",
				ValidFrom: time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC), ValidTo: time.Date(2024, 6, 15, 12, 30, 0, 123456000, time.UTC)})
		},
		func(ctx context.Context, o *opened) error {
			return o.graph.AddBatch(ctx, nil, []kgmem.Relation{{SourceID: "person:dave", TargetID: "person:alice", Type: "reports_to",
				ValidFrom: time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600))}})
		})
	kinds := []durableKind{
		{name: "graph", writes: graphWrites, openDir: func(dir string, opts ...kgmem.DurableOption) (*opened, error) {
			g, err := kgmem.OpenGraph(dir, opts...)
			if err != nil {
				return nil, err
			}
			return &opened{graph: g.InMemoryGraph, close: g.Close, compact: g.Compact, recovery: g.Recovery,
				state: func() string { return snapshotOfGraph(g.InMemoryGraph) }}, nil
		}},
		{name: "pages", writes: pageWrites(), openDir: func(dir string, opts ...kgmem.DurableOption) (*opened, error) {
			s, err := kgmem.OpenStore(dir, opts...)
			if err != nil {
				return nil, err
			}
			return &opened{store: s.InMemoryKnowledgeStore, close: s.Close, compact: s.Compact, recovery: s.Recovery,
				state: func() string { return snapshotOfStore(s.InMemoryKnowledgeStore) }}, nil
		}},
		{name: "memory", writes: memoryWrites, openDir: func(dir string, opts ...kgmem.DurableOption) (*opened, error) {
			m, err := kgmem.OpenMemory(dir, opts...)
			if err != nil {
				return nil, err
			}
			return &opened{graph: m.Graph(), store: m.Store(), memory: m, close: m.Close, compact: m.Compact, recovery: m.Recovery,
				state: func() string { return snapshotOfGraph(m.Graph()) + snapshotOfStore(m.Store()) }}, nil
		}},
	}
	return append(kinds, withEmbedder(kinds[1]), withEmbedder(kinds[2]))
}

// journalFixture is the journal of a closed graph, store or memory, and
// the state it holds with and without its last record.
type journalFixture struct {
	kind          durableKind
	journal       []byte
	offs          []int
	without, full string
}

func newJournalFixture(t *testing.T, k durableKind) *journalFixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	o, err := k.openDir(dir, kgmem.WithSync(kgmem.SyncNone))
	require.NoError(t, err)
	f := &journalFixture{kind: k}
	for i, w := range k.writes {
		if i == len(k.writes)-1 {
			f.without = o.state()
		}
		require.NoError(t, w(ctx, o), "%s write %d", k.name, i)
	}
	f.full = o.state()
	require.NoError(t, o.close())
	f.journal, err = os.ReadFile(filepath.Join(dir, k.name+".journal"))
	require.NoError(t, err)
	f.offs = frameOffsets(t, f.journal)
	require.GreaterOrEqual(t, len(f.offs), len(k.writes)+1, "a record per write at least, after the header")
	return f
}

// open writes journal as the only file of a new directory and opens it.
func (f *journalFixture) open(t *testing.T, journal []byte, opts ...kgmem.DurableOption) (*opened, string, error) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, f.kind.name+".journal"), journal, 0o600))
	o, err := f.kind.openDir(dir, append(opts, kgmem.WithSync(kgmem.SyncNone))...)
	if err == nil {
		t.Cleanup(func() { o.close() })
	}
	return o, dir, err
}

// TestTornTailAtEveryByte cuts each kind's journal at every byte of its
// last record's frame header, then through its payload, and opens it: the
// last write is gone, everything before it is there, Recovery reports the
// cut bytes, and writing goes on. Under KGMEM_LONG the payload is cut at
// every byte too; by default at every 9th (17th under -short) and one byte
// short of the end.
func TestTornTailAtEveryByte(t *testing.T) {
	t.Parallel()
	for _, k := range durableKinds() {
		t.Run(k.title(), func(t *testing.T) {
			f := newJournalFixture(t, k)
			last := f.offs[len(f.offs)-1]
			// The kinds with vectors, whose last record is long (most
			// of it base64), have their payload cut at every 11th byte
			// even under KGMEM_LONG.
			step := kgmem.Scaled(1, 9, 17)
			if k.variant != "" {
				step = kgmem.Scaled(11, 61, 101)
			}
			next := func(cut int) int {
				if cut < last+8 {
					return cut + 1
				}
				return min(cut+step, max(cut+1, len(f.journal)-1))
			}
			cuts := 0
			defer func() { t.Logf("%d cuts of a %d-byte record", cuts, len(f.journal)-last) }()
			for cut := last; cut < len(f.journal); cut = next(cut) {
				cuts++
				for _, strict := range []bool{false, true} {
					var opts []kgmem.DurableOption
					if strict {
						opts = append(opts, kgmem.WithStrictRecovery())
					}
					o, dir, err := f.open(t, f.journal[:cut], opts...)
					require.NoError(t, err, "cut at %d", cut)
					require.Equal(t, f.without, o.state(), "cut at %d", cut)
					rec := o.recovery()
					require.Equal(t, int64(cut-last), rec.TornBytes, "cut at %d", cut)
					if cut > last {
						require.Equal(t, int64(last), rec.TornOffset)
					}
					require.Zero(t, rec.DamagedBytes)
					require.Equal(t, len(f.offs)-2, rec.Replayed)
					fi, err := os.Stat(filepath.Join(dir, k.name+".journal"))
					require.NoError(t, err)
					require.Equal(t, int64(last), fi.Size(), "the torn record is cut off")
					if cut == last+3 && !strict {
						// The journal goes on cleanly after the cut: the
						// last write, made again, is found after reopening.
						require.NoError(t, k.writes[len(k.writes)-1](context.Background(), o))
						require.NoError(t, o.close())
						o, err = k.openDir(dir)
						require.NoError(t, err)
						require.Equal(t, f.full, o.state())
						require.Zero(t, o.recovery().TornBytes)
						require.NoError(t, o.close())
					}
				}
			}
			o, _, err := f.open(t, f.journal)
			require.NoError(t, err)
			require.Equal(t, f.full, o.state())
			require.Zero(t, o.recovery().TornBytes)

			// Zeros after the last record, as a file system may leave
			// after a crash, are a torn tail too.
			o, _, err = f.open(t, append(bytes.Clone(f.journal), make([]byte, 100)...), kgmem.WithStrictRecovery())
			require.NoError(t, err)
			require.Equal(t, f.full, o.state())
			require.Equal(t, int64(100), o.recovery().TornBytes)
		})
	}
}

// TestDamagedRecords flips bytes. In the last record, whose frame stays
// whole, it is damage: the bytes are kept in a file of their own and
// reported, or strict recovery refuses to open. In any earlier record it
// is corruption: Open fails naming the record's offset and changes no file.
func TestDamagedRecords(t *testing.T) {
	t.Parallel()
	for _, k := range durableKinds() {
		t.Run(k.title(), func(t *testing.T) {
			f := newJournalFixture(t, k)
			last := f.offs[len(f.offs)-1]
			for i := last + 4; i < len(f.journal); i += 1 + (i-last)/8 {
				j := bytes.Clone(f.journal)
				j[i] ^= 0x20

				_, dir, err := f.open(t, j, kgmem.WithStrictRecovery())
				require.ErrorIs(t, err, kgmem.ErrCorrupt, "flip at %d", i)
				require.ErrorContains(t, err, "damaged final record")
				after, rerr := os.ReadFile(filepath.Join(dir, k.name+".journal"))
				require.NoError(t, rerr)
				require.Equal(t, j, after, "strict recovery changed the journal")

				o, dir, err := f.open(t, j)
				require.NoError(t, err, "flip at %d", i)
				require.Equal(t, f.without, o.state())
				rec := o.recovery()
				require.Zero(t, rec.TornBytes)
				require.Equal(t, int64(last), rec.DamagedOffset)
				require.Equal(t, int64(len(f.journal)-last), rec.DamagedBytes)
				require.Equal(t, filepath.Join(dir, fmt.Sprintf("%s.journal.damaged-%d", k.name, last)), rec.DamagedFile)
				kept, rerr := os.ReadFile(rec.DamagedFile)
				require.NoError(t, rerr)
				require.Equal(t, j[last:], kept, "the damaged bytes are kept as they were")
			}
			for r := 1; r < len(f.offs)-1; r++ {
				off := f.offs[r]
				for _, i := range []int{off, off + 5, off + 9, f.offs[r+1] - 1} {
					j := bytes.Clone(f.journal)
					j[i] ^= 0x01
					_, dir, err := f.open(t, j)
					require.ErrorIs(t, err, kgmem.ErrCorrupt, "flip at %d in record %d", i, r)
					require.ErrorContains(t, err, fmt.Sprintf("offset %d:", off))
					require.ErrorContains(t, err, filepath.Join(dir, k.name+".journal"))
					after, rerr := os.ReadFile(filepath.Join(dir, k.name+".journal"))
					require.NoError(t, rerr)
					require.Equal(t, j, after, "the damaged journal was changed")
				}
			}
			// A damaged header is corruption too.
			j := bytes.Clone(f.journal)
			j[10] ^= 0x01
			_, _, err := f.open(t, j)
			require.ErrorIs(t, err, kgmem.ErrCorrupt)
			require.ErrorContains(t, err, "offset 0:")
		})
	}
}

// TestJournalRules feeds Open hand-made journals that break the rules of
// the format.
func TestJournalRules(t *testing.T) {
	header := func(kind string, base int) []byte {
		return frame(fmt.Sprintf(`{"format":"kgmem-journal","version":2,"kind":%q,"base":%d}`, kind, base))
	}
	rec := func(seq int, id string) []byte {
		return frame(fmt.Sprintf(`{"seq":%d,"op":"add_entity","entities":[{"id":%q,"name":""}]}`, seq, id))
	}
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	g := durableKinds()[0]
	f := &journalFixture{kind: g}
	cases := []struct {
		name    string
		journal []byte
		msg     string
	}{
		{"gap", join(header("graph", 0), rec(1, "a"), rec(3, "b")), "record seq 3 follows seq 1"},
		{"not starting at 1", join(header("graph", 0), rec(2, "a")), "record seq 2 follows seq 0"},
		{"repeated", join(header("graph", 0), rec(1, "a"), rec(1, "b")), "record seq 1 follows seq 1"},
		{"base without snapshot", join(header("graph", 4), rec(5, "a")), "continues the snapshot with seq 4"},
		{"wrong format", join(frame(`{"format":"kgmem-graph","version":2}`), rec(1, "a")), "header: format"},
		{"wrong version", join(frame(`{"format":"kgmem-journal","version":3,"kind":"graph","base":0}`)), "unsupported version 3"},
		{"wrong kind", join(header("pages", 0)), `a "pages" journal, want "graph"`},
		{"no base", join(frame(`{"format":"kgmem-journal","version":2,"kind":"graph"}`)), "no base"},
		{"unknown op", join(header("graph", 0), frame(`{"seq":1,"op":"explode"}`)), "unknown graph operation"},
		{"page op in a graph", join(header("graph", 0), frame(`{"seq":1,"op":"put_page","page":{"id":"p"}}`)), "unknown field"},
		{"replace record", join(header("graph", 0), frame(`{"seq":1,"op":"replace"}`)), "malformed"},
		{"unknown field", join(header("graph", 0), frame(`{"seq":1,"op":"add_entity","entities":[{"id":"a"}],"x":1}`)), "unknown field"},
		{"seq not first", join(header("graph", 0), frame(`{"op":"add_entity","seq":1,"entities":[{"id":"a"}]}`)), "does not begin with its seq"},
		{"does not apply", join(header("graph", 0), frame(`{"seq":1,"op":"remove_entity","id":"nobody"}`)), "does not apply"},
		{"malformed", join(header("graph", 0), frame(`{"seq":1,"op":"add_relation"}`)), "malformed"},
		{"too many tags", join(header("graph", 0), frame(`{"seq":1,"op":"add_entity","entities":[{"id":"a","tags":["1","2","3","4","5","6","7","8","9"]}]}`)), "MaxTagsPerEntity"},
		{"v1 key in a v2 journal", join(header("graph", 0), rec(1, "a"), rec(2, "b"),
			frame(`{"seq":3,"op":"add_relation","relations":[{"source_id":"a","target_id":"b","type":"t","weight":1}]}`),
			frame(`{"seq":4,"op":"remove_relation","key":{"SourceID":"a","TargetID":"b","Type":"t"}}`)), "does not apply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := f.open(t, c.journal)
			require.ErrorIs(t, err, kgmem.ErrCorrupt)
			require.ErrorContains(t, err, c.msg)
		})
	}
	o, _, err := f.open(t, join(header("graph", 0), rec(1, "a"), rec(2, "b")))
	require.NoError(t, err)
	require.Equal(t, 2, o.graph.Stats().Entities)
}

// TestFilesThatDoNotFit checks that Open refuses, rather than return less,
// when the snapshot and journal do not belong together.
func TestFilesThatDoNotFit(t *testing.T) {
	for _, k := range durableKinds() {
		t.Run(k.title(), func(t *testing.T) {
			ctx := context.Background()
			src := t.TempDir()
			o, err := k.openDir(src, kgmem.WithSync(kgmem.SyncNone))
			require.NoError(t, err)
			compact := func() { require.NoError(t, o.compact()) }
			half := len(k.writes) / 2
			for _, w := range k.writes[:half] {
				require.NoError(t, w(ctx, o))
			}
			compact()
			old, err := os.ReadFile(filepath.Join(src, k.name+".snapshot"))
			require.NoError(t, err)
			for _, w := range k.writes[half:] {
				require.NoError(t, w(ctx, o))
			}
			compact()
			require.NoError(t, o.close())

			snap := filepath.Join("DIR", k.name+".snapshot")
			cases := []struct {
				name   string
				mangle func(dir string)
				want   string
			}{
				{"snapshot deleted", func(dir string) { os.Remove(filepath.Join(dir, k.name+".snapshot")) },
					"and snapshot " + snap + " is missing"},
				{"snapshot older", func(dir string) { os.WriteFile(filepath.Join(dir, k.name+".snapshot"), old, 0o600) },
					"and snapshot " + snap + " holds only seq"},
				{"journal deleted", func(dir string) { os.Remove(filepath.Join(dir, k.name+".journal")) },
					"missing, though snapshot " + snap + " exists"},
				{"journal emptied", func(dir string) { os.Truncate(filepath.Join(dir, k.name+".journal"), 0) },
					"no valid header frame (0 bytes)"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					dir := t.TempDir()
					entries, err := os.ReadDir(src)
					require.NoError(t, err)
					for _, e := range entries {
						b, err := os.ReadFile(filepath.Join(src, e.Name()))
						require.NoError(t, err)
						require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600))
					}
					c.mangle(dir)
					_, err = k.openDir(dir)
					require.ErrorIs(t, err, kgmem.ErrCorrupt)
					require.ErrorContains(t, err, strings.ReplaceAll(c.want, "DIR", dir))
				})
			}
		})
	}
}
