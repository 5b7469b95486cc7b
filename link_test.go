package kgmem_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// keywordOnlyGraph hides InMemoryGraph's EntityLinker so that linking has to
// go through FindByKeywords.
type keywordOnlyGraph struct{ kgmem.KnowledgeGraph }

func linkGraph(t *testing.T, entities ...kgmem.Entity) *kgmem.InMemoryGraph {
	t.Helper()
	g := kgmem.NewInMemoryGraph()
	for _, e := range entities {
		require.NoError(t, g.AddEntity(context.Background(), e))
	}
	return g
}

type linked struct {
	ID      string
	Text    string
	Alias   bool
	Quality float64
}

func summarize(ms []kgmem.EntityMention, text string) []linked {
	var out []linked
	for _, m := range ms {
		if text[m.Start:m.End] != m.Text {
			panic("mention offsets do not match its text")
		}
		out = append(out, linked{m.Entity.ID, m.Text, m.Alias, m.Quality})
	}
	return out
}

func TestLinkEntities(t *testing.T) {
	g := linkGraph(t,
		kgmem.Entity{ID: "p:zs", Name: "张三"},
		kgmem.Entity{ID: "p:zsf", Name: "张三丰"},
		kgmem.Entity{ID: "prj:a", Name: "项目A"},
		kgmem.Entity{ID: "project:apollo", Name: "Project Apollo", Aliases: []string{"Apollo"}},
		kgmem.Entity{ID: "lang:go", Name: "Go"},
		kgmem.Entity{ID: "god:apollo", Name: "Phoebus", Aliases: []string{"apollo"}},
		kgmem.Entity{ID: "k8s", Name: "Kubernetes", Aliases: []string{"K8s"}},
		kgmem.Entity{ID: "song", Name: "Believe"},
		kgmem.Entity{ID: "gw", Name: "ＡＰＩ Gateway"},
		kgmem.Entity{ID: "album", Name: "BELIEVE"},
		kgmem.Entity{ID: "p:ak", Name: "Akinoshū Kenji"},
	)
	tests := []struct {
		text string
		want []linked
	}{
		{"张三负责什么项目？", []linked{{"p:zs", "张三", false, 1}}},
		{"张三丰是谁", []linked{{"p:zsf", "张三丰", false, 1}}},
		{"who works on project apollo", []linked{{"project:apollo", "project apollo", false, 1}}},
		{"Who works on PROJECT   APOLLO?", []linked{{"project:apollo", "PROJECT   APOLLO", false, 1}}},
		// "apollo" alone is an alias of two entities: the evidence is split,
		// unless the text spells one of the aliases exactly.
		{"tell me about APOLLO", []linked{{"god:apollo", "APOLLO", true, 0.45}, {"project:apollo", "APOLLO", true, 0.45}}},
		{"tell me about apollo", []linked{{"god:apollo", "apollo", true, 0.9}}},
		{"does google use go?", []linked{{"lang:go", "go", false, 1}}},
		{"googlers", nil},
		{"张三和项目A", []linked{{"p:zs", "张三", false, 1}, {"prj:a", "项目A", false, 1}}},
		{"Ｋ８ｓ cluster", []linked{{"k8s", "Ｋ８ｓ", true, 0.9}}},
		// A full-width name links from ASCII text, by both paths.
		{"where are the api gateway docs", []linked{{"gw", "api gateway", false, 1}}},
		{"", nil},
		{"？！…", nil},
		// Several entities bear the words: the one spelled as written wins;
		// spelled differently from all of them, they share the mention.
		{"who sang Believe", []linked{{"song", "Believe", false, 1}}},
		{"BELIEVE charts", []linked{{"album", "BELIEVE", false, 1}}},
		{"believe it", []linked{{"album", "believe", false, 0.5}, {"song", "believe", false, 0.5}}},
		// A plural links the entity named in the singular, as an alias
		// would.
		{"what do the project apollos need", []linked{{"project:apollo", "project apollos", false, 0.9}}},
		{"the gateways", nil},
		// Accents of Latin letters do not matter.
		{"who is Akinoshu Kenji", []linked{{"p:ak", "Akinoshu Kenji", false, 1}}},
		{"PROJECT APÓLLO", []linked{{"project:apollo", "PROJECT APÓLLO", false, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := g.LinkEntities(context.Background(), tt.text)
			require.NoError(t, err)
			require.Equal(t, tt.want, summarize(got, tt.text))
			fallback, err := kgmem.LinkWithKeywords(context.Background(), keywordOnlyGraph{g}, tt.text)
			require.NoError(t, err)
			require.Equal(t, tt.want, summarize(fallback, tt.text), "FindByKeywords fallback")
		})
	}
	_, err := g.LinkEntities(context.Background(), "\xff")
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = g.LinkEntities(ctx, "张三")
	require.ErrorIs(t, err, context.Canceled)
}

func TestLinkEntitiesFollowsWrites(t *testing.T) {
	ctx := context.Background()
	g := linkGraph(t, kgmem.Entity{ID: "x", Name: "Old Name", Aliases: []string{"Nick"}})
	link := func(text string) []string {
		ms, err := g.LinkEntities(ctx, text)
		require.NoError(t, err)
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.Entity.ID)
		}
		return ids
	}
	require.Equal(t, []string{"x"}, link("old name"))
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "x", Name: "New Name"}))
	require.Empty(t, link("old name"))
	require.Empty(t, link("nick"))
	require.Equal(t, []string{"x"}, link("the new name"))
	require.NoError(t, g.RemoveEntity(ctx, "x"))
	require.Empty(t, link("new name"))
}

