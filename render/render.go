// Package render draws a piece of an agent's memory — a kgmem graph, a path
// search, a GetRelated or a Retrieve result — as Graphviz DOT or as a
// Mermaid flowchart.
//
// It sits above package kgmem and uses only its exported API: build a
// Subgraph with Graph, Related, Paths or Retrieval (or fill one by hand),
// then write it with DOT or Mermaid:
//
//	sg, err := render.Paths(ctx, g, res)
//	...
//	err = render.Mermaid(os.Stdout, sg, render.Options{})
//
// Output is deterministic, labels are escaped for each format, and
// non-ASCII text stays UTF-8.
package render

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/draw"
	"github.com/kgmem/kgmem/internal/quote"
)

// Subgraph is a piece of an agent's memory to draw with DOT or
// Mermaid: entities, the relations between them, knowledge pages and
// the citations that link entities to pages, and optionally one path to
// highlight.
//
// A Subgraph is a plain value; build one with Graph, Related, Paths or
// Retrieval, or fill the fields directly. The
// writers never modify it. They draw it by these rules:
//   - An entity ID may appear more than once; it is drawn once. Among the
//     copies the writers keep the one with a Type, then the one with a Name,
//     then the smallest Name, then the smallest Type, so the order of the
//     slices never changes the output. Pages with the same ID are merged the
//     same way by Title.
//   - A relation key may appear more than once; it is drawn once: the
//     copy with the greatest weight, then the latest end, then the latest
//     start. Duplicate citations are drawn once.
//   - A relation or citation whose endpoint is not in the subgraph is
//     dropped: the writers never draw an edge to an undeclared node.
//   - Entities are drawn in ID order, then pages in ID order; relations in
//     key order (SourceID, TargetID, Type), then citations in
//     (EntityID, PageID) order. Equal subgraphs therefore give byte-identical
//     text.
type Subgraph struct {
	// Entities are the nodes, labelled with their Name (their ID when the
	// name is empty) and Type.
	Entities []kgmem.Entity
	// Relations are the edges between entities, labelled with their Type
	// and Weight, and with their valid time on a second line when they
	// have one ("2024-03 → 2025-06"). A relation with a ValidTo, a fact
	// that ended, is drawn dashed (DOT style "dashed", Mermaid "-.->").
	Relations []kgmem.Relation
	// Pages are knowledge pages, drawn with a shape of their own.
	Pages []kgmem.KnowledgePage
	// Citations link an entity to a page that mentions it; they are drawn
	// as "mentioned_in" edges from the entity to the page.
	Citations []Citation
	// Highlight is a path to emphasise: its entities and relations are drawn
	// in a strong colour. The zero Path highlights nothing. Every entity of a
	// non-empty Highlight must be in Entities, and each of its
	// len(EntityIDs)-1 relations must be a drawn relation (matched by key)
	// joining consecutive entities, in either direction; otherwise the
	// writers return ErrInvalidArgument.
	Highlight kgmem.Path
}

// Citation records that a knowledge page mentions an entity.
type Citation struct {
	EntityID string // the entity mentioned, an Entity of the Subgraph
	PageID   string // the page that mentions it, a Page of the Subgraph
}

// Options configures DOT and Mermaid. The zero value draws
// left to right with entity types and relation weights shown.
type Options struct {
	// HideWeights leaves relation weights out of edge labels, which then
	// hold the relation type alone. By default an edge reads
	// "works_on 0.9": the weight with at most three significant digits.
	HideWeights bool
	// HideTypes leaves entity types out of node labels. By default an
	// entity with a Type is labelled with its name and, on a second line,
	// the type in parentheses. Relation types are always shown.
	HideTypes bool
	// RankDir is the direction the graph flows: "LR" (the default when
	// empty), "RL", "TB" or "BT". Anything else is ErrInvalidArgument.
	RankDir string
	// FontName sets the font of every node and edge label in DOT output;
	// empty leaves Graphviz's default. Graphviz copies it into SVG as a CSS
	// font-family, so a list such as
	// "Noto Sans CJK SC, Helvetica, Arial, sans-serif" lets viewers fall
	// back. Mermaid output ignores it.
	FontName string
}

