package kgmem

// Tests that the path budget and cancellation bound the work of FindPaths
// and GetRelated on graphs built to defeat score pruning: ties (every weight
// 1), entities with very many relations, and scores that differ by less
// than the pruning slack. Bounds are generous (they hold under -race on a
// loaded two-core machine); before these bounds were enforced the same
// calls took seconds to minutes and gigabytes.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/traverse"
)

// bowTie returns the entities and relations of src → a_i → hub → b_i → dst
// for i < m, each relation weighted w(i) for the a side and 1 elsewhere.
// With w ≡ 1 every one of the m² paths of four hops ties.
func bowTie(m int, w func(i int) float64) ([]Entity, []Relation) {
	es := append(make([]Entity, 0, 3+2*m), Entity{ID: "src"}, Entity{ID: "hub"}, Entity{ID: "dst"})
	rs := make([]Relation, 0, 4*m)
	for i := range m {
		a, b := fmt.Sprintf("a%05d", i), fmt.Sprintf("b%05d", i)
		es = append(es, Entity{ID: a}, Entity{ID: b})
		rs = append(rs,
			Relation{SourceID: "src", TargetID: a, Type: "t", Weight: w(i)},
			Relation{SourceID: a, TargetID: "hub", Type: "t", Weight: 1},
			Relation{SourceID: "hub", TargetID: b, Type: "t", Weight: 1},
			Relation{SourceID: b, TargetID: "dst", Type: "t", Weight: 1},
		)
	}
	return es, rs
}

func buildGraph(tb testing.TB, es []Entity, rs []Relation, opts ...Option) *InMemoryGraph {
	tb.Helper()
	g := NewInMemoryGraph(opts...)
	if err := g.AddBatch(context.Background(), es, rs); err != nil {
		tb.Fatal(err)
	}
	return g
}

// measure runs f and returns how long it took and how many bytes it
// allocated (runtime.MemStats.TotalAlloc, so garbage counts too).
func measure(f func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	return d, after.TotalAlloc - before.TotalAlloc
}

func one(x float64) func(int) float64 { return func(int) float64 { return x } }

// TestFindPathsBowTieTies: on the bow-tie with every weight 1 the m² tied
// four-hop paths must not be materialised, or even tried, one by one. The
// answer is exact, and cheap.
func TestFindPathsBowTieTies(t *testing.T) {
	ctx := context.Background()
	// Small enough for the one-sided enumeration of bench_test.go.
	es, rs := bowTie(12, one(1))
	g := buildGraph(t, es, rs)
	for _, dir := range []Direction{Outgoing, Both} {
		for _, k := range []int{1, 3, 7} {
			opts := PathOptions{MaxHops: 4, Direction: dir, MaxPaths: k}
			res, err := g.FindPaths(ctx, "src", "dst", opts)
			if err != nil || res.Truncated {
				t.Fatalf("%+v: truncated %v, %v", opts, res.Truncated, err)
			}
			want := toPaths(g.step(nil, AsOf{}), dfsPaths(g, "src", "dst", opts))
			if !slices.EqualFunc(want, res.Paths, func(a, b Path) bool {
				return a.Score == b.Score && slices.Equal(a.EntityIDs, b.EntityIDs)
			}) {
				t.Fatalf("%+v: got %v, want %v", opts, res.Paths, want)
			}
		}
	}

	// 8k entities and 16k relations: 16M tied paths.
	const m = 4000
	es, rs = bowTie(m, one(1))
	g = buildGraph(t, es, rs)
	for _, dir := range []Direction{Outgoing, Both} {
		var res PathResult
		var err error
		took, alloc := measure(func() {
			res, err = g.FindPaths(ctx, "src", "dst", PathOptions{MaxHops: 4, Direction: dir})
		})
		t.Logf("%v: %v, %d KiB allocated", dir, took, alloc>>10)
		if err != nil || res.Truncated {
			t.Fatalf("%v: truncated %v, %v", dir, res.Truncated, err)
		}
		for i, p := range res.Paths {
			want := []string{"src", "a00000", "hub", fmt.Sprintf("b%05d", i), "dst"}
			if !slices.Equal(p.EntityIDs, want) || p.Score != 1 {
				t.Fatalf("%v: path %d is %v (score %v), want %v", dir, i, p.EntityIDs, p.Score, want)
			}
		}
		// The partial paths alone take 4m·32 bytes; before, the tied
		// candidates took over a gigabyte.
		if alloc > 16<<20 {
			t.Errorf("%v: FindPaths allocated %d MiB on the bow-tie", dir, alloc>>20)
		}
		if took > 3*time.Second {
			t.Errorf("%v: FindPaths took %v on the bow-tie", dir, took)
		}
	}
}

