package textrule

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenize splits text into the index terms of kgmem's content search:
// the rules documented on kgmem.Tokenize (width, separators, case, CJK
// bigrams cut at Chinese stop words, English stop words, plurals). Tokens
// that needed no rewriting share the input's memory; the result slice is
// the caller's.
func Tokenize(text string) []string {
	return AppendTokens(nil, text)
}

// AppendTokens appends the tokens of text, as Tokenize cuts them, to dst
// and returns the extended slice.
func AppendTokens(dst []string, text string) []string {
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

// IsCJK reports whether r belongs to a script written without spaces
// between words (Han, Hiragana, Katakana, Hangul and the prolonged sound
// mark), whose runs Tokenize cuts into bigrams and linking into one unit per
// character.
func IsCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		r == 0x30FC // KATAKANA-HIRAGANA PROLONGED SOUND MARK
}

// IsWordRune reports whether r (already narrowed) starts or continues a
// word outside CJK runs: a Unicode letter or digit.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isApostrophe reports whether r (already narrowed) is an apostrophe that
// may introduce a possessive "'s".
func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' }

// Decode returns the narrowed rune at text[i:] (see Narrow) and its width
// in bytes; an invalid byte decodes as utf8.RuneError of width 1.
func Decode(text string, i int) (rune, int) {
	c := text[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if r == utf8.RuneError && size <= 1 {
		return utf8.RuneError, 1
	}
	return Narrow(r), size
}

func (t *tokenizer) scan() {
	text := t.text
	for i := 0; i < len(text); {
		r, size := Decode(text, i)
		switch {
		case r == utf8.RuneError && size == 1:
			t.flush()
		case IsWordRune(r) && !IsCJK(r):
			t.endCJK()
			t.addWordRune(r, i, size)
		case IsCJK(r):
			t.endWord()
			if !t.inCJK {
				t.inCJK, t.cjkStart = true, i
			}
			t.cjkEnd = i + size
		case t.inWord && unicode.IsMark(r) && !unicode.Is(unicode.Variation_Selector, r):
			t.addWordRune(r, i, size)
		case t.inWord && isApostrophe(r) && t.possessiveAt(i+size):
			// Skip the apostrophe and the "s" after it.
			_, s2 := Decode(text, i+size)
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
	r, size := Decode(t.text, i)
	if r != 's' && r != 'S' {
		return false
	}
	if i+size >= len(t.text) {
		return true
	}
	next, _ := Decode(t.text, i+size)
	if next == utf8.RuneError || IsCJK(next) {
		return true
	}
	return !IsWordRune(next) && (!unicode.IsMark(next) || unicode.Is(unicode.Variation_Selector, next))
}

// addWordRune appends r, found at text[i:i+size], to the current word.
func (t *tokenizer) addWordRune(r rune, i, size int) {
	if !t.inWord {
		t.inWord, t.changed, t.asciiLetter = true, false, true
		t.wordStart = i
	}
	f := FoldRune(r)
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

// IsStopWord reports whether the folded word w is one of the English stop
// words Tokenize drops.
func IsStopWord(w string) bool {
	_, stop := englishStopWords[w]
	return stop
}

// IsCJKStopChar reports whether r is one of the single-character Chinese
// stop words at which Tokenize cuts a CJK run.
func IsCJKStopChar(r rune) bool {
	_, stop := cjkStopChars[r]
	return stop
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
