package kgmem

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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
	return appendTokens(nil, text)
}

// appendTokens appends the tokens of text to dst and returns the extended
// slice.
func appendTokens(dst []string, text string) []string {
	t := tokenizer{text: text, out: dst}
	t.scan()
	return t.out
}

// tokenizer holds the state of one scan of text.
type tokenizer struct {
	text string
	out  []string

	// The word being read, text[wordStart:wordEnd]. When its folded form
	// differs from those bytes (changed), the folded form is in buf.
	inWord      bool
	changed     bool
	asciiLetter bool // every rune of the folded word is in a–z
	wordStart   int
	wordEnd     int
	buf         []byte

	// The CJK run being read: text[cjkStart:cjkEnd].
	inCJK    bool
	cjkStart int
	cjkEnd   int
}

const (
	fullWidthFirst  = 0xFF01 // FULLWIDTH EXCLAMATION MARK
	fullWidthLast   = 0xFF5E // FULLWIDTH TILDE
	fullWidthOffset = 0xFF01 - 0x21
	ideographicSp   = 0x3000
)

// narrow maps full-width ASCII forms and the ideographic space to ASCII.
func narrow(r rune) rune {
	switch {
	case r >= fullWidthFirst && r <= fullWidthLast:
		return r - fullWidthOffset
	case r == ideographicSp:
		return ' '
	}
	return r
}

// isCJK reports whether r belongs to a script written without spaces
// between words, whose runs Tokenize cuts into bigrams.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		r == 0x30FC // KATAKANA-HIRAGANA PROLONGED SOUND MARK
}

// isWordRune reports whether r (already narrowed) starts or continues a
// word outside CJK runs.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isApostrophe reports whether r (already narrowed) is an apostrophe that
// may introduce a possessive "'s".
func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' }

