package kgmemtest_test

import (
	"context"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

func TestHashEmbedder(t *testing.T) {
	ctx := context.Background()
	var zero kgmemtest.HashEmbedder
	require.Equal(t, kgmem.EmbeddingModel{Name: kgmemtest.HashEmbedderName, Dimensions: kgmemtest.DefaultHashDimensions}, zero.Model())
	e := kgmemtest.HashEmbedder{Dimensions: 32}
	a, err := e.Embed(ctx, []string{"Project Apollo", "project apollo!", "", "budget"})
	require.NoError(t, err)
	require.Len(t, a, 4)
	b, err := e.Embed(ctx, []string{"Project Apollo"})
	require.NoError(t, err)
	require.Equal(t, a[0], b[0], "deterministic")
	require.Equal(t, a[0], a[1], "case and punctuation do not count")
	require.NotEqual(t, a[0], a[3])
	for _, v := range a {
		require.Len(t, v, 32)
		n := float32(0)
		for _, x := range v {
			n += x * x
		}
		require.InDelta(t, 1, n, 1e-5, "unit length, even for empty text")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = e.Embed(cancelled, []string{"x"})
	require.ErrorIs(t, err, context.Canceled)
}
