package docmeta

import (
	"fmt"
	"reflect"

	"github.com/kgmem/kgmem"
)

// Retriever returns the one kgmem.MemoryRetriever an adapter answers with:
// ready when it is set, or else one built over store and graph with cfg
// and opts (opts after the graph). It fails with an error wrapping
// kgmem.ErrInvalidArgument, starting with op, when ready is set together
// with store, graph or a non-zero cfg, or when none of the three sources
// is set.
func Retriever(op string, ready *kgmem.MemoryRetriever, store kgmem.KnowledgeStore, graph kgmem.KnowledgeGraph, cfg kgmem.RetrieverConfig, opts ...kgmem.RetrieverOption) (*kgmem.MemoryRetriever, error) {
	if ready != nil {
		var set []string
		if store != nil {
			set = append(set, "Store")
		}
		if graph != nil {
			set = append(set, "Graph")
		}
		if !reflect.ValueOf(cfg).IsZero() {
			set = append(set, "Config")
		}
		if len(set) > 0 {
			return nil, fmt.Errorf("%s: Retriever is set, and so is %v (a ready retriever has its own): %w", op, set, kgmem.ErrInvalidArgument)
		}
		return ready, nil
	}
	if store == nil && graph == nil {
		return nil, fmt.Errorf("%s: neither Retriever, Store nor Graph is set: %w", op, kgmem.ErrInvalidArgument)
	}
	var all []kgmem.RetrieverOption
	if graph != nil {
		all = append(all, kgmem.WithKnowledgeGraph(graph))
	}
	all = append(all, opts...)
	return kgmem.NewMemoryRetriever(store, cfg, all...), nil
}
