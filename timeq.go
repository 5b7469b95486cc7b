package kgmem

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/kgmem/kgmem/internal/question"
)

// Time in a question: the graph channel reads, without a model, the words
// of a question that say when it asks about, in English and Chinese, and
// walks the graph as of that time (see Valid time):
//
//   - an instant or a period: "in 2023", "in March 2021", "on 2021-03-15",
//     "early 2020", "the 1990s", "2023年", "2021年3月", and, by the graph's
//     clock (WithClock), "last year", "two years ago", "去年", "三年前". A
//     period is read at its middle instant, or now when it holds now;
//   - an order: "before 2022", "2022年以前", or relative to a fact: "before
//     Lisbon", "after he left Acme", "while she lived in Berlin",
//     "里斯本之前", "离开Acme以后". The fact is the one between the entity
//     the order names and another entity the question names (else any
//     fact of that entity with a valid time), read just before it started,
//     as of its end ("after", "left", "离开") or at its middle ("while");
//   - history: "has lived", "used to", "ever", "previously", "former",
//     "曾经", "以前", "都…过", "住过": every value over time (AsOf AllTime),
//     ended facts ranked with current ones;
//   - now: "now", "currently", "现在", "目前": the default.
//
// Time words are hidden from entity linking and from relation matching, so
// "before Lisbon" does not start a walk at Lisbon. A time word that is part
// of an entity's name the question links ("Now You See Me", a year that is
// an entity) is a name, not time. A question without time words is
// answered exactly as before.
//
// The reading of the words into time cues is internal/question's
// (question.ParseTime); this file resolves them over a graph: the facts an
// order names, and the instant the walk reads at.

// validYearMin and validYearMax must equal question.MinYear and
// question.MaxYear, the years a question's dates may have: the conversions
// below overflow, and the package does not compile, when they differ.
const (
	_ = uint(validYearMin - question.MinYear)
	_ = uint(question.MinYear - validYearMin)
	_ = uint(validYearMax - question.MaxYear)
	_ = uint(question.MaxYear - validYearMax)
)

// timeRead is what a question's time words made the graph channel read: the
// label of the time and the words, for RetrievalItem.AsOfLabel and AsOfCue.
type timeRead struct {
	label, words string
}

// questionTime is a question's time words resolved over one graph.
type questionTime struct {
	query string     // the query with the time words blanked out
	units []linkUnit // splitUnits of query
	asOf  AsOf
	set   bool // the words set asOf (else the retriever's stands)
	read  timeRead
}

// graphClock is implemented by graphs that have a clock (InMemoryGraph and
// every graph that embeds it): the "now" relative time words are read by.
type graphClock interface{ Now() time.Time }

// graphNow returns g's now, or time.Now for a graph without a clock.
func graphNow(g KnowledgeGraph) time.Time {
	if c, ok := g.(graphClock); ok {
		return c.Now().UTC()
	}
	return time.Now().UTC()
}

// linkMentions links the entities query names, as the graph channel does.
func linkMentions(ctx context.Context, g KnowledgeGraph, query string) ([]EntityMention, error) {
	if l, ok := g.(EntityLinker); ok {
		return l.LinkEntities(ctx, query)
	}
	return LinkWithKeywords(ctx, g, query)
}

// strongMentions returns the mentions that are not weak (see weakMention),
// or all of them when every one is weak, as the walk counts them.
func strongMentions(ms []EntityMention) []EntityMention {
	var strong []EntityMention
	for _, m := range ms {
		if !weakMention(m.Text, spells(m.Entity.Name, m.Entity.Aliases, m.Alias, m.Text)) {
			strong = append(strong, m)
		}
	}
	if len(strong) == 0 {
		return ms
	}
	return strong
}

// explicitAsOf reports whether the retriever was told the instant to read
// at (WithAsOf, or WithExpansion's AsOf), which wins over the question's
// words.
func (r *MemoryRetriever) explicitAsOf() bool {
	return r.cfg.AsOf != nil || r.cfg.expansion().AsOf != (AsOf{})
}

