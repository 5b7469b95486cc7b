package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The defaults of -session-timeout and -max-sessions.
const (
	defaultSessionTimeout = 30 * time.Minute
	defaultMaxSessions    = 1000
)

// httpOptions configure serveHTTP.
type httpOptions struct {
	// sessionTimeout closes a session that no request has come in for
	// this long (mcp.StreamableHTTPOptions.SessionTimeout); 0: never.
	sessionTimeout time.Duration
	// maxSessions bounds the sessions open at once; 0: no bound.
	maxSessions int
	// token, when not "", is the bearer token every request must carry
	// (see bearerAuth), allowed every scope.
	token string
	// tokens, when not nil, are the tokens a request may carry, each
	// allowed its scopes; they take the place of token.
	tokens *tokenSet
}

// serveHTTP serves srv over streamable HTTP on ln until ctx is done, then
// shuts down: requests see ctx end, connections still busy 5 seconds
// later are closed, and then the sessions still open. Ending through ctx
// is not an error.
func serveHTTP(ctx context.Context, srv *mcp.Server, ln net.Listener, o httpOptions) error {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: o.sessionTimeout})
	if o.maxSessions > 0 {
		h = &sessionLimit{next: h, srv: srv, max: o.maxSessions, timeout: o.sessionTimeout}
	}
	tokens := o.tokens
	if tokens == nil && o.token != "" {
		tokens = singleToken(o.token)
	}
	if tokens != nil {
		// Outermost: a request without a token opens no session and
		// takes no place under the bound.
		h = newBearerAuth(h, tokens)
	}
	// Requests run under ctx, so that when it ends the handlers of open
	// streams return and Shutdown does not wait on them.
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	defer func() {
		for ss := range srv.Sessions() {
			ss.Close()
		}
	}()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			// A connection still busy after the grace period is cut.
			hs.Close()
		}
		<-errc // http.ErrServerClosed
		return nil
	}
}

// A sessionLimit refuses a request that would open a session beyond max
// (a POST without an Mcp-Session-Id header, which the SDK's handler
// answers with a new session) with 503 Service Unavailable and a JSON-RPC
// error saying why; the other requests, those in the open sessions
// included, go to next. The sessions counted are those of srv, which the
// SDK removes as they close (by a DELETE, the idle timeout or an
// initialize that failed), and the requests that may be opening one, so
// that concurrent requests cannot open more than max. (A session is
// counted twice while the request that opened it is being answered, so a
// request concurrent with it may be refused just under the bound.)
type sessionLimit struct {
	next    http.Handler
	srv     *mcp.Server
	max     int
	timeout time.Duration // for the refusal's advice

	mu      sync.Mutex
	opening int // requests passed on that may open a session
}

func (l *sessionLimit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		l.next.ServeHTTP(w, r)
		return
	}
	if !l.admit() {
		l.refuse(w)
		return
	}
	defer func() {
		l.mu.Lock()
		l.opening--
		l.mu.Unlock()
	}()
	l.next.ServeHTTP(w, r)
}

// admit reports whether a request may open a session, and counts it
// until it is served if so.
func (l *sessionLimit) admit() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.opening
	for range l.srv.Sessions() {
		n++
	}
	if n >= l.max {
		return false
	}
	l.opening++
	return true
}

// refuse answers a request that would open a session beyond the bound.
func (l *sessionLimit) refuse(w http.ResponseWriter) {
	advice := "or start the server with a larger -max-sessions"
	if l.timeout > 0 {
		advice = fmt.Sprintf("or wait until one has been idle for -session-timeout (%v)", l.timeout)
	}
	msg := fmt.Sprintf("too many sessions: %d are open, the most -max-sessions allows; "+
		"end one (an HTTP DELETE with its Mcp-Session-Id), %s", l.max, advice)
	body, _ := json.Marshal(errorAnswer{JSONRPC: "2.0", Error: jsonrpc.Error{Code: -32000, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(append(body, '\n'))
}
