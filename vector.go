package kgmem

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/kgmem/kgmem/internal/bm25"
	"github.com/kgmem/kgmem/internal/embedmodel"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/vecindex"
)

// Defaults of dense search.
const (
	// defaultDenseWeight is the weight w of a page's cosine similarity to
	// the query in the content score when the store has an embedder: the
	// score is (1 − w)·BM25 + w·cosine. It was chosen on Cranfield and a
	// paraphrase set (see WithDenseWeight).
	defaultDenseWeight = bm25.DefaultDenseWeight

	// defaultEmbedBatch is the largest number of texts PutBatch gives the
	// Embedder in one call.
	defaultEmbedBatch = 64
)

// WithEmbedder makes the store embed every page it stores (its title, a
// newline, and its content) and every query it searches with e, and rank
// pages by BM25 fused with the cosine similarity of their vectors to the
// query's (see Dense search under InMemoryKnowledgeStore). Vectors are
// kept as float32 scaled to unit length. nil means no embedder, the
// default. An embedder whose Model has a blank name or a number of
// dimensions outside [1, 65536] is an invalid option (see StoreOption).
func WithEmbedder(e Embedder) StoreOption {
	return storeOptionFunc(func(c *storeConfig) {
		if e != nil {
			if problem := modelProblem(e.Model()); problem != "" {
				c.fail("WithEmbedder: %s", problem)
				return
			}
		}
		c.embedder = e
	})
}

// WithDenseWeight sets the weight w in [0,1] of the dense (cosine) score in
// the content score of a store with an embedder (default
// 0.3 by default): score = (1 − w)·BM25 + w·max(0, cosine). 0
// ranks by BM25 alone, the embedder still adding pages no query term
// matches (at score 0 they are not returned, so 0 is BM25 exactly); 1 by
// cosine alone. A value outside [0,1], NaN included, is invalid.
func WithDenseWeight(w float64) StoreOption {
	return storeOptionFunc(func(c *storeConfig) {
		if !(w >= 0 && w <= 1) {
			c.fail("WithDenseWeight: weight %v outside [0,1]", w)
			return
		}
		c.denseWeight = w
	})
}

// VectorIndex finds the stored vectors nearest a query vector. The store
// keeps one for its pages when it has an embedder; by default an exact
// index that compares the query with every vector. Supply an approximate
// one (such as the HNSW index of module github.com/kgmem/kgmem/hnsw) for
// large stores with WithVectorIndex.
//
// Every vector given to an index is of the store's dimensions and of unit
// length, and the store calls Add, Delete and Search only while holding
// its own lock (Search under the read lock, so several Searches may run at
// once; Add and Delete under the write lock, never while a Search runs).
// An index must not call back into the store.
type VectorIndex interface {
	// Add stores vec under id, replacing what id held. vec is never
	// modified, by the store or by the index, so the index may keep it.
	// Add cannot fail: the store has checked the vector, and journaled
	// the write, before it calls Add.
	Add(id string, vec []float32)
	// Delete removes id; an absent id is not an error.
	Delete(id string)
	// Search returns up to k IDs whose vectors are the most similar to
	// query (cosine similarity: the dot product of unit vectors),
	// best first. An approximate index may miss some; the store computes
	// the exact similarity of every ID it returns.
	Search(query []float32, k int) ([]string, error)
}

// WithVectorIndex makes the store find the pages nearest a query's vector
// with the index newIndex returns for the store's dimensions, instead of
// comparing the query with every page. It is called once per empty store
// made (by NewInMemoryKnowledgeStore and by ReadFrom, which fills a new
// store); it must return an empty index. nil means the exact default. It
// has no effect without WithEmbedder.
func WithVectorIndex(newIndex func(dims int) VectorIndex) StoreOption {
	return storeOptionFunc(func(c *storeConfig) { c.newIndex = newIndex })
}

// modelProblem says what makes m unfit to describe an embedder's
// vectors, or returns "" when nothing does (see embedmodel.Problem).
func modelProblem(m EmbeddingModel) string { return embedmodel.Problem(m.Name, m.Dimensions) }

// zeroVectors says what embedTexts makes of an all-zero vector, which has
// no direction.
type zeroVectors bool

const (
	// rejectZero makes a zero vector an error wrapping ErrEmbedding: the
	// store's pages and queries, whose cosine would be undefined.
	rejectZero zeroVectors = false
	// keepZero keeps a zero vector as zeros, similar to nothing: linking
	// by meaning, where one entity's text must not stop every link.
	keepZero zeroVectors = true
)

