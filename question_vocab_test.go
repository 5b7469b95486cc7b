package kgmem_test

import (
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// TestRetrieveRepeatedPhraseIsTheSameMention checks that registering
// phrases that repeat what relation names already say ("directed" for
// directed, "written by" for writer, "starred" for acted_in) leaves the
// answer as it is without a vocabulary: each phrase is the same mention as
// the name's own match of the same words, not a second reading that pulls
// the walk out of the question's order.
func TestRetrieveRepeatedPhraseIsTheSameMention(t *testing.T) {
	// Mei starred in Harbour, which Dana directed and Will wrote. Dana
	// wrote Lantern (the question's walk: starred, then directors, then
	// written), and Will directed Orbit (the same words walked out of
	// order: starred, written, directors).
	g := answerGraph(t, map[string]string{
		"Mei": "person", "Dana": "person", "Will": "person",
		"Harbour": "movie", "Lantern": "movie", "Orbit": "movie",
	},
		[3]string{"Mei", "acted_in", "Harbour"},
		[3]string{"Dana", "directed", "Harbour"},
		[3]string{"Harbour", "writer", "Will"},
		[3]string{"Lantern", "writer", "Dana"},
		[3]string{"Will", "directed", "Orbit"},
	)
	repeats := kgmem.Vocabulary{Relations: map[string][]string{
		"directed": {"directed", "director"},
		"writer":   {"writer", "written by"},
		"acted_in": {"acted in", "starred"},
	}}
	tests := []struct{ question, want string }{
		{"List the films written by the directors of the films starred by Mei", "Lantern"},
		{"which films were written by the director of the films Mei starred in?", "Lantern"},
		{"who directed Harbour?", "Dana"},
		{"who wrote Lantern?", "Dana"},
	}
	plain := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	vocab := graphOnlyRetriever(g, kgmem.RetrieverConfig{Vocabulary: repeats})
	for _, tc := range tests {
		got, why := firstAnswer(t, plain, tc.question)
		require.Equal(t, tc.want, got, "without a vocabulary: %s: %s", tc.question, why)
		got, why = firstAnswer(t, vocab, tc.question)
		require.Equal(t, tc.want, got, "with a vocabulary that repeats the names: %s: %s", tc.question, why)
	}
}
