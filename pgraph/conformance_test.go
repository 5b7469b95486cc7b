package pgraph

import (
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// TestConformance runs kgmem's conformance suite against PostgreSQL, each
// subtest in a fresh namespace.
func TestConformance(t *testing.T) {
	needDB(t)
	kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph { return newTestGraph(t) })
}
