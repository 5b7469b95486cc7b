package kgmem

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kgmem/kgmem/internal/quote"
)

// validYearMin and validYearMax bound the years of a valid time.
const (
	validYearMin = 1
	validYearMax = 9999
)

// A valid time is stored as microseconds since the zero time.Time
// (0001-01-01T00:00:00Z), so that the zero value of a stored time, 0,
// is the zero time.Time: unknown start, open end. Sorting uses openStart
// and openEnd for them instead (see validSpan).
const (
	openStart int64 = math.MinInt64
	openEnd   int64 = math.MaxInt64
)

// zeroMicro is the zero time.Time in microseconds since the Unix epoch.
var zeroMicro = time.Time{}.UnixMicro()

// storedTime returns t, normalised, as stored: 0 for the zero time.
func storedTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro() - zeroMicro
}

// loadTime is the inverse of storedTime.
func loadTime(x int64) time.Time {
	if x == 0 {
		return time.Time{}
	}
	return time.UnixMicro(x + zeroMicro).UTC()
}

// AsOf says at which instant a read is answered. The zero value is "now",
// by the graph's clock (see WithClock): only relations valid now are
// walked or returned, so a relation that has ended is never traversed by
// a default read.
type AsOf struct {
	// Time is the instant; zero means now.
	Time time.Time
	// AllTime reads every relation whatever its validity, ended and
	// future ones included; Time is then ignored.
	AllTime bool
}

// At returns the AsOf of instant t; At(time.Time{}) is now.
func At(t time.Time) AsOf { return AsOf{Time: t} }

// ValidAt reports whether r is valid at t under the half-open rule of
// valid time: ValidFrom <= t < ValidTo, a zero end being open.
func (r Relation) ValidAt(t time.Time) bool {
	if !r.ValidFrom.IsZero() && t.Before(r.ValidFrom) {
		return false
	}
	return r.ValidTo.IsZero() || t.Before(r.ValidTo)
}

// HasValidity reports whether r says anything about its valid time.
func (r Relation) HasValidity() bool { return !r.ValidFrom.IsZero() || !r.ValidTo.IsZero() }

// ValidityString renders r's validity for a person or a prompt, or "" when
// it has none: "2024-03 → 2025-06", "2024-03-15 →" (still true),
// "→ 2025-06" (start unknown). Each end is written at the coarsest of
// year, month, day, minute or full precision that loses nothing.
func (r Relation) ValidityString() string {
	if !r.HasValidity() {
		return ""
	}
	switch {
	case r.ValidFrom.IsZero():
		return "→ " + formatValidTime(r.ValidTo)
	case r.ValidTo.IsZero():
		return formatValidTime(r.ValidFrom) + " →"
	}
	return formatValidTime(r.ValidFrom) + " → " + formatValidTime(r.ValidTo)
}

// formatValidTime writes t, in UTC, as "2024", "2024-03", "2024-03-15",
// "2024-03-15T10:30Z" or RFC 3339 with fractions, whichever is the
// shortest that holds t exactly.
func formatValidTime(t time.Time) string {
	t = t.UTC()
	switch {
	case t.Nanosecond() != 0:
		return t.Format(time.RFC3339Nano)
	case t.Second() != 0:
		return t.Format(time.RFC3339)
	case t.Hour() != 0 || t.Minute() != 0:
		return t.Format("2006-01-02T15:04Z")
	case t.Day() != 1:
		return t.Format("2006-01-02")
	case t.Month() != time.January:
		return t.Format("2006-01")
	}
	return t.Format("2006")
}

// normalizeValidTime returns t as kgmem stores it, UTC and truncated to
// the microsecond, or an error naming which end (what) is out of range.
func normalizeValidTime(what string, t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, nil
	}
	t = t.UTC().Truncate(time.Microsecond)
	if y := t.Year(); y < validYearMin || y > validYearMax {
		return time.Time{}, fmt.Errorf("%s %s is outside the years %d to %d", what, t.Format(time.RFC3339Nano), validYearMin, validYearMax)
	}
	return t, nil
}

// normalizeValidity normalises r's valid time in place and checks that
// its end is not before its start. The error carries no package prefix.
func normalizeValidity(r *Relation) error {
	from, err := normalizeValidTime("valid_from", r.ValidFrom)
	if err != nil {
		return err
	}
	to, err := normalizeValidTime("valid_to", r.ValidTo)
	if err != nil {
		return err
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return fmt.Errorf("valid_to %s is before valid_from %s", to.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano))
	}
	r.ValidFrom, r.ValidTo = from, to
	return nil
}

