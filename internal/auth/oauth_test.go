package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// script is a person at a sign-in: it answers prompts from a list and, when the flow shows a
// URL to open, plays the browser (following the redirect to the loopback callback) or keeps the
// redirect URL to paste.
type script struct {
	t             *testing.T
	answers       map[string]string // prompt kind (or "select") → answer
	browser       bool              // follow the authorize URL's redirect to the callback
	pasteRedirect bool              // answer the manual-code prompt with the redirect URL
	notices       []Notice
	mu            sync.Mutex
	redirect      string
}

func (s *script) Notify(n Notice) {
	s.mu.Lock()
	s.notices = append(s.notices, n)
	s.mu.Unlock()
	if n.Kind != NoticeAuthURL {
		return
	}
	u, err := url.Parse(n.URL)
	if err != nil {
		s.t.Errorf("auth url %q: %v", n.URL, err)
		return
	}
	q := u.Query()
	back := q.Get("redirect_uri")
	if back == "" {
		back = q.Get("callback_url") // OpenRouter's name for it
	}
	redirect := back + "?code=the-code&state=" + url.QueryEscape(q.Get("state"))
	s.mu.Lock()
	s.redirect = redirect
	s.mu.Unlock()
	if s.browser {
		go func() {
			time.Sleep(50 * time.Millisecond)
			resp, err := http.Get(redirect)
			if err != nil {
				s.t.Errorf("browser: %v", err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				s.t.Errorf("browser: callback answered %d", resp.StatusCode)
			}
		}()
	}
}

func (s *script) Prompt(ctx context.Context, p Prompt) (string, error) {
	if p.Kind == PromptManualCode && s.pasteRedirect {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.redirect, nil
	}
	if a, ok := s.answers[p.Kind]; ok {
		return a, nil
	}
	<-ctx.Done() // wait for the callback to make the answer unnecessary
	return "", errors.New("Login cancelled")
}

func stored(t *testing.T, s *Store, provider string) *Credential {
	t.Helper()
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	c := f.Get(provider)
	if c == nil {
		t.Fatalf("no %s credential stored", provider)
	}
	return c
}

// Every sign-in end to end against the loopback authorization server: the browser reaching the
// loopback callback, the pasted redirect URL, the device codes.
func TestSignInFlows(t *testing.T) {
	srv := newOAuthServer(t)
	t.Setenv("PI_OAUTH_CALLBACK_HOST", "127.0.0.1")
	ctx := context.Background()
	for _, tc := range []struct {
		name, provider string
		ui             *script
		check          func(c *Credential) string
	}{
		{"anthropic browser callback", "anthropic", &script{answers: map[string]string{PromptSelect: "browser"}, browser: true},
			func(c *Credential) string { return prefix(c.Access, "sk-ant-oat01-") }},
		{"anthropic pasted redirect URL", "anthropic", &script{answers: map[string]string{PromptSelect: "browser"}, pasteRedirect: true},
			func(c *Credential) string { return prefix(c.Access, "sk-ant-oat01-") }},
		{"anthropic copy code", "anthropic", &script{answers: map[string]string{PromptSelect: "copy_code", PromptManualCode: "the-code"}},
			func(c *Credential) string { return prefix(c.Access, "sk-ant-oat01-") }},
		{"codex pasted redirect URL", "openai-codex", &script{answers: map[string]string{PromptSelect: "browser"}, pasteRedirect: true},
			func(c *Credential) string {
				if c.Get("accountId") == "" {
					return "no accountId"
				}
				return ""
			}},
		{"codex device code", "openai-codex", &script{answers: map[string]string{PromptSelect: "device_code"}},
			func(c *Credential) string { return "" }},
		{"copilot device flow", "github-copilot", &script{answers: map[string]string{PromptText: ""}},
			func(c *Credential) string {
				if c.Refresh != "gho_github" || !strings.Contains(c.Access, "proxy-ep=") {
					return fmt.Sprintf("tokens %q %q", c.Access, c.Refresh)
				}
				if got := FlowFor("github-copilot").ToAuth(c).BaseURL; got != srv.URL {
					return "base URL " + got
				}
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.polls = 1
			tc.ui.t = t
			store := NewStore(t.TempDir())
			method, err := LoginMethod(tc.provider, false, false)
			if err != nil || method != TypeOAuth {
				t.Fatalf("method %q %v", method, err)
			}
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			c, err := Login(cctx, store, tc.provider, method, tc.ui)
			if err != nil {
				t.Fatal(err)
			}
			got := stored(t, store, tc.provider)
			if got.Type != TypeOAuth || got.Access != c.Access || got.Refresh == "" || got.Expires <= time.Now().UnixMilli() {
				t.Errorf("stored %+v", got)
			}
			if msg := tc.check(got); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func prefix(s, p string) string {
	if !strings.HasPrefix(s, p) {
		return fmt.Sprintf("%q lacks %q", s, p)
	}
	return ""
}

// A pasted URL whose state is not the one sent is refused.
func TestPastedStateMismatch(t *testing.T) {
	newOAuthServer(t)
	ui := &script{t: t, answers: map[string]string{PromptSelect: "browser", PromptManualCode: "http://localhost:53692/callback?code=c&state=forged"}}
	_, err := Login(context.Background(), NewStore(t.TempDir()), "anthropic", TypeOAuth, ui)
	if err == nil || err.Error() != "OAuth state mismatch" {
		t.Errorf("%v", err)
	}
}

func expiredEntry(t *testing.T, s *Store, provider, refresh string) {
	t.Helper()
	_, err := s.Modify(context.Background(), provider, func(*Credential) (*Credential, error) {
		return newOAuth("old-access-token-1234", refresh, time.Now().Add(-time.Minute).UnixMilli()), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A token about to expire is refreshed before the request and stored; a fresh one is not.
func TestRefreshBeforeExpiry(t *testing.T) {
	srv := newOAuthServer(t)
	store := NewStore(t.TempDir())
	srv.valid["refresh-seed"] = true
	expiredEntry(t, store, "anthropic", "refresh-seed")
	src := &Source{Store: store, Provider: "anthropic", Flow: FlowFor("anthropic")}
	ra, err := src.Resolve(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ra.APIKey, "sk-ant-oat01-access-anthropic-") || srv.count() != 1 {
		t.Fatalf("key %q after %d refreshes", ra.APIKey, srv.count())
	}
	if c := stored(t, store, "anthropic"); c.Access != ra.APIKey || c.Refresh == "refresh-seed" {
		t.Errorf("stored %+v", c)
	}
	if _, err := src.Resolve(context.Background(), false); err != nil || srv.count() != 1 {
		t.Errorf("a fresh token was refreshed again (%d): %v", srv.count(), err)
	}
	// After a 401 the token is refreshed once more even though it has not expired.
	ra2, err := src.Resolve(context.Background(), true)
	if err != nil || ra2.APIKey == ra.APIKey || srv.count() != 2 {
		t.Errorf("after a 401: %q (%d refreshes) %v", ra2.APIKey, srv.count(), err)
	}
}

// A refused refresh says how to sign in again and never shows a token.
func TestRefusedRefresh(t *testing.T) {
	srv := newOAuthServer(t)
	srv.refuse = true
	store := NewStore(t.TempDir())
	expiredEntry(t, store, "openai-codex", "refresh-secret-value")
	_, err := (&Source{Store: store, Provider: "openai-codex", Flow: FlowFor("openai-codex")}).Resolve(context.Background(), false)
	if err == nil || !strings.Contains(err.Error(), "pigo auth login openai-codex") || !strings.Contains(err.Error(), "OAuth refresh failed for openai-codex") {
		t.Fatalf("%v", err)
	}
	if strings.Contains(err.Error(), "refresh-secret-value") || strings.Contains(err.Error(), "old-access-token") {
		t.Errorf("a token in the error: %v", err)
	}
	if c := stored(t, store, "openai-codex"); c.Refresh != "refresh-secret-value" {
		t.Errorf("the entry changed: %+v", c)
	}
}

// Two processes refreshing the same expired token at once: the file lock and the re-check
// under it make exactly one refresh (a rotated refresh token cannot be spent twice), and both
// get the new token.
func TestTwoProcessesRefreshOnce(t *testing.T) {
	srv := newOAuthServer(t)
	srv.delay = 300 * time.Millisecond
	dir := t.TempDir()
	store := NewStore(dir)
	srv.valid["refresh-shared"] = true
	expiredEntry(t, store, "anthropic", "refresh-shared")
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRefresh$")
			cmd.Env = append(os.Environ(), "PIGO_AUTH_HELPER="+dir, testOriginEnv+"="+srv.URL)
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	tok := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "TOKEN ") {
				return l[6:]
			}
		}
		return ""
	}
	if srv.count() != 1 || tok(outs[0]) == "" || tok(outs[0]) != tok(outs[1]) {
		t.Errorf("%d refreshes; tokens %q %q", srv.count(), tok(outs[0]), tok(outs[1]))
	}
	if c := stored(t, store, "anthropic"); c.Access != tok(outs[0]) {
		t.Errorf("stored %q", c.Access)
	}
}

// TestHelperRefresh is the child process of TestTwoProcessesRefreshOnce.
func TestHelperRefresh(t *testing.T) {
	dir := os.Getenv("PIGO_AUTH_HELPER")
	if dir == "" {
		t.Skip("helper process")
	}
	ra, err := (&Source{Store: NewStore(dir), Provider: "anthropic", Flow: FlowFor("anthropic")}).Resolve(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("TOKEN " + ra.APIKey)
}

// The test origin is honoured only for a loopback address.
func TestEndpointOnlyLoopback(t *testing.T) {
	t.Setenv(testOriginEnv, "http://attacker.example:80")
	if got := Endpoint(anthropicTokenURL); got != anthropicTokenURL {
		t.Errorf("%q", got)
	}
	t.Setenv(testOriginEnv, "http://127.0.0.1:9")
	if got := Endpoint(anthropicTokenURL); got != "http://127.0.0.1:9/v1/oauth/token" {
		t.Errorf("%q", got)
	}
}