// Graph returns every entity and relation of g, ordered by ID and
// key, with nothing highlighted. Cost: O(n log n + m log m) for n entities
// and m relations; the result holds copies.
func Graph(ctx context.Context, g *kgmem.InMemoryGraph) (Subgraph, error) {
	entities, err := g.Entities(ctx)
	if err != nil {
		return Subgraph{}, err
	}
	relations, err := g.Relations(ctx)
	if err != nil {
		return Subgraph{}, err
	}
	return Subgraph{Entities: entities, Relations: relations}, nil
}

// Related returns what a GetRelated call reached: start, every
// result entity and the relations along every result's path, with nothing
// highlighted. An entity on a path that is not itself a result (a Limit can
// cut it) is drawn with its ID as its label.
func Related(start kgmem.Entity, related []kgmem.ScoredEntity) Subgraph {
	sg := Subgraph{Entities: []kgmem.Entity{start}}
	for _, r := range related {
		sg.Entities = append(sg.Entities, r.Entity)
		for _, id := range r.Path {
			sg.Entities = append(sg.Entities, kgmem.Entity{ID: id})
		}
		sg.Relations = append(sg.Relations, r.Relations...)
	}
	return sg
}

// Paths returns the entities and relations of every path in res,
// with the best path (res.Paths[0]) highlighted. It asks g for each entity
// on the paths, once, in ID order, to label it; an entity g no longer holds
// is drawn with its ID as its label. An error from g (for example ctx.Err())
// is returned as is.
func Paths(ctx context.Context, g kgmem.KnowledgeGraph, res kgmem.PathResult) (Subgraph, error) {
	var sg Subgraph
	var ids []string
	for _, p := range res.Paths {
		ids = append(ids, p.EntityIDs...)
		sg.Relations = append(sg.Relations, p.Relations...)
	}
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		e, ok, err := g.GetEntity(ctx, id)
		if err != nil {
			return Subgraph{}, err
		}
		if !ok {
			e = kgmem.Entity{ID: id}
		}
		sg.Entities = append(sg.Entities, e)
	}
	if len(res.Paths) > 0 {
		sg.Highlight = res.Paths[0]
	}
	return sg, nil
}

// Retrieval returns what a Retrieve call found: every entity item,
// the entities and relations on its path (labelled with the item's
// PathNames), and every page item. A page that the graph channel surfaced
// (its Path is not empty) is linked by a Citation to the last entity of its
// path, together with that path; a page the text search alone found is
// drawn on its own. Nothing is highlighted; to emphasise one item's
// explanation set Highlight to
// kgmem.Path{EntityIDs: item.Path, Relations: item.Relations}.
func Retrieval(res kgmem.RetrievalResult) Subgraph {
	var sg Subgraph
	for _, it := range res.Items {
		switch {
		case it.Kind == kgmem.ItemEntity && it.Entity != nil:
			sg.Entities = append(sg.Entities, *it.Entity)
		case it.Kind == kgmem.ItemPage && it.Page != nil:
			sg.Pages = append(sg.Pages, *it.Page)
			if n := len(it.Path); n > 0 {
				sg.Citations = append(sg.Citations, Citation{EntityID: it.Path[n-1], PageID: it.Page.ID})
			}
		default:
			continue
		}
		for i, id := range it.Path {
			e := kgmem.Entity{ID: id}
			if i < len(it.PathNames) {
				e.Name = it.PathNames[i]
			}
			sg.Entities = append(sg.Entities, e)
		}
		sg.Relations = append(sg.Relations, it.Relations...)
	}
	return sg
}

