package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// OpenAI's ChatGPT Plus/Pro sign-in for the openai-codex provider (the Codex CLI's client):
// a browser flow with PKCE and a loopback callback on port 1455 (shared with the Codex CLI; when
// it is taken, the pasted redirect URL is the way back), or a device-code flow. The account id
// the Codex endpoint needs is read from the access token.
const (
	codexClientID       = "app_EMoamEEZ73f0CkXaXp7hrann"
	codexAuthorizeURL   = "https://auth.openai.com/oauth/authorize"
	codexTokenURL       = "https://auth.openai.com/oauth/token"
	codexRedirectURI    = "http://localhost:1455/auth/callback"
	codexDeviceCodeURL  = "https://auth.openai.com/api/accounts/deviceauth/usercode"
	codexDeviceTokenURL = "https://auth.openai.com/api/accounts/deviceauth/token"
	codexDeviceVerify   = "https://auth.openai.com/codex/device"
	codexDeviceRedirect = "https://auth.openai.com/deviceauth/callback"
	codexScope          = "openid profile email offline_access"
	codexJWTClaim       = "https://api.openai.com/auth"
)

type codexFlow struct{}

func (codexFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	method, err := ui.Prompt(ctx, Prompt{Kind: PromptSelect, Message: "Select OpenAI Codex login method:",
		Options: []Option{{"browser", "Browser login (default)"}, {"device_code", "Device code login (headless)"}}})
	if err != nil {
		return nil, err
	}
	switch method {
	case "device_code":
		return codexDeviceLogin(ctx, ui)
	case "browser":
	default:
		return nil, fmt.Errorf("Unknown OpenAI Codex login method: %s", method)
	}
	verifier, challenge := pkce()
	state := randomHex(16)
	q := url.Values{}
	q.Set("response_type", "code")
	q.Set("client_id", codexClientID)
	q.Set("redirect_uri", codexRedirectURI)
	q.Set("scope", codexScope)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	q.Set("id_token_add_organizations", "true")
	q.Set("codex_cli_simplified_flow", "true")
	q.Set("originator", "pi")
	complete := func(ctx context.Context, q url.Values, _ string) (*Credential, error) {
		return codexExchange(ctx, q.Get("code"), verifier, codexRedirectURI)
	}
	cb, err := startCallback(ctx, "OpenAI", callbackHost(), 1455, "/auth/callback", "localhost", state, complete)
	if err == nil {
		defer cb.close()
	} else {
		cb = nil
	}
	ui.Notify(Notice{Kind: NoticeAuthURL, URL: Endpoint(codexAuthorizeURL) + "?" + q.Encode(),
		Instructions: "A browser window should open. Complete login to finish."})
	cred, input, err := waitCodeOrInput(ctx, ui, cb, Prompt{Kind: PromptManualCode,
		Message: "Complete login in your browser, or paste the authorization code / redirect URL here:", Placeholder: codexRedirectURI})
	if err != nil || cred != nil {
		return cred, err
	}
	code, st := parseAuthorizationInput(input)
	if st != "" && st != state {
		return nil, errors.New("State mismatch")
	}
	if code == "" {
		return nil, errors.New("Missing authorization code")
	}
	return codexExchange(ctx, code, verifier, codexRedirectURI)
}

func codexExchange(ctx context.Context, code, verifier, redirect string) (*Credential, error) {
	r, err := send(ctx, "POST", codexTokenURL, url.Values{"grant_type": {"authorization_code"}, "client_id": {codexClientID},
		"code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirect}}, nil)
	if err != nil {
		return nil, err
	}
	return codexTokens(r, "exchange")
}

func codexTokens(r httpResult, op string) (*Credential, error) {
	if !r.ok() {
		return nil, fmt.Errorf("OpenAI Codex token %s failed (%d): %s", op, r.status, truncate(string(r.body), 400))
	}
	v := decodeObject(r.body)
	access, refresh := str(v, "access_token"), str(v, "refresh_token")
	exp, okExp := num(v, "expires_in")
	if access == "" || refresh == "" || !okExp {
		return nil, fmt.Errorf("OpenAI Codex token %s response missing fields", op)
	}
	account := codexAccountID(access)
	if account == "" {
		return nil, errors.New("Failed to extract accountId from token")
	}
	c := newOAuth(access, refresh, time.Now().UnixMilli()+int64(exp*1000))
	c.Fields = c.Fields.Set("accountId", account)
	return c, nil
}

// codexAccountID reads the ChatGPT account id from the access token's claims.
func codexAccountID(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		payload, err = base64.StdEncoding.DecodeString(parts[1])
		if err != nil {
			return ""
		}
	}
	var claims map[string]json.RawMessage
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	var a struct {
		Account string `json:"chatgpt_account_id"`
	}
	_ = json.Unmarshal(claims[codexJWTClaim], &a)
	return a.Account
}

func codexDeviceLogin(ctx context.Context, ui Interaction) (*Credential, error) {
	r, err := send(ctx, "POST", codexDeviceCodeURL, map[string]string{"client_id": codexClientID}, nil)
	if err != nil {
		return nil, err
	}
	if r.status == 404 {
		return nil, errors.New("OpenAI Codex device code login is not enabled for this server. Use browser login or verify the server URL.")
	}
	if !r.ok() {
		return nil, fmt.Errorf("OpenAI Codex device code request failed with status %d: %s", r.status, truncate(string(r.body), 400))
	}
	v := decodeObject(r.body)
	id, user := str(v, "device_auth_id"), str(v, "user_code")
	interval, okI := num(v, "interval")
	if id == "" || user == "" || !okI || interval < 0 {
		return nil, errors.New("Invalid OpenAI Codex device code response")
	}
	ui.Notify(Notice{Kind: NoticeDeviceCode, UserCode: user, VerificationURI: Endpoint(codexDeviceVerify)})
	var authCode, verifier string
	err = pollDevice(ctx, interval, 15*60, false, func() (pollStatus, float64, error) {
		r, err := send(ctx, "POST", codexDeviceTokenURL, map[string]string{"device_auth_id": id, "user_code": user}, nil)
		if err != nil {
			return 0, 0, err
		}
		if r.ok() {
			v := decodeObject(r.body)
			authCode, verifier = str(v, "authorization_code"), str(v, "code_verifier")
			if authCode == "" || verifier == "" {
				return 0, 0, errors.New("Invalid OpenAI Codex device auth token response")
			}
			return pollComplete, 0, nil
		}
		if r.status == 403 || r.status == 404 {
			return pollPending, 0, nil
		}
		code := ""
		if v := decodeObject(r.body); v != nil {
			switch e := v["error"].(type) {
			case string:
				code = e
			case map[string]any:
				code = str(e, "code")
			}
		}
		switch code {
		case "deviceauth_authorization_pending":
			return pollPending, 0, nil
		case "slow_down":
			return pollSlowDown, 0, nil
		}
		return 0, 0, fmt.Errorf("OpenAI Codex device auth failed with status %d: %s", r.status, truncate(string(r.body), 400))
	})
	if err != nil {
		return nil, err
	}
	return codexExchange(ctx, authCode, verifier, codexDeviceRedirect)
}

func (codexFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	r, err := send(ctx, "POST", codexTokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.Refresh}, "client_id": {codexClientID}}, nil)
	if err != nil {
		return nil, fmt.Errorf("OpenAI Codex token refresh error: %v", err)
	}
	return codexTokens(r, "refresh")
}

func (codexFlow) ToAuth(c *Credential) llm.RequestAuth { return llm.RequestAuth{APIKey: c.Access} }
