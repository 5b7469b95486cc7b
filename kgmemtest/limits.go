package kgmemtest

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// ---------------------------------------------------------------------------
// Length limits

// maxMessage is the longest error message a rejected over-long value may
// produce in these checks, whose other values are short: a message may
// quote a prefix of the value, never all of it.
const maxMessage = 512

// randomText returns n bytes of letters and digits drawn from a generator
// seeded with seed: text no compressor shrinks much, as a database that
// compresses index entries must store it.
func randomText(n int, seed uint64) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// growingName returns one word of n bytes that case folding makes longer:
// random letters, a third of them Ⱥ or Ⱦ (2 bytes, folded to 3).
func growingName(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	for b.Len() < n {
		switch r := rng.IntN(9); {
		case r < 3 && n-b.Len() >= 2:
			b.WriteString([]string{"Ⱥ", "Ⱦ"}[r%2])
		default:
			b.WriteByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[rng.IntN(52)])
		}
	}
	return b.String()
}

// fitted returns prefix padded with random text to exactly n bytes.
func fitted(prefix string, n int, seed uint64) string {
	return prefix + randomText(n-len(prefix), seed)
}

// largestEntity returns an entity whose ID, name, type, alias and tag are
// each exactly at their limit.
func largestEntity(prefix string, seed uint64) kgmem.Entity {
	return kgmem.Entity{
		ID:          fitted(prefix, kgmem.MaxIDBytes, seed),
		Name:        growingName(kgmem.MaxNameBytes, seed+1),
		Type:        randomText(kgmem.MaxTypeBytes, seed+2),
		Description: randomText(4*kgmem.MaxNameBytes, seed+3), // no limit
		Aliases:     []string{growingName(kgmem.MaxNameBytes, seed+4)},
		Tags:        []string{strings.ToLower(randomText(kgmem.MaxTagBytes, seed+5))},
		Properties:  map[string]string{randomText(2*kgmem.MaxIDBytes, seed+6): randomText(2*kgmem.MaxIDBytes, seed+7)},
		SourceIDs:   []string{randomText(2*kgmem.MaxIDBytes, seed+8)},
	}
}

// overLimit is a write of a value longer than its limit.
type overLimit struct {
	name  string
	write func(ctx context.Context, g kgmem.KnowledgeGraph) error
	parts []string // substrings the error message must contain
}

