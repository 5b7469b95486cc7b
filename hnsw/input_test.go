package hnsw_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/hnsw"
	"github.com/kgmem/kgmem/internal/vectest"
	"github.com/stretchr/testify/require"
)

// TestAnyInput: no input makes an Index panic. A vector of the wrong
// dimensions deletes its ID; a query of the wrong dimensions is an error
// wrapping kgmem.ErrInvalidArgument; vectors of no dimensions, NaN values,
// the largest k and the largest Options work.
func TestAnyInput(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	x := hnsw.New(4, hnsw.Options{})
	x.Add("a", vectest.Unit(r, 4))
	x.Add("b", vectest.Unit(r, 4))
	x.Add("a", []float32{1, 0})
	require.Equal(t, 1, x.Len())
	got, err := x.Search(vectest.Unit(r, 4), 5)
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, got)
	_, err = x.Search([]float32{1}, 5)
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)

	x.Add("nan", []float32{float32(math.NaN()), 0, 0, 0})
	_, err = x.Search([]float32{float32(math.NaN()), 0, 0, 0}, 5)
	require.NoError(t, err)
	got, err = x.Search(vectest.Unit(r, 4), math.MaxInt)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"b", "nan"}, got)

	empty := hnsw.New(0, hnsw.Options{})
	empty.Add("a", nil)
	empty.Add("b", []float32{})
	got, err = empty.Search(nil, 5)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, got, "vectors of no dimensions are all the same")
	empty.Delete("a")
	empty.Delete("b")
	require.Equal(t, 0, empty.Len())

	negative := hnsw.New(-3, hnsw.Options{})
	negative.Add("a", nil)
	require.Equal(t, 0, negative.Len())
	_, err = negative.Search(nil, 1)
	require.NoError(t, err)

	huge := hnsw.New(4, hnsw.Options{M: math.MaxInt, EfConstruction: math.MaxInt, EfSearch: math.MaxInt, Seed: math.MaxUint64})
	for i := range 50 {
		huge.Add(fmt.Sprint(i), vectest.Unit(r, 4))
	}
	for i := range 25 {
		huge.Delete(fmt.Sprint(i))
	}
	got, err = huge.Search(vectest.Unit(r, 4), math.MaxInt)
	require.NoError(t, err)
	require.Len(t, got, 25)
}
