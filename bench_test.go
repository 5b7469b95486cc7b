package kgmem

// Benchmarks. Graph fixtures come from package benchgraph's seeded
// generator and are built once per process; page corpora are generated from
// fixed seeds too. Every benchmark honours -short by keeping its smallest
// size, which is how CI runs them (-benchtime 1x) so that none can rot.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/kgmem/kgmem/internal/benchgraph"
	"github.com/kgmem/kgmem/internal/qaset"
	"github.com/kgmem/kgmem/internal/traverse"
)

// benchRareTerm appears in exactly benchRarePages pages of every generated
// corpus, whatever its size.
const (
	benchRareTerm  = "zqxwv"
	benchRarePages = 8
)

// benchVocabulary returns size distinct pronounceable words (consonant–vowel
// syllables, so none ends in "s" and none is changed by Tokenize).
func benchVocabulary(r *rand.Rand, size int) []string {
	const consonants, vowels = "bcdfghjklmnprtvz", "aeiou"
	seen := make(map[string]bool, size)
	words := make([]string, 0, size)
	var sb strings.Builder
	for len(words) < size {
		sb.Reset()
		for range 2 + r.IntN(3) {
			sb.WriteByte(consonants[r.IntN(len(consonants))])
			sb.WriteByte(vowels[r.IntN(len(vowels))])
		}
		w := sb.String()
		if seen[w] || len(Tokenize(w)) != 1 || Tokenize(w)[0] != w {
			continue
		}
		seen[w] = true
		words = append(words, w)
	}
	return words
}

