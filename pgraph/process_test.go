package pgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// Two processes share one namespace: the test binary runs itself twice as
// writers (TestProcessWriter, which does nothing unless the environment
// says so), while the parent reads. Afterwards the parent checks that every
// write a writer saw succeed is in the database (no lost updates), that
// contended keys hold one of the values written, and, with SQL, that no
// relation lost an endpoint.

const (
	childEnv  = "KGMEM_PGRAPH_WRITER" // the writer's number; unset in a normal run
	nsEnv     = "KGMEM_PGRAPH_NAMESPACE"
	reportEnv = "KGMEM_PGRAPH_REPORT" // file the writer records its writes in
)

const (
	sharedEntities  = 8
	writerRoutines  = 4
	writerSteps     = 120
	sharedRelations = 6
)

func sharedID(i int) string { return fmt.Sprintf("shared-%d", i) }

// writerReport is what a writer knows it wrote.
type writerReport struct {
	Live      []kgmem.Entity            // its own entities, as last written
	Removed   []string                  // its own entities it removed
	Relations []kgmem.Relation          // relations at its own live entities
	Shared    map[string][]float64      // weights written to contended relations, by "src>dst"
	SharedBy  map[string][]kgmem.Entity // versions of shared entities it wrote
	Errors    map[string]int            // tolerated errors by kind
}