// TestFindPathsNearTiesBounded: when the scores of the forward halves
// differ by less than the pruning slack, no bound separates the m² pairs
// of halves, and the budget must stop the joining.
func TestFindPathsNearTiesBounded(t *testing.T) {
	ctx := context.Background()
	const m, budget = 6000, 1 << 16
	es, rs := bowTie(m, func(i int) float64 { return 1 - float64(i)*0x1p-50 })
	g := buildGraph(t, es, rs, WithPathBudget(budget))
	var res PathResult
	var err error
	took, alloc := measure(func() {
		res, err = g.FindPaths(ctx, "src", "dst", PathOptions{MaxHops: 4})
	})
	t.Logf("budget %d: %v, %d KiB allocated, truncated %v", budget, took, alloc>>10, res.Truncated)
	if err != nil || !res.Truncated {
		t.Fatalf("truncated %v, %v", res.Truncated, err)
	}
	// Whatever the cut, the best path is found first.
	if !slices.Equal(res.Paths[0].EntityIDs, []string{"src", "a00000", "hub", "b00000", "dst"}) {
		t.Fatalf("best path %v", res.Paths[0].EntityIDs)
	}
	if took > 3*time.Second || alloc > 16<<20 {
		t.Errorf("FindPaths took %v and %d MiB", took, alloc>>20)
	}
	g.mu.RLock()
	ps := new(traverse.PathSearch)
	_, _, err = findPaths(ctx, ps, g.step(nil, AsOf{}), g.ids["src"], g.ids["dst"], PathOptions{MaxHops: 4}, budget)
	g.mu.RUnlock()
	if stats := ps.Stats(); err != nil || stats.JoinsLeft != 0 || !stats.JoinCut {
		t.Errorf("%v: %d of %d joins left, cut %v", err, stats.JoinsLeft, budget, stats.JoinCut)
	}

	// Without a budget, a cancelled call returns promptly with ctx.Err().
	unbounded := buildGraph(t, es, rs, WithPathBudget(math.MaxInt))
	requireCancelledPromptly(t, func(ctx context.Context) error {
		_, err := unbounded.FindPaths(ctx, "src", "dst", PathOptions{MaxHops: 4})
		return err
	})
}

// requireCancelledPromptly runs call with a context cancelled 50ms in and
// requires ctx.Err() back within a second of the cancellation. call must
// take far longer than that when it is not cancelled.
func requireCancelledPromptly(t *testing.T, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledAt atomic.Int64 // UnixNano
	timer := time.AfterFunc(50*time.Millisecond, func() {
		cancelledAt.Store(time.Now().UnixNano())
		cancel()
	})
	defer timer.Stop()
	err := call(ctx)
	returned := time.Now()
	cancelled := time.Unix(0, cancelledAt.Load())
	if cancelledAt.Load() == 0 {
		t.Fatalf("the call returned %v before it was cancelled", err)
	}
	lag := returned.Sub(cancelled)
	t.Logf("returned %v after cancellation: %v", lag, err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call returned %v, want context.Canceled", err)
	}
	if lag > time.Second {
		t.Errorf("a cancelled call returned %v after its cancellation", lag)
	}
}

