package kgmem_test

import (
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// TestConformance runs the KnowledgeGraph conformance suite against the
// in-memory reference graph.
func TestConformance(t *testing.T) {
	t.Parallel()
	kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
		return kgmem.NewInMemoryGraph()
	})
}

// TestConformanceSmallTagLimit runs the suite with a tag limit below the
// default, so that every tag check also exercises the cut.
func TestConformanceSmallTagLimit(t *testing.T) {
	t.Parallel()
	kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
		return kgmem.NewInMemoryGraph(kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 2}))
	})
}

// interfaceOnly hides every method of a graph but KnowledgeGraph's, as a
// backend that implements only the interface would.
type interfaceOnly struct{ kgmem.KnowledgeGraph }

// TestConformanceInterfaceOnly runs the suite against a graph reached only
// through the KnowledgeGraph interface, so that what kgmem builds on the
// interface alone (the retriever's reads through GetRelated and FindPaths,
// Ingest's writes one by one) answers as the reference does.
func TestConformanceInterfaceOnly(t *testing.T) {
	t.Parallel()
	kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
		return interfaceOnly{kgmem.NewInMemoryGraph()}
	})
}
