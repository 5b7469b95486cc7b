package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
)

// csrPartial is a partial path of the CSR path search.
type csrPartial struct {
	node, parent, rel int32
	depth             int32
	score, w          float64
}

// csrPathSide is one side of the CSR path search.
type csrPathSide struct {
	out    bool // walks out lists (forward Outgoing or backward Incoming); both under Both
	both   bool
	avoid  int32
	parts  []csrPartial
	levels [][]int32 // partial indexes, sorted by node then score descending
}

// csrPaths is the comparison baseline for FindPaths on an interned static
// layout: the k best simple paths by score (product of weights), then hops,
// then entity IDs and relation positions, of at most maxHops relations,
// found by a bidirectional search over the CSR arrays. Each round grows the
// side whose next level scans fewer relations and joins the new level with
// the other side's deepest; partials scoring below the k-th best path are
// not grown. It returns the paths' scores, best first, and whether any
// path exists; it has no budget.
func (c *csrGraph) csrPaths(src, dst string, maxHops, k int, dir Direction) []float64 {
	s, d := c.ids[src], c.ids[dst]
	fwd := &csrPathSide{out: dir != Incoming, both: dir == Both, avoid: d, parts: []csrPartial{{node: s, parent: -1, rel: -1, score: 1}}}
	bwd := &csrPathSide{out: dir == Incoming, both: dir == Both, avoid: s, parts: []csrPartial{{node: d, parent: -1, rel: -1, score: 1}}}
	fwd.levels, bwd.levels = [][]int32{{0}}, [][]int32{{0}}
	var best []float64 // scores of the k best, descending
	threshold := func() float64 {
		if len(best) < k {
			return -1
		}
		return best[k-1]
	}
	cost := func(sd *csrPathSide) int {
		n, th := 0, threshold()
		for _, i := range sd.levels[len(sd.levels)-1] {
			p := &sd.parts[i]
			if p.node == sd.avoid || p.score < th {
				continue
			}
			if sd.out || sd.both {
				n += int(c.outOff[p.node+1] - c.outOff[p.node])
			}
			if !sd.out || sd.both {
				n += int(c.inOff[p.node+1] - c.inOff[p.node])
			}
		}
		return n
	}
	onPath := func(sd *csrPathSide, pi, n int32) bool {
		for ; pi >= 0; pi = sd.parts[pi].parent {
			if sd.parts[pi].node == n {
				return true
			}
		}
		return false
	}
	grow := func(sd *csrPathSide) {
		th := threshold()
		var next []int32
		add := func(pi int32, to, rel []int32, w []float64) {
			p := sd.parts[pi]
			for i, v := range to {
				sc := p.score * w[i]
				if sc < th || onPath(sd, pi, v) {
					continue
				}
				sd.parts = append(sd.parts, csrPartial{node: v, parent: pi, rel: rel[i], depth: p.depth + 1, score: sc, w: w[i]})
				next = append(next, int32(len(sd.parts)-1))
			}
		}
		for _, pi := range sd.levels[len(sd.levels)-1] {
			u := sd.parts[pi].node
			if u == sd.avoid || sd.parts[pi].score < th {
				continue
			}
			if sd.out || sd.both {
				lo, hi := c.outOff[u], c.outOff[u+1]
				add(pi, c.outTo[lo:hi], c.outRel[lo:hi], c.outW[lo:hi])
			}
			if !sd.out || sd.both {
				lo, hi := c.inOff[u], c.inOff[u+1]
				add(pi, c.inTo[lo:hi], c.inRel[lo:hi], c.inW[lo:hi])
			}
		}
		slices.SortFunc(next, func(a, b int32) int {
			pa, pb := &sd.parts[a], &sd.parts[b]
			if c := cmp.Compare(pa.node, pb.node); c != 0 {
				return c
			}
			return cmp.Compare(pb.score, pa.score)
		})
		sd.levels = append(sd.levels, next)
	}
	join := func(fl, bl []int32) {
		var fn, bn []int32
		for i, j := 0, 0; i < len(fl) && j < len(bl); {
			n, m := fwd.parts[fl[i]].node, bwd.parts[bl[j]].node
			if n != m {
				if n < m {
					i++
				} else {
					j++
				}
				continue
			}
			ie, je := i, j
			for ie < len(fl) && fwd.parts[fl[ie]].node == n {
				ie++
			}
			for je < len(bl) && bwd.parts[bl[je]].node == n {
				je++
			}
			for _, fi := range fl[i:ie] {
				for _, bi := range bl[j:je] {
					sc := fwd.parts[fi].score
					fn = fn[:0]
					for p := fi; p >= 0; p = fwd.parts[p].parent {
						fn = append(fn, fwd.parts[p].node)
					}
					bn = bn[:0]
					for p := bi; p >= 0; p = bwd.parts[p].parent {
						if bwd.parts[p].parent >= 0 {
							sc *= bwd.parts[p].w // walking order, as FindPaths multiplies
						}
						if p != bi {
							bn = append(bn, bwd.parts[p].node)
						}
					}
					if sc < threshold() || slices.ContainsFunc(bn, func(x int32) bool { return slices.Contains(fn, x) }) {
						continue
					}
					pos, _ := slices.BinarySearchFunc(best, sc, func(a, b float64) int { return cmp.Compare(b, a) })
					best = slices.Insert(best, pos, sc)
					if len(best) > k {
						best = best[:k]
					}
				}
			}
			i, j = ie, je
		}
	}
	for len(fwd.levels)+len(bwd.levels)-2 < maxHops {
		sd := fwd
		if cost(bwd) < cost(fwd) {
			sd = bwd
		}
		grow(sd)
		if len(sd.levels[len(sd.levels)-1]) == 0 {
			break
		}
		join(fwd.levels[len(fwd.levels)-1], bwd.levels[len(bwd.levels)-1])
	}
	return best
}

