package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// flows3Server speaks the sign-in endpoints of OpenRouter (the key exchange), xAI and Kimi Code
// (device codes, tokens, rotating refresh tokens) on 127.0.0.1.
type flows3Server struct {
	mu      sync.Mutex
	polls   int
	gen     int
	valid   map[string]bool
	refresh int
	fail    int // refreshes answered 503 before one succeeds
}

func (s *flows3Server) handle(w http.ResponseWriter, r *http.Request, params map[string]string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	issue := func(kind string) map[string]any {
		s.gen++
		ref := fmt.Sprintf("refresh-%s-%d", kind, s.gen)
		s.valid[ref] = true
		return map[string]any{"access_token": fmt.Sprintf("access-%s-%d", kind, s.gen), "refresh_token": ref, "expires_in": 3600, "token_type": "Bearer"}
	}
	pending := func() bool { s.polls--; return s.polls >= 0 }
	switch r.URL.Path {
	case "/api/v1/auth/keys":
		if params["code"] != "the-code" || params["code_verifier"] == "" || params["code_challenge_method"] != "S256" {
			writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "bad code"}})
			return true
		}
		writeJSON(w, 200, map[string]any{"key": "sk-or-v1-from-oauth", "user_id": "u1"})
	case "/oauth2/device/code":
		if params["client_id"] != xaiClientID || params["scope"] != xaiScope {
			writeJSON(w, 400, map[string]any{"error": "invalid_client"})
			return true
		}
		writeJSON(w, 200, map[string]any{"device_code": "xai-dev", "user_code": "XAI-CODE", "verification_uri": "https://accounts.x.ai/device", "expires_in": 600, "interval": 1})
	case "/oauth2/token", "/api/oauth/token":
		kind := "xai"
		if r.URL.Path == "/api/oauth/token" {
			kind = "kimi"
		}
		switch params["grant_type"] {
		case "urn:ietf:params:oauth:grant-type:device_code":
			if pending() {
				writeJSON(w, 400, map[string]any{"error": "authorization_pending"})
				return true
			}
			writeJSON(w, 200, issue(kind))
		case "refresh_token":
			s.refresh++
			if s.fail > 0 {
				s.fail--
				writeJSON(w, 503, map[string]any{"error": "temporarily_unavailable"})
				return true
			}
			if !s.valid[params["refresh_token"]] {
				writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "Refresh token is invalid or was already used"})
				return true
			}
			delete(s.valid, params["refresh_token"])
			writeJSON(w, 200, issue(kind))
		default:
			writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
		}
	case "/api/oauth/device_authorization":
		writeJSON(w, 200, map[string]any{"device_code": "kimi-dev", "user_code": "KIMI-CODE", "verification_uri": "https://www.kimi.com/code/authorize_device",
			"verification_uri_complete": "https://www.kimi.com/code/authorize_device?user_code=KIMI-CODE", "expires_in": 600, "interval": 1})
	default:
		return false
	}
	return true
}

// The account sign-ins added in session 3, end to end against the loopback server: OpenRouter
// (the browser reaching the callback, and the pasted redirect URL), xAI and Kimi Code (device
// codes with a pending poll first), then a refresh of each; a refused refresh says so.
func TestSignInFlows3(t *testing.T) {
	srv := newOAuthServer(t)
	f := &flows3Server{valid: map[string]bool{}}
	srv.extra = f.handle
	t.Setenv("PI_OAUTH_CALLBACK_HOST", "127.0.0.1")
	for _, tc := range []struct {
		name, provider string
		ui             *script
		check          func(t *testing.T, c *Credential)
	}{
		{"openrouter browser callback", "openrouter", &script{browser: true}, func(t *testing.T, c *Credential) {
			if c.Access != "sk-or-v1-from-oauth" || c.Refresh != "" || c.Expires != maxSafeInteger {
				t.Errorf("%+v", c)
			}
		}},
		{"openrouter pasted redirect URL", "openrouter", &script{pasteRedirect: true}, func(t *testing.T, c *Credential) {
			if got := FlowFor("openrouter").ToAuth(c).APIKey; got != "sk-or-v1-from-oauth" {
				t.Errorf("key %q", got)
			}
		}},
		{"xai device code", "xai", &script{}, func(t *testing.T, c *Credential) {
			if !strings.HasPrefix(c.Access, "access-xai-") || !strings.HasPrefix(c.Refresh, "refresh-xai-") {
				t.Errorf("%+v", c)
			}
			// pi keeps the expiry five minutes early.
			if left := time.Until(time.UnixMilli(c.Expires)); left > 56*time.Minute || left < 54*time.Minute {
				t.Errorf("expires in %v", left)
			}
		}},
		{"kimi device code", "kimi-coding", &script{}, func(t *testing.T, c *Credential) {
			if got := FlowFor("kimi-coding").ToAuth(c).Headers["Authorization"]; got != "Bearer "+c.Access {
				t.Errorf("header %q", got)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.polls = 1
			tc.ui.t = t
			store := NewStore(t.TempDir())
			method, err := LoginMethod(tc.provider, false, false)
			if err != nil || method != TypeOAuth {
				t.Fatalf("method %q %v", method, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := Login(ctx, store, tc.provider, method, tc.ui); err != nil {
				t.Fatal(err)
			}
			c := stored(t, store, tc.provider)
			if c.Type != TypeOAuth {
				t.Fatalf("stored %+v", c)
			}
			tc.check(t, c)
			if tc.provider == "openrouter" {
				return
			}
			kind := tc.ui.notices
			if len(kind) == 0 || kind[0].Kind != NoticeDeviceCode || !strings.HasPrefix(kind[0].VerificationURI, "https://") {
				t.Errorf("notices %+v", kind)
			}
			n, err := FlowFor(tc.provider).Refresh(ctx, c)
			if err != nil || n.Access == c.Access || n.Refresh == c.Refresh {
				t.Fatalf("refresh: %v %+v", err, n)
			}
			// The used refresh token is refused now; the text says which provider.
			if _, err := FlowFor(tc.provider).Refresh(ctx, c); err == nil || !strings.Contains(err.Error(), map[string]string{"xai": "xAI OAuth token refresh failed (HTTP 400): invalid_grant", "kimi-coding": "Kimi Code token refresh unauthorized (status 400)"}[tc.provider]) {
				t.Errorf("refused refresh: %v", err)
			}
		})
	}
}

// Kimi Code retries a refresh that meets a 5xx, as pi does.
func TestKimiRefreshRetries(t *testing.T) {
	srv := newOAuthServer(t)
	f := &flows3Server{valid: map[string]bool{"refresh-kimi-0": true}, fail: 2}
	srv.extra = f.handle
	kimiRetryDelay = func(int) time.Duration { return time.Millisecond }
	defer func() { kimiRetryDelay = func(n int) time.Duration { return time.Second << (n - 1) } }()
	c, err := kimiFlow{}.Refresh(context.Background(), newOAuth("old", "refresh-kimi-0", 0))
	if err != nil || f.refresh != 3 || !strings.HasPrefix(c.Access, "access-kimi-") {
		t.Fatalf("%v after %d refreshes: %+v", err, f.refresh, c)
	}
}
