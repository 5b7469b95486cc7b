package hnsw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exactTop returns the IDs of the k vectors of vecs nearest q, nearest
// first (ties by ID).
func exactTop(vecs map[string][]float32, q []float32, k int) []string {
	type hit struct {
		id string
		s  float64
	}
	hits := make([]hit, 0, len(vecs))
	for id, v := range vecs {
		s := 0.0
		for i := range v {
			s += float64(v[i]) * float64(q[i])
		}
		hits = append(hits, hit{id, s})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.s != b.s {
			if a.s > b.s {
				return -1
			}
			return 1
		}
		if a.id < b.id {
			return -1
		}
		return 1
	})
	out := make([]string, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.id)
	}
	return out
}

// checkGraph checks the graph's bookkeeping: the counts of live nodes and
// tombstones, that no live node or entry point links to a free slot, and
// that every live node is reachable from the entry point on layer 0.
func checkGraph(t *testing.T, g *graph) {
	t.Helper()
	live, dead := 0, 0
	for n, st := range g.state {
		switch st {
		case slotLive:
			live++
		case slotDead:
			dead++
		}
		if st == slotLive || int32(n) == g.entry {
			for _, ls := range g.links[n] {
				for _, m := range ls {
					require.NotEqual(t, slotFree, g.state[m], "node %d links to free slot %d", n, m)
				}
			}
		}
	}
	require.Equal(t, g.nlive, live)
	require.Equal(t, g.ndead, dead)
	if live == 0 {
		return
	}
	seen := map[int32]bool{g.entry: true}
	queue := []int32{g.entry}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range g.links[n][0] {
			if !seen[m] && g.state[m] != slotFree {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	unreached := 0
	for n, st := range g.state {
		if st == slotLive && !seen[int32(n)] {
			unreached++
		}
	}
	require.Equal(t, 0, unreached, "live nodes not reachable from the entry point")
}

// TestDeleteWorkBounded: deleting every vector of an index one by one, in
// a random order, no Delete does more work (distance computations and
// neighbour-list entries read) than removeBound, which depends on the
// Options only: the same at 2,000 vectors as at 12,000. Half-way, after
// as many new vectors are added again (into the freed slots), recall@10
// against exact search is at least 0.95, every vector is found first by
// itself, and the graph has at most 5% more slots than vectors; at the end
// it is empty.
func TestDeleteWorkBounded(t *testing.T) {
	const d = 16
	o := Options{M: 8, EfConstruction: 32, EfSearch: 64}
	sizes := []int{2_000, 12_000}
	if raceDetector {
		sizes = []int{1_000, 4_000} // the bound is the same; the race detector slows every step
	}
	for _, n := range sizes {
		t.Run(fmt.Sprintf("vectors=%d", n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(n), 5))
			next := vectorGen(r, d, false)
			x := New(d, o)
			vecs := map[string][]float32{}
			var ids []string
			for i := range n {
				id := fmt.Sprintf("v%05d", i)
				vecs[id] = next()
				x.Add(id, vecs[id])
				ids = append(ids, id)
			}
			r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			worst, deleted, entries := 0, 0, 0
			del := func(id string) {
				entry := x.pages[id].node == x.g.entry
				w := x.g.work
				x.Delete(id)
				worst = max(worst, x.g.work-w)
				delete(vecs, id)
				if deleted++; deleted%500 == 0 || (entry && x.Len() > 0) {
					checkGraph(t, x.g)
				}
				if entry && x.Len() > 0 {
					entries++
				}
			}
			for _, id := range ids[:n/2] {
				del(id)
			}
			for i := range n / 2 {
				id := fmt.Sprintf("w%05d", i)
				vecs[id] = next()
				x.Add(id, vecs[id])
				ids = append(ids, id)
			}
			require.Equal(t, n, x.Len())
			slots := x.g.len()
			t.Logf("%d slots for %d vectors after deleting %d and adding as many", slots, n, n/2)

			hit, missed := 0, 0
			live := ids[n/2:]
			queries := 0
			for i := 0; i < len(live); i += len(live) / 200 {
				id := live[i]
				queries++
				got, err := x.Search(vecs[id], 10)
				require.NoError(t, err)
				if len(got) == 0 || got[0] != id {
					missed++
				}
				q := next()
				got, err = x.Search(q, 10)
				require.NoError(t, err)
				for _, w := range exactTop(vecs, q, 10) {
					if slices.Contains(got, w) {
						hit++
					}
				}
			}
			rec := float64(hit) / float64(10*queries)
			t.Logf("recall@10 %.4f, %d of %d vectors not found by themselves", rec, missed, queries)
			require.GreaterOrEqual(t, rec, 0.95)
			require.Equal(t, 0, missed)

			for _, id := range ids[n/2:] {
				del(id)
			}
			t.Logf("most work of a Delete: %d (bound %d); the entry point deleted %d times", worst, x.g.removeBound(), entries)
			require.Positive(t, entries)
			require.Equal(t, 6*o.M+24*o.M*o.M+10*o.M*o.EfConstruction, x.g.removeBound(), "the bound the package documents")
			require.LessOrEqual(t, worst, x.g.removeBound())
			require.LessOrEqual(t, slots, n+n/20, "freed slots are reused")
			require.Equal(t, 0, x.Len())
			require.Equal(t, 0, x.g.len(), "the last Delete empties the graph")
		})
	}
}

// BenchmarkDelete times Delete in an index of n random clustered unit
// vectors of 384 dimensions at the default Options, kept at its size by
// adding a new vector under each ID deleted: ns/op is one Delete and one
// Add; p50-ns, p99-ns and max-ns are of the Delete alone, and max-work is
// the most distance computations and neighbour-list entries read by one
// Delete. Under -short it runs at 2,000 vectors only.
func BenchmarkDelete(b *testing.B) {
	const d = 384
	sizes := []int{2_000, 20_000}
	if testing.Short() {
		sizes = []int{2_000}
	}
	for _, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(n), d))
		next := vectorGen(r, d, false)
		x := New(d, Options{})
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("v%06d", i)
			x.Add(ids[i], next())
		}
		r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		b.Run(fmt.Sprintf("vectors=%d/dims=%d", n, d), func(b *testing.B) {
			b.ReportAllocs()
			lat := make([]time.Duration, 0, 4096)
			worst := 0
			for i := 0; b.Loop(); i++ {
				id := ids[i%n]
				w := x.g.work
				start := time.Now()
				x.Delete(id)
				el := time.Since(start)
				worst = max(worst, x.g.work-w)
				if len(lat) < cap(lat) {
					lat = append(lat, el)
				}
				x.Add(id, next())
			}
			slices.Sort(lat)
			at := func(q float64) float64 {
				return float64(lat[min(len(lat)-1, int(math.Ceil(q*float64(len(lat))))-1)].Nanoseconds())
			}
			b.ReportMetric(at(0.5), "p50-ns")
			b.ReportMetric(at(0.99), "p99-ns")
			b.ReportMetric(at(1), "max-ns")
			b.ReportMetric(float64(worst), "max-work")
		})
	}
}
