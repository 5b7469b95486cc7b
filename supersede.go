package kgmem

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// WithSingleValuedTypes declares, for one Ingest call, relation types of
// which an entity holds one current value (lives_in, works_at, 职位),
// besides those the graph declares (see WithSingleValued and
// SingleValuedDeclarer). Types are compared after Ingest's normalisation
// ("Lives In" is lives_in). See Supersession under Ingest. A type that is
// blank or not valid UTF-8 makes Ingest return ErrInvalidArgument.
func WithSingleValuedTypes(types ...string) IngestOption {
	types = slices.Clone(types)
	return ingestOptionFunc(func(c *ingestConfig) {
		for _, t := range types {
			k := textrule.TypeKey(t)
			if k == "" || !utf8.ValidString(t) {
				c.fail("ingest: WithSingleValuedTypes: relation type %s is empty, only white space or not valid UTF-8", quote.Value(t))
				return
			}
			c.singleValued = append(c.singleValued, k)
			if rk := textrule.RelationTypeKey(t); rk != k {
				c.singleValued = append(c.singleValued, rk) // as stored unless WithExactNames
			}
		}
	})
}

// ingestNow returns the instant Ingest takes as now: the graph's clock
// when it has one (see Clock), else time.Now, as valid times are stored.
func ingestNow(g KnowledgeGraph) time.Time {
	now := time.Now
	if c, ok := g.(Clock); ok {
		now = c.Now
	}
	return now().UTC().Truncate(time.Microsecond)
}

// plannedValidity sets the valid time the extraction states on in, a
// relation Ingest plans; a reason is returned when it cannot be stored.
func plannedValidity(in *Relation, x *ExtractedRelation) string {
	in.ValidFrom, in.ValidTo = x.ValidFrom, x.ValidTo
	if err := normalizeValidity(in); err != nil {
		return err.Error()
	}
	return ""
}

// olderStint reports whether in states an interval that ends before the
// one r holds begins: an earlier stint of the same fact, which a key
// cannot hold beside the later one.
func olderStint(r, in *Relation) bool {
	return !in.ValidTo.IsZero() && !r.ValidFrom.IsZero() && !in.ValidTo.After(r.ValidFrom)
}

// mergeValidity merges the valid time stated in in into r: a stated start
// at or after r's end opens a new stint, which replaces r's interval;
// otherwise a stated start earlier than r's, or given where r's is
// unknown, extends r back to it (a later one, inside r's interval, adds
// nothing: the fact already held), a stated end replaces r's, and a bound
// in does not state keeps r's. The caller has ruled out olderStint.
// ended ends an open result at now (or at its start, when that is later).
func mergeValidity(r, in *Relation, ended bool, now time.Time) {
	switch {
	case in.ValidFrom.IsZero() && in.ValidTo.IsZero():
	case !in.ValidFrom.IsZero() && !r.ValidTo.IsZero() && !in.ValidFrom.Before(r.ValidTo):
		r.ValidFrom, r.ValidTo = in.ValidFrom, in.ValidTo
	default:
		if !in.ValidFrom.IsZero() && (r.ValidFrom.IsZero() || in.ValidFrom.Before(r.ValidFrom)) {
			r.ValidFrom = in.ValidFrom
		}
		if !in.ValidTo.IsZero() {
			r.ValidTo = in.ValidTo
		}
	}
	if ended && r.ValidTo.IsZero() {
		r.ValidTo = now
		if r.ValidFrom.After(now) {
			r.ValidTo = r.ValidFrom
		}
	}
}

// stint is one value of a single-valued group while supersession settles
// the group's timeline: a planned relation, or a copy of a stored one.
type stint struct {
	r *Relation
	// rank orders values that start together: 0 for a stored value the
	// extraction does not write, 1+i for the i-th planned relation. Of
	// values that start at the same instant the one ranked last holds.
	rank int
	// held reports that the graph held the value with this start: a value
	// ended where a held one begins goes into the history rather than
	// being reported as ended.
	held bool
	// cutBy is the value whose start ended this one, nil when none did.
	cutBy *stint
}

