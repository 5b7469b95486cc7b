package kgmem_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kgmem/kgmem"
)

// refGraph is a small multigraph kept as plain lists: the entities and the
// relations (unique keys, final values) a graph is built from.
type refGraph struct {
	entities []kgmem.Entity
	rels     []kgmem.Relation
}

func (rg refGraph) ids() []string {
	ids := make([]string, len(rg.entities))
	for i, e := range rg.entities {
		ids[i] = e.ID
	}
	return ids
}

func (rg refGraph) entity(id string) kgmem.Entity {
	for _, e := range rg.entities {
		if e.ID == id {
			return e
		}
	}
	panic("kgmem_test: no entity " + id)
}

// refIDs are the IDs random graphs draw from; several are prefixes of
// others, so that paths compare on every kind of difference.
var refIDs = []string{"a", "a:1", "a:10", "a:2", "ab", "b", "ba", "c", "c:x", "d", "e", "f", "x", "z"}

var refTypes = []string{"knows", "likes", "owns"}

// refWeights are the weight sets random graphs draw from. Small sets make
// equal scores frequent; with every weight 1, all paths of a length tie.
var refWeights = [][]float64{
	{0, 0.25, 0.5, 0.5, 1},
	{0, 0.25, 0.5, 0.5, 1},
	{0.5, 1},
	{1},
}

// randomRefGraph returns a graph of 1–12 entities and 0–30 relations with
// self-loops, parallel relations of different types and relations in both
// directions between the same entities. Most weights come from a small set so
// that equal scores are frequent; a few are arbitrary. Some graphs are
// layered: entities sit in narrow layers in the order of their IDs' list and
// most relations lead from one layer to the next, so that several equally
// scored paths of three or more hops meet at the same entity.
func randomRefGraph(rng *rand.Rand) refGraph {
	ids := slices.Clone(refIDs)
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	ids = ids[:1+rng.IntN(12)]
	var rg refGraph
	for i, id := range ids {
		e := kgmem.Entity{ID: id, Name: "Entity " + strings.ToUpper(id)}
		if i%3 == 0 {
			e.Tags = []string{"t" + id}
		}
		if i%4 == 1 {
			e.Properties = map[string]string{"n": fmt.Sprint(i)}
		}
		rg.entities = append(rg.entities, e)
	}
	weights := refWeights[rng.IntN(len(refWeights))]
	// layer[i] is the layer of ids[i] in a layered graph.
	var layer []int
	if len(ids) >= 4 && rng.IntN(2) == 0 {
		width := 2 + rng.IntN(2)
		for i := range ids {
			layer = append(layer, (i+width-1)/width) // the first entity alone in layer 0
		}
	}
	count := rng.IntN(31)
	if layer != nil {
		count = len(ids) + rng.IntN(len(ids)) // sparse, so that long paths survive
	}
	index := map[kgmem.RelationKey]int{}
	for i := range count {
		r := kgmem.Relation{
			SourceID: ids[rng.IntN(len(ids))],
			TargetID: ids[rng.IntN(len(ids))],
			Type:     refTypes[rng.IntN(len(refTypes))],
			Weight:   weights[rng.IntN(len(weights))],
		}
		if layer != nil && rng.IntN(5) != 0 {
			// From a random entity to one in the next layer, if any.
			from := rng.IntN(len(ids))
			var next []string
			for j, l := range layer {
				if l == layer[from]+1 {
					next = append(next, ids[j])
				}
			}
			if len(next) > 0 {
				r.SourceID, r.TargetID = ids[from], next[rng.IntN(len(next))]
			}
		}
		odd := 10 // one in odd relations is a self-loop, four in odd parallel or reversed
		if layer != nil {
			odd = 30
		}
		switch k := rng.IntN(odd); {
		case k == 0:
			r.TargetID = r.SourceID
		case k <= 2 && len(rg.rels) > 0: // parallel to an earlier relation
			p := rg.rels[rng.IntN(len(rg.rels))]
			r.SourceID, r.TargetID = p.SourceID, p.TargetID
		case k <= 4 && len(rg.rels) > 0: // an earlier relation reversed
			p := rg.rels[rng.IntN(len(rg.rels))]
			r.SourceID, r.TargetID = p.TargetID, p.SourceID
		}
		if len(weights) > 2 && rng.IntN(5) == 0 {
			r.Weight = rng.Float64()
		}
		if rng.IntN(4) == 0 {
			r.Properties = map[string]string{"i": fmt.Sprint(i)}
			r.SourceIDs = []string{fmt.Sprintf("page:%d", i)}
		}
		if j, ok := index[r.Key()]; ok {
			rg.rels[j] = r
			continue
		}
		index[r.Key()] = len(rg.rels)
		rg.rels = append(rg.rels, r)
	}
	return rg
}

