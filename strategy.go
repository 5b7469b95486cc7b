package kgmem

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// RetrievalStrategy selects the channels MemoryRetriever.Retrieve runs.
type RetrievalStrategy uint8

const (
	// Hybrid runs the content and graph channels at the same time and fuses
	// their answers. It is the zero value.
	Hybrid RetrievalStrategy = iota
	// KnowledgeOnly searches the knowledge stores only.
	KnowledgeOnly
	// GraphOnly links and expands entities in the knowledge graphs only, and
	// returns entities only.
	GraphOnly
)

// String returns "hybrid", "knowledge-only", "graph-only", or
// "RetrievalStrategy(n)".
func (s RetrievalStrategy) String() string {
	switch s {
	case Hybrid:
		return "hybrid"
	case KnowledgeOnly:
		return "knowledge-only"
	case GraphOnly:
		return "graph-only"
	}
	return fmt.Sprintf("RetrievalStrategy(%d)", uint8(s))
}

// Fusion selects how Hybrid retrieval merges the two channels into one
// ranking. Every method yields scores in [0,1].
type Fusion uint8

const (
	// FusionDefault is the zero value and means FusionWeighted. On kgmem's
	// retrieval evaluation (README, "Evaluation": 424 English and Chinese
	// questions over a generated organisational memory) weighted and
	// score-sort fusion tie at nDCG@10 0.741 and RRF trails at 0.603;
	// weighted came out ahead in 9 of 12 regenerations of the set. Unlike
	// RRF it keeps the channels' own scores, so a strong text match
	// outranks a weak graph neighbour and vice versa, and a page that both
	// channels return earns from both.
	FusionDefault Fusion = iota
	// FusionScoreSort scores each item by the larger of its text and graph
	// scores.
	FusionScoreSort
	// FusionRRF is reciprocal rank fusion: an item ranked r (from 1) in a
	// channel earns (k+1)/(k+r) from it, with k = 60, and its score is the
	// mean of what it earns from the two channels (0 from a channel that
	// did not return it). An item first in both channels scores 1; score
	// magnitudes are ignored.
	FusionRRF
	// FusionWeighted scores λ·text + (1−λ)·graph, with λ adapted to the best
	// text score b of the query: 0.8 when b ≥ 0.8, 0.5 when b ≥ 0.5, else
	// 0.3. A confident text match leads; otherwise the graph does.
	FusionWeighted
)

// String returns the method's name.
func (f Fusion) String() string {
	switch f {
	case FusionDefault:
		return "default"
	case FusionScoreSort:
		return "score-sort"
	case FusionRRF:
		return "rrf"
	case FusionWeighted:
		return "weighted"
	}
	return fmt.Sprintf("Fusion(%d)", uint8(f))
}

// resolve maps FusionDefault to the default method.
func (f Fusion) resolve() Fusion {
	if f == FusionDefault {
		return FusionWeighted
	}
	return f
}

// rrfK is the rank offset of FusionRRF.
const rrfK = 60

// adaptiveLambda is FusionWeighted's content weight for the best content score.
func adaptiveLambda(bestContent float64) float64 {
	switch {
	case bestContent >= 0.8:
		return 0.8
	case bestContent >= 0.5:
		return 0.5
	}
	return 0.3
}

// candidates gathers a call's items, each page and entity once, with the
// channels that returned it. A Retrieve takes one from candidatePool and
// gives it back once the items it returns are copied out (see best), so
// that the few hundred 200-byte items of a call are not garbage.
type candidates struct {
	items   []RetrievalItem
	inText  []bool
	inGraph []bool
	spread  []float64 // page spreading's score (see spread.go)
	// pages and entities map an item's ID to its position, by kind.
	pages, entities map[string]int
	order           []int32   // scratch for best and addRanks
	scores          []float64 // scratch for best
}

// candidatePool holds candidates between calls; see getCandidates.
var candidatePool = sync.Pool{New: func() any {
	return &candidates{pages: make(map[string]int), entities: make(map[string]int)}
}}

// getCandidates returns empty candidates with room for n items.
func getCandidates(n int) *candidates {
	c := candidatePool.Get().(*candidates)
	c.items = slices.Grow(c.items, n)
	c.inText = slices.Grow(c.inText, n)
	c.inGraph = slices.Grow(c.inGraph, n)
	c.spread = slices.Grow(c.spread, n)
	return c
}

// release empties c, dropping what its items point to, and gives it back
// to candidatePool. c must not be used after.
func (c *candidates) release() {
	clear(c.items)
	c.items, c.inText, c.inGraph, c.spread, c.order = c.items[:0], c.inText[:0], c.inGraph[:0], c.spread[:0], c.order[:0]
	clear(c.pages)
	clear(c.entities)
	candidatePool.Put(c)
}

// byKind returns the index of the items of it's kind.
func (c *candidates) byKind(it *RetrievalItem) map[string]int {
	if it.Kind == ItemPage {
		return c.pages
	}
	return c.entities
}

func (c *candidates) lookup(it *RetrievalItem) (int, bool) {
	i, ok := c.byKind(it)[it.ID()]
	return i, ok
}

