package kgmem

import (
	"slices"

	"github.com/kgmem/kgmem/internal/diversify"
	"github.com/kgmem/kgmem/internal/walk"
)

// Maximal marginal relevance (MMR): RetrieverConfig.MMRLambda in (0,1)
// makes Retrieve choose its items one at a time, each time the candidate
// with the highest
//
//	λ · Score − (1 − λ) · max similarity to the items already chosen
//
// so that a near-duplicate of a chosen item gives way to a less similar one
// of slightly lower score. Similarity is the Jaccard index of the items'
// word sets (Tokenize over RetrievalItem.Text, compared by 64-bit hash), 1 for two items with the
// same ID; it needs no vectors and is deterministic. Ties go to the item
// ranked first before MMR. Items keep their Score: after MMR the list is in
// MMR order, which need not be descending by Score.
//
// MMR is off by default: on kgmem's evaluations, whose questions have one
// or a few relevant items, it trades relevance for diversity (see README,
// "Evaluation"). Turn it on for questions that want a survey rather than
// an answer. MMR chooses among the best 3 × MaxResults items. Cost:
// tokenizing those items, and O(MaxResults² × 3) similarities of word sets.

// mmrPool is how many candidates MMR considers per item it returns: the
// first mmrPool × MaxResults items by score.
const mmrPool = 3

// mmr reorders items so that its first k are chosen by MMR with lambda
// among the first mmrPool × k; the rest follow in their previous order.
func mmr(items []RetrievalItem, lambda float64, k int) {
	k = min(k, len(items))
	if lambda <= 0 || lambda >= 1 || k < 2 {
		return
	}
	pool := items[:min(len(items), mmrPool*k)] // the rest keeps its place
	items = pool
	sets := make([][]uint64, len(items)) // sorted, distinct term hashes
	scores := make([]float64, len(items))
	for i := range items {
		scores[i] = items[i].Score
		toks := Tokenize(items[i].Text())
		set := make([]uint64, len(toks))
		for j, t := range toks {
			set[j] = walk.IDHash(t)
		}
		slices.Sort(set)
		sets[i] = slices.Compact(set)
	}
	same := func(a, b int) bool { return items[a].Kind == items[b].Kind && items[a].ID() == items[b].ID() }
	order := diversify.MMR(len(items), k, scores, sets, same, lambda)
	out := make([]RetrievalItem, len(items))
	for p, i := range order {
		out[p] = items[i]
	}
	copy(items, out)
}
