package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildServer builds the kgmem-mcp binary, once for all the tests that run
// it, into a directory TestMain removes; it skips the test under -short or
// without a go command.
func buildServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped under -short")
	}
	built.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			built.skip = "no go command to build the server with"
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "kgmem-mcp-test-"); built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "kgmem-mcp")
		if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.skip != "" {
		t.Skip(built.skip)
	}
	require.NoError(t, built.err)
	return built.bin
}

var built struct {
	once           sync.Once
	dir, bin, skip string
	err            error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// The server as an MCP client runs it: a separate process speaking over
// stdin and stdout. A second process started on the same directory after
// the first exits finds what the first remembered.
func TestStdioSubprocess(t *testing.T) {
	bin := buildServer(t)
	dir := filepath.Join(t.TempDir(), "memory")

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
	// A client written for the reference memory server.
	call(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "John_Smith", "entityType": "person", "observations": []any{"Speaks fluent Spanish"}}}}, nil)
	require.NoError(t, cs.Close())

	cs = session()
	defer cs.Close()
	var rec RecallOutput
	call(t, cs, "recall", map[string]any{"query": "张三负责什么项目？", "max_results": 1}, &rec)
	require.Len(t, rec.Items, 1)
	assert.Equal(t, "chat-42", rec.Items[0].ID)
	var g KnowledgeGraph
	call(t, cs, "search_nodes", map[string]any{"query": "Spanish"}, &g)
	assert.Equal(t, KnowledgeGraph{Entities: []RefEntity{john("Speaks fluent Spanish")}, Relations: []RefRelation{}}, g)
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
	go func() { done <- serveHTTP(ctx, NewServer(mem, ""), ln, httpOptions{}) }()

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
	assert.ErrorContains(t, run([]string{"-dir", t.TempDir(), "-http", "0.0.0.0:0", "-no-auth"}), "loopback")
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-http", "127.0.0.1:0", "-session-timeout", "-1s"}), "-session-timeout -1s is negative")
	assert.EqualError(t, run([]string{"-dir", t.TempDir(), "-http", "127.0.0.1:0", "-max-sessions", "-1"}), "-max-sessions -1 is negative")
}

// initializeLine is an initialize request with the given id, on one line.
func initializeLine(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`, id)
}

// lineReader hands the lines read from r to next, which waits for one at
// most 30 seconds.
type lineReader struct {
	lines chan string
}

func readLines(r io.Reader) *lineReader {
	lr := &lineReader{lines: make(chan string, 16)}
	go func() {
		defer close(lr.lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lr.lines <- sc.Text()
		}
	}()
	return lr
}

// next returns the next line, or false when the output ended.
func (lr *lineReader) next(t *testing.T) (string, bool) {
	t.Helper()
	select {
	case l, ok := <-lr.lines:
		return l, ok
	case <-time.After(30 * time.Second):
		t.Fatal("no line within 30s")
		return "", false
	}
}

// Over stdio a line that is not JSON is answered with a JSON-RPC parse
// error whose id is null, and the server reads on: the request on the
// next line is answered.
func TestStdioMalformedLine(t *testing.T) {
	bin := buildServer(t)
	cmd := exec.Command(bin, "-dir", filepath.Join(t.TempDir(), "memory"))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := false
	wait := func() error {
		exited = true
		return cmd.Wait()
	}
	t.Cleanup(func() {
		if !exited {
			cmd.Process.Kill()
			wait()
		}
	})
	out := readLines(stdout)
	answer := func() string {
		t.Helper()
		l, ok := out.next(t)
		if !ok {
			err := wait()
			t.Fatalf("the server's output ended (exit: %v); stderr: %s", err, stderr.String())
		}
		return l
	}

	_, err = io.WriteString(stdin, "{not json\n"+initializeLine(1)+"\n")
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character 'n' looking for beginning of object key string"}}`, answer())
	var init struct {
		ID     int `json:"id"`
		Result struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(answer()), &init))
	assert.Equal(t, 1, init.ID)
	assert.Equal(t, "kgmem", init.Result.ServerInfo.Name)

	// And again within the session.
	_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n]\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character ']' looking for beginning of value"}}`, answer())
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, answer())

	require.NoError(t, stdin.Close())
	_, ok := out.next(t)
	assert.False(t, ok, "output after stdin closed")
	assert.NoError(t, wait(), "stderr: %s", stderr.String())
}

