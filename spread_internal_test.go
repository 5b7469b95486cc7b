package kgmem

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFreeTextTypes pins when SpreadAuto reads a graph's relation types as
// free text: from 50 relations, with at least 100 distinct types or more
// than one per five relations.
func TestFreeTextTypes(t *testing.T) {
	for _, tc := range []struct {
		relations, types int
		want             bool
	}{
		{49, 49, false},   // too few relations
		{50, 11, true},    // 11 > 50/5
		{50, 10, false},   // 10 = 50/5
		{1000, 99, false}, // fewer than 100 and one per ten relations
		{1000, 100, true}, // 100 types
		{1000, 201, true},
	} {
		t.Run(fmt.Sprintf("%d relations, %d types", tc.relations, tc.types), func(t *testing.T) {
			g := NewInMemoryGraph()
			var es []Entity
			var rs []Relation
			for i := 0; i <= tc.relations; i++ {
				es = append(es, Entity{ID: fmt.Sprintf("e%d", i)})
			}
			for i := 0; i < tc.relations; i++ {
				rs = append(rs, Relation{SourceID: fmt.Sprintf("e%d", i), TargetID: fmt.Sprintf("e%d", i+1), Type: fmt.Sprintf("t%d", i%tc.types)})
			}
			require.NoError(t, g.AddBatch(context.Background(), es, rs))
			require.Equal(t, tc.want, g.freeTextTypes())
		})
	}
}
