package kgmem_test

import (
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// TestConformance runs the KnowledgeGraph conformance suite against the
// in-memory reference graph.
func TestConformance(t *testing.T) {
	kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
		return kgmem.NewInMemoryGraph()
	})
}

// TestConformanceSmallTagLimit runs the suite with a tag limit below the
// default, so that every tag check also exercises the cut.
func TestConformanceSmallTagLimit(t *testing.T) {
	kgmemtest.Run(t, func(t *testing.T) kgmem.KnowledgeGraph {
		return kgmem.NewInMemoryGraph(kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 2}))
	})
}
