// Package walk is the graph channel's search: from the entities a
// question names, a bounded beam search over relation walks, scored by how
// well each hop's relation type matches the question's words (as package
// question reads them), in the order the question gives them. It works on
// handles through a Stepper, so every backend's graph gives the same
// answers; package kgmem links the question's names, turns answers back
// into entities, relations and explanations, and keeps a Walker per graph.
package walk

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/kgmem/kgmem/internal/question"
	"github.com/kgmem/kgmem/internal/traverse"
)

// The graph channel's search: from the entities a question names, a
// bounded beam search over relation walks (not GetRelated's fewest-hop-once
// breadth-first traversal), scored by how well each hop's relation type
// matches the question's words, in the order the question gives them.
//
// A walk may come back to an entity it passed (X's spouse's spouse is X)
// and may pivot through a shared neighbour (films that share an actor with
// X: out over starred_in's inverse and back over it), but never steps
// straight back over the relation it just walked. Hops that match no
// question word are allowed at a discount, so a question with no relation
// words still gets the neighbourhood, ranked by weight.
//
// Work is bounded by a budget: each hop keeps at most DefaultBeam walks, at
// most walkPerEntity of them standing on one entity; from each walk it
// follows at most walkFanout relations of each type and direction (the
// best by weight, then entity ID) and reads each hop in at most
// walkReadings ways. So an entity with 10,000 relations of one type costs
// one scan of its adjacency list and at most walkFanout new walks, and a
// search expands at most DefaultBeam entities per hop. Within the budget the
// search is exact: each entity gets the best-scoring walk of all walks of
// up to the hop limit (TestSearchMatchesExhaustiveWalks compares it with
// an exhaustive enumeration of walks on random graphs).

// Search defaults.
const (
	// DefaultBeam is how many walks each hop keeps.
	DefaultBeam = 64
	// walkPerEntity is how many of them may stand on one entity.
	walkPerEntity = 4
	// walkFanout is how many relations of one type and direction each
	// walk follows.
	walkFanout = 32
	// walkReadings is how many readings of one hop a walk keeps.
	walkReadings = 3
	// walkKeep is how many answers a search is pruned for.
	walkKeep = 10
	// walkRatio is the least part of the best answer's score a walk must
	// still be able to reach to be expanded.
	walkRatio = 0.5
	// walkLevelRatio is the least part of the best walk of the same
	// length a walk's score must reach to be expanded.
	walkLevelRatio = 0.6
)

// Scoring constants of the search; each multiplies a walk's score.
const (
	unmatchedHop    = 0.4  // a hop whose relation no question word names
	backwardHop     = 0.9  // a hop walked the other way than the question's words ask
	wrongWayPhrase  = 0.6  // likewise, for a registered phrase
	outOfOrder      = 0.8  // a matched hop whose words come before the previous hop's
	weakPart        = 0.35 // a hop matched only by a word of its name's domain segments
	pivotHop        = 0.9  // the same relation walked back out, the question asking for a shared neighbour
	notPivoted      = 0.8  // an answer reached without such a pivot when the question asks for one
	typedHop        = 0.7  // a last hop no word named, to an entity of the type the question asks for
	uncoveredWord   = 0.5  // times how strongly an unmatched word names some relation
	namedContext    = 0.6  // the named entity itself, as context rather than answer
	contextBelow    = 0.95 // at most this times the best answer its walks found
	returnToNamed   = 0.9  // a walk that ends where it started, through other entities
	typeMismatch    = 0.5  // an answer whose type is not the one the question asks for
	typeUnknown     = 0.85 // an answer without a type, when the question asks for one
	coverageShare   = 0.2  // the part of a hop's score that depends on covering its name's words
	orderKeyTopiced = 1000
)

// hopWeight is what a relation's weight multiplies a walk's score by: its
// square root, so that the confidences along a walk of several hops do not
// drown how well the walk matches the question (two hops of weight 0.7
// count 0.7, not 0.49).
func hopWeight(w float64) float64 { return math.Sqrt(w) }

// Stepper is what the search needs from a graph.
type Stepper interface {
	traverse.Stepper
	// ExpandTyped is Expand that also tells the type handle of each
	// relation and whether it was walked from its target to its source.
	// It scans every relation of the frontier (no limit).
	ExpandTyped(ctx context.Context, frontier []int32, dir traverse.Dir, visit func(from int, to, rel, typ int32, w float64, back bool)) error
	// TypeName returns the relation type behind a type handle (dense
	// handles, one per type).
	TypeName(t int32) string
	// SameRel reports whether two relation handles are one relation.
	SameRel(a, b int32) bool
	// NodeType and NodeName return the type and name of an entity.
	NodeType(n int32) string
	NodeName(n int32) string
	// IDHash returns IDHash of the entity's ID.
	IDHash(n int32) uint64
}