// embedTexts embeds texts with e in batches of at most defaultEmbedBatch,
// checking ctx between them, and returns one unit vector per text (see
// unitVector). what names the i-th text in errors. An Embed error that is
// ctx's is returned as ctx.Err(); any other failure wraps ErrEmbedding.
func embedTexts(ctx context.Context, e Embedder, m EmbeddingModel, texts []string, what func(i int) string, zero zeroVectors) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += defaultEmbedBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := texts[start:min(len(texts), start+defaultEmbedBatch)]
		vecs, err := e.Embed(ctx, batch)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return nil, ctxErr
			}
			return nil, fmt.Errorf("kgmem: embed %s: %w: %w", what(start), err, ErrEmbedding)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("kgmem: embed %s: model %s returned %d vectors for %d texts: %w",
				what(start), quote.Value(m.Name), len(vecs), len(batch), ErrEmbedding)
		}
		for i, v := range vecs {
			u, err := unitVector(v, m, zero)
			if err != nil {
				return nil, errmsg.Wrapf(err, "kgmem: embed %s", what(start+i))
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// unitVector returns a copy of v scaled to unit length, or an error
// wrapping ErrEmbedding when v is not a vector of model m: the wrong
// length, a NaN or infinite value, or (with rejectZero) all zeros (a zero
// vector has no direction, and cosine similarity is undefined for it).
// With keepZero, a zero vector is returned as a copy of zeros.
func unitVector(v []float32, m EmbeddingModel, zeroes zeroVectors) ([]float32, error) {
	if len(v) != m.Dimensions {
		return nil, fmt.Errorf("kgmem: model %s returned a vector of %d dimensions, want %d: %w", quote.Value(m.Name), len(v), m.Dimensions, ErrEmbedding)
	}
	u, bad, zero := vecindex.Unit(v)
	switch {
	case bad >= 0:
		return nil, fmt.Errorf("kgmem: model %s returned %v at index %d: %w", quote.Value(m.Name), v[bad], bad, ErrEmbedding)
	case zero && zeroes == keepZero:
		return make([]float32, len(v)), nil
	case u == nil:
		return nil, fmt.Errorf("kgmem: model %s returned a vector of zero or unbounded length: %w", quote.Value(m.Name), ErrEmbedding)
	}
	return u, nil
}

// pageText is what a page's vector is made of: its title and content.
func pageText(p KnowledgePage) string {
	if p.Title == "" {
		return p.Content
	}
	return p.Title + "\n" + p.Content
}

// dot returns the dot product of a and b, which have the same length, in
// the fixed order of vecindex.Dot, so that the same vectors always give
// the same bits.
func dot(a, b []float32) float32 { return vecindex.Dot(a, b) }

// vector is a page's vector in a journal record or a snapshot line: the
// base64 of its float32 values, written bit for bit (vecindex.Vector).
type vector = vecindex.Vector

// checkStored checks a vector read from a snapshot or a journal for a
// store of model m (nil when the store has no embedder): present exactly
// when the store has an embedder, of its dimensions, finite and of unit
// length within float32 rounding. what names the record.
func checkStored(v vector, recModel string, m *EmbeddingModel, what string) error {
	switch {
	case m == nil && v == nil:
		return nil
	case m == nil:
		return fmt.Errorf("kgmem: %s has a vector of model %s, and the store has no embedder: %w", what, quote.Value(recModel), ErrEmbeddingModel)
	case v == nil:
		return fmt.Errorf("kgmem: %s has no vector, and the store embeds with model %s: %w", what, quote.Value(m.Name), ErrEmbeddingModel)
	case recModel != m.Name:
		return fmt.Errorf("kgmem: %s has a vector of model %s, and the store embeds with model %s: %w", what, quote.Value(recModel), quote.Value(m.Name), ErrEmbeddingModel)
	case len(v) != m.Dimensions:
		return fmt.Errorf("kgmem: %s has a vector of %d dimensions, and model %s has %d: %w", what, len(v), quote.Value(m.Name), m.Dimensions, ErrEmbeddingModel)
	}
	norm := 0.0
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("kgmem: %s has a vector with value %v: %w", what, x, ErrInvalidArgument)
		}
		norm += f * f
	}
	if math.Abs(norm-1) > 1e-3 {
		return fmt.Errorf("kgmem: %s has a vector of squared length %v, not a unit vector: %w", what, norm, ErrInvalidArgument)
	}
	return nil
}