// TestCSRPathsAgrees: the CSR path search finds the scores FindPaths finds
// on the benchmark graphs, where FindPaths is not truncated.
func TestCSRPathsAgrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, shape := range []string{"powerlaw", "uniform"} {
		f := fixture(t, benchGraphSpec{Shape: shape, Entities: 1_000, Relations: 5_000})
		for _, dir := range []Direction{Outgoing, Incoming, Both} {
			for _, hops := range []int{2, 4, 6} {
				opts := PathOptions{MaxHops: hops, Direction: dir, MaxPaths: 5}
				for _, p := range f.pathPairs(t, hops, dir) {
					res, err := f.g.FindPaths(ctx, p[0], p[1], opts)
					if err != nil || res.Truncated {
						t.Fatalf("%s %v %d hops %v: truncated %v, %v", shape, dir, hops, p, res.Truncated, err)
					}
					want := make([]float64, len(res.Paths))
					for i, path := range res.Paths {
						want[i] = path.Score
					}
					if got := f.csr.csrPaths(p[0], p[1], hops, 5, dir); !slices.Equal(got, want) {
						t.Fatalf("%s %v %d hops %v: CSR scores %v, FindPaths %v", shape, dir, hops, p, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkFindPathsCSR times FindPaths (MaxPaths 3) against the CSR path
// search on the power-law and uniform graphs up to 1e6 relations, 4 and 6
// hops, over pairs joined by a path (see pathPairs), and reports how many
// of the timed calls the path budget truncated (truncated/op).
func BenchmarkFindPathsCSR(b *testing.B) {
	ctx := context.Background()
	for _, shape := range []string{"powerlaw", "uniform"} {
		for _, size := range benchSizes() {
			spec := benchGraphSpec{Shape: shape, Entities: size[0], Relations: size[1]}
			b.Run(spec.String(), func(b *testing.B) {
				f := fixture(b, spec)
				for _, hops := range []int{4, 6} {
					for _, dir := range []Direction{Outgoing, Both} {
						opts := PathOptions{MaxHops: hops, Direction: dir}
						pairs := f.pathPairs(b, hops, dir)
						name := fmt.Sprintf("hops=%d/dir=%v", hops, dir)
						b.Run(name+"/impl=kgmem", func(b *testing.B) {
							b.ReportAllocs()
							truncated := 0
							for i := 0; b.Loop(); i++ {
								p := pairs[i%len(pairs)]
								res, err := f.g.FindPaths(ctx, p[0], p[1], opts)
								if err != nil {
									b.Fatal(err)
								}
								if res.Truncated {
									truncated++
								}
							}
							b.ReportMetric(float64(truncated)/float64(b.N), "truncated/op")
						})
						b.Run(name+"/impl=csr", func(b *testing.B) {
							b.ReportAllocs()
							for i := 0; b.Loop(); i++ {
								p := pairs[i%len(pairs)]
								if len(f.csr.csrPaths(p[0], p[1], hops, defaultMaxPaths, dir)) == 0 {
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
