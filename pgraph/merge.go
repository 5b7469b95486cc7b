package pgraph

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

var _ kgmem.EntityMerger = (*Graph)(nil)

// Merge merges the entity from into the entity into and removes from, by
// the rules of kgmem.InMemoryGraph.Merge: into keeps its ID, name, type
// and (unless it has none) description; from's name and aliases become
// aliases of into, after its own, compared as kgmem.Ingest compares names;
// tags and source IDs become the union, into's first, tags cut to
// MaxTagsPerEntity; properties into lacks are taken from from. Every
// relation of from moves to into with its type, weight, properties, sources
// and valid time; one whose moved key into already holds merges into that
// relation (its weight, properties and valid time kept — from's valid time
// when it has none —, properties it lacks and sources added); relations
// between the two are dropped and a self-loop of from becomes one of into.
//
// It runs in one transaction that locks both entity rows and every
// relation it reads, so it applies whole or not at all, and concurrent
// writers adding relations to either entity wait for it (an AddRelation to
// from then fails with kgmem.ErrNotFound). The change feed lists into as
// changed and from as removed. It returns an error wrapping
// kgmem.ErrInvalidArgument, before touching the database, when an ID is
// empty, only white space, longer than kgmem.MaxIDBytes or not valid UTF-8,
// or when from equals into; one wrapping kgmem.ErrNotFound when either
// entity does not exist. On error nothing changes. Cost: six round trips
// and O(degree of from) rows read and written.
func (g *Graph) Merge(ctx context.Context, from, into string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateID(from); err != nil {
		return err
	}
	if err := validateID(into); err != nil {
		return err
	}
	what := "merge entity " + quote.Value(from) + " into " + quote.Value(into)
	if from == into {
		return fmt.Errorf("pgraph: merge entity %s into itself: %w", quote.Value(from), kgmem.ErrInvalidArgument)
	}
	for _, id := range []string{from, into} {
		if !storable(id) {
			return fmt.Errorf("pgraph: %s: entity %s: %w", what, quote.Value(id), kgmem.ErrNotFound)
		}
	}
	return g.retry(ctx, func() error {
		err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
			return g.merge(ctx, tx, what, from, into)
		})
		var me mergeError
		if err != nil && !retryable(err) && !errors.As(err, &me) {
			return fail(what, true, err)
		}
		return err
	})
}

// mergeError is an error Merge reports as it is: a missing entity or an
// entity the merge cannot store.
type mergeError struct{ err error }

func (e mergeError) Error() string { return e.err.Error() }
func (e mergeError) Unwrap() error { return e.err }

