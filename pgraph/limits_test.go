package pgraph

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
)

// incompressible returns n random letters and digits, which PostgreSQL
// cannot compress to fit an index entry.
func incompressible(n int, seed uint64) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rng := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// TestLimitsFitPostgreSQL stores, in a namespace of MaxNamespaceBytes,
// entities and relations whose IDs, names, types, aliases and tags are at
// kgmem's limits and do not compress: every index entry they make must fit.
// The names fold to half as long again (Ⱥ to ⱥ), as their link keys do.
func TestLimitsFitPostgreSQL(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	ns := randomNamespace("limits")
	ns += incompressible(MaxNamespaceBytes-len(ns), 1)
	g, err := New(ctx, pool, WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Clear(context.Background()) })
	name := func(seed uint64) string {
		return strings.Repeat("Ⱥ", kgmem.MaxNameBytes/4) + incompressible(kgmem.MaxNameBytes/2, seed)
	}
	entity := func(seed uint64) kgmem.Entity {
		return kgmem.Entity{
			ID:      incompressible(kgmem.MaxIDBytes, seed),
			Name:    name(seed + 1),
			Type:    incompressible(kgmem.MaxTypeBytes, seed+2),
			Aliases: []string{name(seed + 3)},
			Tags:    []string{strings.ToLower(incompressible(kgmem.MaxTagBytes, seed+4))},
		}
	}
	a, b := entity(10), entity(20)
	typ := incompressible(kgmem.MaxTypeBytes, 30)
	if err := g.AddEntity(ctx, a); err != nil {
		t.Fatalf("AddEntity at the limits: %v", err)
	}
	if err := g.AddBatch(ctx, []kgmem.Entity{b}, []kgmem.Relation{{SourceID: b.ID, TargetID: a.ID, Type: typ, Weight: 1}}); err != nil {
		t.Fatalf("AddBatch at the limits: %v", err)
	}
	if err := g.AddRelation(ctx, kgmem.Relation{SourceID: a.ID, TargetID: b.ID, Type: typ, Weight: 0.5}); err != nil {
		t.Fatalf("AddRelation at the limits: %v", err)
	}
	res, err := g.FindPaths(ctx, a.ID, b.ID, kgmem.PathOptions{MaxHops: 1, Direction: kgmem.Both, RelationTypes: []string{typ}})
	if err != nil || len(res.Paths) != 2 {
		t.Fatalf("FindPaths at the limits = %v, %v; want 2 paths", res, err)
	}
	ms, err := g.LinkEntities(ctx, "who is "+a.Aliases[0]+"?")
	if err != nil || len(ms) != 1 || ms[0].Entity.ID != a.ID || !ms[0].Alias {
		t.Fatalf("LinkEntities(an alias at the limit) = %v, %v; want the entity by its alias", ms, err)
	}
	if err := g.RemoveRelation(ctx, a.ID, b.ID, typ); err != nil {
		t.Fatal(err)
	}
	if err := g.RemoveEntity(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
}

// TestOverLongValuesNeverReachPostgreSQL writes values PostgreSQL could not
// index (2.8 kB, incompressible): each must fail as kgmem's in-memory graph
// fails, with ErrInvalidArgument naming the limit and a short message, not
// with the database's "index row size exceeds maximum" error quoting the
// value whole.
func TestOverLongValuesNeverReachPostgreSQL(t *testing.T) {
	pool := needDB(t)
	ctx := t.Context()
	long := incompressible(2800, 40)
	_, err := New(ctx, pool, WithNamespace(long))
	requireShortInvalid(t, "New with a long namespace", err, "MaxNamespaceBytes (128)")

	g := newTestGraph(t)
	if err := g.AddEntity(ctx, kgmem.Entity{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	requireShortInvalid(t, "AddEntity with a long ID", g.AddEntity(ctx, kgmem.Entity{ID: long}), "MaxIDBytes (1024)")
	requireShortInvalid(t, "AddEntity with a long name", g.AddEntity(ctx, kgmem.Entity{ID: "b", Name: long}), "MaxNameBytes (1024)")
	requireShortInvalid(t, "AddRelation with a long type", g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "a", Type: long}), "MaxTypeBytes (256)")
	requireShortInvalid(t, "AddBatch with a long ID", g.AddBatch(ctx, []kgmem.Entity{{ID: "c"}, {ID: long}}, nil), "batch entity 1", "MaxIDBytes (1024)")
	_, err = g.SetEntityTags(ctx, "a", []string{long[:kgmem.MaxTagBytes+1]})
	requireShortInvalid(t, "SetEntityTags with a long tag", err, "MaxTagBytes (128)")
	requireShortInvalid(t, "RemoveEntity with a long ID", g.RemoveEntity(ctx, long), "MaxIDBytes (1024)")
	if e, ok, err := g.GetEntity(ctx, long); ok || err != nil {
		t.Fatalf("GetEntity(a long ID) = %v, %v, %v; want nothing", e, ok, err)
	}
}

