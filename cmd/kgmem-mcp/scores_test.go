package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// related and paths give each score rounded to 4 decimals, in their
// structured result and, with 4 decimals written, in their text, where
// the product of the weights has more digits.
func TestScoresRounded(t *testing.T) {
	cs := connect(t, openMemory(t))
	call(t, cs, "remember", map[string]any{"page_id": "p", "content": "Ann knows Bo, who works with Cy.", "extraction": map[string]any{
		"entities": []any{map[string]any{"name": "Ann"}, map[string]any{"name": "Bo"}, map[string]any{"name": "Cy"}},
		"relations": []any{
			map[string]any{"source": "Ann", "type": "knows", "target": "Bo", "weight": 0.7},
			map[string]any{"source": "Bo", "type": "works_with", "target": "Cy", "weight": 0.95},
		}}}, nil)
	// The raw product, which the tools round.
	w1, w2 := 0.7, 0.95
	raw := w1 * w2
	require.NotEqual(t, 0.665, raw)
	assert.Equal(t, 0.665, round4(raw))

	var rel RelatedOutput
	text := call(t, cs, "related", map[string]any{"entity_id": "Ann", "depth": 2}, &rel)
	require.Len(t, rel.Entities, 2)
	assert.Equal(t, []float64{0.7, 0.665}, []float64{rel.Entities[0].Score, rel.Entities[1].Score})
	assert.Equal(t, "0.7000 Ann —knows→ Bo [entity:bo]\n0.6650 Ann —knows→ Bo —works_with→ Cy [entity:cy]\n", text)

	var ps PathsOutput
	text = call(t, cs, "paths", map[string]any{"from": "Ann", "to": "Cy"}, &ps)
	require.Len(t, ps.Paths, 1)
	assert.Equal(t, 0.665, ps.Paths[0].Score)
	assert.Equal(t, "0.6650 Ann —knows→ Bo —works_with→ Cy\n", text)

	// recall's item scores have at most 4 decimals.
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "Who does Ann know?"}, &rec)
	require.NotEmpty(t, rec.Items)
	for _, it := range rec.Items {
		assert.Equal(t, math.Round(it.Score*10000)/10000, it.Score, it.ID)
	}

	for x, want := range map[float64]float64{0: 0, 1: 1, 0.12344: 0.1234, 0.12345678: 0.1235, 1e-5: 0} {
		assert.Equal(t, want, round4(x), "%v", x)
	}
}