func TestTwoProcesses(t *testing.T) {
	pool := needDB(t)
	if os.Getenv(childEnv) != "" {
		t.Skip("running as a writer")
	}
	ctx := t.Context()
	g := newTestGraph(t)
	for i := range sharedEntities {
		if err := g.AddEntity(ctx, kgmem.Entity{ID: sharedID(i), Name: fmt.Sprintf("Shared %d", i)}); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	var cmds []*exec.Cmd
	var outputs []*strings.Builder
	for w := range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestProcessWriter$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(),
			fmt.Sprintf("%s=%d", childEnv, w), nsEnv+"="+g.Namespace(),
			reportEnv+"="+filepath.Join(dir, fmt.Sprintf("writer-%d.json", w)))
		out := new(strings.Builder)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outputs = append(cmds, cmd), append(outputs, out)
	}

	// Read while the writers write: every traversal must satisfy
	// GetRelated's invariants, which a traversal mixing two moments of the
	// graph could break.
	done := make(chan struct{})
	var readers sync.WaitGroup
	var reads int
	readers.Add(1)
	go func() {
		defer readers.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		for {
			select {
			case <-done:
				return
			default:
			}
			start := sharedID(rng.IntN(sharedEntities))
			opts := kgmem.TraverseOptions{Depth: 1 + rng.IntN(3), Direction: kgmem.Both}
			res, err := g.GetRelated(ctx, start, opts)
			if err != nil {
				t.Errorf("GetRelated(%q) during writes: %v", start, err)
				return
			}
			kgmemtest.CheckRelated(t, start, opts, res)
			if _, err := g.FindPaths(ctx, start, sharedID(rng.IntN(sharedEntities)), kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both}); err != nil && !errors.Is(err, kgmem.ErrNoPath) {
				t.Errorf("FindPaths during writes: %v", err)
				return
			}
			reads++
		}
	}()
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v\n%s", i, err, outputs[i])
		}
	}
	close(done)
	readers.Wait()
	t.Logf("%d consistent traversals read while the writers wrote", reads)

	var reports []writerReport
	for w := range 2 {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("writer-%d.json", w)))
		if err != nil {
			t.Fatalf("writer %d left no report: %v\n%s", w, err, outputs[w])
		}
		var r writerReport
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		reports = append(reports, r)
		t.Logf("writer %d: %d live entities, %d removed, %d relations, tolerated errors %v",
			w, len(r.Live), len(r.Removed), len(r.Relations), r.Errors)
	}

	// No lost updates: each writer's own entities and relations are in the
	// database exactly as it last wrote them.
	for w, r := range reports {
		for _, e := range r.Live {
			got, ok, err := g.GetEntity(ctx, e.ID)
			if err != nil || !ok {
				t.Fatalf("writer %d's entity %q: found %v, %v", w, e.ID, ok, err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", e) {
				t.Fatalf("writer %d's entity %q is\n%+v\nwant\n%+v", w, e.ID, got, e)
			}
		}
		for _, id := range r.Removed {
			if _, ok, _ := g.GetEntity(ctx, id); ok {
				t.Fatalf("writer %d removed %q, but it is there", w, id)
			}
		}
		if n, err := g.EntityCountByTag(ctx, fmt.Sprintf("own-%d", w)); err != nil || n != len(r.Live) {
			t.Fatalf("EntityCountByTag(own-%d) = %d, %v; writer %d has %d live entities", w, n, err, w, len(r.Live))
		}
		for _, rel := range r.Relations {
			var weight float64
			err := pool.QueryRow(ctx, "SELECT weight FROM "+relationsTable+
				" WHERE namespace = $1 AND source = $2 AND target = $3 AND type = $4",
				g.Namespace(), rel.SourceID, rel.TargetID, rel.Type).Scan(&weight)
			if want := rel.Weight; err != nil || weight != want && !(want == 0 && weight == 1) { // a zero weight is stored as 1
				t.Fatalf("writer %d's relation %+v: weight %v, %v", w, rel, weight, err)
			}
		}
	}

	// Contended relations hold a weight some writer wrote; contended
	// entities are one writer's version whole, and findable by their name.
	for i := range sharedRelations {
		src, dst := sharedID(i), sharedID((i+1)%sharedEntities)
		var weight float64
		err := pool.QueryRow(ctx, "SELECT weight FROM "+relationsTable+
			" WHERE namespace = $1 AND source = $2 AND target = $3 AND type = 'link'", g.Namespace(), src, dst).Scan(&weight)
		if err != nil {
			t.Fatalf("contended relation %s>%s: %v", src, dst, err)
		}
		key := src + ">" + dst
		if !slices.Contains(reports[0].Shared[key], weight) && !slices.Contains(reports[1].Shared[key], weight) {
			t.Fatalf("contended relation %s holds weight %v, which no writer wrote", key, weight)
		}
	}
	for i := range sharedEntities {
		got, _, err := g.GetEntity(ctx, sharedID(i))
		if err != nil {
			t.Fatal(err)
		}
		var versions []kgmem.Entity
		for _, r := range reports {
			versions = append(versions, r.SharedBy[got.ID]...)
		}
		if len(versions) > 0 && !slices.ContainsFunc(versions, func(v kgmem.Entity) bool { return fmt.Sprint(v) == fmt.Sprint(got) }) {
			t.Fatalf("shared entity %q is %+v, which no writer wrote", got.ID, got)
		}
		found, err := g.FindByKeywords(ctx, []string{got.Name})
		if err != nil || !slices.ContainsFunc(found, func(e kgmem.Entity) bool { return e.ID == got.ID }) {
			t.Fatalf("FindByKeywords(%q) does not find %q: its search columns are stale", got.Name, got.ID)
		}
	}

	// No relation lost an endpoint.
	var dangling int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+relationsTable+` r WHERE r.namespace = $1 AND (
	NOT EXISTS (SELECT 1 FROM `+entitiesTable+` e WHERE e.namespace = r.namespace AND e.id = r.source) OR
	NOT EXISTS (SELECT 1 FROM `+entitiesTable+` e WHERE e.namespace = r.namespace AND e.id = r.target))`,
		g.Namespace()).Scan(&dangling); err != nil {
		t.Fatal(err)
	}
	if dangling != 0 {
		t.Fatalf("%d relations have a missing endpoint", dangling)
	}
	var total int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+relationsTable+" WHERE namespace = $1", g.Namespace()).Scan(&total); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d relations in the namespace, none dangling", total)
}

