package pgraph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

func entityChanges(t *testing.T, g *Graph, since uint64) kgmem.EntityChanges {
	t.Helper()
	ch, err := g.EntityChanges(t.Context(), since)
	if err != nil {
		t.Fatalf("EntityChanges(%d): %v", since, err)
	}
	return ch
}

func ids(es []kgmem.Entity) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// TestEntityChangesSeesLateCommits checks the case a feed numbered by a
// sequence gets wrong: a writer that began first commits after a reader
// has seen a later writer's change. Its changes, a write and a removal,
// are in the next answer.
func TestEntityChangesSeesLateCommits(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	for _, id := range []string{"gone", "kept"} {
		if err := g.AddEntity(ctx, kgmem.Entity{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	v0 := entityChanges(t, g, 0).Version

	slow, err := g.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(context.Background())
	if _, err := slow.Exec(ctx, "INSERT INTO "+entitiesTable+" (namespace, id, name) VALUES ($1, 'late', 'Late')", g.ns); err != nil {
		t.Fatal(err)
	}
	if _, err := slow.Exec(ctx, "DELETE FROM "+entitiesTable+" WHERE namespace = $1 AND id = 'gone'", g.ns); err != nil {
		t.Fatal(err)
	}
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "fast"}); err != nil { // commits first
		t.Fatal(err)
	}
	ch := entityChanges(t, g, v0)
	if ch.Reset || !slices.Contains(ids(ch.Changed), "fast") || slices.Contains(ids(ch.Changed), "late") || len(ch.Removed) != 0 {
		t.Fatalf("while the slow writer runs: %+v, want fast changed only", ch)
	}
	v1 := ch.Version
	if err := slow.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	ch = entityChanges(t, g, v1)
	if ch.Reset || !slices.Contains(ids(ch.Changed), "late") || !slices.Equal(ch.Removed, []string{"gone"}) {
		t.Fatalf("after the slow writer committed: Reset %v, Changed %q, Removed %q; want late changed and gone removed",
			ch.Reset, ids(ch.Changed), ch.Removed)
	}
	// Once no transaction is running, an answer with nothing new is empty.
	v2 := ch.Version
	deadline := time.Now().Add(5 * time.Second)
	for {
		ch = entityChanges(t, g, v2)
		if len(ch.Changed) == 0 && len(ch.Removed) == 0 && !ch.Reset {
			break
		}
		if time.Now().After(deadline) { // another test's transaction may run
			t.Logf("changes still re-delivered after 5 s: %q, %q", ids(ch.Changed), ch.Removed)
			break
		}
		v2 = ch.Version
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEntityChangesAcrossGraphs reads the changes another Graph of the
// namespace (another process) writes.
func TestEntityChangesAcrossGraphs(t *testing.T) {
	g := newTestGraph(t)
	other, err := New(t.Context(), g.pool, WithNamespace(g.ns))
	if err != nil {
		t.Fatal(err)
	}
	stranger := newTestGraph(t) // another namespace
	v := entityChanges(t, g, 0).Version
	if err := other.AddEntity(t.Context(), kgmem.Entity{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := stranger.AddEntity(t.Context(), kgmem.Entity{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	ch := entityChanges(t, g, v)
	if !slices.Equal(ids(ch.Changed), []string{"a"}) {
		t.Fatalf("Changed = %q, want [a]: another namespace's writes are not this one's", ids(ch.Changed))
	}
}

// TestEntityChangesClear: Clear answers every earlier version with a Reset.
func TestEntityChangesClear(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	v := entityChanges(t, g, 0).Version
	if err := g.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	ch := entityChanges(t, g, v)
	if !ch.Reset || !slices.Equal(ids(ch.Changed), []string{"b"}) || ch.Removed != nil {
		t.Fatalf("after Clear: %+v, want a Reset with b", ch)
	}
	var n int
	if err := g.pool.QueryRow(ctx, "SELECT count(*) FROM "+removalsTable+" WHERE namespace = $1", g.ns).Scan(&n); err != nil || n != 0 {
		t.Fatalf("Clear left %d removals (%v)", n, err)
	}
	// A version read after Clear is served incrementally.
	v = ch.Version
	if err := g.RemoveEntity(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if ch := entityChanges(t, g, v); ch.Reset || !slices.Equal(ch.Removed, []string{"b"}) {
		t.Fatalf("after Clear and a removal: %+v, want b removed", ch)
	}
}

// TestEntityChangesRemovalLogIsBounded fills the removal log past its
// window: it is trimmed, and a version older than a trimmed removal of
// the namespace gets a Reset.
func TestEntityChangesRemovalLogIsBounded(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "early"}); err != nil {
		t.Fatal(err)
	}
	v := entityChanges(t, g, 0).Version
	if err := g.RemoveEntity(ctx, "early"); err != nil {
		t.Fatal(err)
	}
	// Other namespaces' removals, written straight into the log, push
	// this one out of the window.
	filler := randomNamespace("filler")
	t.Cleanup(func() {
		if _, err := g.pool.Exec(context.Background(), "DELETE FROM "+removalsTable+" WHERE namespace = $1", filler); err != nil {
			t.Error(err)
		}
	})
	if _, err := g.pool.Exec(ctx, "INSERT INTO "+removalsTable+" (namespace, id, change_xid)"+
		" SELECT $1, 'x' || i, pg_current_xact_id() FROM generate_series(1, $2) AS i", filler, removalWindow+2048); err != nil {
		t.Fatal(err)
	}
	if ch := entityChanges(t, g, v); ch.Reset || !slices.Equal(ch.Removed, []string{"early"}) {
		t.Fatalf("before the trim: %+v, want early removed", ch)
	}
	// Removals of more than 1,024 entities in one statement cross a
	// trimming point.
	ents := make([]kgmem.Entity, 1100)
	for i := range ents {
		ents[i] = kgmem.Entity{ID: fmt.Sprintf("e%04d", i)}
	}
	if err := g.AddBatch(ctx, ents, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := g.pool.Exec(ctx, "DELETE FROM "+entitiesTable+" WHERE namespace = $1", g.ns); err != nil {
		t.Fatal(err)
	}
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "z"}); err != nil {
		t.Fatal(err)
	}
	ch := entityChanges(t, g, v)
	if !ch.Reset || !slices.Equal(ids(ch.Changed), []string{"z"}) {
		t.Fatalf("after the trim: Reset %v, Changed %q; want a Reset with z", ch.Reset, ids(ch.Changed))
	}
	var n, last int64
	if err := g.pool.QueryRow(ctx, "SELECT count(*), coalesce(max(seq), 0) - coalesce(min(seq), 0) FROM "+removalsTable).Scan(&n, &last); err != nil {
		t.Fatal(err)
	}
	if last >= removalWindow+1100+1024 {
		t.Fatalf("the removal log spans %d removals (%d rows), want fewer than the window of %d plus a trim step and one statement", last, n, removalWindow)
	}
	// The new floor serves later versions incrementally.
	v = ch.Version
	if err := g.RemoveEntity(ctx, "z"); err != nil {
		t.Fatal(err)
	}
	if ch := entityChanges(t, g, v); ch.Reset || !slices.Equal(ch.Removed, []string{"z"}) {
		t.Fatalf("after the trim and a removal: %+v, want z removed", ch)
	}
}

// TestMigrateChangeFeed migrates a database written at schema version 5:
// its entities are in the first answer and later writes are served
// incrementally.
func TestMigrateChangeFeed(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	p := emptySchemaPool(t, pool, "f", 0)
	g := &Graph{pool: p, ns: "f", clock: time.Now}
	for range 5 { // up to version 5, as an older package left it
		if _, err := g.migrateOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Exec(ctx, `INSERT INTO kgmem_entities (namespace, id) VALUES ('f', 'a'), ('f', 'b'), ('other', 'c')`); err != nil {
		t.Fatal(err)
	}
	g, err := New(ctx, p, WithNamespace("f"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ch := entityChanges(t, g, 0)
	if !ch.Reset || !slices.Equal(ids(ch.Changed), []string{"a", "b"}) {
		t.Fatalf("first answer after the migration: %+v", ch)
	}
	if _, err := g.SetEntityTags(ctx, "a", []string{"t"}); err != nil {
		t.Fatal(err)
	}
	if err := g.RemoveEntity(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	ch = entityChanges(t, g, ch.Version)
	if ch.Reset || !slices.Equal(ids(ch.Changed), []string{"a"}) || !slices.Equal(ch.Removed, []string{"b"}) {
		t.Fatalf("after a tag change and a removal: %+v", ch)
	}
}

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	kgmemtest.HashEmbedder
	texts atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.HashEmbedder.Embed(ctx, texts)
}

func cosine(t *testing.T, e kgmem.Embedder, a, b string) float64 {
	t.Helper()
	vs, err := e.Embed(t.Context(), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var dot float64
	for i := range vs[0] {
		dot += float64(vs[0][i]) * float64(vs[1][i])
	}
	return dot
}

// TestLinkingByMeaningOverPostgres: MemoryRetriever links by meaning over
// a pgraph.Graph, and sees what another process writes and removes,
// embedding only the entities that changed.
func TestLinkingByMeaningOverPostgres(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	apollo := kgmem.Entity{ID: "apollo", Name: "Project Apollo", Description: "NASA's crewed rocket program"}
	if err := g.AddBatch(ctx, []kgmem.Entity{apollo, {ID: "alice", Name: "Alice Smith"}},
		[]kgmem.Relation{{SourceID: "alice", TargetID: "apollo", Type: "leads"}}); err != nil {
		t.Fatal(err)
	}
	emb := &countingEmbedder{}
	const q = "who leads the crewed rocket programme"
	cos := cosine(t, emb.HashEmbedder, q, kgmem.EntityText(apollo))
	if cos < 0.2 {
		t.Fatalf("the question's cosine with apollo is %.3f: the test needs a clearer margin", cos)
	}
	threshold := cos - 1e-6
	r := kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g), kgmem.WithLinkEmbedder(emb, threshold))
	retrieve := func(query string) kgmem.RetrievalResult {
		t.Helper()
		res, err := r.Retrieve(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) > 0 {
			t.Fatalf("warnings: %q", res.Warnings)
		}
		return res
	}
	res := retrieve(q)
	if res.Stats.LinkedByMeaning != 1 {
		t.Fatalf("LinkedByMeaning = %d, want 1 (apollo); items %v", res.Stats.LinkedByMeaning, res.Items)
	}
	var got []string
	for _, it := range res.Items {
		got = append(got, it.ID())
	}
	if !slices.Contains(got, "alice") {
		t.Fatalf("items %q, want alice, reached from apollo", got)
	}
	if n := emb.texts.Load(); n != 3 { // two entities, the question
		t.Fatalf("embedded %d texts, want 3", n)
	}

	// Another process adds an entity: the next fallback embeds it alone.
	other, err := New(ctx, g.pool, WithNamespace(g.ns))
	if err != nil {
		t.Fatal(err)
	}
	rover := kgmem.Entity{ID: "rover", Name: "Moon Buggy", Description: "the lunar rover vehicle"}
	if err := other.AddEntity(ctx, rover); err != nil {
		t.Fatal(err)
	}
	const q2 = "drive the lunar rover vehicle"
	if c := cosine(t, emb.HashEmbedder, q2, kgmem.EntityText(rover)); c < threshold {
		t.Fatalf("the second question's cosine with rover is %.3f, under %.3f", c, threshold)
	}
	res = retrieve(q2)
	if res.Stats.LinkedByMeaning == 0 || res.Items[0].ID() != "rover" {
		t.Fatalf("after another process added rover: LinkedByMeaning %d, items %v", res.Stats.LinkedByMeaning, res.Items)
	}
	if n := emb.texts.Load(); n != 5 { // rover, the question
		t.Fatalf("embedded %d texts in all, want 5", n)
	}

	// It removes it: no longer linked.
	if err := other.RemoveEntity(ctx, "rover"); err != nil {
		t.Fatal(err)
	}
	res = retrieve(q2)
	for _, it := range res.Items {
		if it.ID() == "rover" {
			t.Fatalf("rover, removed, is still retrieved: %v", res.Items)
		}
	}
}

// TestEntityChangesConcurrentWriters: writers in several Graphs (as in
// several processes) add, retag and remove entities while a consumer
// follows the feed; once they are done, one more answer brings the
// consumer to the graph's state.
func TestEntityChangesConcurrentWriters(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	const writers = 4
	ops := 60
	if testing.Short() {
		ops = 25
	}
	var done atomic.Bool
	errs := make(chan error, writers)
	for w := range writers {
		wg, err := New(ctx, g.pool, WithNamespace(g.ns))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			var err error
			for i := range ops {
				id := fmt.Sprintf("e%02d", (i*7+w*3)%20)
				switch i % 4 {
				case 0, 1:
					err = wg.AddEntity(ctx, kgmem.Entity{ID: id, Name: fmt.Sprintf("w%d-%d", w, i)})
				case 2:
					if _, err = wg.SetEntityTags(ctx, id, []string{fmt.Sprint(w)}); errors.Is(err, kgmem.ErrNotFound) {
						err = nil
					}
				case 3:
					if err = wg.RemoveEntity(ctx, id); errors.Is(err, kgmem.ErrNotFound) {
						err = nil
					}
				}
				if err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	mirror := map[string]kgmem.Entity{}
	var version uint64
	apply := func() {
		ch := entityChanges(t, g, version)
		if ch.Reset {
			clear(mirror)
		}
		for _, e := range ch.Changed {
			mirror[e.ID] = e
		}
		for _, id := range ch.Removed {
			delete(mirror, id)
		}
		version = ch.Version
	}
	go func() {
		for range writers {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		done.Store(true)
	}()
	for !done.Load() {
		apply()
	}
	apply()
	want := entityChanges(t, g, 0).Changed
	if len(mirror) != len(want) {
		t.Fatalf("the consumer holds %d entities, the graph %d", len(mirror), len(want))
	}
	for _, e := range want {
		if m, ok := mirror[e.ID]; !ok || m.Name != e.Name || !slices.Equal(m.Tags, e.Tags) {
			t.Fatalf("the consumer holds %+v for %q, the graph %+v", m, e.ID, e)
		}
	}
}

// TestRemovalWindowInTrigger: the trigger of schema version 6 trims to
// removalWindow.
func TestRemovalWindowInTrigger(t *testing.T) {
	if want := fmt.Sprintf("seq <= hi - %d\n", removalWindow); !strings.Contains(migrations[5].sql, want) {
		t.Fatalf("the version 6 trigger does not trim with %q", want)
	}
}
