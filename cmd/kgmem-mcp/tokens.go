package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultTokensFile is the name of the tokens file in -dir when -tokens
// names none.
const defaultTokensFile = "kgmem-mcp.tokens"

// allScopes, as a token's only scope in the tokens file, allows it every
// scope the server serves.
const allScopes = "*"

// tokensHeader opens the tokens file the server creates, to say how to
// write one.
const tokensHeader = `# kgmem-mcp tokens: who may use this server over HTTP.
# One token a line: the token (at least 16 printable ASCII bytes, such as
# the output of openssl rand -hex 32), then the scopes it may use,
# separated by blanks: * alone is every scope the server serves (with
# -scopes, those -allow-scopes allows). A scope holding a blank, a quote
# or a backslash, starting with #, or named *, is written as a Go string
# in double quotes ("my scope"). A line whose first non-blank character is
# # is a comment; blank lines are ignored. Keep this file mode 0600: the
# server refuses it when group or others may read or write it. Restart
# the server to apply a change.
`

// A tokenGrant is one token of the tokens file and the scopes it allows.
type tokenGrant struct {
	line   int               // in the tokens file; 0 for -token
	sum    [sha256.Size]byte // of the token
	all    bool              // every scope the server serves
	scopes []string          // otherwise, as the file lists them
	user   string            // names the token's sessions (auth.TokenInfo.UserID)
}

// allows reports whether the token may use scope (besides what the
// command line allows).
func (g *tokenGrant) allows(scope string) bool {
	return g.all || slices.Contains(g.scopes, scope)
}

// A tokenSet is the tokens a server over HTTP accepts.
type tokenSet struct {
	grants []*tokenGrant
}

// singleToken is the token set of -token: one token, every scope.
func singleToken(token string) *tokenSet {
	return &tokenSet{grants: []*tokenGrant{newGrant(0, token, true, nil)}}
}

func newGrant(line int, token string, all bool, scopes []string) *tokenGrant {
	sum := sha256.Sum256([]byte(token))
	// A session opened with one token is refused to every other; the
	// hash's prefix tells the tokens apart and gives nothing of them.
	return &tokenGrant{line: line, sum: sum, all: all, scopes: scopes, user: "token-" + hex.EncodeToString(sum[:8])}
}

// lookup returns the grant of token, or nil. It compares token with every
// token of the set, by their SHA-256 hashes, in constant time: neither
// the bytes of a token, nor its length, nor which one matched leaks
// through timing.
func (ts *tokenSet) lookup(token string) *tokenGrant {
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i, g := range ts.grants {
		eq := subtle.ConstantTimeCompare(sum[:], g.sum[:])
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 {
		return nil
	}
	return ts.grants[found]
}

// checkScopes refuses a token that lists scopes the server does not
// serve: any scope when it serves one memory (scoped false), and a scope
// outside allowed when that is not nil.
func (ts *tokenSet) checkScopes(scoped bool, allowed []string) error {
	for _, g := range ts.grants {
		if g.all {
			continue
		}
		if !scoped {
			return fmt.Errorf("line %d: the token lists scopes, which only a server started with -scopes serves: give it * instead", g.line)
		}
		for _, s := range g.scopes {
			if allowed != nil && !slices.Contains(allowed, s) {
				return fmt.Errorf("line %d: scope %s is not one -allow-scopes allows", g.line, strconv.Quote(s))
			}
		}
	}
	return nil
}

// parseTokens reads a tokens file (see tokensHeader). An error names the
// line at fault.
func parseTokens(r io.Reader) (*tokenSet, error) {
	ts := &tokenSet{}
	seen := map[[sha256.Size]byte]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		fields, err := splitTokenLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		token := fields[0].text
		if fields[0].quoted {
			return nil, fmt.Errorf("line %d: the token is in quotes: write it as it is", line)
		}
		if err := checkToken(token); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if len(fields) == 1 {
			return nil, fmt.Errorf("line %d: the token lists no scope: list the scopes it may use after it, or * for every one", line)
		}
		all := false
		var scopes []string
		for _, f := range fields[1:] {
			switch {
			case f.text == allScopes && !f.quoted:
				all = true
			case f.text == "":
				return nil, fmt.Errorf("line %d: an empty scope", line)
			default:
				if len(f.text) > kgmem.MaxScopeBytes {
					return nil, fmt.Errorf("line %d: a scope longer than %d bytes", line, kgmem.MaxScopeBytes)
				}
				if !slices.Contains(scopes, f.text) {
					scopes = append(scopes, f.text)
				}
			}
		}
		if all && len(fields) > 2 {
			return nil, fmt.Errorf("line %d: * is every scope: list no other with it", line)
		}
		g := newGrant(line, token, all, scopes)
		if first, ok := seen[g.sum]; ok {
			return nil, fmt.Errorf("line %d: the token of line %d again: give each token one line", line, first)
		}
		seen[g.sum] = line
		ts.grants = append(ts.grants, g)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than 1 MiB", line+1)
		}
		return nil, err
	}
	if len(ts.grants) == 0 {
		return nil, errors.New("no token in it: add a line with a token and its scopes, or delete the file to have the server create one")
	}
	return ts, nil
}