// searchFixture builds a store of n generated pages (6-word title, 60-word
// content, words drawn from a Zipf distribution over a 20,000-word
// vocabulary) and returns it with the corpus's most frequent word. The same
// n always gives the same corpus.
func searchFixture(b *testing.B, n int) (*InMemoryKnowledgeStore, string) {
	b.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 2024))
	vocab := benchVocabulary(r, 20_000)
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))
	text := func(words int) string {
		var sb strings.Builder
		for i := range words {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[zipf.Uint64()])
		}
		return sb.String()
	}
	ctx := context.Background()
	s := NewInMemoryKnowledgeStore()
	for i := range n {
		content := text(60)
		if i%(n/benchRarePages) == 0 {
			content += " " + benchRareTerm
		}
		p := KnowledgePage{ID: fmt.Sprintf("page-%06d", i), Title: text(6), Content: content}
		if err := s.Put(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	return s, vocab[0]
}

// BenchmarkSearch times Search on generated corpora of increasing size. A
// rare term's cost stays flat as the corpus grows (it reads only the term's
// postings); a common term's grows with the pages that contain it.
func BenchmarkSearch(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			s, common := searchFixture(b, n)
			ctx := context.Background()
			for _, q := range []struct{ name, query string }{
				{"rare", benchRareTerm},
				{"common", common},
				{"rare+common", benchRareTerm + " " + common},
			} {
				b.Run("query="+q.name, func(b *testing.B) {
					res, err := s.Search(ctx, q.query, 10)
					if err != nil || len(res) == 0 {
						b.Fatalf("Search(%q) = %d pages, %v", q.query, len(res), err)
					}
					if q.name == "rare" && len(res) != benchRarePages {
						b.Fatalf("Search(%q) = %d pages, want %d", q.query, len(res), benchRarePages)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if _, err := s.Search(ctx, q.query, 10); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// Graph benchmarks. Fixtures are generated from fixed seeds, so every run
// times the same graphs, and built once per process.

// benchGraphSpec describes a generated graph (see package benchgraph).
type benchGraphSpec = benchgraph.Spec

// benchSizes are the entity/relation counts the traversal benchmarks use;
// -short keeps the smallest.
func benchSizes() [][2]int {
	if testing.Short() {
		return benchgraph.Sizes[:1]
	}
	return benchgraph.Sizes
}

// shortCount writes 1000 as 1k and 1000000 as 1e6.
func shortCount(n int) string { return benchgraph.ShortCount(n) }

// benchData is a generated graph as kgmem values.
type benchData struct {
	entities  []Entity
	relations []Relation
}

// generateBench generates spec's graph as kgmem values.
func generateBench(spec benchGraphSpec) benchData {
	gg := benchgraph.Generate(spec)
	d := benchData{entities: make([]Entity, len(gg.IDs)), relations: make([]Relation, len(gg.Relations))}
	for i := range gg.IDs {
		d.entities[i] = Entity{ID: gg.IDs[i], Name: gg.Names[i]}
	}
	for i, r := range gg.Relations {
		d.relations[i] = Relation{SourceID: gg.IDs[r.Source], TargetID: gg.IDs[r.Target], Type: r.Type, Weight: r.Weight}
	}
	return d
}

func (d benchData) build(tb testing.TB) *InMemoryGraph {
	g := NewInMemoryGraph()
	if err := g.AddBatch(context.Background(), d.entities, d.relations); err != nil {
		tb.Fatal(err)
	}
	return g
}

// benchFixture is a generated graph with its CSR twin and start entities.
type benchFixture struct {
	data   benchData
	g      *InMemoryGraph
	csr    *csrGraph
	starts []string // entities with at least one relation, drawn at random
}

var (
	benchMu       sync.Mutex
	benchFixtures = map[benchGraphSpec]*benchFixture{}
)

func fixture(tb testing.TB, spec benchGraphSpec) *benchFixture {
	benchMu.Lock()
	defer benchMu.Unlock()
	if f, ok := benchFixtures[spec]; ok {
		return f
	}
	f := &benchFixture{data: generateBench(spec)}
	f.g = f.data.build(tb)
	f.csr = newCSR(f.data)
	rng := rand.New(rand.NewPCG(1, uint64(spec.Relations)))
	for len(f.starts) < 64 {
		e := f.data.entities[rng.IntN(len(f.data.entities))]
		s := f.g.ids[e.ID]
		if len(f.g.nodes[s].out)+len(f.g.nodes[s].in) > 0 {
			f.starts = append(f.starts, e.ID)
		}
	}
	benchFixtures[spec] = f
	return f
}

// csrGraph is the comparison baseline: entity IDs interned to dense
// integers and adjacency in compressed sparse rows, the fastest layout for a
// static graph. It exists only to measure GetRelated against.
type csrGraph struct {
	ids             map[string]int32
	entities        []Entity
	relations       []Relation
	outOff, inOff   []int32
	outTo, inTo     []int32
	outRel, inRel   []int32 // index in relations
	outW, inW       []float64
	stamp           []uint32
	epoch           uint32
	score           []float64
	parent, prel    []int32
	frontier, next_ []int32
	reached         []int32
}

func newCSR(d benchData) *csrGraph {
	n := len(d.entities)
	c := &csrGraph{ids: make(map[string]int32, n), outOff: make([]int32, n+1), inOff: make([]int32, n+1),
		entities: d.entities, relations: d.relations}
	for i, e := range d.entities {
		c.ids[e.ID] = int32(i)
	}
	for _, r := range d.relations {
		c.outOff[c.ids[r.SourceID]+1]++
		c.inOff[c.ids[r.TargetID]+1]++
	}
	for i := range n {
		c.outOff[i+1] += c.outOff[i]
		c.inOff[i+1] += c.inOff[i]
	}
	m := len(d.relations)
	c.outTo, c.inTo = make([]int32, m), make([]int32, m)
	c.outW, c.inW = make([]float64, m), make([]float64, m)
	c.outRel, c.inRel = make([]int32, m), make([]int32, m)
	outPos, inPos := slices.Clone(c.outOff[:n]), slices.Clone(c.inOff[:n])
	for i, r := range d.relations {
		s, t := c.ids[r.SourceID], c.ids[r.TargetID]
		c.outTo[outPos[s]], c.outW[outPos[s]], c.outRel[outPos[s]] = t, r.Weight, int32(i)
		outPos[s]++
		c.inTo[inPos[t]], c.inW[inPos[t]], c.inRel[inPos[t]] = s, r.Weight, int32(i)
		inPos[t]++
	}
	c.stamp = make([]uint32, n)
	c.score = make([]float64, n)
	c.parent, c.prel = make([]int32, n), make([]int32, n)
	return c
}

// bfs visits every entity within depth hops of start, keeping each entity's
// best score at its fewest-hop distance (ties: first found), and returns the
// reached entities in hop order. stamp[v] - base is the hop at which v was
// reached in this call.
func (c *csrGraph) bfs(start string, depth int, dir Direction) (reached []int32, base uint32) {
	base = c.epoch + 1
	c.epoch += uint32(depth) + 1
	s := c.ids[start]
	c.stamp[s], c.score[s], c.parent[s] = base, 1, -1
	frontier := append(c.frontier[:0], s)
	reached = c.reached[:0]
	for hop := 1; hop <= depth && len(frontier) > 0; hop++ {
		cur := base + uint32(hop)
		next := c.next_[:0]
		visit := func(u int32, su float64, to, rel []int32, w []float64) {
			for i, v := range to {
				sc := su * w[i]
				switch st := c.stamp[v]; {
				case st < base:
					c.stamp[v], c.score[v], c.parent[v], c.prel[v] = cur, sc, u, rel[i]
					next = append(next, v)
				case st == cur && sc > c.score[v]:
					c.score[v], c.parent[v], c.prel[v] = sc, u, rel[i]
				}
			}
		}
		for _, u := range frontier {
			su := c.score[u]
			if dir != Incoming {
				lo, hi := c.outOff[u], c.outOff[u+1]
				visit(u, su, c.outTo[lo:hi], c.outRel[lo:hi], c.outW[lo:hi])
			}
			if dir != Outgoing {
				lo, hi := c.inOff[u], c.inOff[u+1]
				visit(u, su, c.inTo[lo:hi], c.inRel[lo:hi], c.inW[lo:hi])
			}
		}
		reached = append(reached, next...)
		frontier, c.next_ = next, frontier
	}
	c.frontier, c.reached = frontier, reached
	return reached, base
}

// related is the baseline with GetRelated's output: the reached entities
// sorted by score, hops and ID, each with a copy of the entity, its path
// and the relations along it.
func (c *csrGraph) related(start string, depth int, dir Direction) []ScoredEntity {
	reached, base := c.bfs(start, depth, dir)
	slices.SortFunc(reached, func(a, b int32) int {
		switch {
		case c.score[a] > c.score[b]:
			return -1
		case c.score[a] < c.score[b]:
			return 1
		case c.stamp[a] != c.stamp[b]:
			return int(c.stamp[a]) - int(c.stamp[b])
		}
		return strings.Compare(c.entities[a].ID, c.entities[b].ID)
	})
	out := make([]ScoredEntity, len(reached))
	for i, v := range reached {
		k := int(c.stamp[v] - base)
		path, rels := make([]string, k+1), make([]Relation, k)
		for n, j := v, k; j >= 0; n, j = c.parent[n], j-1 {
			path[j] = c.entities[n].ID
			if j > 0 {
				rels[j-1] = c.relations[c.prel[n]]
			}
		}
		out[i] = ScoredEntity{Entity: c.entities[v], Score: c.score[v], Path: path, Relations: rels}
	}
	return out
}

func BenchmarkGetRelated(b *testing.B) {
	ctx := context.Background()
	for _, shape := range []string{"powerlaw", "uniform"} {
		for _, size := range benchSizes() {
			spec := benchGraphSpec{Shape: shape, Entities: size[0], Relations: size[1]}
			b.Run(spec.String(), func(b *testing.B) {
				f := fixture(b, spec)
				for _, depth := range []int{2, 3} {
					for _, dir := range []Direction{Both, Outgoing} {
						name := fmt.Sprintf("depth=%d/dir=%v", depth, dir)
						opts := TraverseOptions{Depth: depth, Direction: dir}
						var reached int
						b.Run(name+"/impl=kgmem", func(b *testing.B) {
							b.ReportAllocs()
							reached = 0
							for i := 0; b.Loop(); i++ {
								res, err := f.g.GetRelated(ctx, f.starts[i%len(f.starts)], opts)
								if err != nil {
									b.Fatal(err)
								}
								reached += len(res)
							}
							b.ReportMetric(float64(reached)/float64(b.N), "entities/op")
						})
						b.Run(name+"/impl=kgmem-related", func(b *testing.B) {
							b.ReportAllocs()
							n := 0
							for i := 0; b.Loop(); i++ {
								res, err := f.g.Related(ctx, f.starts[i%len(f.starts)], opts)
								if err != nil {
									b.Fatal(err)
								}
								n += res.Len()
							}
							b.ReportMetric(float64(n)/float64(b.N), "entities/op")
						})
						b.Run(name+"/impl=csr+result", func(b *testing.B) {
							b.ReportAllocs()
							n := 0
							for i := 0; b.Loop(); i++ {
								n += len(f.csr.related(f.starts[i%len(f.starts)], depth, dir))
							}
							b.ReportMetric(float64(n)/float64(b.N), "entities/op")
						})
						b.Run(name+"/impl=csr-visit", func(b *testing.B) {
							b.ReportAllocs()
							n := 0
							for i := 0; b.Loop(); i++ {
								reached, _ := f.csr.bfs(f.starts[i%len(f.starts)], depth, dir)
								n += len(reached)
							}
							b.ReportMetric(float64(n)/float64(b.N), "entities/op")
						})
					}
				}
			})
		}
	}
}

// dfsPaths is the comparison baseline for FindPaths: a one-sided depth-first
// enumeration of simple paths from src with the same pruning (a partial
// path scoring below the k-th best complete path is abandoned) and the same
// ranking. It returns the same answer as FindPaths when nothing truncates.
func dfsPaths(g *InMemoryGraph, src, dst string, opts PathOptions) []traverse.Path {
	g.mu.RLock()
	defer g.mu.RUnlock()
	st := g.step(opts.RelationTypes, opts.AsOf)
	var best traverse.Best
	k := opts.MaxPaths
	if k == 0 {
		k = defaultMaxPaths
	}
	best.Reset(st, k)
	target := g.ids[dst]
	nodes := []int32{g.ids[src]}
	var rels []int32
	var walk func(score float64)
	walk = func(score float64) {
		at := nodes[len(nodes)-1]
		if at == target {
			best.Add(traverse.Path{Nodes: nodes, Rels: rels, Score: score})
			return
		}
		if len(rels) == opts.MaxHops {
			return
		}
		type step struct {
			to, rel int32
			w       float64
		}
		var steps []step
		_, _, _ = st.Expand(context.Background(), nodes[len(nodes)-1:], traverse.Dir(opts.Direction), math.MaxInt, func(_ int, to, rel int32, w float64) {
			steps = append(steps, step{to, rel, w})
		})
		for _, s := range steps {
			next := score * s.w
			if next < best.Threshold() || slices.Contains(nodes, s.to) {
				continue
			}
			nodes, rels = append(nodes, s.to), append(rels, s.rel)
			walk(next)
			nodes, rels = nodes[:len(nodes)-1], rels[:len(rels)-1]
		}
	}
	walk(1)
	return best.Paths()
}

// pathPairs returns source/target pairs of f's graph that are joined by a
// path of at most maxHops relations, found by GetRelated, so that every
// timed FindPaths call has an answer to find.
func (f *benchFixture) pathPairs(tb testing.TB, maxHops int, dir Direction) [][2]string {
	var pairs [][2]string
	for _, s := range f.starts {
		// Related ranks as GetRelated does without copying out entities,
		// paths and relations.
		related, err := f.g.Related(context.Background(), s, TraverseOptions{Depth: maxHops, Direction: dir})
		if err != nil {
			tb.Fatal(err)
		}
		if n := related.Len(); n > 0 {
			pairs = append(pairs, [2]string{s, related.ID(n / 2)})
		}
		if len(pairs) == 16 {
			break
		}
	}
	return pairs
}

// pathBenchSizes are the graphs the FindPaths benchmarks use. One-sided
// enumeration is exponential in MaxHops, so they stop at 100k relations.
func pathBenchSizes() [][2]int {
	sizes := [][2]int{{1_000, 5_000}, {10_000, 100_000}}
	if testing.Short() {
		return sizes[:1]
	}
	return sizes
}

func BenchmarkFindPaths(b *testing.B) {
	ctx := context.Background()
	for _, shape := range []string{"powerlaw", "uniform"} {
		for _, size := range pathBenchSizes() {
			spec := benchGraphSpec{Shape: shape, Entities: size[0], Relations: size[1]}
			b.Run(spec.String(), func(b *testing.B) {
				f := fixture(b, spec)
				for _, hops := range []int{4, 6} {
					for _, dir := range []Direction{Outgoing, Both} {
						opts := PathOptions{MaxHops: hops, Direction: dir}
						pairs := f.pathPairs(b, hops, dir)
						name := fmt.Sprintf("hops=%d/dir=%v", hops, dir)
						b.Run(name+"/impl=kgmem", func(b *testing.B) {
							// Both implementations must give the same answer;
							// check the first pair before timing.
							res, err := f.g.FindPaths(ctx, pairs[0][0], pairs[0][1], opts)
							if err != nil {
								b.Fatal(err)
							}
							want := toPaths(f.g.step(nil, AsOf{}), dfsPaths(f.g, pairs[0][0], pairs[0][1], opts))
							if len(res.Paths) != len(want) || res.Paths[0].Score != want[0].Score {
								b.Fatalf("FindPaths and the one-sided enumeration disagree: %v vs %v", res.Paths, want)
							}
							b.ReportAllocs()
							for i := 0; b.Loop(); i++ {
								p := pairs[i%len(pairs)]
								res, err := f.g.FindPaths(ctx, p[0], p[1], opts)
								if err != nil || res.Truncated {
									b.Fatalf("FindPaths: truncated %v, %v", res.Truncated, err)
								}
							}
						})
						b.Run(name+"/impl=one-sided-dfs", func(b *testing.B) {
							b.ReportAllocs()
							for i := 0; b.Loop(); i++ {
								p := pairs[i%len(pairs)]
								if len(dfsPaths(f.g, p[0], p[1], opts)) == 0 {
									b.Fatal("no path")
								}
							}
						})
					}
				}
			})
		}
	}
}

// pathWork runs one search like g.FindPaths and returns the work it did
// against the graph's path budget: relations scanned, pairs of partial
// paths joined and partial paths built.
func pathWork(tb testing.TB, g *InMemoryGraph, src, dst string, opts PathOptions) (scans, joins, partials int, truncated bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	ps := new(traverse.PathSearch)
	_, truncated, err := findPaths(context.Background(), ps, g.step(opts.RelationTypes, AsOf{}), g.ids[src], g.ids[dst], opts, g.pathBudget)
	if err != nil {
		tb.Fatal(err)
	}
	stats := ps.Stats()
	return g.pathBudget - stats.ScansLeft, g.pathBudget - stats.JoinsLeft, stats.Partials, truncated
}

// benchPathWork times FindPaths from src to dst on g and reports, beside
// time and allocations, the work one call does against the path budget
// (relations scanned, pairs joined, partial paths built), the budget, and
// whether the budget cut the search (truncated: 1).
func benchPathWork(b *testing.B, g *InMemoryGraph, src, dst string, opts PathOptions) {
	ctx := context.Background()
	scans, joins, partials, truncated := pathWork(b, g, src, dst, opts)
	b.ReportAllocs()
	for b.Loop() {
		res, err := g.FindPaths(ctx, src, dst, opts)
		if err != nil || res.Truncated != truncated {
			b.Fatalf("FindPaths: truncated %v, %v", res.Truncated, err)
		}
	}
	b.ReportMetric(float64(scans), "scans/op")
	b.ReportMetric(float64(joins), "joins/op")
	b.ReportMetric(float64(partials), "partials/op")
	b.ReportMetric(float64(g.pathBudget), "budget")
	t := 0.0
	if truncated {
		t = 1
	}
	b.ReportMetric(t, "truncated")
}

// BenchmarkFindPathsTies times FindPaths (MaxHops 4, default options) on
// bow-ties src → m → hub → m → dst whose weights are all 1, so that m²
// paths tie: the search decides among them in O(m) joins, exactly.
func BenchmarkFindPathsTies(b *testing.B) {
	sizes := []int{1_000, 4_000, 16_000, 64_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, m := range sizes {
		es, rs := bowTie(m, one(1))
		b.Run(fmt.Sprintf("entities=%s/relations=%s", shortCount(len(es)/1000*1000), shortCount(len(rs))), func(b *testing.B) {
			benchPathWork(b, buildGraph(b, es, rs), "src", "dst", PathOptions{MaxHops: 4})
		})
	}
}

// BenchmarkFindPathsHub times FindPaths (MaxHops 10) through a hub: 2,000
// two-hop paths lead into an entity with fan relations. Growing the 2,000
// partial paths would scan 2,000·fan relations; the budget cuts the scan.
// With weight=0.5 every relation scanned is dropped (three direct paths
// score higher), with weight=1 each builds a partial path: the worst case
// of a search the budget cuts.
func BenchmarkFindPathsHub(b *testing.B) {
	fans := []int{10_000, 100_000, 1_000_000}
	if testing.Short() {
		fans = fans[:1]
	}
	for _, fan := range fans {
		for _, w := range []float64{0.5, 1} {
			es, rs := giantHub(2_000, fan, w)
			b.Run(fmt.Sprintf("paths=2k/fan=%s/weight=%v", shortCount(fan), w), func(b *testing.B) {
				benchPathWork(b, buildGraph(b, es, rs), "src", "dst", PathOptions{MaxHops: 10})
			})
		}
	}
}

// BenchmarkMemory builds the largest benchmark graph and reports the heap
// it holds: bytes per entity (measured after adding the entities), bytes
// per relation (measured after adding the relations on top), and the whole
// heap of the graph per relation, entities included (total-bytes/relation).
// The relations' share is broken down by structure, from the capacities
// the graph holds: the relation records (record-bytes/relation), both
// adjacency lists (adj-bytes/relation), the hubs' key tables
// (keys-bytes/relation), and the rest (other-bytes/relation). Time per op
// is the build time and means little.
func BenchmarkMemory(b *testing.B) {
	sizes := benchSizes()
	size := sizes[len(sizes)-1]
	spec := benchGraphSpec{Shape: "powerlaw", Entities: size[0], Relations: size[1]}
	d := generateBench(spec)
	ctx := context.Background()
	b.Run(spec.String(), func(b *testing.B) {
		var perEntity, perRelation, total float64
		var parts memoryParts
		for b.Loop() {
			before := heapInUse()
			g := NewInMemoryGraph()
			for _, e := range d.entities {
				if err := g.AddEntity(ctx, e); err != nil {
					b.Fatal(err)
				}
			}
			withEntities := heapInUse()
			for _, r := range d.relations {
				if err := g.AddRelation(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
			withRelations := heapInUse()
			perEntity = float64(withEntities-before) / float64(len(d.entities))
			perRelation = float64(withRelations-withEntities) / float64(len(d.relations))
			total = float64(withRelations-before) / float64(len(d.relations))
			parts = graphMemoryParts(g)
			runtime.KeepAlive(g)
		}
		m := float64(len(d.relations))
		b.ReportMetric(perEntity, "bytes/entity")
		b.ReportMetric(perRelation, "bytes/relation")
		b.ReportMetric(total, "total-bytes/relation")
		b.ReportMetric(float64(parts.records)/m, "record-bytes/relation")
		b.ReportMetric(float64(parts.adjacency)/m, "adj-bytes/relation")
		b.ReportMetric(float64(parts.keys)/m, "keys-bytes/relation")
		b.ReportMetric(perRelation-float64(parts.records+parts.adjacency+parts.keys)/m, "other-bytes/relation")
	})
}

// memoryParts is the heap held by the relation structures of a graph, in
// bytes, from their capacities.
type memoryParts struct {
	records, adjacency, keys int
}

func graphMemoryParts(g *InMemoryGraph) memoryParts {
	g.mu.RLock()
	defer g.mu.RUnlock()
	p := memoryParts{records: cap(g.rels) * int(unsafe.Sizeof(relRec{}))}
	for i := range g.nodes {
		n := &g.nodes[i]
		p.adjacency += (cap(n.out) + cap(n.in)) * int(unsafe.Sizeof(adj{}))
		if n.outKeys != nil {
			p.keys += int(unsafe.Sizeof(*n.outKeys)) + 4*cap(n.outKeys.slots)
		}
	}
	return p
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkWrites times single-threaded writes: one AddRelation call per
// relation against AddBatch of the same relations, into a graph that holds
// the entities already.
func BenchmarkWrites(b *testing.B) {
	size := benchSizes()[0]
	if !testing.Short() {
		size = benchSizes()[1]
	}
	spec := benchGraphSpec{Shape: "powerlaw", Entities: size[0], Relations: size[1]}
	d := generateBench(spec)
	ctx := context.Background()
	fresh := func(b *testing.B) *InMemoryGraph {
		b.StopTimer()
		g := NewInMemoryGraph()
		if err := g.AddBatch(ctx, d.entities, nil); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		return g
	}
	b.Run(spec.String()+"/op=AddRelation", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g := fresh(b)
			for _, r := range d.relations {
				if err := g.AddRelation(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(d.relations)), "ns/relation")
	})
	b.Run(spec.String()+"/op=AddBatch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g := fresh(b)
			if err := g.AddBatch(ctx, nil, d.relations); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(d.relations)), "ns/relation")
	})
	b.Run(spec.String()+"/op=AddEntity", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			g := NewInMemoryGraph()
			b.StartTimer()
			for _, e := range d.entities {
				if err := g.AddEntity(ctx, e); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(d.entities)), "ns/entity")
	})
}

// BenchmarkGetRelatedParallel runs GetRelated from 1 and from 2 goroutines
// on the same graph; with readers sharing the lock, throughput should
// nearly double on two cores. It reports traversals per second.
func BenchmarkGetRelatedParallel(b *testing.B) {
	size := benchSizes()[0]
	if !testing.Short() {
		size = benchSizes()[1]
	}
	spec := benchGraphSpec{Shape: "powerlaw", Entities: size[0], Relations: size[1]}
	f := fixture(b, spec)
	opts := TraverseOptions{Depth: 2, Direction: Both, Limit: 50}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("%s/goroutines=%d", spec, workers), func(b *testing.B) {
			b.ReportAllocs()
			var wg sync.WaitGroup
			per := (b.N + workers - 1) / workers
			b.ResetTimer()
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range per {
						start := f.starts[(w*per+i)%len(f.starts)]
						if _, err := f.g.GetRelated(context.Background(), start, opts); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(per*workers)/b.Elapsed().Seconds(), "traversals/s")
		})
	}
}

// retrieveFixture is a memory of the size an agent accumulates over months:
// a power-law graph of 40k entities and 130k relations whose entities cite
// 5k generated pages, and queries that name one or two entities among other
// words.
type retrieveFixture struct {
	r         *MemoryRetriever
	queries   []string
	graphOnly *MemoryRetriever
	questions []string
}

func newRetrieveFixture(tb testing.TB, entities, relations, pages int) *retrieveFixture {
	ctx := context.Background()
	spec := benchGraphSpec{Shape: "powerlaw", Entities: entities, Relations: relations}
	d := generateBench(spec)
	rng := rand.New(rand.NewPCG(9, 9))
	vocab := benchVocabulary(rng, 5000)
	for i := range d.entities {
		d.entities[i].SourceIDs = []string{fmt.Sprintf("page-%05d", rng.IntN(pages))}
	}
	g := NewInMemoryGraph()
	if err := g.AddBatch(ctx, d.entities, d.relations); err != nil {
		tb.Fatal(err)
	}
	s := NewInMemoryKnowledgeStore()
	words := func(n int) string {
		var b []byte
		for i := range n {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, vocab[rng.IntN(len(vocab))]...)
		}
		return string(b)
	}
	for i := range pages {
		content := words(40) + " " + d.entities[rng.IntN(len(d.entities))].Name + " " + words(40)
		if err := s.Put(ctx, KnowledgePage{ID: fmt.Sprintf("page-%05d", i), Title: words(5), Content: content}); err != nil {
			tb.Fatal(err)
		}
	}
	f := &retrieveFixture{r: NewMemoryRetriever(s, RetrieverConfig{}, WithKnowledgeGraph(g)),
		graphOnly: NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithStrategy(GraphOnly))}
	templates := []string{"who works on %s", "what is %s part of", "where is the team of %s located",
		"which tools does %s use", "who does %s know", "what do the people %s knows work on"}
	for i := range 200 {
		name := d.entities[rng.IntN(len(d.entities))].Name
		f.questions = append(f.questions, fmt.Sprintf(templates[i%len(templates)], name))
	}
	for range 200 {
		q := "what does " + d.entities[rng.IntN(len(d.entities))].Name + " know about " + words(2)
		if rng.IntN(2) == 0 {
			q += " and " + d.entities[rng.IntN(len(d.entities))].Name
		}
		f.queries = append(f.queries, q)
	}
	return f
}

