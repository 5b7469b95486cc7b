package kgmem

import (
	"sync"

	"github.com/kgmem/kgmem/internal/question"
	"github.com/kgmem/kgmem/internal/textrule"
)

// typeWordCache keeps what retrieval reads from the names of the graph's
// relation types, by type ID, each with the name it was read from: a type
// ID that is freed and reused reads its new name's. It holds at most one
// entry per type ID the graph has had, and is safe for the concurrent
// readers of one graph.
type typeWordCache struct {
	mu    sync.Mutex
	names []string
	words [][]string               // the name's tokens, for page spreading
	read  []*question.RelationName // the name read for the walk's matching
}

// slot returns t's index in the cache for name, resetting it when it held
// another name; the caller holds c.mu.
func (c *typeWordCache) slot(t int32, name string) int {
	for int(t) >= len(c.names) {
		c.names, c.words, c.read = append(c.names, ""), append(c.words, nil), append(c.read, nil)
	}
	if c.names[t] != name {
		c.names[t], c.words[t], c.read[t] = name, nil, nil
	}
	return int(t)
}

// get returns the tokens of name, the name of type t.
func (c *typeWordCache) get(t int32, name string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.slot(t, name)
	if c.words[i] == nil {
		w := textrule.Tokenize(name)
		if w == nil {
			w = []string{}
		}
		c.words[i] = w
	}
	return c.words[i]
}

// relationName returns name, the name of type t, read by
// question.ReadRelationName.
func (c *typeWordCache) relationName(t int32, name string) *question.RelationName {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.slot(t, name)
	if c.read[i] == nil {
		c.read[i] = question.ReadRelationName(name)
	}
	return c.read[i]
}

// RelationName implements walk.RelationNamer: the name of type handle t
// read for matching, kept by the graph between calls.
func (s *memStep) RelationName(t int32) *question.RelationName {
	return s.g.typeWords.relationName(t, s.g.types.names[t])
}
