package auth

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// oauthServer is a loopback authorization server speaking the endpoints of the three sign-ins
// (Anthropic's JSON token endpoint, OpenAI's form token endpoint and device auth, GitHub's
// device flow and Copilot's token endpoint). Refresh tokens rotate: a used one is refused, so a
// second refresh with the same token fails as it would at the provider.
type oauthServer struct {
	*httptest.Server
	mu        sync.Mutex
	refreshes int
	valid     map[string]bool // refresh tokens that still work
	gen       int
	refuse    bool // refresh answers 400
	polls     int  // device-code polls before approval
	requests  []string
	delay     time.Duration // before answering a refresh
	// extra answers the endpoints of further sign-ins (true when it answered).
	extra func(w http.ResponseWriter, r *http.Request, params map[string]string) bool
}

func newOAuthServer(t *testing.T) *oauthServer {
	s := &oauthServer{valid: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	t.Setenv(testOriginEnv, s.URL)
	return s
}

func codexJWT(account string) string {
	enc := func(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }
	return enc(`{"alg":"none"}`) + "." + enc(`{"https://api.openai.com/auth":{"chatgpt_account_id":"`+account+`"}}`) + ".sig"
}

func (s *oauthServer) issue(kind string) (access, refresh string) {
	s.gen++
	refresh = fmt.Sprintf("refresh-%s-%d", kind, s.gen)
	s.valid[refresh] = true
	access = fmt.Sprintf("access-%s-%d", kind, s.gen)
	switch kind {
	case "anthropic":
		access = "sk-ant-oat01-" + access
	case "codex":
		access = codexJWT("acct-" + fmt.Sprint(s.gen))
	}
	return access, refresh
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *oauthServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	var params map[string]string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(body, &params)
	} else {
		q, _ := url.ParseQuery(string(body))
		params = map[string]string{}
		for k := range q {
			params[k] = q.Get(k)
		}
	}
	if s.extra != nil && s.extra(w, r, params) {
		return
	}
	switch r.URL.Path {
	case "/v1/oauth/token", "/oauth/token": // anthropic, codex
		kind := "anthropic"
		if r.URL.Path == "/oauth/token" {
			kind = "codex"
		}
		s.token(w, kind, params)
	case "/api/accounts/deviceauth/usercode":
		writeJSON(w, 200, map[string]any{"device_auth_id": "dev-1", "user_code": "ABCD-1234", "interval": "0"})
	case "/api/accounts/deviceauth/token":
		s.mu.Lock()
		s.polls--
		pending := s.polls >= 0
		s.mu.Unlock()
		if pending {
			writeJSON(w, 403, map[string]any{"error": map[string]any{"code": "deviceauth_authorization_pending"}})
			return
		}
		writeJSON(w, 200, map[string]any{"authorization_code": "code-from-device", "code_verifier": "verifier-from-device"})
	case "/login/device/code":
		writeJSON(w, 200, map[string]any{"device_code": "gh-dev", "user_code": "WXYZ-0000", "verification_uri": "https://github.com/login/device", "interval": 0, "expires_in": 900})
	case "/login/oauth/access_token":
		s.mu.Lock()
		s.polls--
		pending := s.polls >= 0
		s.mu.Unlock()
		if pending {
			writeJSON(w, 200, map[string]any{"error": "authorization_pending"})
			return
		}
		s.mu.Lock()
		s.valid["gho_github"] = true
		s.mu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": "gho_github", "token_type": "bearer"})
	case "/copilot_internal/v2/token":
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		ok := s.valid[tok] && !s.refuse
		s.refreshes++
		s.gen++
		n := s.gen
		s.mu.Unlock()
		if !ok {
			writeJSON(w, 401, map[string]any{"message": "Bad credentials"})
			return
		}
		writeJSON(w, 200, map[string]any{"token": fmt.Sprintf("tid=1;exp=9;proxy-ep=proxy.enterprise.example;copilot-%d", n), "expires_at": time.Now().Add(30 * time.Minute).Unix()})
	default:
		http.NotFound(w, r)
	}
}

func (s *oauthServer) token(w http.ResponseWriter, kind string, p map[string]string) {
	if s.delay > 0 {
		time.Sleep(s.delay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch p["grant_type"] {
	case "authorization_code":
		if p["code"] == "" || p["code_verifier"] == "" || p["redirect_uri"] == "" {
			writeJSON(w, 400, map[string]any{"error": "invalid_request"})
			return
		}
		access, refresh := s.issue(kind)
		writeJSON(w, 200, map[string]any{"access_token": access, "refresh_token": refresh, "expires_in": 3600})
	case "refresh_token":
		s.refreshes++
		if s.refuse || !s.valid[p["refresh_token"]] {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "Refresh token is invalid or was already used"})
			return
		}
		delete(s.valid, p["refresh_token"])
		access, refresh := s.issue(kind)
		writeJSON(w, 200, map[string]any{"access_token": access, "refresh_token": refresh, "expires_in": 3600})
	default:
		writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
	}
}

func (s *oauthServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes
}
