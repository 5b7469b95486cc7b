package kgmemlangchain

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/embedmodel"
	"github.com/tmc/langchaingo/embeddings"
)

// Embedder wraps a langchaingo embeddings.Embedder as a kgmem.Embedder.
type Embedder struct {
	e     embeddings.Embedder
	model kgmem.EmbeddingModel
}

var _ kgmem.Embedder = (*Embedder)(nil)

// NewEmbedder returns a kgmem.Embedder over e, which produces vectors of
// model (langchaingo does not say which model an embedder runs, so the
// caller does). A nil e, or a model kgmem.WithEmbedder would refuse (a
// blank name, dimensions outside [1, 65536]), fails with an error wrapping
// kgmem.ErrInvalidArgument.
func NewEmbedder(e embeddings.Embedder, model kgmem.EmbeddingModel) (*Embedder, error) {
	if e == nil {
		return nil, fmt.Errorf("kgmemlangchain: new embedder: nil embedder: %w", kgmem.ErrInvalidArgument)
	}
	if problem := embedmodel.Problem(model.Name, model.Dimensions); problem != "" {
		return nil, fmt.Errorf("kgmemlangchain: new embedder: %s: %w", problem, kgmem.ErrInvalidArgument)
	}
	return &Embedder{e: e, model: model}, nil
}

// Model returns the model given to NewEmbedder.
func (e *Embedder) Model() kgmem.EmbeddingModel { return e.model }

// Embed returns the wrapped embedder's EmbedDocuments vectors, one per
// text, as it returns them (kgmem copies what it keeps). It returns
// ctx.Err() when ctx is done before the call, and the wrapped embedder's
// error as it is. It does not check the vectors: kgmem checks every
// Embedder's answer where it uses one (the number of vectors, their length,
// NaN and ±Inf), and fails with an error wrapping kgmem.ErrEmbedding.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	return e.e.EmbedDocuments(ctx, texts)
}
