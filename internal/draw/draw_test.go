package draw

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLabelText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain 中文 🚀", "plain 中文 🚀"},
		{"a\r\nb\rc\nd", "a\nb\nc\nd"},
		{"tab\there", "tab here"},
		{"bell\a nul\x00", "bell\uFFFD nul\uFFFD"},
	} {
		assert.Equal(t, tc.want, LabelText(tc.in), "%q", tc.in)
	}
}

func TestDotQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `""`},
		{`a "b" \N`, `"a \"b\" \\N"`},
		{"l\nc\rt\t\x01", `"l\nc\rt\t\u0001"`},
		{"中文", `"中文"`},
	} {
		assert.Equal(t, tc.want, dotQuote(tc.in), "%q", tc.in)
	}
}

func TestMermaidEscape(t *testing.T) {
	assert.Equal(t, "#quot;#amp;#lt;#gt;#35;#59;#96;#124;<br/>中", mermaidEscape("\"&<>#;`|\n中"))
}

func TestPagePrefix(t *testing.T) {
	for _, tc := range []struct {
		entities []string
		want     string
	}{
		{nil, "page:"},
		{[]string{"a", "pag"}, "page:"},
		{[]string{"page:x"}, "page:page:"},
		{[]string{"page:page:x", "page:y"}, "page:page:page:"},
	} {
		d := &Drawing{Nodes: []Node{{ID: "page:page:page:page:p", Page: true}}}
		for _, id := range tc.entities {
			d.Nodes = append(d.Nodes, Node{ID: id})
		}
		assert.Equal(t, tc.want, d.pagePrefix(), "%q", tc.entities)
	}
}

// sample is a drawing of two entities, a page, a relation that ended and a
// citation, with the first entity and the relation highlighted.
func sample() *Drawing {
	return &Drawing{
		RankDir: "TB",
		Nodes: []Node{
			{ID: "a", Label: "Alice\n(person)", Highlight: true},
			{ID: "page:b", Label: "B|#"},
			{ID: "p1", Page: true, Label: "Note \"1\""},
		},
		Edges: []Edge{
			{From: 0, To: 1, Label: "knows 0.5", Dashed: true, Highlight: true},
			{From: 0, To: 2, Label: "mentioned_in", Dashed: true},
			{From: 1, To: 0, Label: "likes"},
		},
	}
}

func TestDOT(t *testing.T) {
	want := `digraph kgmem {
	graph [charset="UTF-8", rankdir="TB", fontname="Noto Sans"];
	node [shape="box", style="rounded,filled", color="#495057", fillcolor="#f1f3f5", fontname="Noto Sans"];
	edge [color="#868e96", fontcolor="#495057", fontsize="10", fontname="Noto Sans"];
	"a" [label="Alice\n(person)", color="#d9480f", fillcolor="#fff4e6", penwidth="2.5"];
	"page:b" [label="B|#"];
	"page:page:p1" [label="Note \"1\"", shape="note", style="filled", fillcolor="#e7f5ff"];
	"a" -> "page:b" [label="knows 0.5", style="dashed", color="#d9480f", fontcolor="#d9480f", penwidth="2.5"];
	"a" -> "page:page:p1" [label="mentioned_in", style="dashed"];
	"page:b" -> "a" [label="likes"];
}
`
	assert.Equal(t, want, string(DOT(sample(), "Noto\tSans")))
	assert.Equal(t, `digraph kgmem {
	graph [charset="UTF-8", rankdir="LR"];
	node [shape="box", style="rounded,filled", color="#495057", fillcolor="#f1f3f5"];
	edge [color="#868e96", fontcolor="#495057", fontsize="10"];
}
`, string(DOT(&Drawing{RankDir: "LR"}, "")))
}

func TestMermaid(t *testing.T) {
	want := `flowchart TB
    n0["Alice<br/>(person)"]
    n1["B#124;#35;"]
    n2[/"Note #quot;1#quot;"/]
    n0 -.->|"knows 0.5"| n1
    n0 -.->|"mentioned_in"| n2
    n1 -->|"likes"| n0
    classDef highlight fill:#fff4e6,stroke:#d9480f,stroke-width:3px
    class n0 highlight
    linkStyle 0 stroke:#d9480f,stroke-width:3px
`
	assert.Equal(t, want, string(Mermaid(sample())))
	assert.Equal(t, "flowchart RL\n", string(Mermaid(&Drawing{RankDir: "RL"})))
}
