package kgmem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchRareTerm appears in exactly benchRarePages pages of every generated
// corpus, whatever its size.
const (
	benchRareTerm  = "zqxwv"
	benchRarePages = 8
)

// benchVocabulary returns size distinct pronounceable words (consonant–vowel
// syllables, so none ends in "s" and none is changed by Tokenize).
func benchVocabulary(r *rand.Rand, size int) []string {
	const consonants, vowels = "bcdfghjklmnprtvz", "aeiou"
	seen := make(map[string]bool, size)
	words := make([]string, 0, size)
	var sb strings.Builder
	for len(words) < size {
		sb.Reset()
		for range 2 + r.IntN(3) {
			sb.WriteByte(consonants[r.IntN(len(consonants))])
			sb.WriteByte(vowels[r.IntN(len(vowels))])
		}
		w := sb.String()
		if seen[w] || len(Tokenize(w)) != 1 || Tokenize(w)[0] != w {
			continue
		}
		seen[w] = true
		words = append(words, w)
	}
	return words
}

// searchFixture builds a store of n generated pages (6-word title, 60-word
// content, words drawn from a Zipf distribution over a 20,000-word
// vocabulary) and returns it with the corpus's most frequent word. The same
// n always gives the same corpus.
func searchFixture(b *testing.B, n int) (*InMemoryKnowledgeStore, string) {
	b.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 2024))
	vocab := benchVocabulary(r, 20_000)
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))
	text := func(words int) string {
		var sb strings.Builder
		for i := range words {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[zipf.Uint64()])
		}
		return sb.String()
	}
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	for i := range n {
		content := text(60)
		if i%(n/benchRarePages) == 0 {
			content += " " + benchRareTerm
		}
		p := KnowledgePage{ID: fmt.Sprintf("page-%06d", i), Title: text(6), Content: content}
		if err := s.Put(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	return s, vocab[0]
}

// BenchmarkSearch times Search on generated corpora of increasing size. A
// rare term's cost stays flat as the corpus grows (it reads only the term's
// postings); a common term's grows with the pages that contain it.
func BenchmarkSearch(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			s, common := searchFixture(b, n)
			ctx := context.Background()
			for _, q := range []struct{ name, query string }{
				{"rare", benchRareTerm},
				{"common", common},
				{"rare+common", benchRareTerm + " " + common},
			} {
				b.Run("query="+q.name, func(b *testing.B) {
					res, err := s.Search(ctx, q.query, 10)
					if err != nil || len(res) == 0 {
						b.Fatalf("Search(%q) = %d pages, %v", q.query, len(res), err)
					}
					if q.name == "rare" && len(res) != benchRarePages {
						b.Fatalf("Search(%q) = %d pages, want %d", q.query, len(res), benchRarePages)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if _, err := s.Search(ctx, q.query, 10); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