// decode returns the narrowed rune at text[i:] and its width in bytes; an
// invalid byte decodes as utf8.RuneError of width 1.
func decode(text string, i int) (rune, int) {
	c := text[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if r == utf8.RuneError && size <= 1 {
		return utf8.RuneError, 1
	}
	return narrow(r), size
}

func (t *tokenizer) scan() {
	text := t.text
	for i := 0; i < len(text); {
		r, size := decode(text, i)
		switch {
		case r == utf8.RuneError && size == 1:
			t.flush()
		case isWordRune(r) && !isCJK(r):
			t.endCJK()
			t.addWordRune(r, i, size)
		case isCJK(r):
			t.endWord()
			if !t.inCJK {
				t.inCJK, t.cjkStart = true, i
			}
			t.cjkEnd = i + size
		case t.inWord && unicode.IsMark(r) && !unicode.Is(unicode.Variation_Selector, r):
			t.addWordRune(r, i, size)
		case t.inWord && isApostrophe(r) && t.possessiveAt(i+size):
			// Skip the apostrophe and the "s" after it.
			_, s2 := decode(text, i+size)
			size += s2
			t.endWord()
		default:
			t.flush()
		}
		i += size
	}
	t.flush()
}

// possessiveAt reports whether text[i:] starts with an "s" (any case or
// width) that ends a word.
func (t *tokenizer) possessiveAt(i int) bool {
	if i >= len(t.text) {
		return false
	}
	r, size := decode(t.text, i)
	if r != 's' && r != 'S' {
		return false
	}
	if i+size >= len(t.text) {
		return true
	}
	next, _ := decode(t.text, i+size)
	if next == utf8.RuneError || isCJK(next) {
		return true
	}
	return !isWordRune(next) && (!unicode.IsMark(next) || unicode.Is(unicode.Variation_Selector, next))
}

// addWordRune appends r, found at text[i:i+size], to the current word.
func (t *tokenizer) addWordRune(r rune, i, size int) {
	if !t.inWord {
		t.inWord, t.changed, t.asciiLetter = true, false, true
		t.wordStart = i
	}
	f := foldRune(r)
	if !t.changed && (f != r || size != utf8.RuneLen(r)) {
		// The folded rune differs from the input bytes (folding changed it,
		// or it was narrowed from a wider form): from here on the word is
		// built in buf.
		t.changed = true
		t.buf = append(t.buf[:0], t.text[t.wordStart:i]...)
	}
	if t.changed {
		t.buf = utf8.AppendRune(t.buf, f)
	}
	if f < 'a' || f > 'z' {
		t.asciiLetter = false
	}
	t.wordEnd = i + size
}

func (t *tokenizer) flush() {
	t.endWord()
	t.endCJK()
}

// endWord emits the current word, if any, after the stop-word and plural
// rules.
func (t *tokenizer) endWord() {
	if !t.inWord {
		return
	}
	t.inWord = false
	var w string
	if t.changed {
		if _, stop := englishStopWords[string(t.buf)]; stop {
			return
		}
		w = string(t.buf)
	} else {
		w = t.text[t.wordStart:t.wordEnd]
		if _, stop := englishStopWords[w]; stop {
			return
		}
	}
	if t.asciiLetter {
		w = stemPlural(w)
		if _, stop := englishStopWords[w]; stop {
			return
		}
	}
	t.out = append(t.out, w)
}

// endCJK emits the tokens of the current CJK run, if any: it walks the
// run, cuts it at stop words and emits each piece's bigrams as it goes.
func (t *tokenizer) endCJK() {
	if !t.inCJK {
		return
	}
	t.inCJK = false
	text, end := t.text, t.cjkEnd
	pieceStart, prev, runes := 0, 0, 0 // the current stop-free piece
	for p := t.cjkStart; p < end; {
		if n := cjkStopAt(text[p:end]); n > 0 {
			if runes == 1 {
				t.out = append(t.out, text[pieceStart:p])
			}
			runes = 0
			p += n
			continue
		}
		_, size := utf8.DecodeRuneInString(text[p:end])
		if runes == 0 {
			pieceStart = p
		} else {
			t.out = append(t.out, text[prev:p+size])
		}
		prev = p
		runes++
		p += size
	}
	if runes == 1 {
		t.out = append(t.out, text[pieceStart:end])
	}
}

// cjkStopAt returns the length in bytes of the Chinese stop word s starts
// with, longest first, or 0.
func cjkStopAt(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	for _, w := range cjkStopWords[r] {
		if strings.HasPrefix(s, w) {
			return len(w)
		}
	}
	if _, ok := cjkStopChars[r]; ok {
		return size
	}
	return 0
}

// stemPlural applies the plural rules of Tokenize to w, a word of the
// letters a–z.
func stemPlural(w string) string {
	n := len(w)
	if n < 4 || w[n-1] != 's' {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "ies") && n >= 5:
		return w[:n-3] + "y"
	case (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") ||
		strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")) && n-2 >= 3:
		return w[:n-2]
	}
	return w[:n-1]
}

// englishStopWords is read-only.
var englishStopWords = func() map[string]struct{} {
	words := []string{
		"a", "an", "and", "are", "as", "at", "be", "been", "but", "by",
		"can", "do", "does", "for", "from", "had", "has", "have", "how",
		"if", "in", "into", "is", "it", "its", "of", "on", "or", "s", "so",
		"such", "t", "than", "that", "the", "their", "then", "there",
		"these", "they", "this", "those", "to", "was", "were", "what",
		"when", "where", "which", "who", "whom", "whose", "why", "will",
		"with",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// cjkStopChars are the single-character Chinese stop words; read-only.
var cjkStopChars = map[rune]struct{}{
	'的': {}, '了': {}, '是': {}, '在': {}, '和': {}, '与': {}, '與': {},
	'及': {}, '或': {}, '吗': {}, '嗎': {}, '呢': {}, '吧': {}, '啊': {},
	'谁': {}, '誰': {},
}

// cjkStopWords maps a first character to the multi-character Chinese stop
// words that start with it, longest first; read-only.
var cjkStopWords = map[rune][]string{
	'为': {"为什么"},
	'為': {"為什麼"},
	'什': {"什么", "什麼"},
	'甚': {"甚么", "甚麼"},
	'哪': {"哪些", "哪个", "哪個", "哪里", "哪裡"},
	'怎': {"怎么", "怎麼", "怎样", "怎樣"},
	'如': {"如何"},
	'这': {"这个", "这些"},
	'這': {"這個", "這些"},
	'那': {"那个", "那個", "那些"},
	'以': {"以及"},
	'或': {"或者"},
}
