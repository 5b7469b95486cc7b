package kgmem

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/walk"
)

// Connection questions: a question that names two entities and asks how
// they are related ("how is X related to Y", "what is the relationship
// between X and Y", "how are X and Y connected", "X和Y是什么关系", "X与Y有什么
// 关系") is answered with the best paths between them of the fewest
// relations, as FindPaths finds them (at most the walk's hop limit, in the
// walk's direction and relation types, as of the question's time; a
// search per length, from one relation up, until one finds a path, then
// the best of one relation more when it found fewer than three),
// ranked above everything the ordinary walk finds:
//
//   - the best path, as the item of the second entity (X —colleague_of→ Y);
//   - the second best, as the item of the first entity, read from the
//     second (Y ←works_at— Acme ←works_at— X);
//   - each further path as the item of the entity it passes just before
//     the second one, the path from the first entity to it.
//
// A question that asks for a third entity (who, which, where, 谁, 哪) is an
// ordinary question: "who is related to both X and Y" walks.

// connectPaths is how many paths a connection question is answered with.
const connectPaths = 3

// Scores of a connection question's items: the i-th path scores
// connectTop - i·connectStep times the weaker link's quality, above any
// walk's answer to the same question but the exactly matched ones.
const (
	connectTop  = 0.99
	connectStep = 0.01
)

// connectWords are the English words that ask how two entities are
// related.
var connectWords = map[string]bool{
	"related": true, "relation": true, "relations": true, "relationship": true, "relationships": true,
	"connected": true, "connection": true, "connections": true, "connect": true, "connects": true,
	"linked": true, "link": true, "links": true, "tied": true, "ties": true, "relate": true,
}

// connectCJK are the Chinese words that do.
var connectCJK = []string{"关系", "關係", "联系", "聯繫", "关联", "關聯", "相关", "相關"}

// otherWh are the words of a question that asks for a third entity.
var otherWh = map[string]bool{"who": true, "whom": true, "whose": true, "which": true, "where": true, "when": true}

// asksConnection reports whether query's words (units, its splitUnits)
// ask how two entities are related (it does not look at the entities).
func asksConnection(query string, units []linkUnit) bool {
	found := false
	for _, u := range units {
		if u.Word {
			if otherWh[u.Key] {
				return false
			}
			found = found || connectWords[u.Key]
		}
	}
	if strings.ContainsAny(query, "谁誰哪") {
		return false
	}
	if !found {
		for _, w := range connectCJK {
			if strings.Contains(query, w) {
				return true
			}
		}
	}
	return found
}

// walkFromNames searches walks from the entities the query names (see
// walkNamed), as of the time the query's words say (see timeq.go), and
// answers a connection question with the paths between its two entities.
func (r *MemoryRetriever) walkFromNames(ctx context.Context, tr *timeReading, g KnowledgeGraph, query string, keep int) ([]graphHit, int, error) {
	qt, err := tr.read(ctx, r, g, query)
	if err != nil {
		return nil, 0, err
	}
	cfg := r.walkConfigAt(qt)
	hits, linked, err := r.walkNamed(ctx, g, qt.query, cfg, keep)
	if err == nil && cfg.hops > 0 && asksConnection(qt.query, qt.units) {
		hits, err = r.connect(ctx, g, qt.query, cfg, hits, keep)
	}
	applyTime(hits, qt.read)
	return hits, linked, err
}

// connectPair returns the two entities a connection question names, in
// the order it names them: of the strong mentions, the best links that do
// not overlap (by quality, then the longer mention, then position, then
// ID), two distinct entities.
func connectPair(ms []EntityMention) (a, b EntityMention, ok bool) {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(x, y EntityMention) int {
		if c := cmp.Compare(y.Quality, x.Quality); c != 0 {
			return c
		}
		if c := cmp.Compare(y.End-y.Start, x.End-x.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Start, y.Start); c != 0 {
			return c
		}
		return strings.Compare(x.Entity.ID, y.Entity.ID)
	})
	var picked []EntityMention
	for _, m := range ms {
		if len(picked) == 2 {
			break
		}
		if slices.ContainsFunc(picked, func(p EntityMention) bool {
			return p.Entity.ID == m.Entity.ID || m.Start < p.End && p.Start < m.End
		}) {
			continue
		}
		picked = append(picked, m)
	}
	if len(picked) < 2 {
		return a, b, false
	}
	if picked[1].Start < picked[0].Start {
		picked[0], picked[1] = picked[1], picked[0]
	}
	return picked[0], picked[1], true
}

