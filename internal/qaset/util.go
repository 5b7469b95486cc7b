package qaset

import (
	"math"
	"math/rand/v2"
	"sort"
)

// weighted draws indexes with fixed weights.
type weighted struct{ cum []float64 }

func newWeighted(w []float64) *weighted {
	c := make([]float64, len(w))
	s := 0.0
	for i, x := range w {
		s += x
		c[i] = s
	}
	return &weighted{cum: c}
}

// zipfWeights returns n weights 1/(i+offset)^s.
func zipfWeights(n int, s, offset float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / math.Pow(float64(i)+offset, s)
	}
	return w
}

func (w *weighted) draw(r *rand.Rand) int {
	x := r.Float64() * w.cum[len(w.cum)-1]
	return sort.SearchFloat64s(w.cum, x)
}

// drawDistinct draws k distinct indexes (fewer if there are not enough).
func (w *weighted) drawDistinct(r *rand.Rand, k int) []int {
	if k > len(w.cum) {
		k = len(w.cum)
	}
	var out []int
	for tries := 0; len(out) < k && tries < 20*k+20; tries++ {
		i := w.draw(r)
		if !containsInt(out, i) {
			out = append(out, i)
		}
	}
	return out
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// degreeSlots deals a configuration-model multiset: each of n members gets
// at least one slot and the rest of total follows a power law over a
// random order of the members; the slots are returned shuffled.
func degreeSlots(r *rand.Rand, n, total int, s float64) []int {
	if total < n {
		total = n
	}
	order := r.Perm(n)
	w := zipfWeights(n, s, 3)
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	extra := float64(total - n)
	var slots []int
	for rank, m := range order {
		c := 1 + int(math.Round(extra*w[rank]/sum))
		for range c {
			slots = append(slots, m)
		}
	}
	r.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
	return slots
}

// pickOne returns a random element of xs.
func pickOne[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
