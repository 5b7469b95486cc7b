package kgmem

import (
	"testing"

	"github.com/kgmem/kgmem/internal/question"
	"github.com/kgmem/kgmem/internal/textrule"
	"github.com/stretchr/testify/require"
)

// TestTypeWordCache: the cache answers what reading the name afresh
// gives, keeps one reading per type ID, and reads a reused ID's new name.
func TestTypeWordCache(t *testing.T) {
	var c typeWordCache
	first := c.relationName(2, "directed_by")
	require.Equal(t, question.ReadRelationName("directed_by"), first)
	require.True(t, first.Passive)
	require.Same(t, first, c.relationName(2, "directed_by"), "read once")
	require.Equal(t, textrule.Tokenize("directed_by"), c.get(2, "directed_by"))

	again := c.relationName(2, "spouse") // ID 2 freed and reused
	require.Equal(t, question.ReadRelationName("spouse"), again)
	require.False(t, again.Passive)
	require.Equal(t, textrule.Tokenize("spouse"), c.get(2, "spouse"))
	require.Nil(t, c.read[0], "IDs not asked for hold nothing")
	require.Len(t, c.names, 3)
}
