package kgmem

import "context"

// EmbeddingModel names the vector space an Embedder produces. A store that
// keeps vectors records it and refuses to mix vectors from different models:
// two embedders with the same Dimensions but different Names are different
// spaces.
type EmbeddingModel struct {
	// Name identifies the model, such as "text-embedding-3-small" or
	// "all-MiniLM-L6-v2". It must not be blank.
	Name string
	// Dimensions is the length of every vector the model returns; it must
	// be positive.
	Dimensions int
}

// Embedder turns texts into vectors. kgmem ships no model: wrap the one
// your agent already uses (a local model or an API) in this interface.
//
// Implementations must be safe for concurrent use.
type Embedder interface {
	// Model describes the vectors Embed returns. It must return the same
	// value for the lifetime of the Embedder.
	Model() EmbeddingModel

	// Embed returns one vector per text, in order, each of
	// Model().Dimensions values. It should stop early and return ctx.Err()
	// when ctx is done. kgmem never modifies the texts or keeps the
	// returned slices beyond copying them.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