// refOffer is a way to reach an entity at some hop.
type refOffer struct {
	id    string
	hop   int
	score float64
	path  []string
	rels  []kgmem.Relation
}

func refCompareKeys(a, b kgmem.RelationKey) int {
	return cmp.Or(
		strings.Compare(a.SourceID, b.SourceID),
		strings.Compare(a.TargetID, b.TargetID),
		strings.Compare(a.Type, b.Type),
	)
}

// refCompareOffers orders two offers for the same entity, best first.
func refCompareOffers(a, b refOffer) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	}
	if c := slices.Compare(a.path, b.path); c != 0 {
		return c
	}
	return refCompareKeys(a.rels[len(a.rels)-1].Key(), b.rels[len(b.rels)-1].Key())
}

// refRelated is the brute-force reference for GetRelated: level by level,
// every relation of the list is tried from every entity kept at the previous
// level. Relations count as stored (a zero weight as 1), and Depth 0 means
// 1.
func refRelated(rg refGraph, start string, opts kgmem.TraverseOptions) []kgmem.ScoredEntity {
	if opts.Depth == 0 {
		opts.Depth = 1
	}
	stored := make([]kgmem.Relation, len(rg.rels))
	for i, r := range rg.rels {
		if r.Weight == 0 {
			r.Weight = 1
		}
		stored[i] = r
	}
	rg.rels = stored
	allowed := func(r kgmem.Relation) bool {
		return len(opts.RelationTypes) == 0 || slices.Contains(opts.RelationTypes, r.Type)
	}
	forward := opts.Direction == kgmem.Outgoing || opts.Direction == kgmem.Both
	backward := opts.Direction == kgmem.Incoming || opts.Direction == kgmem.Both
	reached := map[string]bool{start: true}
	kept := []refOffer{{id: start, score: 1, path: []string{start}}}
	var all []refOffer
	for hop := 1; hop <= opts.Depth && len(kept) > 0; hop++ {
		var offers []refOffer
		for _, u := range kept {
			for _, r := range rg.rels {
				if !allowed(r) {
					continue
				}
				var ends []string
				if forward && r.SourceID == u.id {
					ends = append(ends, r.TargetID)
				}
				if backward && r.TargetID == u.id {
					ends = append(ends, r.SourceID)
				}
				for _, v := range ends {
					if reached[v] {
						continue
					}
					offers = append(offers, refOffer{
						id:    v,
						hop:   hop,
						score: u.score * r.Weight,
						path:  append(slices.Clone(u.path), v),
						rels:  append(slices.Clone(u.rels), r),
					})
				}
			}
		}
		slices.SortFunc(offers, func(a, b refOffer) int {
			return cmp.Or(strings.Compare(a.id, b.id), refCompareOffers(a, b))
		})
		var fresh []refOffer
		for i, o := range offers {
			if i == 0 || o.id != offers[i-1].id {
				fresh = append(fresh, o)
			}
		}
		for _, f := range fresh {
			reached[f.id] = true
		}
		slices.SortFunc(fresh, func(a, b refOffer) int {
			return cmp.Or(-cmp.Compare(a.score, b.score), strings.Compare(a.id, b.id))
		})
		if c := opts.MaxNodesPerHop; c > 0 && len(fresh) > c {
			fresh = fresh[:c]
		}
		all = append(all, fresh...)
		kept = fresh
	}
	slices.SortFunc(all, func(a, b refOffer) int {
		return cmp.Or(-cmp.Compare(a.score, b.score), cmp.Compare(a.hop, b.hop), strings.Compare(a.id, b.id))
	})
	if opts.Limit > 0 && len(all) > opts.Limit {
		all = all[:opts.Limit]
	}
	var out []kgmem.ScoredEntity
	for _, o := range all {
		out = append(out, kgmem.ScoredEntity{Entity: rg.entity(o.id), Score: o.score, Path: o.path, Relations: o.rels})
	}
	return out
}

