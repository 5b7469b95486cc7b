// Command compare times kgmem's GetRelated against other ways of answering
// the same question, which entities lie within a few hops of a start
// entity, on exactly the graphs kgmem's own benchmarks use (package
// internal/benchgraph), and prints a markdown table.
//
// # Running
//
// bench/compare is a module of its own, so that kgmem's go.mod never
// requires gonum. From the repository root:
//
//	go run -C bench/compare .
//	go run -C bench/compare . -full -clock cpu -plot ../../docs/perf.png
//
// or, inside bench/compare, go run . with the same flags:
//
//	-sizes 5k,100k   graph sizes by relation count, from benchgraph.Sizes
//	                 (5k, 100k, 1e6); the default is the first two
//	-full            add the 1e6-relation graph
//	-benchtime 300ms length of one timed run
//	-count 3         timed runs per measurement; the fastest is reported
//	-clock wall      what ns/op measures: wall (elapsed time, as go test
//	                 -bench) or, on Linux, cpu (CPU time of the thread that
//	                 runs the traversals, which leaves out time spent waiting
//	                 for a CPU and so stays steady on a busy machine)
//	-impls kgmem,csr-visit  compare only these implementations, kgmem
//	                 first (default: all)
//	-plot perf.png   also draw ns/op against relations, log-log, for depth 2
//	                 and 3, Both, power-law graphs; the path is relative to
//	                 the working directory, which go run -C sets to
//	                 bench/compare
//
// The default run (two shapes, two sizes) takes under two minutes on two
// cores; -full adds the 1e6-relation graphs, where one traversal can take a
// second, and brings it to about a quarter of an hour and 4 GB of memory
// (gonum's multigraphs are the largest structure). The table goes to
// standard output, progress to standard error.
//
// # What it compares
//
// For each graph shape (powerlaw, uniform) and size, depth 2 and 3 and
// direction Both and Outgoing, every implementation answers from the same
// 64 start entities, drawn as kgmem's BenchmarkGetRelated draws them
// (uniformly among the entities with at least one relation). A first pass
// over the starts warms up and records the entity counts; then each timed
// run covers every start equally often, enough passes to last -benchtime,
// and ns/op is the fastest of up to -count runs (a single pass when one pass
// already takes -count × -benchtime). The implementations:
//
//   - kgmem: InMemoryGraph.GetRelated with the workload's Depth and
//     Direction and no Limit, building the full result: every entity reached
//     with its score, its best path and the relations along it, sorted.
//
//   - gonum: gonum.org/v1/gonum/graph/traverse.BreadthFirst over a
//     multi.WeightedDirectedGraph (Outgoing) or a multi.WeightedUndirectedGraph
//     built from the same relations (Both), one line per relation, with the
//     depth limit in Walk's until callback. It computes reachability only.
//
//   - map-visit: a level-by-level BFS over map[string][]int adjacency
//     (entity ID to relation indexes), the layout many hand-written graph
//     stores use, keeping each entity's hop, best score, parent and relation
//     as GetRelated does, but building no result values.
//
//   - map+result: the same BFS followed by building GetRelated's output from
//     it: entities sorted by score, hops and ID, each with its path and
//     relations. It does kgmem's work on a string-keyed layout (except that
//     ties between equally scored paths go to the first one found).
//
//   - kgmem-related: InMemoryGraph.Related with the same options: the same
//     entities, order and scores as GetRelated, as a compact snapshot of IDs,
//     scores, hops, parent links and relation keys, with no entity, path or
//     relation copied.
//
//   - csr-visit: a level-by-level BFS over compressed sparse rows (entity
//     indexes as dense integers, flat target and weight arrays) keeping each
//     entity's hop, best score and parent, building no result: the bound for
//     a traversal over an interned static layout.
//
// kgmem and map+result return full results; gonum and map-visit only walk,
// so their columns are a floor for what a traversal over those layouts
// costs, not like-for-like with kgmem.
//
// The entity counts of the first pass must agree between implementations,
// start by start; a workload where they do not gets a warning row and the
// command exits with status 1. The implementations run
// one after another in the same process, each with only its own graph
// structure in memory.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/benchgraph"
)

