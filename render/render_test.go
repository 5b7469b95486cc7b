package render_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/kgmem/kgmem/render"
)

var updateGraph = flag.Bool("update-graph", false, "rewrite docs/graph.dot (and docs/graph.svg when Graphviz is installed)")

// ---------------------------------------------------------------------------
// A recursive-descent parser for the DOT subset DOT emits:
//
//	graph     = ("digraph" | "graph") [ID] "{" { stmt [";"] } "}"
//	stmt      = attr_stmt | edge_stmt | node_stmt
//	attr_stmt = ("graph" | "node" | "edge") attr_list
//	edge_stmt = ID "->" ID [attr_list]
//	node_stmt = ID [attr_list]
//	attr_list = "[" [ ID "=" ID { ("," | ";") ID "=" ID } ] "]"
//	ID        = identifier | quoted string
//
// Quoted strings may hold the escapes \\ \" \n \r \t \uXXXX and nothing
// else; a raw control character inside one is an error.

type dotGraph struct {
	directed bool
	name     string
	defaults map[string]map[string]string // "graph", "node", "edge"
	nodes    []dotNode
	edges    []dotEdge
}

type dotNode struct {
	id    string
	attrs map[string]string
}

type dotEdge struct {
	from, to string
	attrs    map[string]string
}

type dotToken struct {
	kind   byte // 'i' identifier, 'q' quoted string, or the punctuation itself ('-' for "->")
	text   string
	offset int
}

func lexDOT(src string) ([]dotToken, error) {
	var toks []dotToken
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case strings.ContainsRune("{}[]=;,", rune(c)):
			toks = append(toks, dotToken{kind: c, text: string(c), offset: i})
			i++
		case strings.HasPrefix(src[i:], "->"):
			toks = append(toks, dotToken{kind: '-', text: "->", offset: i})
			i += 2
		case c == '"':
			s, n, err := unquoteDOT(src[i:])
			if err != nil {
				return nil, fmt.Errorf("offset %d: %w", i, err)
			}
			toks = append(toks, dotToken{kind: 'q', text: s, offset: i})
			i += n
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, dotToken{kind: 'i', text: src[i:j], offset: i})
			i = j
		default:
			return nil, fmt.Errorf("offset %d: unexpected %q", i, src[i:min(len(src), i+10)])
		}
	}
	return toks, nil
}

// unquoteDOT reads the quoted string at the start of s and returns its
// value and the number of bytes it took.
func unquoteDOT(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return "", 0, errors.New("invalid UTF-8 in quoted string")
		case r == '"':
			return b.String(), i + 1, nil
		case unicode.IsControl(r):
			return "", 0, fmt.Errorf("raw control character %U in quoted string", r)
		case r != '\\':
			b.WriteRune(r)
			i += size
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch e := s[i+1]; e {
		case '\\', '"':
			b.WriteByte(e)
			i += 2
		case 'n':
			b.WriteByte('\n')
			i += 2
		case 'r':
			b.WriteByte('\r')
			i += 2
		case 't':
			b.WriteByte('\t')
			i += 2
		case 'u':
			if i+6 > len(s) {
				return "", 0, errors.New("short \\u escape")
			}
			v, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
			if err != nil {
				return "", 0, fmt.Errorf("bad \\u escape %q", s[i:i+6])
			}
			b.WriteRune(rune(v))
			i += 6
		default:
			return "", 0, fmt.Errorf("unknown escape \\%c", e)
		}
	}
	return "", 0, errors.New("unterminated quoted string")
}

type dotParser struct {
	toks []dotToken
	pos  int
}

func (p *dotParser) peek() dotToken {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return dotToken{kind: 0, offset: -1}
}

