package pgraph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
)

// Benchmarks of the PostgreSQL memory next to kgmem's in-process one, in
// the same run: Search over generated pages, Ingest, and Retrieve over a
// memory built by Ingest. Each reports p50 and p99 of its calls besides
// ns/op. The namespaces are cleared when the benchmark ends.

// benchVocabulary is the words generated pages are made of: a Zipf-like
// draw over a few thousand synthetic words, so that some terms are in
// most pages and most are rare, as in text.
func benchVocabulary(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString([]string{"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "qu"}[rng.IntN(10)])
		}
		out[i] = fmt.Sprintf("%s%d", b.String(), i)
	}
	return out
}

func benchText(rng *rand.Rand, z *rand.Zipf, vocab []string, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = vocab[z.Uint64()]
	}
	return strings.Join(words, " ")
}

// timed runs op b.N times and reports the p50 and p99 of its durations.
func timed(b *testing.B, op func(i int) error) {
	b.Helper()
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// benchKeepEnv, when set, makes BenchmarkStoreSearch keep the pages it
// loads in PostgreSQL, in namespaces named after their generator, and
// reuse them in later runs instead of loading them again.
const benchKeepEnv = "KGMEM_BENCH_KEEP"

// benchPages generates n pages and 256 queries of 1 to 4 terms over them.
func benchPages(n int) ([]kgmem.KnowledgePage, []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := benchVocabulary(rng, 5_000)
	z := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	pages := make([]kgmem.KnowledgePage, n)
	for i := range pages {
		pages[i] = kgmem.KnowledgePage{ID: fmt.Sprintf("p%06d", i), Title: benchText(rng, z, vocab, 3+rng.IntN(5)),
			Content: benchText(rng, z, vocab, 50+rng.IntN(150))}
	}
	queries := make([]string, 256)
	for i := range queries {
		queries[i] = benchText(rng, z, vocab, 1+rng.IntN(4))
	}
	return pages, queries
}

// benchStore returns a Store holding pages, loaded now, or, with
// benchKeepEnv, found from an earlier run.
func benchStore(b *testing.B, pages []kgmem.KnowledgePage) *Store {
	b.Helper()
	pool := needDB(b)
	ctx := context.Background()
	n := len(pages)
	keep := os.Getenv(benchKeepEnv) != ""
	ns := randomNamespace("bench-store")
	if keep {
		ns = fmt.Sprintf("bench-store-v1-%d", n)
	}
	s, err := NewStore(ctx, pool, WithNamespace(ns))
	if err != nil {
		b.Fatal(err)
	}
	if !keep {
		b.Cleanup(func() { _ = s.Clear(context.Background()) })
	}
	if have, err := s.Len(ctx); err != nil {
		b.Fatal(err)
	} else if have == n {
		b.Logf("%d pages found in PostgreSQL namespace %q", n, ns)
		return s
	}
	if err := s.Clear(ctx); err != nil {
		b.Fatal(err)
	}
	load := time.Now()
	for i := 0; i < n; i += 1000 {
		if err := s.PutBatch(ctx, pages[i:min(i+1000, n)]); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d pages loaded into PostgreSQL in %v", n, time.Since(load))
	// What autovacuum does after a bulk load, so that searches read the
	// index alone (see schema version 8) and the term dictionary without
	// the versions each batch left.
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE "+pageTermsTable+", "+termDFsTable); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkStoreSearch searches 10k generated pages (1k with -short), and
// 100k under KGMEM_LONG, in a Store and in kgmem's in-memory store, with
// queries of 1 to 4 terms. With KGMEM_BENCH_KEEP the pages stay in
// PostgreSQL for the next run.
func BenchmarkStoreSearch(b *testing.B) {
	ctx := context.Background()
	sizes := []int{10_000}
	switch {
	case testing.Short():
		sizes = []int{1_000}
	case os.Getenv("KGMEM_LONG") != "":
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		pages, queries := benchPages(n)
		s := benchStore(b, pages)
		mem := kgmem.NewInMemoryKnowledgeStore()
		if err := mem.PutBatch(ctx, pages); err != nil {
			b.Fatal(err)
		}
		// Both stores must agree before they are timed; the check uses a
		// Store of its own, so that the timed one starts with nothing
		// kept in memory.
		check, err := NewStore(ctx, needDB(b), WithNamespace(s.Namespace()))
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range queries[:32] {
			want, werr := mem.Search(ctx, q, 10)
			got, gerr := check.Search(ctx, q, 10)
			if werr != nil || gerr != nil || len(got) != len(want) {
				b.Fatalf("Search(%q): %d pages, %v; want %d, %v", q, len(got), gerr, len(want), werr)
			}
			for i := range want {
				if got[i].Page.ID != want[i].Page.ID || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
					b.Fatalf("Search(%q): result %d is %s at %v, want %s at %v", q, i, got[i].Page.ID, got[i].Score, want[i].Page.ID, want[i].Score)
				}
			}
		}
		for _, st := range []struct {
			name string
			s    kgmem.KnowledgeStore
		}{{"store=postgres", s}, {"store=memory", mem}} {
			b.Run(fmt.Sprintf("pages=%s/%s", count(n), st.name), func(b *testing.B) {
				// Each query once, untimed by the benchmark: the first
				// search of a query reads what later ones may find kept
				// in memory (see termCache). Reported as cold-p50/p99.
				var cold []time.Duration
				for _, q := range queries {
					start := time.Now()
					if _, err := st.s.Search(ctx, q, 10); err != nil {
						b.Fatal(err)
					}
					cold = append(cold, time.Since(start))
				}
				slices.Sort(cold)
				timed(b, func(i int) error {
					_, err := st.s.Search(ctx, queries[i%len(queries)], 10)
					return err
				})
				b.ReportMetric(float64(cold[len(cold)/2].Microseconds()), "cold-p50-µs")
				b.ReportMetric(float64(cold[len(cold)*99/100].Microseconds()), "cold-p99-µs")
			})
		}
	}
}

// benchMemories builds a Memory and an in-process kgmem.Memory from the
// same n Ingest calls, timing each side.
func benchMemories(b *testing.B, n int) (*Memory, *kgmem.Memory, [2]time.Duration) {
	b.Helper()
	ctx := context.Background()
	m, err := OpenMemory(ctx, needDB(b), WithNamespace(randomNamespace("bench-memory")))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = m.Graph().Clear(context.Background())
		_ = m.Store().Clear(context.Background())
	})
	ref, err := kgmem.OpenMemory(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ref.Close() })
	rng := rand.New(rand.NewPCG(3, 4))
	var took [2]time.Duration
	for i := range n {
		page, x := benchIngest(rng, i)
		start := time.Now()
		if _, err := m.Ingest(ctx, page, x); err != nil {
			b.Fatal(err)
		}
		took[0] += time.Since(start)
		start = time.Now()
		if _, err := ref.Ingest(ctx, page, x); err != nil {
			b.Fatal(err)
		}
		took[1] += time.Since(start)
	}
	return m, ref, took
}

