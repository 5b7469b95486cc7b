package kgmemtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// batchWriter is the AddBatch of kgmem.InMemoryGraph and pgraph.Graph.
type batchWriter interface {
	AddBatch(ctx context.Context, entities []kgmem.Entity, relations []kgmem.Relation) error
}

// sourceRemover is the RemoveSource of kgmem.InMemoryGraph.
type sourceRemover interface {
	RemoveSource(ctx context.Context, sourceID string) (kgmem.RemoveSourceReport, error)
}

// feedConsumer keeps a copy of a graph's entities from its change feed,
// as a consumer such as kgmem's linking by meaning does.
type feedConsumer struct {
	feed     kgmem.EntityChangeFeed
	version  uint64
	entities map[string]kgmem.Entity
}

// poll asks for the changes since the consumer's version, checks the
// answer's invariants against g (see checkChanges), applies it, and
// returns it.
func (c *feedConsumer) poll(t testing.TB, g kgmem.KnowledgeGraph) kgmem.EntityChanges {
	t.Helper()
	ch := changesSince(t, g, c.feed, c.version)
	if ch.Reset || c.entities == nil {
		c.entities = map[string]kgmem.Entity{}
	}
	for _, e := range ch.Changed {
		c.entities[e.ID] = e
	}
	for _, id := range ch.Removed {
		delete(c.entities, id)
	}
	c.version = ch.Version
	return ch
}

// changesSince calls EntityChanges and checks what every answer
// satisfies: Changed strictly ordered by ID, each entity as GetEntity
// returns it now; Removed strictly sorted, each ID absent now; no ID in
// both; a Reset has no Removed.
func changesSince(t testing.TB, g kgmem.KnowledgeGraph, f kgmem.EntityChangeFeed, since uint64) kgmem.EntityChanges {
	t.Helper()
	ch, err := f.EntityChanges(t.Context(), since)
	if err != nil {
		t.Fatalf("EntityChanges(%d): %v", since, err)
	}
	for i, e := range ch.Changed {
		if i > 0 && strings.Compare(ch.Changed[i-1].ID, e.ID) >= 0 {
			t.Fatalf("EntityChanges(%d): Changed not strictly ordered by ID: %q before %q", since, ch.Changed[i-1].ID, e.ID)
		}
		now, ok, err := g.GetEntity(t.Context(), e.ID)
		if err != nil || !ok {
			t.Fatalf("EntityChanges(%d): Changed holds %q, which GetEntity does not find (%v)", since, e.ID, err)
		}
		if !reflect.DeepEqual(now, e) {
			t.Fatalf("EntityChanges(%d): Changed holds %+v, GetEntity returns %+v", since, e, now)
		}
	}
	if ch.Reset && len(ch.Removed) > 0 {
		t.Fatalf("EntityChanges(%d): a Reset with Removed %q", since, ch.Removed)
	}
	for i, id := range ch.Removed {
		if i > 0 && ch.Removed[i-1] >= id {
			t.Fatalf("EntityChanges(%d): Removed not strictly sorted: %q", since, ch.Removed)
		}
		if _, ok, _ := g.GetEntity(t.Context(), id); ok {
			t.Fatalf("EntityChanges(%d): Removed holds %q, which exists", since, id)
		}
		if _, found := slices.BinarySearchFunc(ch.Changed, id, func(e kgmem.Entity, id string) int { return strings.Compare(e.ID, id) }); found {
			t.Fatalf("EntityChanges(%d): %q is both Changed and Removed", since, id)
		}
	}
	return ch
}

func changedIDs(ch kgmem.EntityChanges) []string {
	ids := make([]string, len(ch.Changed))
	for i, e := range ch.Changed {
		ids[i] = e.ID
	}
	return ids
}

// requireChanged fails on a Reset and unless every ID of want is in
// ch.Changed (a feed may deliver a change more than once, so others may
// be there too).
func requireChanged(t testing.TB, ch kgmem.EntityChanges, want ...string) {
	t.Helper()
	if ch.Reset {
		t.Fatalf("a Reset (Changed %q), want the changes since the last answer", changedIDs(ch))
	}
	got := changedIDs(ch)
	for _, id := range want {
		if !slices.Contains(got, id) {
			t.Fatalf("Changed = %q, want it to hold %q", got, id)
		}
	}
}

// requireRemoved fails on a Reset and unless every ID of want is in
// ch.Removed.
func requireRemoved(t testing.TB, ch kgmem.EntityChanges, want ...string) {
	t.Helper()
	if ch.Reset {
		t.Fatalf("a Reset (Changed %q), want the changes since the last answer", changedIDs(ch))
	}
	for _, id := range want {
		if !slices.Contains(ch.Removed, id) {
			t.Fatalf("Removed = %q, want it to hold %q", ch.Removed, id)
		}
	}
}