func (p *dotParser) next() dotToken {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

func (p *dotParser) expect(kind byte) (dotToken, error) {
	t := p.next()
	if t.kind != kind {
		return t, fmt.Errorf("offset %d: want %q, got %q", t.offset, kind, t.text)
	}
	return t, nil
}

func (p *dotParser) id() (string, error) {
	t := p.next()
	if t.kind != 'i' && t.kind != 'q' {
		return "", fmt.Errorf("offset %d: want an ID, got %q", t.offset, t.text)
	}
	return t.text, nil
}

func (p *dotParser) attrList() (map[string]string, error) {
	attrs := map[string]string{}
	for p.peek().kind == '[' {
		p.next()
		for p.peek().kind != ']' {
			k, err := p.id()
			if err != nil {
				return nil, err
			}
			if _, err := p.expect('='); err != nil {
				return nil, err
			}
			v, err := p.id()
			if err != nil {
				return nil, err
			}
			if _, dup := attrs[k]; dup {
				return nil, fmt.Errorf("attribute %q set twice", k)
			}
			attrs[k] = v
			if k := p.peek().kind; k == ',' || k == ';' {
				p.next()
			}
		}
		p.next()
	}
	return attrs, nil
}

func parseDOT(src string) (*dotGraph, error) {
	toks, err := lexDOT(src)
	if err != nil {
		return nil, err
	}
	p := &dotParser{toks: toks}
	g := &dotGraph{defaults: map[string]map[string]string{}}
	switch t := p.next(); {
	case t.kind == 'i' && t.text == "digraph":
		g.directed = true
	case t.kind == 'i' && t.text == "graph":
	default:
		return nil, fmt.Errorf("want digraph or graph, got %q", t.text)
	}
	if k := p.peek().kind; k == 'i' || k == 'q' {
		g.name = p.next().text
	}
	if _, err := p.expect('{'); err != nil {
		return nil, err
	}
	declared := map[string]bool{}
	for p.peek().kind != '}' {
		t := p.peek()
		switch {
		case t.kind == 0:
			return nil, errors.New("missing }")
		case t.kind == 'i' && (t.text == "graph" || t.text == "node" || t.text == "edge"):
			p.next()
			attrs, err := p.attrList()
			if err != nil {
				return nil, err
			}
			if g.defaults[t.text] != nil {
				return nil, fmt.Errorf("%s attributes set twice", t.text)
			}
			g.defaults[t.text] = attrs
		default:
			id, err := p.id()
			if err != nil {
				return nil, err
			}
			if p.peek().kind == '-' {
				p.next()
				to, err := p.id()
				if err != nil {
					return nil, err
				}
				attrs, err := p.attrList()
				if err != nil {
					return nil, err
				}
				if !declared[id] || !declared[to] {
					return nil, fmt.Errorf("edge %q -> %q joins an undeclared node", id, to)
				}
				g.edges = append(g.edges, dotEdge{from: id, to: to, attrs: attrs})
				break
			}
			attrs, err := p.attrList()
			if err != nil {
				return nil, err
			}
			if declared[id] {
				return nil, fmt.Errorf("node %q declared twice", id)
			}
			declared[id] = true
			g.nodes = append(g.nodes, dotNode{id: id, attrs: attrs})
		}
		if p.peek().kind == ';' {
			p.next()
		}
	}
	p.next()
	if t := p.peek(); t.kind != 0 {
		return nil, fmt.Errorf("offset %d: trailing %q", t.offset, t.text)
	}
	return g, nil
}

func (g *dotGraph) nodeLabels() map[string]string {
	m := map[string]string{}
	for _, n := range g.nodes {
		m[n.id] = n.attrs["label"]
	}
	return m
}

func mustParseDOT(t *testing.T, src string) *dotGraph {
	t.Helper()
	g, err := parseDOT(src)
	require.NoError(t, err, "DOT output:\n%s", src)
	require.True(t, g.directed)
	return g
}

// ---------------------------------------------------------------------------
// A checker for the Mermaid subset Mermaid emits.

type mermaidChart struct {
	dir        string
	ids        []string          // node IDs in definition order
	labels     map[string]string // node ID -> unescaped label
	pages      map[string]bool   // node IDs drawn with the page shape
	edges      []mermaidEdge
	classDefs  map[string]string
	classes    map[string][]string // class -> node IDs
	linkStyles []int               // edge indexes styled by linkStyle
}

type mermaidEdge struct {
	from, to, label string
	dotted          bool
}

var (
	mermaidHeader    = regexp.MustCompile(`^flowchart (LR|RL|TB|BT)$`)
	mermaidNode      = regexp.MustCompile(`^    (n\d+)\["(.*)"\]$`)
	mermaidPage      = regexp.MustCompile(`^    (n\d+)\[/"(.*)"/\]$`)
	mermaidEdgeLine  = regexp.MustCompile(`^    (n\d+) (-->|-\.->)\|"(.*)"\| (n\d+)$`)
	mermaidClassDef  = regexp.MustCompile(`^    classDef ([a-z]+) ([a-z-]+:[#0-9a-z]+(?:,[a-z-]+:[#0-9a-z]+)*)$`)
	mermaidClass     = regexp.MustCompile(`^    class (n\d+(?:,n\d+)*) ([a-z]+)$`)
	mermaidLinkStyle = regexp.MustCompile(`^    linkStyle (\d+(?:,\d+)*) ([a-z-]+:[#0-9a-z]+(?:,[a-z-]+:[#0-9a-z]+)*)$`)
)

var mermaidCodes = map[string]string{
	"#quot;": `"`, "#amp;": "&", "#lt;": "<", "#gt;": ">", "#35;": "#", "#59;": ";", "#96;": "`", "#124;": "|",
}

// unescapeMermaid turns a label back into its text, rejecting any character
// Mermaid would interpret that is not part of an escape.
func unescapeMermaid(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		rest := s[i:]
		if strings.HasPrefix(rest, "<br/>") {
			b.WriteByte('\n')
			i += len("<br/>")
			continue
		}
		if rest[0] == '#' {
			end := strings.IndexByte(rest, ';')
			if end < 0 {
				return "", fmt.Errorf("unterminated entity code in %q", s)
			}
			text, ok := mermaidCodes[rest[:end+1]]
			if !ok {
				return "", fmt.Errorf("unknown entity code %q", rest[:end+1])
			}
			b.WriteString(text)
			i += end + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(rest)
		if strings.ContainsRune("\"&<>;`|", r) || unicode.IsControl(r) || r == utf8.RuneError && size == 1 {
			return "", fmt.Errorf("raw %q in label %q", r, s)
		}
		b.WriteRune(r)
		i += size
	}
	return b.String(), nil
}

func parseMermaid(src string) (*mermaidChart, error) {
	if !strings.HasSuffix(src, "\n") {
		return nil, errors.New("output does not end with a line feed")
	}
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	m := mermaidHeader.FindStringSubmatch(lines[0])
	if m == nil {
		return nil, fmt.Errorf("first line %q is not a flowchart header", lines[0])
	}
	c := &mermaidChart{dir: m[1], labels: map[string]string{}, pages: map[string]bool{}, classDefs: map[string]string{}, classes: map[string][]string{}}
	var styleLines []string
	for _, line := range lines[1:] {
		switch {
		case mermaidNode.MatchString(line) || mermaidPage.MatchString(line):
			m := mermaidNode.FindStringSubmatch(line)
			page := m == nil
			if page {
				m = mermaidPage.FindStringSubmatch(line)
			}
			if want := "n" + strconv.Itoa(len(c.ids)); m[1] != want {
				return nil, fmt.Errorf("node %s defined where %s was due", m[1], want)
			}
			label, err := unescapeMermaid(m[2])
			if err != nil {
				return nil, err
			}
			c.ids = append(c.ids, m[1])
			c.labels[m[1]] = label
			c.pages[m[1]] = page
		case mermaidEdgeLine.MatchString(line):
			m := mermaidEdgeLine.FindStringSubmatch(line)
			for _, id := range []string{m[1], m[4]} {
				if _, ok := c.labels[id]; !ok {
					return nil, fmt.Errorf("edge %q uses undefined node %s", line, id)
				}
			}
			label, err := unescapeMermaid(m[3])
			if err != nil {
				return nil, err
			}
			c.edges = append(c.edges, mermaidEdge{from: m[1], to: m[4], label: label, dotted: m[2] == "-.->"})
		case mermaidClassDef.MatchString(line):
			m := mermaidClassDef.FindStringSubmatch(line)
			c.classDefs[m[1]] = m[2]
		case mermaidClass.MatchString(line):
			m := mermaidClass.FindStringSubmatch(line)
			if _, ok := c.classDefs[m[2]]; !ok {
				return nil, fmt.Errorf("class %s used before its classDef", m[2])
			}
			for _, id := range strings.Split(m[1], ",") {
				if _, ok := c.labels[id]; !ok {
					return nil, fmt.Errorf("class on undefined node %s", id)
				}
				c.classes[m[2]] = append(c.classes[m[2]], id)
			}
		case mermaidLinkStyle.MatchString(line):
			styleLines = append(styleLines, line)
		default:
			return nil, fmt.Errorf("line %q is not in the emitted subset", line)
		}
	}
	for _, line := range styleLines {
		m := mermaidLinkStyle.FindStringSubmatch(line)
		for _, s := range strings.Split(m[1], ",") {
			i, _ := strconv.Atoi(s)
			if i >= len(c.edges) {
				return nil, fmt.Errorf("linkStyle index %d out of range: %d edges", i, len(c.edges))
			}
			c.linkStyles = append(c.linkStyles, i)
		}
	}
	return c, nil
}

func mustParseMermaid(t *testing.T, src string) *mermaidChart {
	t.Helper()
	c, err := parseMermaid(src)
	require.NoError(t, err, "Mermaid output:\n%s", src)
	return c
}

// ---------------------------------------------------------------------------
// Fixtures.

func writeDOT(t *testing.T, sg render.Subgraph, opts render.Options) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, render.DOT(&b, sg, opts))
	return b.String()
}

