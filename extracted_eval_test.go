package kgmem_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/extractset"
	"github.com/stretchr/testify/require"
)

// The extracted-graph evaluations measure multi-hop passage recall on
// graphs built from what a language model (or, for the generated sets,
// an imitation of one) extracted from the passages, the way a user of
// kgmem builds them: every passage is a KnowledgePage, and its extraction
// goes into the graph through Ingest with WithSource(page ID) and the
// default ingest options. Each question is asked of every configuration in
// xeConfigs; the figures are passage recall@2/@5/@10 (the share of a
// question's gold passages among the first k page items of the result,
// averaged over questions), the share of questions with every gold
// passage in the first 5 pages, and Retrieve's latency.
//
// Run them with
//
//	KGMEM_EVAL=1 KGMEM_DATA=/path/to/data go test -run 'TestExtractedGraphEvaluation|TestGeneratedExtractionEvaluation' -v .
//
// KGMEM_DATA defaults to ../shared/data beside the repository (see
// evalswitch_test.go); from a git worktree that is not beside the data,
// set it. The generated sets need no data. KGMEM_EVAL_ONLY, a
// comma-separated list of "musique", "gen", "gen2" and "gen3", runs only the sets
// it names (all when unset). KGMEM_EVAL_CONFIGS, a list of words separated
// by "|", runs only the configurations whose name contains one of them
// (the content channel always runs: it is the baseline of every
// comparison). To try a configuration, append it to xeConfigs and run,
// for instance,
//
//	KGMEM_EVAL=1 KGMEM_EVAL_ONLY=gen2 KGMEM_EVAL_CONFIGS='my change' go test -run TestGeneratedExtractionEvaluation -v .

// requireLift switches on assertNoWorseThanContent: when true, every
// configuration marked lift must reach the content channel's recall@2,
// @5 and @10 on every set, overall (per hop count the differences are
// logged: a hop count holds as few as two questions).
const requireLift = true

// xeMaxResults is the MaxResults of the configurations: large enough
// that a Hybrid result, which mixes entities with pages, still holds at
// least 10 pages for recall@10 (on musique-dev at 30 a fifth of Hybrid's
// results held fewer; the table's last column counts them). MaxResults
// also sets how many candidates each channel contributes (3 × MaxResults),
// so Hybrid's figures depend on it a little.
const xeMaxResults = 50

// xeConfig is one retriever configuration the evaluations compare: a name
// for the table, a constructor over the set's store and graph, and
// whether assertNoWorseThanContent holds it to the content channel's
// recall (lift).
type xeConfig struct {
	name string
	make func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever
	lift bool
	// embed runs the configuration over a store that embeds with the real
	// model (see usemodel_test.go), on musique-dev only, when
	// KGMEM_USE_MODULES is set.
	embed bool
}

// xeContent is the name of the content channel's configuration, the
// baseline.
const xeContent = "content (KnowledgeOnly, BM25)"

// xeConfigs are the configurations every extracted-graph evaluation runs,
// the content channel first. To measure another one, append it here (or
// run it alone with KGMEM_EVAL_CONFIGS).
var xeConfigs = []xeConfig{
	{xeContent, func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever {
		return kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: xeMaxResults},
			kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.KnowledgeOnly))
	}, false, false},
	{"Hybrid, defaults", func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever {
		return kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: xeMaxResults}, kgmem.WithKnowledgeGraph(g))
	}, true, false},
	{"content + embedder (KnowledgeOnly, BM25 + dense)", func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever {
		return kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: xeMaxResults},
			kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.KnowledgeOnly))
	}, false, true},
	{"Hybrid, defaults + embedder", func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever {
		return kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: xeMaxResults}, kgmem.WithKnowledgeGraph(g))
	}, false, true},
	// Page spreading over every graph, whatever its relation types: what
	// a user whose extraction has a fixed set of types chooses.
	{"Hybrid, SpreadOn", func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever {
		return kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: xeMaxResults, Spread: kgmem.SpreadOn}, kgmem.WithKnowledgeGraph(g))
	}, true, false},
	// Hybrid as it ranked pages before page spreading.
	{"Hybrid, SpreadOff", func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever {
		return kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: xeMaxResults, Spread: kgmem.SpreadOff}, kgmem.WithKnowledgeGraph(g))
	}, false, false},
	// What a user of the default MaxResults (10) gets: entities take
	// about half of the ten items, so R@5 and R@10 count fewer pages.
	{"Hybrid, defaults, MaxResults 10", func(s *kgmem.InMemoryKnowledgeStore, g *kgmem.InMemoryGraph) *kgmem.MemoryRetriever {
		return kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{}, kgmem.WithKnowledgeGraph(g))
	}, false, false},
}

