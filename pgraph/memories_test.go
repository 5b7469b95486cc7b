package pgraph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"golang.org/x/sync/errgroup"
)

// newTestMemories returns a Memories with a scope prefix no other test
// uses; every scope left is removed at the end of the test.
func newTestMemories(t *testing.T, opts ...MemoriesOption) *Memories {
	t.Helper()
	pool := needDB(t)
	prefix := fmt.Sprintf("t%04d:", rand.IntN(10000))
	ms, err := OpenMemories(context.Background(), pool, append([]MemoriesOption{WithScopePrefix(prefix)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		scopes, err := ms.Scopes(context.Background())
		if err != nil {
			t.Error(err)
		}
		for _, s := range scopes {
			if err := ms.Remove(context.Background(), s); err != nil {
				t.Error(err)
			}
		}
	})
	return ms
}

func TestMemoriesScopeNames(t *testing.T) {
	ms := &Memories{cfg: memoriesConfig{prefix: DefaultScopePrefix}}
	for _, tc := range []struct {
		scope, ns string
		err       error
	}{
		{scope: "alice", ns: "scope:mfwgsy3f"},
		{scope: "Alice", ns: "scope:ifwgsy3f"},
		{scope: "..", ns: "scope:fyxa"},
		{scope: "/", ns: "scope:f4"},
		{scope: "\x00", ns: "scope:aa"},
		{scope: "\xff", ns: "scope:74"},
		{scope: strings.Repeat("x", MaxScopeBytes), ns: "scope:" + scopeEncoding.EncodeToString([]byte(strings.Repeat("x", MaxScopeBytes)))},
		{scope: "", err: kgmem.ErrInvalidArgument},
		{scope: strings.Repeat("x", MaxScopeBytes+1), err: kgmem.ErrInvalidArgument},
	} {
		ns, err := ms.Namespace(tc.scope)
		if !errors.Is(err, tc.err) || ns != tc.ns {
			t.Errorf("Namespace(%q) = %q, %v; want %q, %v", tc.scope, ns, err, tc.ns, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if len(ns) > MaxNamespaceBytes {
			t.Errorf("Namespace(%q) is %d bytes, more than MaxNamespaceBytes", tc.scope, len(ns))
		}
		if back, ok := ms.nsScope(ns); !ok || back != tc.scope {
			t.Errorf("nsScope(%q) = %q, %v; want %q", ns, back, ok, tc.scope)
		}
	}
	for _, ns := range []string{"scope:", "scope:MFWGSY3F", "scope:mfwgsy3f=", "scope:a", "other:mfwgsy3f", "scope:mf", "scope:mfwgsy3"} {
		if s, ok := ms.nsScope(ns); ok {
			t.Errorf("nsScope(%q) = %q, true; want no scope", ns, s)
		}
	}
}

func TestMemoriesOptions(t *testing.T) {
	for _, o := range []MemoriesOption{nil, WithScopePrefix(""), WithScopePrefix("scope"), WithScopePrefix("a:b:"),
		WithScopePrefix("Ab:"), WithScopePrefix("abcdef:"), WithScopeConcurrency(0), WithScopeTimeout(-1)} {
		if _, err := OpenMemories(context.Background(), nil, o); !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Errorf("OpenMemories with an invalid option: %v, want ErrInvalidArgument", err)
		}
	}
}

// scopeRows counts the rows of ns in every table.
func scopeRows(t *testing.T, ns string) int64 {
	t.Helper()
	var total int64
	for _, tbl := range removeTables {
		var n int64
		if err := testPool.QueryRow(context.Background(), "SELECT count(*) FROM "+tbl+" WHERE namespace = $1", ns).Scan(&n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

func TestMemoriesNotFound(t *testing.T) {
	ms := newTestMemories(t)
	ctx := context.Background()
	if err := ms.Remove(ctx, "nobody"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("Remove of an unknown scope: %v, want ErrNotFound", err)
	}
	if _, err := ms.Memory(ctx, "known"); err != nil {
		t.Fatal(err)
	}
	if _, err := ms.Retrieve(ctx, "anything", []string{"known", "nobody"}); !errors.Is(err, kgmem.ErrNotFound) || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("Retrieve over an unknown scope: %v, want ErrNotFound naming it", err)
	}
	for _, scopes := range [][]string{nil, {"known", "known"}, {""}} {
		if _, err := ms.Retrieve(ctx, "anything", scopes); !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Errorf("Retrieve(%q): %v, want ErrInvalidArgument", scopes, err)
		}
	}
	if err := ms.Remove(ctx, "known"); err != nil {
		t.Fatal(err)
	}
	if err := ms.Remove(ctx, "known"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("second Remove: %v, want ErrNotFound", err)
	}
}

func TestMemoriesScopeTimeoutEveryScopeFails(t *testing.T) {
	ms := newTestMemories(t, WithScopeTimeout(time.Nanosecond))
	ctx := context.Background()
	for _, s := range []string{"a", "b"} {
		if _, err := ms.Memory(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ms.Retrieve(ctx, "anything", []string{"a", "b"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "every scope failed") {
		t.Errorf("Retrieve with every scope timing out: %v, want an error wrapping DeadlineExceeded", err)
	}
}

// isoMarker is the word every text written through scope i holds.
func isoMarker(i int) string { return "zqmark" + string(rune('a'+i)) }

// itemText is what an item's page or entity says.
func itemText(it kgmem.RetrievalItem) string {
	switch {
	case it.Page != nil:
		return it.Page.Title + " " + it.Page.Content
	case it.Entity != nil:
		return it.Entity.Name + " " + it.Entity.Description
	}
	return ""
}

// TestMemoriesScopeIsolation writes, ingests and removes at random over
// scopes whose names differ only in case, in Unicode normalisation or by
// bytes a path or a C string would mangle, and checks after every step
// that nothing written through one scope is visible through another and
// that Remove leaves no row.
func TestMemoriesScopeIsolation(t *testing.T) {
	ms := newTestMemories(t, WithScopeConcurrency(2))
	ctx := context.Background()
	names := []string{"alice", "Alice", "..", "/", "\x00", "\u00e9", "e\u0301", "\xff", strings.Repeat("z", MaxScopeBytes)}
	type model struct {
		exists   bool
		entities map[string]bool
		pages    map[string]bool
	}
	models := make([]model, len(names))
	reset := func(i int) { models[i] = model{entities: map[string]bool{}, pages: map[string]bool{}} }
	for i := range names {
		reset(i)
	}
	rng := rand.New(rand.NewPCG(27, 4))
	for step := range 60 {
		i := rng.IntN(len(names))
		s, mk := names[i], isoMarker(i)
		k := rng.IntN(4) // IDs repeat across scopes, so that a leak would show
		switch op := rng.IntN(10); {
		case op < 4:
			m, err := ms.Memory(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprintf("ent-%d", k)
			if err := m.Graph().AddEntity(ctx, kgmem.Entity{ID: id, Name: "thing " + mk, Description: mk}); err != nil {
				t.Fatal(err)
			}
			models[i].exists, models[i].entities[id] = true, true
		case op < 8:
			m, err := ms.Memory(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprintf("page-%d", k)
			page := kgmem.KnowledgePage{ID: id, Title: "notes " + mk, Content: "Apollo " + mk + " launch"}
			x := kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Apollo " + mk, Description: mk}}}
			if _, err := m.Ingest(ctx, page, x); err != nil {
				t.Fatal(err)
			}
			models[i].exists, models[i].pages[id] = true, true
		default:
			err := ms.Remove(ctx, s)
			if models[i].exists != (err == nil) || (err != nil && !errors.Is(err, kgmem.ErrNotFound)) {
				t.Fatalf("step %d: Remove(%q) = %v with exists %v", step, s, err, models[i].exists)
			}
			reset(i)
			ns, _ := ms.Namespace(s)
			if n := scopeRows(t, ns); n != 0 {
				t.Fatalf("step %d: Remove(%q) left %d rows", step, s, n)
			}
		}

		var want []string
		for j, n := range names {
			if models[j].exists {
				want = append(want, n)
			}
		}
		slices.Sort(want)
		got, err := ms.Scopes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: Scopes = %q, want %q", step, got, want)
		}
		for j, n := range names {
			if !models[j].exists {
				continue
			}
			m, err := ms.Memory(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			for k := range 4 {
				id := fmt.Sprintf("ent-%d", k)
				e, ok, err := m.Graph().GetEntity(ctx, id)
				if err != nil || ok != models[j].entities[id] || (ok && e.Description != isoMarker(j)) {
					t.Fatalf("step %d: scope %q: GetEntity(%s) = %+v, %v, %v; want present %v with %s", step, n, id, e, ok, err, models[j].entities[id], isoMarker(j))
				}
				id = fmt.Sprintf("page-%d", k)
				p, ok, err := m.Store().Get(ctx, id)
				if err != nil || ok != models[j].pages[id] || (ok && !strings.Contains(p.Content, isoMarker(j))) {
					t.Fatalf("step %d: scope %q: Get(%s) = %+v, %v, %v; want present %v with %s", step, n, id, p, ok, err, models[j].pages[id], isoMarker(j))
				}
			}
		}
		if len(want) == 0 {
			continue
		}
		res, err := ms.Retrieve(ctx, "Apollo "+mk+" and thing "+mk, want, kgmem.WithMaxResults(100))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != 0 {
			t.Fatalf("step %d: warnings %q", step, res.Warnings)
		}
		for _, it := range res.Items {
			j := slices.Index(names, it.Scope)
			if j < 0 || !strings.Contains(itemText(it), isoMarker(j)) {
				t.Fatalf("step %d: item %s %q from scope %q holds another scope's text", step, it.ID(), itemText(it), it.Scope)
			}
		}
		if models[i].exists && !slices.ContainsFunc(res.Items, func(it kgmem.RetrievalItem) bool { return it.Scope == s }) {
			t.Fatalf("step %d: Retrieve found nothing of scope %q, which was just written", step, s)
		}
		rev := slices.Clone(want)
		slices.Reverse(rev)
		res2, err := ms.Retrieve(ctx, "Apollo "+mk+" and thing "+mk, rev, kgmem.WithMaxResults(100))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := itemKeys(res.Items), itemKeys(res2.Items); !slices.Equal(a, b) {
			t.Fatalf("step %d: Retrieve order depends on the order scopes are named in:\n%q\n%q", step, a, b)
		}
	}
	for i, n := range names {
		if models[i].exists {
			if err := ms.Remove(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		ns, _ := ms.Namespace(n)
		if r := scopeRows(t, ns); r != 0 {
			t.Errorf("scope %q: %d rows left", n, r)
		}
	}
}

// itemKeys returns each item's scope, ID and score.
func itemKeys(items []kgmem.RetrievalItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprintf("%q %s %v", it.Scope, it.ID(), it.Score)
	}
	return out
}

func TestMemoriesSameMemoryForConcurrentCallers(t *testing.T) {
	ms := newTestMemories(t)
	got := make([]*Memory, 8)
	var g errgroup.Group
	for i := range got {
		g.Go(func() (err error) {
			got[i], err = ms.Memory(context.Background(), "shared")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, m := range got[1:] {
		if m != got[0] {
			t.Fatal("concurrent Memory calls for one scope returned different memories")
		}
	}
}

// TestMemoriesScopeIsolationConcurrent runs one writer per hostile scope at
// once, all writing the same IDs, each checking after every step that its
// scope holds exactly what it wrote.
func TestMemoriesScopeIsolationConcurrent(t *testing.T) {
	ms := newTestMemories(t)
	names := []string{"alice", "Alice", "..", "/", "\x00", "\u00e9", "e\u0301"}
	var g errgroup.Group
	// Each Ingest holds a connection for its namespace's lock and takes
	// another for its transaction: two writers at once fit the test pool.
	g.SetLimit(2)
	exists := make([]bool, len(names))
	for i, s := range names {
		g.Go(func() error {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(uint64(i), 27))
			mk := isoMarker(i)
			ents, pages := map[string]bool{}, map[string]bool{}
			for step := range 25 {
				k := rng.IntN(3)
				switch op := rng.IntN(10); {
				case op < 4:
					m, err := ms.Memory(ctx, s)
					if err != nil {
						return err
					}
					id := fmt.Sprintf("ent-%d", k)
					if err := m.Graph().AddEntity(ctx, kgmem.Entity{ID: id, Name: "thing " + mk, Description: mk}); err != nil {
						return err
					}
					exists[i], ents[id] = true, true
				case op < 8:
					m, err := ms.Memory(ctx, s)
					if err != nil {
						return err
					}
					id := fmt.Sprintf("page-%d", k)
					page := kgmem.KnowledgePage{ID: id, Title: "notes " + mk, Content: "Apollo " + mk}
					x := kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "Apollo", Description: mk}}}
					if _, err := m.Ingest(ctx, page, x); err != nil {
						return err
					}
					exists[i], pages[id] = true, true
					ents["entity:apollo"] = true
				default:
					if err := ms.Remove(ctx, s); (err == nil) != exists[i] {
						return fmt.Errorf("scope %q step %d: Remove = %v with exists %v", s, step, err, exists[i])
					}
					exists[i], ents, pages = false, map[string]bool{}, map[string]bool{}
					continue
				}
				m, err := ms.Memory(ctx, s)
				if err != nil {
					return err
				}
				for _, id := range []string{"ent-0", "ent-1", "ent-2", "entity:apollo"} {
					e, ok, err := m.Graph().GetEntity(ctx, id)
					if err != nil || ok != ents[id] || (ok && e.Description != mk) {
						return fmt.Errorf("scope %q step %d: GetEntity(%s) = %+v, %v, %v; want present %v with %s", s, step, id, e, ok, err, ents[id], mk)
					}
				}
				for k := range 3 {
					id := fmt.Sprintf("page-%d", k)
					p, ok, err := m.Store().Get(ctx, id)
					if err != nil || ok != pages[id] || (ok && !strings.Contains(p.Content, mk)) {
						return fmt.Errorf("scope %q step %d: Get(%s) = %+v, %v, %v; want present %v with %s", s, step, id, p, ok, err, pages[id], mk)
					}
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, s := range names {
		if exists[i] {
			want = append(want, s)
		}
	}
	slices.Sort(want)
	got, err := ms.Scopes(context.Background())
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Scopes = %q, %v; want %q", got, err, want)
	}
}