// changeFeedChecks check kgmem.EntityChangeFeed; they skip for a graph
// without it. A feed may deliver a change more than once (pgraph does,
// while transactions run concurrently), so the checks require that
// every change be delivered, and every answer be true of the graph now,
// not that nothing else be.
func changeFeedChecks() []check {
	feedOf := capability[kgmem.EntityChangeFeed]
	return []check{
		{"SinceZeroIsReset", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			ch := changesSince(t, g, f, 0)
			if !ch.Reset || len(ch.Changed) != 0 {
				t.Fatalf("EntityChanges(0) of an empty graph = %+v, want a Reset with nothing", ch)
			}
			addEntity(t, g, kgmem.Entity{ID: "b", Name: "B", Tags: []string{" X "}, Properties: map[string]string{"k": "v"}, SourceIDs: []string{"p"}})
			addEntity(t, g, kgmem.Entity{ID: "a", Aliases: []string{"alpha"}, Description: "first"})
			ch = changesSince(t, g, f, 0)
			if !ch.Reset {
				t.Fatal("EntityChanges(0) is not a Reset")
			}
			requireStrings(t, "Changed", []string{"a", "b"}, changedIDs(ch))
			if ch.Changed[1].Tags[0] != "x" || ch.Changed[0].Description != "first" {
				t.Fatalf("Changed = %+v, want the entities as stored", ch.Changed)
			}
			v := ch.Version
			if ch := changesSince(t, g, f, 0); !ch.Reset || ch.Version < v {
				t.Fatalf("EntityChanges(0) again = %+v, want a Reset at version %d or later", ch, v)
			}
		}},
		{"AddsAndUpdates", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			c := &feedConsumer{feed: f}
			addEntity(t, g, kgmem.Entity{ID: "old"})
			c.poll(t, g)
			addEntity(t, g, kgmem.Entity{ID: "a", Name: "A"})
			addEntity(t, g, kgmem.Entity{ID: "b", Name: "B"})
			ch := c.poll(t, g)
			if ch.Reset {
				t.Fatalf("EntityChanges(%d) after two adds is a Reset", c.version)
			}
			requireChanged(t, ch, "a", "b")
			addEntity(t, g, kgmem.Entity{ID: "a", Name: "A2", Description: "updated"})
			ch = c.poll(t, g)
			requireChanged(t, ch, "a")
			if c.entities["a"].Name != "A2" || c.entities["a"].Description != "updated" {
				t.Fatalf("after the update the consumer holds %+v", c.entities["a"])
			}
			// Relations are not entity changes, but must not break the feed.
			addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t"})
			c.poll(t, g)
			requireConsumer(t, g, c, "a", "b", "old")
		}},
		{"Tags", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			c := &feedConsumer{feed: f}
			addEntity(t, g, kgmem.Entity{ID: "a", Tags: []string{"x"}})
			addEntity(t, g, kgmem.Entity{ID: "b"})
			c.poll(t, g)
			setTags(t, g, "a", []string{" Y ", "z", "y"})
			ch := c.poll(t, g)
			requireChanged(t, ch, "a")
			requireStrings(t, "tags of a", []string{"y", "z"}, c.entities["a"].Tags)
			setTags(t, g, "a", nil)
			c.poll(t, g)
			if tags := c.entities["a"].Tags; len(tags) != 0 {
				t.Fatalf("tags of a after clearing = %q", tags)
			}
			requireConsumer(t, g, c, "a", "b")
		}},
		{"Removals", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			c := &feedConsumer{feed: f}
			for _, id := range []string{"a", "b", "c", "d"} {
				addEntity(t, g, kgmem.Entity{ID: id})
			}
			addRelation(t, g, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t"})
			c.poll(t, g)
			removeEntity(t, g, "b") // cascades a -> b
			ch := c.poll(t, g)
			requireRemoved(t, ch, "b")
			// Removed, then added again: a change, not a removal.
			removeEntity(t, g, "c")
			addEntity(t, g, kgmem.Entity{ID: "c", Name: "again"})
			// Added, then removed: never Changed.
			addEntity(t, g, kgmem.Entity{ID: "e"})
			removeEntity(t, g, "e")
			ch = c.poll(t, g)
			requireChanged(t, ch, "c")
			if slices.Contains(ch.Removed, "c") || slices.Contains(changedIDs(ch), "e") {
				t.Fatalf("Changed %q, Removed %q: want c changed and e not", changedIDs(ch), ch.Removed)
			}
			requireConsumer(t, g, c, "a", "c", "d")
		}},
		{"AddBatch", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			bw, ok := g.(batchWriter)
			if !ok {
				t.Skip("the graph has no AddBatch")
			}
			c := &feedConsumer{feed: f}
			addEntity(t, g, kgmem.Entity{ID: "a"})
			c.poll(t, g)
			ents := []kgmem.Entity{{ID: "c"}, {ID: "a", Name: "A"}, {ID: "b"}, {ID: "c", Name: "C"}}
			if err := bw.AddBatch(t.Context(), ents, []kgmem.Relation{{SourceID: "a", TargetID: "c", Type: "t"}}); err != nil {
				t.Fatal(err)
			}
			ch := c.poll(t, g)
			requireChanged(t, ch, "a", "b", "c")
			if c.entities["c"].Name != "C" || c.entities["a"].Name != "A" {
				t.Fatalf("after the batch the consumer holds %+v", c.entities)
			}
			requireConsumer(t, g, c, "a", "b", "c")
		}},
		{"RemoveSource", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			sr, ok := g.(sourceRemover)
			if !ok {
				t.Skip("the graph has no RemoveSource")
			}
			c := &feedConsumer{feed: f}
			addEntity(t, g, kgmem.Entity{ID: "only-p", SourceIDs: []string{"p"}})
			addEntity(t, g, kgmem.Entity{ID: "p-and-q", SourceIDs: []string{"p", "q"}})
			addEntity(t, g, kgmem.Entity{ID: "none"})
			c.poll(t, g)
			if _, err := sr.RemoveSource(t.Context(), "p"); err != nil {
				t.Fatal(err)
			}
			ch := c.poll(t, g)
			requireChanged(t, ch, "p-and-q")
			requireRemoved(t, ch, "only-p")
			requireStrings(t, "sources of p-and-q", []string{"q"}, c.entities["p-and-q"].SourceIDs)
			requireConsumer(t, g, c, "none", "p-and-q")
		}},
		{"UnknownVersionIsReset", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			addEntity(t, g, kgmem.Entity{ID: "b"})
			addEntity(t, g, kgmem.Entity{ID: "a"})
			for _, since := range []uint64{math.MaxUint64, math.MaxUint64 / 2} {
				ch := changesSince(t, g, f, since)
				if !ch.Reset {
					t.Fatalf("EntityChanges(%d), a version never issued, is not a Reset", since)
				}
				requireStrings(t, "Changed", []string{"a", "b"}, changedIDs(ch))
			}
		}},
		{"OrderedByID", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			c := &feedConsumer{feed: f}
			c.poll(t, g)
			ids := []string{"b", "B", "a", "é", "e", "a b", "Z", "z", "10", "9", "张三"}
			for _, id := range ids {
				addEntity(t, g, kgmem.Entity{ID: id})
			}
			for _, id := range []string{"Z", "e", "9"} {
				removeEntity(t, g, id)
			}
			ch := c.poll(t, g) // changesSince checks the order
			want := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == "Z" || id == "e" || id == "9" })
			slices.Sort(want)
			if !ch.Reset {
				requireChanged(t, ch, want...)
			}
			requireConsumer(t, g, c, want...)
			ch = changesSince(t, g, f, 0)
			requireStrings(t, "Changed of a Reset", want, changedIDs(ch))
		}},
		{"RandomHistory", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			bw, _ := g.(batchWriter)
			rng := rand.New(rand.NewPCG(7, 11))
			ops := 300
			if testing.Short() {
				ops = 80
			}
			c := &feedConsumer{feed: f}
			live := map[string]bool{}
			id := func() string { return fmt.Sprintf("e%02d", rng.IntN(20)) }
			for i := range ops {
				switch k := rng.IntN(10); {
				case k < 4:
					e := kgmem.Entity{ID: id(), Name: fmt.Sprintf("n%d", i)}
					addEntity(t, g, e)
					live[e.ID] = true
				case k < 6:
					if x := id(); live[x] {
						removeEntity(t, g, x)
						delete(live, x)
					}
				case k < 7:
					if x := id(); live[x] {
						setTags(t, g, x, []string{fmt.Sprintf("t%d", i)})
					}
				case k < 8 && bw != nil:
					ents := []kgmem.Entity{{ID: id(), Description: fmt.Sprint(i)}, {ID: id(), Description: fmt.Sprint(i)}}
					if err := bw.AddBatch(t.Context(), ents, nil); err != nil {
						t.Fatal(err)
					}
					live[ents[0].ID], live[ents[1].ID] = true, true
				default:
					c.poll(t, g)
					requireConsumer(t, g, c, slices.Sorted(maps.Keys(live))...)
				}
			}
			c.poll(t, g)
			requireConsumer(t, g, c, slices.Sorted(maps.Keys(live))...)
		}},
		{"Cancel", func(t *testing.T, g kgmem.KnowledgeGraph) {
			f := feedOf(t, g)
			addEntity(t, g, kgmem.Entity{ID: "a"})
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			for _, since := range []uint64{0, 1} {
				if _, err := f.EntityChanges(ctx, since); !errors.Is(err, context.Canceled) {
					t.Fatalf("EntityChanges(%d) with a cancelled context: %v, want context.Canceled", since, err)
				}
			}
		}},
	}
}

// requireConsumer fails unless the consumer holds exactly the entities
// ids, each as GetEntity returns it.
func requireConsumer(t testing.TB, g kgmem.KnowledgeGraph, c *feedConsumer, ids ...string) {
	t.Helper()
	requireStrings(t, "entities the consumer holds", ids, slices.Sorted(maps.Keys(c.entities)))
	for _, id := range ids {
		now, _, err := g.GetEntity(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(now, c.entities[id]) {
			t.Fatalf("the consumer holds %+v, GetEntity returns %+v", c.entities[id], now)
		}
	}
}
