package textrule

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only spaces", "  \t\n ", nil},
		{"english words", "Hello, World!", []string{"hello", "world"}},
		{"case folding", "KUBERNETES Kubernetes kubernetes", []string{"kubernete", "kubernete", "kubernete"}},
		{"stop words", "What is the status of the project?", []string{"status", "project"}},
		{"only stop words", "what is the", nil},
		{"who works on", "who works on Project Apollo?", []string{"work", "project", "apollo"}},
		{"plural s", "projects pages rates", []string{"project", "page", "rate"}},
		{"plural ies", "policies entities", []string{"policy", "entity"}},
		{"plural sses", "classes glasses", []string{"class", "glass"}},
		{"plural xes ches shes", "boxes matches wishes", []string{"box", "match", "wish"}},
		{"axes keeps three letters", "axes", []string{"axe"}},
		{"ties is short for ies", "ties", []string{"tie"}},
		{"ss us is endings kept", "class status analysis", []string{"class", "status", "analysis"}},
		{"short words kept", "gas bus", []string{"gas", "bus"}},
		{"plural becomes stop word", "thes", nil},
		{"digits not stemmed", "1990s gpt4s", []string{"1990s", "gpt4s"}},
		{"non-ascii not stemmed", "cafés", []string{"cafés"}},
		{"possessive", "the project's owner", []string{"project", "owner"}},
		{"possessive curly", "Alice’s notes", []string{"alice", "note"}},
		{"possessive upper", "ALICE'S", []string{"alice"}},
		{"plural possessive", "the projects' owners", []string{"project", "owner"}},
		{"possessive before han", "Go's语言", []string{"go", "语言"}},
		{"contraction", "don't stop", []string{"don", "stop"}},
		{"apostrophe not possessive", "rock'n'roll", []string{"rock", "n", "roll"}},
		{"apostrophe s inside word", "o'sullivan", []string{"o", "sullivan"}},
		{"digits", "version 2.0 of gpt4", []string{"version", "2", "0", "gpt4"}},
		{"punctuation", "foo-bar_baz/qux:quux", []string{"foo", "bar", "baz", "qux", "quux"}},
		{"chinese bigrams", "一致性哈希", []string{"一致", "致性", "性哈", "哈希"}},
		{"single han", "云", []string{"云"}},
		{"two han", "项目", []string{"项目"}},
		{"han split by stop char", "张三是谁", []string{"张三"}},
		{"han stop words", "张三负责什么项目？", []string{"张三", "三负", "负责", "项目"}},
		{"longest stop word first", "为什么失败", []string{"失败"}},
		{"single han left by stop", "我的书", []string{"我", "书"}},
		{"only chinese stop words", "的了吗是什么", nil},
		{"traditional stop words", "這個系統為什麼慢", []string{"系統", "慢"}},
		{"mixed go chinese", "Go语言的并发模型", []string{"go", "语言", "并发", "发模", "模型"}},
		{"mixed with digits", "2024年发布v2版本", []string{"2024", "年发", "发布", "v2", "版本"}},
		{"full-width letters", "ＡＰＩ", []string{"api"}},
		{"full-width punctuation", "ＡＰＩ，ｇａｔｅｗａｙ！", []string{"api", "gateway"}},
		{"full-width digits", "ｖ１２", []string{"v12"}},
		{"ideographic space", "数据　库", []string{"数据", "库"}},
		{"chinese punctuation", "缓存、索引。检索！", []string{"缓存", "索引", "检索"}},
		{"emoji", "I ❤️ Go 🚀 fast", []string{"i", "go", "fast"}},
		{"emoji between han", "数据🚀库", []string{"数据", "库"}},
		{"invalid utf8", "ab\xffcd", []string{"ab", "cd"}},
		{"invalid utf8 in han", "一致\xff性哈希", []string{"一致", "性哈", "哈希"}},
		{"truncated han", "\xe4\xb8", nil},
		{"combining mark continues word", "cafe\u0301 ok", []string{"cafe\u0301", "ok"}},
		{"leading mark separates", "\u0301abc", []string{"abc"}},
		{"variation selector separates", "go\ufe0f 1\ufe0f\u20e3", []string{"go", "1"}},
		{"greek folding", "ΣΟΦΙΑ σοφια", []string{Fold("σοφια"), Fold("σοφια")}},
		{"katakana", "カタカナ", []string{"カタ", "タカ", "カナ"}},
		{"hangul", "한국어", []string{"한국", "국어"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Tokenize(tc.in), "Tokenize(%q)", tc.in)
		})
	}
}

func TestTokenizeSharesInputMemory(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		_ = AppendTokens(make([]string, 0, 16), "distributed consensus 一致性哈希 raft")
	})
	// Only the result slice, which is preallocated here: tokens are slices
	// of the input.
	assert.LessOrEqual(t, allocs, 1.0)
}

func TestTokenizeIdempotent(t *testing.T) {
	for _, in := range []string{
		"The projects' policies and classes of Go语言的并发模型",
		"ＡＰＩ，ｇａｔｅｗａｙ don't ΣΟΦΙΑ ΙΩΝ ι cafe\u0301",
		"张三负责什么项目？为什么 1990s",
	} {
		toks := Tokenize(in)
		require.NotEmpty(t, toks)
		assert.Equal(t, toks, Tokenize(strings.Join(toks, " ")), "input %q", in)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", "Hello, World!", "project's policies", "一致性哈希", "Go语言的并发模型",
		"ＡＰＩ，ｇａｔｅｗａｙ", "张三是谁", "ab\xffcd", "\xe4\xb8", "I ❤️ Go",
		"cafe\u0301", "ΙΩΝ", "为什么什什么", "O'S", "x's\u0301",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		toks := Tokenize(in)
		for _, tok := range toks {
			if tok == "" {
				t.Fatalf("Tokenize(%q) has an empty token: %q", in, toks)
			}
			if !utf8.ValidString(tok) {
				t.Fatalf("Tokenize(%q) has an invalid token %q", in, tok)
			}
			if strings.ContainsAny(tok, " \t\n'") {
				t.Fatalf("Tokenize(%q) has token %q with a separator", in, tok)
			}
		}
		again := Tokenize(strings.Join(toks, " "))
		if len(again) != len(toks) {
			t.Fatalf("Tokenize(%q) = %q, but tokenizing its tokens gives %q", in, toks, again)
		}
		for i := range toks {
			if toks[i] != again[i] {
				t.Fatalf("Tokenize(%q) = %q, but tokenizing its tokens gives %q", in, toks, again)
			}
		}
	})
}