// Every line that is not a JSON-RPC message gets an error with id null,
// and the ping after it its answer; blank lines get nothing.
func TestStdioTransportLines(t *testing.T) {
	mem := openMemory(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := NewServer(mem, "").Connect(context.Background(), newStdioTransport(inR, outW, 256), nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	out := readLines(outR)
	const (
		parse   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: `
		invalid = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: `
	)
	tests := []struct{ line, want string }{
		{"{not json", parse + `invalid character 'n' looking for beginning of object key string"}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, parse + `invalid character '{' after top-level value"}}`},
		{"\xff", parse + `invalid character 'ÿ' looking for beginning of value"}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, parse + `unexpected end of JSON input"}}`},
		{`[]`, invalid + `JSON-RPC batches are not supported: send one message a line"}}`},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, invalid + `JSON-RPC batches are not supported: send one message a line"}}`},
		{`{}`, invalid + `not a JSON-RPC 2.0 message: invalid message version tag \"\"; expected \"2.0\""}}`},
		{`"ping"`, invalid + `not a JSON-RPC 2.0 message`},
		{`null`, invalid + `not a JSON-RPC 2.0 message`},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, invalid + `not a JSON-RPC 2.0 message`},
		{`{"jsonrpc":"2.0"}`, invalid + `not a JSON-RPC 2.0 message`},
		{strings.Repeat("x", 257), invalid + `a line longer than 256 bytes"}}`},
		{strings.Repeat(" ", 300) + "{}", invalid + `a line longer than 256 bytes"}}`},
	}
	id := 100
	for _, tt := range tests {
		id++
		_, err := fmt.Fprintf(inW, "%s\n\n  \t\n{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", tt.line, id)
		require.NoError(t, err)
		got, ok := out.next(t)
		require.True(t, ok, "the output ended after %q", tt.line)
		if strings.HasSuffix(tt.want, "}}") {
			assert.Equal(t, tt.want, got, "%q", tt.line)
		} else {
			assert.True(t, strings.HasPrefix(got, tt.want) && strings.HasSuffix(got, `"}}`), "%q: %s", tt.line, got)
		}
		got, ok = out.next(t)
		require.True(t, ok, "the output ended after %q", tt.line)
		assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id), got, "the ping after %q", tt.line)
	}

	// Blanks around a message and CRLF endings are read as the message; a
	// line of exactly the limit is read.
	_, err = io.WriteString(inW, "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} \t\r\n")
	require.NoError(t, err)
	got, _ := out.next(t)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, got)
	prefix, suffix := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x":"`, `"}}}`
	long := prefix + strings.Repeat("y", 256-len(prefix)-len(suffix)) + suffix
	require.Len(t, long, 256)
	_, err = io.WriteString(inW, long+"\n")
	require.NoError(t, err)
	got, _ = out.next(t)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, got)

	// At the end of the input the session ends.
	require.NoError(t, inW.Close())
	waited := make(chan error, 1)
	go func() { waited <- ss.Wait() }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end at the end of its input")
	}
	_, ok := out.next(t)
	assert.False(t, ok, "output after the session ended")
}

// The reader under the SDK's transport gives it the messages, each on a
// line of its own, and answers the rest; the last line needs no newline.
func TestMessageReader(t *testing.T) {
	var out bytes.Buffer
	in := "\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n" +
		"x\n" + strings.Repeat("y", 61) + "\n" +
		"  {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}  \n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"
	r := &messageReader{in: io.NopCloser(nil), br: bufio.NewReaderSize(strings.NewReader(in), 16), out: &syncWriter{w: nopCloser{&out}}, max: 60}
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", string(got))
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character 'x' looking for beginning of value"}}`+"\n"+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a line longer than 60 bytes"}}`+"\n", out.String())
}
