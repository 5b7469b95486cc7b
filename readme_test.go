package kgmem_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The README's code is compiled and its output checked: every ```go block
// is preceded by a marker naming the function it is taken from,
//
//	<!-- snippet: example_test.go#ExampleFoo -->
//
// (a path from the repository root, any module; a function that cannot
// run in go test, such as one needing a database, is marked
// "#Example compile-only: why"), and every line of the
// block, indented or not, must occur in that function's body in the same
// order; lines holding "…" stand for code the README leaves out. The
// function must be checked by a test: an Example with an "// Output:"
// comment, or the main function of an examples/ program, whose printed
// lines TestExamples checks against its testdata/want.txt. A plain ```
// block preceded by
//
//	<!-- output: example_test.go#ExampleFoo -->  or  <!-- output: examples/x/testdata/want.txt -->
//
// shows output: each of its lines must be one of the Example's "// Output:"
// lines, or a line of the want.txt file.
var (
	snippetMarker = regexp.MustCompile(`^<!-- snippet: (\S+)#(\w+)( compile-only: .+)? -->$`)
	outputMarker  = regexp.MustCompile(`^<!-- output: (\S+?)(?:#(\w+))? -->$`)
)

// readmeBlock is a fenced block of README.md.
type readmeBlock struct {
	line   int    // 1-based line of the opening fence
	lang   string // "go", "sh", "" …
	marker string // the line before the fence
	body   []string
}

func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &readmeBlock{line: n, lang: strings.TrimPrefix(line, "```"), marker: prev}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.body = append(cur.body, line)
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s: the block opened on line %d is never closed", path, cur.line)
	}
	return blocks
}

// funcBody returns the lines of the body of the function name in the Go
// file at path, and its "// Output:" lines (nil when it has none).
func funcBody(t *testing.T, path, name string) (body, output []string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != name || fn.Body == nil {
			continue
		}
		from, to := fset.Position(fn.Body.Lbrace).Offset+1, fset.Position(fn.Body.Rbrace).Offset
		body = strings.Split(string(src[from:to]), "\n")
		for i, l := range body {
			if strings.TrimSpace(l) == "// Output:" {
				output = []string{}
				for _, o := range body[i+1:] {
					o = strings.TrimSpace(o)
					if !strings.HasPrefix(o, "//") {
						break
					}
					output = append(output, strings.TrimPrefix(strings.TrimPrefix(o, "//"), " "))
				}
			}
		}
		return body, output
	}
	t.Fatalf("%s has no function %s", path, name)
	return nil, nil
}

func TestReadmeSnippets(t *testing.T) {
	checked := 0
	for _, b := range readmeBlocks(t, "README.md") {
		if m := snippetMarker.FindStringSubmatch(b.marker); m != nil {
			if b.lang != "go" {
				t.Errorf("README.md:%d: a snippet marker before a %q block", b.line, b.lang)
				continue
			}
			path, name := m[1], m[2]
			body, output := funcBody(t, path, name)
			if output == nil && m[3] == "" && !(name == "main" && strings.HasPrefix(path, "examples/")) {
				t.Errorf("README.md:%d: %s#%s is not checked by a test (no // Output:, not an examples/ program)", b.line, path, name)
			}
			var lines []string
			for _, l := range body {
				lines = append(lines, strings.TrimSpace(l))
			}
			at := 0
			for _, l := range b.body {
				l = strings.TrimSpace(l)
				if l == "" || strings.Contains(l, "…") {
					continue
				}
				i := slices.Index(lines[at:], l)
				if i < 0 {
					t.Errorf("README.md:%d: the line %q is not in %s#%s (after its line %d)", b.line, l, path, name, at)
					break
				}
				at += i + 1
			}
			checked++
			continue
		}
		if m := outputMarker.FindStringSubmatch(b.marker); m != nil {
			var want []string
			if m[2] != "" {
				_, want = funcBody(t, m[1], m[2])
				if want == nil {
					t.Errorf("README.md:%d: %s#%s has no // Output:", b.line, m[1], m[2])
				}
			} else {
				data, err := os.ReadFile(m[1])
				if err != nil {
					t.Fatal(err)
				}
				want = strings.Split(string(data), "\n")
			}
			for _, l := range b.body {
				if l = strings.TrimRight(l, " "); l != "" && !slices.Contains(want, l) {
					t.Errorf("README.md:%d: the output line %q is not checked by %s", b.line, l, strings.TrimPrefix(b.marker, "<!-- output: "))
				}
			}
			checked++
			continue
		}
		if b.lang == "go" {
			t.Errorf("README.md:%d: a Go block without a <!-- snippet: FILE#FUNC --> marker naming the checked function it comes from", b.line)
		}
	}
	if checked == 0 {
		t.Fatal("README.md has no checked block: the test checks nothing")
	}
}
