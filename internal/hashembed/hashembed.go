// Package hashembed turns text into deterministic vectors by feature
// hashing: each word and each character trigram of a word adds ±weight to
// one of dims coordinates chosen by a hash of it. Texts that share words
// or word fragments get similar vectors; nothing else is learned. It backs
// kgmemtest.HashEmbedder and kgmem's own tests.
package hashembed

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Weights of the features.
const (
	wordWeight    = 1.0
	trigramWeight = 0.5
)

// Embed returns the unit vector of text in dims coordinates (dims > 0).
// Texts without letters or digits all get the same vector, so that no text
// has the zero vector, which has no direction.
func Embed(text string, dims int) []float32 {
	acc := make([]float64, dims)
	add := func(feature string, w float64) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		x := h.Sum64()
		i := int(x % uint64(dims))
		if x>>63 == 1 {
			w = -w
		}
		acc[i] += w
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		add("w:"+w, wordWeight)
		r := []rune("#" + w + "#")
		for i := 0; i+3 <= len(r); i++ {
			add("t:"+string(r[i:i+3]), trigramWeight)
		}
	}
	if len(words) == 0 {
		add("none", wordWeight)
	}
	norm := 0.0
	for _, v := range acc {
		norm += v * v
	}
	out := make([]float32, dims)
	norm = math.Sqrt(norm)
	for i, v := range acc {
		out[i] = float32(v / norm)
	}
	return out
}
