package kgmem_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kgmem/kgmem"
)

// bfsEdge is a relation written as "source>target:type" with a weight.
type bfsEdge struct {
	key    string
	weight float64
}

func parseBFSEdge(s string) kgmem.RelationKey {
	st, typ, _ := strings.Cut(s, ":")
	src, dst, _ := strings.Cut(st, ">")
	return kgmem.RelationKey{SourceID: src, TargetID: dst, Type: typ}
}

// bfsHit is an expected GetRelated result: the path as space-separated IDs,
// the exact score and the relations walked, in path order.
type bfsHit struct {
	path  string
	score float64
	rels  []string
}

func TestGetRelatedEdgeCases(t *testing.T) {
	// chain is a → b → c → d with decaying weights.
	chain := []bfsEdge{{"a>b:t", 0.5}, {"b>c:t", 0.8}, {"c>d:t", 0.25}}
	// cycle is a → b → c → a with self-loops on a and b.
	cycle := []bfsEdge{{"a>b:t", 0.5}, {"b>c:t", 0.5}, {"c>a:t", 0.5}, {"a>a:t", 1}, {"b>b:u", 1}}
	// star has a → b, c → a and relations of two types.
	star := []bfsEdge{{"a>b:knows", 0.5}, {"c>a:knows", 0.25}, {"a>d:works", 1}, {"b>e:works", 1}}

	tests := []struct {
		name     string
		entities []string // added before the relations' endpoints
		edges    []bfsEdge
		start    string
		opts     kgmem.TraverseOptions
		want     []bfsHit
		wantErr  error
	}{
		{
			name:    "empty graph",
			start:   "a",
			opts:    kgmem.TraverseOptions{Depth: 2},
			wantErr: kgmem.ErrNotFound,
		},
		{
			name:    "unknown start",
			edges:   chain,
			start:   "zz",
			opts:    kgmem.TraverseOptions{Depth: 2},
			wantErr: kgmem.ErrNotFound,
		},
		{
			name:    "negative depth",
			edges:   chain,
			start:   "a",
			opts:    kgmem.TraverseOptions{Depth: -1},
			wantErr: kgmem.ErrInvalidArgument,
		},
		{
			name:     "single entity",
			entities: []string{"a"},
			start:    "a",
			opts:     kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both},
		},
		{
			name:  "depth 0 means one hop",
			edges: chain,
			start: "b",
			opts:  kgmem.TraverseOptions{Depth: 0, Direction: kgmem.Both},
			want: []bfsHit{
				{"b c", 0.8, []string{"b>c:t"}},
				{"b a", 0.5, []string{"a>b:t"}},
			},
		},
		{
			name:  "zero options: one hop, outgoing",
			edges: chain,
			start: "b",
			opts:  kgmem.TraverseOptions{},
			want:  []bfsHit{{"b c", 0.8, []string{"b>c:t"}}},
		},
		{
			name:  "depth 1",
			edges: chain,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 1},
			want:  []bfsHit{{"a b", 0.5, []string{"a>b:t"}}},
		},
		{
			name:  "weight decay across 3 hops",
			edges: chain,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 3},
			want: []bfsHit{
				{"a b", 0.5, []string{"a>b:t"}},
				{"a b c", 0.4, []string{"a>b:t", "b>c:t"}},
				{"a b c d", 0.1, []string{"a>b:t", "b>c:t", "c>d:t"}},
			},
		},
		{
			name:  "depth beyond the graph",
			edges: chain,
			start: "b",
			opts:  kgmem.TraverseOptions{Depth: 100},
			want: []bfsHit{
				{"b c", 0.8, []string{"b>c:t"}},
				{"b c d", 0.2, []string{"b>c:t", "c>d:t"}},
			},
		},
		{
			name:  "incoming walks target to source",
			edges: chain,
			start: "d",
			opts:  kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Incoming},
			want: []bfsHit{
				{"d c", 0.25, []string{"c>d:t"}},
				{"d c b", 0.2, []string{"c>d:t", "b>c:t"}},
				{"d c b a", 0.1, []string{"c>d:t", "b>c:t", "a>b:t"}},
			},
		},
		{
			name:  "outgoing from the end of a chain",
			edges: chain,
			start: "d",
			opts:  kgmem.TraverseOptions{Depth: 3},
		},
		{
			name:  "both from the middle",
			edges: chain,
			start: "c",
			opts:  kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both},
			want: []bfsHit{
				{"c b", 0.8, []string{"b>c:t"}},
				{"c b a", 0.4, []string{"b>c:t", "a>b:t"}},
				{"c d", 0.25, []string{"c>d:t"}},
			},
		},
		{
			name:  "cycle terminates",
			edges: cycle,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 10},
			want: []bfsHit{
				{"a b", 0.5, []string{"a>b:t"}},
				{"a b c", 0.25, []string{"a>b:t", "b>c:t"}},
			},
		},
		{
			name:  "cycle both ways",
			edges: cycle,
			start: "b",
			opts:  kgmem.TraverseOptions{Depth: 10, Direction: kgmem.Both},
			want: []bfsHit{
				{"b a", 0.5, []string{"a>b:t"}},
				{"b c", 0.5, []string{"b>c:t"}},
			},
		},
		{
			name:  "self-loop only",
			edges: []bfsEdge{{"a>a:t", 1}},
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both},
		},
		{
			name:  "self-loop is never a hop",
			edges: []bfsEdge{{"a>a:t", 1}, {"b>b:t", 1}, {"a>b:t", 0.5}, {"b>c:t", 0.5}},
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 3, Direction: kgmem.Both},
			want: []bfsHit{
				{"a b", 0.5, []string{"a>b:t"}},
				{"a b c", 0.25, []string{"a>b:t", "b>c:t"}},
			},
		},
		{
			name:  "outgoing",
			edges: star,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 2},
			want: []bfsHit{
				{"a d", 1, []string{"a>d:works"}},
				{"a b", 0.5, []string{"a>b:knows"}},
				{"a b e", 0.5, []string{"a>b:knows", "b>e:works"}},
			},
		},
		{
			name:  "incoming",
			edges: star,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Incoming},
			want:  []bfsHit{{"a c", 0.25, []string{"c>a:knows"}}},
		},
		{
			name:  "both",
			edges: star,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both},
			want: []bfsHit{
				{"a d", 1, []string{"a>d:works"}},
				{"a b", 0.5, []string{"a>b:knows"}},
				{"a b e", 0.5, []string{"a>b:knows", "b>e:works"}},
				{"a c", 0.25, []string{"c>a:knows"}},
			},
		},
		{
			name:  "type filter",
			edges: star,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both, RelationTypes: []string{"knows"}},
			want: []bfsHit{
				{"a b", 0.5, []string{"a>b:knows"}},
				{"a c", 0.25, []string{"c>a:knows"}},
			},
		},
		{
			name:  "type filter with two types",
			edges: star,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both, RelationTypes: []string{"works", "knows"}},
			want: []bfsHit{
				{"a d", 1, []string{"a>d:works"}},
				{"a b", 0.5, []string{"a>b:knows"}},
				{"a b e", 0.5, []string{"a>b:knows", "b>e:works"}},
				{"a c", 0.25, []string{"c>a:knows"}},
			},
		},
		{
			name:  "type filter cuts the walk",
			edges: star,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 2, RelationTypes: []string{"works"}},
			want:  []bfsHit{{"a d", 1, []string{"a>d:works"}}},
		},
		{
			name:  "empty type filter walks every type",
			edges: star,
			start: "c",
			opts:  kgmem.TraverseOptions{Depth: 3, RelationTypes: []string{}},
			want: []bfsHit{
				{"c a", 0.25, []string{"c>a:knows"}},
				{"c a d", 0.25, []string{"c>a:knows", "a>d:works"}},
				{"c a b", 0.125, []string{"c>a:knows", "a>b:knows"}},
				{"c a b e", 0.125, []string{"c>a:knows", "a>b:knows", "b>e:works"}},
			},
		},
		{
			name:  "unknown type",
			edges: star,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both, RelationTypes: []string{"nope"}},
		},
		{
			name: "tie goes to the smallest path",
			// Both paths to z score 1; they first differ at a/b.
			edges: []bfsEdge{{"s>b:t", 1}, {"b>p:t", 1}, {"p>z:t", 1}, {"s>a:t", 1}, {"a>q:t", 1}, {"q>z:t", 1}},
			start: "s",
			opts:  kgmem.TraverseOptions{Depth: 3},
			want: []bfsHit{
				{"s a", 1, []string{"s>a:t"}},
				{"s b", 1, []string{"s>b:t"}},
				{"s b p", 1, []string{"s>b:t", "b>p:t"}},
				{"s a q", 1, []string{"s>a:t", "a>q:t"}},
				{"s a q z", 1, []string{"s>a:t", "a>q:t", "q>z:t"}},
			},
		},
		{
			name: "tie goes to the smallest path after equal decay",
			// Both paths to z score 0.25.
			edges: []bfsEdge{{"s>y:t", 0.5}, {"y>z:t", 0.5}, {"s>x:t", 0.25}, {"x>z:t", 1}},
			start: "s",
			opts:  kgmem.TraverseOptions{Depth: 2},
			want: []bfsHit{
				{"s y", 0.5, []string{"s>y:t"}},
				{"s x", 0.25, []string{"s>x:t"}},
				{"s x z", 0.25, []string{"s>x:t", "x>z:t"}},
			},
		},
		{
			name:  "higher score beats smaller path",
			edges: []bfsEdge{{"s>x:t", 0.5}, {"x>z:t", 0.5}, {"s>y:t", 0.5}, {"y>z:t", 1}},
			start: "s",
			opts:  kgmem.TraverseOptions{Depth: 2},
			want: []bfsHit{
				{"s x", 0.5, []string{"s>x:t"}},
				{"s y", 0.5, []string{"s>y:t"}},
				{"s y z", 0.5, []string{"s>y:t", "y>z:t"}},
			},
		},
		{
			name:  "fewer hops beat a higher score",
			edges: []bfsEdge{{"s>z:t", 0.25}, {"s>m:t", 1}, {"m>z:t", 1}},
			start: "s",
			opts:  kgmem.TraverseOptions{Depth: 2},
			want: []bfsHit{
				{"s m", 1, []string{"s>m:t"}},
				{"s z", 0.25, []string{"s>z:t"}},
			},
		},
		{
			name:  "parallel relations tie on key",
			edges: []bfsEdge{{"a>b:zeta", 0.5}, {"b>a:alpha", 0.5}, {"a>b:beta", 0.5}},
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both},
			want:  []bfsHit{{"a b", 0.5, []string{"a>b:beta"}}},
		},
		{
			name:  "parallel relations: the best weight wins",
			edges: []bfsEdge{{"a>b:alpha", 0.25}, {"b>a:beta", 0.75}, {"a>b:gamma", 0.5}},
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both},
			want:  []bfsHit{{"a b", 0.75, []string{"b>a:beta"}}},
		},
		{
			name:  "equal scores order by hops then ID",
			edges: []bfsEdge{{"s>z:t", 1}, {"z>a:t", 1}, {"s>y:t", 1}, {"s>c:t", 0.25}},
			start: "s",
			opts:  kgmem.TraverseOptions{Depth: 2},
			want: []bfsHit{
				{"s y", 1, []string{"s>y:t"}},
				{"s z", 1, []string{"s>z:t"}},
				{"s z a", 1, []string{"s>z:t", "z>a:t"}},
				{"s c", 0.25, []string{"s>c:t"}},
			},
		},
		{
			name:  "a zero weight is unweighted",
			edges: []bfsEdge{{"s>z:t", 0.5}, {"s>c:t", 0}, {"c>d:t", 0.5}},
			start: "s",
			opts:  kgmem.TraverseOptions{Depth: 2},
			want: []bfsHit{
				{"s c", 1, []string{"s>c:t"}},
				{"s z", 0.5, []string{"s>z:t"}},
				{"s c d", 0.5, []string{"s>c:t", "c>d:t"}},
			},
		},
		{
			name:  "max nodes per hop",
			edges: []bfsEdge{{"s>a:t", 0.5}, {"s>b:t", 0.5}, {"s>c:t", 1}, {"c>b:t", 1}, {"b>d:t", 1}, {"a>e:t", 1}},
			start: "s",
			opts:  kgmem.TraverseOptions{Depth: 3, MaxNodesPerHop: 2},
			// b is cut at hop 1 (tie with a, larger ID) and is not reached
			// again from c; d is never reached.
			want: []bfsHit{
				{"s c", 1, []string{"s>c:t"}},
				{"s a", 0.5, []string{"s>a:t"}},
				{"s a e", 0.5, []string{"s>a:t", "a>e:t"}},
			},
		},
		{
			name:  "limit",
			edges: chain,
			start: "a",
			opts:  kgmem.TraverseOptions{Depth: 3, Limit: 2},
			want: []bfsHit{
				{"a b", 0.5, []string{"a>b:t"}},
				{"a b c", 0.4, []string{"a>b:t", "b>c:t"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			g := kgmem.NewInMemoryGraph()
			stored := map[kgmem.RelationKey]kgmem.Relation{}
			ids := tt.entities
			for _, e := range tt.edges {
				k := parseBFSEdge(e.key)
				ids = append(ids, k.SourceID, k.TargetID)
			}
			for _, id := range ids {
				if _, ok, _ := g.GetEntity(ctx, id); !ok {
					require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: id, Name: strings.ToUpper(id)}))
				}
			}
			for _, e := range tt.edges {
				k := parseBFSEdge(e.key)
				r := kgmem.Relation{SourceID: k.SourceID, TargetID: k.TargetID, Type: k.Type, Weight: e.weight}
				require.NoError(t, g.AddRelation(ctx, r))
				stored[k], _, _ = g.GetRelation(ctx, k.SourceID, k.TargetID, k.Type)
			}

			got, err := g.GetRelated(ctx, tt.start, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			want := make([]kgmem.ScoredEntity, 0, len(tt.want))
			for _, w := range tt.want {
				path := strings.Fields(w.path)
				id := path[len(path)-1]
				s := kgmem.ScoredEntity{
					Entity: kgmem.Entity{ID: id, Name: strings.ToUpper(id)},
					Score:  w.score,
					Path:   path,
				}
				for _, k := range w.rels {
					r, ok := stored[parseBFSEdge(k)]
					require.True(t, ok, "relation %q is not in the graph", k)
					s.Relations = append(s.Relations, r)
				}
				want = append(want, s)
			}
			if len(want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, want, got)
		})
	}
}