// timeReading is readTime's answer over one graph in one Retrieve, read
// once and shared by the steps that need it (the walk, page spreading
// beside it and the seeded walk after it).
type timeReading struct {
	once sync.Once
	qt   questionTime
	err  error
}

// read returns readTime(ctx, g, query), the first caller's answer for the
// others. When that caller's context ended while it read and ctx has not,
// it reads again under ctx.
func (t *timeReading) read(ctx context.Context, r *MemoryRetriever, g KnowledgeGraph, query string) (questionTime, error) {
	t.once.Do(func() { t.qt, t.err = r.readTime(ctx, g, query) })
	if t.err != nil && ctx.Err() == nil && (errors.Is(t.err, context.Canceled) || errors.Is(t.err, context.DeadlineExceeded)) {
		return r.readTime(ctx, g, query)
	}
	return t.qt, t.err
}

// readTime resolves the time words of query over g: the instant to walk
// at, and the query with those words blanked out (bytes replaced by
// spaces, so that offsets keep) for linking and relation matching. A query
// without time words comes back as it is, at no cost beyond the scan.
func (r *MemoryRetriever) readTime(ctx context.Context, g KnowledgeGraph, query string) (questionTime, error) {
	units := splitUnits(query)
	qt := questionTime{query: query, units: units}
	now := graphNow(g)
	cues := question.ParseTime(query, units, now)
	if len(cues) == 0 {
		return qt, nil
	}
	ms, err := linkMentions(ctx, g, query)
	if err != nil {
		return qt, err
	}
	mentions := strongMentions(ms)
	overlaps := func(s [2]int) bool {
		for _, m := range mentions {
			if s[0] < m.End && m.Start < s[1] {
				return true
			}
		}
		return false
	}
	// Time words that are part of a name are the name.
	cues = slices.DeleteFunc(cues, func(c question.TimeCue) bool { return slices.ContainsFunc(c.Own, overlaps) })
	var chosen *question.TimeCue
	var masks [][2]int
	for i := range cues {
		c := &cues[i]
		switch {
		case c.Clause[1] > c.Clause[0]:
			if !r.resolveOrder(ctx, g, c, mentions, now) {
				continue
			}
		case c.Timed:
			c.ResolvePeriod(now)
		}
		masks = append(masks, c.Mask...)
		if chosen == nil || timeRank(c.Kind) > timeRank(chosen.Kind) {
			chosen = c
		}
	}
	if chosen == nil {
		return qt, nil
	}
	b := []byte(query)
	for _, m := range masks {
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	qt.query = string(b)
	qt.units = splitUnits(qt.query)
	if r.explicitAsOf() {
		return qt, nil
	}
	qt.read.words = chosen.Words(query)
	switch {
	case chosen.Kind == question.TimeNow:
		qt.read.label = "now"
	case chosen.Kind == question.TimeAll:
		qt.asOf, qt.set, qt.read.label = AsOf{AllTime: true}, true, "all time"
	default:
		qt.asOf, qt.set = At(chosen.From), true
		qt.read.label = chosen.Label
	}
	return qt, nil
}

// timeRank orders the cues of one question: an order or a period sets the
// time over history wording, which sets it over "now".
func timeRank(k question.TimeKind) int {
	switch k {
	case question.TimeNow:
		return 0
	case question.TimeAll:
		return 1
	case question.TimeAt:
		return 2
	}
	return 3
}

// resolveOrder resolves a cue of a time (it reads at) or of an order
// relative to a fact: it finds the fact, sets c.from to the instant to read
// at and c.label, and sets c.mask to the words to blank. It reports false
// when the cue says nothing this graph can answer (no entity named where
// the order points, or no valid time on its facts). Chinese 之前/以前
// after the only entity the question names means "before": history.
func (r *MemoryRetriever) resolveOrder(ctx context.Context, g KnowledgeGraph, c *question.TimeCue, mentions []EntityMention, now time.Time) bool {
	anchor := -1
	for i, m := range mentions {
		if m.Start >= c.Clause[0] && m.End <= c.Clause[1] && (anchor < 0 || c.Last) {
			anchor = i
		}
	}
	var subjects []EntityMention
	for i, m := range mentions {
		if anchor >= 0 && i != anchor && m.Entity.ID != mentions[anchor].Entity.ID &&
			!(m.Start < mentions[anchor].End && mentions[anchor].Start < m.End) {
			subjects = append(subjects, m)
		}
	}
	if anchor < 0 || len(subjects) == 0 && c.Last {
		if c.Last && c.Kind == question.TimeBefore {
			c.Kind, c.Clause = question.TimeAll, [2]int{}
			c.Mask = c.Own
			return true
		}
		if anchor < 0 {
			return false
		}
	}
	a := mentions[anchor]
	// The words to blank: the order word and the clause up to the entity
	// (English), or from the clause's start, or the end of the entity
	// named before it, to the order word (Chinese).
	if c.Last {
		from := c.Clause[0]
		for _, m := range subjects {
			if m.End <= a.Start && m.End > from {
				from = m.End
			}
		}
		c.Mask = [][2]int{{from, c.Own[0][1]}}
	} else {
		c.Mask = [][2]int{{c.Own[0][0], a.End}}
	}
	// The fact: between a subject and the entity, else any of the
	// entity's facts, with a valid time.
	var facts []Relation
	for _, s := range subjects {
		rels, err := History(ctx, g, s.Entity.ID, HistoryOptions{Direction: Both})
		if err != nil {
			continue
		}
		for _, rel := range rels {
			if rel.HasValidity() && (rel.SourceID == a.Entity.ID || rel.TargetID == a.Entity.ID) {
				facts = append(facts, rel)
			}
		}
	}
	if len(facts) == 0 {
		rels, err := History(ctx, g, a.Entity.ID, HistoryOptions{Direction: Both})
		if err != nil {
			return false
		}
		for _, rel := range rels {
			if rel.HasValidity() {
				facts = append(facts, rel)
			}
		}
	}
	if len(facts) == 0 {
		return false
	}
	// facts are oldest first (History's order).
	f := facts[0]
	switch {
	case c.Kind == question.TimeDuring:
		end := f.ValidTo
		if end.IsZero() {
			end = now
		}
		start := f.ValidFrom
		if start.IsZero() {
			start = end
		}
		c.From = start.Add(end.Sub(start) / 2)
		c.Label = "during " + f.ValidityString()
	case c.Kind == question.TimeBefore && c.Ends:
		if f.ValidTo.IsZero() {
			return false
		}
		c.From, c.Label = f.ValidTo.Add(-time.Microsecond), "just before "+formatValidTime(f.ValidTo)
	case c.Kind == question.TimeBefore:
		if f.ValidFrom.IsZero() {
			return false
		}
		c.From, c.Label = f.ValidFrom.Add(-time.Microsecond), "just before "+formatValidTime(f.ValidFrom)
	default: // after
		f = facts[len(facts)-1]
		at := f.ValidTo
		if c.Starts || at.IsZero() {
			at = f.ValidFrom
		}
		if at.IsZero() {
			return false
		}
		c.From, c.Label = at, formatValidTime(at)
	}
	c.Timed = true
	return true
}

// applyTime stamps hits with the time their walk was read at.
func applyTime(hits []graphHit, read timeRead) {
	if read.label == "" {
		return
	}
	for i := range hits {
		hits[i].asOf = read
	}
}

// walkConfigAt returns the graph channel's configuration for a question
// whose time words read qt.
func (r *MemoryRetriever) walkConfigAt(qt questionTime) walkConfig {
	cfg := r.walkConfig()
	if qt.set {
		cfg.asOf = qt.asOf
	}
	return cfg
}

// walkFromSeeds searches walks from seeds (see walkSeeded), as of the time
// the query's words say.
func (r *MemoryRetriever) walkFromSeeds(ctx context.Context, tr *timeReading, g KnowledgeGraph, query string, seeds []seedLink, keep, maxHops int) ([]graphHit, int, error) {
	qt, err := tr.read(ctx, r, g, query)
	if err != nil {
		return nil, 0, err
	}
	hits, linked, err := r.walkSeeded(ctx, g, qt.query, r.walkConfigAt(qt), seeds, keep, maxHops)
	applyTime(hits, qt.read)
	return hits, linked, err
}
