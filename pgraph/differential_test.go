package pgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// The differential test applies one random sequence of operations, valid
// and invalid, to kgmem's in-memory graph and to a Graph, and requires
// every answer to be the same: errors by sentinel (and, for rejected
// writes, by message), results exactly.

// Pools the random operations draw from. They are small, so that IDs,
// keys and tags collide often, and full of case-folding traps.
var (
	diffIDs = []string{
		"a", "b", "c", "person:alice", "Person:Alice", "张三", "张三丰", "k:\u212a", "k:k",
		"σ", "Σ", "ς", "api", "ＡＰＩ", "x y",
	}
	diffNames = []string{
		"", "Alice", "ALICE smith", "Project Apollo", "apollo", "张三", "张三丰", "ＡＰＩ Gateway",
		"api", "Go", "google", "O'Brien", "Straße", "STRASSE", "\u212aelvin", "kelvin", "Σίσυφος",
		"ﬁle", "file", "负责", "Ünïcödé", "x  y", "a", "ab", "abc",
	}
	diffTags = []string{
		" Go", "go", "ML", "rust ", "", "  ", "机器", "机器学习", "GO ", "Graph", "ÉCOLE", "école",
		"\u212a", "k", "ſ", "s", "Σ", "tag-1", "TAG-1", "x",
	}
	diffTypes   = []string{"r", "s", "knows", "works_on", "Knows", "类型"}
	diffWeights = []float64{0, 0.25, 0.5, 0.75, 1, math.Copysign(0, -1), 1.0 / 3, 0.1, 0.9999999999999999}
	diffWords   = []string{
		"who", "works", "on", "project", "apollo", "Apollo", "张三", "负责", "什么", "项目", "？", ",",
		"ＡＰＩ", "api", "gateway", "alice", "SMITH", "o'brien", "strasse", "straße", "\u212aelvin",
		"file", "ﬁle", "σίσυφος", "go", "google", "x", "y", "a", "ab", "abc", "person:alice", " ",
	}
)

// diffStep is one random operation: it runs against a graph and renders
// everything the graph answered.
type diffStep struct {
	name   string
	write  bool
	do     func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error)
	linker bool // do needs g to be an EntityLinker
}

type diffGen struct{ rng *rand.Rand }

func (d *diffGen) pick(list []string) string { return list[d.rng.IntN(len(list))] }

func (d *diffGen) some(list []string, max int) []string {
	var out []string
	for range d.rng.IntN(max + 1) {
		out = append(out, d.pick(list))
	}
	return out
}

// id returns an entity ID, now and then an invalid, empty or blank one.
func (d *diffGen) id() string {
	switch d.rng.IntN(40) {
	case 0:
		return ""
	case 1:
		return "bad\xff"
	case 2:
		return d.pick([]string{" ", "\t\n", "\u3000"})
	}
	return d.pick(diffIDs)
}

func (d *diffGen) entity() kgmem.Entity {
	e := kgmem.Entity{
		ID:   d.id(),
		Name: d.pick(diffNames),
		Type: d.pick([]string{"", "person", "project"}),
		Tags: d.some(diffTags, 10),
	}
	if d.rng.IntN(2) == 0 {
		e.Aliases = d.some(diffNames, 3)
	}
	if d.rng.IntN(3) == 0 {
		e.Description = "about " + d.pick(diffNames)
		e.Properties = map[string]string{"k": d.pick(diffNames), d.pick(diffTypes): "v"}
		e.SourceIDs = d.some([]string{"page:1", "page:2", "页"}, 2)
	}
	switch d.rng.IntN(30) {
	case 0:
		e.Name = "bad\xfe"
	case 1:
		e.Tags = append(e.Tags, "\xff")
	case 2:
		e.Properties = map[string]string{"k": "\xff"}
	}
	return e
}

func (d *diffGen) relation() kgmem.Relation {
	r := kgmem.Relation{
		SourceID: d.id(), TargetID: d.id(), Type: d.pick(diffTypes),
		Weight: diffWeights[d.rng.IntN(len(diffWeights))],
	}
	if d.rng.IntN(3) == 0 {
		r.Properties = map[string]string{"since": d.pick(diffNames)}
		r.SourceIDs = []string{"page:1"}
	}
	switch d.rng.IntN(25) {
	case 0:
		r.Weight = math.NaN()
	case 1:
		r.Weight = 1.5
	case 2:
		r.Weight = math.Inf(-1)
	case 3:
		r.Type = d.pick([]string{"", " "})
	case 4:
		r.Type = "t\xff"
	case 5:
		r.TargetID = r.SourceID // a self-loop
	}
	return r
}

