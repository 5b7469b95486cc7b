package kgmem

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Reranker rescores the best items of a Retrieve call, typically with a
// cross-encoder or a reranking API that reads the query and each item's
// text together. kgmem ships none: wrap yours in this interface and pass
// it to WithReranker.
//
// Implementations must be safe for concurrent use.
type Reranker interface {
	// Rerank returns one score per item, in order, higher meaning more
	// relevant to query. Scores outside [0,1] are clamped into it, so
	// return probabilities or normalised scores. Rerank must not modify
	// items; RetrievalItem.Text gives the text kgmem would show a model.
	// It should return ctx.Err() when ctx is done.
	Rerank(ctx context.Context, query string, items []RetrievalItem) ([]float64, error)
}

// WithReranker sets RetrieverConfig.Reranker and RerankTopN, for the
// retriever or for one call: rr applies to the best topN items after
// fusion (0 means RetrieverConfig.MaxResults; negative is an invalid
// configuration): those items are ordered by rr's scores (ties keep the fused order), and
// their Score becomes rr's score; the items after them keep their fused
// order and scores. A nil rr turns reranking off.
//
// A reranker that fails, panics, runs over RetrieverConfig.SourceTimeout
// or returns a wrong number of scores or a NaN does not fail the call:
// the fused order is kept and a Warning says why (the reranker improves a
// ranking that is already useful, so its failure should not cost the
// agent its memory). A done ctx still returns ctx.Err().
func WithReranker(rr Reranker, topN int) RetrieverOption {
	return retrieverOptionFunc(func(r *MemoryRetriever) {
		r.raw.Reranker, r.raw.RerankTopN = rr, topN
	})
}

// rerank applies the reranker to the first n items in place and reports
// how many it rescored.
func (r *MemoryRetriever) rerank(ctx context.Context, cfg RetrieverConfig, query string, items []RetrievalItem) (int, error) {
	n := cfg.RerankTopN
	if n == 0 {
		n = cfg.MaxResults
	}
	n = min(n, len(items))
	if cfg.Reranker == nil || n == 0 {
		return 0, nil
	}
	top := slices.Clone(items[:n])
	scores, err := guarded(ctx, cfg.SourceTimeout, func(ctx context.Context) ([]float64, error) {
		return cfg.Reranker.Rerank(ctx, query, top)
	})
	if err == nil && len(scores) != n {
		err = fmt.Errorf("returned %d scores for %d items: %w", len(scores), n, ErrInvalidArgument)
	}
	if err == nil {
		for i, s := range scores {
			if math.IsNaN(s) {
				err = fmt.Errorf("returned NaN for item %d: %w", i, ErrInvalidArgument)
				break
			}
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && cfg.SourceTimeout > 0 && ctx.Err() == nil {
			err = fmt.Errorf("timed out after %v: %w", cfg.SourceTimeout, err)
		}
		return 0, fmt.Errorf("reranker: %w", err)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := clamp01(scores[a]), clamp01(scores[b])
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	for k, i := range order {
		items[k] = top[i]
		items[k].Score = clamp01(scores[i])
	}
	return n, nil
}
