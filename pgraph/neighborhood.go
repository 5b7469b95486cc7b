package pgraph

import (
	"context"
	"fmt"
	"maps"
	"slices"
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
//
// Each Neighbors query travels with a second one, in the same round trip,
// that reads the entities asked about and those at the ends of the
// relations it reports (up to
// prefetchEntities of them, those not read before), so that the Entities
// call that ends a traversal is answered from what the snapshot already
// read, without a round trip of its own.
type neighborhood struct {
	g    *Graph
	conn *pgxpool.Conn           // nil until the first query
	ents map[string]kgmem.Entity // entities read in this snapshot
}

// prefetchEntities bounds the entities one Neighbors call reads besides
// the relations: a frontier around a hub reads the first this many of its
// neighbours' entities, and Entities reads the rest when asked.
const prefetchEntities = 512

var (
	_ kgmem.Neighborhood       = (*neighborhood)(nil)
	_ kgmem.NeighborhoodReader = (*Graph)(nil)
)

func (g *Graph) neighborhood() *neighborhood { return &neighborhood{g: g} }

// Now is the graph's clock, which kgmem's traversals read for "now".
func (n *neighborhood) Now() time.Time { return n.g.clock() }

const beginSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"

// query runs sql in the traversal's transaction, beginning it first when
// this is the traversal's first query: BEGIN and the query travel in one
// pipelined batch.
func (n *neighborhood) query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if n.conn != nil {
		return n.conn.Query(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	br, err := n.send(ctx, b)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{rows, br}, nil
}

// send sends the queries of b in the traversal's transaction, in one
// round trip, beginning the transaction in the same batch when this is
// the traversal's first request; the caller reads b's results and closes
// them.
func (n *neighborhood) send(ctx context.Context, b *pgx.Batch) (pgx.BatchResults, error) {
	if n.conn != nil {
		return n.conn.SendBatch(ctx, b), nil
	}
	conn, err := n.g.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	n.conn = conn
	b.QueuedQueries = append([]*pgx.QueuedQuery{{SQL: beginSnapshot}}, b.QueuedQueries...)
	br := conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, err
	}
	return br, nil
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
// to the pool, without making the caller wait for the server: everything
// the traversal needed was read, and the transaction is read-only, so
// ending it by rollback loses nothing and can fail only with the
// connection, which is then closed rather than reused. The rollback runs
// in the background, with its own short deadline so that a cancelled ctx
// still leaves the connection clean (a connection released inside a
// transaction is closed by the pool rather than reused); the pool's Close
// waits for it.
func (n *neighborhood) close(ctx context.Context) error {
	if n.conn == nil {
		return nil
	}
	conn := n.conn
	n.conn = nil
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			conn.Conn().Close(ctx) //nolint:errcheck // the connection is dropped either way
		}
		conn.Release()
	}()
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
	b := &pgx.Batch{}
	b.Queue("SELECT "+relationColumns+" FROM "+relationsTable+" WHERE namespace = $1 AND "+where, args...)
	known := make([]string, 0, len(n.ents))
	for id := range n.ents {
		known = append(known, id)
	}
	k := len(args) + 1
	b.Queue(fmt.Sprintf("SELECT %s FROM %s WHERE namespace = $1 AND id IN (SELECT unnest($2::text[]) UNION SELECT unnest(ARRAY[source, target]) FROM %s WHERE namespace = $1 AND %s) AND NOT id = ANY($%d) LIMIT %d",
		entityColumns, entitiesTable, relationsTable, where, k, prefetchEntities), append(args, known)...)
	br, err := n.send(ctx, b)
	if err != nil {
		return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
	}
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
	}
	var rels []kgmem.Relation
	for rows.Next() {
		r, err := scanRelation(rows)
		if err != nil {
			rows.Close()
			return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
		}
		rels = append(rels, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
	}
	rows, err = br.Query()
	if err != nil {
		return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
	}
	found, err := collectEntities(rows)
	if err != nil {
		return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
	}
	n.keep(found)
	for _, r := range rels {
		src, fromSrc := index[r.SourceID]
		dst, fromDst := index[r.TargetID]
		if dir != kgmem.Incoming && fromSrc {
			visit(src, r)
		}
		if dir != kgmem.Outgoing && fromDst && (dir != kgmem.Both || r.SourceID != r.TargetID) {
			visit(dst, r)
		}
	}
	return nil
}

// keep adds entities read in the traversal's snapshot to what Entities
// answers from.
func (n *neighborhood) keep(es []kgmem.Entity) {
	if n.ents == nil {
		n.ents = make(map[string]kgmem.Entity, len(es))
	}
	for _, e := range es {
		n.ents[e.ID] = e
	}
}

// Entities returns the entities with the given IDs in the order of ids,
// those the traversal has not read yet in one query; a missing one is an
// error wrapping kgmem.ErrNotFound.
func (n *neighborhood) Entities(ctx context.Context, ids []string) ([]kgmem.Entity, error) {
	var ask []string
	for _, id := range ids {
		if !storable(id) {
			return nil, fmt.Errorf("pgraph: entity %s: %w", quote.Value(id), kgmem.ErrNotFound)
		}
		if _, ok := n.ents[id]; !ok {
			ask = append(ask, id)
		}
	}
	if len(ask) > 0 {
		rows, err := n.query(ctx, "SELECT "+entityColumns+" FROM "+entitiesTable+" WHERE namespace = $1 AND id = ANY($2)", n.g.ns, ask)
		if err != nil {
			return nil, fail(fmt.Sprintf("fetch %d entities", len(ask)), false, err)
		}
		found, err := collectEntities(rows)
		if err != nil {
			return nil, fail(fmt.Sprintf("fetch %d entities", len(ask)), false, err)
		}
		n.keep(found)
	}
	out := make([]kgmem.Entity, len(ids))
	for i, id := range ids {
		e, ok := n.ents[id]
		if !ok {
			return nil, fmt.Errorf("pgraph: entity %s: %w", quote.Value(id), kgmem.ErrNotFound)
		}
		e.Aliases, e.Tags, e.SourceIDs = slices.Clone(e.Aliases), slices.Clone(e.Tags), slices.Clone(e.SourceIDs)
		e.Properties = maps.Clone(e.Properties)
		out[i] = e
	}
	return out, nil
}
