package vecindex

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDot checks the fixed summation order: four running sums over
// strides of eight, then the tail into the first.
func TestDot(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i] = float32(i+1) / 3
			b[i] = float32(n-i) / 7
		}
		var s [4]float32
		i := 0
		for ; i+8 <= n; i += 8 {
			for k := range 4 {
				s[k] += a[i+k]*b[i+k] + a[i+k+4]*b[i+k+4]
			}
		}
		for ; i < n; i++ {
			s[0] += a[i] * b[i]
		}
		want := (s[0] + s[1]) + (s[2] + s[3])
		require.Equal(t, math.Float32bits(want), math.Float32bits(Dot(a, b)), "n=%d", n)
	}
	assert.Equal(t, float32(11), Dot([]float32{1, 2}, []float32{3, 4, 5}), "b may be longer")
}

func TestFlat(t *testing.T) {
	f := Flat{Dims: 2}
	f.Set(2, []float32{1, 2})
	assert.Equal(t, 6, f.Len())
	assert.Equal(t, []float32{0, 0}, f.At(0), "a number never set holds zeros")
	assert.Equal(t, []float32{1, 2}, f.At(2))
	f.Set(0, []float32{3, 4})
	assert.Equal(t, []float32{3, 4}, f.At(0))
	f.Clear(2)
	assert.Equal(t, []float32{0, 0}, f.At(2))
	assert.Equal(t, []float32{3, 4}, f.At(0))
}

func TestVectorJSON(t *testing.T) {
	v := Vector{1, -0.5, float32(math.Inf(1)), math.Float32frombits(0x7fc00001)}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, `"AACAPwAAAL8AAIB/AQDAfw=="`, string(b))
	var back Vector
	require.NoError(t, json.Unmarshal(b, &back))
	require.Len(t, back, len(v))
	for i := range v {
		assert.Equal(t, math.Float32bits(v[i]), math.Float32bits(back[i]), "bit for bit")
	}
	for _, bad := range []string{`"AAA"`, `"AAA="`, `12`, `"!!!!"`} {
		assert.Error(t, json.Unmarshal([]byte(bad), &back), bad)
	}
	b, err = json.Marshal(Vector{})
	require.NoError(t, err)
	assert.Equal(t, `""`, string(b))
}

// TestUnit: a vector scaled to unit length, each value times 1/√(sum of
// squares in float64); the first NaN or infinite value by index; a zero
// vector gives nil with zero set.
func TestUnit(t *testing.T) {
	u, bad, zero := Unit([]float32{3, 4})
	if bad != -1 || zero || len(u) != 2 || u[0] != float32(3.0/5) || u[1] != float32(4.0/5) {
		t.Fatalf("Unit(3, 4) = %v, %d, %v", u, bad, zero)
	}
	for _, tc := range []struct {
		v    []float32
		bad  int
		zero bool
	}{
		{[]float32{1, float32(math.NaN()), float32(math.Inf(1))}, 1, false},
		{[]float32{float32(math.Inf(-1))}, 0, false},
		{[]float32{0, 0}, -1, true},
		{nil, -1, true},
	} {
		u, bad, zero := Unit(tc.v)
		if u != nil || bad != tc.bad || zero != tc.zero {
			t.Errorf("Unit(%v) = %v, %d, %v; want nil, %d, %v", tc.v, u, bad, zero, tc.bad, tc.zero)
		}
	}
}
