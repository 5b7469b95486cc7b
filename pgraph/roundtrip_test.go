package pgraph

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// roundTrips counts the requests a pool's connections send to the server:
// each query or exec, each batch (sent as one pipeline) and each COPY.
type roundTrips struct {
	n    atomic.Int64
	mu   sync.Mutex
	sql  []string // with keep, the SQL of each request
	keep bool
}

func (c *roundTrips) note(sql string) {
	c.n.Add(1)
	if c.keep {
		c.mu.Lock()
		c.sql = append(c.sql, sql)
		c.mu.Unlock()
	}
}

func (c *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.note(d.SQL)
	return ctx
}

func (c *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	sql := "batch:"
	if d.Batch != nil {
		for _, q := range d.Batch.QueuedQueries {
			sql += " [" + q.SQL + "]"
		}
	}
	c.note(sql)
	return ctx
}

func (c *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (c *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (c *roundTrips) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	c.note("copy " + d.TableName.Sanitize())
	return ctx
}

func (c *roundTrips) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}

// take returns the requests counted since the last take, and their SQL.
func (c *roundTrips) take() (int64, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sql := c.sql
	c.sql = nil
	return c.n.Swap(0), sql
}

// countingPool returns a pool on the test database whose requests rt
// counts, closed when the test ends.
func countingPool(tb testing.TB, rt *roundTrips) *pgxpool.Pool {
	tb.Helper()
	cfg := needDB(tb).Config().Copy()
	cfg.ConnConfig.Tracer = rt
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p
}