// requireRefResults requires equal results, treating nil and empty alike.
func requireRefResults(t *testing.T, want, got []kgmem.ScoredEntity, msgAndArgs ...any) {
	t.Helper()
	if len(want) == 0 && len(got) == 0 {
		return
	}
	require.Equal(t, want, got, msgAndArgs...)
}

// requireRelatedMatches requires g.Related to answer as GetRelated's
// want: the same entities in the same order, with the same scores, paths
// and relations, built from its links and keys.
func requireRelatedMatches(t *testing.T, g *kgmem.InMemoryGraph, start string, opts kgmem.TraverseOptions, want []kgmem.ScoredEntity, msgAndArgs ...any) {
	t.Helper()
	r, err := g.Related(t.Context(), start, opts)
	require.NoError(t, err, msgAndArgs...)
	got := make([]kgmem.ScoredEntity, r.Len())
	for i := range got {
		e, ok, err := r.Entity(t.Context(), i)
		require.NoError(t, err)
		require.True(t, ok)
		rel, ok, err := r.Relation(t.Context(), i)
		require.NoError(t, err)
		require.True(t, ok)
		var rels []kgmem.Relation
		if p := r.Parent(i); p >= 0 {
			require.Less(t, p, i, msgAndArgs...)
			require.Equal(t, r.Hops(p)+1, r.Hops(i), msgAndArgs...)
			rels = append(rels, got[p].Relations...)
		} else {
			require.Equal(t, 1, r.Hops(i), msgAndArgs...)
		}
		got[i] = kgmem.ScoredEntity{Entity: e, Score: r.Score(i), Path: r.Path(i), Relations: append(rels, rel)}
	}
	requireRefResults(t, want, got, msgAndArgs...)
}

func describeRefGraph(rg refGraph) string {
	var b strings.Builder
	fmt.Fprintf(&b, "entities %q\n", rg.ids())
	for _, r := range rg.rels {
		fmt.Fprintf(&b, "\t%q -[%s]-> %q %v\n", r.SourceID, r.Type, r.TargetID, r.Weight)
	}
	return b.String()
}

// refBuildInOrder builds rg in the order of its lists.
func refBuildInOrder(t *testing.T, rg refGraph) *kgmem.InMemoryGraph {
	t.Helper()
	g := kgmem.NewInMemoryGraph()
	for _, e := range rg.entities {
		require.NoError(t, g.AddEntity(t.Context(), e))
	}
	for _, r := range rg.rels {
		require.NoError(t, g.AddRelation(t.Context(), r))
	}
	return g
}

// refBuildShuffled builds rg with entities and relations in a random order.
func refBuildShuffled(t *testing.T, rg refGraph, rng *rand.Rand) *kgmem.InMemoryGraph {
	t.Helper()
	g := kgmem.NewInMemoryGraph()
	for _, i := range rng.Perm(len(rg.entities)) {
		require.NoError(t, g.AddEntity(t.Context(), rg.entities[i]))
	}
	for _, i := range rng.Perm(len(rg.rels)) {
		require.NoError(t, g.AddRelation(t.Context(), rg.rels[i]))
	}
	return g
}