func requireShortInvalid(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if !errors.Is(err, kgmem.ErrInvalidArgument) {
		t.Fatalf("%s: %.300v; want an error wrapping ErrInvalidArgument", what, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: %q does not say %q", what, err, p)
		}
	}
	if len(err.Error()) > 512 {
		t.Fatalf("%s: the error is %d bytes long: %.300s…", what, len(err.Error()), err)
	}
}

// cutProxy forwards TCP connections to a server until cut, which breaks
// every connection it forwarded, as a crashed server or a failed network
// would.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); io.Copy(s, c); s.Close() }()
		go func() { defer p.wg.Done(); io.Copy(c, s); c.Close() }()
	}
}

// cut closes every forwarded connection.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestConnectionLostMidWrite breaks the connection of writes that are
// waiting for a row lock inside PostgreSQL, and of a graph whose server
// cannot be reached: the errors must say that the connection was lost and
// whether the write may have been applied, and wrap ErrConnectionLost.
func TestConnectionLostMidWrite(t *testing.T) {
	direct := needDB(t)
	ctx := t.Context()
	g := newTestGraph(t)
	if err := g.AddBatch(ctx, []kgmem.Entity{{ID: "a"}, {ID: "b"}}, []kgmem.Relation{{SourceID: "a", TargetID: "b", Type: "t", Weight: 1}}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(needDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newCutProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	// connect returns a graph of g's namespace whose connections go
	// through the proxy, tagged with app so that the test can tell its
	// sessions from those of earlier cuts, which may linger on the server.
	connect := func(t *testing.T, app string) *Graph {
		q := u.Query()
		q.Set("application_name", app)
		u := *u
		u.RawQuery = q.Encode()
		pool, err := pgxpool.New(ctx, u.String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		via, err := New(ctx, pool, WithNamespace(g.Namespace()))
		if err != nil {
			t.Fatal(err)
		}
		return via
	}

	writes := []struct {
		name  string
		write func(ctx context.Context, via *Graph) error
	}{
		{"AddEntity", func(ctx context.Context, via *Graph) error {
			return via.AddEntity(ctx, kgmem.Entity{ID: "a", Name: "new"})
		}},
		{"AddRelation", func(ctx context.Context, via *Graph) error {
			return via.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 0.5})
		}},
		{"SetEntityTags", func(ctx context.Context, via *Graph) error {
			_, err := via.SetEntityTags(ctx, "a", []string{"x"})
			return err
		}},
		{"RemoveRelation", func(ctx context.Context, via *Graph) error { return via.RemoveRelation(ctx, "a", "b", "t") }},
		{"AddBatch", func(ctx context.Context, via *Graph) error {
			return via.AddBatch(ctx, []kgmem.Entity{{ID: "a", Name: "batch"}}, nil)
		}},
	}
	// Each write loses its connection twice: once to the proxy's cut (the
	// stream ends), once to the server terminating the session (it sends
	// SQLSTATE 57P01 first).
	for _, w := range writes {
		for _, how := range []string{"Cut", "Terminated"} {
			t.Run(w.name+"/"+how, func(t *testing.T) {
				loseConnection(t, direct, g, connect, how, w.write, proxy)
			})
		}
	}

	t.Run("Unreachable", func(t *testing.T) {
		via := connect(t, "kgmem-cut-unreachable")
		proxy.ln.Close() // no new connection gets through
		proxy.cut()
		via.pool.Reset() // and no idle one is left to try
		err := via.AddEntity(ctx, kgmem.Entity{ID: "c"})
		t.Log(err)
		if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "no connection to PostgreSQL, nothing was sent") {
			t.Fatalf("AddEntity without a server = %v; want ErrConnectionLost saying nothing was sent", err)
		}
		if _, _, err := via.GetEntity(ctx, "a"); !errors.Is(err, ErrConnectionLost) {
			t.Fatalf("GetEntity without a server = %v; want ErrConnectionLost", err)
		}
	})
}