// connect adds to hits the paths between the two entities of a connection
// question and returns the best keep, best first.
func (r *MemoryRetriever) connect(ctx context.Context, g KnowledgeGraph, query string, cfg walkConfig, hits []graphHit, keep int) ([]graphHit, error) {
	ms, err := linkMentions(ctx, g, query)
	if err != nil {
		return hits, err
	}
	a, b, ok := connectPair(strongMentions(ms))
	if !ok {
		return hits, nil
	}
	// The fewest relations first: a direct relation says how two entities
	// are related better than a longer path of heavier ones.
	var res PathResult
	for h := 1; h <= cfg.hops; h++ {
		res, err = g.FindPaths(ctx, a.Entity.ID, b.Entity.ID, PathOptions{
			MaxHops: h, Direction: cfg.dir, RelationTypes: r.cfg.Expansion.RelationTypes,
			MaxPaths: connectPaths, MaxNodesPerHop: walk.DefaultBeam, AsOf: cfg.asOf,
		})
		if errors.Is(err, ErrNoPath) {
			continue
		}
		if err == nil && len(res.Paths) < connectPaths && h < cfg.hops {
			// Fewer paths of the fewest relations than asked: the best of
			// one relation more follow them.
			more, err := g.FindPaths(ctx, a.Entity.ID, b.Entity.ID, PathOptions{
				MaxHops: h + 1, Direction: cfg.dir, RelationTypes: r.cfg.Expansion.RelationTypes,
				MaxPaths: connectPaths + len(res.Paths), MaxNodesPerHop: walk.DefaultBeam, AsOf: cfg.asOf,
			})
			if err != nil {
				return hits, err
			}
			for _, p := range more.Paths {
				if p.Hops() == h+1 && len(res.Paths) < connectPaths {
					res.Paths = append(res.Paths, p)
				}
			}
		}
		break
	}
	switch {
	case errors.Is(err, ErrNoPath) || errors.Is(err, ErrNotFound):
		return hits, nil
	case err != nil:
		return hits, err
	}
	base := min(a.Quality, b.Quality)
	var found []graphHit
	used := map[string]bool{}
	for i, p := range res.Paths {
		if p.Hops() == 0 {
			continue
		}
		ids, rels := p.EntityIDs, p.Relations
		switch {
		case i == 1 && !used[a.Entity.ID]:
			ids, rels = slices.Clone(ids), slices.Clone(rels)
			slices.Reverse(ids)
			slices.Reverse(rels)
		case i >= 1:
			ids, rels = ids[:len(ids)-1], rels[:len(rels)-1]
		}
		last := ids[len(ids)-1]
		if used[last] || len(ids) < 2 {
			continue
		}
		h, err := pathHit(ctx, g, ids, rels, base*(connectTop-connectStep*float64(i)))
		if err != nil {
			return hits, err
		}
		if h.entity.ID == "" {
			continue // removed meanwhile
		}
		used[last] = true
		found = append(found, h)
	}
	if len(found) == 0 {
		return hits, nil
	}
	out := found
	for _, h := range hits {
		if !used[h.entity.ID] {
			out = append(out, h)
		}
	}
	slices.SortStableFunc(out, func(x, y graphHit) int { return cmp.Compare(y.score, x.score) })
	if len(out) > keep {
		out = out[:keep]
	}
	return out, nil
}

// pathHit makes the graph hit of a path; its entity is zero when an entity
// of the path is gone.
func pathHit(ctx context.Context, g KnowledgeGraph, ids []string, rels []Relation, score float64) (graphHit, error) {
	h := graphHit{score: score, path: slices.Clone(ids), rels: slices.Clone(rels),
		names: make([]string, len(ids)), matched: make([]string, len(rels))}
	for i, id := range ids {
		e, ok, err := g.GetEntity(ctx, id)
		if err != nil || !ok {
			return graphHit{}, err
		}
		h.names[i] = e.Name
		if h.names[i] == "" {
			h.names[i] = id
		}
		if i == len(ids)-1 {
			h.entity = e
		}
	}
	return h, nil
}
