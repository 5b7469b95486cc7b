package kgmem

// The length limits (MaxIDBytes, MaxTypeBytes, MaxNameBytes, MaxTagBytes)
// on every path into a graph besides the KnowledgeGraph methods, which the
// conformance suite checks: AddBatch, snapshots, journals and Ingest.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxMessage bounds the error messages of these tests, whose over-long
// values are at least 100 times longer.
const maxMessage = 512

// overLimitEntities returns entities that each break one length limit by
// a wide margin, and the words their errors must contain.
func overLimitEntities() []struct {
	name  string
	e     Entity
	parts []string
} {
	huge := strings.Repeat("x", 100<<10)
	return []struct {
		name  string
		e     Entity
		parts []string
	}{
		{"ID", Entity{ID: "e:" + huge}, []string{"entity ID", `"e:xxx`, "(102402 bytes)", "MaxIDBytes (1024)"}},
		{"Name", Entity{ID: "e", Name: huge}, []string{`entity "e": name`, "MaxNameBytes (1024)"}},
		{"Type", Entity{ID: "e", Type: huge}, []string{`entity "e": type`, "MaxTypeBytes (256)"}},
		{"Alias", Entity{ID: "e", Aliases: []string{"ok", huge}}, []string{`entity "e": alias 1`, "MaxNameBytes (1024)"}},
		{"Tag", Entity{ID: "e", Tags: []string{"ok", huge}}, []string{`entity "e": tag 1`, "MaxTagBytes (128)"}},
	}
}

func TestAddBatchRejectsOverLimitValues(t *testing.T) {
	ctx := context.Background()
	g := randomGraph(t, 1, 20, 40)
	before := snapshotBytes(t, g)
	for _, tt := range overLimitEntities() {
		err := g.AddBatch(ctx, []Entity{{ID: "fine"}, tt.e}, nil)
		require.ErrorIs(t, err, ErrInvalidArgument, tt.name)
		require.ErrorContains(t, err, "batch entity 1: ", tt.name)
		for _, p := range tt.parts {
			require.ErrorContains(t, err, p, tt.name)
		}
		require.Less(t, len(err.Error()), maxMessage, tt.name)
	}
	long := strings.Repeat("t", MaxTypeBytes+1)
	err := g.AddBatch(ctx, []Entity{{ID: "a"}, {ID: "b"}}, []Relation{{SourceID: "a", TargetID: "b", Type: "ok"}, {SourceID: "a", TargetID: "b", Type: long}})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.ErrorContains(t, err, `kgmem: batch relation 1: relation "a" -> "b": relation type "tttt`)
	require.ErrorContains(t, err, "MaxTypeBytes (256)")
	require.Equal(t, before, snapshotBytes(t, g))
}

func TestSnapshotRejectsOverLimitValues(t *testing.T) {
	g := randomGraph(t, 1, 20, 40)
	before := snapshotBytes(t, g)
	for _, tt := range overLimitEntities() {
		line, err := json.Marshal(tt.e)
		require.NoError(t, err)
		in := `{"format":"kgmem-graph","version":1,"entities":2,"relations":0}` + "\n" + `{"id":"0"}` + "\n" + string(line) + "\n"
		_, err = g.ReadFrom(strings.NewReader(in))
		require.ErrorIs(t, err, ErrInvalidArgument, tt.name)
		require.ErrorContains(t, err, "snapshot line 3: ", tt.name)
		for _, p := range tt.parts {
			require.ErrorContains(t, err, p, tt.name)
		}
		require.Less(t, len(err.Error()), maxMessage, tt.name)
	}
	for _, r := range []string{
		`{"source_id":"a","target_id":"b","type":"` + strings.Repeat("t", MaxTypeBytes+1) + `","weight":1}`,
		`{"source_id":"a","target_id":"b","type":"` + strings.Repeat("t", MaxTypeBytes+1) + `","weight":1,"source_ids":["p"]}`,
	} {
		in := `{"format":"kgmem-graph","version":1,"entities":2,"relations":1}` + "\n" + `{"id":"a"}` + "\n" + `{"id":"b"}` + "\n" + r + "\n"
		_, err := g.ReadFrom(strings.NewReader(in))
		require.ErrorIs(t, err, ErrInvalidArgument)
		require.ErrorContains(t, err, `snapshot line 4: relation "a" -> "b": relation type "tttt`)
		require.ErrorContains(t, err, "MaxTypeBytes (256)")
	}
	require.Equal(t, before, snapshotBytes(t, g))

	// Values at the limits make a snapshot that reads back.
	at := NewInMemoryGraph()
	id := strings.Repeat("i", MaxIDBytes)
	require.NoError(t, at.AddEntity(context.Background(), Entity{
		ID: id, Name: strings.Repeat("n", MaxNameBytes), Type: strings.Repeat("y", MaxTypeBytes),
		Aliases: []string{strings.Repeat("a", MaxNameBytes)}, Tags: []string{strings.Repeat("T", MaxTagBytes)},
	}))
	require.NoError(t, at.AddRelation(context.Background(), Relation{SourceID: id, TargetID: id, Type: strings.Repeat("r", MaxTypeBytes)}))
	again := NewInMemoryGraph()
	_, err := again.ReadFrom(strings.NewReader(string(snapshotBytes(t, at))))
	require.NoError(t, err)
	require.Equal(t, snapshotBytes(t, at), snapshotBytes(t, again))
}

func TestJournalRejectsOverLimitRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g, err := OpenGraph(dir)
	require.NoError(t, err)
	require.NoError(t, g.AddEntity(ctx, Entity{ID: "a"}))
	require.NoError(t, g.Close())

	rel, err := json.Marshal(Relation{SourceID: "a", TargetID: "a", Type: strings.Repeat("t", 100<<10)})
	require.NoError(t, err)
	path := filepath.Join(dir, "graph.journal")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(appendFrameForTest(`{"seq":2,"op":"add_relation","relations":[` + string(rel) + `]}`))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, err = OpenGraph(dir)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.ErrorContains(t, err, "record seq 2 does not apply")
	require.ErrorContains(t, err, "MaxTypeBytes (256)")
	require.Less(t, len(err.Error()), maxMessage+len(path))
}

// appendFrameForTest frames a journal payload as the journal format
// documents: length, CRC-32C, payload.
func appendFrameForTest(payload string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum([]byte(payload), crc32.MakeTable(crc32.Castagnoli)))
	return append(b, payload...)
}

func TestIngestSkipsOverLimitValues(t *testing.T) {
	ctx := context.Background()
	long := func(n int) string { return strings.Repeat("x", n) }
	x := Extraction{
		Entities: []ExtractedEntity{
			{Name: "Fine"},
			{Name: long(MaxNameBytes + 1)},
			{Name: "Aliased", Aliases: []string{"ok", long(MaxNameBytes + 1)}},
			{Name: "Typed", Type: long(MaxTypeBytes + 1)},
			{Name: "Tagged", Tags: []string{"OK", long(MaxTagBytes + 1)}},
			{ID: long(MaxIDBytes + 1), Name: "Explicit"},
			// Each part fits, but "type:name" does not fit MaxIDBytes.
			{Name: long(MaxNameBytes), Type: long(MaxTypeBytes)},
			{Name: long(MaxNameBytes), Type: "x"}, // "x:xxx…" is 1026 bytes
		},
		Relations: []ExtractedRelation{
			{Source: "Fine", Target: "Fine2", Type: long(MaxTypeBytes + 1)},
			{Source: "Fine", Target: long(MaxIDBytes - 5), Type: "knows"}, // placeholder ID "entity:xxx…" too long
			{Source: "Fine", Target: "Other", Type: "knows"},
		},
	}
	g := NewInMemoryGraph()
	rep, err := Ingest(ctx, g, x, WithPlaceholders())
	require.NoError(t, err)
	require.Equal(t, 1, rep.EntitiesCreated)
	require.Equal(t, 7, rep.EntitiesSkipped)
	require.Equal(t, 1, rep.RelationsCreated)
	require.Equal(t, 2, rep.RelationsSkipped)
	require.Equal(t, 1, rep.PlaceholdersCreated)
	reasons := make([]string, len(rep.Skipped))
	for i, s := range rep.Skipped {
		reasons[i] = s.String()
		require.Less(t, len(reasons[i]), maxMessage, "%.100s", reasons[i])
	}
	want := []string{
		"entity 1 (", "name is 1025 bytes, more than MaxNameBytes (1024)",
		"entity 2 (\"Aliased\"): alias \"xxx", "(1025 bytes) is longer than MaxNameBytes (1024)",
		"entity 3 (\"Typed\"): type is 257 bytes, more than MaxTypeBytes (256)",
		"entity 4 (\"Tagged\"): tag \"xxx", "(129 bytes) is longer than MaxTagBytes (128)",
		"entity 5 (\"Explicit\"): ID \"xxx", "(1025 bytes) is longer than MaxIDBytes (1024)",
		"entity 6 (", "ID \"xxx", "(1281 bytes) is longer than MaxIDBytes (1024)",
		"entity 7 (", "ID \"x:xxx", "(1026 bytes) is longer than MaxIDBytes (1024)",
		"relation 0 (", "relation type is 257 bytes, more than MaxTypeBytes (256)",
		"relation 1 (", `target "xxx`, "names no entity, and a placeholder for it cannot be made: its ID \"entity:xxx", "MaxIDBytes (1024)",
	}
	all := strings.Join(reasons, "\n")
	for _, w := range want {
		require.Contains(t, all, w)
	}
	require.Equal(t, []string{"entity:fine", "entity:other"}, func() []string {
		es, _ := g.Entities(ctx)
		var ids []string
		for _, e := range es {
			ids = append(ids, e.ID)
		}
		return ids
	}())

	// Strict: nothing written, and the error stays short.
	_, err = Ingest(ctx, NewInMemoryGraph(), x, WithStrict(), WithPlaceholders())
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Less(t, len(err.Error()), 10*maxMessage, fmt.Sprintf("%.300s", err))
}