// benchIngest is page i of a generated memory: a few entities of a
// population of about 10 per page, some relations between them.
func benchIngest(rng *rand.Rand, i int) (kgmem.KnowledgePage, kgmem.Extraction) {
	var x kgmem.Extraction
	var text []string
	for range 3 + rng.IntN(4) {
		name := fmt.Sprintf("%s %s %d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], rng.IntN(i*2+10))
		x.Entities = append(x.Entities, kgmem.ExtractedEntity{Name: name, Type: []string{"person", "project", "place"}[rng.IntN(3)]})
		text = append(text, name)
	}
	for range 2 + rng.IntN(4) {
		a, c := x.Entities[rng.IntN(len(x.Entities))], x.Entities[rng.IntN(len(x.Entities))]
		x.Relations = append(x.Relations, kgmem.ExtractedRelation{Source: a.Name, Target: c.Name, Type: memRelTypes[rng.IntN(len(memRelTypes))]})
	}
	return kgmem.KnowledgePage{ID: fmt.Sprintf("page-%06d", i), Title: text[0], Content: strings.Join(text, " and ")}, x
}

// BenchmarkMemoryIngest ingests 2,000 generated pages (200 with -short)
// into a Memory and into an in-process kgmem.Memory, in the same run, and
// reports each side's time per Ingest.
func BenchmarkMemoryIngest(b *testing.B) {
	n := 2_000
	if testing.Short() {
		n = 200
	}
	for b.Loop() {
		_, _, took := benchMemories(b, n)
		b.ReportMetric(float64(took[0].Microseconds())/float64(n), "postgres-µs/ingest")
		b.ReportMetric(float64(took[1].Microseconds())/float64(n), "process-µs/ingest")
	}
}

// retrieveMemories returns a Memory and an in-process kgmem.Memory holding
// the same graph and pages: those of n generated Ingest calls, made in
// process and copied into PostgreSQL with AddBatch and PutBatch, which is
// much faster than n Ingest calls and writes the same rows. With
// benchKeepEnv the PostgreSQL side stays, in a namespace named after n,
// for the next run.
func retrieveMemories(b *testing.B, pool *pgxpool.Pool, n int) (*Memory, *kgmem.Memory) {
	b.Helper()
	ctx := context.Background()
	ref, err := kgmem.OpenMemory(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ref.Close() })
	rng := rand.New(rand.NewPCG(3, 4))
	pages := make([]kgmem.KnowledgePage, 0, n)
	for i := range n {
		page, x := benchIngest(rng, i)
		if _, err := ref.Ingest(ctx, page, x); err != nil {
			b.Fatal(err)
		}
		pages = append(pages, page)
	}
	keep := os.Getenv(benchKeepEnv) != ""
	ns := randomNamespace("bench-retrieve")
	if keep {
		ns = fmt.Sprintf("bench-retrieve-v1-%d", n)
	}
	m, err := OpenMemory(ctx, pool, WithNamespace(ns))
	if err != nil {
		b.Fatal(err)
	}
	if !keep {
		b.Cleanup(func() {
			_ = m.Graph().Clear(context.Background())
			_ = m.Store().Clear(context.Background())
		})
	}
	es, err := ref.Graph().Entities(ctx)
	if err != nil {
		b.Fatal(err)
	}
	rs, err := ref.Graph().Relations(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if have, err := m.Store().Len(ctx); err != nil {
		b.Fatal(err)
	} else if have == n {
		b.Logf("%d pages found in PostgreSQL namespace %q", n, ns)
		return m, ref
	}
	if err := m.Graph().Clear(ctx); err != nil {
		b.Fatal(err)
	}
	if err := m.Store().Clear(ctx); err != nil {
		b.Fatal(err)
	}
	load := time.Now()
	if err := m.Graph().AddBatch(ctx, es, rs); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		if err := m.Store().PutBatch(ctx, pages[i:min(i+1000, n)]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE "+entitiesTable+", "+relationsTable+", "+pageTermsTable+", "+termDFsTable); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d entities, %d relations, %d pages loaded into PostgreSQL in %v", len(es), len(rs), n, time.Since(load))
	return m, ref
}

// BenchmarkMemoryRetrieve retrieves over a Memory and an in-process
// kgmem.Memory holding the same 40k-entity memory (9,000 generated
// ingests; 2,000 with -short), questions naming entities, and reports the
// requests each PostgreSQL Retrieve sends to the server (round-trips/op).
// Both sides must give the same answers before they are timed.
func BenchmarkMemoryRetrieve(b *testing.B) {
	n := 9_000
	if testing.Short() {
		n = 2_000
	}
	rt := &roundTrips{}
	m, ref := retrieveMemories(b, countingPool(b, rt), n)
	ctx := context.Background()
	ents, err := ref.Graph().Entities(ctx)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	questions := make([]string, 256)
	for i := range questions {
		e := ents[rng.IntN(len(ents))]
		questions[i] = []string{"who works on ", "what does ", "tell me about "}[rng.IntN(3)] + e.Name + "?"
	}
	for _, q := range questions[:32] {
		want, werr := ref.Retriever().Retrieve(ctx, q)
		got, gerr := m.Retriever().Retrieve(ctx, q)
		if werr != nil || gerr != nil {
			b.Fatalf("Retrieve(%q): %v; in process %v", q, gerr, werr)
		}
		if diff := diffResults(got, want); diff != "" {
			b.Fatalf("Retrieve(%q): %s", q, diff)
		}
	}
	b.Logf("%d entities", len(ents))
	for _, side := range []struct {
		name string
		r    *kgmem.MemoryRetriever
	}{{"memory=postgres", m.Retriever()}, {"memory=process", ref.Retriever()}} {
		b.Run(fmt.Sprintf("entities=%s/%s", count(len(ents)), side.name), func(b *testing.B) {
			rt.take()
			timed(b, func(i int) error {
				_, err := side.r.Retrieve(ctx, questions[i%len(questions)])
				return err
			})
			sent, _ := rt.take()
			b.ReportMetric(float64(sent)/float64(b.N), "round-trips/op")
		})
	}
}

// diffResults says how got differs from want, as TestMemoryMatchesInProcess
// compares them (scores within float rounding), or returns "".
func diffResults(got, want kgmem.RetrievalResult) string {
	wantItems, wantScores := renderItems(want)
	gotItems, gotScores := renderItems(got)
	if !slices.Equal(wantItems, gotItems) {
		return fmt.Sprintf("got %q, want %q", gotItems, wantItems)
	}
	for i := range wantScores {
		if math.Abs(wantScores[i]-gotScores[i]) > 1e-9 {
			return fmt.Sprintf("item %d scores %.17g, want %.17g", i, gotScores[i], wantScores[i])
		}
	}
	return ""
}
