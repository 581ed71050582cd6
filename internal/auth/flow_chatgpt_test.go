package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// chatgptServer is OpenAI's authorization server for Sign in with ChatGPT on 127.0.0.1: the
// authorize endpoint registers a client for the installation and redirects back with the code,
// the state and the issued client id; the token endpoint checks the issued client, PKCE, the
// redirect URI and the resource, and rotates refresh tokens.
type chatgptServer struct {
	mu         sync.Mutex
	challenges map[string]string // code → PKCE challenge
	hosts      []string          // ext_agent_host_id of every authorize request
	clients    map[string]bool
	valid      map[string]bool // refresh tokens
	gen        int
	refuseCode bool // the code exchange answers 400
	noScope    bool // the grant lacks direct token use
	forms      []url.Values
}

func (s *chatgptServer) handle(w http.ResponseWriter, r *http.Request, p map[string]string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/api/accounts/authorize":
		q := r.URL.Query()
		for k, want := range map[string]string{"client_id": chatgptDynamicClient, "response_type": "code", "redirect_uri": chatgptRedirectURI,
			"resource": "https://api.openai.com/v1", "scope": "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct",
			"code_challenge_method": "S256", "agent_name_hint": chatgptAgentName} {
			if q.Get(k) != want {
				http.Error(w, "bad "+k+": "+q.Get(k), 400)
				return true
			}
		}
		if q.Get("state") == "" || q.Get("nonce") == "" || q.Get("code_challenge") == "" || !strings.HasPrefix(q.Get("ext_agent_host_id"), "urn:uuid:") {
			http.Error(w, "missing parameters", 400)
			return true
		}
		s.gen++
		code, client := fmt.Sprintf("chatgpt-code-%d", s.gen), fmt.Sprintf("app_issued_%d", s.gen)
		s.challenges[code] = q.Get("code_challenge")
		s.clients[client] = true
		s.hosts = append(s.hosts, q.Get("ext_agent_host_id"))
		http.Redirect(w, r, chatgptRedirectURI+"?code="+code+"&state="+url.QueryEscape(q.Get("state"))+"&client_id="+client, http.StatusFound)
	case "/api/accounts/oauth/token":
		form := url.Values{}
		for k, v := range p {
			form.Set(k, v)
		}
		s.forms = append(s.forms, form)
		if r.Header.Get("Accept") != "application/json" || !s.clients[p["client_id"]] || p["resource"] != "https://api.openai.com/v1" {
			writeJSON(w, 400, map[string]any{"error": "invalid_client"})
			return true
		}
		issue := func() {
			s.gen++
			ref := fmt.Sprintf("chatgpt-refresh-%d", s.gen)
			s.valid[ref] = true
			scope := "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"
			if s.noScope {
				scope = "openid profile email offline_access"
			}
			writeJSON(w, 200, map[string]any{"access_token": fmt.Sprintf("chatgpt-access-%d", s.gen), "refresh_token": ref,
				"id_token": "header.payload.sig", "scope": scope, "expires_in": 3600, "token_type": "Bearer"})
		}
		switch p["grant_type"] {
		case "authorization_code":
			sum := sha256.Sum256([]byte(p["code_verifier"]))
			if s.refuseCode || s.challenges[p["code"]] != base64.RawURLEncoding.EncodeToString(sum[:]) || p["redirect_uri"] != chatgptRedirectURI {
				writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
				return true
			}
			delete(s.challenges, p["code"])
			issue()
		case "refresh_token":
			if !s.valid[p["refresh_token"]] {
				writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
				return true
			}
			delete(s.valid, p["refresh_token"])
			issue()
		default:
			writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
		}
	default:
		return false
	}
	return true
}

// chatgptPerson signs in with ChatGPT: as a browser it opens the authorize URL and follows
// OpenAI's redirect to the loopback callback (keeping the page it gets); pasting, it opens
// the URL without following and pastes where OpenAI sent it.
type chatgptPerson struct {
	t       *testing.T
	paste   bool
	mu      sync.Mutex
	pasted  string
	status  int
	page    string
	urlSeen string
	ready   chan struct{}
}

