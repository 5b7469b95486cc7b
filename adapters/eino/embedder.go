package kgmemeino

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/cloudwego/eino/components/embedding"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
)

// Embedder wraps an Eino embedding.Embedder as a kgmem.Embedder. Eino
// returns float64 vectors; Embedder converts them to float32 and checks
// their count and length against the model it was given.
type Embedder struct {
	e     embedding.Embedder
	model kgmem.EmbeddingModel
}

var _ kgmem.Embedder = (*Embedder)(nil)

// NewEmbedder returns a kgmem.Embedder over e, which produces vectors of
// model (Eino does not say which model an embedder runs, so the caller
// does). A nil e, a blank model name or non-positive dimensions fail with an
// error wrapping kgmem.ErrInvalidArgument.
func NewEmbedder(e embedding.Embedder, model kgmem.EmbeddingModel) (*Embedder, error) {
	switch {
	case e == nil:
		return nil, fmt.Errorf("kgmemeino: new embedder: nil embedder: %w", kgmem.ErrInvalidArgument)
	case strings.TrimSpace(model.Name) == "":
		return nil, fmt.Errorf("kgmemeino: new embedder: blank model name: %w", kgmem.ErrInvalidArgument)
	case model.Dimensions <= 0:
		return nil, fmt.Errorf("kgmemeino: new embedder: model %s: non-positive dimensions %d: %w", quote.Value(model.Name), model.Dimensions, kgmem.ErrInvalidArgument)
	}
	return &Embedder{e: e, model: model}, nil
}

// Model returns the model given to NewEmbedder.
func (e *Embedder) Model() kgmem.EmbeddingModel { return e.model }

// Embed returns one float32 vector per text. It returns ctx.Err() when ctx
// is done before the call, the wrapped embedder's error as it is, and an
// error wrapping kgmem.ErrInvalidArgument when the embedder returns a
// different number of vectors than texts, a vector of another length than
// Model().Dimensions, or a value that is not finite as a float32.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	vs, err := e.e.EmbedStrings(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("kgmemeino: embed: model %s returned %d vectors for %d texts: %w", quote.Value(e.model.Name), len(vs), len(texts), kgmem.ErrInvalidArgument)
	}
	out := make([][]float32, len(vs))
	flat := make([]float32, len(vs)*e.model.Dimensions)
	for i, v := range vs {
		if len(v) != e.model.Dimensions {
			return nil, fmt.Errorf("kgmemeino: embed: model %s returned a vector of %d values for text %d, want %d: %w", quote.Value(e.model.Name), len(v), i, e.model.Dimensions, kgmem.ErrInvalidArgument)
		}
		out[i] = flat[i*e.model.Dimensions : (i+1)*e.model.Dimensions : (i+1)*e.model.Dimensions]
		for j, x := range v {
			f := float32(x)
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("kgmemeino: embed: model %s returned %v at [%d][%d], not a finite float32: %w", quote.Value(e.model.Name), x, i, j, kgmem.ErrInvalidArgument)
			}
			out[i][j] = f
		}
	}
	return out, nil
}
