package kgmemlangchain

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/tmc/langchaingo/embeddings"
)

// Embedder wraps a langchaingo embeddings.Embedder as a kgmem.Embedder,
// checking the count and length of the vectors it returns against the
// model it was given.
type Embedder struct {
	e     embeddings.Embedder
	model kgmem.EmbeddingModel
}

var _ kgmem.Embedder = (*Embedder)(nil)

// NewEmbedder returns a kgmem.Embedder over e, which produces vectors of
// model (langchaingo does not say which model an embedder runs, so the
// caller does). A nil e, a blank model name or non-positive dimensions fail
// with an error wrapping kgmem.ErrInvalidArgument.
func NewEmbedder(e embeddings.Embedder, model kgmem.EmbeddingModel) (*Embedder, error) {
	switch {
	case e == nil:
		return nil, fmt.Errorf("kgmemlangchain: new embedder: nil embedder: %w", kgmem.ErrInvalidArgument)
	case strings.TrimSpace(model.Name) == "":
		return nil, fmt.Errorf("kgmemlangchain: new embedder: blank model name: %w", kgmem.ErrInvalidArgument)
	case model.Dimensions <= 0:
		return nil, fmt.Errorf("kgmemlangchain: new embedder: model %s: non-positive dimensions %d: %w", quote.Value(model.Name), model.Dimensions, kgmem.ErrInvalidArgument)
	}
	return &Embedder{e: e, model: model}, nil
}

// Model returns the model given to NewEmbedder.
func (e *Embedder) Model() kgmem.EmbeddingModel { return e.model }

// Embed returns one vector per text, from the wrapped embedder's
// EmbedDocuments, copied. It returns ctx.Err() when ctx is done before the
// call, the wrapped embedder's error as it is, and an error wrapping
// kgmem.ErrInvalidArgument when the embedder returns a different number of
// vectors than texts, a vector of another length than Model().Dimensions,
// or a value that is not finite.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	vs, err := e.e.EmbedDocuments(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("kgmemlangchain: embed: model %s returned %d vectors for %d texts: %w", quote.Value(e.model.Name), len(vs), len(texts), kgmem.ErrInvalidArgument)
	}
	dims := e.model.Dimensions
	out := make([][]float32, len(vs))
	flat := make([]float32, len(vs)*dims)
	for i, v := range vs {
		if len(v) != dims {
			return nil, fmt.Errorf("kgmemlangchain: embed: model %s returned a vector of %d values for text %d, want %d: %w", quote.Value(e.model.Name), len(v), i, dims, kgmem.ErrInvalidArgument)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("kgmemlangchain: embed: model %s returned %v at [%d][%d]: %w", quote.Value(e.model.Name), x, i, j, kgmem.ErrInvalidArgument)
			}
		}
		out[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
		copy(out[i], v)
	}
	return out, nil
}