// xeSelected reports whether KGMEM_EVAL_ONLY selects the set named name.
func xeSelected(name string) bool {
	only := os.Getenv("KGMEM_EVAL_ONLY")
	if strings.TrimSpace(only) == "" {
		return true
	}
	for w := range strings.SplitSeq(only, ",") {
		if strings.TrimSpace(w) == name {
			return true
		}
	}
	return false
}

// xeActiveConfigs returns the configurations KGMEM_EVAL_CONFIGS selects,
// the content channel always first.
func xeActiveConfigs() []xeConfig {
	words := strings.Split(os.Getenv("KGMEM_EVAL_CONFIGS"), "|")
	var out []xeConfig
	for i, c := range xeConfigs {
		keep := i == 0 || strings.TrimSpace(os.Getenv("KGMEM_EVAL_CONFIGS")) == ""
		for _, w := range words {
			if w = strings.TrimSpace(w); w != "" && strings.Contains(c.name, w) {
				keep = true
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

// xeQuestion is one question of a set: its text, hop count and the IDs of
// the passages that state its facts.
type xeQuestion struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Hops     int      `json:"hops"`
	Gold     []string `json:"gold"`
}

// xeSet is a set to evaluate: passages as pages, one extraction per page
// (same order), and questions.
type xeSet struct {
	name        string
	pages       []kgmem.KnowledgePage
	extractions []kgmem.Extraction
	questions   []xeQuestion
}

// xeReadLines decodes every line of the JSON-lines file path with decode.
func xeReadLines(t testing.TB, path string, decode func(line []byte) error) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		require.NoErrorf(t, decode(sc.Bytes()), "%s line %d", path, n)
	}
	require.NoError(t, sc.Err(), path)
}

// xeMention is a named entity of an extraction: a name and, when the
// model gave one, a type.
type xeMention struct{ name, typ string }

// xeExtraction turns one passage's named entities and triples into an
// Extraction: an entity for every named entity (with its type, if any)
// and an untyped one for every triple endpoint that no named entity
// already spells the same way up to case and white space (each distinct
// name once, in order of appearance), and a relation per triple, the
// predicate as its type. A triple with an empty part is left out.
func xeExtraction(entities []xeMention, triples [][]string) kgmem.Extraction {
	var x kgmem.Extraction
	seen := map[string]bool{}
	add := func(name, typ string) {
		key := strings.Join(strings.Fields(strings.ToLower(name)), " ")
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		x.Entities = append(x.Entities, kgmem.ExtractedEntity{Name: name, Type: typ})
	}
	for _, e := range entities {
		add(e.name, e.typ)
	}
	for _, tr := range triples {
		if len(tr) != 3 || strings.TrimSpace(tr[0]) == "" || strings.TrimSpace(tr[1]) == "" || strings.TrimSpace(tr[2]) == "" {
			continue
		}
		add(tr[0], "")
		add(tr[2], "")
		x.Relations = append(x.Relations, kgmem.ExtractedRelation{Source: tr[0], Target: tr[2], Type: tr[1]})
	}
	return x
}

// xeLoadMusique reads the musique-dev set from dir: corpus.jsonl,
// extraction.jsonl (checked to follow the corpus's order) and
// questions.jsonl.
func xeLoadMusique(t testing.TB, dir string) *xeSet {
	t.Helper()
	set := &xeSet{name: "musique"}
	xeReadLines(t, filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var p struct{ ID, Title, Text string }
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		set.pages = append(set.pages, kgmem.KnowledgePage{ID: p.ID, Title: p.Title, Content: p.Text})
		return nil
	})
	i := 0
	xeReadLines(t, filepath.Join(dir, "extraction.jsonl"), func(line []byte) error {
		var x struct {
			ID       string
			Entities []string
			Triples  [][]string
		}
		if err := json.Unmarshal(line, &x); err != nil {
			return err
		}
		if i >= len(set.pages) || set.pages[i].ID != x.ID {
			return fmt.Errorf("extraction %d is for %q, not for the corpus's passage %d", i, x.ID, i)
		}
		ms := make([]xeMention, len(x.Entities))
		for j, e := range x.Entities {
			ms[j] = xeMention{name: e}
		}
		set.extractions = append(set.extractions, xeExtraction(ms, x.Triples))
		i++
		return nil
	})
	require.Len(t, set.extractions, len(set.pages), "one extraction per passage")
	xeReadLines(t, filepath.Join(dir, "questions.jsonl"), func(line []byte) error {
		var q xeQuestion
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		set.questions = append(set.questions, q)
		return nil
	})
	return set
}