// RelationNamer is a Stepper that keeps the relation types' names read
// for matching (question.ReadRelationName) between searches.
type RelationNamer interface {
	RelationName(t int32) *question.RelationName
}

// Start is an entity the question names, where walks start.
type Start struct {
	Node        int32
	Quality     float64
	First, Last int // the mention's unit span in the question
}

// Config bounds a search.
type Config struct {
	Hops  int
	Dir   traverse.Dir // which way relations may be walked
	Vocab *question.Vocab
	// The budget; zero fields mean the defaults (DefaultBeam and the rest).
	Beam, PerEntity, Fanout, Readings int
	// Keep is how many answers the caller wants; walks that cannot reach
	// them are not expanded (see prune). 0 means walkKeep.
	Keep int
	// Exhaustive turns pruning off, for tests.
	Exhaustive bool
}

// withDefaults fills the zero budget fields.
func (c Config) withDefaults() Config {
	for _, f := range []struct {
		v   *int
		def int
	}{{&c.Beam, DefaultBeam}, {&c.PerEntity, walkPerEntity}, {&c.Fanout, walkFanout}, {&c.Readings, walkReadings},
		{&c.Keep, walkKeep}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	return c
}

// wstate is one walk: where it is, how it got there, what it matched.
type wstate struct {
	node     int32
	parent   int32 // state index; -1 for a start
	rel      int32 // relation handle of the last hop; -1 for a start
	typ      int32 // type handle of the last hop; -1 for a start
	start    int32 // index in starts
	hops     int32
	back     bool   // the last hop walked a relation from target to source
	mask     uint64 // question units matched so far
	lastKey  int32  // order key of the last matched hop; -1 for none
	score    float64
	strength float64 // the last hop's match, 0 when it matched nothing
	term     int32   // the last hop's term, as index in Walker.terms; -1 for none
	pivoted  bool    // some hop walked back out over the relation type just walked
	idHash   uint64  // idHash of the entity's ID, the beam's cheap tie-break
}

// wgroup is the relations of one type and direction leaving one state,
// with the ways a hop over them can read the question.
type wgroup struct {
	next     int32 // the state's next group, -1 for none
	state    int32
	typ      int32
	back     bool
	variants []wvariant
	cands    []wcand // the best cfg.Fanout, see candBetter; a heap with the worst first once full
}

// wvariant is one reading of a hop: which question words it matched (a
// hop may match one word or another, and the choice matters to the next
// hops), and what the hop's score is multiplied by.
type wvariant struct {
	factor   float64
	mask     uint64
	key      int32
	strength float64
	term     int32
	pivot    bool
}

type wcand struct {
	to, rel int32
	w       float64
	idHash  uint64
}

// IDHash is the FNV-1a hash of an entity ID. The beam breaks ties by it,
// which is canonical (it depends on the ID alone) and cheaper than
// comparing IDs; equal hashes fall back to the IDs.
func IDHash(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h
}

// Walker holds one search.
type Walker struct {
	st      Stepper
	q       *question.Analysis
	cfg     Config
	starts  []Start
	states  []wstate
	matches []*question.RelationMatch // by type handle; nil until met
	relness [question.MaxBits]float64 // how strongly each question unit names some relation met
	terms   []wtermRef
	hits    []uint64 // by state: the cues its entity's type matches

	// Scratch of step and prune, reused across levels and, through a
	// graph's pool, across calls.
	groups   []wgroup
	frontier []int32
	at       [][]int32
	head     []int32
	order    []int32  // a level's states by compareStates, as offsets
	kept     []wstate // the states a level keeps, in order
	pos      map[int32]int
	count    map[int32]int
	best     map[int32]float64
	active   uint64 // the cues some reached entity's type matches
}

// wtermRef is a term with the relation match it came from.
type wtermRef struct {
	m *question.RelationMatch
	t int
}

// Answer is an entity the search reached, with its best walk.
type Answer struct {
	Node  int32
	Score float64
	State int32 // the best walk's final state
}

// Search runs the search from starts over st, reading the question q,
// and keeps every walk's state for Answers. w may be new or from an
// earlier search; Search resets it. It returns ctx.Err() when ctx is
// cancelled, checking it between hops.
func (w *Walker) Search(ctx context.Context, st Stepper, q *question.Analysis, starts []Start, cfg Config) error {
	w.reset(st, q, cfg, starts)
	for i, s := range starts {
		w.states = append(w.states, wstate{node: s.Node, parent: -1, rel: -1, typ: -1, start: int32(i),
			lastKey: -1, score: s.Quality, term: -1, idHash: st.IDHash(s.Node)})
	}
	level := make([]int32, len(w.states))
	for i := range level {
		level[i] = int32(i)
	}
	for hop := 1; hop <= cfg.Hops && len(level) > 0; hop++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if hop > 1 && !w.cfg.Exhaustive {
			level = w.prune(level)
		}
		next, err := w.step(ctx, level)
		if err != nil {
			return err
		}
		level = next
	}
	return nil
}