func (d *diffGen) types() []string {
	switch d.rng.IntN(6) {
	case 0:
		return []string{d.pick(diffTypes)}
	case 1:
		return []string{d.pick(diffTypes), d.pick(diffTypes)}
	case 2:
		if d.rng.IntN(4) == 0 {
			return []string{"r", ""}
		}
	}
	return nil
}

func (d *diffGen) text() string {
	var b strings.Builder
	for i := range 1 + d.rng.IntN(8) {
		if i > 0 && d.rng.IntN(3) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.pick(diffWords))
	}
	return b.String()
}

// step returns a random operation.
func (d *diffGen) step() diffStep {
	switch op := d.rng.IntN(118); {
	case op >= 112:
		src := d.pick([]string{"page:1", "page:2", "页", "page:3", "", " ", "bad\xff", "nul\x00"})
		return diffStep{name: fmt.Sprintf("RemoveSource(%q)", src), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.(interface {
				RemoveSource(context.Context, string) (kgmem.RemoveSourceReport, error)
			}).RemoveSource(ctx, src)
		}}
	case op < 14:
		e := d.entity()
		return diffStep{name: fmt.Sprintf("AddEntity(%+v)", e), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return nil, g.AddEntity(ctx, e)
		}}
	case op < 17:
		id := d.id()
		return diffStep{name: fmt.Sprintf("RemoveEntity(%q)", id), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return nil, g.RemoveEntity(ctx, id)
		}}
	case op < 42:
		r := d.relation()
		return diffStep{name: fmt.Sprintf("AddRelation(%+v)", r), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return nil, g.AddRelation(ctx, r)
		}}
	case op < 46:
		src, dst, typ := d.id(), d.id(), d.pick(diffTypes)
		return diffStep{name: fmt.Sprintf("RemoveRelation(%q, %q, %q)", src, dst, typ), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return nil, g.RemoveRelation(ctx, src, dst, typ)
		}}
	case op < 50:
		id, tags := d.id(), d.some(diffTags, 12)
		if d.rng.IntN(20) == 0 {
			tags = append(tags, "\xff")
		}
		return diffStep{name: fmt.Sprintf("SetEntityTags(%q, %q)", id, tags), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.SetEntityTags(ctx, id, tags)
		}}
	case op < 54:
		var es []kgmem.Entity
		var rs []kgmem.Relation
		for range d.rng.IntN(4) {
			es = append(es, d.entity())
		}
		for range d.rng.IntN(6) {
			rs = append(rs, d.relation())
		}
		return diffStep{name: fmt.Sprintf("AddBatch(%+v, %+v)", es, rs), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return nil, g.(interface {
				AddBatch(context.Context, []kgmem.Entity, []kgmem.Relation) error
			}).AddBatch(ctx, es, rs)
		}}
	case op < 60:
		id := d.id()
		return diffStep{name: fmt.Sprintf("GetEntity(%q)", id), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			e, ok, err := g.GetEntity(ctx, id)
			return []any{e, ok}, err
		}}
	case op < 72:
		id := d.id()
		opts := kgmem.TraverseOptions{
			Depth: d.rng.IntN(5) - d.rng.IntN(2), Direction: kgmem.Direction(d.rng.IntN(3)),
			RelationTypes: d.types(), MaxNodesPerHop: d.rng.IntN(4), Limit: d.rng.IntN(6),
		}
		if d.rng.IntN(20) == 0 {
			opts.Direction = 7
		}
		return diffStep{name: fmt.Sprintf("GetRelated(%q, %+v)", id, opts), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.GetRelated(ctx, id, opts)
		}}
	case op < 82:
		src, dst := d.id(), d.id()
		opts := kgmem.PathOptions{
			MaxHops: d.rng.IntN(6) - d.rng.IntN(2), Direction: kgmem.Direction(d.rng.IntN(3)),
			RelationTypes: d.types(), MaxPaths: d.rng.IntN(5), MaxNodesPerHop: d.rng.IntN(3),
		}
		return diffStep{name: fmt.Sprintf("FindPaths(%q, %q, %+v)", src, dst, opts), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.FindPaths(ctx, src, dst, opts)
		}}
	case op < 88:
		kws := d.some(append(diffWords, diffTags...), 4)
		if d.rng.IntN(30) == 0 {
			kws = append(kws, "\xff")
		}
		return diffStep{name: fmt.Sprintf("FindByKeywords(%q)", kws), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.FindByKeywords(ctx, kws)
		}}
	case op < 91:
		prefix := d.pick(append(diffTags, "G", "机", "É", "t"))
		return diffStep{name: fmt.Sprintf("FindTags(%q)", prefix), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.FindTags(ctx, prefix)
		}}
	case op < 94:
		tag := d.pick(diffTags)
		return diffStep{name: fmt.Sprintf("EntityCountByTag(%q)", tag), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.EntityCountByTag(ctx, tag)
		}}
	case op < 97:
		text := d.text()
		return diffStep{name: fmt.Sprintf("LinkEntities(%q)", text), linker: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.(kgmem.EntityLinker).LinkEntities(ctx, text)
		}}
	case op >= 100 && op < 104:
		name := d.pick(append(diffNames, diffWords...))
		if d.rng.IntN(3) == 0 {
			name = d.text()
		}
		return diffStep{name: fmt.Sprintf("FindByName(%q)", name), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return g.(kgmem.NameFinder).FindByName(ctx, name)
		}}
	case op >= 108:
		from, into := d.id(), d.id()
		return diffStep{name: fmt.Sprintf("Merge(%q, %q)", from, into), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return nil, g.(kgmem.EntityMerger).Merge(ctx, from, into)
		}}
	case op >= 104:
		// Ingest resolves names through NameFinder on both graphs.
		var x kgmem.Extraction
		for range 1 + d.rng.IntN(3) {
			x.Entities = append(x.Entities, kgmem.ExtractedEntity{
				Name: d.pick(diffNames), Type: d.pick([]string{"", "person", "project"}), Tags: d.some(diffTags, 2),
			})
		}
		for range d.rng.IntN(3) {
			r := kgmem.ExtractedRelation{Source: d.pick(diffNames), Target: d.pick(diffNames), Type: d.pick(diffTypes)}
			if d.rng.IntN(2) == 0 {
				w := diffWeights[d.rng.IntN(len(diffWeights))]
				r.Weight = &w
			}
			x.Relations = append(x.Relations, r)
		}
		opts := []kgmem.IngestOption{kgmem.WithSource("page:ingest")}
		if d.rng.IntN(2) == 0 {
			opts = append(opts, kgmem.WithPlaceholders())
		}
		return diffStep{name: fmt.Sprintf("Ingest(%+v)", x), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			return kgmem.Ingest(ctx, g, x, opts...)
		}}
	default:
		// The graph channel: linking, the walk search over the backend's
		// neighbourhood, scoring and explanations.
		text := d.text() + " " + d.pick([]string{"works on", "knows", "类型", "r", "which s", "who", ""}) + " " + d.text()
		return diffStep{name: fmt.Sprintf("Retrieve(%q)", text), do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
			r := kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{MaxResults: 8},
				kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.GraphOnly))
			res, err := r.Retrieve(ctx, text)
			var items []string
			for _, it := range res.Items {
				items = append(items, fmt.Sprintf("%.15g %s %s", it.Score, it.Explain(), it.Path))
			}
			return []any{items, res.Stats.Linked, res.Warnings}, err
		}}
	}
}

