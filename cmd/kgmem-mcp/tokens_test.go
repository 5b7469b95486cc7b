package main

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tokens of the tests: one per scope, and one for every scope.
const (
	tokenA   = "token-for-scope-a-0123456789"
	tokenB   = "token-for-scope-b-0123456789"
	tokenAll = "token-for-every-scope-012345"
)

// grantOf is what a test compares of a grant.
type grantOf struct {
	line   int
	all    bool
	scopes []string
}

func TestParseTokens(t *testing.T) {
	tests := []struct {
		name, file string
		want       map[string]grantOf // by token
	}{
		{"one token, every scope", "0123456789abcdef *\n", map[string]grantOf{"0123456789abcdef": {1, true, nil}}},
		{"comments, blanks, tabs and CRLF",
			"# tokens\n\n   # indented comment\r\n" + tokenA + "\ta  shared\r\n" + tokenB + " b\n",
			map[string]grantOf{tokenA: {4, false, []string{"a", "shared"}}, tokenB: {5, false, []string{"b"}}}},
		{"quoted scopes", tokenA + ` "team a" "*" "#x" "q\"" a a` + "\n",
			map[string]grantOf{tokenA: {1, false, []string{"team a", "*", "#x", `q"`, "a"}}}},
		{"a token holding #", "0123456789#abcdef b\n", map[string]grantOf{"0123456789#abcdef": {1, false, []string{"b"}}}},
		{"no final newline", tokenAll + " *", map[string]grantOf{tokenAll: {1, true, nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := parseTokens(strings.NewReader(tt.file))
			require.NoError(t, err)
			got := map[string]grantOf{}
			for token := range tt.want {
				g := ts.lookup(token)
				require.NotNil(t, g, "%q", token)
				got[token] = grantOf{g.line, g.all, g.scopes}
			}
			assert.Equal(t, tt.want, got)
			assert.Len(t, ts.grants, len(tt.want))
			assert.Nil(t, ts.lookup("not-a-token-of-the-file"))
		})
	}
}

// A malformed line is an error that names it.
func TestParseTokensMalformed(t *testing.T) {
	tests := []struct{ file, err string }{
		{"", "no token in it"},
		{"# only a comment\n\n", "no token in it"},
		{"# c\n" + tokenA + "\n", "line 2: the token lists no scope"},
		{"short *\n", "line 1: the token is 5 bytes, fewer than 16"},
		{"0123456789abcdé *\n", "line 1: the token holds a blank, a control character or a non-ASCII byte"},
		{tokenA + " a\n" + tokenB + " b\n" + tokenA + " c\n", "line 3: the token of line 1 again"},
		{tokenA + " * a\n", "line 1: * is every scope: list no other with it"},
		{tokenA + ` ""` + "\n", "line 1: an empty scope"},
		{tokenA + ` "open` + "\n", "line 1: an unterminated or malformed quoted string"},
		{tokenA + ` "a"b` + "\n", `line 1: no blank after the quoted string "a"`},
		{tokenA + ` a"b` + "\n", `line 1: a"b holds a quote or a backslash`},
		{`"` + tokenA + `" *` + "\n", "line 1: the token is in quotes"},
		{tokenA + " " + strings.Repeat("s", kgmem.MaxScopeBytes+1) + "\n", "line 1: a scope longer than 128 bytes"},
		{"\n\n" + tokenA + " a\n" + strings.Repeat("x", 2<<20) + "\n", "line 4: longer than 1 MiB"},
	}
	for _, tt := range tests {
		_, err := parseTokens(strings.NewReader(tt.file))
		assert.ErrorContains(t, err, tt.err, "%.60q", tt.file)
	}
}

func TestTokensCheckScopes(t *testing.T) {
	ts, err := parseTokens(strings.NewReader(tokenAll + " *\n" + tokenA + " a\n" + tokenB + " b c\n"))
	require.NoError(t, err)
	assert.NoError(t, ts.checkScopes(true, nil))
	assert.NoError(t, ts.checkScopes(true, []string{"a", "b", "c"}))
	assert.EqualError(t, ts.checkScopes(true, []string{"a", "b"}), `line 3: scope "c" is not one -allow-scopes allows`)
	assert.EqualError(t, ts.checkScopes(false, nil), "line 2: the token lists scopes, which only a server started with -scopes serves: give it * instead")
	all, err := parseTokens(strings.NewReader(tokenAll + " *\n"))
	require.NoError(t, err)
	assert.NoError(t, all.checkScopes(false, nil))
}

// A tokens file that group or others may read or write is refused; one
// only its owner may is read.
func TestLoadTokensMode(t *testing.T) {
	for _, tt := range []struct {
		mode os.FileMode
		err  string
	}{
		{0o600, ""},
		{0o400, ""},
		{0o640, "mode 0640 lets group or others read or write it"},
		{0o604, "mode 0604 lets group or others read or write it"},
		{0o620, "mode 0620 lets group or others read or write it"},
		{0o644, "mode 0644 lets group or others read or write it, and so use its tokens: chmod 600 "},
	} {
		path := filepath.Join(t.TempDir(), "tokens")
		require.NoError(t, os.WriteFile(path, []byte(tokenA+" a\n"), 0o600))
		require.NoError(t, os.Chmod(path, tt.mode))
		var stderr bytes.Buffer
		ts, err := loadTokens(path, &stderr)
		if tt.err == "" {
			require.NoError(t, err, "%04o", tt.mode)
			assert.NotNil(t, ts.lookup(tokenA))
		} else {
			assert.ErrorContains(t, err, tt.err, "%04o", tt.mode)
			assert.ErrorContains(t, err, path, "%04o", tt.mode)
		}
		assert.Empty(t, stderr.String())
	}
	// Not a regular file.
	_, err := loadTokens(t.TempDir(), new(bytes.Buffer))
	assert.ErrorContains(t, err, "not a regular file")
	// A malformed file names its path and the line.
	path := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(path, []byte("# c\n"+tokenA+"\n"), 0o600))
	_, err = loadTokens(path, new(bytes.Buffer))
	assert.EqualError(t, err, "tokens file "+path+": line 2: the token lists no scope: list the scopes it may use after it, or * for every one")
}

