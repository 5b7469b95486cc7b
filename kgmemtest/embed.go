package kgmemtest

import (
	"context"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/hashembed"
)

// DefaultHashDimensions is the number of dimensions of a HashEmbedder
// whose Dimensions is 0.
const DefaultHashDimensions = 256

// HashEmbedderName is the model name a HashEmbedder reports.
const HashEmbedderName = "kgmemtest-hash-v1"

// HashEmbedder is a deterministic [kgmem.Embedder] for tests and examples:
// no model, no network, the same vector for the same text on every
// machine. It hashes each lower-cased word of a text, and each character
// trigram of a word, to one of Dimensions coordinates with a sign (feature
// hashing) and scales the sum to unit length. Texts that share words or
// word fragments ("apollo", "apollos") come out similar; synonyms do not,
// since nothing is learned. Texts without a letter or digit all get one
// fixed vector. The zero value uses DefaultHashDimensions; it is safe for
// concurrent use.
type HashEmbedder struct {
	// Dimensions is the length of the vectors; 0 means
	// DefaultHashDimensions.
	Dimensions int
}

var _ kgmem.Embedder = HashEmbedder{}

func (h HashEmbedder) dims() int {
	if h.Dimensions <= 0 {
		return DefaultHashDimensions
	}
	return h.Dimensions
}

// Model returns HashEmbedderName and the embedder's dimensions.
func (h HashEmbedder) Model() kgmem.EmbeddingModel {
	return kgmem.EmbeddingModel{Name: HashEmbedderName, Dimensions: h.dims()}
}

// Embed returns one unit vector per text. It returns ctx.Err() when ctx is
// done before it starts.
func (h HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashembed.Embed(t, h.dims())
	}
	return out, nil
}