// BenchmarkRetrieve times Retrieve with the default configuration on the
// power-law memory (hubs with thousands of relations) and reports the
// median and 99th percentile latency of single calls: Hybrid over queries
// that name one or two entities among other words, and GraphOnly over
// questions that ask for relations ("who works on X", "what is X part of",
// "where is the team of X located").
func BenchmarkRetrieve(b *testing.B) {
	entities, relations, pages := 40_000, 130_000, 5_000
	if testing.Short() {
		entities, relations, pages = 4_000, 13_000, 500
	}
	f := newRetrieveFixture(b, entities, relations, pages)
	name := fmt.Sprintf("entities=%s/relations=%s/pages=%s", shortCount(entities), shortCount(relations), shortCount(pages))
	b.Run(name+"/hybrid", func(b *testing.B) { benchRetrieve(b, f.r, f.queries) })
	b.Run(name+"/graph-questions", func(b *testing.B) { benchRetrieve(b, f.graphOnly, f.questions) })
}

// BenchmarkRetrieveMovies times GraphOnly Retrieve on the generated movie
// set of internal/qaset (21k entities, 149k relations; genres, languages
// and years are hubs of thousands of films) over its questions, by hop
// count.
func BenchmarkRetrieveMovies(b *testing.B) {
	set := qaset.Movies()
	g := NewInMemoryGraph()
	es := make([]Entity, len(set.Entities))
	for i, e := range set.Entities {
		es[i] = Entity{ID: e.ID, Name: e.Name, Type: e.Type, Aliases: e.Aliases}
	}
	rs := make([]Relation, len(set.Relations))
	for i, r := range set.Relations {
		rs[i] = Relation{SourceID: r.Source, TargetID: r.Target, Type: r.Type, Weight: 1}
	}
	if err := g.AddBatch(context.Background(), es, rs); err != nil {
		b.Fatal(err)
	}
	r := NewMemoryRetriever(nil, RetrieverConfig{}, WithKnowledgeGraph(g), WithStrategy(GraphOnly))
	for hops := 1; hops <= 3; hops++ {
		var qs []string
		for _, q := range set.Questions {
			if q.Hops == hops {
				qs = append(qs, q.Text)
			}
		}
		b.Run(fmt.Sprintf("hops=%d", hops), func(b *testing.B) { benchRetrieve(b, r, qs) })
	}
}