// numStarts is how many start entities each workload cycles through.
const numStarts = 64

var (
	shapes     = []string{"powerlaw", "uniform"}
	depths     = []int{2, 3}
	directions = []kgmem.Direction{kgmem.Both, kgmem.Outgoing}
)

// workload is one timed question: a graph, a depth and a direction.
type workload struct {
	spec  benchgraph.Spec
	depth int
	dir   kgmem.Direction
}

func (w workload) String() string {
	return fmt.Sprintf("%s/%s/depth=%d/%v", w.spec.Shape, benchgraph.ShortCount(w.spec.Relations), w.depth, w.dir)
}

// result is what one workload measured. counts[i][s] is how many entities
// implementation impls[i] reached from the s-th start; nsPerOp[i] is its
// time per traversal, 0 when not timed.
type result struct {
	w        workload
	starts   []int
	counts   [][]int
	nsPerOp  []float64
	mismatch string // empty when every implementation reached as many entities from every start
}

// meanReached is the mean number of entities reached per traversal, by the
// first implementation.
func (r result) meanReached() float64 {
	sum := 0
	for _, c := range r.counts[0] {
		sum += c
	}
	return float64(sum) / float64(len(r.counts[0]))
}

// pickStarts returns n start entities of gg as entity indexes, drawn the way
// kgmem's benchmark fixture draws them: uniformly, from a PCG generator
// keyed by the relation count, skipping entities without relations.
func pickStarts(gg benchgraph.Graph, spec benchgraph.Spec, n int) []int {
	degree := make([]int, len(gg.IDs))
	for _, r := range gg.Relations {
		degree[r.Source]++
		degree[r.Target]++
	}
	rng := rand.New(rand.NewPCG(1, uint64(spec.Relations)))
	var starts []int
	for len(starts) < n {
		if e := rng.IntN(len(gg.IDs)); degree[e] > 0 {
			starts = append(starts, e)
		}
	}
	return starts
}

// compareSpec generates spec's graph and runs every workload on it with
// every implementation, over the first nStarts start entities, measured by
// m. progress receives one line per step.
func compareSpec(spec benchgraph.Spec, nStarts int, m measurer, progress io.Writer) ([]result, error) {
	gg := benchgraph.Generate(spec)
	starts := pickStarts(gg, spec, numStarts)[:nStarts]
	var results []result
	for _, depth := range depths {
		for _, dir := range directions {
			w := workload{spec: spec, depth: depth, dir: dir}
			results = append(results, result{w: w, starts: starts, counts: make([][]int, len(impls)), nsPerOp: make([]float64, len(impls))})
		}
	}
	for i, im := range impls {
		fmt.Fprintf(progress, "%s: building %s\n", spec, im.name)
		reach, err := im.build(gg)
		if err != nil {
			return nil, fmt.Errorf("%s: build %s: %w", spec, im.name, err)
		}
		for k := range results {
			r := &results[k]
			fmt.Fprintf(progress, "%s: %s\n", r.w, im.name)
			r.counts[i], r.nsPerOp[i], err = m.measure(func(n int) (int, error) {
				return reach(starts[n], r.w.depth, r.w.dir)
			}, len(starts))
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", r.w, im.name, err)
			}
		}
		// Drop this implementation's structures before building the next, so
		// that each is timed with only its own graph on the heap.
		reach = nil
		runtime.GC()
	}
	for k := range results {
		results[k].mismatch = checkCounts(gg, results[k])
	}
	return results, nil
}

// checkCounts returns a description of the first start from which the
// implementations reached different numbers of entities, or "".
func checkCounts(gg benchgraph.Graph, r result) string {
	for s, start := range r.starts {
		want := r.counts[0][s]
		for i := range impls {
			if r.counts[i][s] != want {
				parts := make([]string, len(impls))
				for j, im := range impls {
					parts[j] = fmt.Sprintf("%s %d", im.name, r.counts[j][s])
				}
				return fmt.Sprintf("entity counts disagree from %s: %s", gg.IDs[start], strings.Join(parts, ", "))
			}
		}
	}
	return ""
}

