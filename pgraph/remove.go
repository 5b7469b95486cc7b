package pgraph

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
)

// validateSourceID checks a source (page) ID as kgmem does, with its
// messages: not empty, valid UTF-8, not only white space.
func validateSourceID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("pgraph: empty source ID: %w", kgmem.ErrInvalidArgument)
	case !utf8.ValidString(id):
		return fmt.Errorf("pgraph: source ID %s is not valid UTF-8: %w", quote.Value(id), kgmem.ErrInvalidArgument)
	case strings.TrimSpace(id) == "":
		return fmt.Errorf("pgraph: source ID %s is only white space: %w", quote.Value(id), kgmem.ErrInvalidArgument)
	}
	return nil
}

// RemoveSource forgets a knowledge page, as kgmem.InMemoryGraph.RemoveSource
// does: it strips sourceID from the SourceIDs of every entity and relation
// of the namespace that cites it, then deletes the relations and entities
// left citing nothing (an entity's relations go with it). Entities and
// relations that never had sources are kept. It all happens in one
// transaction, so other readers see the namespace before or after, never
// in between. An empty, whitespace-only or invalid sourceID returns an
// error wrapping kgmem.ErrInvalidArgument; a source nothing cites is not
// an error (the report is zero). Cost: a few statements over the GIN
// indexes on source_ids (schema versions 4 and 7), reading what cites the
// source.
func (g *Graph) RemoveSource(ctx context.Context, sourceID string) (kgmem.RemoveSourceReport, error) {
	if err := ctx.Err(); err != nil {
		return kgmem.RemoveSourceReport{}, err
	}
	if err := validateSourceID(sourceID); err != nil {
		return kgmem.RemoveSourceReport{}, err
	}
	if !storable(sourceID) { // no stored row can cite an ID with a NUL byte
		return kgmem.RemoveSourceReport{}, nil
	}
	var rep kgmem.RemoveSourceReport
	err := g.retry(ctx, func() error {
		err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
			var err error
			rep, err = g.removeSource(ctx, tx, sourceID)
			return err
		})
		if err != nil && !retryable(err) {
			return fail("remove source "+quote.Value(sourceID), true, err)
		}
		return err
	})
	if err != nil {
		return kgmem.RemoveSourceReport{}, err
	}
	return rep, nil
}

// removeSource does RemoveSource's work in tx.
func (g *Graph) removeSource(ctx context.Context, tx pgx.Tx, sourceID string) (kgmem.RemoveSourceReport, error) {
	var rep kgmem.RemoveSourceReport
	// Relations first, as the in-memory graph does: one that cites only
	// the source goes, one that cites others too keeps them.
	var relsRemoved, relsUpdated int64
	err := tx.QueryRow(ctx, `WITH dead AS (
	DELETE FROM `+relationsTable+` WHERE namespace = $1 AND source_ids @> ARRAY[$2::text]
		AND array_remove(source_ids, $2::text) = '{}'
	RETURNING 1
), kept AS (
	UPDATE `+relationsTable+` SET source_ids = array_remove(source_ids, $2::text)
	WHERE namespace = $1 AND source_ids @> ARRAY[$2::text] AND array_remove(source_ids, $2::text) <> '{}'
	RETURNING 1
)
SELECT (SELECT count(*) FROM dead), (SELECT count(*) FROM kept)`, g.ns, sourceID).Scan(&relsRemoved, &relsUpdated)
	if err != nil {
		return rep, err
	}
	rep.RelationsRemoved, rep.RelationsUpdated = int(relsRemoved), int(relsUpdated)

	rows, err := tx.Query(ctx, `SELECT id FROM `+entitiesTable+` WHERE namespace = $1 AND source_ids @> ARRAY[$2::text]
	AND array_remove(source_ids, $2::text) = '{}' ORDER BY id COLLATE "C" FOR UPDATE`, g.ns, sourceID)
	if err != nil {
		return rep, err
	}
	dead, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return rep, err
	}
	tag, err := tx.Exec(ctx, `UPDATE `+entitiesTable+` SET source_ids = array_remove(source_ids, $2::text)
	WHERE namespace = $1 AND source_ids @> ARRAY[$2::text] AND array_remove(source_ids, $2::text) <> '{}'`, g.ns, sourceID)
	if err != nil {
		return rep, err
	}
	rep.EntitiesUpdated = int(tag.RowsAffected())
	if len(dead) == 0 {
		return rep, nil
	}
	// The relations of the entities that go, a self-loop once; the
	// foreign keys delete them with the entities.
	var cascaded int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+relationsTable+`
	WHERE namespace = $1 AND (source = ANY($2::text[]) OR target = ANY($2::text[]))`, g.ns, dead).Scan(&cascaded); err != nil {
		return rep, err
	}
	tag, err = tx.Exec(ctx, `DELETE FROM `+entitiesTable+` WHERE namespace = $1 AND id = ANY($2::text[])`, g.ns, dead)
	if err != nil {
		return rep, err
	}
	rep.RelationsRemoved += int(cascaded)
	rep.EntitiesRemoved = int(tag.RowsAffected())
	return rep, nil
}
