package pgraph

import (
	"context"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
)

var _ kgmem.EntityChangeFeed = (*Graph)(nil)

// EntityChanges returns the entities of the namespace written and removed
// since version since (kgmem.EntityChangeFeed), so that
// kgmem.MemoryRetriever's linking by meaning (kgmem.WithLinkEmbedder)
// keeps its entity vectors fresh over PostgreSQL, whichever process
// writes.
//
// A version is a PostgreSQL transaction ID: the oldest transaction still
// running when the answer was read (the xmin of its snapshot). Every
// entity row carries the ID of the transaction that last wrote it
// (change_xid, set by a trigger on every insert and update), and every
// removal is recorded with its transaction's ID (schema version 6). Changed
// holds the entities whose writer's ID is at least since, Removed the IDs
// removed by such a transaction and absent now. So a write whose
// transaction commits after an answer was read, however early it began, is
// in the next answer: no change is skipped, whichever of several writer
// processes commits first. The price is that a change can be delivered
// more than once: an entity written by a transaction that had ended when
// one answer was read but was not older than every transaction then
// running is in that answer and the next ones, until those transactions
// end. A long-running transaction anywhere on the server (one idle in a
// transaction, for example) thus makes each answer re-deliver everything
// written since it began; kgmem's consumers compare what they receive
// with what they keep, so re-delivery costs reading rows, not embedding.
//
// Reset (every entity of the namespace in Changed) answers since 0, a
// version newer than any transaction the server has started (never
// issued), one from before Clear emptied the namespace, and one older than
// a removal of this namespace that the removal log no longer holds (it
// keeps the database's last 65,536 removals). Changed is ordered by ID and
// Removed sorted, both in byte order; without Reset an ID is in at most one
// of them. A done ctx returns ctx.Err().
//
// Cost: one read-only REPEATABLE READ transaction of three queries, served
// by indexes on (namespace, change_xid) of the entities and of the removal
// log: O(entities written since); a Reset reads the whole namespace.
func (g *Graph) EntityChanges(ctx context.Context, since uint64) (kgmem.EntityChanges, error) {
	if err := ctx.Err(); err != nil {
		return kgmem.EntityChanges{}, err
	}
	var out kgmem.EntityChanges
	err := pgx.BeginTxFunc(ctx, g.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var (
			xmin, xmax uint64
			floor      *uint64
		)
		if err := tx.QueryRow(ctx, "SELECT pg_snapshot_xmin(s), pg_snapshot_xmax(s), (SELECT floor FROM "+feedTable+
			" WHERE namespace = $1) FROM pg_current_snapshot() AS s", g.ns).Scan(&xmin, &xmax, &floor); err != nil {
			return err
		}
		out = kgmem.EntityChanges{Version: xmin}
		if since == 0 || since > xmax || (floor != nil && since <= *floor) {
			out.Reset = true
			rows, err := tx.Query(ctx, "SELECT "+entityColumns+" FROM "+entitiesTable+" WHERE namespace = $1", g.ns)
			if err != nil {
				return err
			}
			if out.Changed, err = collectEntities(rows); err != nil {
				return err
			}
			if out.Changed == nil {
				out.Changed = []kgmem.Entity{}
			}
			return nil
		}
		rows, err := tx.Query(ctx, "SELECT "+entityColumns+" FROM "+entitiesTable+
			" WHERE namespace = $1 AND change_xid >= $2", g.ns, since)
		if err != nil {
			return err
		}
		if out.Changed, err = collectEntities(rows); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, "SELECT DISTINCT r.id FROM "+removalsTable+" r WHERE r.namespace = $1 AND r.change_xid >= $2"+
			" AND NOT EXISTS (SELECT 1 FROM "+entitiesTable+" e WHERE e.namespace = r.namespace AND e.id = r.id)", g.ns, since)
		if err != nil {
			return err
		}
		out.Removed, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return kgmem.EntityChanges{}, cerr
		}
		return kgmem.EntityChanges{}, fail("entity changes", false, err)
	}
	slices.SortFunc(out.Changed, func(a, b kgmem.Entity) int { return strings.Compare(a.ID, b.ID) })
	slices.Sort(out.Removed)
	if len(out.Removed) == 0 {
		out.Removed = nil
	}
	return out, nil
}