// writeHeader writes the machine description, how m measures, and the
// table header.
func writeHeader(w io.Writer, m measurer) {
	fmt.Fprintf(w, "kgmem GetRelated vs gonum traverse.BreadthFirst vs a map[string][]int BFS\n\n")
	fmt.Fprintf(w, "%s %s/%s, %d CPUs, %s", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel())
	if l := loadAverage(); l >= 0 {
		fmt.Fprintf(w, ", load average %.1f", l)
		if l > float64(runtime.NumCPU()) && m.clock == wallClock {
			fmt.Fprintf(w, " (busy: wall-clock times will be inflated; -clock cpu is steadier)")
		}
	}
	fmt.Fprintf(w, "\n\n%d start entities per workload; ns/op is %s time, the fastest of up to %d runs of at least %v, each covering every start.\n\n",
		numStarts, m.clock, m.count, m.benchtime)
	head, rule := "| workload | entities reached |", "|---|---:|"
	for _, im := range impls {
		head += " " + im.name + " ns/op |"
		rule += "---:|"
	}
	for _, im := range impls[1:] {
		head += " " + im.name + " / kgmem |"
		rule += "---:|"
	}
	fmt.Fprintf(w, "%s\n%s\n", head, rule)
}

// writeRow writes one table row, or a warning row when the implementations
// disagree.
func writeRow(w io.Writer, r result) {
	row := fmt.Sprintf("| %s |", r.w)
	if r.mismatch != "" {
		row = fmt.Sprintf("| ⚠ %s | %s |", r.w, r.mismatch)
		row += strings.Repeat(" |", 2*len(impls)-1)
		fmt.Fprintln(w, row)
		return
	}
	row += fmt.Sprintf(" %.0f |", r.meanReached())
	for _, ns := range r.nsPerOp {
		row += fmt.Sprintf(" %.0f |", ns)
	}
	for _, ns := range r.nsPerOp[1:] {
		row += " " + ratio(ns, r.nsPerOp[0]) + " |"
	}
	fmt.Fprintln(w, row)
}

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f×", a/b)
}

// cpuModel returns the CPU model named in /proc/cpuinfo, or GOARCH when
// there is none.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for line := range strings.Lines(string(data)) {
			if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
				return strings.TrimSpace(value)
			}
		}
	}
	return runtime.GOARCH
}

// parseSizes turns a comma-separated list of relation counts ("5k,100k",
// "5000", "1e6") into entries of benchgraph.Sizes.
func parseSizes(list string) ([][2]int, error) {
	var sizes [][2]int
	for tok := range strings.SplitSeq(list, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		found := false
		for _, s := range benchgraph.Sizes {
			if tok == benchgraph.ShortCount(s[1]) || tok == strconv.Itoa(s[1]) {
				sizes, found = append(sizes, s), true
				break
			}
		}
		if !found {
			var valid []string
			for _, s := range benchgraph.Sizes {
				valid = append(valid, benchgraph.ShortCount(s[1]))
			}
			return nil, fmt.Errorf("unknown size %q: want relation counts among %s", tok, strings.Join(valid, ", "))
		}
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("no sizes given")
	}
	return sizes, nil
}

// implNames lists the names of impls, comma-separated.
func implNames() string {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.name
	}
	return strings.Join(names, ",")
}

// selectImpls returns the implementations named in list, in its order;
// kgmem must come first, since the ratios are relative to it.
func selectImpls(list string) ([]impl, error) {
	var out []impl
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(impls, func(im impl) bool { return im.name == name })
		if i < 0 {
			return nil, fmt.Errorf("-impls: unknown implementation %q (known: %s)", name, implNames())
		}
		out = append(out, impls[i])
	}
	if out[0].name != "kgmem" {
		return nil, fmt.Errorf("-impls %s: kgmem must come first", list)
	}
	return out, nil
}

// config is what the command's flags set.
type config struct {
	sizes     string        // comma-separated relation counts
	full      bool          // add the largest size
	benchtime time.Duration // length of one timed run
	count     int           // timed runs per measurement, the fastest kept
	clock     string        // "wall" or "cpu"
	plot      string        // PNG path, or "" for none
	impls     string        // comma-separated implementation names; "" for all
}