// tokenLine is the line that prints the token of a new tokens file.
var tokenLine = regexp.MustCompile(`(?m)^[0-9a-f]{64}$`)

// On first start the tokens file is created, mode 0600, with one random
// token allowed every scope, printed once; later loads print nothing and
// read the same token.
func TestLoadTokensCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	var stderr bytes.Buffer
	ts, err := loadTokens(path, &stderr)
	require.NoError(t, err)
	printed := tokenLine.FindAllString(stderr.String(), -1)
	require.Len(t, printed, 1, "%s", stderr.String())
	token := printed[0]
	assert.Contains(t, stderr.String(), "created the tokens file "+path+" with one token, allowed every scope")
	g := ts.lookup(token)
	require.NotNil(t, g)
	assert.True(t, g.all)

	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), tokensHeader))
	assert.True(t, strings.HasSuffix(string(b), "\n"+token+" *\n"))

	stderr.Reset()
	again, err := loadTokens(path, &stderr)
	require.NoError(t, err)
	assert.Empty(t, stderr.String())
	require.Len(t, again.grants, 1)
	assert.NotNil(t, again.lookup(token))

	// Each new file has a token of its own.
	stderr.Reset()
	_, err = loadTokens(filepath.Join(t.TempDir(), "tokens"), &stderr)
	require.NoError(t, err)
	other := tokenLine.FindString(stderr.String())
	assert.NotEmpty(t, other)
	assert.NotEqual(t, token, other)

	// A directory that does not exist is an error, and creates nothing.
	_, err = loadTokens(filepath.Join(t.TempDir(), "missing", "tokens"), &stderr)
	assert.ErrorContains(t, err, "tokens file: open")
}

// startScopedHTTP serves ms's scopes over streamable HTTP on a loopback
// port, with tokens, until the test ends, and returns its URL.
func startScopedHTTP(t *testing.T, ms *kgmem.Memories, tokens *tokenSet) string {
	t.Helper()
	srv, err := NewScopedServer(ms, "", ScopeOptions{})
	require.NoError(t, err)
	ln, err := listenLoopback("127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, srv, ln, httpOptions{tokens: tokens}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("serveHTTP did not return after its context ended")
		}
	})
	return "http://" + ln.Addr().String()
}

// connectHTTP connects the SDK's client to url with the token, and
// returns the session, which it closes when the test ends.
func connectHTTP(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: authorized{"Bearer " + token, tr}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// scopeCalls is a call of every tool that takes a scope, on the entity
// Frank and the page p.
var scopeCalls = []struct {
	tool string
	args map[string]any
}{
	{"remember", map[string]any{"page_id": "q", "content": "Frank moved."}},
	{"recall", map[string]any{"query": "Who speaks Spanish?"}},
	{"related", map[string]any{"entity_id": "Frank"}},
	{"paths", map[string]any{"from": "Frank", "to": "Frank"}},
	{"history", map[string]any{"entity": "Frank"}},
	{"forget", map[string]any{"page_id": "p"}},
	{"draw", map[string]any{"query": "Frank"}},
	{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "Mallory", "entityType": "person", "observations": []any{"Was here"}}}}},
	{"create_relations", map[string]any{"relations": []any{map[string]any{"from": "Frank", "to": "Frank", "relationType": "knows"}}}},
	{"add_observations", map[string]any{"observations": []any{map[string]any{"entityName": "Frank", "contents": []any{"Was here"}}}}},
	{"delete_entities", map[string]any{"entityNames": []any{"Frank"}}},
	{"delete_observations", map[string]any{"deletions": []any{map[string]any{"entityName": "Frank", "observations": []any{"Speaks Spanish"}}}}},
	{"delete_relations", map[string]any{"relations": []any{map[string]any{"from": "Frank", "to": "Gil", "relationType": "knows"}}}},
	{"read_graph", map[string]any{}},
	{"search_nodes", map[string]any{"query": "Frank"}},
	{"open_nodes", map[string]any{"names": []any{"Frank"}}},
}