// validSpan returns r's interval in stored microseconds for sorting, an
// unknown start as openStart and an open end as openEnd.
func validSpan(r *Relation) (from, to int64) {
	from, to = openStart, openEnd
	if !r.ValidFrom.IsZero() {
		from = storedTime(r.ValidFrom)
	}
	if !r.ValidTo.IsZero() {
		to = storedTime(r.ValidTo)
	}
	return from, to
}

// instant is the time a read is answered at, as a stored time, or all
// when the read ignores validity.
type instant struct {
	all bool
	at  int64
}

// resolve returns the instant of a: its Time, or now() when that is zero.
func (a AsOf) resolve(now func() time.Time) instant {
	if a.AllTime {
		return instant{all: true}
	}
	t := a.Time
	if t.IsZero() {
		t = now()
	}
	return instant{at: storedTime(t.UTC().Truncate(time.Microsecond))}
}

// admits reports whether a relation valid over the stored interval
// [from, to) is read at in.
func (in instant) admits(from, to int64) bool {
	return in.all || (from == 0 || from <= in.at) && (to == 0 || in.at < to)
}

// admitsRelation is admits for a Relation.
func (in instant) admitsRelation(r *Relation) bool {
	if in.all || !r.HasValidity() {
		return true
	}
	return in.admits(storedTime(r.ValidFrom), storedTime(r.ValidTo))
}

// WithClock sets the clock that tells a graph what "now" is: the instant
// reads with a zero AsOf are answered at. The default, and a nil clock,
// is time.Now. Tests use a fixed clock to be deterministic.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *graphConfig) { c.clock = now })
}

// WithSingleValued declares relation types of which an entity holds one
// value at each instant: lives_in, works_at, 职位. The graph itself
// stores relations as given; Ingest reads the declaration (see
// SingleValuedTypes) and, when it writes a value of such a type for a
// source, settles the source's values of that type so that no two are
// valid at the same instant, ending values instead of keeping two truths
// (see Supersession under Ingest). Types are compared exactly. A type that is empty, only white space, not valid
// UTF-8 or longer than MaxTypeBytes is an invalid option (see
// NewInMemoryGraph). Given to OpenMemory, it declares the single-valued
// types of the memory's Schema, which the memory keeps (see OpenMemory).
func WithSingleValued(types ...string) Option {
	types = slices.Clone(types)
	return optionFunc(func(c *graphConfig) {
		c.svSet = true
		for _, t := range types {
			if err := checkType("relation type", t); err != nil {
				c.fail("WithSingleValued: %s", errorText(err))
				return
			}
			c.singleValued = append(c.singleValued, t)
		}
	})
}

// SingleValuedTypes returns the relation types declared with
// WithSingleValued, or by the schema of the Memory whose graph g is (see
// Memory.SetSchema), sorted and without duplicates.
func (g *InMemoryGraph) SingleValuedTypes() []string { return slices.Clone(*g.singleValued.Load()) }

// setSingleValued sets the declared types to types, sorted and distinct,
// which g keeps.
func (g *InMemoryGraph) setSingleValued(types []string) { g.singleValued.Store(&types) }

// Now returns the graph's "now": the time its clock (WithClock) reads.
func (g *InMemoryGraph) Now() time.Time { return g.clock() }

// RelationsAsOf returns a copy of every relation valid at a, ordered by
// key, as Relations does; AllTime returns them all, as Relations does.
// Cost: O(m log m).
func (g *InMemoryGraph) RelationsAsOf(ctx context.Context, a AsOf) ([]Relation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkAsOf(a); err != nil {
		return nil, err
	}
	if err := g.rlock(); err != nil {
		return nil, err
	}
	in := a.resolve(g.clock)
	out := make([]Relation, 0, g.relCount)
	for i := range g.rels {
		if rec := &g.rels[i]; rec.live() && (g.timed == 0 || rec.admits(in)) {
			out = append(out, g.relation(int32(i)))
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b Relation) int { return compareKeys(a.Key(), b.Key()) })
	return out, nil
}

// admits reports whether the relation is read at in.
func (rec *relRec) admits(in instant) bool {
	if in.all || rec.more == nil {
		return true
	}
	return in.admits(rec.more.from, rec.more.to)
}

// checkAsOf checks the instant of a read: a nonzero Time must lie in the
// years valid times may.
func checkAsOf(a AsOf) error {
	if a.AllTime || a.Time.IsZero() {
		return nil
	}
	if _, err := normalizeValidTime("as-of time", a.Time); err != nil {
		return fmt.Errorf("kgmem: %v: %w", err, ErrInvalidArgument)
	}
	return nil
}