func main() {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	var defaults []string
	for _, s := range benchgraph.Sizes[:2] {
		defaults = append(defaults, benchgraph.ShortCount(s[1]))
	}
	var cfg config
	fs.StringVar(&cfg.sizes, "sizes", strings.Join(defaults, ","), "graph sizes by relation count, comma-separated, from benchgraph.Sizes")
	fs.BoolVar(&cfg.full, "full", false, "add the largest size ("+benchgraph.ShortCount(benchgraph.Sizes[len(benchgraph.Sizes)-1][1])+" relations)")
	fs.DurationVar(&cfg.benchtime, "benchtime", 300*time.Millisecond, "length of one timed run")
	fs.IntVar(&cfg.count, "count", 3, "timed runs per measurement; the fastest is reported")
	fs.StringVar(&cfg.clock, "clock", string(wallClock), "what ns/op measures: wall (elapsed time) or cpu (CPU time of the measuring thread, steadier on a busy machine; Linux only)")
	fs.StringVar(&cfg.impls, "impls", "", "compare only these implementations, comma-separated, kgmem first (default all: "+implNames()+")")
	fs.StringVar(&cfg.plot, "plot", "", "write a PNG of ns/op against relations to this path (relative to the working directory)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: compare [flags]\n\nTimes kgmem's GetRelated against gonum's BreadthFirst and a map-based BFS\non the graphs kgmem's benchmarks use, and prints a markdown table.\n\n")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	if err := run(cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// errMismatch is returned by run when some workload's implementations
// disagree on the entity counts.
var errMismatch = fmt.Errorf("implementations disagree on the entities reached; see the warning rows")

// run measures every workload cfg selects, writing the table to out and
// progress lines to progress, and draws the plot if cfg asks for one.
func run(cfg config, out, progress io.Writer) error {
	sizes, err := parseSizes(cfg.sizes)
	if err != nil {
		return err
	}
	if cfg.full {
		last := benchgraph.Sizes[len(benchgraph.Sizes)-1]
		if !slices.Contains(sizes, last) {
			sizes = append(sizes, last)
		}
	}
	if cfg.benchtime <= 0 {
		return fmt.Errorf("-benchtime %v: want a positive duration", cfg.benchtime)
	}
	if cfg.count < 1 {
		return fmt.Errorf("-count %d: want at least 1", cfg.count)
	}
	clk, err := parseClock(cfg.clock)
	if err != nil {
		return err
	}
	if cfg.impls != "" {
		if cfg.plot != "" {
			return fmt.Errorf("-plot draws kgmem and gonum: it needs every implementation, not -impls")
		}
		chosen, err := selectImpls(cfg.impls)
		if err != nil {
			return err
		}
		defer func(all []impl) { impls = all }(impls)
		impls = chosen
	}
	m := measurer{benchtime: cfg.benchtime, count: cfg.count, clock: clk}
	began := time.Now()
	writeHeader(out, m)
	var all []result
	mismatch := false
	for _, shape := range shapes {
		for _, size := range sizes {
			spec := benchgraph.Spec{Shape: shape, Entities: size[0], Relations: size[1]}
			results, err := compareSpec(spec, numStarts, m, progress)
			if err != nil {
				return err
			}
			for _, r := range results {
				writeRow(out, r)
				mismatch = mismatch || r.mismatch != ""
			}
			all = append(all, results...)
		}
	}
	fmt.Fprintf(out, "\nRatios above 1 mean the other implementation takes longer than kgmem. Total time %s", time.Since(began).Round(time.Second))
	if l := loadAverage(); l >= 0 {
		fmt.Fprintf(out, "; load average at the end %.1f", l)
	}
	fmt.Fprintln(out, ".")
	if cfg.plot != "" {
		if err := drawPlot(all, m.clock, cfg.plot); err != nil {
			return err
		}
		fmt.Fprintf(progress, "wrote %s\n", cfg.plot)
	}
	if mismatch {
		return errMismatch
	}
	return nil
}
