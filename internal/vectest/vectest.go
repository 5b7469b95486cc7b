// Package vectest generates the random unit vectors that the vector tests
// and benchmarks of this repository (the store's exact search, the hnsw
// module) run on, so that they all measure the same kinds of data.
package vectest

import (
	"math"
	"math/rand/v2"
)

// Unit returns a random unit vector of d dimensions, uniform on the
// sphere.
func Unit(r *rand.Rand, d int) []float32 {
	v := make([]float32, d)
	n := 0.0
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

// Clustered returns a generator of unit vectors of d dimensions around
// 100 random centres, each at cosine about 0.7 from its centre: random
// vectors with the cluster structure real embeddings have. Uniform vectors
// (Unit) are the opposite: in hundreds of dimensions near and far
// neighbours are almost equally far, the worst case of every approximate
// index.
func Clustered(r *rand.Rand, d int) func() []float32 {
	centres := make([][]float32, 100)
	for i := range centres {
		centres[i] = Unit(r, d)
	}
	return func() []float32 {
		c := centres[r.IntN(len(centres))]
		v := Unit(r, d)
		n := 0.0
		for i := range v {
			v[i] += c[i]
			n += float64(v[i]) * float64(v[i])
		}
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
		return v
	}
}