func overLimits() []overLimit {
	var out []overLimit
	entity := func(name string, e kgmem.Entity, parts ...string) {
		out = append(out, overLimit{
			name:  "AddEntity/" + name,
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error { return g.AddEntity(ctx, e) },
			parts: parts,
		})
	}
	huge := 100 << 10
	entity("IDOverLimit", entityWith(fitted(carol, kgmem.MaxIDBytes+1, 1), func(*kgmem.Entity) {}), "entity ID", "MaxIDBytes", carol)
	entity("IDHuge", entityWith(fitted(carol, huge, 2), func(*kgmem.Entity) {}), "entity ID", "MaxIDBytes", carol)
	for _, id := range []string{carol, alice} {
		with := func(mutate func(*kgmem.Entity)) kgmem.Entity { return entityWith(id, mutate) }
		long := randomText(kgmem.MaxNameBytes+1, 3)
		entity(id+"/NameOverLimit", with(func(e *kgmem.Entity) { e.Name = long }), id, "name", "MaxNameBytes")
		entity(id+"/NameHuge", with(func(e *kgmem.Entity) { e.Name = randomText(huge, 4) }), id, "name", "MaxNameBytes")
		entity(id+"/TypeOverLimit", with(func(e *kgmem.Entity) { e.Type = randomText(kgmem.MaxTypeBytes+1, 5) }), id, "type", "MaxTypeBytes")
		entity(id+"/AliasOverLimit", with(func(e *kgmem.Entity) { e.Aliases = []string{"ok", long} }), id, "alias", "MaxNameBytes")
		entity(id+"/AliasHuge", with(func(e *kgmem.Entity) { e.Aliases = []string{randomText(huge, 6)} }), id, "alias", "MaxNameBytes")
		entity(id+"/TagOverLimit", with(func(e *kgmem.Entity) { e.Tags = []string{"ok", randomText(kgmem.MaxTagBytes+1, 7)} }), id, "tag", "MaxTagBytes")
		// 128 bytes as given, 192 once lower-cased: the limit is on the
		// tag as stored.
		entity(id+"/TagOverLimitOnceNormalised", with(func(e *kgmem.Entity) { e.Tags = []string{strings.Repeat("Ⱥ", kgmem.MaxTagBytes/2)} }), id, "tag", "MaxTagBytes")
		// A tag past MaxTagsPerEntity is dropped, but must still be valid.
		entity(id+"/DroppedTagOverLimit", with(func(e *kgmem.Entity) {
			for i := range 64 {
				e.Tags = append(e.Tags, randomText(8, uint64(100+i)))
			}
			e.Tags = append(e.Tags, randomText(huge, 8))
		}), id, "tag", "MaxTagBytes")
	}
	relation := func(name string, r kgmem.Relation, parts ...string) {
		out = append(out, overLimit{
			name:  "AddRelation/" + name,
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error { return g.AddRelation(ctx, r) },
			parts: parts,
		})
	}
	relation("SourceOverLimit", rel(fitted(alice, kgmem.MaxIDBytes+1, 9), bob, "likes", 0.5), "source entity ID", "MaxIDBytes")
	relation("TargetOverLimit", rel(alice, fitted(bob, kgmem.MaxIDBytes+1, 10), "likes", 0.5), "target entity ID", "MaxIDBytes", bob)
	relation("TargetHuge", rel(alice, fitted(bob, huge, 11), "likes", 0.5), "target entity ID", "MaxIDBytes", bob)
	relation("TypeOverLimit", rel(alice, bob, randomText(kgmem.MaxTypeBytes+1, 12), 0.5), "relation type", "MaxTypeBytes", alice, bob)
	relation("TypeHuge", rel(alice, bob, randomText(huge, 13), 0.5), "relation type", "MaxTypeBytes", alice, bob)
	relation("StoredKeyTypeOverLimit", rel(alice, apollo, "works_on"+randomText(kgmem.MaxTypeBytes, 14), 0.5), "relation type", "MaxTypeBytes")
	out = append(out,
		overLimit{
			name: "RemoveEntity/IDOverLimit",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.RemoveEntity(ctx, fitted(alice, huge, 15))
			},
			parts: []string{"entity ID", "MaxIDBytes", alice},
		},
		overLimit{
			name: "RemoveRelation/TypeOverLimit",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.RemoveRelation(ctx, alice, apollo, "works_on"+randomText(huge, 16))
			},
			parts: []string{"relation type", "MaxTypeBytes"},
		},
		overLimit{
			name: "RemoveRelation/TargetOverLimit",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				return g.RemoveRelation(ctx, alice, fitted(apollo, kgmem.MaxIDBytes+1, 17), "works_on")
			},
			parts: []string{"target entity ID", "MaxIDBytes"},
		},
		overLimit{
			name: "SetEntityTags/IDOverLimit",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				_, err := g.SetEntityTags(ctx, fitted(alice, huge, 18), []string{"new"})
				return err
			},
			parts: []string{"entity ID", "MaxIDBytes"},
		},
		overLimit{
			name: "SetEntityTags/TagOverLimit",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				_, err := g.SetEntityTags(ctx, alice, []string{"new", randomText(kgmem.MaxTagBytes+1, 19)})
				return err
			},
			parts: []string{"tag", "MaxTagBytes", alice},
		},
		overLimit{
			name: "SetEntityTags/TagHuge",
			write: func(ctx context.Context, g kgmem.KnowledgeGraph) error {
				_, err := g.SetEntityTags(ctx, alice, []string{"new", randomText(huge, 20)})
				return err
			},
			parts: []string{"tag", "MaxTagBytes", alice},
		},
	)
	return out
}

func limitChecks() []check {
	var checks []check
	for _, o := range overLimits() {
		checks = append(checks, check{o.name, func(t *testing.T, g kgmem.KnowledgeGraph) {
			before := addFixture(t, g)
			err := o.write(t.Context(), g)
			requireErr(t, o.name, err, kgmem.ErrInvalidArgument, o.parts...)
			if n := len(err.Error()); n > maxMessage {
				t.Fatalf("%s: the error message is %d bytes, more than %d: it quotes too much of the value: %.300s…", o.name, n, maxMessage, err)
			}
			requireSameState(t, "the rejected write", before, fixtureSnapshot(t, g))
		}})
	}
	checks = append(checks,
		check{"AtTheLimits", checkAtTheLimits},
		check{"ReadsBeyondTheLimits", checkReadsBeyondTheLimits},
	)
	return checks
}