// benchRetrieve asks r the queries round robin and reports the median and
// 99th percentile latency.
func benchRetrieve(b *testing.B, r *MemoryRetriever, queries []string) {
	ctx := context.Background()
	b.ReportAllocs()
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		res, err := r.Retrieve(ctx, queries[i%len(queries)])
		if err != nil || len(res.Items) == 0 {
			b.Fatalf("Retrieve(%q): %d items, %v", queries[i%len(queries)], len(res.Items), err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// Benchmarks of inputs that once cost time quadratic in their size (see
// cost_test.go): each doubles or quadruples its input across sizes, so a
// cost that grows faster than the input shows at once.

// BenchmarkIngestRepeatedEntity parses and ingests model output that names
// one entity again and again, each time with 20 new aliases.
func BenchmarkIngestRepeatedEntity(b *testing.B) {
	sizes := []int{500, 2000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		out := repeatedEntityOutput(n, 20)
		b.Run(fmt.Sprintf("mentions=%d/aliases=20", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(out)))
			for b.Loop() {
				x, err := ParseExtraction(out)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Ingest(context.Background(), NewInMemoryGraph(), x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIngestTags ingests one entity with many tags into a graph that
// keeps them all.
func BenchmarkIngestTags(b *testing.B) {
	sizes := []int{10_000, 40_000, 160_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = fmt.Sprintf("Tag%d", i)
		}
		x := Extraction{Entities: []ExtractedEntity{{Name: "x", Tags: tags}}}
		b.Run(fmt.Sprintf("tags=%s", shortCount(n)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g := NewInMemoryGraph(WithTagConstraints(TagConstraints{MaxTagsPerEntity: n}))
				if _, err := Ingest(context.Background(), g, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAddBatchTypes adds, in one batch, relations between two
// entities that each have a type of their own.
func BenchmarkAddBatchTypes(b *testing.B) {
	sizes := []int{1_000, 10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		ents, rels := manyTypes(n)
		b.Run(fmt.Sprintf("types=%s", shortCount(n)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := NewInMemoryGraph().AddBatch(context.Background(), ents, rels); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/relation")
		})
	}
}

// BenchmarkReadFromTypes reads a snapshot of relations that each have a
// type of their own.
func BenchmarkReadFromTypes(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		ents, rels := manyTypes(n)
		g := NewInMemoryGraph()
		if err := g.AddBatch(context.Background(), ents, rels); err != nil {
			b.Fatal(err)
		}
		var snap bytes.Buffer
		if _, err := g.WriteTo(&snap); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("types=%s", shortCount(n)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(snap.Len()))
			for b.Loop() {
				if _, err := NewInMemoryGraph().ReadFrom(bytes.NewReader(snap.Bytes())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadFromTagsLine reads a snapshot whose one entity has many
// distinct tags, which the default limit of 8 refuses.
func BenchmarkReadFromTagsLine(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = fmt.Sprintf("t%d", i)
		}
		line, err := json.Marshal(Entity{ID: "a", Tags: tags})
		if err != nil {
			b.Fatal(err)
		}
		in := []byte(`{"format":"kgmem-graph","version":1,"entities":1,"relations":0}` + "\n" + string(line) + "\n")
		b.Run(fmt.Sprintf("tags=%s", shortCount(n)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := NewInMemoryGraph().ReadFrom(bytes.NewReader(in)); !errors.Is(err, ErrInvalidArgument) {
					b.Fatalf("ReadFrom = %v, want ErrInvalidArgument", err)
				}
			}
		})
	}
}

// BenchmarkReadFromLyingHeader reads inputs whose header announces 10¹²
// entities and whose second line is not one: the cost must not depend on
// the input's size, nor on the header's claim.
func BenchmarkReadFromLyingHeader(b *testing.B) {
	sizes := []int{1 << 20, 32 << 20}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, size := range sizes {
		in := make([]byte, size)
		h := `{"format":"kgmem-graph","version":1,"entities":1000000000000,"relations":0}` + "\nxx\n"
		copy(in, h)
		for i := len(h); i < len(in); i++ {
			in[i] = '\n'
		}
		b.Run(fmt.Sprintf("bytes=%dMiB", size>>20), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewInMemoryGraph().ReadFrom(bytes.NewReader(in)); !errors.Is(err, ErrInvalidArgument) {
					b.Fatalf("ReadFrom = %v, want ErrInvalidArgument", err)
				}
			}
		})
	}
}