// xeBuilt is a set's memory and what building it took.
type xeBuilt struct {
	store                *kgmem.InMemoryKnowledgeStore
	graph                *kgmem.InMemoryGraph
	putTime, ingestTime  time.Duration
	entities, relations  int
	entitiesSkipped      int
	relationsSkipped     int
	extractedRelations   int
	extractedEntityCount int
}

// xeBuild stores every page of set (one PutBatch) and ingests each page's
// extraction with WithSource(page ID) and otherwise default options, as a
// user would; it checks that every gold passage is a page.
func xeBuild(t testing.TB, set *xeSet) *xeBuilt {
	t.Helper()
	ctx := context.Background()
	b := &xeBuilt{store: kgmem.NewInMemoryKnowledgeStore(), graph: kgmem.NewInMemoryGraph()}
	start := time.Now()
	require.NoError(t, b.store.PutBatch(ctx, set.pages))
	b.putTime = time.Since(start)
	start = time.Now()
	for i, x := range set.extractions {
		rep, err := kgmem.Ingest(ctx, b.graph, x, kgmem.WithSource(set.pages[i].ID))
		require.NoErrorf(t, err, "page %s", set.pages[i].ID)
		b.entitiesSkipped += rep.EntitiesSkipped
		b.relationsSkipped += rep.RelationsSkipped
		b.extractedEntityCount += len(x.Entities)
		b.extractedRelations += len(x.Relations)
	}
	b.ingestTime = time.Since(start)
	st := b.graph.Stats()
	b.entities, b.relations = st.Entities, st.Relations
	ids := make(map[string]bool, len(set.pages))
	for _, p := range set.pages {
		ids[p.ID] = true
	}
	for _, q := range set.questions {
		require.NotEmpty(t, q.Gold, q.ID)
		for _, g := range q.Gold {
			require.Truef(t, ids[g], "question %s: gold passage %s is not in the corpus", q.ID, g)
		}
	}
	return b
}

// xeTally accumulates the figures of one configuration over a group of
// questions.
type xeTally struct {
	n           int
	r2, r5, r10 float64 // sums of per-question recall
	allGold5    int     // questions with every gold passage in the first 5 pages
	short       int     // questions whose result held fewer than 10 pages
	lat         []time.Duration
}

// add counts one question: gold, the page IDs of the result in order, and
// the call's latency.
func (x *xeTally) add(gold, pages []string, lat time.Duration) {
	x.n++
	x.r2 += xeRecall(gold, pages, 2)
	x.r5 += xeRecall(gold, pages, 5)
	x.r10 += xeRecall(gold, pages, 10)
	if xeRecall(gold, pages, 5) == 1 {
		x.allGold5++
	}
	if len(pages) < 10 {
		x.short++
	}
	x.lat = append(x.lat, lat)
}

// xeRecall is the share of gold among the first k of pages.
func xeRecall(gold, pages []string, k int) float64 {
	if len(gold) == 0 {
		return 0
	}
	top := pages[:min(k, len(pages))]
	hit := 0
	for _, g := range gold {
		if slices.Contains(top, g) {
			hit++
		}
	}
	return float64(hit) / float64(len(gold))
}

func (x *xeTally) pct(sum float64) float64 { return 100 * sum / float64(max(x.n, 1)) }

// R2 is the mean recall@2 in percent.
func (x *xeTally) R2() float64 { return x.pct(x.r2) }

// R5 is the mean recall@5 in percent.
func (x *xeTally) R5() float64 { return x.pct(x.r5) }

// R10 is the mean recall@10 in percent.
func (x *xeTally) R10() float64 { return x.pct(x.r10) }

// AllGold5 is the share, in percent, of questions with every gold passage
// among the first 5 pages.
func (x *xeTally) AllGold5() float64 { return x.pct(float64(x.allGold5)) }