// sentinel names the kgmem sentinel err wraps.
func sentinel(err error) string {
	for _, s := range []error{kgmem.ErrNotFound, kgmem.ErrInvalidArgument, kgmem.ErrNoPath, context.Canceled} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return "nil"
}

func TestDifferential(t *testing.T) {
	needDB(t)
	histories, steps := 12, 400
	if testing.Short() {
		histories, steps = 3, 250
	}
	for h := range histories {
		t.Run(fmt.Sprint("history=", h), func(t *testing.T) {
			runDifferential(t, uint64(h), steps)
		})
	}
}

func runDifferential(t *testing.T, history uint64, steps int) {
	ctx := t.Context()
	opts := []kgmem.Option{}
	var popts []Option
	if history%3 == 1 {
		opts = append(opts, kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 2}))
		popts = append(popts, WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 2}))
	}
	ref := kgmem.NewInMemoryGraph(opts...)
	g := newTestGraph(t, popts...)
	gen := &diffGen{rng: rand.New(rand.NewPCG(history, 0xd1ff))}
	counts := map[string]int{}
	for i := range steps {
		var s diffStep
		if i < len(diffIDs) {
			// Start from a populated graph, so that relations and
			// traversals have something to work on.
			e := gen.entity()
			e.ID = diffIDs[i]
			s = diffStep{name: fmt.Sprintf("AddEntity(%+v)", e), write: true, do: func(ctx context.Context, g kgmem.KnowledgeGraph) (any, error) {
				return nil, g.AddEntity(ctx, e)
			}}
		} else {
			s = gen.step()
		}
		want, werr := s.do(ctx, ref)
		got, gerr := s.do(ctx, g)
		if sentinel(werr) != sentinel(gerr) {
			t.Fatalf("step %d: %s:\nerror %v\nwant  %v", i, s.name, gerr, werr)
		}
		if s.write && werr != nil {
			if w, g := werr.Error(), strings.Replace(gerr.Error(), "pgraph:", "kgmem:", 1); w != g {
				t.Fatalf("step %d: %s: error message\n%s\nwant\n%s", i, s.name, g, w)
			}
		}
		if werr == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("step %d: %s:\ngot  %+v\nwant %+v", i, s.name, got, want)
		}
		outcome := sentinel(werr)
		if v := reflect.ValueOf(want); werr == nil && want != nil && v.Kind() == reflect.Slice {
			outcome = fmt.Sprintf("%d results", min(v.Len(), 3))
		} else if p, ok := want.(kgmem.PathResult); ok && werr == nil {
			outcome = fmt.Sprintf("%d paths", len(p.Paths))
		}
		counts[strings.SplitN(s.name, "(", 2)[0]+": "+outcome]++
	}
	t.Logf("operations by kind and outcome: %v", counts)
}

