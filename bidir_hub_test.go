package kgmem

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// oneSidedHub returns src → x_i → hub for i < paths and hub → y_j for
// j < fan, with three direct paths src → c_i → dst of weight 1: the hub
// lies on the source's side only.
func oneSidedHub(paths, fan int) ([]Entity, []Relation) {
	es := []Entity{{ID: "src"}, {ID: "hub"}, {ID: "dst"}}
	var rs []Relation
	for i := range 3 {
		c := fmt.Sprintf("c%d", i)
		es = append(es, Entity{ID: c})
		rs = append(rs, Relation{SourceID: "src", TargetID: c, Type: "t", Weight: 1},
			Relation{SourceID: c, TargetID: "dst", Type: "t", Weight: 1})
	}
	for i := range paths {
		x := fmt.Sprintf("x%05d", i)
		es = append(es, Entity{ID: x})
		rs = append(rs, Relation{SourceID: "src", TargetID: x, Type: "t", Weight: 1},
			Relation{SourceID: x, TargetID: "hub", Type: "t", Weight: 1})
	}
	for j := range fan {
		y := fmt.Sprintf("y%07d", j)
		es = append(es, Entity{ID: y})
		rs = append(rs, Relation{SourceID: "hub", TargetID: y, Type: "t", Weight: 0.5})
	}
	return es, rs
}

// TestFindPathsGrowsTheCheaperSide: with a hub on one side only, the search
// grows the other side instead of scanning the hub's relations, so it
// returns the exact answer, untruncated, after scanning a few times the
// relations near the ends, whether the hub is on the source's side or, the
// search reversed, on the target's. A backend that cannot tell degrees
// (a Neighborhood) compares the sides by partial paths and does as well.
func TestFindPathsGrowsTheCheaperSide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const paths, fan = 2000, 50_000
	es, rs := oneSidedHub(paths, fan)
	g := buildGraph(t, es, rs)
	for _, tc := range []struct {
		name     string
		src, dst string
		dir      Direction
	}{
		{"hub near the source", "src", "dst", Outgoing},
		{"hub near the target", "dst", "src", Incoming},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := g.FindPaths(ctx, tc.src, tc.dst, PathOptions{MaxHops: 10, Direction: tc.dir})
			if err != nil || res.Truncated || len(res.Paths) != 3 {
				t.Fatalf("got %d paths, truncated %v, %v; want the 3 direct paths", len(res.Paths), res.Truncated, err)
			}
			for i, p := range res.Paths {
				want := []string{tc.src, fmt.Sprintf("c%d", i), tc.dst}
				if !slices.Equal(p.EntityIDs, want) {
					t.Fatalf("path %d is %v, want %v", i, p.EntityIDs, want)
				}
			}
			g.mu.RLock()
			st := &countStep{stepper: g.step(nil, AsOf{})}
			_, truncated, err := findPaths(ctx, new(pathSearch), st, g.ids[tc.src], g.ids[tc.dst], PathOptions{MaxHops: 10, Direction: tc.dir}, g.pathBudget)
			g.mu.RUnlock()
			if err != nil || truncated || st.scanned > 4*(paths+3) {
				t.Fatalf("scanned %d relations (truncated %v, %v), want at most %d", st.scanned, truncated, err, 4*(paths+3))
			}
		})
	}
	n := newListNeighborhood(rs)
	res, err := TraversePaths(ctx, n, "src", "dst", PathOptions{MaxHops: 10}, DefaultPathBudget)
	if err != nil || res.Truncated || len(res.Paths) != 3 {
		t.Fatalf("over a Neighborhood: %d paths, truncated %v, %v", len(res.Paths), res.Truncated, err)
	}
}
