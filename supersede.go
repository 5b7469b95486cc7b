package kgmem

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
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
			k := typeKey(t)
			if k == "" || !utf8.ValidString(t) {
				c.fail("ingest: WithSingleValuedTypes: relation type %s is empty, only white space or not valid UTF-8", quote.Value(t))
				return
			}
			c.singleValued = append(c.singleValued, k)
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

// supersede applies single-valued supersession to the planned relations:
// for each source and single-valued type the extraction writes, a new
// value ends the current ones at its start, and a value older than one
// already held is ended where the newer one begins. See Supersession under
// Ingest.
func (p *ingestPlanner) supersede() error {
	types := slices.Clone(p.cfg.singleValued)
	if d, ok := p.g.(SingleValuedDeclarer); ok {
		for _, t := range d.SingleValuedTypes() {
			types = append(types, t, typeKey(t))
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
		values := make(map[string]*Relation)
		var planned []*ingestRelation
		for _, k := range p.relOrder {
			if k.SourceID == gr.src && k.Type == gr.typ {
				pr := p.rels[k]
				planned = append(planned, pr)
				values[k.TargetID] = &pr.r
			}
		}
		stored := make(map[string]Relation)
		if ent := p.known[gr.src]; ent != nil && ent.inGraph {
			related, err := p.g.GetRelated(p.ctx, gr.src, TraverseOptions{Depth: 1, Direction: Outgoing, RelationTypes: []string{gr.typ}, AsOf: AsOf{AllTime: true}})
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			for _, s := range related {
				if len(s.Relations) != 1 {
					continue
				}
				r := s.Relations[0]
				if _, ok := values[r.TargetID]; !ok {
					stored[r.TargetID] = r
					c := cloneRelation(r)
					values[r.TargetID] = &c
				}
			}
		}
		targets := make([]string, 0, len(values))
		for t := range values {
			targets = append(targets, t)
		}
		slices.Sort(targets)
		ended := make(map[string]bool)
		for _, pr := range planned {
			r := &pr.r
			if r.ValidFrom.IsZero() && len(values) > 1 {
				// A value without a start, among others: news, true from now.
				r.ValidFrom = p.now
				if !r.ValidTo.IsZero() && r.ValidTo.Before(r.ValidFrom) {
					r.ValidFrom = time.Time{} // it ended before now: its start stays unknown
				}
			}
			var lateEnd time.Time
			for _, t := range targets {
				c := values[t]
				if t == r.TargetID {
					continue
				}
				switch {
				case r.ValidFrom.IsZero():
				case c.ValidTo.IsZero() && !c.ValidFrom.After(r.ValidFrom):
					c.ValidTo = r.ValidFrom // the current value ends where the new one starts
					ended[t] = true
				case c.ValidFrom.After(r.ValidFrom) && (lateEnd.IsZero() || c.ValidFrom.Before(lateEnd)):
					lateEnd = c.ValidFrom // a newer value is held: this one is history
				}
			}
			if r.ValidTo.IsZero() && !lateEnd.IsZero() {
				r.ValidTo = lateEnd
			}
		}
		for _, t := range targets {
			if !ended[t] {
				continue
			}
			k := RelationKey{SourceID: gr.src, TargetID: t, Type: gr.typ}
			if orig, ok := stored[t]; ok {
				p.rels[k] = &ingestRelation{r: *values[t], orig: orig, write: writeMerged}
				p.relOrder = append(p.relOrder, k)
			}
			if p.endedKeys == nil {
				p.endedKeys = make(map[RelationKey]bool)
			}
			p.endedKeys[k] = true
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
