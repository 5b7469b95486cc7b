package kgmem

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/traverse"
)

// defaultPathBudget bounds the work of one FindPaths call unless
// WithPathBudget says otherwise. Growing the two sides of its search, the
// call scans at most that many relations, counting those the type filter
// drops and counting an entity's relations once for each partial path
// grown from it; each relation scanned adds at most one partial path of 32
// bytes, so at the default the partial paths take at most 16 MiB. Joining
// the sides, it tries at most that many pairs of a forward and a backward
// partial path. When either runs out the search stops and
// PathResult.Truncated is set. A search the budget cuts costs O(n log n)
// time for budget n: at the default, about 0.1 s on one core and 48 MiB
// allocated when every relation scanned builds a partial path, a few
// milliseconds when most are dropped (BenchmarkFindPathsHub).
const defaultPathBudget = 1 << 19

// defaultMaxPaths is PathOptions.MaxPaths when it is 0.
const defaultMaxPaths = 3

// defaultMaxHops is PathOptions.MaxHops when it is 0: four relations,
// enough for "X works on a project that belongs to a team that Y leads"
// and short enough that the meet-in-the-middle search grows each side
// two hops.
const defaultMaxHops = 4

// WithPathBudget sets the work one FindPaths call may do: how many
// relations it may scan, and so how many partial paths it may build, and
// how many pairs of partial paths it may try to join (see
// 2¹⁹ relations; see defaultPathBudget for what a search costs). 0 means the default; a negative n is invalid.
func WithPathBudget(n int) Option {
	return optionFunc(func(c *graphConfig) {
		if n < 0 {
			c.fail("WithPathBudget: negative budget %d", n)
			return
		}
		c.pathBudget = n
	})
}

// validatePathOptions checks PathOptions and sets the defaults of zero
// fields: MaxHops 0 becomes 4 and MaxPaths 0 becomes 3.
func validatePathOptions(opts *PathOptions) error {
	if opts.MaxHops == 0 {
		opts.MaxHops = defaultMaxHops
	}
	if opts.MaxPaths == 0 {
		opts.MaxPaths = defaultMaxPaths
	}
	switch {
	case opts.MaxHops < 0:
		return fmt.Errorf("kgmem: find paths: negative MaxHops %d: %w", opts.MaxHops, ErrInvalidArgument)
	case opts.MaxPaths < 0:
		return fmt.Errorf("kgmem: find paths: negative MaxPaths %d: %w", opts.MaxPaths, ErrInvalidArgument)
	case opts.MaxNodesPerHop < 0:
		return fmt.Errorf("kgmem: find paths: negative MaxNodesPerHop %d: %w", opts.MaxNodesPerHop, ErrInvalidArgument)
	case !opts.Direction.valid():
		return fmt.Errorf("kgmem: find paths: unknown direction %v: %w", opts.Direction, ErrInvalidArgument)
	}
	if err := checkAsOf(opts.AsOf); err != nil {
		return errmsg.Wrap("kgmem: find paths", err)
	}
	return validateTypes(opts.RelationTypes)
}

// findPaths runs ps's search from handle src to handle dst (src != dst)
// over st with opts and budget (see traverse.PathSearch.Find). MaxPaths 0
// means defaultMaxPaths, for callers that did not validate opts.
func findPaths(ctx context.Context, ps *traverse.PathSearch, st stepper, src, dst int32, opts PathOptions, budget int) ([]traverse.Path, bool, error) {
	k := opts.MaxPaths
	if k == 0 {
		k = defaultMaxPaths
	}
	return ps.Find(ctx, st, src, dst, traverse.PathQuery{
		MaxHops: opts.MaxHops, MaxPaths: k, MaxNodesPerHop: opts.MaxNodesPerHop, Dir: traverse.Dir(opts.Direction), Budget: budget,
	})
}

// toPaths converts found paths to Paths with copied relations.
// All paths share two backing arrays, each path's slices capped so that an
// append by the caller cannot write into its neighbour.
func toPaths(st stepper, cs []traverse.Path) []Path {
	nodes, rels := 0, 0
	for _, c := range cs {
		nodes, rels = nodes+len(c.Nodes), rels+len(c.Rels)
	}
	ids, relations := make([]string, nodes), make([]Relation, rels)
	out := make([]Path, len(cs))
	for i, c := range cs {
		p := Path{EntityIDs: ids[:len(c.Nodes):len(c.Nodes)], Relations: relations[:len(c.Rels):len(c.Rels)], Score: c.Score}
		ids, relations = ids[len(c.Nodes):], relations[len(c.Rels):]
		for j, n := range c.Nodes {
			p.EntityIDs[j] = st.ID(n)
		}
		for j, r := range c.Rels {
			p.Relations[j] = st.relation(r)
		}
		out[i] = p
	}
	return out
}