// empty reports whether the stint is valid at no instant.
func (s *stint) empty() bool {
	return !s.r.ValidFrom.IsZero() && s.r.ValidFrom.Equal(s.r.ValidTo)
}

// endsAfter reports whether s is still valid at t or later: it has no end,
// or ends after t.
func (s *stint) endsAfter(t time.Time) bool { return s.r.ValidTo.IsZero() || s.r.ValidTo.After(t) }

// settleTimeline gives one source's values of one single-valued type
// intervals that never overlap, whatever order they arrived in. Empty
// intervals are left as they are. Values with an unknown start come
// first, ordered by end (an open end last); each after the first starts
// where the one before it ends, and more than one of them without an end
// would leave no place for the others, so all but the first (by rank,
// then target) start now. Then values with a known start follow in order
// of start, then rank, then target, and every value ends no later than
// the next one starts: the earlier-ranked of two values that start
// together keeps an empty interval. The result depends on the values, not
// on the order they arrived in, except between values that start
// together. cutBy records which value's start ended each value.
func settleTimeline(values []*stint, now time.Time) {
	byRank := func(a, b *stint) int {
		if a.rank != b.rank {
			return cmpInt64(int64(a.rank), int64(b.rank))
		}
		return strings.Compare(a.r.TargetID, b.r.TargetID)
	}
	var unknown, known, openUnknown []*stint
	for _, v := range values {
		switch {
		case v.empty():
		case v.r.ValidFrom.IsZero() && v.r.ValidTo.IsZero():
			openUnknown = append(openUnknown, v)
		case v.r.ValidFrom.IsZero():
			unknown = append(unknown, v)
		default:
			known = append(known, v)
		}
	}
	if len(openUnknown) > 0 {
		slices.SortFunc(openUnknown, byRank)
		unknown = append(unknown, openUnknown[0])
		for _, v := range openUnknown[1:] {
			v.r.ValidFrom = now
			known = append(known, v)
		}
	}
	slices.SortFunc(unknown, func(a, b *stint) int {
		_, at := validSpan(a.r)
		_, bt := validSpan(b.r)
		if at != bt {
			return cmpInt64(at, bt)
		}
		return byRank(b, a) // of two that end together, the later-ranked holds
	})
	slices.SortFunc(known, func(a, b *stint) int {
		if c := a.r.ValidFrom.Compare(b.r.ValidFrom); c != 0 {
			return c
		}
		return byRank(a, b)
	})
	cut := func(v, next *stint) {
		if v.endsAfter(next.r.ValidFrom) {
			v.r.ValidTo, v.cutBy = next.r.ValidFrom, next
		}
	}
	for i, v := range unknown {
		if i > 0 {
			v.r.ValidFrom = unknown[i-1].r.ValidTo
		}
		if len(known) > 0 {
			cut(v, known[0])
		}
	}
	for i, v := range known {
		if i+1 < len(known) {
			cut(v, known[i+1])
		}
	}
}

