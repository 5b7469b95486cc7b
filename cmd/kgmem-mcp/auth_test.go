package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testToken = "0123456789abcdef0123456789abcdef"

// authorized is a RoundTripper that sends every request with the header
// Authorization: value.
type authorized struct {
	value string
	next  http.RoundTripper
}

func (a authorized) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", a.value)
	return a.next.RoundTrip(r)
}

// Over HTTP with a token, a request without it, or with another, is
// answered 401 with a Bearer challenge and opens no session; one with it
// is served.
func TestBearerToken(t *testing.T) {
	srv, url := startHTTP(t, httpOptions{token: testToken, maxSessions: 1})
	c, _ := newClient(t)
	send := func(authz string) exchange {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeLine(1)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return exchange{status: resp.StatusCode, sessionID: resp.Header.Get("Mcp-Session-Id"), header: resp.Header, body: string(b)}
	}
	tests := []struct {
		authz, challenge, message string
	}{
		{"", `Bearer realm="kgmem-mcp"`, "send the server's token in an Authorization: Bearer header"},
		{"Basic " + testToken, `Bearer realm="kgmem-mcp"`, "send the server's token"},
		{"Bearer", `Bearer realm="kgmem-mcp", error="invalid_token"`, "the bearer token is not the server's"},
		{"Bearer " + testToken[:31], `Bearer realm="kgmem-mcp", error="invalid_token"`, "the bearer token is not the server's"},
		{"Bearer " + testToken + "0", `Bearer realm="kgmem-mcp", error="invalid_token"`, "the bearer token is not the server's"},
	}
	for _, tt := range tests {
		ex := send(tt.authz)
		assert.Equal(t, http.StatusUnauthorized, ex.status, "%q", tt.authz)
		assert.Equal(t, tt.challenge, ex.header.Get("WWW-Authenticate"), "%q", tt.authz)
		assert.Contains(t, ex.body, tt.message, "%q", tt.authz)
		assert.Empty(t, ex.sessionID)
	}
	assert.Zero(t, liveSessions(srv), "a refused request opened a session")

	// The scheme's case does not matter.
	ex := send("bearer " + testToken)
	assert.Equal(t, http.StatusOK, ex.status, "%s", ex.body)
	assert.NotEmpty(t, ex.sessionID)
}

// The SDK's client, given the token, uses the tools over HTTP; without
// it, it cannot connect.
func TestBearerTokenClient(t *testing.T) {
	_, url := startHTTP(t, httpOptions{token: testToken})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	connectWith := func(authz string) (*mcp.ClientSession, error) {
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		hc := &http.Client{Transport: authorized{authz, tr}}
		return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	}
	_, err := connectWith("Bearer wrong-token-wrong-token")
	require.Error(t, err)

	cs, err := connectWith("Bearer " + testToken)
	require.NoError(t, err)
	defer cs.Close()
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "John_Smith", "entityType": "person", "observations": []any{"Speaks fluent Spanish"}}}}, nil)
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "Who speaks Spanish?"}, &rec)
	require.NotEmpty(t, rec.Items)
	assert.Equal(t, "John_Smith", rec.Items[0].Name)
}

func TestCheckToken(t *testing.T) {
	for token, want := range map[string]string{
		testToken:                    "",
		"0123456789abcdef":           "",
		"0123456789abcde":            "the token is 15 bytes, fewer than 16",
		"0123456789 abcdef":          "blank",
		"0123456789abcdef\n":         "control character",
		"0123456789abcdefé":          "non-ASCII",
		"":                           "the token is 0 bytes",
		"!#$%&'()*+,-./:;<=>?@[]^_`": "",
	} {
		err := checkToken(token)
		if want == "" {
			assert.NoError(t, err, "%q", token)
		} else {
			assert.ErrorContains(t, err, want, "%q", token)
		}
	}
}

func TestRunToken(t *testing.T) {
	t.Setenv(tokenEnv, "")
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	// -no-auth: loopback only.
	assert.ErrorContains(t, run([]string{"-dir", t.TempDir(), "-http", "0.0.0.0:0", "-no-auth"}), "with -no-auth, which requires no token, the host must be a loopback address")
	// A short token, from the flag or the environment.
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-http", "127.0.0.1:0", "-token", "short"}),
		"-token: the token is 5 bytes, fewer than 16: use a random one, such as the output of openssl rand -hex 32")
	t.Setenv(tokenEnv, "short")
	assert.ErrorContains(t, run([]string{"-dir", t.TempDir(), "-http", "127.0.0.1:0"}), "the token is 5 bytes")
	// With a token, any address: run gets past the address to open the
	// memory (here a file, which fails).
	t.Setenv(tokenEnv, testToken)
	err := run([]string{"-dir", file, "-http", "0.0.0.0:0"})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "loopback")
	// -token is for HTTP; the environment is ignored over stdio.
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-token", testToken}),
		"-token, -tokens and -no-auth are for -http: over stdio the server answers the one client that started it")
}

func TestMemoryDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wd, err := os.Getwd()
	require.NoError(t, err)
	for dir, want := range map[string]string{
		"~":                home,
		"~/":               home,
		"~/.kgmem/work":    filepath.Join(home, ".kgmem", "work"),
		"mem":              filepath.Join(wd, "mem"),
		"/abs/~/x":         "/abs/~/x",
		"./~/x":            filepath.Join(wd, "~", "x"),
		"~bob/x":           "",
		"~~":               "",
		"/tmp/../tmp/mem/": "/tmp/mem",
	} {
		got, err := memoryDir(dir)
		if want == "" {
			assert.ErrorContains(t, err, "only ~ and ~/ are expanded", "%q", dir)
			continue
		}
		require.NoError(t, err, "%q", dir)
		assert.Equal(t, want, got, "%q", dir)
	}
}

// -h and -version exit 0; a bad command line exits 1.
func TestCommandLine(t *testing.T) {
	bin := buildServer(t)
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"-version"}, 0, "kgmem-mcp " + Version + "\n", ""},
		{[]string{"-h"}, 0, "", "Usage of kgmem-mcp:"},
		{[]string{"-help"}, 0, "", "-token string"},
		{nil, 1, "", "-dir is required"},
		{[]string{"-nope"}, 1, "", "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		cmd := exec.Command(bin, tt.args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		assert.Equal(t, tt.code, code, "%v: %s", tt.args, stderr.String())
		assert.Equal(t, tt.stdout, stdout.String(), "%v", tt.args)
		assert.Contains(t, stderr.String(), tt.stderr, "%v", tt.args)
	}
}
