// Command kgmem-mcp serves one durable kgmem memory to an AI assistant over
// the Model Context Protocol.
//
// Usage:
//
//	kgmem-mcp -dir ~/.kgmem/assistant [-single-valued lives_in,works_at] [-http 127.0.0.1:8931 [-session-timeout 30m] [-max-sessions 1000]]
//
// It opens the memory in -dir (kgmem.OpenMemory: created when missing,
// reloaded after a restart, locked against a second process) and serves it
// over stdin and stdout until the client closes the connection, or, with
// -http, over streamable HTTP on a loopback address until interrupted.
//
// -single-valued declares the relation types of which an entity holds one
// value at a time (where it lives, where it works): remember then ends the
// old value when it stores a new one. The memory keeps the declaration in
// its schema (kgmem.Memory.Schema), so later starts without the flag use
// it too; a start with the flag replaces it, and -single-valued "" clears
// it.
//
// Over stdio every line is one JSON-RPC message. A line that is not one is
// answered with a JSON-RPC error whose id is null (-32700 when it is not
// JSON, -32600 when it is JSON but no message, a batch, or longer than
// 16 MiB), and the server reads on.
//
// Over HTTP each client has a session, which lasts until the client ends
// it (an HTTP DELETE) or has sent no request in it for -session-timeout
// (default 30m; 0: sessions never expire). Then the server closes the
// session and forgets it: a request in it is answered 404 Not Found, and
// the client starts a new session. A client that pauses for longer and
// wants to keep its session sends a ping now and then. At most
// -max-sessions sessions (default 1000; 0: no bound) are open at once: a
// request that would open one more is refused with 503 Service
// Unavailable and a JSON-RPC error saying so, while the open sessions are
// served as before.
//
// The tools are remember (store a page and what was extracted from it),
// recall (hybrid retrieval: the context block and the ranked items),
// related (what an entity reaches), paths (how two entities are related),
// history (an entity's timeline: the facts it is the source or the target
// of, ended ones included), forget (a page and what only it says, or an
// entity) and draw (a Mermaid diagram of a subgraph). recall takes an
// as_of date or date-time to answer as the memory stood then; related,
// paths, history and draw take an entity's ID, name or alias (a name
// several entities share is an error listing their IDs); forget takes
// an ID only. No tool takes a file path: everything a client
// writes goes into the one memory directory given on the command line, and
// the errors a client reads call it "the memory", never by its path.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kgmem/kgmem"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kgmem-mcp:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("kgmem-mcp", flag.ContinueOnError)
	dir := fs.String("dir", "", "the memory directory (required; created when missing)")
	addr := fs.String("http", "", "serve streamable HTTP on this loopback address (such as 127.0.0.1:8931) instead of stdio")
	timeout := fs.Duration("session-timeout", defaultSessionTimeout, "with -http: close a session the client has sent no request in for this long (0: never)")
	singleValued := fs.String("single-valued", "", "comma-separated relation types of which an entity holds one value at a time (lives_in,works_at), "+
		"kept in the memory's schema: given, it replaces the stored ones (\"\" clears them); left out, the stored ones hold")
	maxSessions := fs.Int("max-sessions", defaultMaxSessions, "with -http: the most sessions open at once; a request that would open one more is refused with 503 (0: no bound)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("-dir is required and no arguments are accepted")
	}
	if *timeout < 0 {
		return fmt.Errorf("-session-timeout %v is negative", *timeout)
	}
	if *maxSessions < 0 {
		return fmt.Errorf("-max-sessions %d is negative", *maxSessions)
	}
	if *addr != "" {
		if err := checkLoopback(*addr); err != nil {
			return err
		}
	}
	// By its absolute path, which the server knows to keep out of the
	// messages clients read.
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	var sv *string
	if flagSet(fs, "single-valued") {
		sv = singleValued
	}
	mem, err := openMemoryDir(abs, sv)
	if err != nil {
		return err
	}
	defer mem.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := NewServer(mem, abs)
	if *addr == "" {
		return srv.Run(ctx, newStdioTransport(os.Stdin, nopCloser{os.Stdout}, 0))
	}
	ln, err := listenLoopback(*addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "kgmem-mcp: serving streamable HTTP on http://%v\n", ln.Addr())
	return serveHTTP(ctx, srv, ln, httpOptions{sessionTimeout: *timeout, maxSessions: *maxSessions})
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// openMemoryDir opens the memory in dir with the single-valued types
// *singleValued declares (see parseTypes), or those it keeps when
// singleValued is nil.
func openMemoryDir(dir string, singleValued *string) (*kgmem.Memory, error) {
	var opts []kgmem.DurableOption
	if singleValued != nil {
		types, err := parseTypes(*singleValued)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgmem.WithSingleValued(types...))
	}
	return kgmem.OpenMemory(dir, opts...)
}

// parseTypes reads -single-valued: relation types separated by commas,
// white space around each ignored; "" is none.
func parseTypes(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var types []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, fmt.Errorf("-single-valued %q: an empty relation type", s)
		}
		types = append(types, t)
	}
	return types, nil
}

// nopCloser is a writer whose Close does nothing: closing the session does
// not close stdout.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// checkLoopback refuses an address whose host is not a loopback IP or
// "localhost": the server has no authentication, so it must not be
// reachable from other machines.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-http %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-http %q: the host must be a loopback address (127.0.0.1, ::1 or localhost): the server has no authentication", addr)
}

// listenLoopback listens on addr, refusing an address that did not
// resolve to a loopback one.
func listenLoopback(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("-http %q resolved to %v, which is not a loopback address", addr, ln.Addr())
	}
	return ln, nil
}
