// Command kgmem-mcp serves one durable kgmem memory to an AI assistant over
// the Model Context Protocol.
//
// Usage:
//
//	kgmem-mcp -dir ~/.kgmem/assistant [-single-valued lives_in,works_at] [-http 127.0.0.1:8931 [-tokens FILE | -token T | -no-auth] [-session-timeout 30m] [-max-sessions 1000]]
//	kgmem-mcp -dir ~/.kgmem/team -scopes [-default-scope default] [-allow-scopes a,b] [other flags as above]
//	kgmem-mcp -version
//
// It opens the memory in -dir (kgmem.OpenMemory: created when missing,
// reloaded after a restart, locked against a second process) and serves it
// over stdin and stdout until the client closes the connection, or, with
// -http, over streamable HTTP until interrupted. A leading ~ or ~/ of -dir
// is the home directory (an MCP client's JSON configuration has no shell
// to expand it); ~user is refused; a relative -dir is resolved against the
// working directory, which the client chooses, so give an absolute one.
// -h prints the flags and exits 0; -version prints the version.
//
// -single-valued declares the relation types of which an entity holds one
// value at a time (where it lives, where it works): remember then ends the
// old value when it stores a new one. The memory keeps the declaration in
// its schema (kgmem.Memory.Schema), so later starts without the flag use
// it too; a start with the flag replaces it, and -single-valued "" clears
// it.
//
// With -scopes, -dir holds one memory per scope (kgmem.OpenMemories: a
// user, an agent, a project), each with its own graph and pages: every
// tool takes an optional scope argument, a string (default: -default-scope,
// "default"), and works on that scope's memory alone, which it opens (and
// creates, when new) for the call and lets go of when the call ends.
// recall takes instead scopes, a list, to search several together
// (kgmem.Memories.Retrieve); in this mode every recall item says its
// scope. -allow-scopes lists the scopes the clients may use (stdio's, and
// over HTTP every client's, whatever token it holds); a call naming
// another, existing or not, fails with one error that names no scope, and
// neither opens nor creates it. Without -allow-scopes a call may name any
// scope. list_scopes lists the scopes a client may use. Do not point
// -scopes at a directory that holds one memory.
//
// Over stdio every line is one JSON-RPC message. A line that is not one is
// answered with a JSON-RPC error whose id is null (-32700 when it is not
// JSON, -32600 when it is JSON but no message, a batch, or longer than
// 16 MiB), and the server reads on. stdio serves the one client that
// started the server, with no token.
//
// Over HTTP the server requires a bearer token: every request must carry
// the header "Authorization: Bearer <token>", and one without it, or with
// a token the server does not know, is answered 401 Unauthorized with a
// WWW-Authenticate: Bearer challenge and opens no session. The tokens are
// read from the tokens file -tokens names (default: kgmem-mcp.tokens in
// -dir): one token a line, then the scopes it may use, separated by
// blanks, or * for every scope the server serves (a scope with a blank, a
// quote or a backslash, starting with # or named * is written as a Go
// string in double quotes); lines starting with # are comments. The file
// must be mode 0600 (the server refuses one that group or others may read
// or write, saying so), and a malformed line stops the server with an
// error naming the line. When the file does not exist the server creates
// it, mode 0600, with one random token (256 bits from crypto/rand)
// allowed every scope, and prints that token to stderr, once: later
// starts read it from the file. Edit the file, and restart, to add tokens
// or narrow them to scopes (only with -scopes, and within -allow-scopes).
// A call with a token uses only the scopes both the command line and the
// token allow: a scope outside them, existing or not, is refused with the
// same error as any refused scope, which names none, so a token learns
// nothing of the others, not even whether they exist; list_scopes and a
// cross-scope recall show only its scopes. A call naming no scope uses
// -default-scope, or, for a token that may not use it, the first scope
// the file lists for the token. A session belongs to the token that
// opened it: a request in it with another token is refused (403).
// Instead of the file, -token (or, when neither -token nor -tokens is
// given, the environment variable KGMEM_MCP_TOKEN, which other users
// cannot read from the process list as they can a flag) gives one token
// allowed every scope; -token and -tokens together are refused (add the
// token to the file with * to use both). Tokens are at least 16
// printable ASCII bytes, such as the output of openssl rand -hex 32, and
// are compared in constant time. -no-auth requires no token, and then the
// server listens only on a loopback address (127.0.0.1, ::1 or
// localhost), where every local process can reach it; with tokens it
// listens where -http says. It speaks plain HTTP: across machines, put a
// TLS proxy in front of it, or the tokens travel in the clear.
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
// entity) and draw (a Mermaid diagram of a subgraph); and beside them the
// reference memory server's tools, with its names, argument shapes and
// results: create_entities, create_relations, add_observations,
// delete_entities, delete_observations, delete_relations, read_graph,
// search_nodes and open_nodes. An observation is stored as a knowledge
// page of its own that its entity cites, so recall and search_nodes find
// it and delete_observations removes it alone (see reference.go). recall
// takes an as_of date or date-time to answer as the memory stood then.
// Every tool that takes an entity takes its ID, its name or an alias (a
// name several entities share is an error listing their IDs, except in
// open_nodes, which opens each). Scores are rounded to 4 decimals. No
// tool takes a file path: everything a client writes goes into the one
// memory directory given on the command line, and the errors a client
// reads call it "the memory", never by its path.
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
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	err := run(os.Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		// -h: the usage is printed; asking for it is no failure.
	case err != nil:
		fmt.Fprintln(os.Stderr, "kgmem-mcp:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("kgmem-mcp", flag.ContinueOnError)
	dir := fs.String("dir", "", "the memory directory (required; created when missing)")
	addr := fs.String("http", "", "serve streamable HTTP on this address (such as 127.0.0.1:8931) instead of stdio; every request needs a bearer token (see -tokens) unless -no-auth")
	timeout := fs.Duration("session-timeout", defaultSessionTimeout, "with -http: close a session the client has sent no request in for this long (0: never)")
	singleValued := fs.String("single-valued", "", "comma-separated relation types of which an entity holds one value at a time (lives_in,works_at), "+
		"kept in the memory's schema: given, it replaces the stored ones (\"\" clears them); left out, the stored ones hold")
	maxSessions := fs.Int("max-sessions", defaultMaxSessions, "with -http: the most sessions open at once; a request that would open one more is refused with 503 (0: no bound)")
	tokenFlag := fs.String("token", "", "with -http: one bearer token allowed every scope, instead of -tokens (default: $"+tokenEnv+", which other users cannot read from the process list as they can a flag)")
	tokensFlag := fs.String("tokens", "", "with -http: the tokens file, one token a line with the scopes it may use, mode 0600 "+
		"(default: "+defaultTokensFile+" in -dir); created with one random token, allowed every scope and printed once, when missing")
	noAuth := fs.Bool("no-auth", false, "with -http: require no token; the address must be loopback, where every local process can use the memory")
	scoped := fs.Bool("scopes", false, "-dir holds one memory per scope (kgmem.OpenMemories): every tool takes an optional scope argument, and recall scopes, a list")
	defScope := fs.String("default-scope", DefaultScope, "with -scopes: the scope of a call that names none")
	allowScopes := fs.String("allow-scopes", "", "with -scopes: comma-separated scopes the clients may use, the default one among them (default: every scope); "+
		"a call naming another is refused with an error that names no scope")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version {
		fmt.Fprintf(os.Stdout, "kgmem-mcp %s\n", Version)
		return nil
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
	token := *tokenFlag
	withTokens := flagSet(fs, "tokens")
	switch {
	case *addr == "" && (flagSet(fs, "token") || withTokens || *noAuth):
		return errors.New("-token, -tokens and -no-auth are for -http: over stdio the server answers the one client that started it")
	case *noAuth && (flagSet(fs, "token") || withTokens):
		return errors.New("-no-auth requires no token: give it without -token and -tokens")
	case flagSet(fs, "token") && withTokens:
		return errors.New("-token and -tokens: give one (to use that token beside the file's, add it to the file with the scope *)")
	case *addr != "" && token == "" && !withTokens && !*noAuth:
		token = os.Getenv(tokenEnv)
	}
	if *addr != "" {
		if token != "" {
			if err := checkToken(token); err != nil {
				return fmt.Errorf("-token: %v", err)
			}
		} else if *noAuth {
			if err := checkLoopback(*addr); err != nil {
				return err
			}
		}
	}
	// -tokens is read once the memory directory, where the default one
	// lives, exists.
	tokensPath := ""
	if *addr != "" && token == "" && !*noAuth {
		p := *tokensFlag
		if !withTokens {
			p = filepath.Join(*dir, defaultTokensFile)
		}
		var err error
		if tokensPath, err = expandPath("-tokens", p); err != nil {
			return err
		}
	}
	// By its absolute path, which the server knows to keep out of the
	// messages clients read.
	abs, err := memoryDir(*dir)
	if err != nil {
		return err
	}
	var sv *string
	if flagSet(fs, "single-valued") {
		sv = singleValued
	}
	var srv *mcp.Server
	if *scoped {
		allowed, err := parseList("-allow-scopes", *allowScopes)
		if err != nil {
			return err
		}
		ms, err := openMemoriesDir(abs, sv)
		if err != nil {
			return err
		}
		defer ms.Close()
		if srv, err = NewScopedServer(ms, abs, ScopeOptions{Default: *defScope, Allowed: allowed}); err != nil {
			return fmt.Errorf("-default-scope, -allow-scopes: %v", err)
		}
	} else {
		if flagSet(fs, "default-scope") || flagSet(fs, "allow-scopes") {
			return errors.New("-default-scope and -allow-scopes are for -scopes")
		}
		mem, err := openMemoryDir(abs, sv)
		if err != nil {
			return err
		}
		defer mem.Close()
		srv = NewServer(mem, abs)
	}

	var tokens *tokenSet
	if tokensPath != "" {
		if tokens, err = loadTokens(tokensPath, os.Stderr); err != nil {
			return err
		}
		var allowed []string
		if *scoped {
			allowed, _ = parseList("-allow-scopes", *allowScopes)
		}
		if err := tokens.checkScopes(*scoped, allowed); err != nil {
			return fmt.Errorf("tokens file %s: %v", tokensPath, err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		return srv.Run(ctx, newStdioTransport(os.Stdin, nopCloser{os.Stdout}, 0))
	}
	var ln net.Listener
	if *noAuth {
		ln, err = listenLoopback(*addr)
	} else {
		ln, err = net.Listen("tcp", *addr)
	}
	if err != nil {
		return err
	}
	auth := "no token: loopback only"
	switch {
	case token != "":
		auth = "bearer token required"
	case tokens != nil:
		auth = fmt.Sprintf("bearer token required: %d in %s", len(tokens.grants), tokensPath)
	}
	fmt.Fprintf(os.Stderr, "kgmem-mcp: serving streamable HTTP on http://%v (%s)\n", ln.Addr(), auth)
	return serveHTTP(ctx, srv, ln, httpOptions{sessionTimeout: *timeout, maxSessions: *maxSessions, token: token, tokens: tokens})
}

// memoryDir returns the absolute path of the memory directory -dir names:
// a leading "~" alone or before a separator is the home directory (MCP
// clients start the server from a JSON configuration, where no shell
// expands it), and a relative path is resolved against the working
// directory, which the client chooses: give an absolute path. "~user" is
// refused rather than read as a directory named so.
func memoryDir(dir string) (string, error) { return expandPath("-dir", dir) }

// expandPath returns the absolute path of the path p the flag name gives,
// as memoryDir does for -dir.
func expandPath(name, p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s %q: %v", name, p, err)
		}
		p = filepath.Join(home, p[1:])
	} else if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%s %q: only ~ and ~/ are expanded, to the home directory; give the path", name, p)
	}
	return filepath.Abs(p)
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

// openMemoriesDir opens the memories in dir, each scope's memory with the
// single-valued types *singleValued declares (see openMemoryDir).
func openMemoriesDir(dir string, singleValued *string) (*kgmem.Memories, error) {
	var opts []kgmem.MemoriesOption
	if singleValued != nil {
		types, err := parseTypes(*singleValued)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgmem.WithMemoryOptions(kgmem.WithSingleValued(types...)))
	}
	return kgmem.OpenMemories(dir, opts...)
}

// parseList reads a comma-separated list of the flag name, white space
// around each item ignored; "" is none.
func parseList(name, s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var items []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, fmt.Errorf("%s %q: an empty item", name, s)
		}
		items = append(items, t)
	}
	return items, nil
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
// "localhost": with -no-auth the server has no authentication, so it
// must not be reachable from other machines.
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
	return fmt.Errorf("-http %q: with -no-auth, which requires no token, the host must be a loopback address (127.0.0.1, ::1 or localhost)", addr)
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