func writeMermaid(t *testing.T, sg render.Subgraph, opts render.Options) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, render.Mermaid(&b, sg, opts))
	return b.String()
}

// trickySubgraph holds names and IDs that break naive writers, a page whose
// ID equals an entity ID, a duplicate relation, dangling relations and
// citations, and a self-loop.
func trickySubgraph() render.Subgraph {
	return render.Subgraph{
		Entities: []kgmem.Entity{
			{ID: `q"uote`, Name: `say "hi"`, Type: "person"},
			{ID: `back\slash\`, Name: `C:\dir\`},
			{ID: "multi\nline", Name: "line one\nline two"},
			{ID: "person:张三", Name: "张三", Type: "人物"},
			{ID: "emoji", Name: "rocket 🚀 launch"},
			{ID: "a -> b", Name: "a -> b {x} [y]"},
			{ID: `\N`, Name: `\N and \G and \l`},
			{ID: "graph", Name: "node"},
			{ID: "end", Name: "end"},
			{ID: "html", Name: "<b>bold</b> & \"#1;\" | `code` %% x"},
		},
		Relations: []kgmem.Relation{
			{SourceID: `q"uote`, TargetID: "person:张三", Type: "knows", Weight: 0.9},
			{SourceID: `q"uote`, TargetID: "person:张三", Type: "knows", Weight: 0.4}, // duplicate key
			{SourceID: "person:张三", TargetID: `back\slash\`, Type: `uses "tool"`, Weight: 1},
			{SourceID: "multi\nline", TargetID: "emoji", Type: "a->b", Weight: 0.25},
			{SourceID: "emoji", TargetID: "emoji", Type: "self", Weight: 0.5},
			{SourceID: "a -> b", TargetID: `\N`, Type: "依赖", Weight: 1.0 / 3},
			{SourceID: "graph", TargetID: "end", Type: "edge", Weight: 0},
			{SourceID: "html", TargetID: "graph", Type: "<x>|;#", Weight: 0.75},
			{SourceID: "html", TargetID: "missing", Type: "dangles", Weight: 1},
			{SourceID: "missing", TargetID: "html", Type: "dangles", Weight: 1},
		},
		Pages: []kgmem.KnowledgePage{
			{ID: `q"uote`, Title: `Page "one"`},
			{ID: "p2"},
		},
		Citations: []render.Citation{
			{EntityID: `q"uote`, PageID: `q"uote`},
			{EntityID: "emoji", PageID: "p2"},
			{EntityID: "emoji", PageID: "p2"},
			{EntityID: "missing", PageID: "p2"},
			{EntityID: "emoji", PageID: "no-such-page"},
		},
	}
}

// trickyNodes is what trickySubgraph must draw: DOT node ID -> label, in
// drawing order.
var trickyNodes = []struct{ id, label string }{
	{`\N`, `\N and \G and \l`},
	{"a -> b", "a -> b {x} [y]"},
	{`back\slash\`, `C:\dir\`},
	{"emoji", "rocket 🚀 launch"},
	{"end", "end"},
	{"graph", "node"},
	{"html", "<b>bold</b> & \"#1;\" | `code` %% x"},
	{"multi\nline", "line one\nline two"},
	{"person:张三", "张三\n(人物)"},
	{`q"uote`, "say \"hi\"\n(person)"},
	{"page:p2", "p2"},
	{`page:q"uote`, `Page "one"`},
}

// trickyEdges is what trickySubgraph must draw, in drawing order.
var trickyEdges = []struct{ from, to, label string }{
	{"a -> b", `\N`, "依赖 0.333"},
	{"emoji", "emoji", "self 0.5"},
	{"graph", "end", "edge 1"}, // a zero weight is unweighted, drawn as 1 as the graph stores it
	{"html", "graph", "<x>|;# 0.75"},
	{"multi\nline", "emoji", "a->b 0.25"},
	{"person:张三", `back\slash\`, `uses "tool" 1`},
	{`q"uote`, "person:张三", "knows 0.9"},
	{"emoji", "page:p2", "mentioned_in"},
	{`q"uote`, `page:q"uote`, "mentioned_in"},
}

// quickstartGraph is the graph of examples/quickstart and of the README's
// FindPaths section.
func quickstartGraph(t testing.TB) *kgmem.InMemoryGraph {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, e := range []kgmem.Entity{
		{ID: "person:zhangsan", Name: "张三", Type: "person", Aliases: []string{"Zhang San"}},
		{ID: "person:alice", Name: "Alice", Type: "person"},
		{ID: "project:apollo", Name: "Project Apollo", Type: "project", Aliases: []string{"Apollo"}},
		{ID: "team:infra", Name: "基础架构部", Type: "team", Tags: []string{"Infrastructure", "platform"}},
		{ID: "tech:raft", Name: "Raft", Type: "concept"},
	} {
		require.NoError(t, g.AddEntity(ctx, e))
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "person:zhangsan", TargetID: "project:apollo", Type: "works_on", Weight: 0.9},
		{SourceID: "person:alice", TargetID: "project:apollo", Type: "leads", Weight: 1},
		{SourceID: "project:apollo", TargetID: "team:infra", Type: "part_of", Weight: 0.8},
		{SourceID: "project:apollo", TargetID: "tech:raft", Type: "uses", Weight: 0.6},
		{SourceID: "person:alice", TargetID: "team:infra", Type: "member_of", Weight: 0.7},
	} {
		require.NoError(t, g.AddRelation(ctx, r))
	}
	return g
}

// readmeFont is the font list of the README picture: a CJK face first so
// that Chinese names render, then common Latin fallbacks.
const readmeFont = "Noto Sans CJK SC, Helvetica, Arial, sans-serif"

// readmeDOT returns the source of docs/graph.svg: the whole quickstart
// graph with the best path from 张三 to Alice highlighted.
func readmeDOT(t *testing.T) string {
	ctx := context.Background()
	g := quickstartGraph(t)
	sg, err := render.Graph(ctx, g)
	require.NoError(t, err)
	res, err := g.FindPaths(ctx, "person:zhangsan", "person:alice", kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both})
	require.NoError(t, err)
	sg.Highlight = res.Paths[0]
	return writeDOT(t, sg, render.Options{FontName: readmeFont})
}

// ---------------------------------------------------------------------------
// Tests.

func TestDOTRoundTrip(t *testing.T) {
	src := writeDOT(t, trickySubgraph(), render.Options{})
	g := mustParseDOT(t, src)

	require.Equal(t, "UTF-8", g.defaults["graph"]["charset"])
	require.Equal(t, "LR", g.defaults["graph"]["rankdir"])
	require.Len(t, g.nodes, len(trickyNodes))
	for i, want := range trickyNodes {
		require.Equal(t, want.id, g.nodes[i].id, "node %d", i)
		require.Equal(t, want.label, g.nodes[i].attrs["label"], "label of %q", want.id)
	}
	require.Equal(t, "note", g.nodes[len(g.nodes)-1].attrs["shape"])
	require.Len(t, g.edges, len(trickyEdges))
	for i, want := range trickyEdges {
		e := g.edges[i]
		require.Equal(t, want, struct{ from, to, label string }{e.from, e.to, e.attrs["label"]}, "edge %d", i)
		require.Equal(t, strings.HasPrefix(want.to, "page:"), e.attrs["style"] == "dashed", "edge %d", i)
	}
	for i, r := range src {
		require.False(t, unicode.IsControl(r) && r != '\n' && r != '\t', "raw control character %U at %d", r, i)
	}
	require.Contains(t, src, "张三", "non-ASCII text is kept as UTF-8")
	require.Contains(t, src, "🚀")
}

func TestMermaidRoundTrip(t *testing.T) {
	src := writeMermaid(t, trickySubgraph(), render.Options{})
	c := mustParseMermaid(t, src)

	require.Equal(t, "LR", c.dir)
	require.Len(t, c.ids, len(trickyNodes))
	index := map[string]string{} // DOT-style ID -> Mermaid ID
	for i, want := range trickyNodes {
		id := c.ids[i]
		require.Equal(t, want.label, c.labels[id], "label of %q", want.id)
		require.Equal(t, strings.HasPrefix(want.id, "page:"), c.pages[id], "shape of %q", want.id)
		index[want.id] = id
	}
	require.Len(t, c.edges, len(trickyEdges))
	for i, want := range trickyEdges {
		e := c.edges[i]
		require.Equal(t, mermaidEdge{from: index[want.from], to: index[want.to], label: want.label, dotted: strings.HasPrefix(want.to, "page:")}, e, "edge %d", i)
	}
	require.Empty(t, c.linkStyles)
	require.Empty(t, c.classes)
	for _, id := range []string{`q"uote`, `back\slash\`, "a -> b", "person:张三"} {
		require.NotContains(t, src, id, "raw entity IDs never appear in Mermaid output")
	}
}

func TestRenderDeterministic(t *testing.T) {
	base := trickySubgraph()
	wantDOT := writeDOT(t, base, render.Options{})
	wantMermaid := writeMermaid(t, base, render.Options{})
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		sg := trickySubgraph()
		// Repeat some of everything, then shuffle every slice.
		sg.Entities = append(sg.Entities, sg.Entities[:i%len(sg.Entities)]...)
		sg.Entities = append(sg.Entities, kgmem.Entity{ID: "emoji"}) // a bare copy never replaces the named one
		sg.Relations = append(sg.Relations, sg.Relations[:i%len(sg.Relations)]...)
		sg.Pages = append(sg.Pages, kgmem.KnowledgePage{ID: "p2"})
		sg.Citations = append(sg.Citations, sg.Citations...)
		rng.Shuffle(len(sg.Entities), func(a, b int) { sg.Entities[a], sg.Entities[b] = sg.Entities[b], sg.Entities[a] })
		rng.Shuffle(len(sg.Relations), func(a, b int) { sg.Relations[a], sg.Relations[b] = sg.Relations[b], sg.Relations[a] })
		rng.Shuffle(len(sg.Pages), func(a, b int) { sg.Pages[a], sg.Pages[b] = sg.Pages[b], sg.Pages[a] })
		rng.Shuffle(len(sg.Citations), func(a, b int) { sg.Citations[a], sg.Citations[b] = sg.Citations[b], sg.Citations[a] })
		require.Equal(t, wantDOT, writeDOT(t, sg, render.Options{}), "permutation %d", i)
		require.Equal(t, wantMermaid, writeMermaid(t, sg, render.Options{}), "permutation %d", i)
	}
}

func TestRenderDoesNotModifySubgraph(t *testing.T) {
	sg := trickySubgraph()
	slices.Reverse(sg.Entities)
	before := fmt.Sprint(sg)
	writeDOT(t, sg, render.Options{})
	writeMermaid(t, sg, render.Options{})
	require.Equal(t, before, fmt.Sprint(sg))
}

func TestRenderEscaping(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		dot     string // the label as written in DOT, quotes included
		mermaid string // the label as written in Mermaid, between the quotes
	}{
		{"plain", "Alice", `"Alice"`, "Alice"},
		{"quote", `say "hi"`, `"say \"hi\""`, "say #quot;hi#quot;"},
		{"backslash", `C:\dir\`, `"C:\\dir\\"`, `C:\dir\`},
		{"graphviz escape", `\N\G\l`, `"\\N\\G\\l"`, `\N\G\l`},
		{"line feed", "one\ntwo", `"one\ntwo"`, "one<br/>two"},
		{"crlf and cr", "a\r\nb\rc", `"a\nb\nc"`, "a<br/>b<br/>c"},
		{"tab", "a\tb", `"a b"`, "a b"},
		{"control", "a\x01b\u0085c\x7f", "\"a\uFFFDb\uFFFDc\uFFFD\"", "a\uFFFDb\uFFFDc\uFFFD"},
		{"html", "<b>&amp;</b>", `"<b>&amp;</b>"`, "#lt;b#gt;#amp;amp#59;#lt;/b#gt;"},
		{"entity-like", "#35; C# ;", `"#35; C# ;"`, "#35;35#59; C#35; #59;"},
		{"backtick and pipe", "`md` | x", "\"`md` | x\"", "#96;md#96; #124; x"},
		{"arrows and braces", "a --> b {c} [d] (e)", `"a --> b {c} [d] (e)"`, "a --#gt; b {c} [d] (e)"},
		{"chinese", "基础架构部", `"基础架构部"`, "基础架构部"},
		{"emoji", "👩‍💻 🚀", `"👩‍💻 🚀"`, "👩‍💻 🚀"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sg := render.Subgraph{Entities: []kgmem.Entity{{ID: "x", Name: tc.in}}}
			dot := writeDOT(t, sg, render.Options{})
			require.Contains(t, dot, "\t\"x\" [label="+tc.dot+"];\n")
			mustParseDOT(t, dot)
			mermaid := writeMermaid(t, sg, render.Options{})
			require.Contains(t, mermaid, "    n0[\""+tc.mermaid+"\"]\n")
			mustParseMermaid(t, mermaid)
		})
	}
}

func TestDOTKeepsIDsDistinct(t *testing.T) {
	ids := []string{"a\x01", "a\x02", "a\uFFFD", "a\t", "a ", "a\r", "a\n", `a\n`, `a\`, `a"`, `a\"`}
	var sg render.Subgraph
	for _, id := range ids {
		sg.Entities = append(sg.Entities, kgmem.Entity{ID: id})
	}
	for i := 1; i < len(ids); i++ {
		sg.Relations = append(sg.Relations, kgmem.Relation{SourceID: ids[i-1], TargetID: ids[i], Type: "next", Weight: 1})
	}
	g := mustParseDOT(t, writeDOT(t, sg, render.Options{}))
	var got []string
	for _, n := range g.nodes {
		got = append(got, n.id)
	}
	want := slices.Clone(ids)
	slices.Sort(want)
	require.Equal(t, want, got)
	require.Len(t, g.edges, len(ids)-1)
	for _, e := range g.edges {
		i := slices.Index(ids, e.from)
		require.Equal(t, ids[i+1], e.to)
	}
}

func TestDOTPagePrefixAvoidsEntityIDs(t *testing.T) {
	sg := render.Subgraph{
		Entities:  []kgmem.Entity{{ID: "page:x"}, {ID: "page:page:y"}},
		Pages:     []kgmem.KnowledgePage{{ID: "x"}, {ID: "page:y"}},
		Citations: []render.Citation{{EntityID: "page:x", PageID: "x"}},
	}
	g := mustParseDOT(t, writeDOT(t, sg, render.Options{}))
	labels := g.nodeLabels()
	require.Len(t, labels, 4)
	require.Equal(t, "x", labels["page:page:page:x"])
	require.Equal(t, "page:y", labels["page:page:page:page:y"])
	require.Equal(t, []dotEdge{{from: "page:x", to: "page:page:page:x", attrs: g.edges[0].attrs}}, g.edges)
}

func TestRenderOptions(t *testing.T) {
	sg := render.Subgraph{
		Entities: []kgmem.Entity{{ID: "a", Name: "A", Type: "person"}, {ID: "b", Type: "team"}},
		Relations: []kgmem.Relation{
			{SourceID: "a", TargetID: "b", Type: "member_of", Weight: 0.72},
			{SourceID: "b", TargetID: "a", Type: "has", Weight: 1},
			{SourceID: "a", TargetID: "a", Type: "third", Weight: 1.0 / 3},
			{SourceID: "b", TargetID: "b", Type: "tiny", Weight: 0.000125},
		},
	}
	for _, tc := range []struct {
		opts       render.Options
		dir        string
		nodeLabels []string
		edgeLabels []string
	}{
		{render.Options{}, "LR", []string{"A\n(person)", "b\n(team)"}, []string{"third 0.333", "member_of 0.72", "has 1", "tiny 0.000125"}},
		{render.Options{HideTypes: true, RankDir: "TB"}, "TB", []string{"A", "b"}, []string{"third 0.333", "member_of 0.72", "has 1", "tiny 0.000125"}},
		{render.Options{HideWeights: true, RankDir: "BT"}, "BT", []string{"A\n(person)", "b\n(team)"}, []string{"third", "member_of", "has", "tiny"}},
		{render.Options{RankDir: "RL"}, "RL", []string{"A\n(person)", "b\n(team)"}, []string{"third 0.333", "member_of 0.72", "has 1", "tiny 0.000125"}},
	} {
		g := mustParseDOT(t, writeDOT(t, sg, tc.opts))
		require.Equal(t, tc.dir, g.defaults["graph"]["rankdir"])
		require.Equal(t, tc.nodeLabels, []string{g.nodes[0].attrs["label"], g.nodes[1].attrs["label"]})
		var edges []string
		for _, e := range g.edges {
			edges = append(edges, e.attrs["label"])
		}
		require.Equal(t, tc.edgeLabels, edges)
		_, hasFont := g.defaults["node"]["fontname"]
		require.False(t, hasFont)

		c := mustParseMermaid(t, writeMermaid(t, sg, tc.opts))
		require.Equal(t, tc.dir, c.dir)
		require.Equal(t, tc.nodeLabels, []string{c.labels["n0"], c.labels["n1"]})
		edges = edges[:0]
		for _, e := range c.edges {
			edges = append(edges, e.label)
		}
		require.Equal(t, tc.edgeLabels, edges)
	}

	g := mustParseDOT(t, writeDOT(t, sg, render.Options{FontName: readmeFont}))
	for _, kind := range []string{"graph", "node", "edge"} {
		require.Equal(t, readmeFont, g.defaults[kind]["fontname"], kind)
	}
}

func TestRenderRejectsInvalidInput(t *testing.T) {
	bad := "\xff"
	ok := func() render.Subgraph {
		return render.Subgraph{
			Entities:  []kgmem.Entity{{ID: "a"}, {ID: "b"}},
			Relations: []kgmem.Relation{{SourceID: "a", TargetID: "b", Type: "r", Weight: 1}},
			Pages:     []kgmem.KnowledgePage{{ID: "p"}},
		}
	}
	ab := kgmem.Relation{SourceID: "a", TargetID: "b", Type: "r", Weight: 1}
	for _, tc := range []struct {
		name string
		edit func(*render.Subgraph, *render.Options)
	}{
		{"entity ID", func(sg *render.Subgraph, _ *render.Options) { sg.Entities[0].ID = bad }},
		{"entity name", func(sg *render.Subgraph, _ *render.Options) { sg.Entities[0].Name = "x" + bad }},
		{"entity type", func(sg *render.Subgraph, _ *render.Options) { sg.Entities[1].Type = bad }},
		{"empty entity ID", func(sg *render.Subgraph, _ *render.Options) { sg.Entities[0].ID = "" }},
		{"relation source", func(sg *render.Subgraph, _ *render.Options) { sg.Relations[0].SourceID = bad }},
		{"relation type", func(sg *render.Subgraph, _ *render.Options) { sg.Relations[0].Type = bad }},
		{"empty relation type", func(sg *render.Subgraph, _ *render.Options) { sg.Relations[0].Type = "" }},
		{"NaN weight", func(sg *render.Subgraph, _ *render.Options) { sg.Relations[0].Weight = math.NaN() }},
		{"infinite weight", func(sg *render.Subgraph, _ *render.Options) { sg.Relations[0].Weight = math.Inf(1) }},
		{"invalid dangling relation", func(sg *render.Subgraph, _ *render.Options) {
			sg.Relations = append(sg.Relations, kgmem.Relation{SourceID: "a", TargetID: "zz", Type: bad, Weight: 1})
		}},
		{"page ID", func(sg *render.Subgraph, _ *render.Options) { sg.Pages[0].ID = bad }},
		{"page title", func(sg *render.Subgraph, _ *render.Options) { sg.Pages[0].Title = bad }},
		{"empty page ID", func(sg *render.Subgraph, _ *render.Options) { sg.Pages[0].ID = "" }},
		{"citation", func(sg *render.Subgraph, _ *render.Options) {
			sg.Citations = []render.Citation{{EntityID: "a", PageID: bad}}
		}},
		{"rank direction", func(_ *render.Subgraph, o *render.Options) { o.RankDir = "lr" }},
		{"font name", func(_ *render.Subgraph, o *render.Options) { o.FontName = bad }},
		{"highlight entity missing", func(sg *render.Subgraph, _ *render.Options) {
			sg.Highlight = kgmem.Path{EntityIDs: []string{"zz"}}
		}},
		{"highlight relation count", func(sg *render.Subgraph, _ *render.Options) {
			sg.Highlight = kgmem.Path{EntityIDs: []string{"a", "b"}}
		}},
		{"highlight relations without entities", func(sg *render.Subgraph, _ *render.Options) {
			sg.Highlight = kgmem.Path{Relations: []kgmem.Relation{ab}}
		}},
		{"highlight relation not drawn", func(sg *render.Subgraph, _ *render.Options) {
			r := ab
			r.Type = "other"
			sg.Highlight = kgmem.Path{EntityIDs: []string{"a", "b"}, Relations: []kgmem.Relation{r}}
		}},
		{"highlight relation off the path", func(sg *render.Subgraph, _ *render.Options) {
			sg.Entities = append(sg.Entities, kgmem.Entity{ID: "c"})
			sg.Highlight = kgmem.Path{EntityIDs: []string{"a", "c"}, Relations: []kgmem.Relation{ab}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sg, opts := ok(), render.Options{}
			tc.edit(&sg, &opts)
			for name, write := range map[string]func(io.Writer, render.Subgraph, render.Options) error{
				"DOT": render.DOT, "Mermaid": render.Mermaid,
			} {
				var b bytes.Buffer
				err := write(&b, sg, opts)
				require.ErrorIs(t, err, kgmem.ErrInvalidArgument, name)
				require.Zero(t, b.Len(), "%s wrote %q before failing", name, b.String())
			}
		})
	}

	// The unedited subgraph is valid, and so is a highlighted relation
	// walked against its direction.
	sg := ok()
	sg.Highlight = kgmem.Path{EntityIDs: []string{"b", "a"}, Relations: []kgmem.Relation{ab}}
	writeDOT(t, sg, render.Options{})
	writeMermaid(t, sg, render.Options{})
}

type failingWriter struct{ err error }

func (w failingWriter) Write(p []byte) (int, error) { return 0, w.err }

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

func TestRenderWriterErrors(t *testing.T) {
	sg := trickySubgraph()
	boom := errors.New("disk full")
	for name, write := range map[string]func(io.Writer, render.Subgraph, render.Options) error{
		"DOT": render.DOT, "Mermaid": render.Mermaid,
	} {
		err := write(failingWriter{boom}, sg, render.Options{})
		require.ErrorIs(t, err, boom, name)
		require.Contains(t, err.Error(), name)
		require.ErrorIs(t, write(shortWriter{}, sg, render.Options{}), io.ErrShortWrite, name)
	}
}

func TestGraph(t *testing.T) {
	ctx := context.Background()
	g := exampleGraph()
	sg, err := render.Graph(ctx, g)
	require.NoError(t, err)
	require.Len(t, sg.Entities, 4)
	require.Len(t, sg.Relations, 4)
	require.Empty(t, sg.Highlight.EntityIDs)

	d := mustParseDOT(t, writeDOT(t, sg, render.Options{}))
	require.Equal(t, map[string]string{
		"person:alice": "Alice\n(person)", "person:zhangsan": "张三\n(person)",
		"project:a": "项目A\n(project)", "team:infra": "基础架构部\n(team)",
	}, d.nodeLabels())
	require.Len(t, d.edges, 4)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = render.Graph(cancelled, g)
	require.ErrorIs(t, err, context.Canceled)
}

func TestRelated(t *testing.T) {
	ctx := context.Background()
	g := exampleGraph()
	start, _, err := g.GetEntity(ctx, "person:zhangsan")
	require.NoError(t, err)
	related, err := g.GetRelated(ctx, start.ID, kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both})
	require.NoError(t, err)
	sg := render.Related(start, related)

	d := mustParseDOT(t, writeDOT(t, sg, render.Options{HideWeights: true}))
	require.Equal(t, map[string]string{
		"person:alice": "Alice\n(person)", "person:zhangsan": "张三\n(person)",
		"project:a": "项目A\n(project)", "team:infra": "基础架构部\n(team)",
	}, d.nodeLabels())
	// The relations on the paths, not member_of, which no path walks.
	var edges []string
	for _, e := range d.edges {
		edges = append(edges, e.from+" "+e.attrs["label"]+" "+e.to)
	}
	require.Equal(t, []string{
		"person:alice leads project:a",
		"person:zhangsan works_on project:a",
		"project:a part_of team:infra",
	}, edges)

	// An entity on a path that is not itself a result is drawn by its ID.
	far := related[len(related)-1]
	sg = render.Related(start, []kgmem.ScoredEntity{far})
	d = mustParseDOT(t, writeDOT(t, sg, render.Options{}))
	require.Equal(t, "project:a", d.nodeLabels()["project:a"])
	require.Len(t, d.edges, 2)
}

func TestPathsHighlightsBestPath(t *testing.T) {
	ctx := context.Background()
	g := exampleGraph()
	res, err := g.FindPaths(ctx, "person:zhangsan", "team:infra", kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both})
	require.NoError(t, err)
	require.Len(t, res.Paths, 2)
	sg, err := render.Paths(ctx, g, res)
	require.NoError(t, err)
	require.Equal(t, res.Paths[0], sg.Highlight)

	best := map[string]bool{}
	for _, r := range res.Paths[0].Relations {
		best[r.SourceID+" "+r.Type+" "+r.TargetID] = true
	}
	require.Len(t, best, 2)

	d := mustParseDOT(t, writeDOT(t, sg, render.Options{HideWeights: true}))
	require.Len(t, d.nodes, 4)
	require.Equal(t, "Alice\n(person)", d.nodeLabels()["person:alice"])
	require.Len(t, d.edges, 4)
	for _, e := range d.edges {
		key := e.from + " " + e.attrs["label"] + " " + e.to
		require.Equal(t, best[key], e.attrs["penwidth"] != "", key)
		require.Equal(t, best[key], e.attrs["color"] == "#d9480f", key)
	}
	var lit []string
	for _, n := range d.nodes {
		if n.attrs["penwidth"] != "" {
			lit = append(lit, n.id)
		}
	}
	require.Equal(t, []string{"person:zhangsan", "project:a", "team:infra"}, lit)

	c := mustParseMermaid(t, writeMermaid(t, sg, render.Options{HideWeights: true}))
	ids := map[string]string{} // Mermaid ID -> entity ID, by drawing order
	for i, n := range d.nodes {
		ids[c.ids[i]] = n.id
	}
	var styled []string
	for _, i := range c.linkStyles {
		e := c.edges[i]
		styled = append(styled, ids[e.from]+" "+e.label+" "+ids[e.to])
	}
	require.ElementsMatch(t, []string{"person:zhangsan works_on project:a", "project:a part_of team:infra"}, styled)
	var classed []string
	for _, id := range c.classes["highlight"] {
		classed = append(classed, ids[id])
	}
	require.Equal(t, lit, classed)

	// Entities the graph no longer holds are drawn by ID; errors from the
	// graph are returned.
	require.NoError(t, g.RemoveEntity(ctx, "person:alice"))
	sg, err = render.Paths(ctx, g, res)
	require.NoError(t, err)
	d = mustParseDOT(t, writeDOT(t, sg, render.Options{}))
	require.Equal(t, "person:alice", d.nodeLabels()["person:alice"])
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = render.Paths(cancelled, g, res)
	require.ErrorIs(t, err, context.Canceled)

	// No paths: an empty drawing.
	sg, err = render.Paths(ctx, g, kgmem.PathResult{})
	require.NoError(t, err)
	require.Equal(t, "flowchart LR\n", writeMermaid(t, sg, render.Options{}))
}

func TestRetrieval(t *testing.T) {
	r := kgmem.NewMemoryRetriever(exampleStore(), kgmem.RetrieverConfig{MaxResults: 10},
		kgmem.WithKnowledgeGraph(exampleGraph()))
	res, err := r.Retrieve(context.Background(), "张三负责什么项目？")
	require.NoError(t, err)
	sg := render.Retrieval(res)

	d := mustParseDOT(t, writeDOT(t, sg, render.Options{HideWeights: true}))
	labels := d.nodeLabels()
	require.Equal(t, "张三\n(person)", labels["person:zhangsan"])
	require.Equal(t, "Alice\n(person)", labels["person:alice"])
	require.Equal(t, "基础架构部\n(team)", labels["team:infra"])
	require.Equal(t, "人事档案 1024", labels["page:hr-1024"])
	require.Equal(t, "项目A 周报", labels["page:weekly-12"], "a page the text search found is drawn on its own")
	var edges []string
	for _, e := range d.edges {
		edges = append(edges, e.from+" "+e.attrs["label"]+" "+e.to)
	}
	require.Equal(t, []string{
		"person:alice leads project:a",
		"person:zhangsan works_on project:a",
		"project:a part_of team:infra",
		"person:zhangsan mentioned_in page:hr-1024",
	}, edges)

	c := mustParseMermaid(t, writeMermaid(t, sg, render.Options{}))
	var pages []string
	for _, id := range c.ids {
		if c.pages[id] {
			pages = append(pages, c.labels[id])
		}
	}
	require.Equal(t, []string{"人事档案 1024", "项目A 周报"}, pages)
	last := c.edges[len(c.edges)-1]
	require.True(t, last.dotted)
	require.Equal(t, "mentioned_in", last.label)

	// Highlighting one item's explanation marks exactly its path.
	var item kgmem.RetrievalItem
	for _, it := range res.Items {
		if it.Kind == kgmem.ItemEntity && it.Entity.ID == "team:infra" {
			item = it
		}
	}
	require.Len(t, item.Path, 3)
	sg.Highlight = kgmem.Path{EntityIDs: item.Path, Relations: item.Relations}
	c = mustParseMermaid(t, writeMermaid(t, sg, render.Options{HideWeights: true}))
	var styled []string
	for _, i := range c.linkStyles {
		styled = append(styled, c.edges[i].label)
	}
	require.Equal(t, []string{"works_on", "part_of"}, styled)
	var classed []string
	for _, id := range c.classes["highlight"] {
		classed = append(classed, c.labels[id])
	}
	require.Equal(t, []string{"张三\n(person)", "项目A\n(project)", "基础架构部\n(team)"}, classed)
}

// TestReadmeGraphIsCurrent regenerates the source of the README picture and
// compares it with docs/graph.dot. Run with -update-graph to rewrite it (and
// docs/graph.svg when Graphviz is installed).
func TestReadmeGraphIsCurrent(t *testing.T) {
	src := readmeDOT(t)
	g := mustParseDOT(t, src)
	var lit []string
	for _, e := range g.edges {
		if e.attrs["penwidth"] != "" {
			lit = append(lit, e.from+" "+e.attrs["label"]+" "+e.to)
		}
	}
	require.Equal(t, []string{"person:alice leads 1 project:apollo", "person:zhangsan works_on 0.9 project:apollo"}, lit)

	docs := filepath.Join("..", "docs")
	dotFile, svgFile := filepath.Join(docs, "graph.dot"), filepath.Join(docs, "graph.svg")
	if *updateGraph {
		require.NoError(t, os.MkdirAll(docs, 0o755))
		require.NoError(t, os.WriteFile(dotFile, []byte(src), 0o644))
		if dot, err := exec.LookPath("dot"); err == nil {
			out, err := exec.Command(dot, "-Tsvg", "-o", svgFile, dotFile).CombinedOutput()
			require.NoError(t, err, "%s", out)
		} else {
			t.Log("dot is not on PATH: docs/graph.svg was not re-rendered")
		}
	}
	committed, err := os.ReadFile(dotFile)
	require.NoError(t, err)
	require.Equal(t, string(committed), src, "docs/graph.dot is stale: run go test -run TestReadmeGraphIsCurrent -update-graph")
	_, err = os.Stat(svgFile)
	require.NoError(t, err)
}

// TestDOTRendersWithGraphviz feeds the output to Graphviz itself, when
// it is installed, and checks that the labels come out as written.
func TestDOTRendersWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("dot (Graphviz) is not on PATH")
	}
	for name, src := range map[string]string{
		"tricky": writeDOT(t, trickySubgraph(), render.Options{}),
		"readme": readmeDOT(t),
	} {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(src)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		svg, err := cmd.Output()
		require.NoError(t, err, "%s: %s", name, stderr.String())
		require.Empty(t, stderr.String(), name)
		text := string(svg)
		g := mustParseDOT(t, src)
		require.Equal(t, len(g.nodes), strings.Count(text, `class="node"`), name)
		require.Equal(t, len(g.edges), strings.Count(text, `class="edge"`), name)
		if name == "tricky" {
			// Graphviz would expand \N to the node name and \l to a line
			// break if the backslashes were not escaped.
			require.Contains(t, text, `>\N and \G and \l</text>`)
			require.Contains(t, text, `>C:\dir\</text>`)
			require.Contains(t, text, `>say &quot;hi&quot;</text>`)
			require.Contains(t, text, `>rocket 🚀 launch</text>`)
			require.Contains(t, text, `>张三</text>`)
		}
	}
}

