package auth

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Anthropic's Claude Pro/Max sign-in (authorization code with PKCE): a browser flow with a
// loopback callback (port 53692, or any free port), or the "copy code" flow whose page shows a
// code to paste. The endpoints and client are the ones pi uses.
const (
	anthropicClientIDB64  = "OWQxYzI1MGEtZTYxYi00NGQ5LTg4ZWQtNTk0NGQxOTYyZjVl"
	anthropicAuthorizeURL = "https://claude.ai/oauth/authorize"
	anthropicTokenURL     = "https://platform.claude.com/v1/oauth/token"
	anthropicPort         = 53692
	anthropicCopyRedirect = "https://platform.claude.com/oauth/code/callback"
	anthropicScopes       = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
)

func anthropicClientID() string {
	b, _ := base64.StdEncoding.DecodeString(anthropicClientIDB64)
	return string(b)
}

type anthropicFlow struct{}

func (anthropicFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	method, err := ui.Prompt(ctx, Prompt{Kind: PromptSelect, Message: "Select Anthropic login method:",
		Options: []Option{{"browser", "Browser login (default)"}, {"copy_code", "Copy code login (headless)"}}})
	if err != nil {
		return nil, err
	}
	verifier, challenge := pkce()
	authURL := func(redirect string) string {
		q := url.Values{}
		q.Set("code", "true")
		q.Set("client_id", anthropicClientID())
		q.Set("response_type", "code")
		q.Set("redirect_uri", redirect)
		q.Set("scope", anthropicScopes)
		q.Set("code_challenge", challenge)
		q.Set("code_challenge_method", "S256")
		q.Set("state", verifier)
		return Endpoint(anthropicAuthorizeURL) + "?" + q.Encode()
	}
	switch method {
	case "copy_code":
		ui.Notify(Notice{Kind: NoticeAuthURL, URL: authURL(anthropicCopyRedirect),
			Instructions: "Complete login in your browser, then copy the code Anthropic shows and paste it here."})
		in, err := ui.Prompt(ctx, Prompt{Kind: PromptManualCode, Message: "Paste the code Anthropic shows after you sign in:", Placeholder: "code#state"})
		if err != nil {
			return nil, err
		}
		code, state := parseAuthorizationInput(in)
		if state != "" && state != verifier {
			return nil, errors.New("OAuth state mismatch")
		}
		if code == "" {
			return nil, errors.New("Missing authorization code")
		}
		if state == "" {
			state = verifier
		}
		ui.Notify(Notice{Kind: NoticeProgress, Message: "Exchanging authorization code for tokens..."})
		return anthropicExchange(ctx, code, state, verifier, anthropicCopyRedirect)
	case "browser":
	default:
		return nil, fmt.Errorf("Unknown Anthropic login method: %s", method)
	}
	// The callback trades the code with its own redirect URI (the port may be another one).
	complete := func(ctx context.Context, q url.Values, redirect string) (*Credential, error) {
		return anthropicExchange(ctx, q.Get("code"), verifier, verifier, redirect)
	}
	cb, err := startCallback(ctx, "Anthropic", callbackHost(), anthropicPort, "/callback", "localhost", verifier, complete)
	if err != nil {
		cb, _ = startCallback(ctx, "Anthropic", callbackHost(), 0, "/callback", "localhost", verifier, complete)
	}
	redirect := fmt.Sprintf("http://localhost:%d/callback", anthropicPort)
	if cb != nil {
		defer cb.close()
		redirect = cb.redirectURI
	}
	ui.Notify(Notice{Kind: NoticeAuthURL, URL: authURL(redirect),
		Instructions: "Complete login in your browser. If the browser is on another machine, paste the final redirect URL here."})
	cred, input, err := waitCodeOrInput(ctx, ui, cb, Prompt{Kind: PromptManualCode,
		Message: "Complete login in your browser, or paste the authorization code / redirect URL here:", Placeholder: redirect})
	if err != nil || cred != nil {
		return cred, err
	}
	state := verifier
	code, st := parseAuthorizationInput(input)
	if st != "" && st != verifier {
		return nil, errors.New("OAuth state mismatch")
	}
	if st != "" {
		state = st
	}
	if code == "" {
		return nil, errors.New("Missing authorization code")
	}
	ui.Notify(Notice{Kind: NoticeProgress, Message: "Exchanging authorization code for tokens..."})
	return anthropicExchange(ctx, code, state, verifier, redirect)
}

func anthropicExchange(ctx context.Context, code, state, verifier, redirect string) (*Credential, error) {
	r, err := send(ctx, "POST", anthropicTokenURL, map[string]string{"grant_type": "authorization_code", "client_id": anthropicClientID(),
		"code": code, "state": state, "redirect_uri": redirect, "code_verifier": verifier}, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, fmt.Errorf("token exchange request failed: %v", err)
	}
	return anthropicTokens(r, "token exchange")
}

func anthropicTokens(r httpResult, what string) (*Credential, error) {
	if !r.ok() {
		return nil, fmt.Errorf("Anthropic %s failed (HTTP %d): %s", what, r.status, truncate(string(r.body), 400))
	}
	v := decodeObject(r.body)
	access, refresh := str(v, "access_token"), str(v, "refresh_token")
	exp, okExp := num(v, "expires_in")
	if access == "" || refresh == "" || !okExp {
		return nil, fmt.Errorf("Anthropic %s returned no tokens", what)
	}
	return newOAuth(access, refresh, time.Now().UnixMilli()+int64(exp*1000)-5*60*1000), nil
}

func (anthropicFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	r, err := send(ctx, "POST", anthropicTokenURL, map[string]string{"grant_type": "refresh_token", "client_id": anthropicClientID(),
		"refresh_token": c.Refresh}, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, fmt.Errorf("Anthropic token refresh request failed: %v", err)
	}
	return anthropicTokens(r, "token refresh")
}

func (anthropicFlow) ToAuth(c *Credential) llm.RequestAuth { return llm.RequestAuth{APIKey: c.Access} }

// newOAuth is a fresh oauth entry in pi's field order.
func newOAuth(access, refresh string, expires int64) *Credential {
	return &Credential{Type: TypeOAuth, Access: access, Refresh: refresh, Expires: expires,
		Fields: llm.Obj{{K: "type", V: TypeOAuth}, {K: "refresh", V: refresh}, {K: "access", V: access}, {K: "expires", V: expires}}}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
