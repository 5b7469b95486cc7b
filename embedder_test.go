package kgmem

import (
	"context"
	"hash/fnv"
	"math"
	"sync/atomic"
)

// wordEmbedder is a deterministic Embedder for tests: a text's vector is
// the bag of its Tokenize terms, each hashed to one of dims dimensions
// with a sign, scaled to unit length. Texts that share terms are similar;
// texts that share none are orthogonal up to hash collisions.
type wordEmbedder struct {
	dims  int
	calls atomic.Int64 // Embed calls
	texts atomic.Int64 // texts embedded
	fail  error
}

func (e *wordEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "test-words", Dimensions: e.dims}
}

func (e *wordEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.fail != nil {
		return nil, e.fail
	}
	e.calls.Add(1)
	e.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.dims)
		for _, tok := range Tokenize(t) {
			h := fnv.New64a()
			h.Write([]byte(tok))
			x := h.Sum64()
			sign := float32(1)
			if x>>63 == 1 {
				sign = -1
			}
			v[x%uint64(e.dims)] += sign
		}
		var n float64
		for _, f := range v {
			n += float64(f) * float64(f)
		}
		if n > 0 {
			for j := range v {
				v[j] = float32(float64(v[j]) / math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

// NewWordEmbedder gives the tests of package kgmem_test the same embedder.
func NewWordEmbedder(dims int) Embedder { return &wordEmbedder{dims: dims} }