// latency renders the median and 99th percentile of the calls.
func (x *xeTally) latency() string {
	lat := slices.Clone(x.lat)
	slices.Sort(lat)
	if len(lat) == 0 {
		return "—"
	}
	return fmt.Sprintf("%v / %v", lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*99/100].Round(10*time.Microsecond))
}

// xeRun is one configuration's figures on one set: overall and by hop
// count, and how long asking every question took.
type xeRun struct {
	config  string
	overall *xeTally
	byHops  map[int]*xeTally
	elapsed time.Duration
}

// hops returns the hop counts of the run, ascending.
func (r *xeRun) hops() []int {
	var hs []int
	for h := range r.byHops {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	return hs
}

// xeEvaluate asks every question of set of the retriever c makes over b,
// one call at a time.
// xeWarmup is how many of a set's questions each configuration answers
// once, untimed, before the timed run.
const xeWarmup = 20

func xeEvaluate(t testing.TB, set *xeSet, b *xeBuilt, c xeConfig) *xeRun {
	t.Helper()
	ctx := context.Background()
	r := c.make(b.store, b.graph)
	run := &xeRun{config: c.name, overall: new(xeTally), byHops: map[int]*xeTally{}}
	// The latencies are a long-lived memory's: an untimed call of the
	// first questions first, so that no figure holds the heap's growth
	// from a fresh process.
	for _, q := range set.questions[:min(xeWarmup, len(set.questions))] {
		_, err := r.Retrieve(ctx, q.Question)
		require.NoError(t, err, q.Question)
	}
	begin := time.Now()
	for _, q := range set.questions {
		start := time.Now()
		res, err := r.Retrieve(ctx, q.Question)
		lat := time.Since(start)
		require.NoError(t, err, q.Question)
		require.Empty(t, res.Warnings, q.Question)
		var pages []string
		for _, it := range res.Items {
			if it.Kind == kgmem.ItemPage {
				pages = append(pages, it.Page.ID)
			}
		}
		run.overall.add(q.Gold, pages, lat)
		if run.byHops[q.Hops] == nil {
			run.byHops[q.Hops] = new(xeTally)
		}
		run.byHops[q.Hops].add(q.Gold, pages, lat)
	}
	run.elapsed = time.Since(begin)
	return run
}

// xeTable renders the runs of one set as a markdown table: per
// configuration an overall row and one row per hop count.
func xeTable(set *xeSet, b *xeBuilt, runs []*xeRun) string {
	var tb strings.Builder
	fmt.Fprintf(&tb, "%s: %d passages, %d questions; graph of %d entities and %d relations from %d extracted entities and %d triples "+
		"(skipped by Ingest: %d entities, %d relations); PutBatch %v, Ingest %v; MaxResults %d unless named; latencies after an untimed call of the first %d questions\n\n",
		set.name, len(set.pages), len(set.questions), b.entities, b.relations, b.extractedEntityCount, b.extractedRelations,
		b.entitiesSkipped, b.relationsSkipped, b.putTime.Round(time.Millisecond), b.ingestTime.Round(time.Millisecond), xeMaxResults, xeWarmup)
	tb.WriteString("| configuration | questions | R@2 | R@5 | R@10 | all gold in top 5 | p50 / p99 | < 10 pages | all questions |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, x *xeTally, elapsed string) {
		fmt.Fprintf(&tb, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %s | %d | %s |\n",
			name, x.n, x.R2(), x.R5(), x.R10(), x.AllGold5(), x.latency(), x.short, elapsed)
	}
	for _, r := range runs {
		row(r.config, r.overall, r.elapsed.Round(time.Millisecond).String())
		for _, h := range r.hops() {
			row(fmt.Sprintf("  %d hops", h), r.byHops[h], "")
		}
	}
	return tb.String()
}

// assertNoWorseThanContent fails t, when requireLift is set, if hybrid's
// recall@2, @5 or @10 falls below content's, overall or for any hop
// count. Without requireLift it only logs the differences.
func assertNoWorseThanContent(t *testing.T, content, hybrid *xeRun) {
	t.Helper()
	check := func(what string, c, h *xeTally, strict bool) {
		for _, m := range []struct {
			k    string
			c, h float64
		}{{"R@2", c.R2(), h.R2()}, {"R@5", c.R5(), h.R5()}, {"R@10", c.R10(), h.R10()}} {
			// Recall is a mean of shares such as 1/3 and 2/3, summed in
			// another order for each configuration: the same passages
			// found may differ in the last bits.
			if m.h >= m.c-1e-9 {
				continue
			}
			if requireLift && strict {
				t.Errorf("%s, %s: %s %.1f is below the content channel's %.1f", hybrid.config, what, m.k, m.h, m.c)
			} else {
				t.Logf("not asserted: %s, %s: %s %.1f is below the content channel's %.1f",
					hybrid.config, what, m.k, m.h, m.c)
			}
		}
	}
	check("overall", content.overall, hybrid.overall, true)
	for _, h := range content.hops() {
		if hybrid.byHops[h] != nil {
			check(fmt.Sprintf("%d hops", h), content.byHops[h], hybrid.byHops[h], false)
		}
	}
}

// xeRunSet builds set's memory, runs every selected configuration and
// logs the table; it returns the runs by configuration name.
func xeRunSet(t *testing.T, set *xeSet) map[string]*xeRun {
	t.Helper()
	b := xeBuild(t, set)
	var runs []*xeRun
	byName := map[string]*xeRun{}
	var configs []xeConfig
	var embedded *xeBuilt // b with a store that embeds, built on first use
	for _, c := range xeActiveConfigs() {
		if c.embed && (set.name != "musique" || os.Getenv("KGMEM_USE_MODULES") == "") {
			continue
		}
		configs = append(configs, c)
	}
	for _, c := range configs {
		on := b
		if c.embed {
			if embedded == nil {
				e := *b
				e.store = kgmem.NewInMemoryKnowledgeStore(kgmem.WithEmbedder(kgmem.NeedUSEModel(t)))
				require.NoError(t, e.store.PutBatch(context.Background(), set.pages))
				embedded = &e
			}
			on = embedded
		}
		r := xeEvaluate(t, set, on, c)
		runs = append(runs, r)
		byName[c.name] = r
	}
	t.Log("\n" + xeTable(set, b, runs))
	for i, r := range runs[1:] {
		if configs[i+1].lift {
			assertNoWorseThanContent(t, runs[0], r)
		}
	}
	return byName
}

// xeFloor is the least recall (percent) a configuration must reach on a
// set, overall.
type xeFloor struct{ r2, r5, r10 float64 }

// xeCheckFloors fails t when a run named in floors falls below its floor.
func xeCheckFloors(t *testing.T, set string, runs map[string]*xeRun, floors map[string]xeFloor) {
	t.Helper()
	for name, f := range floors {
		r := runs[name]
		if r == nil {
			continue // not selected by KGMEM_EVAL_CONFIGS
		}
		require.GreaterOrEqualf(t, r.overall.R2(), f.r2, "%s, %s: R@2", set, name)
		require.GreaterOrEqualf(t, r.overall.R5(), f.r5, "%s, %s: R@5", set, name)
		require.GreaterOrEqualf(t, r.overall.R10(), f.r10, "%s, %s: R@10", set, name)
	}
}

// xeMusiqueFloors are sanity floors on musique-dev, a little under the
// figures measured (R@2 / R@5 / R@10): content 42.7 / 50.0 / 59.8 (the
// content channel is deterministic, so its floors sit close), Hybrid with
// defaults at MaxResults 50 47.5 / 59.8 / 73.5 (46.0 / 61.2 / 71.2
// before page spreading credited the pages stating the relations it
// flowed along; 57.8 / 67.5 at R@5 / R@10 before it passed a share to the
// entities sharing a page), without page spreading 44.8 / 49.2 / 57.0.
var xeMusiqueFloors = map[string]xeFloor{
	xeContent:           {r2: 42, r5: 49, r10: 59},
	"Hybrid, defaults":  {r2: 45, r5: 58, r10: 71},
	"Hybrid, SpreadOn":  {r2: 45, r5: 58, r10: 71},
	"Hybrid, SpreadOff": {r2: 40, r5: 45, r10: 52},
}

// TestExtractedGraphEvaluation evaluates passage recall on HippoRAG's
// MuSiQue tuning subset (KGMEM_DATA/musique-dev: 1,890 passages, the
// named entities and OpenIE triples GPT-3.5 extracted from each, 50
// two- to four-hop questions with their supporting passages): every
// passage stored as a page and its extraction ingested with WithSource,
// every question asked of each configuration of xeConfigs. It logs the
// table, and fails when a figure drops below its sanity floor, or, with
// requireLift, when a configuration ranks gold passages worse than the
// content channel.
func TestExtractedGraphEvaluation(t *testing.T) {
	if !xeSelected("musique") {
		t.Skip("KGMEM_EVAL_ONLY does not select musique")
	}
	dir := kgmem.EvalData(t, "musique-dev")
	set := xeLoadMusique(t, dir)
	require.Len(t, set.pages, 1890)
	require.Len(t, set.questions, 50)
	runs := xeRunSet(t, set)
	xeCheckFloors(t, set.name, runs, xeMusiqueFloors)
}

// xeGenerated converts a set of internal/extractset into an xeSet, and
// describes how much of its questions' facts the imitated extraction
// kept.
func xeGenerated(s *extractset.Set) (*xeSet, string) {
	set := &xeSet{name: s.Name}
	for i, p := range s.Passages {
		set.pages = append(set.pages, kgmem.KnowledgePage{ID: p.ID, Title: p.Title, Content: p.Text})
		x := s.Extractions[i]
		ms := make([]xeMention, len(x.Entities))
		for j, e := range x.Entities {
			ms[j] = xeMention{name: e.Name, typ: e.Type}
		}
		trs := make([][]string, len(x.Triples))
		for j, tr := range x.Triples {
			trs[j] = tr[:]
		}
		set.extractions = append(set.extractions, xeExtraction(ms, trs))
	}
	hopFacts, extracted, allExtracted := 0, 0, 0
	for _, q := range s.Questions {
		set.questions = append(set.questions, xeQuestion{ID: q.ID, Question: q.Text, Answer: q.Answer, Hops: q.Hops, Gold: q.Gold})
		all := true
		for _, f := range q.Facts {
			hopFacts++
			if s.Facts[f].Extracted {
				extracted++
			} else {
				all = false
			}
		}
		if all {
			allExtracted++
		}
	}
	note := fmt.Sprintf("%s: %d%% of the questions' hop facts have a triple between forms of the right entities; every hop's in %d%% of the questions",
		s.Name, 100*extracted/max(hopFacts, 1), 100*allExtracted/max(len(s.Questions), 1))
	return set, note
}

// xeGeneratedFloors are sanity floors on the generated sets, a little
// under the figures measured (R@2 / R@5 / R@10): on gen, content 34.2 /
// 40.4 / 44.3 and Hybrid with defaults 47.4 / 59.0 / 62.8; on gen2,
// content 36.6 / 42.3 / 45.3 and Hybrid 44.8 / 52.1 / 55.8; on gen3,
// content 36.4 / 41.5 / 44.2 and Hybrid 44.0 / 50.8 / 56.9 (45.8 / 56.5 /
// 61.6, 43.4 / 49.9 / 53.6 and 43.6 / 48.9 / 53.5 before page spreading
// credited the pages stating the relations it flowed along). The content
// channel finds the first hop's passage, which names the question's
// topic, and a later one only where that passage names an earlier hop's
// entity (extractset's backlinks). Before Ingest read drifting types
// ("person", "human", "PER") as one, Hybrid without page spreading gave
// 25.1 / 28.7 / 33.4 on gen, below the content channel.
var xeGeneratedFloors = map[string]map[string]xeFloor{
	"gen": {
		xeContent:           {r2: 33, r5: 39, r10: 43},
		"Hybrid, defaults":  {r2: 46, r5: 57, r10: 61},
		"Hybrid, SpreadOn":  {r2: 46, r5: 57, r10: 61},
		"Hybrid, SpreadOff": {r2: 39, r5: 47, r10: 51},
	},
	"gen2": {
		xeContent:           {r2: 35, r5: 41, r10: 44},
		"Hybrid, defaults":  {r2: 43, r5: 50, r10: 54},
		"Hybrid, SpreadOn":  {r2: 43, r5: 50, r10: 54},
		"Hybrid, SpreadOff": {r2: 35, r5: 42, r10: 47},
	},
	"gen3": {
		xeContent:           {r2: 35, r5: 40, r10: 43},
		"Hybrid, defaults":  {r2: 42, r5: 49, r10: 55},
		"Hybrid, SpreadOn":  {r2: 42, r5: 49, r10: 55},
		"Hybrid, SpreadOff": {r2: 33, r5: 39, r10: 43},
	},
}

// TestGeneratedExtractionEvaluation evaluates passage recall on the three
// generated sets of internal/extractset ("gen", about 10,000 passages and
// 300 questions with typed, drifting extractions; "gen2", about 4,000
// passages and 150 questions with another seed and noise mix; "gen3",
// about 6,000 passages and 200 questions whose extraction leaves nearly half
// the stated facts without a triple), as
// TestExtractedGraphEvaluation does on musique-dev: the same memory
// building, the same configurations, the same table. They are tuning sets
// beside musique-dev's 50 questions, each with its own noise.
func TestGeneratedExtractionEvaluation(t *testing.T) {
	kgmem.NeedEvaluation(t)
	for _, g := range []struct {
		name string
		make func() *extractset.Set
	}{{"gen", extractset.Large}, {"gen2", extractset.Small}, {"gen3", extractset.Sparse}} {
		t.Run(g.name, func(t *testing.T) {
			if !xeSelected(g.name) {
				t.Skipf("KGMEM_EVAL_ONLY does not select %s", g.name)
			}
			start := time.Now()
			s := g.make()
			gen := time.Since(start)
			set, note := xeGenerated(s)
			t.Logf("%s generated in %v; %s", g.name, gen.Round(time.Millisecond), note)
			runs := xeRunSet(t, set)
			xeCheckFloors(t, set.name, runs, xeGeneratedFloors[g.name])
		})
	}
}

// xeHeldOutSeed is added to each generated set's seed for its held-out
// variant.
const xeHeldOutSeed = 1000

// TestGeneratedExtractionHeldOutEvaluation evaluates the three generated
// sets as TestGeneratedExtractionEvaluation does, from other seeds (the
// same generators and noise, other entities, passages and questions): no
// setting of page spreading or fusion was chosen on them, so they say
// whether what was tuned on the others holds. Hybrid must stay at or above
// the content channel overall, as everywhere.
func TestGeneratedExtractionHeldOutEvaluation(t *testing.T) {
	kgmem.NeedEvaluation(t)
	for i, config := range []func() extractset.Config{extractset.LargeConfig, extractset.SmallConfig, extractset.SparseConfig} {
		cfg := config()
		cfg.Seed += xeHeldOutSeed + uint64(i)
		cfg.Name += "-heldout"
		t.Run(cfg.Name, func(t *testing.T) {
			if !xeSelected(cfg.Name) {
				t.Skipf("KGMEM_EVAL_ONLY does not select %s", cfg.Name)
			}
			set, note := xeGenerated(extractset.Generate(cfg))
			t.Logf("%s: %s", cfg.Name, note)
			xeRunSet(t, set)
		})
	}
}

func TestExtractedEvaluationHelpers(t *testing.T) {
	gold := []string{"a", "b"}
	require.InDelta(t, 0.5, xeRecall(gold, []string{"x", "a", "y", "b"}, 2), 1e-12)
	require.InDelta(t, 1.0, xeRecall(gold, []string{"x", "a", "y", "b"}, 5), 1e-12)
	require.InDelta(t, 0.5, xeRecall(gold, []string{"b"}, 10), 1e-12)
	require.Zero(t, xeRecall(nil, []string{"a"}, 10))

	var x xeTally
	x.add(gold, []string{"a", "b"}, time.Millisecond)
	x.add(gold, []string{"x", "y", "z", "w", "v", "a"}, 3*time.Millisecond)
	require.InDelta(t, 50.0, x.R2(), 1e-9)
	require.InDelta(t, 50.0, x.R5(), 1e-9)
	require.InDelta(t, 75.0, x.R10(), 1e-9)
	require.InDelta(t, 50.0, x.AllGold5(), 1e-9)
	require.Equal(t, 2, x.short)
	require.Equal(t, "3ms / 3ms", x.latency(), "the upper median of two calls")
	x.lat = append(x.lat, 2*time.Millisecond)
	require.Equal(t, "2ms / 3ms", x.latency())

	ext := xeExtraction([]xeMention{{"Acme Corp.", "organization"}, {"acme  corp.", ""}, {"1998", ""}},
		[][]string{{"ACME CORP.", "founded by", "Jane Doe"}, {"Jane Doe", "", "1998"}, {"Jane Doe", "born in"}})
	require.Equal(t, kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "Acme Corp.", Type: "organization"}, {Name: "1998"}, {Name: "Jane Doe"}},
		Relations: []kgmem.ExtractedRelation{{Source: "ACME CORP.", Target: "Jane Doe", Type: "founded by"}},
	}, ext)
}