// TestProcessWriter is one writer of TestTwoProcesses; run on its own it
// skips.
func TestProcessWriter(t *testing.T) {
	w := os.Getenv(childEnv)
	if w == "" {
		t.Skip("a writer process of TestTwoProcesses; it runs only when that test starts it")
	}
	pool := needDB(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	g, err := New(ctx, pool, WithNamespace(os.Getenv(nsEnv)))
	if err != nil {
		t.Fatal(err)
	}
	var writer int
	fmt.Sscan(w, &writer)
	other := 1 - writer

	var mu sync.Mutex // guards report and live
	report := writerReport{Shared: map[string][]float64{}, SharedBy: map[string][]kgmem.Entity{}, Errors: map[string]int{}}
	live := map[string]kgmem.Entity{}
	rels := map[string][]kgmem.Relation{} // relations by own entity
	tolerate := func(kind string, err error) {
		t.Helper()
		if err == nil {
			return
		}
		if !errors.Is(err, kgmem.ErrNotFound) {
			t.Errorf("%s: %v", kind, err)
			return
		}
		mu.Lock()
		report.Errors[kind]++
		mu.Unlock()
	}

	var wg sync.WaitGroup
	for r := range writerRoutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(writer), uint64(r)))
			var mine []string
			for i := range writerSteps {
				id := fmt.Sprintf("w%d-r%d-%d", writer, r, i)
				e := kgmem.Entity{
					ID: id, Name: fmt.Sprintf("Writer %d item %d %d", writer, r, i),
					Tags:       []string{fmt.Sprintf("own-%d", writer)},
					Properties: map[string]string{"step": fmt.Sprint(i)},
				}
				if err := g.AddEntity(ctx, e); err != nil {
					t.Error(err)
					return
				}
				out := kgmem.Relation{SourceID: id, TargetID: sharedID(rng.IntN(sharedEntities)), Type: "mentions", Weight: float64(i) / writerSteps}
				in := kgmem.Relation{SourceID: sharedID(rng.IntN(sharedEntities)), TargetID: id, Type: "cites", Weight: 0.5}
				for _, rel := range []kgmem.Relation{out, in} {
					if err := g.AddRelation(ctx, rel); err != nil {
						t.Error(err)
						return
					}
				}
				mine = append(mine, id)
				mu.Lock()
				live[id], rels[id] = e, []kgmem.Relation{out, in}
				mu.Unlock()

				// Contended writes: the same shared relations and
				// entities from both processes.
				k := rng.IntN(sharedRelations)
				src, dst := sharedID(k), sharedID((k+1)%sharedEntities)
				weight := float64(rng.IntN(1000)) / 1000
				mu.Lock()
				report.Shared[src+">"+dst] = append(report.Shared[src+">"+dst], weight)
				mu.Unlock()
				if err := g.AddRelation(ctx, kgmem.Relation{SourceID: src, TargetID: dst, Type: "link", Weight: weight}); err != nil {
					t.Error(err)
					return
				}
				if rng.IntN(3) == 0 {
					s := sharedID(rng.IntN(sharedEntities))
					se := kgmem.Entity{ID: s, Name: fmt.Sprintf("Shared by %d %d %d", writer, r, i), Tags: []string{fmt.Sprintf("by-%d", writer)}}
					mu.Lock()
					report.SharedBy[s] = append(report.SharedBy[s], se)
					mu.Unlock()
					if err := g.AddEntity(ctx, se); err != nil {
						t.Error(err)
						return
					}
				}

				// Relations to the other writer's entities, which it may
				// be removing at this moment: either outcome is fine, a
				// dangling relation is not.
				theirs := fmt.Sprintf("w%d-r%d-%d", other, rng.IntN(writerRoutines), rng.IntN(i+1))
				tolerate("relation to the other writer", g.AddRelation(ctx, kgmem.Relation{SourceID: theirs, TargetID: id, Type: "peer", Weight: 1}))
				tolerate("relation from the other writer", g.AddRelation(ctx, kgmem.Relation{SourceID: id, TargetID: theirs, Type: "peer", Weight: 1}))

				// Remove one of our own now and then; its relations go
				// with it.
				if len(mine) > 2 && rng.IntN(4) == 0 {
					j := rng.IntN(len(mine) - 1)
					gone := mine[j]
					mine = slices.Delete(mine, j, j+1)
					if err := g.RemoveEntity(ctx, gone); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					delete(live, gone)
					delete(rels, gone)
					report.Removed = append(report.Removed, gone)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, id := range slices.Sorted(maps.Keys(live)) {
		report.Live = append(report.Live, live[id])
		report.Relations = append(report.Relations, rels[id]...)
	}
	b, err := json.Marshal(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv(reportEnv), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
