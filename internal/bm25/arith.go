package bm25

import "math"

// The ranking defaults kgmem's page stores share: the in-process store
// and the PostgreSQL one rank with the same values.
const (
	// DefaultTitleBoost is how many times a title occurrence of a term
	// counts compared with a content occurrence.
	DefaultTitleBoost = 2.0
	// DefaultK1 is the BM25 term-frequency saturation k1: how quickly
	// repeating a term stops adding to a page's score.
	DefaultK1 = 1.2
	// DefaultB is the BM25 length normalisation b: 0 ignores page length,
	// 1 divides term frequency fully by relative length.
	DefaultB = 0.75
	// DefaultDenseWeight is the weight w of a document's cosine similarity
	// to the query in a fusion, before the agreement gate.
	DefaultDenseWeight = 0.3
)

// The arithmetic of a search, as functions so that every store computes
// the same floats, operation for operation (see Search for the formula).

// Weight is idf(t) · (k1 + 1) for a term found in df of n documents.
func Weight(n, df, k1 float64) float64 { return math.Log1p((n-df+0.5)/(df+0.5)) * (k1 + 1) }

// AvgLength is the average weighted length of n documents holding
// titleTerms title and contentTerms content tokens in all.
func AvgLength(titleBoost, titleTerms, contentTerms, n float64) float64 {
	return (titleBoost*titleTerms + contentTerms) / n
}

// TermScore is bm25(t) for a term of weight w and frequency tf in a
// document of weighted length length; written as the weight times a
// fraction that is at most 1 so that, in floating point too, no document
// exceeds the query's largest sum.
func TermScore(w, tf, length, avgdl, k1, b float64) float64 {
	norm := 1.0
	if avgdl > 0 {
		norm = 1 - b + b*length/avgdl
	}
	return w * (tf / (tf + k1*norm))
}

// Normalized is a BM25 sum divided by the largest sum the query could
// reach, clamped to [0,1]; 0 when that is not positive.
func Normalized(raw, maxRaw float64) float64 {
	if maxRaw <= 0 {
		return 0
	}
	return min(1, max(0, raw/maxRaw))
}

// Agreement is the agreement gate of a fusion: the share of text, BM25's
// best documents (at most GateBM25), found among the first GateDense of
// dense, the nearest documents best first; 1 when text is empty. key
// names a document on both sides.
func Agreement[T any, K comparable](text, dense []T, key func(T) K) float64 {
	if len(text) == 0 {
		return 1
	}
	nearest := make(map[K]struct{}, GateDense)
	for _, h := range dense[:min(GateDense, len(dense))] {
		nearest[key(h)] = struct{}{}
	}
	n := 0
	for _, h := range text {
		if _, ok := nearest[key(h)]; ok {
			n++
		}
	}
	return float64(n) / float64(len(text))
}

// Fused is a document's fused score: its normalised BM25 score bm and its
// similarity cos weighed by the gated dense weight wq, at most 1.
func Fused(bm, cos, wq float64) float64 { return min(1, (1-wq)*bm+wq*cos) }
