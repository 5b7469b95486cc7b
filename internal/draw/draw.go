// Package draw writes a graph laid out for drawing as Graphviz DOT or as a
// Mermaid flowchart: the text, its quoting and escaping, and the colours.
//
// It works on plain nodes and edges, already checked, deduplicated and
// ordered by package render (see render.DOT and render.Mermaid,
// which document the output its users see); it never fails.
package draw

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Drawing is a graph in drawing order.
type Drawing struct {
	RankDir string // "LR", "RL", "TB" or "BT"
	Nodes   []Node // entities by ID, then pages by ID
	Edges   []Edge // relations by key, then citations
}

// Node is a drawn entity or page.
type Node struct {
	ID        string // entity or page ID
	Page      bool
	Label     string // normalised by LabelText; may hold line feeds
	Highlight bool
}

// Edge is a drawn relation or citation.
type Edge struct {
	From, To  int // indexes into Drawing.Nodes
	Label     string
	Dashed    bool // a citation, or a relation that ended
	Highlight bool
}

// DOT returns d as a Graphviz digraph whose labels use the font fontName
// (Graphviz's default when empty), which LabelText normalises.
func DOT(d *Drawing, fontName string) []byte {
	pagePrefix := d.pagePrefix()
	dotID := func(n *Node) string {
		if n.Page {
			return dotQuote(pagePrefix + n.ID)
		}
		return dotQuote(n.ID)
	}
	var font string
	if fontName != "" {
		font = ", fontname=" + dotQuote(LabelText(fontName))
	}

	var b bytes.Buffer
	b.WriteString("digraph kgmem {\n")
	fmt.Fprintf(&b, "\tgraph [charset=\"UTF-8\", rankdir=%s%s];\n", dotQuote(d.RankDir), font)
	fmt.Fprintf(&b, "\tnode [shape=\"box\", style=\"rounded,filled\", color=%q, fillcolor=%q%s];\n", colorNode, colorNodeFill, font)
	fmt.Fprintf(&b, "\tedge [color=%q, fontcolor=%q, fontsize=\"10\"%s];\n", colorEdge, colorEdgeText, font)
	for i := range d.Nodes {
		n := &d.Nodes[i]
		fmt.Fprintf(&b, "\t%s [label=%s", dotID(n), dotQuote(n.Label))
		if n.Page {
			fmt.Fprintf(&b, ", shape=\"note\", style=\"filled\", fillcolor=%q", colorPageFill)
		}
		if n.Highlight {
			fmt.Fprintf(&b, ", color=%q, fillcolor=%q, penwidth=\"2.5\"", colorHighlight, colorHighlightFill)
		}
		b.WriteString("];\n")
	}
	for _, e := range d.Edges {
		fmt.Fprintf(&b, "\t%s -> %s [label=%s", dotID(&d.Nodes[e.From]), dotID(&d.Nodes[e.To]), dotQuote(e.Label))
		if e.Dashed {
			b.WriteString(", style=\"dashed\"")
		}
		if e.Highlight {
			fmt.Fprintf(&b, ", color=%q, fontcolor=%q, penwidth=\"2.5\"", colorHighlight, colorHighlight)
		}
		b.WriteString("];\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// Mermaid returns d as a Mermaid flowchart.
func Mermaid(d *Drawing) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "flowchart %s\n", d.RankDir)
	for i, n := range d.Nodes {
		if n.Page {
			fmt.Fprintf(&b, "    n%d[/\"%s\"/]\n", i, mermaidEscape(n.Label))
		} else {
			fmt.Fprintf(&b, "    n%d[\"%s\"]\n", i, mermaidEscape(n.Label))
		}
	}
	var hlNodes, hlEdges []string
	for i, n := range d.Nodes {
		if n.Highlight {
			hlNodes = append(hlNodes, "n"+strconv.Itoa(i))
		}
	}
	for i, e := range d.Edges {
		arrow := "-->"
		if e.Dashed {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "    n%d %s|\"%s\"| n%d\n", e.From, arrow, mermaidEscape(e.Label), e.To)
		if e.Highlight {
			hlEdges = append(hlEdges, strconv.Itoa(i))
		}
	}
	if len(hlNodes) > 0 {
		fmt.Fprintf(&b, "    classDef highlight fill:%s,stroke:%s,stroke-width:3px\n", colorHighlightFill, colorHighlight)
		fmt.Fprintf(&b, "    class %s highlight\n", strings.Join(hlNodes, ","))
	}
	if len(hlEdges) > 0 {
		fmt.Fprintf(&b, "    linkStyle %s stroke:%s,stroke-width:3px\n", strings.Join(hlEdges, ","), colorHighlight)
	}
	return b.Bytes()
}

// Colours of the drawings.
const (
	colorNode          = "#495057"
	colorNodeFill      = "#f1f3f5"
	colorPageFill      = "#e7f5ff"
	colorEdge          = "#868e96"
	colorEdgeText      = "#495057"
	colorHighlight     = "#d9480f"
	colorHighlightFill = "#fff4e6"
)

// pagePrefix returns the prefix that turns a page ID into a DOT node ID no
// entity ID can equal: "page:", repeated until no entity ID starts with it.
func (d *Drawing) pagePrefix() string {
	prefix := "page:"
	for {
		clash := false
		for _, n := range d.Nodes {
			if !n.Page && strings.HasPrefix(n.ID, prefix) {
				clash = true
				break
			}
		}
		if !clash {
			return prefix
		}
		prefix += "page:"
	}
}

// LabelText normalises text for a label: CRLF and CR become a line feed, a
// tab becomes a space and any other control character U+FFFD.
func LabelText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\r':
			return '\n'
		case r == '\t':
			return ' '
		case unicode.IsControl(r):
			return utf8.RuneError
		}
		return r
	}, s)
}

// dotQuote returns s as a DOT quoted string: '\\' and '"' escaped with a
// backslash, line feed, carriage return and tab written \n, \r and \t, and
// any other control character \uXXXX. The mapping is one-to-one, so
// distinct IDs stay distinct.
func dotQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// mermaidEscape writes a normalised label for use inside a quoted Mermaid
// label: the characters Mermaid or its HTML labels would interpret become
// entity codes and a line feed becomes <br/>.
func mermaidEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString("#quot;")
		case '&':
			b.WriteString("#amp;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '#':
			b.WriteString("#35;")
		case ';':
			b.WriteString("#59;")
		case '`':
			b.WriteString("#96;")
		case '|':
			b.WriteString("#124;")
		case '\n':
			b.WriteString("<br/>")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