// TestLinkEntitiesMatchesFallback checks on random vocabularies that the
// indexed linker and the FindByKeywords fallback agree.
func TestLinkEntitiesMatchesFallback(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"alpha", "Beta", "gamma", "张", "三", "丰", "项目", "A", "go", "Go"}
	phrase := func(n int) string {
		var parts []string
		for range n {
			parts = append(parts, words[rng.IntN(len(words))])
		}
		sep := []string{" ", "", "-", "、"}[rng.IntN(4)]
		return strings.Join(parts, sep)
	}
	for round := range 200 {
		g := kgmem.NewInMemoryGraph()
		for i := range 1 + rng.IntN(8) {
			e := kgmem.Entity{ID: fmt.Sprintf("e%d", i), Name: phrase(1 + rng.IntN(3))}
			if rng.IntN(2) == 0 {
				e.Aliases = []string{phrase(1 + rng.IntN(2))}
			}
			require.NoError(t, g.AddEntity(ctx, e))
		}
		for range 5 {
			text := phrase(1 + rng.IntN(6))
			want, err := g.LinkEntities(ctx, text)
			require.NoError(t, err)
			got, err := kgmem.LinkWithKeywords(ctx, keywordOnlyGraph{g}, text)
			require.NoError(t, err)
			require.Equal(t, summarize(want, text), summarize(got, text), "round %d text %q", round, text)
		}
	}
}

func TestLinkEntitiesNamesWithJointsAndLongNames(t *testing.T) {
	long := "Dr. Strangelove or How I Learned to Stop Worrying and Love the Bomb and Other Stories of the Long Cold War"
	g := linkGraph(t,
		kgmem.Entity{ID: "spidey", Name: "Spider-Man: Far Away"},
		kgmem.Entity{ID: "oceans", Name: "Ocean's Twelve"},
		kgmem.Entity{ID: "walle", Name: "WALL·E"},
		kgmem.Entity{ID: "long", Name: long},
		kgmem.Entity{ID: "eclipse-film", Name: "The Eclipse"},
		kgmem.Entity{ID: "eclipse-ide", Name: "Eclipse"},
	)
	tests := []struct {
		text string
		want []linked
	}{
		// A name's words joined by a hyphen, apostrophe or dot are also
		// found run together, and as written.
		{"who directed spiderman far away", []linked{{"spidey", "spiderman far away", false, 1}}},
		{"who directed spider-man: far away", []linked{{"spidey", "spider-man: far away", false, 1}}},
		{"cast of oceans twelve", []linked{{"oceans", "oceans twelve", false, 1}}},
		{"cast of Ocean's Twelve", []linked{{"oceans", "Ocean's Twelve", false, 1}}},
		{"is walle good", []linked{{"walle", "walle", false, 1}}},
		// Names of up to 64 words and CJK characters link (22 here).
		{"who wrote " + strings.ToLower(long) + "?", []linked{{"long", strings.ToLower(long), false, 1}}},
		// A longer match spelled otherwise than the text keeps an exactly
		// spelled nested match, capitals included, as an alternative...
		{"what is the Eclipse's license", []linked{{"eclipse-film", "the Eclipse", false, 1}, {"eclipse-ide", "Eclipse", false, 1}}},
		// ...but not when the longer one is spelled exactly, nor for a
		// nested match in lower case, which says nothing more.
		{"what is The Eclipse about", []linked{{"eclipse-film", "The Eclipse", false, 1}}},
		{"what is the eclipse about", []linked{{"eclipse-film", "the eclipse", false, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := g.LinkEntities(context.Background(), tt.text)
			require.NoError(t, err)
			require.Equal(t, tt.want, summarize(got, tt.text))
			fallback, err := kgmem.LinkWithKeywords(context.Background(), keywordOnlyGraph{g}, tt.text)
			require.NoError(t, err)
			require.Equal(t, tt.want, summarize(fallback, tt.text), "FindByKeywords fallback")
		})
	}
}