// merge runs Merge in tx: it locks both entities (in ID order, as every
// merge does, so two merges of the same pair cannot deadlock), reads from's
// relations and the relations of into their moved keys meet, works the
// merge out in Go and writes it.
func (g *Graph) merge(ctx context.Context, tx pgx.Tx, what, from, into string) error {
	rows, err := tx.Query(ctx, "SELECT "+entityColumns+" FROM "+entitiesTable+
		` WHERE namespace = $1 AND id = ANY($2) ORDER BY id COLLATE "C" FOR UPDATE`, g.ns, []string{from, into})
	if err != nil {
		return err
	}
	found, err := collectEntities(rows)
	if err != nil {
		return err
	}
	var src, dst *kgmem.Entity
	for i := range found {
		switch found[i].ID {
		case from:
			src = &found[i]
		case into:
			dst = &found[i]
		}
	}
	switch {
	case src == nil:
		return mergeError{fmt.Errorf("pgraph: %s: entity %s: %w", what, quote.Value(from), kgmem.ErrNotFound)}
	case dst == nil:
		return mergeError{fmt.Errorf("pgraph: %s: entity %s: %w", what, quote.Value(into), kgmem.ErrNotFound)}
	}
	merged := mergeEntity(*dst, *src)
	row, err := g.entityRow(&merged)
	if err != nil {
		return mergeError{fmt.Errorf("pgraph: %s: %w", what, err)}
	}

	moved, err := queryRelations(ctx, tx, "SELECT "+relationColumns+" FROM "+relationsTable+
		" WHERE namespace = $1 AND (source = $2 OR target = $2) FOR UPDATE", g.ns, from)
	if err != nil {
		return err
	}
	var plan []kgmem.Relation
	for _, r := range moved {
		if r.SourceID == into || r.TargetID == into {
			continue // between the two: dropped
		}
		if r.SourceID == from {
			r.SourceID = into
		}
		if r.TargetID == from {
			r.TargetID = into
		}
		plan = append(plan, r)
	}
	slices.SortFunc(plan, func(a, b kgmem.Relation) int { return compareKeys(a.Key(), b.Key()) })
	if len(plan) > 0 {
		srcs, dsts, types := make([]string, len(plan)), make([]string, len(plan)), make([]string, len(plan))
		for i, r := range plan {
			srcs[i], dsts[i], types[i] = r.SourceID, r.TargetID, r.Type
		}
		held, err := queryRelations(ctx, tx, "SELECT "+relationColumns+" FROM "+relationsTable+
			" WHERE namespace = $1 AND (source, target, type) IN (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]))"+
			" FOR UPDATE", g.ns, srcs, dsts, types)
		if err != nil {
			return err
		}
		byKey := make(map[kgmem.RelationKey]kgmem.Relation, len(held))
		for _, h := range held {
			byKey[h.Key()] = h
		}
		for i, r := range plan {
			if h, ok := byKey[r.Key()]; ok {
				plan[i] = mergeRelation(h, r)
			}
		}
	}

	b := &pgx.Batch{}
	b.Queue(upsertEntitySQL, row...)
	// Deleting from takes its relations with it (the foreign keys
	// cascade) and logs its removal for the change feed.
	b.Queue("DELETE FROM "+entitiesTable+" WHERE namespace = $1 AND id = $2", g.ns, from)
	for _, r := range plan {
		props, err := encodeProperties(r.Properties)
		if err != nil {
			return mergeError{fmt.Errorf("pgraph: %s: relation %s: %w", what, quote.Key(r.SourceID, r.Type, r.TargetID), err)}
		}
		b.Queue(upsertRelationSQL, g.ns, r.SourceID, r.TargetID, r.Type, r.Weight, props, nonNil(r.SourceIDs),
			nullTime(r.ValidFrom), nullTime(r.ValidTo))
	}
	return tx.SendBatch(ctx, b).Close()
}

// queryRelations runs a query for relationColumns in tx.
func queryRelations(ctx context.Context, tx pgx.Tx, sql string, args ...any) ([]kgmem.Relation, error) {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []kgmem.Relation
	for rows.Next() {
		r, err := scanRelation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// mergeEntity returns into with from merged into it, by the rules of
// kgmem.InMemoryGraph.Merge; tags are united but not yet normalised or cut
// (entityRow does that).
func mergeEntity(into, from kgmem.Entity) kgmem.Entity {
	e := into
	if e.Description == "" {
		e.Description = from.Description
	}
	e.Aliases = textrule.UnionAliases(into.Name, into.Aliases, append([]string{from.Name}, from.Aliases...))
	e.Tags = append(slices.Clip(into.Tags), from.Tags...)
	e.SourceIDs = union(into.SourceIDs, from.SourceIDs)
	for k, v := range from.Properties {
		if _, ok := e.Properties[k]; !ok {
			if e.Properties == nil {
				e.Properties = make(map[string]string, len(from.Properties))
			}
			e.Properties[k] = v
		}
	}
	return e
}

// mergeRelation returns held with moved merged into it: held's weight,
// properties and valid time kept (moved's valid time when held has none),
// properties it lacks and sources added.
func mergeRelation(held, moved kgmem.Relation) kgmem.Relation {
	r := held
	for k, v := range moved.Properties {
		if _, ok := r.Properties[k]; !ok {
			if r.Properties == nil {
				r.Properties = make(map[string]string, len(moved.Properties))
			}
			r.Properties[k] = v
		}
	}
	r.SourceIDs = union(held.SourceIDs, moved.SourceIDs)
	if !held.HasValidity() {
		r.ValidFrom, r.ValidTo = moved.ValidFrom, moved.ValidTo
	}
	return r
}

// union returns the distinct strings of a and then b, in first-seen order;
// nil when both are empty.
func union(a, b []string) []string {
	var out []string
	seen := make(map[string]bool, len(a)+len(b))
	for _, list := range [2][]string{a, b} {
		for _, s := range list {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