// Over HTTP, a token for scope a cannot read, write, list or learn the
// existence of scope b, by any tool: every call naming b reads the error
// of a call naming a scope that does not exist, and b is left as it was.
// A call naming no scope uses a, the token's first scope; list_scopes and
// recall's items show a alone. A session opened with one token is closed
// to another.
func TestTokenScopesHTTP(t *testing.T) {
	ctx := context.Background()
	ms := openMemories(t)
	tokens, err := parseTokens(strings.NewReader(tokenA + " a\n" + tokenB + " b\n" + tokenAll + " *\n"))
	require.NoError(t, err)
	url := startScopedHTTP(t, ms, tokens)

	b := connectHTTP(t, url, tokenB)
	call(t, b, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Frank", "entityType": "person", "observations": []any{"Speaks Spanish"}},
		map[string]any{"name": "Gil", "entityType": "person", "observations": []any{}}}}, nil)
	call(t, b, "create_relations", map[string]any{"relations": []any{map[string]any{"from": "Frank", "to": "Gil", "relationType": "knows"}}}, nil)
	call(t, b, "remember", map[string]any{"page_id": "p", "title": "Plans", "content": "Frank speaks Spanish with Gil."}, nil)
	var graphB KnowledgeGraph
	call(t, b, "read_graph", nil, &graphB)
	require.Len(t, graphB.Entities, 2)

	a := connectHTTP(t, url, tokenA)
	call(t, a, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Alice", "entityType": "person", "observations": []any{"Speaks Spanish too"}}}}, nil)

	tools, err := a.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, len(scopeCalls)+1) // and list_scopes
	for _, c := range scopeCalls {
		want := callErr(t, a, c.tool, scoped("nowhere", c.args))
		assert.Equal(t, c.tool+": "+errScopeRefused, want, c.tool)
		assert.Equal(t, want, callErr(t, a, c.tool, scoped("b", c.args)), c.tool)
	}
	for _, scopes := range [][]any{{"a", "b"}, {"b"}, {"b", "nowhere"}} {
		assert.Equal(t, "recall: "+errScopeRefused, callErr(t, a, "recall", map[string]any{"query": "Who speaks Spanish?", "scopes": scopes}), "%v", scopes)
	}

	// What a sees: a alone.
	var list ListScopesOutput
	call(t, a, "list_scopes", nil, &list)
	assert.Equal(t, ListScopesOutput{Scopes: []string{"a"}, Default: "a"}, list)
	var graphA KnowledgeGraph
	call(t, a, "read_graph", nil, &graphA)
	assert.Equal(t, []RefEntity{{Name: "Alice", EntityType: "person", Observations: []string{"Speaks Spanish too"}}}, graphA.Entities)
	var rec RecallOutput
	call(t, a, "recall", map[string]any{"query": "Who speaks Spanish?", "scopes": []any{"a"}}, &rec)
	require.NotEmpty(t, rec.Items)
	for _, it := range rec.Items {
		assert.Equal(t, "a", it.Scope, it.ID)
	}

	// b is as it was, and no scope was created.
	var after KnowledgeGraph
	call(t, b, "read_graph", nil, &after)
	assert.Equal(t, graphB, after)
	got, err := ms.Scopes(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, got)

	// The token for every scope sees both, and may name a new one.
	all := connectHTTP(t, url, tokenAll)
	call(t, all, "list_scopes", nil, &list)
	assert.Equal(t, ListScopesOutput{Scopes: []string{"a", "b"}, Default: DefaultScope, Open: true}, list)
	call(t, all, "recall", map[string]any{"query": "Who speaks Spanish?", "scopes": []any{"a", "b"}}, &rec)
	seen := map[string]bool{}
	for _, it := range rec.Items {
		seen[it.Scope] = true
	}
	assert.Equal(t, map[string]bool{"a": true, "b": true}, seen)

	// A session is the token's that opened it: another token, valid or
	// not, cannot use it.
	c, _ := newClient(t)
	var sessionA string
	send := func(token, sessionID, body string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if sessionID != "" {
			req.Header.Set("Mcp-Session-Id", sessionID)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		if sessionID == "" {
			sessionA = resp.Header.Get("Mcp-Session-Id")
		}
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, send(tokenA, "", initializeLine(1)))
	require.NotEmpty(t, sessionA)
	readGraph := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}`
	assert.Equal(t, http.StatusForbidden, send(tokenB, sessionA, readGraph))
	assert.Equal(t, http.StatusUnauthorized, send("not-a-token-of-the-server", sessionA, readGraph))
	assert.Equal(t, http.StatusOK, send(tokenA, sessionA, readGraph))
}

// The server binary over HTTP with the default tokens file: the first
// start creates it in -dir, mode 0600, and prints its one token; a client
// with the token is served, one without is answered 401 with a Bearer
// challenge; a second start prints no token and takes the same one.
func TestRunTokensFile(t *testing.T) {
	bin := buildServer(t)
	t.Setenv(tokenEnv, "")
	dir := filepath.Join(t.TempDir(), "memories")
	// start starts the server and returns its URL, what it printed until
	// it served, and a function that stops it.
	start := func() (url, stderr string, stop func()) {
		t.Helper()
		cmd := exec.Command(bin, "-dir", dir, "-scopes", "-http", "127.0.0.1:0")
		pipe, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		stopped := false
		stop = func() {
			if !stopped {
				stopped = true
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
			}
		}
		t.Cleanup(stop)
		var b strings.Builder
		sc := bufio.NewScanner(pipe)
		serving := regexp.MustCompile(`serving streamable HTTP on (http://\S+) `)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				go func() {
					for sc.Scan() {
					}
				}()
				return m[1], b.String(), stop
			}
		}
		t.Fatalf("the server did not start: %s", b.String())
		return "", "", stop
	}
	url, stderr, stop := start()
	printed := tokenLine.FindAllString(stderr, -1)
	require.Len(t, printed, 1, "%s", stderr)
	token := printed[0]
	path := filepath.Join(dir, defaultTokensFile)
	assert.Contains(t, stderr, "created the tokens file "+path)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	c, _ := newClient(t)
	ex, err := post(c, url, "", initializeLine(1))
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, ex.status)
	assert.Equal(t, `Bearer realm="kgmem-mcp"`, ex.header.Get("WWW-Authenticate"))
	cs := connectHTTP(t, url, token)
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "Alice", "entityType": "person", "observations": []any{"Speaks Spanish"}}}}, nil)
	require.NoError(t, cs.Close())
	stop()

	url, stderr, _ = start()
	assert.Empty(t, tokenLine.FindAllString(stderr, -1), "%s", stderr)
	assert.NotContains(t, stderr, "created the tokens file")
	assert.Contains(t, stderr, "bearer token required: 1 in "+path)
	cs = connectHTTP(t, url, token)
	var list ListScopesOutput
	call(t, cs, "list_scopes", nil, &list)
	assert.Equal(t, ListScopesOutput{Scopes: []string{DefaultScope}, Default: DefaultScope, Open: true}, list)

	// A tokens file others may read stops the server before it serves.
	require.NoError(t, os.Chmod(path, 0o644))
	out, err := exec.Command(bin, "-dir", t.TempDir(), "-http", "127.0.0.1:0", "-tokens", path).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "mode 0644 lets group or others read or write it")
}