// FindPaths returns the opts.MaxPaths (0 means 3) best simple paths from
// sourceID to targetID of at most opts.MaxHops relations (0 means 4),
// walking relations in opts.Direction (the zero value Outgoing; Both:
// either way) and only of opts.RelationTypes when that is set. A path never visits an entity twice; parallel relations
// between the same entities make distinct paths. Paths are ordered by score
// (product of weights) descending, then fewer hops, then entity IDs and
// relation keys position by position: exactly the first MaxPaths of every
// such path sorted that way.
//
// sourceID == targetID returns one zero-hop path of score 1. Otherwise, when
// there is no path, the error wraps ErrNoPath and names both IDs; FindPaths
// never answers with neighbours in place of a path. Unknown IDs return
// ErrNotFound; IDs that are empty, only white space or not valid UTF-8,
// and invalid options, return ErrInvalidArgument; a cancelled ctx
// returns ctx.Err(), also when the search had finished; ctx is checked
// between hops, every few thousand relations scanned and every thousand
// pairs of partial paths joined.
//
// The search meets in the middle: ⌈MaxHops/2⌉ hops forward from the source
// and ⌊MaxHops/2⌋ backward from the target, pruning partial paths that can
// no longer reach the k-th best score. opts.MaxNodesPerHop caps how many
// entities each side grows per hop, best partial scores first, and the graph's
// path budget (2¹⁹ relations unless WithPathBudget) caps how many
// relations a call scans, and with them the partial paths it builds, and
// how many pairs of partial paths it joins. When either cut the search,
// Truncated is set and the paths are exact among those explored; with
// ErrNoPath the result still carries Truncated. Cost: at worst O(d^⌈h/2⌉)
// partial paths for degree d and h hops, bounded by the budget, plus
// sorting them; paths that tie with the k-th best cost at most about
// MaxPaths joins per partial path, not one per path, and only the k best
// paths are ever stored. See defaultPathBudget for the cost of a search the budget cuts.
func (g *InMemoryGraph) FindPaths(ctx context.Context, sourceID, targetID string, opts PathOptions) (PathResult, error) {
	if err := ctx.Err(); err != nil {
		return PathResult{}, err
	}
	if err := validatePathOptions(&opts); err != nil {
		return PathResult{}, err
	}
	if err := checkPathEnds(sourceID, targetID); err != nil {
		return PathResult{}, err
	}
	if err := g.rlock(); err != nil {
		return PathResult{}, err
	}
	defer g.mu.RUnlock()
	src, ok := g.ids[sourceID]
	if !ok {
		return PathResult{}, pathEndNotFound("source", sourceID)
	}
	dst, ok := g.ids[targetID]
	if !ok {
		return PathResult{}, pathEndNotFound("target", targetID)
	}
	if src == dst {
		return PathResult{Paths: []Path{{EntityIDs: []string{sourceID}, Score: 1}}}, nil
	}
	ps, _ := g.pathScratch.Get().(*traverse.PathSearch)
	if ps == nil {
		ps = new(traverse.PathSearch)
	}
	defer func() {
		// Keep small scratch for the next call; let a large search's go.
		if ps.Reusable() {
			g.pathScratch.Put(ps)
		}
	}()
	return searchPaths(ctx, ps, g.step(opts.RelationTypes, opts.AsOf), src, dst, opts, g.pathBudget)
}

// searchPaths runs findPaths from src to dst (src != dst) with scratch ps
// and turns its answer into a PathResult, or into ErrNoPath when it found
// nothing.
func searchPaths(ctx context.Context, ps *traverse.PathSearch, st stepper, src, dst int32, opts PathOptions, budget int) (PathResult, error) {
	best, truncated, err := findPaths(ctx, ps, st, src, dst, opts, budget)
	if err != nil {
		return PathResult{}, err
	}
	res := PathResult{Paths: toPaths(st, best), Truncated: truncated}
	if len(res.Paths) == 0 {
		return res, noPathError(st.ID(src), st.ID(dst), opts.MaxHops, truncated)
	}
	return res, nil
}

// checkPathEnds checks the IDs FindPaths names, as every read checks an
// entity ID.
func checkPathEnds(sourceID, targetID string) error {
	if err := checkID("source entity", sourceID); err != nil {
		return errmsg.Wrap("kgmem: find paths", err)
	}
	if err := checkID("target entity", targetID); err != nil {
		return errmsg.Wrap("kgmem: find paths", err)
	}
	return nil
}

// pathEndNotFound is FindPaths' error for an end (what: "source" or
// "target") that is not an entity.
func pathEndNotFound(what, id string) error {
	return fmt.Errorf("kgmem: find paths: %s entity %s: %w", what, quote.Value(id), ErrNotFound)
}

// noPathError is FindPaths' error when no path joins the two entities. It
// reads "kgmem: find paths from "a" to "b" within 4 hops: no path".
func noPathError(sourceID, targetID string, maxHops int, truncated bool) error {
	cut := ""
	if truncated {
		cut = " (search truncated by MaxNodesPerHop or the path budget)"
	}
	return fmt.Errorf("kgmem: find paths from %s to %s within %d hops%s: %w", quote.Value(sourceID), quote.Value(targetID), maxHops, cut, ErrNoPath)
}