// giantHub returns src → x_i → hub for i < paths, hub → y_j for j < fan
// weighted w, and three direct paths src → c_i → dst of weight 1; and the
// mirror image on dst's side: z_i → dst, hub2 → z_i, and v_j → hub2
// weighted w. Both sides of the search meet a hub at their third level,
// so neither can grow past it cheaply. With w < 1 every partial path
// through the hubs' relations scores below the three paths found first and
// is dropped, and only scanning costs; with w = 1 each is kept.
func giantHub(paths, fan int, w float64) ([]Entity, []Relation) {
	es := append(make([]Entity, 0, 7+2*paths+2*fan), Entity{ID: "src"}, Entity{ID: "hub"}, Entity{ID: "hub2"}, Entity{ID: "dst"})
	rs := make([]Relation, 0, 6+4*paths+2*fan)
	for i := range 3 {
		c := fmt.Sprintf("c%d", i)
		es = append(es, Entity{ID: c})
		rs = append(rs, Relation{SourceID: "src", TargetID: c, Type: "t", Weight: 1},
			Relation{SourceID: c, TargetID: "dst", Type: "t", Weight: 1})
	}
	for i := range paths {
		x, z := fmt.Sprintf("x%05d", i), fmt.Sprintf("z%05d", i)
		es = append(es, Entity{ID: x}, Entity{ID: z})
		rs = append(rs, Relation{SourceID: "src", TargetID: x, Type: "t", Weight: 1},
			Relation{SourceID: x, TargetID: "hub", Type: "t", Weight: 1},
			Relation{SourceID: z, TargetID: "dst", Type: "t", Weight: 1},
			Relation{SourceID: "hub2", TargetID: z, Type: "t", Weight: 1})
	}
	for j := range fan {
		y, v := fmt.Sprintf("y%07d", j), fmt.Sprintf("v%07d", j)
		es = append(es, Entity{ID: y}, Entity{ID: v})
		rs = append(rs, Relation{SourceID: "hub", TargetID: y, Type: "t", Weight: w},
			Relation{SourceID: v, TargetID: "hub2", Type: "t", Weight: w})
	}
	return es, rs
}

// TestFindPathsGiantHubBounded: 4,000 partial paths end at an entity with
// 10k relations (100k under KGMEM_LONG), so growing them scans 40M
// relations, 80 times the default budget. The budget stops the scan, and a
// cancelled or expired context stops it within a few thousand relations.
func TestFindPathsGiantHubBounded(t *testing.T) {
	ctx := context.Background()
	es, rs := giantHub(4000, sized(100_000, 10_000), 0.5) // 400M relations to scan under KGMEM_LONG, else 40M
	g := buildGraph(t, es, rs)
	opts := PathOptions{MaxHops: 10}
	var res PathResult
	var err error
	took, alloc := measure(func() { res, err = g.FindPaths(ctx, "src", "dst", opts) })
	t.Logf("default budget: %v, %d KiB allocated", took, alloc>>10)
	if err != nil || len(res.Paths) != 3 || !res.Truncated {
		t.Fatalf("got %d paths, truncated %v, %v; want the 3 direct paths, truncated", len(res.Paths), res.Truncated, err)
	}
	for i, p := range res.Paths {
		if want := []string{"src", fmt.Sprintf("c%d", i), "dst"}; !slices.Equal(p.EntityIDs, want) {
			t.Fatalf("path %d is %v, want %v", i, p.EntityIDs, want)
		}
	}
	if took > 3*time.Second || alloc > 64<<20 {
		t.Errorf("FindPaths took %v and %d MiB", took, alloc>>20)
	}

	unbounded := buildGraph(t, es, rs, WithPathBudget(math.MaxInt))
	requireCancelledPromptly(t, func(ctx context.Context) error {
		_, err := unbounded.FindPaths(ctx, "src", "dst", opts)
		return err
	})
	// A deadline is a cancellation too.
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = unbounded.FindPaths(dctx, "src", "dst", opts)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("with a 100ms deadline FindPaths returned %v after %v", err, time.Since(start))
	}
}