// refBuildWithChurn builds rg through a detour: decoy entities and relations
// added and removed, entities and relations first written with other values
// and then replaced, entities removed and re-added with their relations, and
// relations removed and re-added. The graph it ends with holds exactly rg.
func refBuildWithChurn(t *testing.T, rg refGraph, rng *rand.Rand) *kgmem.InMemoryGraph {
	t.Helper()
	ctx := t.Context()
	g := kgmem.NewInMemoryGraph()
	ids := rg.ids()

	var decoys []string
	for i := range rng.IntN(4) {
		decoys = append(decoys, fmt.Sprintf("decoy:%d", i))
	}
	type step func()
	var steps []step
	for _, e := range rg.entities {
		if rng.IntN(3) == 0 {
			wrong := kgmem.Entity{ID: e.ID, Name: "wrong", Tags: []string{"wrong", "t" + e.ID}}
			steps = append(steps, func() { require.NoError(t, g.AddEntity(ctx, wrong)) })
		}
	}
	for _, id := range decoys {
		steps = append(steps, func() { require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: id, Tags: []string{"decoy"}})) })
	}
	rng.Shuffle(len(steps), func(i, j int) { steps[i], steps[j] = steps[j], steps[i] })
	for _, s := range steps {
		s()
	}
	for _, i := range rng.Perm(len(rg.entities)) {
		require.NoError(t, g.AddEntity(ctx, rg.entities[i]))
	}

	// Relations: some written first with other values, decoys mixed in.
	everyone := slices.Concat(ids, decoys)
	var decoyRels []kgmem.Relation
	steps = steps[:0]
	for range rng.IntN(8) {
		r := kgmem.Relation{
			SourceID: everyone[rng.IntN(len(everyone))],
			TargetID: everyone[rng.IntN(len(everyone))],
			Type:     "decoy",
			Weight:   1,
		}
		if rng.IntN(2) == 0 {
			r.Type = refTypes[rng.IntN(len(refTypes))]
			if len(decoys) > 0 {
				r.SourceID = decoys[rng.IntN(len(decoys))]
			} else {
				r.Type = "decoy"
			}
		}
		decoyRels = append(decoyRels, r)
		steps = append(steps, func() { require.NoError(t, g.AddRelation(ctx, r)) })
	}
	for _, r := range rg.rels {
		if rng.IntN(3) == 0 {
			wrong := r
			wrong.Weight = 1 - r.Weight
			wrong.Properties = map[string]string{"wrong": "yes"}
			steps = append(steps, func() { require.NoError(t, g.AddRelation(ctx, wrong)) })
		}
	}
	rng.Shuffle(len(steps), func(i, j int) { steps[i], steps[j] = steps[j], steps[i] })
	for _, s := range steps {
		s()
	}
	for _, i := range rng.Perm(len(rg.rels)) {
		require.NoError(t, g.AddRelation(ctx, rg.rels[i]))
	}

	// Decoy relations between real entities go; those at decoy entities go
	// with the entities below.
	removed := map[kgmem.RelationKey]bool{}
	for _, r := range decoyRels {
		if r.Type == "decoy" && !removed[r.Key()] {
			removed[r.Key()] = true
			require.NoError(t, g.RemoveRelation(ctx, r.SourceID, r.TargetID, r.Type))
		}
	}

	// Some entities are removed and re-added with their relations.
	for _, i := range rng.Perm(len(ids))[:rng.IntN(len(ids)+1)/2] {
		id := ids[i]
		require.NoError(t, g.RemoveEntity(ctx, id))
		require.NoError(t, g.AddEntity(ctx, rg.entities[i]))
		for _, j := range rng.Perm(len(rg.rels)) {
			if r := rg.rels[j]; r.SourceID == id || r.TargetID == id {
				require.NoError(t, g.AddRelation(ctx, r))
			}
		}
	}
	for _, i := range rng.Perm(len(decoys)) {
		require.NoError(t, g.RemoveEntity(ctx, decoys[i]))
	}

	// Some relations are removed and re-added.
	for _, i := range rng.Perm(len(rg.rels))[:len(rg.rels)/3] {
		r := rg.rels[i]
		require.NoError(t, g.RemoveRelation(ctx, r.SourceID, r.TargetID, r.Type))
		require.NoError(t, g.AddRelation(ctx, r))
	}
	return g
}

// refFilters returns the type filters tried on a graph: none, one type, two
// types, and a type no relation has.
func refFilters(rng *rand.Rand) [][]string {
	one := refTypes[rng.IntN(len(refTypes))]
	two := slices.Clone(refTypes)
	rng.Shuffle(len(two), func(i, j int) { two[i], two[j] = two[j], two[i] })
	return [][]string{nil, {one}, two[:2], {"unknown"}}
}

