package pgraph

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/textrule"
)

// These tests need no database: they check that the derived columns never
// hide an entity kgmem would find.

// randomText builds text from pieces that exercise folding, full-width
// forms, CJK, combining marks and separators.
func randomText(rng *rand.Rand, pieces int) string {
	parts := []string{
		"Apollo", "apollo", "Apollos", "Straßes", "ＡＰＯＬＬＯ", "ａｐｏ", "张三", "张", "三丰", "负责", "项目", "？", "，", " ", "  ", "-",
		"Straße", "STRASSE", "\u212a", "k", "ſ", "S", "Σ", "ς", "σ", "e\u0301", "é", "ﬁ", "fi", "O'Brien", "x", "12",
		"\u3000", "ｘ", "Ｘ", "ｙ", "İ", "i", "ı", "Ǆ", "ǅ", "ǆ", "ᾼ", "ᾳ", "ﾃﾞ", "テ", "한국", "😀", "\ufe0f",
	}
	var b strings.Builder
	for range pieces {
		b.WriteString(parts[rng.IntN(len(parts))])
		if rng.IntN(3) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestLinkCandidatesComplete checks that every entity kgmem's in-memory
// linker finds in a text holds one of the text's span keys, so that the
// link-key query never misses an entity.
func TestLinkCandidatesComplete(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	found := 0
	for round := range 200 {
		g := kgmem.NewInMemoryGraph()
		keys := map[string][]string{}
		for i := range 30 {
			e := kgmem.Entity{ID: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Name: randomText(rng, 1+rng.IntN(3))}
			if rng.IntN(2) == 0 {
				e.Aliases = []string{randomText(rng, 1+rng.IntN(4))}
			}
			if err := g.AddEntity(ctx, e); err != nil {
				t.Fatal(err)
			}
			keys[e.ID] = entityLinkKeys(e.Name, e.Aliases)
		}
		for range 10 {
			text := randomText(rng, 1+rng.IntN(12))
			spans := textrule.LinkSpanKeys(text)
			ms, err := g.LinkEntities(ctx, text)
			if err != nil {
				t.Fatal(err)
			}
			found += len(ms)
			for _, m := range ms {
				if !slices.ContainsFunc(keys[m.Entity.ID], func(k string) bool { return slices.Contains(spans, k) }) {
					t.Fatalf("round %d: text %q links %q (name %q, aliases %q, keys %q) but its span keys %q miss every key",
						round, text, m.Entity.ID, m.Entity.Name, m.Entity.Aliases, keys[m.Entity.ID], spans)
				}
			}
		}
	}
	if found < 500 {
		t.Fatalf("only %d mentions in 2000 texts: the test exercises too little", found)
	}
	t.Logf("%d mentions checked", found)
}

// TestKeywordGramsSuperset checks that an entity matching a keyword holds
// all the keyword's grams, so that the gram query never misses an entity.
func TestKeywordGramsSuperset(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var buf []string
	for range 5000 {
		e := kgmem.Entity{ID: randomText(rng, 2), Name: randomText(rng, 3), Aliases: []string{randomText(rng, 2)}}
		tags, _ := textrule.NormalizeTags([]string{randomText(rng, 2), randomText(rng, 1)}, 8, kgmem.ErrInvalidArgument)
		e.Tags = tags
		grams, tgrams := entityGrams(e.ID, e.Name, e.Aliases, e.Tags)
		// Keywords cut from the entity's own texts, so that many match.
		texts := append([]string{e.ID, e.Name}, append(e.Aliases, e.Tags...)...)
		src := []rune(texts[rng.IntN(len(texts))])
		if len(src) == 0 {
			continue
		}
		i := rng.IntN(len(src))
		j := i + 1 + rng.IntN(min(6, len(src)-i))
		kw := strings.TrimSpace(string(src[i:j]))
		folded, err := textrule.FoldKeywords([]string{kw}, kgmem.ErrInvalidArgument)
		if err != nil || len(folded) == 0 {
			continue
		}
		if textrule.CountKeywords(folded, &buf, e.ID, e.Name, e.Aliases, e.Tags) == 0 {
			continue
		}
		kg := keywordGrams(folded[0])
		inNames := !slices.ContainsFunc(kg, func(g string) bool { _, ok := slices.BinarySearch(grams, g); return !ok })
		inTags := !slices.ContainsFunc(kg, func(g string) bool { _, ok := slices.BinarySearch(tgrams, g); return !ok })
		if !inNames && !inTags {
			t.Fatalf("entity %+v matches keyword %q (grams %q) but its grams do not hold them", e, kw, kg)
		}
	}
}
