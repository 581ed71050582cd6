package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Radius's sign-in (pi's own gateway, radius.pi.dev): a browser flow with PKCE whose callback
// is 127.0.0.1:1456 (the authorization endpoint named by the gateway's /v1/oauth), or a device
// code from the gateway; tokens from /v1/oauth/token, stored a minute early.
const (
	radiusGateway     = "https://radius.pi.dev"
	radiusClientID    = "pi-gateway"
	radiusScope       = "gateway offline_access"
	radiusRedirectURI = "http://127.0.0.1:1456/oauth/callback"
)

type radiusFlow struct{}

func radiusError(r httpResult, msg string) error {
	v := decodeObject(r.body)
	e, d := str(v, "error"), str(v, "error_description")
	if v == nil {
		d = strings.TrimSpace(string(r.body))
	}
	detail := d
	switch {
	case e != "" && d != "":
		detail = e + ": " + d
	case e != "":
		detail = e
	case d == "":
		detail = fmt.Sprint(r.status)
	}
	return fmt.Errorf("%s: %s", msg, detail)
}

// radiusToken posts to the gateway's token endpoint; oauthErr is the OAuth error code of a
// refused request.
func radiusToken(ctx context.Context, form url.Values) (c *Credential, oauthErr string, err error) {
	r, err := send(ctx, "POST", radiusGateway+"/v1/oauth/token", form, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, "", err
	}
	if !r.ok() {
		return nil, str(decodeObject(r.body), "error"), radiusError(r, "Radius OAuth token request failed")
	}
	v := decodeObject(r.body)
	exp, _ := num(v, "expires_in")
	c = newOAuth(str(v, "access_token"), str(v, "refresh_token"), time.Now().UnixMilli()+int64(exp*1000)-60_000)
	if s := str(v, "scope"); s != "" {
		c.Fields = c.Fields.Set("scope", s)
	}
	return c, "", nil
}

func (radiusFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	method, err := ui.Prompt(ctx, Prompt{Kind: PromptSelect, Message: "Sign in to Radius:",
		Options: []Option{{"browser", "Sign in with browser (recommended)"}, {"device-code", "Sign in with device code (when signing in from another device)"}}})
	if err != nil {
		return nil, err
	}
	switch method {
	case "device-code":
		return radiusDevice(ctx, ui)
	case "browser":
		return radiusBrowser(ctx, ui)
	}
	return nil, fmt.Errorf("Unknown Radius sign-in method: %s", method)
}

func radiusBrowser(ctx context.Context, ui Interaction) (*Credential, error) {
	r, err := send(ctx, "GET", radiusGateway+"/v1/oauth", nil, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		return nil, fmt.Errorf("Could not load Radius OAuth config from %s: %d %s", radiusGateway, r.status, string(r.body))
	}
	endpoint := trustedHTTPURL(str(decodeObject(r.body), "authorizationEndpoint"))
	if endpoint == "" {
		return nil, fmt.Errorf("Invalid Radius OAuth config from %s", radiusGateway)
	}
	verifier, challenge := pkce()
	state := randomHex(16)
	complete := func(ctx context.Context, q url.Values, _ string) (*Credential, error) {
		c, _, err := radiusToken(ctx, url.Values{"grant_type": {"authorization_code"}, "client_id": {radiusClientID}, "redirect_uri": {radiusRedirectURI},
			"code": {q.Get("code")}, "code_verifier": {verifier}})
		return c, err
	}
	cb, err := startCallback(ctx, "Radius", "127.0.0.1", 1456, "/oauth/callback", "127.0.0.1", state, complete)
	if err != nil {
		return nil, err
	}
	defer cb.close()
	q := url.Values{"response_type": {"code"}, "client_id": {radiusClientID}, "redirect_uri": {radiusRedirectURI}, "scope": {radiusScope},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "handoff": {"url"}, "state": {state}}
	u, _ := url.Parse(endpoint)
	u.RawQuery = q.Encode()
	ui.Notify(Notice{Kind: NoticeProgress, Message: "Listening for OAuth callback on " + radiusRedirectURI})
	ui.Notify(Notice{Kind: NoticeAuthURL, URL: u.String(), Instructions: "Continue in your browser."})
	select {
	case <-ctx.Done():
		return nil, errors.New("Login cancelled")
	case res := <-cb.results:
		return res.cred, res.err
	}
}

func radiusDevice(ctx context.Context, ui Interaction) (*Credential, error) {
	r, err := send(ctx, "POST", radiusGateway+"/v1/oauth/device", url.Values{"client_id": {radiusClientID}, "scope": {radiusScope}}, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		return nil, radiusError(r, "Radius OAuth device authorization failed")
	}
	v := decodeObject(r.body)
	expires, okE := num(v, "expires_in")
	if str(v, "device_code") == "" || str(v, "user_code") == "" || str(v, "verification_uri") == "" || !okE || expires == 0 {
		return nil, errors.New("Radius OAuth device authorization response is missing required fields")
	}
	verify := trustedHTTPURL(str(v, "verification_uri"))
	if verify == "" {
		return nil, errors.New("Untrusted verification_uri in Radius OAuth device authorization response")
	}
	interval, okI := num(v, "interval")
	if !okI || interval <= 0 {
		interval = -1
	}
	ui.Notify(Notice{Kind: NoticeDeviceCode, UserCode: str(v, "user_code"), VerificationURI: verify})
	device := str(v, "device_code")
	var cred *Credential
	err = pollDevice(ctx, interval, expires, false, func() (pollStatus, float64, error) {
		c, oauthErr, err := radiusToken(ctx, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "client_id": {radiusClientID}, "device_code": {device}})
		if err == nil {
			cred = c
			return pollComplete, 0, nil
		}
		switch oauthErr {
		case "authorization_pending":
			return pollPending, 0, nil
		case "slow_down":
			return pollSlowDown, 0, nil
		case "expired_token":
			return 0, 0, errors.New("Device authorization expired.")
		case "access_denied":
			return 0, 0, errors.New("Device authorization was denied.")
		}
		return 0, 0, err
	})
	if err != nil {
		return nil, err
	}
	if cred == nil {
		return nil, errors.New("Device flow timed out")
	}
	return cred, nil
}

func (radiusFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	n, _, err := radiusToken(ctx, url.Values{"grant_type": {"refresh_token"}, "client_id": {radiusClientID}, "refresh_token": {c.Refresh}})
	return n, err
}

func (radiusFlow) ToAuth(c *Credential) llm.RequestAuth { return llm.RequestAuth{APIKey: c.Access} }