func (p *chatgptPerson) Notify(n Notice) {
	if n.Kind != NoticeAuthURL {
		return
	}
	p.urlSeen = n.URL
	client := &http.Client{Timeout: 10 * time.Second}
	if p.paste {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	go func() {
		defer close(p.ready)
		resp, err := client.Get(n.URL)
		if err != nil {
			p.t.Errorf("browser: %v", err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.status, p.page = resp.StatusCode, string(body)
		if p.paste {
			p.pasted = resp.Header.Get("Location")
		}
	}()
}

func (p *chatgptPerson) Prompt(ctx context.Context, pr Prompt) (string, error) {
	if pr.Kind == PromptManualCode && p.paste {
		<-p.ready
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.pasted, nil
	}
	<-ctx.Done()
	return "", errors.New("Login cancelled")
}

func freeChatGPTPort(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:1455")
	if err != nil {
		t.Skipf("port 1455 (the ChatGPT callback) is taken here: %v", err)
	}
	ln.Close()
}

// Sign in with ChatGPT on the openai provider, end to end against the loopback authorization
// server: the browser reaching the callback (the page says it worked only after the token
// exchange) and the pasted redirect URL; the installation's device id created once in
// settings.json and sent as the agent host; the issued client id kept and used to refresh;
// the token is the openai provider's API key.
func TestSignInChatGPT(t *testing.T) {
	srv := newOAuthServer(t)
	cs := &chatgptServer{challenges: map[string]string{}, clients: map[string]bool{}, valid: map[string]bool{}}
	srv.extra = cs.handle
	t.Setenv("PI_OAUTH_CALLBACK_HOST", "127.0.0.1")
	dir := t.TempDir()
	// A settings.json of the user's: the device id is added, the rest kept.
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte("{\n  \"defaultProvider\": \"openai\" // mine\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := NewStore(dir)
	method, err := LoginMethod("openai", false, false)
	if err != nil || method != TypeOAuth {
		t.Fatalf("method %q %v", method, err)
	}
	login := func(p *chatgptPerson) (*Credential, error) {
		freeChatGPTPort(t)
		p.t, p.ready = t, make(chan struct{})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := Login(ctx, store, "openai", method, p)
		if p.urlSeen != "" {
			<-p.ready
		}
		return c, err
	}

	browser := &chatgptPerson{}
	c, err := login(browser)
	if err != nil {
		t.Fatal(err)
	}
	if browser.status != 200 || !strings.Contains(browser.page, "Signed in to ChatGPT") {
		t.Errorf("callback page %d %q", browser.status, browser.page)
	}
	got := stored(t, store, "openai")
	if got.Access != c.Access || got.Get("clientId") != "app_issued_1" || !strings.HasPrefix(got.Refresh, "chatgpt-refresh-") {
		t.Errorf("stored %+v", got)
	}
	if left := time.Until(time.UnixMilli(got.Expires)); left > 57*time.Minute || left < 56*time.Minute {
		t.Errorf("expires in %v (pi stores it three minutes early)", left)
	}
	raw, _ := os.ReadFile(store.Path)
	if !strings.Contains(string(raw), `"scopes": [`) || !strings.Contains(string(raw), `"chatgpt.tokens.use.direct"`) {
		t.Errorf("auth.json lacks the scopes:\n%s", raw)
	}
	sdata, _ := os.ReadFile(settings)
	var sv struct{ DeviceID string }
	if err := json.Unmarshal([]byte(strings.Replace(string(sdata), "// mine", "", 1)), &sv); err != nil || !uuidPattern.Get().MatchString(sv.DeviceID) ||
		!strings.Contains(string(sdata), "// mine") {
		t.Fatalf("settings.json after sign-in: %v\n%s", err, sdata)
	}
	if cs.hosts[0] != "urn:uuid:"+strings.ToLower(sv.DeviceID) {
		t.Errorf("agent host %q, device id %q", cs.hosts[0], sv.DeviceID)
	}
	if ra := FlowFor("openai").ToAuth(got); ra.APIKey != got.Access || len(ra.Headers) != 0 || ra.BaseURL != "" {
		t.Errorf("request auth %+v", ra)
	}

	// The pasted redirect URL; the same installation (device id) signs in again.
	paster := &chatgptPerson{paste: true}
	if _, err := login(paster); err != nil {
		t.Fatal(err)
	}
	if len(cs.hosts) != 2 || cs.hosts[1] != cs.hosts[0] {
		t.Errorf("agent hosts %q", cs.hosts)
	}
	got = stored(t, store, "openai")
	if got.Get("clientId") != "app_issued_3" {
		t.Errorf("the second sign-in's client: %+v", got)
	}

	// Refresh: with the issued client id and the resource; the old refresh token is spent.
	src := &Source{Store: store, Provider: "openai", Flow: FlowFor("openai")}
	ra, err := src.Resolve(context.Background(), true)
	if err != nil || ra.APIKey == got.Access {
		t.Fatalf("refresh after a 401: %q %v", ra.APIKey, err)
	}
	last := cs.forms[len(cs.forms)-1]
	if last.Get("grant_type") != "refresh_token" || last.Get("client_id") != "app_issued_3" || last.Get("refresh_token") != got.Refresh {
		t.Errorf("refresh form %v", last)
	}
	if n := stored(t, store, "openai"); n.Get("clientId") != "app_issued_3" || n.Access != ra.APIKey {
		t.Errorf("after refresh %+v", n)
	}
	if _, err := FlowFor("openai").Refresh(context.Background(), got); err == nil || !strings.Contains(err.Error(), "OpenAI OAuth token request failed (400)") {
		t.Errorf("spent refresh token: %v", err)
	}
	noClient := newOAuth("a", "b", 0)
	if _, err := FlowFor("openai").Refresh(context.Background(), noClient); err == nil || !strings.Contains(err.Error(), "does not contain an issued client ID; reconnect ChatGPT") {
		t.Errorf("no client id: %v", err)
	}

	// A grant without direct token use is refused.
	cs.noScope = true
	if _, err := login(&chatgptPerson{paste: true}); err == nil || err.Error() != "OpenAI OAuth grant did not include chatgpt.tokens.use.direct" {
		t.Errorf("grant without the scope: %v", err)
	}
	cs.noScope = false

	// A refused exchange: the browser is told the sign-in failed, and so is the person.
	cs.refuseCode = true
	failing := &chatgptPerson{}
	if _, err := login(failing); err == nil || !strings.Contains(err.Error(), "OpenAI OAuth token request failed (400)") {
		t.Errorf("refused exchange: %v", err)
	}
	if failing.status != 502 || !strings.Contains(failing.page, "ChatGPT sign-in failed") || strings.Contains(failing.page, "Signed in") {
		t.Errorf("the page of a failed exchange: %d %q", failing.status, failing.page)
	}
	cs.refuseCode = false
}

// What a person pastes is checked as pi checks it.
func TestChatGPTPasted(t *testing.T) {
	for in, want := range map[string]string{
		"the-code": "Paste the full callback URL from the browser",
		"http://localhost:1455/auth/callback?code=c&state=s&client_id=x":       "The pasted callback URL must start with http://127.0.0.1:1455/auth/callback",
		"http://127.0.0.1:1455/auth/callback?error=access_denied":              "ChatGPT authorization failed: access_denied",
		"http://127.0.0.1:1455/auth/callback?state=s":                          "Missing authorization code",
		"http://127.0.0.1:1455/auth/callback?code=c&client_id=x":               "Missing OAuth state",
		"http://127.0.0.1:1455/auth/callback?code=c&state=forged&client_id=x":  "OAuth state mismatch",
		"http://127.0.0.1:1455/auth/callback?code=c&state=s":                   "OpenAI OAuth registration callback did not contain an issued client ID",
		"http://127.0.0.1:1455/auth/callback?code=c&state=s&client_id=%20app ": "",
	} {
		code, client, err := chatgptPasted(in, "s")
		if want == "" {
			if err != nil || code != "c" || client != "app" {
				t.Errorf("%q: %q %q %v", in, code, client, err)
			}
		} else if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// The shared callback answers the browser after the token exchange: a refused exchange shows a
// failure page (it said "Signed in" before the exchange), a second callback is told it was
// handled.
func TestCallbackPageAfterExchange(t *testing.T) {
	for _, fail := range []bool{false, true} {
		cb, err := startCallback(context.Background(), "Example", "127.0.0.1", 0, "/cb", "127.0.0.1", "st",
			func(_ context.Context, q url.Values, redirect string) (*Credential, error) {
				if !strings.HasSuffix(redirect, "/cb") {
					t.Errorf("redirect %q", redirect)
				}
				if fail {
					return nil, errors.New("token exchange failed (HTTP 400): invalid_grant")
				}
				return newOAuth("tok-"+q.Get("code"), "r", 1), nil
			})
		if err != nil {
			t.Fatal(err)
		}
		get := func(q string) (int, string) {
			resp, err := http.Get(cb.redirectURI + q)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if st, _ := get("?code=c&state=forged"); st != 400 {
			t.Errorf("forged state: %d", st)
		}
		st, page := get("?code=c&state=st")
		r := <-cb.results
		switch {
		case fail && (st != 502 || !strings.Contains(page, "Example sign-in failed") || !strings.Contains(page, "invalid_grant") || r.err == nil):
			t.Errorf("failed exchange: %d %q %v", st, page, r.err)
		case !fail && (st != 200 || !strings.Contains(page, "Signed in to Example") || r.cred == nil || r.cred.Access != "tok-c"):
			t.Errorf("exchange: %d %q %+v", st, page, r)
		}
		if st, _ := get("?code=d&state=st"); st != 409 {
			t.Errorf("second callback: %d", st)
		}
		cb.close()
	}
}
