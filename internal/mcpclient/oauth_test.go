package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient/mcptest"
)

// TestOAuthSignInRefreshStepUp: an OAuth server needs a sign-in; the sign-in (dynamic client
// registration, PKCE, loopback callback) stores tokens in mcp-auth.json (pi's key, 0600); an
// expired token is refreshed before it is sent, a rejected one after the 401; a tool that
// needs more scope asks for a sign-in again, which requests the granted and the challenged
// scopes.
func TestOAuthSignInRefreshStepUp(t *testing.T) {
	as := mcptest.New(t)
	dir := t.TempDir()
	auth := &OAuthProvider{Store: NewCredentialStore(dir)}
	s := &mcp.Server{Name: "auth-srv", Transport: mcp.HTTP, URL: as.URL + "/mcp", Enabled: true, Timeout: 10}
	c := NewConn(s, &Options{ClientName: "pigo", ClientVersion: "test", Auth: auth}, nil, nil)
	defer c.Close()
	ctx := context.Background()

	err := c.Open(ctx)
	if st, _ := c.State(); st != StateNeedsAuth || err == nil || !strings.Contains(err.Error(), `MCP server "auth-srv" requires sign-in. Run /mcp to sign in.`) {
		t.Fatalf("before sign-in: %s, %v", st, err)
	}
	signIn := func(ch *Challenge) {
		t.Helper()
		var browsed error
		err := auth.SignIn(ctx, s, ch, SignInPrompt{ShowURL: func(u string) { browsed = mcptest.Browse(u) }})
		if err != nil || browsed != nil {
			t.Fatalf("sign-in: %v (browser: %v)", err, browsed)
		}
	}
	signIn(c.Challenge())
	b, err := os.ReadFile(filepath.Join(dir, "mcp-auth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var states map[string]struct {
		ServerURL string `json:"serverUrl"`
		Tokens    struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
			Scope        string `json:"scope"`
		} `json:"tokens"`
		TokensExpireAt int64 `json:"tokensExpireAt"`
	}
	if err := json.Unmarshal(b, &states); err != nil {
		t.Fatal(err)
	}
	key := "mcp__auth_srv|" + as.URL + "/mcp"
	if st := states[key]; st.Tokens.AccessToken == "" || st.Tokens.RefreshToken == "" || st.Tokens.Scope != "mcp:read" || st.ServerURL != as.URL+"/mcp" {
		t.Fatalf("mcp-auth.json under %q: %s", key, b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "mcp-auth.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mcp-auth.json mode %v", fi.Mode().Perm())
	}
	if err := c.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	call := func(tool string) (string, error) {
		raw, err := c.CallTool(ctx, tool, nil, nil)
		return string(raw), err
	}
	if out, err := call("whoami"); err != nil || !strings.Contains(out, "whoami with scope mcp:read") {
		t.Fatalf("whoami: %s %v", out, err)
	}

	// An expired token is refreshed before it is sent.
	if err := auth.Store.update(s.Name, s.URL, func(st *oauthState) { past := int64(1); st.TokensExpireAt = &past }); err != nil {
		t.Fatal(err)
	}
	if _, err := call("whoami"); err != nil || as.Refreshes != 1 {
		t.Fatalf("after expiry: %v, %d refreshes", err, as.Refreshes)
	}
	// A token the server no longer accepts is refreshed after its 401, and the call retried.
	as.Revoke()
	if _, err := call("whoami"); err != nil || as.Refreshes != 2 {
		t.Fatalf("after revocation: %v, %d refreshes", err, as.Refreshes)
	}

	// Step-up: more scope needs the user again.
	_, err = call("admin")
	if err == nil || !strings.Contains(err.Error(), "requires sign-in") {
		t.Fatalf("admin without the scope: %v", err)
	}
	ch := c.Challenge()
	if ch == nil || ch.Error != "insufficient_scope" || ch.Scope != "mcp:admin" {
		t.Fatalf("challenge: %+v", ch)
	}
	signIn(ch)
	if got := as.Scopes[len(as.Scopes)-1]; got != "mcp:read mcp:admin" {
		t.Errorf("step-up requested %q, want the granted and the challenged scopes", got)
	}
	if err := c.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	if out, err := call("admin"); err != nil || !strings.Contains(out, "admin with scope mcp:read mcp:admin") {
		t.Fatalf("admin after step-up: %s %v", out, err)
	}
	if as.Registrations != 1 {
		t.Errorf("%d client registrations: the registered client is reused", as.Registrations)
	}

	// Signing out removes the credentials; the next connection needs a sign-in again.
	if removed, err := auth.Store.Remove(s.Name, s.URL); !removed || err != nil {
		t.Fatalf("remove: %v %v", removed, err)
	}
	as.Revoke()
	if err := c.Reconnect(ctx); err == nil {
		t.Error("signed out: the server still connects")
	} else if st, _ := c.State(); st != StateNeedsAuth {
		t.Errorf("signed out: state %s (%v)", st, err)
	}
}

func TestSignInTimeout(t *testing.T) {
	as := mcptest.New(t)
	auth := &OAuthProvider{Store: NewCredentialStore(t.TempDir())}
	s := &mcp.Server{Name: "x", Transport: mcp.HTTP, URL: as.URL + "/mcp", Enabled: true}
	ctx, cancel := context.WithCancel(context.Background())
	err := auth.SignIn(ctx, s, nil, SignInPrompt{ShowURL: func(string) { cancel() }}) // the user never approves
	if !errors.Is(err, ErrSignInCancelled) {
		t.Errorf("error: %v", err)
	}
}

func TestParseChallenge(t *testing.T) {
	ch := ParseChallenge(`Bearer realm="x", error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource"`)
	if ch.Error != "insufficient_scope" || ch.Scope != "a b" || ch.ResourceMetadataURL != "https://h/.well-known/oauth-protected-resource" {
		t.Errorf("%+v", ch)
	}
	if c := ParseChallenge(`Basic realm="x"`); c.Error != "" || c.Scope != "" {
		t.Errorf("basic: %+v", c)
	}
}
