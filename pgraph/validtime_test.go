package pgraph

import (
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestMigrateValidTime migrates a database written at schema version 3,
// before valid time: its relations gain no validity and stay valid at
// every instant, and new relations store their valid time.
func TestMigrateValidTime(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	p := emptySchemaPool(t, pool, "v", 0)
	g := &Graph{pool: p, ns: "v", clock: time.Now}
	for v := 0; v < 3; v++ { // up to version 3, as an older package left it
		if _, err := g.migrateOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Exec(ctx, `INSERT INTO kgmem_entities (namespace, id) VALUES ('v', 'a'), ('v', 'b');
INSERT INTO kgmem_relations (namespace, source, target, type, weight) VALUES ('v', 'a', 'b', 'old', 1)`); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g, err := New(ctx, p, WithNamespace("v"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := g.schemaVersion(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, SchemaVersion)
	}
	if err := g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "ended",
		ValidFrom: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), ValidTo: now}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   kgmem.AsOf
		want []string
	}{
		{kgmem.AsOf{}, []string{"old"}}, // now, by the graph's clock: ended at now
		{kgmem.At(now.Add(-time.Microsecond)), []string{"ended", "old"}},
		{kgmem.AsOf{AllTime: true}, []string{"ended", "old"}},
	} {
		got, err := g.GetRelated(ctx, "a", kgmem.TraverseOptions{AsOf: c.at})
		if err != nil || len(got) != 1 {
			t.Fatalf("GetRelated(%+v) = %v, %v", c.at, got, err)
		}
		// One neighbour, by the best relation of the smallest key; ask per type.
		var types []string
		for _, typ := range []string{"ended", "old"} {
			got, err := g.GetRelated(ctx, "a", kgmem.TraverseOptions{AsOf: c.at, RelationTypes: []string{typ}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 1 {
				types = append(types, typ)
				if r := got[0].Relations[0]; typ == "old" && r.HasValidity() {
					t.Errorf("the relation written before version 5 has a valid time: %v → %v", r.ValidFrom, r.ValidTo)
				}
			}
		}
		if len(types) != len(c.want) || types[0] != c.want[0] {
			t.Errorf("as of %+v: types %q, want %q", c.at, types, c.want)
		}
	}
	// The database refuses an end before the start, whatever the writer.
	if _, err := p.Exec(ctx, `UPDATE kgmem_relations SET valid_to = valid_from - interval '1 day' WHERE type = 'ended'`); err == nil {
		t.Error("the check constraint let an end before the start through")
	}
}