// TestNULBytes pins how the graph treats strings PostgreSQL cannot store:
// writes holding a NUL byte are rejected with ErrInvalidArgument, and reads
// naming one find nothing, as they would in a graph where no such string
// was ever written.
func TestNULBytes(t *testing.T) {
	g := newTestGraph(t)
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(g.AddEntity(ctx, kgmem.Entity{ID: "a", Name: "A"}))
	must(g.AddEntity(ctx, kgmem.Entity{ID: "b", Name: "B"}))
	must(g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 1}))
	for name, err := range map[string]error{
		"AddEntity ID":       g.AddEntity(ctx, kgmem.Entity{ID: "a\x00"}),
		"AddEntity name":     g.AddEntity(ctx, kgmem.Entity{ID: "a", Name: "x\x00"}),
		"AddEntity property": g.AddEntity(ctx, kgmem.Entity{ID: "a", Properties: map[string]string{"k": "\x00"}}),
		"AddEntity tag":      g.AddEntity(ctx, kgmem.Entity{ID: "a", Tags: []string{"t\x00"}}),
		"AddRelation type":   g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t\x00", Weight: 1}),
		"AddRelation source": g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 1, SourceIDs: []string{"\x00"}}),
		"SetEntityTags": func() error {
			_, err := g.SetEntityTags(ctx, "a", []string{"ok", "t\x00"})
			return err
		}(),
	} {
		if !errors.Is(err, kgmem.ErrInvalidArgument) || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("%s: error %v, want ErrInvalidArgument naming the NUL byte", name, err)
		}
	}
	if _, ok, err := g.GetEntity(ctx, "a\x00"); ok || err != nil {
		t.Errorf("GetEntity(NUL) = %v, %v", ok, err)
	}
	for name, err := range map[string]error{
		"RemoveEntity":   g.RemoveEntity(ctx, "a\x00"),
		"RemoveRelation": g.RemoveRelation(ctx, "a", "b", "t\x00"),
		"SetEntityTags": func() error {
			_, err := g.SetEntityTags(ctx, "a\x00", []string{"ok"})
			return err
		}(),
		"GetRelated": func() error {
			_, err := g.GetRelated(ctx, "a\x00", kgmem.TraverseOptions{Depth: 1})
			return err
		}(),
		"FindPaths": func() error {
			_, err := g.FindPaths(ctx, "a", "b\x00", kgmem.PathOptions{MaxHops: 1})
			return err
		}(),
	} {
		if !errors.Is(err, kgmem.ErrNotFound) {
			t.Errorf("%s: error %v, want ErrNotFound", name, err)
		}
	}
	res, err := g.GetRelated(ctx, "a", kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{"t\x00"}})
	if err != nil || len(res) != 0 {
		t.Errorf("GetRelated with a NUL type filter = %v, %v; want nothing", res, err)
	}
	es, err := g.FindByKeywords(ctx, []string{"a\x00", "b"})
	if err != nil || len(es) != 1 || es[0].ID != "b" {
		t.Errorf("FindByKeywords with a NUL keyword = %v, %v; want b alone", es, err)
	}
	if n, err := g.EntityCountByTag(ctx, "t\x00"); n != 0 || err != nil {
		t.Errorf("EntityCountByTag(NUL) = %d, %v", n, err)
	}
	if tags, err := g.FindTags(ctx, "\x00"); len(tags) != 0 || err != nil {
		t.Errorf("FindTags(NUL) = %q, %v", tags, err)
	}
}