// DOT writes sg to w as a Graphviz digraph, for `dot -Tsvg`.
//
// Entities are rounded boxes whose DOT node ID is the entity ID; pages are
// notes whose node ID is the page ID behind a prefix ("page:", repeated
// until no entity ID starts with it, so the two can never collide).
// Relations are solid edges labelled with their type and weight, citations
// dashed "mentioned_in" edges. The highlighted path is drawn in orange with
// thick lines. The graph declares charset="UTF-8" and keeps every
// non-ASCII character as UTF-8.
//
// Every ID, label and attribute value is a double-quoted string in which a
// backslash is written as two backslashes, a double quote as a backslash
// and a double quote, and a line feed as a backslash and 'n'; so a name
// such as `\N` is drawn as written, never expanded by Graphviz. Labels are
// first normalised: a CRLF or CR becomes a line break, a tab a space and any
// other control character U+FFFD. Node IDs must stay distinct, so instead
// a carriage return in an ID is written as a backslash and 'r', a tab as a
// backslash and 't', and any other control character as a backslash, 'u'
// and four hex digits. Graphviz decodes only the quote escape in node IDs
// and keeps the other sequences as written, which is harmless: the mapping
// is one-to-one, so distinct entities stay distinct nodes.
//
// DOT checks sg and opts before writing anything: an entity or page
// with an empty ID, a relation with an empty type or a NaN or infinite
// weight, a drawn string that is not valid UTF-8, an inconsistent Highlight
// or an unknown RankDir returns an error wrapping kgmem.ErrInvalidArgument and
// writes nothing. The text is written with one call to w; an error from w
// is returned wrapped. Cost: O(n log n) in the size of sg.
func DOT(w io.Writer, sg Subgraph, opts Options) error {
	d, err := prepare(sg, opts)
	if err != nil {
		return err
	}
	return writeAll(w, draw.DOT(d, opts.FontName), "DOT")
}

// Mermaid writes sg to w as a Mermaid flowchart, for Markdown that
// renders Mermaid (GitHub, GitLab, many wikis).
//
// Node IDs are n0, n1, … in drawing order (entities by ID, then pages by
// ID), never the raw IDs, so no entity ID can break the syntax. Entities are
// drawn as nX["label"], pages as nX[/"label"/]; relations as
// nX -->|"type weight"| nY and citations as nX -.->|"mentioned_in"| nY.
// The highlighted path's nodes get the class "highlight" (a classDef line)
// and its edges a linkStyle line that lists their indexes in edge order.
//
// Labels are normalised as in DOT, then these characters are written
// as Mermaid entity codes: '"' #quot;, '&' #amp;, '<' #lt;, '>' #gt;,
// '#' #35;, ';' #59;, '`' #96;, '|' #124;. A line break is written <br/>.
// Everything else, Chinese and emoji included, is kept as UTF-8.
//
// Mermaid checks sg and opts exactly as DOT does, writes nothing
// when they are invalid, and writes the text with one call to w; an error
// from w is returned wrapped.
func Mermaid(w io.Writer, sg Subgraph, opts Options) error {
	d, err := prepare(sg, opts)
	if err != nil {
		return err
	}
	return writeAll(w, draw.Mermaid(d), "Mermaid")
}

