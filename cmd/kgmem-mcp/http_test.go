package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startHTTP serves a new memory over streamable HTTP on a loopback port
// until the test ends, and returns the server and its URL.
func startHTTP(t *testing.T, o httpOptions) (*mcp.Server, string) {
	t.Helper()
	srv := NewServer(openMemory(t), "")
	ln, err := listenLoopback("127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, srv, ln, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
			assert.Zero(t, liveSessions(srv), "sessions open after serveHTTP returned")
		case <-time.After(10 * time.Second):
			t.Error("serveHTTP did not return after its context ended")
		}
	})
	url := "http://" + ln.Addr().String()
	// Once a request is answered, the server's goroutines have started.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	_, err = do(c, http.MethodGet, url, "", "")
	require.NoError(t, err)
	return srv, url
}

// settledGoroutines returns the number of goroutines once it has not
// changed for 100ms (or after 5s).
func settledGoroutines() int {
	n, same := runtime.NumGoroutine(), 0
	for end := time.Now().Add(5 * time.Second); same < 10 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
		if m := runtime.NumGoroutine(); m == n {
			same++
		} else {
			n, same = m, 0
		}
	}
	return n
}

// newClient returns an HTTP client of its own connections, which it
// closes when the test ends, before the server shuts down.
func newClient(t *testing.T) (*http.Client, *http.Transport) {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}, tr
}

// exchange is one HTTP request and its response.
type exchange struct {
	status    int
	sessionID string // the Mcp-Session-Id the response gives
	header    http.Header
	body      string
}

// post sends the JSON-RPC message body in the session sessionID, or
// without a session when it is "".
func post(c *http.Client, url, sessionID, body string) (exchange, error) {
	return do(c, http.MethodPost, url, sessionID, body)
}

func do(c *http.Client, method, url, sessionID, body string) (exchange, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return exchange{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := c.Do(req)
	if err != nil {
		return exchange{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return exchange{status: resp.StatusCode, sessionID: resp.Header.Get("Mcp-Session-Id"), header: resp.Header, body: string(b)}, err
}

// open starts a session with an initialize request and never comes back
// to it; it returns the session ID.
func open(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	ex, err := post(c, url, "", initializeLine(1))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, ex.status, "%s", ex.body)
	require.NotEmpty(t, ex.sessionID)
	return ex.sessionID
}

func liveSessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// eventually reports whether cond holds within d, polling it.
func eventually(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// Sessions that are never used again are closed after the idle timeout:
// the server holds none of them, nor their goroutines, and their IDs are
// unknown.
func TestHTTPIdleSessionsExpire(t *testing.T) {
	const n, timeout = 200, 250 * time.Millisecond
	srv, url := startHTTP(t, httpOptions{sessionTimeout: timeout, maxSessions: defaultMaxSessions})
	c, tr := newClient(t)
	baseline := settledGoroutines()

	ids := map[string]bool{}
	for range n {
		ids[open(t, c, url)] = true
	}
	require.Len(t, ids, n)
	assert.True(t, eventually(10*time.Second, func() bool { return liveSessions(srv) == 0 }),
		"%d of %d sessions still open 10s after the last request (idle timeout %v)", liveSessions(srv), n, timeout)
	for id := range ids {
		ex, err := post(c, url, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		require.NoError(t, err)
		assert.Equal(t, http.StatusNotFound, ex.status, "a request in an expired session")
		assert.Equal(t, "session not found\n", ex.body)
		break
	}
	tr.CloseIdleConnections()
	assert.True(t, eventually(10*time.Second, func() bool { return runtime.NumGoroutine() <= baseline }),
		"%d goroutines 10s after the sessions expired, %d before they were opened", runtime.NumGoroutine(), baseline)
}

// At most maxSessions sessions are open at once: a request that would
// open one more is refused with 503 and a JSON-RPC error saying why,
// while the open sessions are served; a session that ends makes room.
func TestHTTPSessionBound(t *testing.T) {
	const bound = 20
	srv, url := startHTTP(t, httpOptions{maxSessions: bound})
	c, _ := newClient(t)
	var ids []string
	for range bound {
		ids = append(ids, open(t, c, url))
	}
	assert.Equal(t, bound, liveSessions(srv))

	refused := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"too many sessions: ` +
		`20 are open, the most -max-sessions allows; end one (an HTTP DELETE with its Mcp-Session-Id), ` +
		`or start the server with a larger -max-sessions"}}` + "\n"
	ex, err := post(c, url, "", initializeLine(1))
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, ex.status)
	assert.Equal(t, "application/json", ex.header.Get("Content-Type"))
	assert.Equal(t, refused, ex.body)
	assert.Empty(t, ex.sessionID)
	assert.Equal(t, bound, liveSessions(srv))

	// The open sessions are served.
	ex, err = post(c, url, ids[0], `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, ex.status)
	assert.Contains(t, ex.body, `{"jsonrpc":"2.0","id":2,"result":{}}`)

	// A session ended makes room for one.
	ex, err = do(c, http.MethodDelete, url, ids[0], "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, ex.status)
	assert.Equal(t, bound-1, liveSessions(srv))
	ids[0] = open(t, c, url)
	ex, err = post(c, url, "", initializeLine(1))
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, ex.status)

	// A request without a session that opens none (here: not JSON) takes
	// no room for good.
	for _, id := range ids[1:] {
		ex, err := do(c, http.MethodDelete, url, id, "")
		require.NoError(t, err)
		require.Equal(t, http.StatusNoContent, ex.status)
	}
	assert.Equal(t, 1, liveSessions(srv))
	for range 2 * bound {
		ex, err := post(c, url, "", "{not json")
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, ex.status, "%s", ex.body)
	}
	assert.Equal(t, 1, liveSessions(srv))

	// Concurrent requests open no more than the bound allows.
	const tries = 2 * bound
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
		errs     []error
	)
	for range tries {
		wg.Go(func() {
			ex, err := post(c, url, "", initializeLine(1))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			statuses[ex.status]++
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	assert.Equal(t, tries, statuses[http.StatusOK]+statuses[http.StatusServiceUnavailable], "%v", statuses)
	assert.LessOrEqual(t, statuses[http.StatusOK], bound-1, "%v", statuses)
	assert.Positive(t, statuses[http.StatusOK], "%v", statuses)
	assert.Equal(t, 1+statuses[http.StatusOK], liveSessions(srv))
}

// Sessions that expire make room under the bound.
func TestHTTPSessionBoundExpiry(t *testing.T) {
	const bound, timeout = 5, time.Second
	srv, url := startHTTP(t, httpOptions{sessionTimeout: timeout, maxSessions: bound})
	c, _ := newClient(t)
	start := time.Now()
	for range bound {
		open(t, c, url)
	}
	ex, err := post(c, url, "", initializeLine(1))
	require.NoError(t, err)
	require.Less(t, time.Since(start), timeout, "too slow to open %d sessions within their idle timeout", bound)
	assert.Equal(t, http.StatusServiceUnavailable, ex.status)
	assert.Contains(t, ex.body, fmt.Sprintf("%d are open, the most -max-sessions allows; end one (an HTTP DELETE with its Mcp-Session-Id), "+
		"or wait until one has been idle for -session-timeout (1s)", bound))
	require.True(t, eventually(10*time.Second, func() bool { return liveSessions(srv) == 0 }), "%d sessions open", liveSessions(srv))
	for range bound {
		open(t, c, url)
	}
}