// countStep wraps a stepper and counts the relations its expansions scan
// and visit.
type countStep struct {
	stepper
	scanned, visited int
}

func (s *countStep) Expand(ctx context.Context, frontier []int32, dir traverse.Dir, limit int, visit func(int, int32, int32, float64)) (int, bool, error) {
	n, cut, err := s.stepper.Expand(ctx, frontier, dir, limit, func(from int, to, rel int32, w float64) {
		s.visited++
		visit(from, to, rel, w)
	})
	s.scanned += n
	return n, cut, err
}

// TestFindPathsBudgetCountsScans: the budget bounds the relations a search
// scans, whether or not they lead to partial paths, and relations dropped
// by the type filter count too.
func TestFindPathsBudgetCountsScans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	es, rs := giantHub(100, 10_000, 0.5)
	g := buildGraph(t, es, rs)
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, types := range [][]string{nil, {"t", "u"}} {
		for _, budget := range []int{1, 1000, 50_000} {
			st := &countStep{stepper: g.step(types, AsOf{})}
			ps := new(traverse.PathSearch)
			best, truncated, err := findPaths(ctx, ps, st, g.ids["src"], g.ids["dst"], PathOptions{MaxHops: 10, RelationTypes: types}, budget)
			if err != nil || !truncated {
				t.Fatalf("types %q, budget %d: truncated %v, %v", types, budget, truncated, err)
			}
			if st.scanned > budget || st.visited > st.scanned || ps.Stats().Partials > budget+2 {
				t.Errorf("types %q, budget %d: scanned %d, visited %d, built %d partial paths",
					types, budget, st.scanned, st.visited, ps.Stats().Partials)
			}
			if budget >= 1000 && len(best) != 3 {
				t.Errorf("types %q, budget %d: %d paths, want the 3 direct ones", types, budget, len(best))
			}
		}
	}
	// Relations of another type are scanned and dropped: here the source's
	// 103, and then nothing is left to grow.
	st := &countStep{stepper: g.step([]string{"u"}, AsOf{})}
	best, truncated, err := findPaths(ctx, new(traverse.PathSearch), st, g.ids["src"], g.ids["dst"], PathOptions{MaxHops: 10, RelationTypes: []string{"u"}}, 1000)
	if err != nil || truncated || len(best) != 0 || st.scanned != 103 || st.visited != 0 {
		t.Errorf("nothing of type u: %d paths, scanned %d, visited %d, truncated %v, %v", len(best), st.scanned, st.visited, truncated, err)
	}
	st = &countStep{stepper: g.step([]string{"u"}, AsOf{})}
	_, truncated, _ = findPaths(ctx, new(traverse.PathSearch), st, g.ids["src"], g.ids["dst"], PathOptions{MaxHops: 10, RelationTypes: []string{"u"}}, 100)
	if !truncated || st.scanned != 100 {
		t.Errorf("nothing of type u, budget 100: scanned %d, truncated %v", st.scanned, truncated)
	}
}

// listNeighborhood is a Neighborhood over relation lists indexed by entity.
// It ignores ctx, as a slow backend might; cancelAfter, when set, is called
// once after that many relations have been reported.
type listNeighborhood struct {
	out, in     map[string][]Relation
	reported    int
	cancelAfter int
	cancel      func()
}

func newListNeighborhood(rs []Relation) *listNeighborhood {
	n := &listNeighborhood{out: map[string][]Relation{}, in: map[string][]Relation{}}
	outs, ins := map[string]int{}, map[string]int{}
	for _, r := range rs {
		outs[r.SourceID]++
		ins[r.TargetID]++
	}
	for id, k := range outs {
		n.out[id] = make([]Relation, 0, k)
	}
	for id, k := range ins {
		n.in[id] = make([]Relation, 0, k)
	}
	for _, r := range rs {
		n.out[r.SourceID] = append(n.out[r.SourceID], r)
		n.in[r.TargetID] = append(n.in[r.TargetID], r)
	}
	return n
}