// prepare validates sg and opts and lays the subgraph out in drawing order.
func prepare(sg Subgraph, opts Options) (*draw.Drawing, error) {
	d := &draw.Drawing{RankDir: opts.RankDir}
	switch d.RankDir {
	case "":
		d.RankDir = "LR"
	case "LR", "RL", "TB", "BT":
	default:
		return nil, fmt.Errorf("kgmem: draw: rank direction %s is not LR, RL, TB or BT: %w", quote.Value(opts.RankDir), kgmem.ErrInvalidArgument)
	}
	if !utf8.ValidString(opts.FontName) {
		return nil, fmt.Errorf("kgmem: draw: font name %s is not valid UTF-8: %w", quote.Value(opts.FontName), kgmem.ErrInvalidArgument)
	}

	entities := make(map[string]kgmem.Entity, len(sg.Entities))
	for _, e := range sg.Entities {
		if err := checkDrawn("entity", e.ID, e.ID, e.Name, e.Type); err != nil {
			return nil, err
		}
		if old, ok := entities[e.ID]; !ok || preferEntity(e, old) {
			entities[e.ID] = e
		}
	}
	pages := make(map[string]kgmem.KnowledgePage, len(sg.Pages))
	for _, p := range sg.Pages {
		if err := checkDrawn("page", p.ID, p.ID, p.Title); err != nil {
			return nil, err
		}
		if old, ok := pages[p.ID]; !ok || preferPage(p, old) {
			pages[p.ID] = p
		}
	}
	relations := make(map[kgmem.RelationKey]kgmem.Relation, len(sg.Relations))
	for _, r := range sg.Relations {
		if err := checkRelation(r); err != nil {
			return nil, err
		}
		r.Weight = storedWeight(r.Weight) // 0 is unweighted, as in the graph
		if old, ok := relations[r.Key()]; !ok || preferRelation(r, old) {
			relations[r.Key()] = r
		}
	}
	citations := make(map[Citation]struct{}, len(sg.Citations))
	for _, c := range sg.Citations {
		if !utf8.ValidString(c.EntityID) || !utf8.ValidString(c.PageID) {
			return nil, fmt.Errorf("kgmem: draw: citation %s -> page %s is not valid UTF-8: %w", quote.Value(c.EntityID), quote.Value(c.PageID), kgmem.ErrInvalidArgument)
		}
		citations[c] = struct{}{}
	}

	// Nodes.
	entityIdx := make(map[string]int, len(entities))
	for _, id := range sortedKeys(entities, strings.Compare) {
		e := entities[id]
		label := e.Name
		if label == "" {
			label = e.ID
		}
		if !opts.HideTypes && e.Type != "" {
			label += "\n(" + e.Type + ")"
		}
		entityIdx[id] = len(d.Nodes)
		d.Nodes = append(d.Nodes, draw.Node{ID: id, Label: draw.LabelText(label)})
	}
	pageIdx := make(map[string]int, len(pages))
	for _, id := range sortedKeys(pages, strings.Compare) {
		p := pages[id]
		label := p.Title
		if label == "" {
			label = p.ID
		}
		pageIdx[id] = len(d.Nodes)
		d.Nodes = append(d.Nodes, draw.Node{ID: id, Page: true, Label: draw.LabelText(label)})
	}

	// Edges, dropping those with an endpoint that is not drawn.
	relEdge := make(map[kgmem.RelationKey]int, len(relations))
	for _, k := range sortedKeys(relations, compareKeys) {
		from, ok1 := entityIdx[k.SourceID]
		to, ok2 := entityIdx[k.TargetID]
		if !ok1 || !ok2 {
			continue
		}
		r := relations[k]
		label := k.Type
		if !opts.HideWeights {
			label += " " + strconv.FormatFloat(r.Weight, 'g', 3, 64)
		}
		if v := r.ValidityString(); v != "" {
			label += "\n" + v
		}
		relEdge[k] = len(d.Edges)
		d.Edges = append(d.Edges, draw.Edge{From: from, To: to, Label: draw.LabelText(label), Dashed: !r.ValidTo.IsZero()})
	}
	for _, c := range sortedKeys(citations, compareCitations) {
		from, ok1 := entityIdx[c.EntityID]
		to, ok2 := pageIdx[c.PageID]
		if !ok1 || !ok2 {
			continue
		}
		d.Edges = append(d.Edges, draw.Edge{From: from, To: to, Label: "mentioned_in", Dashed: true})
	}

	if err := highlight(d, sg.Highlight, entityIdx, relEdge); err != nil {
		return nil, err
	}
	return d, nil
}

// highlight marks the nodes and edges of p, which must be a path through
// the drawn entities and relations.
func highlight(d *draw.Drawing, p kgmem.Path, entityIdx map[string]int, relEdge map[kgmem.RelationKey]int) error {
	if len(p.EntityIDs) == 0 {
		if len(p.Relations) > 0 {
			return fmt.Errorf("kgmem: draw: highlighted path has %d relations and no entities: %w", len(p.Relations), kgmem.ErrInvalidArgument)
		}
		return nil
	}
	if len(p.Relations) != len(p.EntityIDs)-1 {
		return fmt.Errorf("kgmem: draw: highlighted path has %d entities and %d relations: %w", len(p.EntityIDs), len(p.Relations), kgmem.ErrInvalidArgument)
	}
	for i, id := range p.EntityIDs {
		n, ok := entityIdx[id]
		if !ok {
			return fmt.Errorf("kgmem: draw: highlighted entity %s is not in the subgraph: %w", quote.Value(id), kgmem.ErrInvalidArgument)
		}
		d.Nodes[n].Highlight = true
		if i == 0 {
			continue
		}
		r := p.Relations[i-1]
		prev := p.EntityIDs[i-1]
		if (r.SourceID != prev || r.TargetID != id) && (r.SourceID != id || r.TargetID != prev) {
			return fmt.Errorf("kgmem: draw: highlighted relation %s does not join %s and %s: %w",
				describeKey(r.SourceID, r.Type, r.TargetID), quote.Value(prev), quote.Value(id), kgmem.ErrInvalidArgument)
		}
		e, ok := relEdge[r.Key()]
		if !ok {
			return fmt.Errorf("kgmem: draw: highlighted relation %s is not in the subgraph: %w",
				describeKey(r.SourceID, r.Type, r.TargetID), kgmem.ErrInvalidArgument)
		}
		d.Edges[e].Highlight = true
	}
	return nil
}