// TestRenderValidity pins how valid time is drawn: on a second line of the
// edge label, and an ended fact dashed.
func TestRenderValidity(t *testing.T) {
	ctx := context.Background()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	g := kgmem.NewInMemoryGraph(kgmem.WithClock(func() time.Time { return day(2025, 1, 1) }))
	require.NoError(t, g.AddBatch(ctx,
		[]kgmem.Entity{{ID: "alice", Name: "Alice"}, {ID: "apollo", Name: "Apollo", Type: "project"}, {ID: "gemini", Name: "Gemini", Type: "project"}},
		[]kgmem.Relation{
			{SourceID: "alice", TargetID: "apollo", Type: "works_on", ValidFrom: day(2024, 3, 1), ValidTo: day(2025, 6, 1)},
			{SourceID: "alice", TargetID: "gemini", Type: "works_on", ValidFrom: day(2023, 1, 1), ValidTo: day(2024, 3, 1)},
		}))

	sg, err := render.Graph(ctx, g)
	require.NoError(t, err)
	var dot, mermaid bytes.Buffer
	require.NoError(t, render.DOT(&dot, sg, render.Options{HideWeights: true}))
	require.Contains(t, dot.String(), `"alice" -> "apollo" [label="works_on\n2024-03 → 2025-06", style="dashed"];`)
	require.NoError(t, render.Mermaid(&mermaid, sg, render.Options{HideWeights: true}))
	require.Contains(t, mermaid.String(), `n0 -.->|"works_on<br/>2023 → 2024-03"| n2`)
	require.NoError(t, g.AddRelation(ctx, kgmem.Relation{SourceID: "alice", TargetID: "gemini", Type: "works_on", ValidFrom: day(2023, 1, 1)}))
	sg, err = render.Graph(ctx, g)
	require.NoError(t, err)
	mermaid.Reset()
	require.NoError(t, render.Mermaid(&mermaid, sg, render.Options{HideWeights: true}))
	require.Contains(t, mermaid.String(), `n0 -->|"works_on<br/>2023 →"| n2`, "an open fact is solid")
}

// TestRenderErrorMessage checks that an invalid subgraph is reported like
// every kgmem error: wrapping the sentinel, prefixed, short.
func TestRenderErrorMessage(t *testing.T) {
	huge := strings.Repeat("x", 100_000)
	err := render.DOT(io.Discard, render.Subgraph{Entities: []kgmem.Entity{{ID: huge + "\xff"}}}, render.Options{})
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	kgmemtest.CheckErrorMessage(t, err, kgmem.ErrInvalidArgument)
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, "kgmem: "), msg)
	require.Contains(t, msg, "draw")
	require.LessOrEqual(t, len(msg), 600)
}