// HistoryOptions configures History.
type HistoryOptions struct {
	// Direction is which of the entity's relations to list: Outgoing (the
	// zero value) lists the facts it is the source of, Incoming those it
	// is the target of, Both all of them.
	Direction Direction
	// RelationTypes restricts the timeline to these types; nil or empty
	// lists every type.
	RelationTypes []string
}

// History returns the timeline of one entity's facts: every relation it
// takes part in (per opts), whatever its validity, ended ones included,
// oldest first — by ValidFrom (an unknown start first), then ValidTo (an
// open end last), then key. With RelationTypes set to one type it is the
// timeline of one source and type: where Alice lived, in order.
//
// It works over any KnowledgeGraph, reading the entity's neighbours with
// GetRelated at AllTime. An unknown id returns ErrNotFound; an empty,
// whitespace-only or invalid one and invalid options ErrInvalidArgument.
func History(ctx context.Context, g KnowledgeGraph, id string, opts HistoryOptions) ([]Relation, error) {
	if !opts.Direction.valid() {
		return nil, fmt.Errorf("kgmem: history of entity %s: unknown direction %v: %w", quote.Value(id), opts.Direction, ErrInvalidArgument)
	}
	var out []Relation
	dirs := []Direction{opts.Direction}
	if opts.Direction == Both {
		// GetRelated reports one relation per neighbour; each direction,
		// with one type at a time, reports every relation.
		dirs = []Direction{Outgoing, Incoming}
	}
	types := opts.RelationTypes
	if len(types) == 0 {
		types = []string{""} // every type, one type per call below when listed
	}
	seen := make(map[RelationKey]bool)
	for _, d := range dirs {
		for _, t := range types {
			o := TraverseOptions{Depth: 1, Direction: d, AsOf: AsOf{AllTime: true}}
			if t != "" {
				o.RelationTypes = []string{t}
			}
			rels, err := historyRelations(ctx, g, id, o)
			if err != nil {
				return nil, err
			}
			for _, r := range rels {
				if !seen[r.Key()] {
					seen[r.Key()] = true
					out = append(out, r)
				}
			}
		}
	}
	slices.SortFunc(out, compareHistory)
	return out, nil
}

// historyRelations returns every relation around id in one direction.
// InMemoryGraph lists them directly; another graph is asked once per
// relation type, since GetRelated reports one relation per neighbour.
func historyRelations(ctx context.Context, g KnowledgeGraph, id string, o TraverseOptions) ([]Relation, error) {
	if mg, ok := g.(memGraph); ok { // DurableGraph and a Memory's graph too
		return mg.inMemory().around(ctx, id, o)
	}
	related, err := g.GetRelated(ctx, id, o)
	if err != nil {
		return nil, err
	}
	var out []Relation
	for _, s := range related {
		out = append(out, s.Relations...)
	}
	if len(o.RelationTypes) > 0 {
		return out, nil
	}
	// One relation per neighbour: ask again for the types seen, each
	// alone, to find parallel relations of other types.
	var types []string
	for _, r := range out {
		if !slices.Contains(types, r.Type) {
			types = append(types, r.Type)
		}
	}
	if len(types) < 2 {
		return out, nil
	}
	out = out[:0]
	for _, t := range types {
		o.RelationTypes = []string{t}
		related, err := g.GetRelated(ctx, id, o)
		if err != nil {
			return nil, err
		}
		for _, s := range related {
			out = append(out, s.Relations...)
		}
	}
	return out, nil
}

// around returns every relation at id in direction o.Direction (Outgoing
// or Incoming), of o.RelationTypes when set, whatever its validity.
func (g *InMemoryGraph) around(ctx context.Context, id string, o TraverseOptions) ([]Relation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkID("entity", id); err != nil {
		return nil, err
	}
	if err := g.rlock(); err != nil {
		return nil, err
	}
	defer g.mu.RUnlock()
	s, ok := g.ids[id]
	if !ok {
		return nil, fmt.Errorf("kgmem: history of entity %s: %w", quote.Value(id), ErrNotFound)
	}
	list := g.nodes[s].out
	if o.Direction == Incoming {
		list = g.nodes[s].in
	}
	var out []Relation
	for _, a := range list {
		if len(o.RelationTypes) == 0 || slices.Contains(o.RelationTypes, g.types.names[g.relTypes[a.Rel]]) {
			out = append(out, g.relation(a.Rel))
		}
	}
	return out, nil
}

// compareHistory orders relations oldest first: by ValidFrom (unknown
// first), then ValidTo (open last), then key.
func compareHistory(a, b Relation) int {
	af, at := validSpan(&a)
	bf, bt := validSpan(&b)
	switch {
	case af != bf:
		return cmpInt64(af, bf)
	case at != bt:
		return cmpInt64(at, bt)
	}
	return compareKeys(a.Key(), b.Key())
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