func (n *listNeighborhood) Neighbors(_ context.Context, ids []string, dir Direction, types []string, visit func(int, Relation)) error {
	report := func(i int, r Relation) {
		if len(types) > 0 && !slices.Contains(types, r.Type) {
			return
		}
		visit(i, r)
		if n.reported++; n.reported == n.cancelAfter {
			n.cancel()
		}
	}
	for i, id := range ids {
		if dir != Incoming {
			for _, r := range n.out[id] {
				report(i, r)
			}
		}
		if dir != Outgoing {
			for _, r := range n.in[id] {
				if dir != Both || r.SourceID != id {
					report(i, r)
				}
			}
		}
	}
	return nil
}

func (n *listNeighborhood) Entities(_ context.Context, ids []string) ([]Entity, error) {
	out := make([]Entity, len(ids))
	for i, id := range ids {
		if len(n.out[id])+len(n.in[id]) == 0 {
			return nil, fmt.Errorf("entity %q: %w", id, ErrNotFound)
		}
		out[i] = Entity{ID: id}
	}
	return out, nil
}

// TestTraversePathsBounded: over a Neighborhood, relations reported past the
// budget, or after the context is cancelled, are dropped without being
// kept, and the search stops.
func TestTraversePathsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, rs := giantHub(100, 3_000, 0.5) // the hub's relations alone are over the budget
	n := newListNeighborhood(rs)
	res, err := TraversePaths(ctx, n, "src", "dst", PathOptions{MaxHops: 10}, 1000)
	if err != nil || !res.Truncated || len(res.Paths) != 3 {
		t.Fatalf("budget 1000: %d paths, truncated %v, %v", len(res.Paths), res.Truncated, err)
	}
	st := newNeighborStep(n, nil, AsOf{})
	best, truncated, err := findPaths(ctx, new(traverse.PathSearch), st, st.intern("src"), st.intern("dst"), PathOptions{MaxHops: 10}, 1000)
	if err != nil || !truncated || len(best) != 3 || len(st.rels) > 1000 {
		t.Fatalf("budget 1000: %d paths, truncated %v, %v; kept %d relations", len(best), truncated, err, len(st.rels))
	}

	// Cancelled after 10k of the hub's 40k relations were reported (20k of
	// 100k under KGMEM_LONG), it keeps at most a few thousand more.
	fan, cancelAfter := sized(100_000, 40_000), sized(20_000, 10_000)
	_, rs = giantHub(1, fan, 0.5)
	n = newListNeighborhood(rs)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n.cancelAfter, n.cancel = cancelAfter, cancel
	st = newNeighborStep(n, nil, AsOf{})
	_, _, err = findPaths(cctx, new(traverse.PathSearch), st, st.intern("src"), st.intern("dst"), PathOptions{MaxHops: 10}, math.MaxInt)
	if !errors.Is(err, context.Canceled) || len(st.rels) > cancelAfter+2*traverse.ScanCheckEvery {
		t.Fatalf("cancelled: %v, kept %d relations of %d reported", err, len(st.rels), n.reported)
	}
}

// cancelStep wraps a stepper, counts the calls a traversal makes to it and
// cancels the traversal's context at a chosen point.
type cancelStep struct {
	stepper
	cancel context.CancelFunc
	// cancelAfterIDs cancels when id has been called that many times (0:
	// never); cancelInPrepare cancels when prepare is called.
	cancelAfterIDs  int
	cancelInPrepare bool

	ids, entities  int // calls
	idsAtCancel    int
	entitiesAtStop int
	cancelled      bool
}

func (s *cancelStep) stop() {
	if !s.cancelled {
		s.cancelled = true
		s.idsAtCancel, s.entitiesAtStop = s.ids, s.entities
		s.cancel()
	}
}

func (s *cancelStep) ID(n int32) string {
	s.ids++
	if s.ids == s.cancelAfterIDs {
		s.stop()
	}
	return s.stepper.ID(n)
}

