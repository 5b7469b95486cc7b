package kgmem

import "github.com/kgmem/kgmem/internal/textrule"

// Tokenize splits text into the index terms kgmem's content search uses, for
// English and Chinese (and, without stop words, Japanese and Korean). The
// knowledge store tokenizes pages and queries with it, so a caller that
// tokenizes text the same way sees what the index sees.
//
// The rules, applied in order:
//
//   - Width: full-width ASCII forms (U+FF01–U+FF5E) become their ASCII
//     counterparts and the ideographic space U+3000 becomes a space, so
//     "ＡＰＩ" is "api" and "，" separates like ",".
//   - Separators: every rune that is not a Unicode letter or digit separates
//     tokens: spaces, punctuation, symbols, emoji. Bytes that are not valid
//     UTF-8 separate too; Tokenize never panics. A combining mark continues
//     the word it follows (so decomposed accents do not split a word) and
//     separates elsewhere; variation selectors (as in the emoji form of a
//     character) always separate.
//   - Case: every rune goes through Unicode simple case folding, the same
//     folding the graph uses for names and keywords.
//   - CJK: a run of Han, Hiragana, Katakana or Hangul characters is cut at
//     Chinese stop words (the multi-character ones, such as 什么, 哪些, 怎么,
//     如何, 为什么, are matched longest first; the single ones are 的 了 是 在
//     和 与 及 或 吗 呢 吧 啊 谁, with traditional forms), and each piece of
//     two or more characters becomes its overlapping character bigrams:
//     "一致性哈希" gives 一致, 致性, 性哈, 哈希. A piece of one character is a
//     one-character token. So "张三是谁" gives the single token 张三, and a
//     word that contains a stop character (目的, 现在) is cut like any other
//     run; queries are cut the same way, so they still match.
//   - Words: any other run of letters and digits is one word. A trailing
//     possessive "'s" (straight, curly or full-width apostrophe) is dropped:
//     "project's" is "project". Any other apostrophe separates.
//   - English stop words are dropped: a, an, and, are, as, at, be, been, but,
//     by, can, do, does, for, from, had, has, have, how, if, in, into, is,
//     it, its, of, on, or, s, so, such, t, than, that, the, their, then,
//     there, these, they, this, those, to, was, were, what, when, where,
//     which, who, whom, whose, why, will, with.
//   - Plurals: a word made only of the letters a–z and at least four letters
//     long loses its plural ending: "-ies" becomes "-y" (policies → policy)
//     when at least two letters precede it; "-sses", "-xes", "-ches", "-shes"
//     lose "es" (classes → class, boxes → box, matches → match) when three
//     letters remain; other words ending in "s" lose it (projects →
//     project), except those ending in "ss", "us" or "is" (class, status,
//     analysis). A word that becomes a stop word this way is dropped. The
//     rules are deliberately few: they conflate most English plurals with
//     their singular and never touch words in other scripts, words with
//     digits, or words of three letters or fewer.
//
// Every token is non-empty valid UTF-8 without separators, and tokenizing
// the tokens again, joined by spaces, gives the same tokens. Tokens that
// needed no rewriting share the input's memory (keeping one keeps the whole
// input alive; strings.Clone it to keep it alone); the result slice is the
// caller's. Tokenize is safe for concurrent use.
func Tokenize(text string) []string {
	return textrule.Tokenize(text)
}
