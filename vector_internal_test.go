package kgmem

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReadVectorSnapshot: reading any bytes into a store with an embedder
// either fails with ErrInvalidArgument or ErrEmbeddingModel and changes
// nothing, or reads a store whose snapshot reads back to the same bytes.
func FuzzReadVectorSnapshot(f *testing.F) {
	e := hashTestEmbedder{dims: 4}
	src := NewInMemoryKnowledgeStore(WithEmbedder(e))
	require.NoError(f, src.PutBatch(context.Background(), []KnowledgePage{
		{ID: "a", Title: "Apollo", Content: "rocket"}, {ID: "b", Content: "budget"},
	}))
	snap := storeSnapshot(f, src)
	f.Add(snap)
	f.Add([]byte(strings.Replace(string(snap), `"dimensions":4`, `"dimensions":3`, 1)))
	f.Add([]byte(strings.Replace(string(snap), `"vector":"`, `"vector":"AAAA`, 1)))
	f.Add([]byte(`{"format":"kgmem-pages","version":3,"pages":0,"model":{"name":"kgmemtest-hash-v1","dimensions":4}}` + "\n"))
	// The edits above break the checksum; these are resealed after the
	// edit, so that the lines' own checks are reached, and one is written
	// as before checksums.
	f.Add([]byte(reseal(strings.Replace(bodyOf(string(snap)), `"dimensions":4`, `"dimensions":3`, 1))))
	f.Add([]byte(reseal(strings.Replace(bodyOf(string(snap)), `"vector":"`, `"vector":"AAAA`, 1))))
	f.Add([]byte(unsealed(string(snap))))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewInMemoryKnowledgeStore(WithEmbedder(e))
		require.NoError(t, s.Put(context.Background(), KnowledgePage{ID: "before", Content: "x"}))
		before := storeSnapshot(t, s)
		_, err := s.ReadFrom(bytes.NewReader(data))
		if err != nil {
			if !strings.Contains(err.Error(), ErrEmbeddingModel.Error()) {
				require.ErrorIs(t, err, ErrInvalidArgument)
			}
			require.Equal(t, before, storeSnapshot(t, s))
			return
		}
		again := storeSnapshot(t, s)
		s2 := NewInMemoryKnowledgeStore(WithEmbedder(e))
		_, err = s2.ReadFrom(bytes.NewReader(again))
		require.NoError(t, err)
		require.Equal(t, again, storeSnapshot(t, s2))
		_, err = s.Search(context.Background(), "apollo rocket", 5)
		require.NoError(t, err)
	})
}

// TestRetrieverFindsPageByMeaning: a retriever over a store with an
// embedder returns a page that shares no term with the question.
func TestRetrieverFindsPageByMeaning(t *testing.T) {
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore(WithEmbedder(hashTestEmbedder{dims: 256}))
	require.NoError(t, s.PutBatch(ctx, []KnowledgePage{
		{ID: "n1", Content: "Alice leads the Apollo launch team."},
		{ID: "n2", Content: "Finance cut the marketing budget."},
	}))
	res, err := NewMemoryRetriever(s, RetrieverConfig{}).Retrieve(ctx, "launching")
	require.NoError(t, err)
	require.NotEmpty(t, res.Items)
	require.Equal(t, "n1", res.Items[0].Page.ID)
}