// A tokenField is a field of a line of the tokens file.
type tokenField struct {
	text   string
	quoted bool
}

// splitTokenLine splits a line of the tokens file into its fields: words
// separated by blanks, each bare or a Go string in double quotes.
func splitTokenLine(s string) ([]tokenField, error) {
	var fields []tokenField
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return fields, nil
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("an unterminated or malformed quoted string: %s", s)
			}
			text, _ := strconv.Unquote(q)
			fields = append(fields, tokenField{text: text, quoted: true})
			s = s[len(q):]
			if s != "" && s[0] != ' ' && s[0] != '\t' {
				return nil, fmt.Errorf("no blank after the quoted string %s", q)
			}
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		word := s[:end]
		if strings.ContainsAny(word, `"\`) {
			return nil, fmt.Errorf("%s holds a quote or a backslash: write a scope holding one in double quotes, as a Go string", word)
		}
		fields = append(fields, tokenField{text: word})
		s = s[end:]
	}
}

// loadTokens reads the tokens file path, refusing one that group or
// others may read or write. When the file does not exist, it creates it,
// mode 0600, with one new random token allowed every scope, and writes
// that token to w, once: later starts read it from the file.
func loadTokens(path string, w io.Writer) (*tokenSet, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createTokens(path, w)
	}
	if err != nil {
		return nil, fmt.Errorf("tokens file: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("tokens file: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("tokens file %s: not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("tokens file %s: mode %04o lets group or others read or write it, and so use its tokens: chmod 600 %s", path, perm, path)
	}
	ts, err := parseTokens(f)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %v", path, err)
	}
	return ts, nil
}

// createTokens creates the tokens file path with one new token allowed
// every scope, and writes the token to w.
func createTokens(path string, w io.Writer) (*tokenSet, error) {
	var raw [32]byte // 256 bits
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("tokens file: a random token: %v", err)
	}
	token := hex.EncodeToString(raw[:])
	var b bytes.Buffer
	b.WriteString(tokensHeader)
	fmt.Fprintf(&b, "%s %s\n", token, allScopes)
	// O_EXCL: a file another process created meanwhile is not replaced.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %v", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("tokens file: %v", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("tokens file: %v", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("tokens file: %v", err)
	}
	fmt.Fprintf(w, "kgmem-mcp: created the tokens file %s with one token, allowed every scope; it is printed here once, and kept in the file:\n%s\n", path, token)
	return singleToken(token), nil
}

// grantKey is the context key under which bearerAuth hands the grant of a
// request's token to the SDK's token middleware.
type grantKey struct{}

// tokenInfo is the auth.TokenInfo of a request's grant, which the SDK
// gives the tool handlers (mcp.RequestExtra.TokenInfo) and by which it
// keeps each session to the token that opened it.
func tokenInfo(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	g, ok := ctx.Value(grantKey{}).(*tokenGrant)
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: g.user, Scopes: g.scopes, Extra: map[string]any{"grant": g}}, nil
}

// callGrant returns the grant of the token a tool call came with, or nil
// for a call without one (over stdio, or HTTP without tokens).
func callGrant(req *mcp.CallToolRequest) *tokenGrant {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil
	}
	g, _ := req.Extra.TokenInfo.Extra["grant"].(*tokenGrant)
	return g
}
