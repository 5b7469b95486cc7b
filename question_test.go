package kgmem

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVocabularyValidate(t *testing.T) {
	require.NoError(t, Vocabulary{}.validate())
	require.NoError(t, Vocabulary{Relations: map[string][]string{"directed_by": {"direct", "导演"}}}.validate())
	for _, v := range []Vocabulary{
		{Relations: map[string][]string{" ": {"x"}}},
		{InverseRelations: map[string][]string{"parent": {"son", "\xff"}}},
		{Types: map[string][]string{"\xfe": {"film"}}},
	} {
		require.ErrorIs(t, v.validate(), ErrInvalidArgument)
	}
}
