// Package diversify orders results for diversity by maximal marginal
// relevance (MMR): choosing, one at a time, the candidate with the best balance of its own score against its similarity
// to the candidates already chosen. It works on plain data (scores, sorted
// sets of term hashes); package kgmem documents how Retrieve uses it
// (RetrieverConfig.MMRLambda).
package diversify

// MMR returns the order in which MMR with lambda in (0,1) chooses the
// first k of n candidates (k ≤ n), each time the one with the highest
//
//	lambda · scores[i] − (1 − lambda) · max similarity to those chosen
//
// ties going to the smaller index, followed by the candidates not chosen in
// their previous order. The similarity of two candidates is 1 when same
// reports them the same item, else the Jaccard index of their sets (sorted,
// distinct hashes; 0 when either is empty).
//
// Cost: O(k·n) similarities.
func MMR(n, k int, scores []float64, sets [][]uint64, same func(a, b int) bool, lambda float64) []int {
	sim := func(a, b int) float64 {
		if same(a, b) {
			return 1
		}
		return Jaccard(sets[a], sets[b])
	}
	order := make([]int, n) // order[:chosen] are chosen
	for i := range order {
		order[i] = i
	}
	maxSim := make([]float64, n)
	for chosen := 0; chosen < k; chosen++ {
		best, bestVal := -1, 0.0
		for p := chosen; p < len(order); p++ {
			i := order[p]
			v := lambda*scores[i] - (1-lambda)*maxSim[i]
			if best < 0 || v > bestVal || (v == bestVal && i < order[best]) {
				best, bestVal = p, v
			}
		}
		i := order[best]
		copy(order[chosen+1:best+1], order[chosen:best])
		order[chosen] = i
		for p := chosen + 1; p < len(order); p++ {
			if s := sim(order[p], i); s > maxSim[order[p]] {
				maxSim[order[p]] = s
			}
		}
	}
	return order
}

// Jaccard returns |a ∩ b| / |a ∪ b| for sorted sets of distinct values, 0
// when either is empty.
func Jaccard(sa, sb []uint64) float64 {
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(sa) && j < len(sb); {
		switch {
		case sa[i] < sb[j]:
			i++
		case sa[i] > sb[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}
