package pgraph

import "testing"

// TestStoreCachedListsMatchInMemory runs the differential tests of Search
// with every posting list kept in memory once read (see termCache), so
// that searches use kept lists, and must notice every write that makes
// one stale: the same pages, order and scores as kgmem's store.
func TestStoreCachedListsMatchInMemory(t *testing.T) {
	needDB(t)
	defer func(n int64) { termCacheMinDF = n }(termCacheMinDF)
	termCacheMinDF = 1
	t.Run("bm25", TestStoreMatchesInMemory)
	t.Run("vectors", TestStoreVectorsMatchInMemory)
}