var refDirections = []kgmem.Direction{kgmem.Outgoing, kgmem.Incoming, kgmem.Both}

// TestGetRelatedMatchesReference compares GetRelated, field by field and with
// exact scores, against the brute-force reference on random multigraphs.
func TestGetRelatedMatchesReference(t *testing.T) {
	t.Parallel()
	graphs := kgmem.Scaled(300, 12, 6)
	for n := range graphs {
		rng := rand.New(rand.NewPCG(uint64(n), 0x6b676d656d))
		rg := randomRefGraph(rng)
		g := refBuildInOrder(t, rg)
		ids := rg.ids()
		// ids are in random order; in a layered graph these are the first
		// layer, a middle one and the last.
		starts := slices.Compact([]string{ids[0], ids[len(ids)/2], ids[len(ids)-1]})
		filters := refFilters(rng)
		desc := describeRefGraph(rg)
		for _, start := range starts {
			for _, dir := range refDirections {
				for _, types := range filters {
					for depth := range 6 {
						for perHop := range 4 {
							opts := kgmem.TraverseOptions{Depth: depth, Direction: dir, RelationTypes: types, MaxNodesPerHop: perHop}
							full := refRelated(rg, start, opts)
							for limit := range 5 {
								opts.Limit = limit
								want := full
								if limit > 0 && len(want) > limit {
									want = want[:limit]
								}
								got, err := g.GetRelated(t.Context(), start, opts)
								require.NoError(t, err)
								requireRefResults(t, want, got, "graph %d, GetRelated(%q, %+v) on\n%s", n, start, opts, desc)
								requireRelatedMatches(t, g, start, opts, want, "graph %d, Related(%q, %+v) on\n%s", n, start, opts, desc)
							}
						}
					}
				}
			}
		}
	}
}

// TestGetRelatedIgnoresInsertionOrder builds the same logical graphs in
// different ways, with different histories of writes and removals, and
// requires identical answers from all of them, equal to the reference.
func TestGetRelatedIgnoresInsertionOrder(t *testing.T) {
	t.Parallel()
	graphs := kgmem.Scaled(150, 8, 4)
	for n := range graphs {
		rng := rand.New(rand.NewPCG(uint64(n), 0x6f72646572))
		rg := randomRefGraph(rng)
		builds := []*kgmem.InMemoryGraph{
			refBuildInOrder(t, rg),
			refBuildShuffled(t, rg, rng),
			refBuildWithChurn(t, rg, rng),
			refBuildWithChurn(t, rg, rng),
		}
		wantEntities, err := builds[0].Entities(t.Context())
		require.NoError(t, err)
		wantRels, err := builds[0].Relations(t.Context())
		require.NoError(t, err)
		for i, g := range builds[1:] {
			es, err := g.Entities(t.Context())
			require.NoError(t, err)
			require.Equal(t, wantEntities, es, "graph %d, build %d", n, i+1)
			rels, err := g.Relations(t.Context())
			require.NoError(t, err)
			require.Equal(t, wantRels, rels, "graph %d, build %d", n, i+1)
		}
		filters := refFilters(rng)
		desc := describeRefGraph(rg)
		ids := rg.ids()
		for _, start := range ids[:min(len(ids), 5)] { // ids are in random order
			for _, dir := range refDirections {
				for _, types := range filters[:3] {
					for depth := 1; depth <= 4; depth++ {
						for perHop := range 3 {
							opts := kgmem.TraverseOptions{Depth: depth, Direction: dir, RelationTypes: types, MaxNodesPerHop: perHop}
							want := refRelated(rg, start, opts)
							for i, g := range builds {
								got, err := g.GetRelated(t.Context(), start, opts)
								require.NoError(t, err)
								requireRefResults(t, want, got, "graph %d, build %d, GetRelated(%q, %+v) on\n%s",
									n, i, start, opts, desc)
								requireRelatedMatches(t, g, start, opts, want, "graph %d, build %d, Related(%q, %+v) on\n%s",
									n, i, start, opts, desc)
							}
						}
					}
				}
			}
		}
	}
}
