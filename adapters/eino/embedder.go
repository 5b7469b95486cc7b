package kgmemeino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/embedding"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/embedmodel"
)

// Embedder wraps an Eino embedding.Embedder as a kgmem.Embedder. Eino
// returns float64 vectors; Embedder converts them to float32.
type Embedder struct {
	e     embedding.Embedder
	model kgmem.EmbeddingModel
}

var _ kgmem.Embedder = (*Embedder)(nil)

// NewEmbedder returns a kgmem.Embedder over e, which produces vectors of
// model (Eino does not say which model an embedder runs, so the caller
// does). A nil e, or a model kgmem.WithEmbedder would refuse (a blank name,
// dimensions outside [1, 65536]), fails with an error wrapping
// kgmem.ErrInvalidArgument.
func NewEmbedder(e embedding.Embedder, model kgmem.EmbeddingModel) (*Embedder, error) {
	if e == nil {
		return nil, fmt.Errorf("kgmemeino: new embedder: nil embedder: %w", kgmem.ErrInvalidArgument)
	}
	if problem := embedmodel.Problem(model.Name, model.Dimensions); problem != "" {
		return nil, fmt.Errorf("kgmemeino: new embedder: %s: %w", problem, kgmem.ErrInvalidArgument)
	}
	return &Embedder{e: e, model: model}, nil
}

// Model returns the model given to NewEmbedder.
func (e *Embedder) Model() kgmem.EmbeddingModel { return e.model }

// Embed returns one vector per text, the wrapped embedder's float64 values
// converted to float32. It returns ctx.Err() when ctx is done before the
// call, and the wrapped embedder's error as it is. It does not check the
// vectors: kgmem checks every Embedder's answer where it uses one (the
// number of vectors, their length, NaN and ±Inf, a value too large for a
// float32 being +Inf or -Inf), and fails with an error wrapping
// kgmem.ErrEmbedding.
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
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = make([]float32, len(v))
		for j, x := range v {
			out[i][j] = float32(x)
		}
	}
	return out, nil
}
