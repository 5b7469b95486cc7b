package pgraph

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
)

// neighborhood is the kgmem.Neighborhood of one traversal: every query of
// the traversal runs in one read-only REPEATABLE READ transaction on one
// connection, so the traversal sees one snapshot of the graph. The
// transaction begins with the first query, in the same round trip, so
// option errors, which kgmem reports before asking for anything, cost no
// round trip at all.
type neighborhood struct {
	g    *Graph
	conn *pgxpool.Conn // nil until the first query
}

var (
	_ kgmem.Neighborhood       = (*neighborhood)(nil)
	_ kgmem.NeighborhoodReader = (*Graph)(nil)
)

func (g *Graph) neighborhood() *neighborhood { return &neighborhood{g: g} }

// Now is the graph's clock, which kgmem's traversals read for "now".
func (n *neighborhood) Now() time.Time { return n.g.clock() }

const beginSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"

// genericPlans follows BEGIN in every read transaction of a traversal, a
// search or linking, in the same round trip. The server plans a prepared
// statement again at every execution while it judges a custom plan
// better, and these queries, keyed by namespace and an array of IDs, keys
// or terms, were planned again every time: at 40k entities planning took
// about a third of the server's time for a Retrieve. With the plans kept,
// BenchmarkMemoryRetrieve's p50 is 0.71–0.86 of what it was (five
// alternating runs on a quiet machine). LOCAL confines the setting to the
// transaction: the connection, which the caller's pool owns, keeps its own.
const genericPlans = "SET LOCAL plan_cache_mode = force_generic_plan"

// queueRead queues on b the start of a read transaction: begin, then
// genericPlans. beginRead reads their results back.
func queueRead(b *pgx.Batch, begin string) {
	b.Queue(begin)
	b.Queue(genericPlans)
}

// beginRead reads the results of what queueRead queued, the first of br's.
func beginRead(br pgx.BatchResults) error {
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	return nil
}

// query runs sql in the traversal's transaction, beginning it first when
// this is the traversal's first query: BEGIN and the query travel in one
// pipelined batch.
func (n *neighborhood) query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if n.conn != nil {
		return n.conn.Query(ctx, sql, args...)
	}
	conn, err := n.g.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	n.conn = conn
	b := &pgx.Batch{}
	queueRead(b, beginSnapshot)
	b.Queue(sql, args...)
	br := conn.SendBatch(ctx, b)
	if err := beginRead(br); err != nil {
		br.Close()
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{rows, br}, nil
}

// batchRows are the rows of the last query of a batch; closing them
// finishes the batch.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

// Close closes the rows, then the batch. An error of the batch is the
// error of its last query, which Err already reports.
func (r batchRows) Close() {
	r.Rows.Close()
	_ = r.br.Close()
}

// close ends the transaction, if one was begun, and returns the connection
// to the pool. The transaction is read-only, so ending it by rollback loses
// nothing; the rollback gets its own short deadline so that a cancelled ctx
// still leaves the connection clean (a connection left inside a
// transaction is closed by the pool rather than reused).
func (n *neighborhood) close(ctx context.Context) error {
	if n.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := n.conn.Exec(ctx, "ROLLBACK")
	n.conn.Release()
	n.conn = nil
	if err != nil {
		return fail("end read transaction", false, err)
	}
	return nil
}

// Neighbors reports the relations around ids with one query for the whole
// frontier: the primary key serves Outgoing (namespace, source) and
// kgmem_relations_target serves Incoming (namespace, target); Both asks for
// either and reports a relation once for each endpoint in ids, a self-loop
// once. The type filter runs in SQL.
func (n *neighborhood) Neighbors(ctx context.Context, ids []string, dir kgmem.Direction, types []string, visit func(from int, r kgmem.Relation)) error {
	index := make(map[string]int, len(ids))
	keep := make([]string, 0, len(ids))
	for i, id := range ids {
		if storable(id) {
			index[id] = i
			keep = append(keep, id)
		}
	}
	var where string
	switch dir {
	case kgmem.Outgoing:
		where = "source = ANY($2)"
	case kgmem.Incoming:
		where = "target = ANY($2)"
	default:
		where = "(source = ANY($2) OR target = ANY($2))"
	}
	args := []any{n.g.ns, keep}
	if len(types) > 0 {
		filter := make([]string, 0, len(types))
		for _, t := range types {
			if storable(t) {
				filter = append(filter, t)
			}
		}
		if len(filter) == 0 {
			return nil // no stored relation has such a type
		}
		where += " AND type = ANY($3)"
		args = append(args, filter)
	}
	if len(keep) == 0 {
		return nil
	}
	rows, err := n.query(ctx, "SELECT "+relationColumns+" FROM "+relationsTable+" WHERE namespace = $1 AND "+where, args...)
	if err != nil {
		return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRelation(rows)
		if err != nil {
			return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
		}
		src, fromSrc := index[r.SourceID]
		dst, fromDst := index[r.TargetID]
		if dir != kgmem.Incoming && fromSrc {
			visit(src, r)
		}
		if dir != kgmem.Outgoing && fromDst && (dir != kgmem.Both || r.SourceID != r.TargetID) {
			visit(dst, r)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
	}
	return nil
}

// Entities fetches the entities with the given IDs in one query and
// returns them in the order of ids; a missing one is an error wrapping
// kgmem.ErrNotFound.
func (n *neighborhood) Entities(ctx context.Context, ids []string) ([]kgmem.Entity, error) {
	keep := make([]string, 0, len(ids))
	for _, id := range ids {
		if !storable(id) {
			return nil, fmt.Errorf("pgraph: entity %s: %w", quote.Value(id), kgmem.ErrNotFound)
		}
		keep = append(keep, id)
	}
	rows, err := n.query(ctx, "SELECT "+entityColumns+" FROM "+entitiesTable+" WHERE namespace = $1 AND id = ANY($2)", n.g.ns, keep)
	if err != nil {
		return nil, fail(fmt.Sprintf("fetch %d entities", len(keep)), false, err)
	}
	found, err := collectEntities(rows)
	if err != nil {
		return nil, fail(fmt.Sprintf("fetch %d entities", len(keep)), false, err)
	}
	byID := make(map[string]int, len(found))
	for i := range found {
		byID[found[i].ID] = i
	}
	out := make([]kgmem.Entity, len(ids))
	for i, id := range ids {
		j, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("pgraph: entity %s: %w", quote.Value(id), kgmem.ErrNotFound)
		}
		out[i] = found[j]
	}
	return out, nil
}