func (s *cancelStep) entity(n int32) Entity {
	s.entities++
	return s.stepper.entity(n)
}

func (s *cancelStep) prepare(ctx context.Context, ranked []traverse.Ranked) error {
	if s.cancelInPrepare {
		s.stop()
	}
	return s.stepper.prepare(ctx, ranked)
}

// star returns a hub with n leaves whose IDs are not in insertion order,
// so that ordering the result costs real comparisons.
func star(n int) ([]Entity, []Relation) {
	es := append(make([]Entity, 0, n+1), Entity{ID: "hub"})
	rs := make([]Relation, 0, n)
	for i := range n {
		id := fmt.Sprintf("y%07d", (i*7919)%n)
		es = append(es, Entity{ID: id})
		rs = append(rs, Relation{SourceID: "hub", TargetID: id, Type: "t"})
	}
	return es, rs
}

// TestGetRelatedCancelledAfterLastHop: GetRelated used to check ctx only
// between hops, so a call cancelled while it ordered or copied a large
// result returned the whole result and a nil error. It must return
// ctx.Err(), and stop within a bounded amount of work.
func TestGetRelatedCancelledAfterLastHop(t *testing.T) {
	t.Parallel()
	n := sized(100_000, 3*traverse.SortChunk) // more than two chunks for sortCtx to merge
	es, rs := star(n)
	g := buildGraph(t, es, rs)
	run := func(s *cancelStep) ([]ScoredEntity, error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s.cancel = cancel
		g.mu.RLock()
		defer g.mu.RUnlock()
		s.stepper = g.step(nil, AsOf{})
		var tr traverse.Traversal
		tr.Grow(len(g.nodes))
		return getRelated(ctx, s, &tr, g.ids["hub"], TraverseOptions{Depth: 1})
	}

	// Uncancelled, ordering the result compares IDs millions of times.
	full := &cancelStep{}
	res, err := run(full)
	if err != nil || len(res) != n {
		t.Fatalf("uncancelled: %d results, %v", len(res), err)
	}
	if !slices.IsSortedFunc(res, func(a, b ScoredEntity) int { return strings.Compare(a.Entity.ID, b.Entity.ID) }) {
		t.Fatal("uncancelled: results are not in ID order")
	}
	t.Logf("uncancelled: %d id calls, %d entity calls", full.ids, full.entities)

	// Cancelled while copying the results out (after the ranking).
	s := &cancelStep{cancelInPrepare: true}
	res, err = run(s)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled before copying: %d results, %v", len(res), err)
	}
	if s.entities > 10_000 {
		t.Errorf("cancelled before copying, it still copied %d entities", s.entities)
	}

	// Cancelled while ordering the results.
	s = &cancelStep{cancelAfterIDs: full.ids / 10}
	res, err = run(s)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled while ordering: %d results, %v", len(res), err)
	}
	after := s.ids - s.idsAtCancel
	t.Logf("cancelled while ordering: %d id calls after the cancellation", after)
	if after > full.ids/4 || s.entities > 0 {
		t.Errorf("cancelled while ordering, it still made %d of %d id calls and copied %d entities", after, full.ids, s.entities)
	}

	// Through the public method, on the same graph: a call cancelled
	// mid-way returns ctx.Err().
	requireCancelledWithin(t, func(ctx context.Context) error {
		_, err := g.GetRelated(ctx, "hub", TraverseOptions{Depth: 1})
		return err
	})
}

