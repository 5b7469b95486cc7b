package kgmem

import (
	"sync"
	"testing"
)

// TestKeyedLocksForgetKeys: the table holds a key only while a caller
// holds or waits for its lock, and callers of one key take turns.
func TestKeyedLocksForgetKeys(t *testing.T) {
	var k keyedLocks
	var wg sync.WaitGroup
	inside := map[int]int{}
	var mu sync.Mutex
	for i := range 64 {
		wg.Go(func() {
			key := i % 4
			unlock := k.lock(key)
			mu.Lock()
			inside[key]++
			n := inside[key]
			mu.Unlock()
			if n != 1 {
				t.Errorf("key %d: %d callers inside at once", key, n)
			}
			mu.Lock()
			inside[key]--
			mu.Unlock()
			unlock()
		})
	}
	wg.Wait()
	if n := len(k.locks); n != 0 {
		t.Fatalf("%d keys kept after every caller is done", n)
	}
}

// TestIngestKey: the values that reach one graph's data share a key.
func TestIngestKey(t *testing.T) {
	g := NewInMemoryGraph()
	d := &DurableGraph{InMemoryGraph: g}
	type wrapper struct{ KnowledgeGraph }
	type unhashable struct {
		KnowledgeGraph
		tags []string
	}
	if ingestKey(d) != ingestKey(g) {
		t.Error("a DurableGraph and its InMemoryGraph have different keys")
	}
	other := wrapper{interfaceOnlyGraph{NewInMemoryGraph()}}
	if ingestKey(other) != ingestKey(wrapper{other.KnowledgeGraph}) || ingestKey(other) == ingestKey(g) {
		t.Error("two copies of a wrapper of one backend differ, or match another graph")
	}
	// A value that cannot be a map key still gets one.
	_ = ingestKey(unhashable{g, nil})
	_ = ingestKey(unhashable{interfaceOnlyGraph{g}, nil})
}

// interfaceOnlyGraph hides every method of its graph but KnowledgeGraph's.
type interfaceOnlyGraph struct{ KnowledgeGraph }