// loseConnection runs write through a graph whose connection it breaks,
// how, while the write waits for rows that another transaction holds, and
// checks the error.
func loseConnection(t *testing.T, direct *pgxpool.Pool, g *Graph, connect func(*testing.T, string) *Graph,
	how string, write func(context.Context, *Graph) error, proxy *cutProxy) {
	ctx := t.Context()
	// Start from the same rows each time: an earlier write may or may not
	// have been applied.
	if err := g.AddBatch(ctx, []kgmem.Entity{{ID: "a"}, {ID: "b"}}, []kgmem.Relation{{SourceID: "a", TargetID: "b", Type: "t", Weight: 1}}); err != nil {
		t.Fatal(err)
	}
	app := "kgmem-" + strings.ReplaceAll(t.Name(), "/", "-")
	via := connect(t, app)
	if _, _, err := via.GetEntity(ctx, "a"); err != nil { // connect before the rows are held
		t.Fatal(err)
	}
	// Hold the rows the write needs, so that it waits inside PostgreSQL
	// until the connection breaks.
	tx, err := direct.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Let the server finish with the broken session, whose statement
		// proceeds once the rows are free, before the next write starts.
		tx.Rollback(context.Background())
		waitForSessions(t, direct, app, "")
	}()
	for _, table := range []string{entitiesTable, relationsTable} {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM "+table+" WHERE namespace = $1 FOR UPDATE", g.Namespace()); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- write(ctx, via) }()
	waitForSessions(t, direct, app, "Lock")
	if how == "Cut" {
		proxy.cut()
	} else if _, err := direct.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the write did not return after its connection broke")
	}
	t.Log(err)
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("error %v does not wrap ErrConnectionLost", err)
	}
	for _, want := range []string{"connection to PostgreSQL lost during the write", "may or may not have been applied"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
	}
}

// waitForSessions waits until some session of the application app waits
// for a lock (wait "Lock"), or until none is left (wait "").
func waitForSessions(t *testing.T, pool *pgxpool.Pool, app, wait string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		err := pool.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND ($2 = '' OR wait_event_type = $2)", app, wait).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if (wait == "") == (n == 0) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	if wait == "" {
		t.Fatalf("sessions of %s still open after 30 s", app)
	}
	t.Fatalf("no session of %s waited for a lock within 30 s", app)
}

// needDSN returns the test database's URL.
func needDSN(t *testing.T) string {
	needDB(t)
	return testDSN
}

// TestInvalidOptions pins kgmem's policy for a bad option in New: an error
// wrapping kgmem.ErrInvalidArgument, never a panic, never the default.
func TestInvalidOptions(t *testing.T) {
	pool := needDB(t)
	for name, opt := range map[string]Option{
		"nil":             nil,
		"negative budget": WithPathBudget(-1),
		"negative tags":   WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: -1}),
	} {
		_, err := New(t.Context(), pool, WithNamespace("options"), opt)
		if !errors.Is(err, kgmem.ErrInvalidArgument) {
			t.Errorf("%s: New returned %v, want an error wrapping ErrInvalidArgument", name, err)
		}
	}
}