func checkDrawn(what, id string, fields ...string) error {
	for _, s := range fields {
		if !utf8.ValidString(s) {
			return fmt.Errorf("kgmem: draw: %s %s: %s is not valid UTF-8: %w", what, quote.Value(id), quote.Value(s), kgmem.ErrInvalidArgument)
		}
	}
	if id == "" {
		return fmt.Errorf("kgmem: draw: %s with an empty ID: %w", what, kgmem.ErrInvalidArgument)
	}
	return nil
}

func checkRelation(r kgmem.Relation) error {
	if !utf8.ValidString(r.SourceID) || !utf8.ValidString(r.TargetID) || !utf8.ValidString(r.Type) {
		return fmt.Errorf("kgmem: draw: relation %s is not valid UTF-8: %w", describeKey(r.SourceID, r.Type, r.TargetID), kgmem.ErrInvalidArgument)
	}
	if r.Type == "" {
		return fmt.Errorf("kgmem: draw: relation %s -> %s has an empty type: %w", quote.Value(r.SourceID), quote.Value(r.TargetID), kgmem.ErrInvalidArgument)
	}
	if math.IsNaN(r.Weight) || math.IsInf(r.Weight, 0) {
		return fmt.Errorf("kgmem: draw: relation %s: weight %v: %w", describeKey(r.SourceID, r.Type, r.TargetID), r.Weight, kgmem.ErrInvalidArgument)
	}
	return nil
}

// preferRelation reports whether a, a copy of b's key, is drawn instead of
// b: the greater weight, then the later end (an open end last), then the
// later start, so the order of the copies never changes the output.
func preferRelation(a, b kgmem.Relation) bool {
	if a.Weight != b.Weight {
		return a.Weight > b.Weight
	}
	af, at := validSpan(a)
	bf, bt := validSpan(b)
	if at != bt {
		return at > bt
	}
	return af > bf
}

// preferEntity reports whether a should be drawn rather than b, another
// copy of the same entity: the order-independent rule documented on
// Subgraph.
func preferEntity(a, b kgmem.Entity) bool {
	if (a.Type != "") != (b.Type != "") {
		return a.Type != ""
	}
	if (a.Name != "") != (b.Name != "") {
		return a.Name != ""
	}
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Type, b.Type)) < 0
}

func preferPage(a, b kgmem.KnowledgePage) bool {
	if (a.Title != "") != (b.Title != "") {
		return a.Title != ""
	}
	return a.Title < b.Title
}

func compareCitations(a, b Citation) int {
	return cmp.Or(strings.Compare(a.EntityID, b.EntityID), strings.Compare(a.PageID, b.PageID))
}

func sortedKeys[K comparable, V any](m map[K]V, compare func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compare)
	return keys
}

func writeAll(w io.Writer, p []byte, format string) error {
	n, err := w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("kgmem: write %s: %w", format, err)
	}
	return nil
}

// storedWeight returns the weight the graph stores for a relation stating
// w: 1 for 0 (and -0), which means unweighted, and w otherwise.
func storedWeight(w float64) float64 {
	if w == 0 {
		return 1
	}
	return w
}

// validSpan returns r's interval in microseconds for ordering copies, an
// unknown start as the least value and an open end as the greatest.
func validSpan(r kgmem.Relation) (from, to int64) {
	from, to = math.MinInt64, math.MaxInt64
	if !r.ValidFrom.IsZero() {
		from = r.ValidFrom.UnixMicro()
	}
	if !r.ValidTo.IsZero() {
		to = r.ValidTo.UnixMicro()
	}
	return from, to
}

// compareKeys orders relation keys by SourceID, TargetID, then Type.
func compareKeys(a, b kgmem.RelationKey) int {
	return cmp.Or(strings.Compare(a.SourceID, b.SourceID), strings.Compare(a.TargetID, b.TargetID), strings.Compare(a.Type, b.Type))
}

// describeKey renders a relation key for an error message, every part
// quoted and cut to a short prefix: "a" -["works_on"]-> "b".
func describeKey(sourceID, typ, targetID string) string { return quote.Key(sourceID, typ, targetID) }