func TestRunTokensFlags(t *testing.T) {
	t.Setenv(tokenEnv, "")
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"-tokens", "x"}, "-token, -tokens and -no-auth are for -http"},
		{[]string{"-no-auth"}, "-token, -tokens and -no-auth are for -http"},
		{[]string{"-http", "127.0.0.1:0", "-no-auth", "-tokens", "x"}, "-no-auth requires no token"},
		{[]string{"-http", "127.0.0.1:0", "-no-auth", "-token", testToken}, "-no-auth requires no token"},
		{[]string{"-http", "127.0.0.1:0", "-token", testToken, "-tokens", "x"}, "-token and -tokens: give one"},
		{[]string{"-http", "127.0.0.1:0", "-tokens", "~bob/tokens"}, `-tokens "~bob/tokens": only ~ and ~/ are expanded`},
	} {
		assert.ErrorContains(t, run(append([]string{"-dir", dir}, tt.args...)), tt.err, "%v", tt.args)
	}
	// A token that lists scopes needs -scopes, and scopes -allow-scopes
	// allows.
	path := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(path, []byte(tokenA+" a\n"), 0o600))
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-http", "127.0.0.1:0", "-tokens", path}),
		"tokens file "+path+": line 1: the token lists scopes, which only a server started with -scopes serves: give it * instead")
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-scopes", "-allow-scopes", "default,b", "-http", "127.0.0.1:0", "-tokens", path}),
		"tokens file "+path+`: line 1: scope "a" is not one -allow-scopes allows`)
}
