package pgraph

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

// AddBatch adds entities, then relations, in one transaction: each entity
// as AddEntity would, each relation as AddRelation would (a zero Weight is
// stored as 1), in order (a
// later item with the same ID or key replaces an earlier one), exactly as
// kgmem.InMemoryGraph.AddBatch does. Relations may join entities of the
// same batch. Everything is validated before the database is touched; on
// an error, which names the index of the offending item, nothing changes.
// Rows travel by COPY into a temporary table and are upserted from there
// in key order, so a large batch costs a few statements, not one per item.
func (g *Graph) AddBatch(ctx context.Context, entities []kgmem.Entity, relations []kgmem.Relation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entRows, relRows, err := g.prepareBatch(entities, relations)
	if err != nil || len(entRows) == 0 && len(relRows) == 0 {
		return err
	}
	return g.retry(ctx, func() error {
		err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
			return g.applyBatch(ctx, tx, entRows, relRows)
		})
		if err != nil && !retryable(err) && !isBatchError(err) {
			return fail(fmt.Sprintf("add batch of %d entities and %d relations", len(entities), len(relations)), true, err)
		}
		return err
	})
}

// prepareBatch validates entities and relations as AddBatch does and
// returns their rows for applyBatch, de-duplicated (the last item with an
// ID or key wins) and in key order.
func (g *Graph) prepareBatch(entities []kgmem.Entity, relations []kgmem.Relation) (entRows, relRows [][]any, err error) {
	ents := make(map[string][]any, len(entities))
	for i := range entities {
		e := entities[i]
		row, err := g.entityRow(&e)
		if err != nil {
			return nil, nil, errmsg.Wrapf(err, "pgraph: batch entity %d", i)
		}
		ents[e.ID] = row[1:] // without the namespace; the last one wins
	}
	type relRow struct {
		first int // index of the key's first occurrence, for errors
		r     kgmem.Relation
		props string
	}
	rels := make(map[kgmem.RelationKey]*relRow, len(relations))
	for i := range relations {
		r := relations[i]
		if err := validateRelation(&r); err != nil { // sets a zero weight to 1
			return nil, nil, errmsg.Wrapf(err, "pgraph: batch relation %d", i)
		}
		props, err := encodeProperties(r.Properties)
		if err != nil {
			return nil, nil, errmsg.Wrapf(err, "pgraph: batch relation %d", i)
		}
		if rr, ok := rels[r.Key()]; ok {
			rr.r, rr.props = r, props
			continue
		}
		rels[r.Key()] = &relRow{first: i, r: r, props: props}
	}

	entRows = make([][]any, 0, len(ents))
	for _, id := range slices.Sorted(maps.Keys(ents)) {
		entRows = append(entRows, ents[id])
	}
	relRows = make([][]any, 0, len(rels))
	for _, k := range slices.SortedFunc(maps.Keys(rels), compareKeys) {
		rr := rels[k]
		relRows = append(relRows, []any{rr.first, k.SourceID, k.TargetID, k.Type, rr.r.Weight, rr.props, nonNil(rr.r.SourceIDs),
			nullTime(rr.r.ValidFrom), nullTime(rr.r.ValidTo)})
	}
	return entRows, relRows, nil
}

// batchError is a batch's missing endpoint, reported as kgmem reports it.
type batchError struct{ err error }

func (e batchError) Error() string { return e.err.Error() }
func (e batchError) Unwrap() error { return e.err }

func isBatchError(err error) bool {
	_, ok := err.(batchError)
	return ok
}

const batchTables = `
CREATE TEMP TABLE IF NOT EXISTS kgmem_batch_entities (
	id text, name text, type text, description text, aliases text[], tags text[],
	properties text, source_ids text[], grams text[], tag_grams text[], link_keys text[]
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS kgmem_batch_relations (
	ord integer, source text, target text, type text, weight double precision,
	properties text, source_ids text[], valid_from timestamptz, valid_to timestamptz
) ON COMMIT DELETE ROWS`

