package kgmem_test

import (
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// TestRetrieveMainVerbIsTheOutermostHop checks that a question asked with
// do-support ("what films did … direct") reads its final verb as the last
// hop, after the relations named before the entity, nearest first.
func TestRetrieveMainVerbIsTheOutermostHop(t *testing.T) {
	// The question's walk: Nick scripted Harbour, Cara is in its cast,
	// Cara directed Lantern. The same words out of order: Nick directed
	// Orbit, Dan is in its cast, Dan scripted Quill.
	g := answerGraph(t, map[string]string{
		"Nick": "person", "Cara": "person", "Dan": "person",
		"Harbour": "movie", "Lantern": "movie", "Orbit": "movie", "Quill": "movie",
	},
		[3]string{"Harbour", "writer", "Nick"},
		[3]string{"Cara", "acted_in", "Harbour"},
		[3]string{"Cara", "directed", "Lantern"},
		[3]string{"Nick", "directed", "Orbit"},
		[3]string{"Dan", "acted_in", "Orbit"},
		[3]string{"Quill", "writer", "Dan"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{})
	for _, question := range []string{
		"What films did the cast of the films scripted by Nick direct?",
		"which movies have the actors in the films written by Nick directed",
	} {
		got, why := firstAnswer(t, r, question)
		require.Equal(t, "Lantern", got, "%s: %s", question, why)
		require.Contains(t, why, "Nick ←writer— Harbour ←acted_in— Cara —directed→ Lantern", question)
	}
}

// TestRetrieveRelationNounBeforeOfAsksForAHop checks that a noun before
// "of" that names a relation ("the producers of …") asks for a hop of its
// own even though it also names the answer's type: a shorter walk that
// lands on an entity of that type without walking the relation does not
// outrank the walk that does.
func TestRetrieveRelationNounBeforeOfAsksForAHop(t *testing.T) {
	// Will wrote Harbour, which Pam produced; Will wrote with Zed.
	g := answerGraph(t, map[string]string{"Harbour": "movie", "Will": "person", "Pam": "person", "Zed": "person"},
		[3]string{"Harbour", "writer", "Will"},
		[3]string{"Harbour", "producer", "Pam"},
		[3]string{"Will", "wrote_with", "Zed"},
	)
	r := graphOnlyRetriever(g, kgmem.RetrieverConfig{Vocabulary: kgmem.Vocabulary{Types: map[string][]string{"person": {"producer"}}}})
	got, why := firstAnswer(t, r, "tell me the producers of the films Will wrote")
	require.Equal(t, "Pam", got, why)
	got, why = firstAnswer(t, r, "which producer did Will write with?")
	require.Equal(t, "Zed", got, why)
}
