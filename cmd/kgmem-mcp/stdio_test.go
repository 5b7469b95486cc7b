package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server as an MCP client runs it: a separate process speaking over
// stdin and stdout. A second process started on the same directory after
// the first exits finds what the first remembered.
func TestStdioSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped under -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the server with")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "kgmem-mcp")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	dir := filepath.Join(tmp, "memory")

	session := func() *mcp.ClientSession {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "-dir", dir)}, nil)
		require.NoError(t, err)
		return cs
	}

	cs := session()
	assert.Equal(t, "kgmem", cs.InitializeResult().ServerInfo.Name)
	remember(t, cs)
	require.NoError(t, cs.Close())

	cs = session()
	defer cs.Close()
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "张三负责什么项目？", "max_results": 1}, &rec)
	require.Len(t, rec.Items, 1)
	assert.Equal(t, "chat-42", rec.Items[0].ID)
	assert.Contains(t, callErr(t, cs, "related", map[string]any{"entity_id": "nobody"}), `unknown entity "nobody"`)
}

// The same tools over streamable HTTP on a loopback port; the server
// stops when its context ends.
func TestHTTP(t *testing.T) {
	mem := openMemory(t)
	ln, err := listenLoopback("127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, NewServer(mem, ""), ln) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String(), DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	remember(t, cs)
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "张三负责什么项目？", "max_results": 1}, &rec)
	assert.Equal(t, "chat-42", rec.Items[0].ID)
	require.NoError(t, cs.Close())
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serveHTTP did not return after its context ended")
	}
}

func TestRunFlags(t *testing.T) {
	assert.ErrorContains(t, run(nil), "-dir is required")
	assert.ErrorContains(t, run([]string{"-dir", t.TempDir(), "extra"}), "no arguments")
	assert.ErrorContains(t, run([]string{"-dir", t.TempDir(), "-http", "0.0.0.0:0"}), "loopback")
}
