package pgraph

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// incompressible returns n random letters and digits, which PostgreSQL
// cannot compress to fit an index entry.
func incompressible(n int, seed uint64) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rng := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// TestLimitsFitPostgreSQL stores, in a namespace of MaxNamespaceBytes,
// entities and relations whose IDs, names, types, aliases and tags are at
// kgmem's limits and do not compress: every index entry they make must fit.
// The names fold to half as long again (Ⱥ to ⱥ), as their link keys do.
func TestLimitsFitPostgreSQL(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	ns := randomNamespace("limits")
	ns += incompressible(MaxNamespaceBytes-len(ns), 1)
	g, err := New(ctx, pool, WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Clear(context.Background()) })
	name := func(seed uint64) string {
		return strings.Repeat("Ⱥ", kgmem.MaxNameBytes/4) + incompressible(kgmem.MaxNameBytes/2, seed)
	}
	entity := func(seed uint64) kgmem.Entity {
		return kgmem.Entity{
			ID:      incompressible(kgmem.MaxIDBytes, seed),
			Name:    name(seed + 1),
			Type:    incompressible(kgmem.MaxTypeBytes, seed+2),
			Aliases: []string{name(seed + 3)},
			Tags:    []string{strings.ToLower(incompressible(kgmem.MaxTagBytes, seed+4))},
		}
	}
	a, b := entity(10), entity(20)
	typ := incompressible(kgmem.MaxTypeBytes, 30)
	if err := g.AddEntity(ctx, a); err != nil {
		t.Fatalf("AddEntity at the limits: %v", err)
	}
	if err := g.AddBatch(ctx, []kgmem.Entity{b}, []kgmem.Relation{{SourceID: b.ID, TargetID: a.ID, Type: typ, Weight: 1}}); err != nil {
		t.Fatalf("AddBatch at the limits: %v", err)
	}
	if err := g.AddRelation(ctx, kgmem.Relation{SourceID: a.ID, TargetID: b.ID, Type: typ, Weight: 0.5}); err != nil {
		t.Fatalf("AddRelation at the limits: %v", err)
	}
	res, err := g.FindPaths(ctx, a.ID, b.ID, kgmem.PathOptions{MaxHops: 1, Direction: kgmem.Both, RelationTypes: []string{typ}})
	if err != nil || len(res.Paths) != 2 {
		t.Fatalf("FindPaths at the limits = %v, %v; want 2 paths", res, err)
	}
	ms, err := g.LinkEntities(ctx, "who is "+a.Aliases[0]+"?")
	if err != nil || len(ms) != 1 || ms[0].Entity.ID != a.ID || !ms[0].Alias {
		t.Fatalf("LinkEntities(an alias at the limit) = %v, %v; want the entity by its alias", ms, err)
	}
	if err := g.RemoveRelation(ctx, a.ID, b.ID, typ); err != nil {
		t.Fatal(err)
	}
	if err := g.RemoveEntity(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
}

// TestOverLongValuesNeverReachPostgreSQL writes values PostgreSQL could not
// index (2.8 kB, incompressible): each must fail as kgmem's in-memory graph
// fails, with ErrInvalidArgument naming the limit and a short message, not
// with the database's "index row size exceeds maximum" error quoting the
// value whole.
func TestOverLongValuesNeverReachPostgreSQL(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	long := incompressible(2800, 40)
	_, err := New(ctx, pool, WithNamespace(long))
	requireShortInvalid(t, "New with a long namespace", err, "MaxNamespaceBytes (128)")

	g := newTestGraph(t)
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	requireShortInvalid(t, "AddEntity with a long ID", g.AddEntity(ctx, kgmem.Entity{ID: long}), "MaxIDBytes (1024)")
	requireShortInvalid(t, "AddEntity with a long name", g.AddEntity(ctx, kgmem.Entity{ID: "b", Name: long}), "MaxNameBytes (1024)")
	requireShortInvalid(t, "AddRelation with a long type", g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "a", Type: long}), "MaxTypeBytes (256)")
	requireShortInvalid(t, "AddBatch with a long ID", g.AddBatch(ctx, []kgmem.Entity{{ID: "c"}, {ID: long}}, nil), "batch entity 1", "MaxIDBytes (1024)")
	_, err = g.SetEntityTags(ctx, "a", []string{long[:kgmem.MaxTagBytes+1]})
	requireShortInvalid(t, "SetEntityTags with a long tag", err, "MaxTagBytes (128)")
	requireShortInvalid(t, "RemoveEntity with a long ID", g.RemoveEntity(ctx, long), "MaxIDBytes (1024)")
	if e, ok, err := g.GetEntity(ctx, long); ok || err != nil {
		t.Fatalf("GetEntity(a long ID) = %v, %v, %v; want nothing", e, ok, err)
	}
}

func requireShortInvalid(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if !errors.Is(err, kgmem.ErrInvalidArgument) {
		t.Fatalf("%s: %.300v; want an error wrapping ErrInvalidArgument", what, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: %q does not say %q", what, err, p)
		}
	}
	if len(err.Error()) > 512 {
		t.Fatalf("%s: the error is %d bytes long: %.300s…", what, len(err.Error()), err)
	}
}