// requireCancelledWithin times an uncancelled call, then runs it again with a
// context cancelled a tenth of the way in, and requires ctx.Err() well before
// the call would have finished.
func requireCancelledWithin(t *testing.T, call func(ctx context.Context) error) {
	t.Helper()
	start := time.Now()
	if err := call(context.Background()); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledAt atomic.Int64 // UnixNano
	timer := time.AfterFunc(full/10, func() {
		cancelledAt.Store(time.Now().UnixNano())
		cancel()
	})
	defer timer.Stop()
	err := call(ctx)
	returned := time.Now()
	cancelled := time.Unix(0, cancelledAt.Load())
	if cancelledAt.Load() == 0 {
		t.Skipf("the call finished in %v, before its cancellation at %v", returned.Sub(start), full/10)
	}
	lag := returned.Sub(cancelled)
	t.Logf("uncancelled %v; cancelled, returned %v after the cancellation: %v", full, lag, err)
	if err == nil && lag > 50*time.Millisecond {
		t.Errorf("a call cancelled %v before it returned answered with a nil error", lag)
	} else if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call returned %v, want context.Canceled", err)
	}
	if lag > full/2+50*time.Millisecond {
		t.Errorf("a cancelled call returned %v after its cancellation; uncancelled it takes %v", lag, full)
	}
}

// TestFindPathsTiesMatchEnumeration compares FindPaths with the one-sided
// enumeration of bench_test.go on layered random graphs whose weights come
// from {0.5, 1}, with parallel relations, so that long runs of tied partial
// paths meet at the same entities and are ranked by IDs and relation keys.
func TestFindPathsTiesMatchEnumeration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(14, 1))
	for round := range scaled(150, 60, 30) {
		layers, width := 3+rng.IntN(4), 2+rng.IntN(8)
		id := func(l, i int) string { return fmt.Sprintf("n%d:%02d", l, i) }
		es := []Entity{{ID: "src"}, {ID: "dst"}}
		var rs []Relation
		seen := map[RelationKey]bool{}
		add := func(r Relation) {
			if !seen[r.Key()] {
				seen[r.Key()] = true
				rs = append(rs, r)
			}
		}
		weights := [][]float64{{1}, {0.5, 1}, {0.5, 1, 1, 1}}[rng.IntN(3)]
		for l := range layers {
			for i := range width {
				es = append(es, Entity{ID: id(l, i)})
			}
		}
		for l := range layers {
			for i := range width {
				from := "src"
				if l > 0 {
					from = id(l-1, rng.IntN(width))
				}
				for _, typ := range []string{"p", "q", "r"}[:1+rng.IntN(3)] {
					add(Relation{SourceID: from, TargetID: id(l, i), Type: typ, Weight: weights[rng.IntN(len(weights))]})
				}
				if l == layers-1 || rng.IntN(4) == 0 {
					add(Relation{SourceID: id(l, i), TargetID: "dst", Type: "p", Weight: weights[rng.IntN(len(weights))]})
				}
				for range rng.IntN(3) { // more relations to the next layer, and some back
					to := id(min(l+1, layers-1), rng.IntN(width))
					if rng.IntN(5) == 0 {
						to = id(max(l-1, 0), rng.IntN(width))
					}
					if to != id(l, i) {
						add(Relation{SourceID: id(l, i), TargetID: to, Type: "q", Weight: weights[rng.IntN(len(weights))]})
					}
				}
			}
		}
		g := buildGraph(t, es, rs)
		for _, dir := range []Direction{Outgoing, Both} {
			opts := PathOptions{MaxHops: layers + rng.IntN(3), Direction: dir, MaxPaths: []int{1, 3, 10, 60}[rng.IntN(4)]}
			if dir == Both && opts.MaxHops > 6 {
				opts.MaxHops = 6
			}
			want := toPaths(g.step(nil, AsOf{}), dfsPaths(g, "src", "dst", opts))
			res, err := g.FindPaths(ctx, "src", "dst", opts)
			if len(want) == 0 {
				if !errors.Is(err, ErrNoPath) {
					t.Fatalf("round %d %+v: %v, want ErrNoPath", round, opts, err)
				}
				continue
			}
			if err != nil || res.Truncated {
				t.Fatalf("round %d %+v: truncated %v, %v", round, opts, res.Truncated, err)
			}
			if !reflect.DeepEqual(want, res.Paths) {
				t.Fatalf("round %d %+v:\ngot  %v\nwant %v", round, opts, res.Paths, want)
			}
		}
	}
}
