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
// Entities read once are kept for the traversal, and not read again: the
// retriever's first query reads those around the walk's start with the
// relations (see Neighbors), so that the Entities call that ends the walk
// usually costs no round trip.
type neighborhood struct {
	g    *Graph
	conn *pgxpool.Conn           // nil until the first query
	ents map[string]kgmem.Entity // entities read in this snapshot

	// ring makes the next Neighbors query read the next ring too (see
	// Neighbors); adj holds, for the entities whose relations in
	// direction adjDir of the types adjTypes were all read, those
	// relations.
	ring     bool
	adj      map[string][]kgmem.Relation
	adjDir   kgmem.Direction
	adjTypes []string
}

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
//
// A neighbourhood made for the retriever (ReadNeighborhood) reads, with
// its first hop and in the same query, the next ring too: the relations,
// in the same direction and of the same types, around the entities those
// of ids lead to, when the hop has at most ringEntities relations and the
// ring at most ringRelations. The walk's second hop starts from some of
// those entities, and is answered from what was read, in the same
// snapshot, without a round trip. The same round trip reads the entities
// of ids and of both ends of every relation read (up to prefetchEntities),
// for Entities.
func (n *neighborhood) Neighbors(ctx context.Context, ids []string, dir kgmem.Direction, types []string, visit func(from int, r kgmem.Relation)) error {
	index := make(map[string]int, len(ids))
	keep := make([]string, 0, len(ids))
	for i, id := range ids {
		if storable(id) {
			index[id] = i
			keep = append(keep, id)
		}
	}
	var filter []string
	if len(types) > 0 {
		filter = make([]string, 0, len(types))
		for _, t := range types {
			if storable(t) {
				filter = append(filter, t)
			}
		}
		if len(filter) == 0 {
			return nil // no stored relation has such a type
		}
	}
	if len(keep) == 0 {
		return nil
	}
	rels, ok := n.cached(keep, dir, filter)
	if !ok {
		var err error
		if rels, err = n.read(ctx, keep, dir, filter); err != nil {
			return fmt.Errorf("pgraph: neighbours of %d entities: %w", len(keep), err)
		}
	}
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

// Bounds of the next ring a retriever's Neighbors call reads: the hop's
// relations (and so the ring's entities) and the ring's relations.
const (
	ringEntities  = 256
	ringRelations = 4096
)

// relKey is the key of a relation.
type relKey struct{ source, target, typ string }

// cached returns the relations touching ids in direction dir of the types
// filter (all when empty), each once, when an earlier call of the
// traversal read all of them; ok is false otherwise.
func (n *neighborhood) cached(ids []string, dir kgmem.Direction, filter []string) (rels []kgmem.Relation, ok bool) {
	if n.adj == nil || dir != n.adjDir || !slices.Equal(filter, n.adjTypes) {
		return nil, false
	}
	for _, id := range ids {
		if _, ok := n.adj[id]; !ok {
			return nil, false
		}
	}
	seen := map[relKey]bool{}
	for _, id := range ids {
		for _, r := range n.adj[id] {
			k := relKey{r.SourceID, r.TargetID, r.Type}
			if !seen[k] {
				seen[k] = true
				rels = append(rels, r)
			}
		}
	}
	return rels, true
}

// read reads the relations touching ids in direction dir of the types
// filter and, for a retriever's neighbourhood, the next ring (see
// Neighbors), keeps the adjacency of every entity whose relations it read
// whole for cached, and returns those of ids, each once.
func (n *neighborhood) read(ctx context.Context, ids []string, dir kgmem.Direction, filter []string) ([]kgmem.Relation, error) {
	var where, next string
	switch dir {
	case kgmem.Outgoing:
		where, next = "source = ANY($2)", "target"
	case kgmem.Incoming:
		where, next = "target = ANY($2)", "source"
	default:
		where, next = "(source = ANY($2) OR target = ANY($2))", "CASE WHEN source = ANY($2) THEN target ELSE source END"
	}
	args := []any{n.g.ns, ids}
	typed := ""
	if len(filter) > 0 {
		typed = " AND type = ANY($3)"
		args = append(args, filter)
	}
	sql := "SELECT 1, " + relationColumns + " FROM " + relationsTable + " WHERE namespace = $1 AND " + where + typed
	if n.ring {
		// h1 is the hop asked for; the ring is read from each of its
		// relations' far ends through the index, and is empty when the
		// hop is too large.
		around := func(col string) string {
			return "SELECT " + relationColumns + " FROM " + relationsTable + " AS r WHERE r.namespace = $1 AND r." + col + " = o.x" + typed
		}
		ring := around("source")
		switch dir {
		case kgmem.Incoming:
			ring = around("target")
		case kgmem.Both:
			ring += " UNION ALL " + around("target")
		}
		sql = fmt.Sprintf(`WITH h1 AS (SELECT %[1]s FROM %[2]s WHERE namespace = $1 AND %[3]s%[4]s)
SELECT 1, %[1]s FROM h1
UNION ALL
SELECT * FROM (
	SELECT 2, r.* FROM (SELECT %[5]s AS x FROM h1) AS o, LATERAL (%[6]s) AS r
	WHERE (SELECT count(*) FROM h1) <= %[7]d LIMIT %[8]d
) AS h2`, relationColumns, relationsTable, where, typed, next, ring, ringEntities, ringRelations+1)
	}
	ringed := n.ring
	n.ring = false // the walk's later hops fan out wider: reading their rings would cost more than it saves
	var rows pgx.Rows
	var br pgx.BatchResults
	if ringed {
		// The entities of ids, of the hop and of the ring, for the
		// Entities call that ends the walk, in the same round trip.
		b := &pgx.Batch{}
		b.Queue(sql, args...)
		b.Queue(ringEntitiesSQL(sql), args...)
		var err error
		if br, err = n.send(ctx, b); err != nil {
			return nil, err
		}
		defer br.Close()
		rows, err = br.Query()
		if err != nil {
			return nil, err
		}
	} else {
		var err error
		if rows, err = n.query(ctx, sql, args...); err != nil {
			return nil, err
		}
	}
	var hop, ring []kgmem.Relation
	for rows.Next() {
		var h int
		r, err := scanRelation(hopRow{rows, &h})
		if err != nil {
			rows.Close()
			return nil, err
		}
		if h == 1 {
			hop = append(hop, r)
		} else {
			ring = append(ring, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if ringed {
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		found, err := collectEntities(rows)
		if err != nil {
			return nil, err
		}
		n.keep(found)
	}

	// Keep the adjacency of every entity whose relations were all read:
	// those of ids, and the far ends of the hop when the ring was read
	// whole.
	complete := make(map[string]bool, len(ids))
	for _, id := range ids {
		complete[id] = true
	}
	if ringed && len(hop) <= ringEntities && len(ring) <= ringRelations {
		for _, r := range hop {
			complete[r.SourceID], complete[r.TargetID] = true, true
		}
	}
	if n.adj == nil || dir != n.adjDir || !slices.Equal(filter, n.adjTypes) {
		n.adj, n.adjDir, n.adjTypes = map[string][]kgmem.Relation{}, dir, slices.Clone(filter)
	}
	for x := range complete {
		n.adj[x] = nil
	}
	seen := map[relKey]bool{}
	for _, r := range slices.Concat(hop, ring) {
		k := relKey{r.SourceID, r.TargetID, r.Type}
		if seen[k] {
			continue
		}
		seen[k] = true
		if dir != kgmem.Incoming && complete[r.SourceID] {
			n.adj[r.SourceID] = append(n.adj[r.SourceID], r)
		}
		if dir != kgmem.Outgoing && complete[r.TargetID] && (dir != kgmem.Both || r.SourceID != r.TargetID) {
			n.adj[r.TargetID] = append(n.adj[r.TargetID], r)
		}
	}
	rels, _ := n.cached(ids, dir, filter)
	return rels, nil
}

// ringEntitiesSQL returns the query that reads, beside read's query
// ringSQL and with the same arguments, the entities of the IDs asked
// about and of both ends of every relation ringSQL returns (up to
// prefetchEntities of them), each through the primary key.
func ringEntitiesSQL(ringSQL string) string {
	return fmt.Sprintf(`WITH rels AS (%s)
SELECT e.* FROM (
	SELECT unnest($2::text[]) UNION SELECT source FROM rels UNION SELECT target FROM rels LIMIT %d
) AS ids(x), LATERAL (SELECT %s FROM %s WHERE namespace = $1 AND id = ids.x) AS e`, ringSQL, prefetchEntities, entityColumns, entitiesTable)
}

// prefetchEntities bounds the entities a walk's first query reads.
const prefetchEntities = 512

// hopRow scans a row of read's query: the hop (1 for the hop asked for, 2
// for the ring) into hop, then the relationColumns.
type hopRow struct {
	rows pgx.Rows
	hop  *int
}

// Scan scans the hop, then the relation into dest.
func (r hopRow) Scan(dest ...any) error {
	return r.rows.Scan(append([]any{r.hop}, dest...)...)
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