// checkAtTheLimits writes entities and relations whose every limited value
// is exactly at its limit, of text that does not compress, and reads and
// removes them through every method.
func checkAtTheLimits(t *testing.T, g kgmem.KnowledgeGraph) {
	ctx := t.Context()
	a, b := largestEntity("a:", 1), largestEntity("b:", 100)
	// Tags are compared once normalised: surrounding space and capitals
	// may take a tag past the limit as given.
	b.Tags = []string{"  " + strings.ToUpper(b.Tags[0]) + "\t"}
	addEntity(t, g, a)
	addEntity(t, g, b)
	requireEntity(t, a, mustEntity(t, g, a.ID))
	wantB := b
	wantB.Tags = []string{strings.ToLower(strings.TrimSpace(b.Tags[0]))}
	requireEntity(t, wantB, mustEntity(t, g, b.ID))

	typ := randomText(kgmem.MaxTypeBytes, 200)
	for _, r := range []kgmem.Relation{
		{SourceID: a.ID, TargetID: b.ID, Type: typ, Weight: 0.5, SourceIDs: []string{randomText(2*kgmem.MaxIDBytes, 201)}},
		{SourceID: b.ID, TargetID: a.ID, Type: typ, Weight: 0.25},
	} {
		addRelation(t, g, r)
	}
	got := related(t, g, a.ID, kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both, RelationTypes: []string{typ}})
	if len(got) != 1 || got[0].Entity.ID != b.ID || got[0].Score != 0.5 {
		t.Fatalf("GetRelated from the largest entity = %q, want %.20q… at 0.5", describeResults(got), b.ID)
	}
	res, err := g.FindPaths(ctx, b.ID, a.ID, kgmem.PathOptions{MaxHops: 2})
	if err != nil || len(res.Paths) != 1 || res.Paths[0].Score != 0.25 {
		t.Fatalf("FindPaths between the largest entities = %v, %v; want one path of score 0.25", res, err)
	}

	tag := randomText(kgmem.MaxTagBytes, 202)
	if n, err := g.SetEntityTags(ctx, a.ID, []string{tag, strings.Repeat("Ⱥ", kgmem.MaxTagBytes/3)}); err != nil || n != 2 {
		t.Fatalf("SetEntityTags with tags at the limit = %d, %v; want 2, nil", n, err)
	}
	requireStrings(t, "FindTags", []string{strings.ToLower(tag)}, findTags(t, g, tag[:8]))
	if n := countTag(t, g, tag); n != 1 {
		t.Fatalf("EntityCountByTag of a tag at the limit = %d, want 1", n)
	}
	if es := findKeywords(t, g, string([]rune(a.Name)[:16])); !slices.ContainsFunc(es, func(e kgmem.Entity) bool { return e.ID == a.ID }) {
		t.Fatalf("FindByKeywords(a prefix of the largest name) = %q, want it to include %.20q…", entityIDs(es), a.ID)
	}

	removeRelation(t, g, a.ID, b.ID, typ)
	removeEntity(t, g, b.ID)
	if got := related(t, g, a.ID, kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both}); len(got) != 0 {
		t.Fatalf("GetRelated after removing everything it reached = %q, want nothing", describeResults(got))
	}
	removeEntity(t, g, a.ID)
}

// checkReadsBeyondTheLimits reads with values longer than any write
// accepts: they name nothing, and no read fails for their length.
func checkReadsBeyondTheLimits(t *testing.T, g kgmem.KnowledgeGraph) {
	ctx := t.Context()
	addFixture(t, g)
	id := fitted(alice, 3*kgmem.MaxIDBytes, 300) // more than PostgreSQL's B-tree index entries hold
	if _, ok, err := g.GetEntity(ctx, id); ok || err != nil {
		t.Fatalf("GetEntity(an ID over the limit) = ok %v, err %v; want false, nil", ok, err)
	}
	if _, err := g.GetRelated(ctx, id, kgmem.TraverseOptions{Depth: 1}); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("GetRelated(an ID over the limit) = %v, want ErrNotFound", err)
	}
	long := randomText(3*kgmem.MaxIDBytes, 301)
	got := related(t, g, alice, kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{long}})
	if len(got) != 0 {
		t.Fatalf("GetRelated with a relation type over the limit = %q, want nothing", describeResults(got))
	}
	if es := findKeywords(t, g, long); len(es) != 0 {
		t.Fatalf("FindByKeywords(a keyword over every limit) = %q, want nothing", entityIDs(es))
	}
	if tags := findTags(t, g, long); len(tags) != 0 {
		t.Fatalf("FindTags(a prefix over the limit) = %q, want nothing", tags)
	}
	if n := countTag(t, g, long); n != 0 {
		t.Fatalf("EntityCountByTag(a tag over the limit) = %d, want 0", n)
	}
}