// supersede applies single-valued supersession to the planned relations:
// for each source and single-valued type the extraction writes, it reads
// every value the source holds of that type, ended ones included, and
// settles their timeline (see settleTimeline), so that one value holds at
// each instant. A new value without a start, beside other values, starts
// now. Stored values whose interval changes are added to the plan; those
// whose end moves earlier are recorded in endedKeys, as are planned ones
// that another value of the extraction ends. See Supersession under
// Ingest.
func (p *ingestPlanner) supersede() error {
	types := slices.Clone(p.cfg.singleValued)
	if d, ok := p.g.(SingleValuedDeclarer); ok {
		for _, t := range d.SingleValuedTypes() {
			types = append(types, t, textrule.TypeKey(t), textrule.RelationTypeKey(t))
		}
	}
	if len(types) == 0 {
		return nil
	}
	type group struct{ src, typ string }
	var groups []group
	seen := make(map[group]bool)
	for _, k := range p.relOrder {
		g := group{k.SourceID, k.Type}
		if slices.Contains(types, k.Type) && !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	for _, gr := range groups {
		if err := p.ctx.Err(); err != nil {
			return err
		}
		// values holds every value of the group, by target: the planned
		// relation when the extraction writes the key, else the stored one.
		values := make(map[string]*stint)
		var created []*Relation
		for i, k := range p.relOrder {
			if k.SourceID == gr.src && k.Type == gr.typ {
				pr := p.rels[k]
				held := pr.write == writeMerged && pr.orig.ValidFrom.Equal(pr.r.ValidFrom) &&
					!(&stint{r: &pr.orig}).empty()
				values[k.TargetID] = &stint{r: &pr.r, rank: 1 + i, held: held}
				if pr.write == writeCreated {
					created = append(created, &pr.r)
				}
			}
		}
		stored := make(map[string]Relation)
		if ent := p.known[gr.src]; ent != nil && ent.inGraph {
			related, err := p.g.GetRelated(p.ctx, gr.src, TraverseOptions{Depth: 1, Direction: Outgoing, RelationTypes: []string{gr.typ}, AsOf: AsOf{AllTime: true}})
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			var held []Relation
			for _, s := range related {
				if len(s.Relations) == 1 {
					held = append(held, s.Relations[0])
				}
			}
			if _, ok := values[gr.src]; !ok {
				// GetRelated never returns a self-loop: ask for it by key.
				r, ok, err := p.graphRelation(RelationKey{SourceID: gr.src, TargetID: gr.src, Type: gr.typ})
				if err != nil {
					return err
				}
				if ok {
					held = append(held, r)
				}
			}
			for _, r := range held {
				if _, ok := values[r.TargetID]; !ok {
					stored[r.TargetID] = r
					c := cloneRelation(r)
					values[r.TargetID] = &stint{r: &c, held: true}
				}
			}
		}
		for _, r := range created {
			// A new value without a start, among others, is news: true
			// from now, unless it ended by now.
			if r.ValidFrom.IsZero() && len(values) > 1 && (r.ValidTo.IsZero() || r.ValidTo.After(p.now)) {
				r.ValidFrom = p.now
			}
		}
		before := make(map[string]Relation, len(values))
		all := make([]*stint, 0, len(values))
		for t, v := range values {
			before[t] = *v.r
			all = append(all, v)
		}
		settleTimeline(all, p.now)
		targets := make([]string, 0, len(values))
		for t := range values {
			targets = append(targets, t)
		}
		slices.Sort(targets)
		for _, t := range targets {
			v, was := values[t], before[t]
			_, wasTo := validSpan(&was)
			_, nowTo := validSpan(v.r)
			ended := nowTo < wasTo
			orig, isStored := stored[t]
			if isStored && (!was.ValidFrom.Equal(v.r.ValidFrom) || !was.ValidTo.Equal(v.r.ValidTo)) {
				k := RelationKey{SourceID: gr.src, TargetID: t, Type: gr.typ}
				p.rels[k] = &ingestRelation{r: *v.r, orig: orig, write: writeMerged}
				p.relOrder = append(p.relOrder, k)
			}
			if !ended || !isStored && v.cutBy != nil && v.cutBy.held {
				// A value of the extraction that ends where a held value
				// begins is history, as stated: it ends nothing.
				continue
			}
			if p.endedKeys == nil {
				p.endedKeys = make(map[RelationKey]bool)
			}
			p.endedKeys[RelationKey{SourceID: gr.src, TargetID: t, Type: gr.typ}] = true
		}
	}
	return nil
}

// describeOlderStint is the reason a relation stating an earlier stint of
// a held fact is skipped.
func describeOlderStint(in, held *Relation) string {
	return fmt.Sprintf("states %s, which ends before the interval held for this relation (%s) begins; a relation keeps one interval, the latest",
		strings.TrimSpace(in.ValidityString()), held.ValidityString())
}
