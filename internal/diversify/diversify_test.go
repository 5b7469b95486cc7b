package diversify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJaccard(t *testing.T) {
	for _, tc := range []struct {
		a, b []uint64
		want float64
	}{
		{nil, []uint64{1}, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{[]uint64{1, 2, 3}, []uint64{2, 3, 4, 5}, 2.0 / 5},
		{[]uint64{1, 3}, []uint64{2, 4}, 0},
	} {
		assert.Equal(t, tc.want, Jaccard(tc.a, tc.b), "%v %v", tc.a, tc.b)
		assert.Equal(t, tc.want, Jaccard(tc.b, tc.a), "symmetric")
	}
}

func TestMMR(t *testing.T) {
	// 0 and 1 are near-duplicates, 2 is different, 3 is the same item as 0.
	sets := [][]uint64{{1, 2, 3, 4}, {1, 2, 3, 5}, {7, 8}, {9}}
	scores := []float64{1, 0.95, 0.6, 0.9}
	same := func(a, b int) bool { return (a == 0 && b == 3) || (a == 3 && b == 0) || a == b }
	none := func(a, b int) bool { return a == b }
	for _, tc := range []struct {
		name   string
		k      int
		lambda float64
		same   func(a, b int) bool
		want   []int
	}{
		// λ = 0.5: after 0, 1 scores 0.5·0.95 − 0.5·0.6 = 0.175, 3 scores
		// 0.45 − 0.5 = −0.05, 2 scores 0.3: 2 comes second.
		{"diverse", 2, 0.5, same, []int{0, 2, 1, 3}},
		// λ = 0.9: relevance wins: 1 scores 0.855 − 0.06, 3 (the same item
		// as 0) 0.81 − 0.1.
		{"relevant", 2, 0.9, same, []int{0, 1, 2, 3}},
		// Choosing every candidate: after 0 and 2, 1 (0.175) beats 3 (−0.05).
		{"all", 4, 0.5, same, []int{0, 2, 1, 3}},
		// Without 3 being 0, it shares nothing with 0 (0.45 − 0): it comes
		// second, and those not chosen keep their order.
		{"distinct", 2, 0.5, none, []int{0, 3, 1, 2}},
	} {
		assert.Equal(t, tc.want, MMR(4, tc.k, scores, sets, tc.same, tc.lambda), tc.name)
	}
	// Ties go to the smaller index.
	assert.Equal(t, []int{0, 1, 2}, MMR(3, 3, []float64{1, 1, 1}, [][]uint64{{1}, {2}, {3}}, none, 0.5))
	assert.Equal(t, []int{2, 0, 1}, MMR(3, 2, []float64{0.5, 0.5, 1}, [][]uint64{{1}, {2}, {3}}, none, 0.5))
}
