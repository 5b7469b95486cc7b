package pgraph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// dsnEnv names the environment variable holding the URL of the PostgreSQL
// database the tests use. Without it every test that needs the database
// skips.
const dsnEnv = "KGMEM_PG_DSN"

// testPool is connected to the database named by dsnEnv, with the schema
// migrated; nil when dsnEnv is unset.
var testPool *pgxpool.Pool

// testDSN is the URL of the database testPool is connected to.
var testDSN string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if dsn := os.Getenv(dsnEnv); dsn != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pool, err := connect(ctx, dsn)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pgraph tests: %s is set but unusable: %v\n", dsnEnv, err)
			return 1
		}
		defer pool.Close()
		testPool, testDSN = pool, dsn
	}
	code := m.Run()
	clearBenchFixtures()
	return code
}

// connect opens a pool on dsn and migrates the schema.
func connect(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, err
	}
	g, err := New(ctx, pool)
	if err == nil {
		err = g.Migrate(ctx)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// needDB returns the test pool, or skips the test when there is none.
func needDB(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	if testPool == nil {
		tb.Skipf("%s is not set: skipping the PostgreSQL tests (set it to a database URL such as postgres://user@127.0.0.1:5432/db?sslmode=disable; .ci/run starts a throwaway cluster)", dsnEnv)
	}
	return testPool
}

// randomNamespace returns a namespace no other test uses.
func randomNamespace(prefix string) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return prefix + "-" + hex.EncodeToString(b)
}

// newTestGraph returns an empty graph in a fresh namespace, cleared when
// the test ends.
func newTestGraph(tb testing.TB, opts ...Option) *Graph {
	tb.Helper()
	pool := needDB(tb)
	opts = append([]Option{WithNamespace(randomNamespace("test"))}, opts...)
	g, err := New(context.Background(), pool, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := g.Clear(context.Background()); err != nil {
			tb.Errorf("clearing namespace %q: %v", g.Namespace(), err)
		}
	})
	return g
}

// emptySchemaPool creates an empty schema (named after tag), dropped when
// the test ends, and returns a pool whose connections use it, with at most
// maxConns connections (0: as many as pool). Migration tests start from it
// as from a database no kgmem has touched; the test skips when the
// database refuses to create a schema.
func emptySchemaPool(t *testing.T, pool *pgxpool.Pool, tag string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	ctx := t.Context()
	schema := "kgmem_migrate_" + randomNamespace(tag)[2:]
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Skipf("cannot create a schema to migrate into: %v", err)
	}
	t.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	cfg := pool.Config().Copy()
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