var (
	batchEntityColumns   = []string{"id", "name", "type", "description", "aliases", "tags", "properties", "source_ids", "grams", "tag_grams", "link_keys"}
	batchRelationColumns = []string{"ord", "source", "target", "type", "weight", "properties", "source_ids", "valid_from", "valid_to"}
)

// applyBatch writes validated, de-duplicated rows in tx.
func (g *Graph) applyBatch(ctx context.Context, tx pgx.Tx, entRows, relRows [][]any) error {
	if _, err := tx.Exec(ctx, batchTables); err != nil {
		return err
	}
	if len(entRows) > 0 {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"kgmem_batch_entities"}, batchEntityColumns, pgx.CopyFromRows(entRows)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+entitiesTable+`
	(namespace, id, name, type, description, aliases, tags, properties, source_ids, grams, tag_grams, link_keys)
SELECT $1, id, name, type, description, aliases, tags, properties::jsonb, source_ids, grams, tag_grams, link_keys
FROM kgmem_batch_entities ORDER BY id COLLATE "C"
ON CONFLICT (namespace, id) DO UPDATE SET
	name = excluded.name, type = excluded.type, description = excluded.description,
	aliases = excluded.aliases, tags = excluded.tags, properties = excluded.properties,
	source_ids = excluded.source_ids, grams = excluded.grams, tag_grams = excluded.tag_grams,
	link_keys = excluded.link_keys`, g.ns); err != nil {
			return err
		}
	}
	if len(relRows) == 0 {
		return nil
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"kgmem_batch_relations"}, batchRelationColumns, pgx.CopyFromRows(relRows)); err != nil {
		return err
	}
	var (
		ord                int
		src, dst, typ      string
		srcFound, dstFound bool
	)
	err := tx.QueryRow(ctx, `SELECT b.ord, b.source, b.target, b.type,
	EXISTS (SELECT 1 FROM `+entitiesTable+` e WHERE e.namespace = $1 AND e.id = b.source),
	EXISTS (SELECT 1 FROM `+entitiesTable+` e WHERE e.namespace = $1 AND e.id = b.target)
FROM kgmem_batch_relations b
WHERE NOT EXISTS (SELECT 1 FROM `+entitiesTable+` e WHERE e.namespace = $1 AND e.id = b.source)
   OR NOT EXISTS (SELECT 1 FROM `+entitiesTable+` e WHERE e.namespace = $1 AND e.id = b.target)
ORDER BY b.ord LIMIT 1`, g.ns).Scan(&ord, &src, &dst, &typ, &srcFound, &dstFound)
	switch {
	case err == nil:
		missing := dst
		if !srcFound {
			missing = src
		}
		return batchError{fmt.Errorf("pgraph: batch relation %d: %s: entity %s: %w",
			ord, quote.Key(src, typ, dst), quote.Value(missing), kgmem.ErrNotFound)}
	case err != pgx.ErrNoRows:
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO `+relationsTable+`
	(namespace, source, target, type, weight, properties, source_ids, valid_from, valid_to)
SELECT $1, source, target, type, weight, properties::jsonb, source_ids, valid_from, valid_to
FROM kgmem_batch_relations ORDER BY source COLLATE "C", target COLLATE "C", type COLLATE "C"
ON CONFLICT (namespace, source, target, type) DO UPDATE SET
	weight = excluded.weight, properties = excluded.properties, source_ids = excluded.source_ids,
	valid_from = excluded.valid_from, valid_to = excluded.valid_to`, g.ns)
	if isForeignKeyViolation(err) {
		// An endpoint was removed after the check: run the batch again,
		// which reports it.
		return errRetry
	}
	return err
}

// compareKeys orders relation keys by source, target, then type, in byte
// order.
func compareKeys(a, b kgmem.RelationKey) int {
	if c := strings.Compare(a.SourceID, b.SourceID); c != 0 {
		return c
	}
	if c := strings.Compare(a.TargetID, b.TargetID); c != 0 {
		return c
	}
	return strings.Compare(a.Type, b.Type)
}
