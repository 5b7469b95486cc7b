package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport carries MCP over newline-delimited JSON-RPC, one message
// a line, as mcp.StdioTransport does, and survives bad lines: where the
// SDK's transport ends the session on a line that is not a message, this
// one answers it with a JSON-RPC error whose id is null and reads the
// next line. The error is
//
//   - -32700 (parse error) for a line that is not JSON, or holds more than
//     one JSON value;
//   - -32600 (invalid request) for JSON that is not a JSON-RPC 2.0
//     message, for a JSON-RPC batch (an array: MCP has had no batches
//     since its 2025-06-18 revision, and the SDK ends a session on one
//     it does not take), and for a line longer than maxLine bytes, which
//     is skipped without being held in memory.
//
// Blank lines are skipped, and so are blanks around a message, CR of a
// CRLF line ending included. Every other line is passed to the SDK's
// transport as it is.
type stdioTransport struct {
	in      io.ReadCloser
	out     io.WriteCloser
	maxLine int
}

// newStdioTransport returns a transport that reads in and writes out;
// maxLine <= 0 means mcp.DefaultMaxLineLength. Closing the session
// closes in and out.
func newStdioTransport(in io.ReadCloser, out io.WriteCloser, maxLine int) *stdioTransport {
	if maxLine <= 0 {
		maxLine = mcp.DefaultMaxLineLength
	}
	return &stdioTransport{in: in, out: out, maxLine: maxLine}
}

// Connect implements mcp.Transport: the SDK's IOTransport over a reader
// that passes on only the lines it can decode.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &syncWriter{w: t.out}
	in := &messageReader{in: t.in, br: bufio.NewReaderSize(t.in, 64<<10), out: out, max: t.maxLine}
	// The reader bounds lines itself, and passes on no line longer than
	// maxLine bytes.
	return (&mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// A syncWriter serializes the writes of the SDK's transport, one message
// each, and those of the messageReader's error answers, so that no two
// lines mix.
type syncWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Close closes the underlying writer without waiting for a write in
// progress, which it may end.
func (s *syncWriter) Close() error { return s.w.Close() }

// A messageReader reads lines from br (which reads in) and gives those
// that hold a JSON-RPC message to its reader, each followed by a newline;
// it answers the others on out.
type messageReader struct {
	in   io.Closer
	br   *bufio.Reader
	out  *syncWriter
	max  int
	line []byte // the line being read, or the message being given
	rest []byte // the part of the message Read has not given yet
	err  error  // of the input, returned once the lines before it are given
}

func (r *messageReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, long, err := r.next()
		r.err = err // io.EOF included: the last line needs no newline
		var code int64
		var msg string
		if long {
			code, msg = jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a line longer than %d bytes", r.max)
		} else if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		} else {
			code, msg = checkLine(line)
		}
		if code != 0 {
			if err := r.answer(code, msg); err != nil {
				return 0, err
			}
			continue
		}
		r.rest = append(line, '\n')
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// Close closes the input.
func (r *messageReader) Close() error { return r.in.Close() }

// next reads a line, without its newline. A line longer than r.max bytes
// is read to its end but not kept: long is true and line empty.
func (r *messageReader) next() (line []byte, long bool, err error) {
	if cap(r.line) > 1<<20 {
		r.line = nil // give back what a long message took
	}
	r.line = r.line[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		frag = bytes.TrimSuffix(frag, []byte("\n"))
		if !long && len(r.line)+len(frag) > r.max {
			long, r.line = true, r.line[:0]
		}
		if !long {
			r.line = append(r.line, frag...)
		}
		if err != bufio.ErrBufferFull {
			return r.line, long, err
		}
	}
}

// checkLine returns the JSON-RPC error code and message of a line that
// holds no message the SDK's transport can take, and 0 for one that does.
func checkLine(line []byte) (int64, string) {
	if err := json.Unmarshal(line, new(json.RawMessage)); err != nil {
		return jsonrpc.CodeParseError, "parse error: " + err.Error()
	}
	if line[0] == '[' {
		return jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported: send one message a line"
	}
	// The SDK's transport decodes a line as this does.
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message: " + err.Error()
	}
	return 0, ""
}

// errorAnswer is a JSON-RPC error response to a message whose id is not
// known: its id is null.
type errorAnswer struct {
	JSONRPC string        `json:"jsonrpc"`
	ID      *int          `json:"id"`
	Error   jsonrpc.Error `json:"error"`
}

// answer writes the JSON-RPC error with code and msg, id null.
func (r *messageReader) answer(code int64, msg string) error {
	b, err := json.Marshal(errorAnswer{JSONRPC: "2.0", Error: jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	_, err = r.out.Write(append(b, '\n'))
	return err
}
