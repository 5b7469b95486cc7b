package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// tokenEnv is the environment variable that holds the bearer token when
// -token is not given.
const tokenEnv = "KGMEM_MCP_TOKEN"

// minTokenLen is the shortest token the server takes: a shorter one is
// too easy to guess.
const minTokenLen = 16

// checkToken refuses a token a client could guess or that a header
// cannot carry.
func checkToken(token string) error {
	if len(token) < minTokenLen {
		return fmt.Errorf("the token is %d bytes, fewer than %d: use a random one, such as the output of openssl rand -hex 32", len(token), minTokenLen)
	}
	for _, c := range []byte(token) {
		if c <= ' ' || c >= 0x7f {
			return fmt.Errorf("the token holds a blank, a control character or a non-ASCII byte, which an Authorization header cannot carry as it is")
		}
	}
	return nil
}

// A bearerAuth passes to next only the requests whose Authorization
// header is "Bearer " and one of the server's tokens (the scheme's case
// ignored, RFC 7235), with the token's grant, which the tool handlers read
// through the SDK (see tokenInfo); it answers the others with 401
// Unauthorized, a WWW-Authenticate: Bearer challenge (RFC 6750:
// error="invalid_token" when a token was given) and a JSON-RPC error
// saying what is missing. Tokens are compared in constant time (see
// tokenSet.lookup).
type bearerAuth struct {
	tokens *tokenSet
	next   http.Handler // behind the SDK's token middleware
}

func newBearerAuth(next http.Handler, tokens *tokenSet) *bearerAuth {
	return &bearerAuth{tokens: tokens,
		next: auth.RequireBearerToken(tokenInfo, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)}
}

func (a *bearerAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		a.refuse(w, `Bearer realm="kgmem-mcp"`, "unauthorized: send the server's token in an Authorization: Bearer header")
		return
	}
	g := a.tokens.lookup(strings.TrimSpace(token))
	if g == nil {
		a.refuse(w, `Bearer realm="kgmem-mcp", error="invalid_token"`, "unauthorized: the bearer token is not the server's")
		return
	}
	a.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), grantKey{}, g)))
}

func (a *bearerAuth) refuse(w http.ResponseWriter, challenge, msg string) {
	body, _ := json.Marshal(errorAnswer{JSONRPC: "2.0", Error: jsonrpc.Error{Code: -32001, Message: msg}})
	w.Header().Set("WWW-Authenticate", challenge)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write(append(body, '\n'))
}