// Nodes returns the entities the walks reached, each once, in the order
// the search first reached them, starts first.
func (w *Walker) Nodes() []int32 {
	seen := make(map[int32]bool, len(w.states))
	var nodes []int32
	for i := range w.states {
		if n := w.states[i].node; !seen[n] {
			seen[n] = true
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// Answers scores every entity reached and returns the best keep (all
// when keep <= 0), best first, and which starts the answer kept: of the
// starts whose mentions overlap in the question, only the one whose walks
// answer best. It reads the entities' types: a Stepper that fetches
// entities on demand must have them when Answers is called.
func (w *Walker) Answers(keep int) ([]Answer, []bool) {
	scores := w.scoreStates()
	kept := w.chooseStarts(scores)
	answers := w.aggregate(scores, func(s int32) bool { return kept[s] })
	if keep > 0 && len(answers) > keep {
		answers = answers[:keep]
	}
	return answers, kept
}

// Hop describes the state i of a walk: the entity it stands on, the
// relation its last hop walked (-1 for a start) and the byte span in the
// question of the words that hop read (start -1 for none).
func (w *Walker) Hop(i int32) (node, rel int32, start, end int) {
	s := &w.states[i]
	start, end = -1, -1
	if s.term >= 0 {
		ref := w.terms[s.term]
		t := ref.m.Terms[ref.t]
		start, end = t.Start, t.End
	}
	return s.node, s.rel, start, end
}

// TypeCue returns the byte span in the question of the first type cue
// (the words asking for the answer's type) that the entity of state i
// matches, or ok false.
func (w *Walker) TypeCue(i int32) (start, end int, ok bool) {
	if hit := w.hits[i] & w.active; hit != 0 {
		for ci, c := range w.q.Cues {
			if ci < 64 && hit&(1<<uint(ci)) != 0 {
				return w.q.Units[c.Unit].Start, w.q.Units[c.Last].End, true
			}
		}
	}
	return 0, 0, false
}

// Release drops w's references to the graph and the question, for a
// Walker kept between searches.
func (w *Walker) Release() { w.st, w.q, w.starts = nil, nil, nil }

// reset prepares w for a search, keeping its buffers.
func (w *Walker) reset(st Stepper, q *question.Analysis, cfg Config, starts []Start) {
	w.st, w.q, w.cfg, w.starts = st, q, cfg.withDefaults(), starts
	w.states = w.states[:0]
	clear(w.matches)
	w.matches = w.matches[:0]
	w.relness = [question.MaxBits]float64{}
	w.terms = w.terms[:0]
	w.hits = w.hits[:0]
	w.active = 0
	if w.pos == nil {
		w.pos, w.count, w.best = map[int32]int{}, map[int32]int{}, map[int32]float64{}
	}
}

// prune drops the walks of level that cannot lead to an answer scoring
// walkRatio of the best found so far, or among the cfg.Keep best, and the
// walks scoring under walkLevelRatio of the level's best. A hop multiplies
// a walk's score by at most 1, and so does every factor of an answer's
// final score except the one for a last hop that only the question's type
// word names, which applies to the walk's own last hop, not to the hops
// that extend it: a walk's extensions never score above the walk. The
// answers so far are estimated without their types (see estimate), so the
// pruning is a heuristic of the budget, not a bound.
func (w *Walker) prune(level []int32) []int32 {
	best := w.best
	clear(best)
	for i := range w.states {
		if e := w.estimate(int32(i)); e > best[w.states[i].node] {
			best[w.states[i].node] = e
		}
	}
	scores := make([]float64, 0, len(best))
	for _, e := range best {
		scores = append(scores, e)
	}
	bar := 0.0
	if len(scores) > 0 {
		slices.Sort(scores)
		bar = walkRatio * scores[len(scores)-1]
		if len(scores) >= w.cfg.Keep {
			bar = max(bar, scores[len(scores)-w.cfg.Keep])
		}
	}
	// The level is sorted best first.
	bar = max(bar, walkLevelRatio*w.states[level[0]].score)
	return slices.DeleteFunc(level, func(si int32) bool { return w.states[si].score < bar })
}

// estimate is state i's final score (see scoreStates) as far as the search
// knows it, the same on every backend: every question word no hop matched
// counts as uncovered, and the entity's type is left out, since a backend
// may learn types only after the search.
func (w *Walker) estimate(i int32) float64 {
	s := &w.states[i]
	if s.hops == 0 {
		return 0
	}
	q := w.q
	score := s.score
	for b := range len(q.Content) {
		if s.mask&(1<<uint(b)) == 0 && w.relness[b] > 0 {
			score *= 1 - uncoveredWord*w.relness[b]
		}
	}
	if s.node == w.starts[s.start].Node {
		score *= returnToNamed
	}
	if q.Pivot && !s.pivoted {
		score *= notPivoted
	}
	return score
}

// step expands the states of one level and returns the next level.
func (w *Walker) step(ctx context.Context, level []int32) ([]int32, error) {
	// The frontier holds the level's entities once each; at[i] lists the
	// positions in level of the states on frontier[i].
	frontier, at, pos := w.frontier[:0], w.at[:0], w.pos
	clear(pos)
	for p, si := range level {
		n := w.states[si].node
		i, ok := pos[n]
		if !ok {
			i = len(frontier)
			pos[n] = i
			frontier = append(frontier, n)
			if len(at) < cap(at) {
				at = at[:len(at)+1]
				at[i] = at[i][:0]
			} else {
				at = append(at, nil)
			}
		}
		at[i] = append(at[i], int32(p))
	}
	w.frontier, w.at = frontier, at
	// Each state's groups form a list through wgroup.next, from head.
	w.groups = w.groups[:0]
	head := w.head[:0]
	for range level {
		head = append(head, -1)
	}
	w.head = head
	err := w.st.ExpandTyped(ctx, frontier, w.cfg.Dir, func(from int, to, rel, typ int32, wt float64, back bool) {
		for _, p := range at[from] {
			si := level[p]
			s := &w.states[si]
			if s.rel >= 0 && s.back != back && w.st.SameRel(rel, s.rel) {
				continue // straight back over the relation just walked
			}
			gi := head[p]
			for gi >= 0 && (w.groups[gi].typ != typ || w.groups[gi].back != back) {
				gi = w.groups[gi].next
			}
			if gi < 0 {
				gi = w.addGroup(si, typ, back)
				w.groups[gi].next = head[p]
				head[p] = gi
			}
			w.offer(&w.groups[gi], to, rel, wt)
		}
	})
	if err != nil {
		return nil, err
	}
	groups := w.groups

	// The next level: every new walk, in a canonical order (best first;
	// ties by entity ID, then by parent, which the previous level's order
	// already made canonical, then relation key and reading), so that the
	// answer never depends on the order a backend reports relations in.
	first := int32(len(w.states))
	for gi := range groups {
		g := &groups[gi]
		p := w.states[g.state]
		for _, c := range g.cands {
			for _, v := range g.variants {
				w.states = append(w.states, wstate{node: c.to, parent: g.state, rel: c.rel, typ: g.typ,
					start: p.start, hops: p.hops + 1, back: g.back, mask: v.mask, lastKey: v.key,
					score: p.score * v.factor * hopWeight(c.w), strength: v.strength, term: v.term, pivoted: p.pivoted || v.pivot,
					idHash: c.idHash})
			}
		}
	}
	// The states are ordered by reference (they are some 100 bytes each),
	// and only the ones kept are copied.
	next := w.states[first:]
	order := w.order[:0]
	for i := range next {
		order = append(order, int32(i))
	}
	slices.SortFunc(order, func(a, b int32) int { return w.compareStates(&next[a], &next[b]) })
	w.order = order
	// Keep at most perEntity walks on each entity and beam in all.
	kept := w.kept[:0]
	count := w.count
	clear(count)
	for _, i := range order {
		if len(kept) == w.cfg.Beam {
			break
		}
		if s := &next[i]; count[s.node] < w.cfg.PerEntity {
			count[s.node]++
			kept = append(kept, *s)
		}
	}
	w.kept = kept
	copy(next, kept)
	w.states = w.states[:int(first)+len(kept)]
	out := make([]int32, len(kept))
	for i := range out {
		out[i] = first + int32(i)
	}
	return out, nil
}

// compareStates orders the walks of one level canonically: score
// descending, then the entity (by idHash, then ID), the parent (an index
// into the previous level, whose order is canonical), the last relation's
// key, and the reading of the last hop.
func (w *Walker) compareStates(a, b *wstate) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if a.node != b.node {
		if c := cmp.Compare(a.idHash, b.idHash); c != 0 {
			return c
		}
		return strings.Compare(w.st.ID(a.node), w.st.ID(b.node))
	}
	if c := cmp.Compare(a.parent, b.parent); c != 0 {
		return c
	}
	if c := w.st.CompareRels(a.rel, b.rel); c != 0 {
		return c
	}
	if a.back != b.back {
		if !a.back {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.mask, b.mask); c != 0 {
		return c
	}
	if c := cmp.Compare(a.lastKey, b.lastKey); c != 0 {
		return c
	}
	return cmp.Compare(a.term, b.term)
}

// offer keeps the relation rel to entity to in g if it is among the
// group's cfg.Fanout best: higher weight, then the entity (by idHash, then
// ID), then smaller relation key.
//
// Once the group holds fanout, its candidates are a heap with the worst
// at the root, so that a better one replaces it in O(log fanout); which
// candidates are kept does not depend on their order, and step orders
// the walks they make canonically.
func (w *Walker) offer(g *wgroup, to, rel int32, wt float64) {
	if len(g.cands) == w.cfg.Fanout {
		// Most relations of a hub lose on weight alone, before hashing.
		if wt < g.cands[0].w {
			return
		}
	}
	c := wcand{to, rel, wt, w.st.IDHash(to)}
	if len(g.cands) < w.cfg.Fanout {
		g.cands = append(g.cands, c)
		if len(g.cands) == w.cfg.Fanout {
			for i := len(g.cands)/2 - 1; i >= 0; i-- {
				w.siftWorst(g.cands, i)
			}
		}
		return
	}
	if !w.candBetter(c, g.cands[0]) {
		return
	}
	g.cands[0] = c
	w.siftWorst(g.cands, 0)
}

// siftWorst moves cs[i] down the heap of cs until no child is worse than
// it (see candBetter).
func (w *Walker) siftWorst(cs []wcand, i int) {
	for {
		worst, l := i, 2*i+1
		if l < len(cs) && w.candBetter(cs[worst], cs[l]) {
			worst = l
		}
		if r := l + 1; r < len(cs) && w.candBetter(cs[worst], cs[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		cs[i], cs[worst] = cs[worst], cs[i]
		i = worst
	}
}

func (w *Walker) candBetter(a, b wcand) bool {
	if a.w != b.w {
		return a.w > b.w
	}
	if a.to != b.to {
		if a.idHash != b.idHash {
			return a.idHash < b.idHash
		}
		return w.st.ID(a.to) < w.st.ID(b.to)
	}
	return w.st.CompareRels(a.rel, b.rel) < 0
}

// match returns what relation type t's name matches in the question.
func (w *Walker) match(t int32) *question.RelationMatch {
	if int(t) >= len(w.matches) {
		w.matches = append(w.matches, make([]*question.RelationMatch, int(t)+1-len(w.matches))...)
	}
	if m := w.matches[t]; m != nil {
		return m
	}
	var m *question.RelationMatch
	if c, ok := w.st.(RelationNamer); ok {
		m = w.q.MatchRelationName(w.st.TypeName(t), c.RelationName(t), w.cfg.Vocab)
	} else {
		m = w.q.MatchRelation(w.st.TypeName(t), w.cfg.Vocab)
	}
	w.matches[t] = m
	for _, tm := range m.Terms {
		s := tm.Strength
		if tm.Part >= 0 && m.Parts[tm.Part].Weight < 1 {
			s *= weakPart
		}
		for b := range question.MaxBits {
			if tm.Mask&(1<<uint(b)) != 0 {
				w.relness[b] = max(w.relness[b], s)
			}
		}
	}
	return m
}

// wantForward tells which way the question's words tm ask to walk a
// relation of m's type from the walk's start. A noun names the relation's
// target as seen from its source ("X's director", "the manager of X"), so
// it asks to walk forward. A verb relates a subject and an object: the
// named entity is the subject when it comes before an active verb ("X
// reports to") or after a passive one ("directed by X"), the object
// otherwise ("who reports to X", "X was directed by"); walking forward
// means going from the relation's source, which is the subject of an
// active name ("reports_to") and the object of a passive one
// ("directed_by"). A registered inverse phrase asks the other way.
func (w *Walker) wantForward(start int32, tm *question.Term, m *question.RelationMatch) bool {
	forward := true
	if !tm.Noun {
		s := &w.starts[start]
		topicAfter := s.First > tm.Last
		subject := topicAfter == tm.Passive
		forward = subject != m.PassiveName
	}
	return forward != tm.Inverse
}

// orderKey places a hop's words tm relative to the mention a walk starts
// from: the words after the mention in reading order first, then the words
// before it, nearest first — "the B of the A of X" and "X's A's B" both
// ask for A, then B — and last the main verb that ends a question asked
// with do-support after the mention ("what films did the cast of the films
// scripted by X direct": scripted, cast, direct). A verb right after a
// mention that "the N of" precedes ends a relative clause whose subject is
// that noun phrase ("the movies the director of X penned"): it comes just
// after N, before the words further before the mention (director, penned,
// then movies); a verb after an auxiliary ("… of X were directed by")
// keeps its place after the mention.
func (w *Walker) orderKey(start int32, tm *question.Term) int32 {
	s := &w.starts[start]
	u := tm.First
	if t := w.q.Tail; t >= 0 && u > s.Last && tm.First <= t && t <= tm.Last {
		return 4 * orderKeyTopiced
	}
	if u > s.Last {
		if k := w.q.OfHead(s.First); k >= 0 && !tm.Noun && !w.q.MainClauseBetween(s.Last, u) {
			return int32(2*(orderKeyTopiced+s.First-k) + 1)
		}
		return int32(2 * (u - s.Last))
	}
	return int32(2 * (orderKeyTopiced + s.First - u))
}

// addGroup appends to w.groups the group of the relations of type typ,
// walked backwards or not, from state si, with its best readings of the
// question, and returns its index. It reuses the buffers of a slot left by
// an earlier level or call.
func (w *Walker) addGroup(si, typ int32, back bool) int32 {
	n := len(w.groups)
	if n < cap(w.groups) {
		w.groups = w.groups[:n+1]
	} else {
		w.groups = append(w.groups, wgroup{})
	}
	g := &w.groups[n]
	*g = wgroup{state: si, typ: typ, back: back, cands: g.cands[:0], variants: g.variants[:0]}
	w.readings(g)
	return int32(n)
}

// readings computes how a hop over g's relations can continue g's state:
// its best readings of the question.
func (w *Walker) readings(g *wgroup) {
	s := &w.states[g.state]
	typ, back := g.typ, g.back
	m := w.match(typ)
	for i, tm := range m.Terms {
		if tm.Mask&s.mask != 0 {
			continue
		}
		val := tm.Strength
		if forward := w.wantForward(s.start, &tm, m); forward == back {
			if tm.Part < 0 {
				val *= wrongWayPhrase
			} else {
				val *= backwardHop
			}
		}
		if tm.Part >= 0 && m.Parts[tm.Part].Weight < 1 {
			val *= weakPart
		}
		key := w.orderKey(s.start, &tm)
		if key < s.lastKey {
			val *= outOfOrder
		}
		// The other words of the name that the question also has, near
		// this one, complete the match.
		mask, cov := tm.Mask, 1.0
		if tm.Part >= 0 {
			covered, total := 0.0, 0.0
			for pi, p := range m.Parts {
				if p.Weight < 1 {
					continue
				}
				total += p.Weight
				if pi == tm.Part {
					covered += p.Weight
					continue
				}
				for _, other := range m.Terms {
					if other.Part == pi && other.Mask&(s.mask|mask) == 0 {
						covered += p.Weight
						mask |= other.Mask
						break
					}
				}
			}
			if total > 0 {
				cov = covered / total
			}
		}
		// Neighbouring words that name the same relation ("religious
		// belief") belong to this hop too.
		for _, other := range m.Terms {
			if other.Mask&(s.mask|mask) == 0 && (other.First == tm.Last+1 || other.Last+1 == tm.First) {
				mask |= other.Mask
			}
		}
		factor := val * (1 - coverageShare + coverageShare*cov)
		if factor <= unmatchedHop {
			continue
		}
		v := wvariant{factor: factor, mask: s.mask | mask, key: key, strength: factor, term: int32(len(w.terms))}
		if j := slices.IndexFunc(g.variants, func(o wvariant) bool { return o.mask == v.mask }); j >= 0 {
			if o := &g.variants[j]; v.factor > o.factor || v.factor == o.factor && v.key < o.key {
				w.terms = append(w.terms, wtermRef{m, i})
				*o = v
			}
			continue
		}
		w.terms = append(w.terms, wtermRef{m, i})
		g.variants = append(g.variants, v)
	}
	slices.SortStableFunc(g.variants, func(a, b wvariant) int {
		if c := cmp.Compare(b.factor, a.factor); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	if len(g.variants) > w.cfg.Readings {
		g.variants = g.variants[:w.cfg.Readings]
	}
	// A pivot: the relation just walked, walked back out to another entity,
	// when the question asks for something shared (the same director, a
	// film that shares an actor, who co-starred) or this hop's word comes
	// before a "with" (who acted with X), see pivotsAfter — once: walking
	// it back out again would read the same word for a third hop.
	if !s.pivoted && s.rel >= 0 && s.typ == typ && s.back != back && s.strength > 0 && w.pivotsAfter(s) {
		g.variants = append(g.variants, wvariant{factor: s.strength * pivotHop, mask: s.mask, key: s.lastKey,
			strength: s.strength, term: s.term, pivot: true})
	}
	if len(g.variants) == 0 {
		g.variants = append(g.variants, wvariant{factor: unmatchedHop, mask: s.mask, key: s.lastKey, term: -1})
	}
}

// scoreStates scores every state as an answer: its walk's score times
// the penalties for question words no hop matched, for an answer of
// another type than the question asks for, for the named entity itself and
// for a walk back to it. It records in w.hits which cues each state's type
// matches.
func (w *Walker) scoreStates() []float64 {
	q := w.q
	// A cue counts when some reached entity has the type it asks for.
	w.hits = make([]uint64, len(w.states))
	typeCache := map[string]uint64{}
	var active uint64
	for i := range w.states {
		t := w.st.NodeType(w.states[i].node)
		h, ok := typeCache[t]
		if !ok {
			h = q.TypeMatch(t, w.cfg.Vocab)
			typeCache[t] = h
		}
		w.hits[i] = h
		active |= h
	}
	w.active = active
	// The type a question asks for names an unnamed hop only when it is a
	// noun ("what team is Ann in") or the question names some relation:
	// "who is Ann?" asks about Ann, not about the people next to her.
	var nouns uint64
	for ci, c := range q.Cues {
		if ci < 64 && !c.Wh {
			nouns |= 1 << uint(ci)
		}
	}
	if slices.ContainsFunc(w.relness[:len(q.Content)], func(r float64) bool { return r > 0 }) {
		nouns = ^uint64(0)
	}
	scores := make([]float64, len(w.states))
	matched := make([]float64, len(w.starts)) // by start: its best walk that matched a word
	for i := range w.states {
		s := &w.states[i]
		if s.hops == 0 {
			continue
		}
		score := s.score
		// The words of the cues the answer's type matches are covered,
		// except a noun before "of", which names the relation that gives
		// the answer ("the producers of the films …") and so asks for a
		// hop of its own.
		covered := s.mask
		hit := w.hits[i] & active
		for ci, c := range q.Cues {
			if ci < 64 && hit&(1<<uint(ci)) != 0 && !q.NounOf(c.Last) {
				covered |= q.Span(c.Unit, c.Last)
			}
		}
		for b := range len(q.Content) {
			if covered&(1<<uint(b)) == 0 && w.relness[b] > 0 {
				score *= 1 - uncoveredWord*w.relness[b]
			}
		}
		switch {
		case active == 0:
		case hit != 0:
			if s.term < 0 && hit&nouns != 0 {
				// The type the question asks for names a hop no other
				// word did: "the offices of people skilled in X".
				score *= typedHop / unmatchedHop
			}
		case w.st.NodeType(s.node) == "":
			score *= typeUnknown
		default:
			score *= typeMismatch
		}
		if s.node == w.starts[s.start].Node && w.leftStart(int32(i)) {
			score *= returnToNamed
		}
		if q.Pivot && !s.pivoted {
			score *= notPivoted
		}
		scores[i] = score
		if s.mask != 0 {
			matched[s.start] = max(matched[s.start], score)
		}
	}
	// The named entities are context: they rank just below the answers
	// their walks found, or, when no walk matched the question, above the
	// plain neighbourhood.
	for i := range w.starts {
		score := w.states[i].score * namedContext
		if matched[i] > 0 {
			score = min(score, contextBelow*matched[i])
		}
		scores[i] = score
	}
	return scores
}

// aggregate returns each entity once, best first, with its best walk,
// counting only the walks from starts that keep accepts.
func (w *Walker) aggregate(scores []float64, keep func(start int32) bool) []Answer {
	best := map[int32]int{}
	var out []Answer
	for i := range w.states {
		s := &w.states[i]
		if !keep(s.start) {
			continue
		}
		j, ok := best[s.node]
		if !ok {
			best[s.node] = len(out)
			out = append(out, Answer{Node: s.node, Score: scores[i], State: int32(i)})
			continue
		}
		a := &out[j]
		if scores[i] > a.Score || scores[i] == a.Score && w.pathLess(int32(i), a.State) {
			a.Score, a.State = scores[i], int32(i)
		}
	}
	slices.SortFunc(out, func(a, b Answer) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(w.states[a.State].hops, w.states[b.State].hops); c != 0 {
			return c
		}
		return strings.Compare(w.st.ID(a.Node), w.st.ID(b.Node))
	})
	return out
}

// leftStart reports whether the walk ending in state i passed through an
// entity other than its start.
func (w *Walker) leftStart(i int32) bool {
	home := w.starts[w.states[i].start].Node
	for ; i >= 0; i = w.states[i].parent {
		if w.states[i].node != home {
			return true
		}
	}
	return false
}

// pathLess orders two walks to the same entity canonically: fewer hops,
// then the entity IDs along the way, the relation keys and directions,
// and the words each hop read.
func (w *Walker) pathLess(a, b int32) bool {
	pa, pb := w.Path(a), w.Path(b)
	if len(pa) != len(pb) {
		return len(pa) < len(pb)
	}
	for i := range pa {
		if sa, sb := &w.states[pa[i]], &w.states[pb[i]]; sa.node != sb.node {
			return w.st.ID(sa.node) < w.st.ID(sb.node)
		}
	}
	for i := 1; i < len(pa); i++ {
		sa, sb := &w.states[pa[i]], &w.states[pb[i]]
		if c := w.st.CompareRels(sa.rel, sb.rel); c != 0 {
			return c < 0
		}
		if sa.back != sb.back {
			return !sa.back
		}
		if c := cmp.Compare(w.termSpan(sa.term), w.termSpan(sb.term)); c != 0 {
			return c < 0
		}
	}
	return a < b
}

// pivotsAfter reports whether the walk may pivot after s's hop: when the
// question asks for something shared (question.Analysis.Pivot), after any
// hop unless a "co-" compound names the relation to pivot over (PivotAt),
// and then only after the hop that matched its word; and after a hop that
// matched the word before a "with" (PivotWith), whatever Pivot says.
func (w *Walker) pivotsAfter(s *wstate) bool {
	hop := s.mask
	if s.parent >= 0 {
		hop &^= w.states[s.parent].mask
	}
	if hop&w.q.PivotWith != 0 {
		return true
	}
	return w.q.Pivot && (w.q.PivotAt == 0 || hop&w.q.PivotAt != 0)
}

// termSpan returns the byte offset where a hop's words start, -1 for none.
func (w *Walker) termSpan(t int32) int {
	if t < 0 {
		return -1
	}
	ref := w.terms[t]
	return ref.m.Terms[ref.t].Start
}

// Path returns the states of the walk ending in state i, start first.
func (w *Walker) Path(i int32) []int32 {
	var p []int32
	for ; i >= 0; i = w.states[i].parent {
		p = append(p, i)
	}
	slices.Reverse(p)
	return p
}

// startBest returns, for each start, the best score of its walks of one
// hop or more (0 when it reached nothing).
func (w *Walker) startBest(scores []float64) []float64 {
	out := make([]float64, len(w.starts))
	for i := range w.states {
		if s := &w.states[i]; s.hops > 0 {
			out[s.start] = max(out[s.start], scores[i])
		}
	}
	return out
}

// chooseStarts keeps, of the starts whose mentions overlap in the
// question, the one whose walks answer best (then the better link, then
// the first).
func (w *Walker) chooseStarts(scores []float64) []bool {
	best := w.startBest(scores)
	kept := make([]bool, len(w.starts))
	for i := range w.starts {
		kept[i] = true
	}
	better := func(i, j int) bool { // start i over start j
		if best[i] != best[j] {
			return best[i] > best[j]
		}
		if w.starts[i].Quality != w.starts[j].Quality {
			return w.starts[i].Quality > w.starts[j].Quality
		}
		return i < j
	}
	for i := range w.starts {
		for j := range w.starts {
			a, b := &w.starts[i], &w.starts[j]
			if i != j && a.First <= b.Last && b.First <= a.Last && a.First < len(w.q.Units) && better(j, i) {
				kept[i] = false
			}
		}
	}
	return kept
}
