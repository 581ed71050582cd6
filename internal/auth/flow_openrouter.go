package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// OpenRouter's sign-in (PKCE): the browser authorizes on openrouter.ai and comes back to a
// loopback callback on a free port under a random path (OpenRouter sends no state), or the
// person pastes the redirect URL or the code; the code is traded for a permanent API key,
// stored as an OAuth entry that never expires (pi 1.6's shape: the key as access, no refresh).
const (
	openRouterAuthorizeURL = "https://openrouter.ai/auth"
	openRouterKeysURL      = "https://openrouter.ai/api/v1/auth/keys"
	// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER, pi's "never expires".
	maxSafeInteger = 9007199254740991
)

type openRouterFlow struct{}

func (openRouterFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	verifier, challenge := pkce()
	path := "/oauth/callback/" + randomHex(16)
	complete := func(ctx context.Context, q url.Values, _ string) (*Credential, error) {
		return openRouterKey(ctx, q.Get("code"), verifier)
	}
	cb, err := startCallback(ctx, "OpenRouter", callbackHost(), 0, path, callbackHost(), "", complete)
	if err != nil {
		return nil, err
	}
	defer cb.close()
	q := url.Values{}
	q.Set("callback_url", cb.redirectURI)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	ui.Notify(Notice{Kind: NoticeProgress, Message: "Listening for OpenRouter OAuth callback on " + cb.redirectURI})
	ui.Notify(Notice{Kind: NoticeAuthURL, URL: Endpoint(openRouterAuthorizeURL) + "?" + q.Encode(),
		Instructions: "Complete sign-in in your browser. If the browser is on another machine, paste the final redirect URL here."})
	cred, input, err := waitCodeOrInput(ctx, ui, cb, Prompt{Kind: PromptManualCode,
		Message: "Complete sign-in in your browser, or paste the authorization code / redirect URL here:", Placeholder: cb.redirectURI})
	if err != nil || cred != nil {
		return cred, err
	}
	code, _ := parseAuthorizationInput(input)
	if code == "" {
		return nil, errors.New("Missing authorization code")
	}
	ui.Notify(Notice{Kind: NoticeProgress, Message: "Exchanging authorization code for an API key..."})
	return openRouterKey(ctx, code, verifier)
}

// openRouterKey trades the authorization code for the account's API key.
func openRouterKey(ctx context.Context, code, verifier string) (*Credential, error) {
	r, err := send(ctx, "POST", openRouterKeysURL, map[string]string{"code": code, "code_verifier": verifier, "code_challenge_method": "S256"},
		map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, err
	}
	v := decodeObject(r.body)
	if !r.ok() {
		detail := ""
		for _, k := range []string{"error_description", "message", "error"} {
			if s := str(v, k); s != "" {
				detail = s
				break
			}
		}
		if detail == "" {
			if e, ok := v["error"].(map[string]any); ok {
				detail = str(e, "message")
			}
		}
		if detail != "" {
			detail = ": " + detail
		}
		return nil, fmt.Errorf("OpenRouter OAuth key exchange failed (HTTP %d)%s", r.status, detail)
	}
	if v == nil && len(strings.TrimSpace(string(r.body))) > 0 {
		return nil, errors.New("OpenRouter OAuth returned invalid JSON")
	}
	key := str(v, "key")
	if key == "" {
		return nil, errors.New(`OpenRouter OAuth response carries no "key"`)
	}
	return newOAuth(key, "", maxSafeInteger), nil
}

// Refresh keeps the key: it does not expire.
func (openRouterFlow) Refresh(_ context.Context, c *Credential) (*Credential, error) { return c, nil }

func (openRouterFlow) ToAuth(c *Credential) llm.RequestAuth { return llm.RequestAuth{APIKey: c.Access} }