func (c *candidates) add(it RetrievalItem) int {
	c.byKind(&it)[it.ID()] = len(c.items)
	c.items = append(c.items, it)
	c.inText = append(c.inText, false)
	c.inGraph = append(c.inGraph, false)
	c.spread = append(c.spread, 0)
	return len(c.items) - 1
}

// addText records a page the text search returned with score; several
// stores returning the same page keep the best score.
func (c *candidates) addText(it RetrievalItem, score float64) {
	i, ok := c.lookup(&it)
	if !ok {
		i = c.add(it)
	}
	if !c.inText[i] || score > c.items[i].TextScore {
		c.items[i].TextScore = score
		if !c.inGraph[i] {
			c.items[i].Source = it.Source
		}
	}
	c.inText[i] = true
}

// addGraph records an item the graph channel produced, with its score and
// path; the best-scoring path wins (ties: fewer hops, then the path).
func (c *candidates) addGraph(it RetrievalItem, score float64) {
	i, ok := c.lookup(&it)
	if !ok {
		i = c.add(it)
	}
	cur := &c.items[i]
	if c.inGraph[i] && !graphBetter(score, it.Path, cur.GraphScore, cur.Path) {
		return
	}
	cur.GraphScore, cur.Path, cur.Relations, cur.PathNames, cur.Matched, cur.TypeCue =
		score, it.Path, it.Relations, it.PathNames, it.Matched, it.TypeCue
	cur.AsOfCue, cur.AsOfLabel = it.AsOfCue, it.AsOfLabel
	if cur.Kind == ItemEntity || !c.inText[i] {
		cur.Source = it.Source
	}
	c.inGraph[i] = true
}

func graphBetter(score float64, path []string, curScore float64, curPath []string) bool {
	if score != curScore {
		return score > curScore
	}
	if len(path) != len(curPath) {
		return len(path) < len(curPath)
	}
	return slices.Compare(path, curPath) < 0
}

// fuse sets every item's Score for the strategy that ran: the text score
// for KnowledgeOnly, the graph score for GraphOnly, and the fusion
// method's score for Hybrid.
func (c *candidates) fuse(strategy RetrievalStrategy, method Fusion, spread bool) {
	items := c.items
	switch {
	case strategy == KnowledgeOnly:
		for i := range items {
			items[i].Score = items[i].TextScore
		}
	case strategy == GraphOnly:
		for i := range items {
			items[i].Score = items[i].GraphScore
		}
	case method.resolve() == FusionScoreSort:
		for i := range items {
			items[i].Score = max(items[i].TextScore, items[i].GraphScore)
		}
	case method.resolve() == FusionRRF:
		for i := range items {
			items[i].Score = 0
		}
		c.addRanks(c.inText, func(it *RetrievalItem) float64 { return it.TextScore })
		c.addRanks(c.inGraph, func(it *RetrievalItem) float64 { return it.GraphScore })
	default: // FusionWeighted
		best := 0.0
		for i := range items {
			best = max(best, items[i].TextScore)
		}
		lambda := adaptiveLambda(best)
		for i := range items {
			items[i].Score = lambda*items[i].TextScore + (1-lambda)*items[i].GraphScore
		}
	}
	if spread && strategy == Hybrid {
		c.scorePages()
	}
}

// best returns copies of the first n items by Score (see compareItems),
// best first, in a slice of their own: the items are sorted by reference,
// and only the ones returned are copied.
func (c *candidates) best(n int) []RetrievalItem {
	// Only items scoring at least the n-th best score can be among the n
	// best (the order compares scores first), so those alone are sorted.
	all, floor := true, 0.0
	if n > 0 && n < len(c.items) {
		c.scores = c.scores[:0]
		for i := range c.items {
			c.scores = append(c.scores, c.items[i].Score)
		}
		if !slices.ContainsFunc(c.scores, math.IsNaN) {
			slices.Sort(c.scores)
			all, floor = false, c.scores[len(c.scores)-n]
		}
	}
	c.order = c.order[:0]
	for i := range c.items {
		if all || c.items[i].Score >= floor {
			c.order = append(c.order, int32(i))
		}
	}
	slices.SortFunc(c.order, func(a, b int32) int {
		x, y := &c.items[a], &c.items[b]
		return compareItems(x, y, x.Score, y.Score)
	})
	out := make([]RetrievalItem, min(n, len(c.order)))
	for k := range out {
		out[k] = c.items[c.order[k]]
	}
	return out
}

// addRanks adds to each item in the channel (in[i]) half of its reciprocal
// rank within the channel, ranked by score.
func (c *candidates) addRanks(in []bool, score func(*RetrievalItem) float64) {
	idx := c.order[:0]
	for i := range c.items {
		if in[i] {
			idx = append(idx, int32(i))
		}
	}
	c.order = idx
	slices.SortFunc(idx, func(a, b int32) int {
		x, y := &c.items[a], &c.items[b]
		return compareItems(x, y, score(x), score(y))
	})
	for rank, i := range idx {
		c.items[i].Score += float64(rrfK+1) / float64(rrfK+rank+1) / 2
	}
}

// compareItems orders items best first: by the given scores, then fewer
// hops, then pages before entities, then ID.
func compareItems(a, b *RetrievalItem, sa, sb float64) int {
	if c := cmp.Compare(sb, sa); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Path), len(b.Path)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return strings.Compare(a.ID(), b.ID())
}
