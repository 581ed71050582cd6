// Package mcptest is a loopback OAuth authorization server in front of a small streamable
// HTTP MCP server, for the tests of pigo's MCP sign-in, refresh and scope step-up: protected
// resource metadata (RFC 9728), authorization server metadata (RFC 8414), dynamic client
// registration (RFC 7591), the authorization code flow with PKCE S256 that approves at once
// (the "browser" is a plain HTTP client), refresh tokens that rotate, and a tool that needs
// more scope than the first sign-in grants.
package mcptest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// AuthServer is the running server. URL+"/mcp" is the MCP endpoint.
type AuthServer struct {
	URL string
	// ExpiresIn is the access tokens' lifetime in seconds (default 3600).
	ExpiresIn int

	mu                                       sync.Mutex
	clients                                  map[string][]string // client id → redirect URIs
	codes                                    map[string]grant
	access                                   map[string]grant // access token → grant
	refresh                                  map[string]grant
	n                                        int
	Refreshes, Registrations, Authorizations int
	// Scopes are the scopes each authorization request asked for, in order.
	Scopes  []string
	bearers []string
	srv     *httptest.Server
}

type grant struct {
	client, challenge, scope, redirect string
}

// New starts the server on 127.0.0.1; it stops with the test.
func New(t testing.TB) *AuthServer {
	a := &AuthServer{clients: map[string][]string{}, codes: map[string]grant{}, access: map[string]grant{}, refresh: map[string]grant{}, ExpiresIn: 3600}
	a.srv = httptest.NewServer(http.HandlerFunc(a.handle))
	a.URL = a.srv.URL
	t.Cleanup(a.srv.Close)
	return a
}

// Grant issues an access and a refresh token without a sign-in, as a provider's /login would
// have stored them.
func (a *AuthServer) Grant() (access, refresh string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	access, refresh = fmt.Sprintf("access-%d", a.n), fmt.Sprintf("refresh-%d", a.n)
	a.access[access], a.refresh[refresh] = grant{}, grant{}
	return access, refresh
}

// Bearers returns the Authorization headers the MCP endpoint received, in order.
func (a *AuthServer) Bearers() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.bearers...)
}

// Revoke invalidates every access token (the next MCP request gets a 401).
func (a *AuthServer) Revoke() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string]grant{}
}

// Browse is the user's browser approving the authorization URL: it follows the redirect to
// the callback.
func Browse(u string) error {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return fmt.Errorf("no redirect from %s (%s)", u, resp.Status)
	}
	resp, err = http.Get(loc)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("callback: %s", resp.Status)
	}
	return nil
}

func (a *AuthServer) json(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (a *AuthServer) handle(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		a.json(w, 200, map[string]any{"resource": a.URL + "/mcp", "authorization_servers": []string{a.URL}, "scopes_supported": []string{"mcp:read"}})
	case "/.well-known/oauth-authorization-server":
		a.json(w, 200, map[string]any{"issuer": a.URL, "authorization_endpoint": a.URL + "/authorize", "token_endpoint": a.URL + "/token",
			"registration_endpoint": a.URL + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"authorization_response_iss_parameter_supported": true})
	case "/register":
		var body struct {
			RedirectURIs []string `json:"redirect_uris"`
			ClientName   string   `json:"client_name"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		a.mu.Lock()
		a.n++
		a.Registrations++
		id := fmt.Sprintf("client-%d", a.n)
		a.clients[id] = body.RedirectURIs
		a.mu.Unlock()
		a.json(w, 201, map[string]any{"client_id": id, "redirect_uris": body.RedirectURIs, "client_name": body.ClientName, "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		a.mu.Lock()
		uris, ok := a.clients[q.Get("client_id")]
		a.mu.Unlock()
		if !ok || !slices.Contains(uris, q.Get("redirect_uri")) || q.Get("code_challenge_method") != "S256" || q.Get("resource") != a.URL+"/mcp" {
			http.Error(w, "invalid authorization request", 400)
			return
		}
		a.mu.Lock()
		a.n++
		a.Authorizations++
		a.Scopes = append(a.Scopes, q.Get("scope"))
		code := fmt.Sprintf("code-%d", a.n)
		a.codes[code] = grant{client: q.Get("client_id"), challenge: q.Get("code_challenge"), scope: q.Get("scope"), redirect: q.Get("redirect_uri")}
		a.mu.Unlock()
		u, _ := url.Parse(q.Get("redirect_uri"))
		rq := u.Query()
		rq.Set("code", code)
		rq.Set("state", q.Get("state"))
		rq.Set("iss", a.URL)
		u.RawQuery = rq.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		a.token(w, r.PostForm)
	case "/v1/oauth/token":
		// A /login provider's token endpoint (Anthropic's path and JSON body), for MCP servers
		// that take a provider's token (auth.provider): PIGO_TEST_OAUTH_ORIGIN points pigo's
		// provider refresh here.
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		f := url.Values{}
		for k, v := range body {
			f.Set(k, v)
		}
		a.token(w, f)
	case "/mcp":
		a.mcp(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (a *AuthServer) issue(w http.ResponseWriter, g grant) {
	a.n++
	at, rt := fmt.Sprintf("access-%d", a.n), fmt.Sprintf("refresh-%d", a.n)
	a.access[at] = g
	a.refresh[rt] = g
	a.json(w, 200, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": a.ExpiresIn, "refresh_token": rt, "scope": g.scope})
}

func (a *AuthServer) token(w http.ResponseWriter, f url.Values) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok := a.codes[f.Get("code")]
		delete(a.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || g.client != f.Get("client_id") || g.redirect != f.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			a.json(w, 400, map[string]string{"error": "invalid_grant", "error_description": "bad code or verifier"})
			return
		}
		a.issue(w, g)
	case "refresh_token":
		g, ok := a.refresh[f.Get("refresh_token")]
		delete(a.refresh, f.Get("refresh_token")) // rotating refresh tokens
		if !ok {
			a.json(w, 400, map[string]string{"error": "invalid_grant", "error_description": "refresh token reused or unknown"})
			return
		}
		a.Refreshes++
		a.issue(w, g)
	default:
		a.json(w, 400, map[string]string{"error": "unsupported_grant_type"})
	}
}

// mcp is the protected MCP endpoint: tools whoami (any token) and admin (scope mcp:admin).
func (a *AuthServer) mcp(w http.ResponseWriter, r *http.Request) {
	meta := `resource_metadata="` + a.URL + `/.well-known/oauth-protected-resource/mcp"`
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	a.mu.Lock()
	a.bearers = append(a.bearers, r.Header.Get("Authorization"))
	g, ok := a.access[tok]
	a.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", "Bearer "+meta)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any
	switch m.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "auth", "version": "1"}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "whoami", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "admin", "inputSchema": map[string]any{"type": "object"}}}}
	case "tools/call":
		if m.Params.Name == "admin" && !slices.Contains(strings.Fields(g.scope), "mcp:admin") {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:admin", `+meta)
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": m.Params.Name + " with scope " + g.scope}}}
	default:
		result = map[string]any{}
	}
	a.json(w, 200, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}
