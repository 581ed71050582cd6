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

// xAI's sign-in for SuperGrok and X Premium subscribers: an OAuth device-code flow on
// auth.x.ai; the access token is the key of xAI's API. pi stores the expiry five minutes early.
const (
	xaiClientID      = "b1a00492-073a-47ea-816f-4c329264a828"
	xaiScope         = "openid profile email offline_access grok-cli:access api:access"
	xaiDeviceCodeURL = "https://auth.x.ai/oauth2/device/code"
	xaiTokenURL      = "https://auth.x.ai/oauth2/token"
	xaiRefreshSkew   = 5 * time.Minute
)

type xaiFlow struct{}

func xaiFailure(action string, r httpResult) error {
	v := decodeObject(r.body)
	var parts []string
	for _, k := range []string{"error", "error_description"} {
		if s := str(v, k); s != "" {
			parts = append(parts, s)
		}
	}
	detail := strings.Join(parts, ": ")
	if detail != "" {
		detail = ": " + detail
	}
	return fmt.Errorf("xAI OAuth %s failed (HTTP %d)%s", action, r.status, detail)
}

func xaiPost(ctx context.Context, endpoint string, form url.Values) (httpResult, map[string]any, error) {
	r, err := send(ctx, "POST", endpoint, form, map[string]string{"Accept": "application/json"})
	if err != nil {
		return r, nil, err
	}
	v := decodeObject(r.body)
	if v == nil {
		return r, nil, fmt.Errorf("xAI OAuth returned invalid JSON (HTTP %d)", r.status)
	}
	return r, v, nil
}

// xaiCredential reads a token response (a refresh keeps the old refresh token when no new one
// comes).
func xaiCredential(v map[string]any, previousRefresh string) (*Credential, error) {
	access := str(v, "access_token")
	if access == "" {
		return nil, errors.New("Invalid xAI OAuth response field: access_token")
	}
	refresh := str(v, "refresh_token")
	if _, present := v["refresh_token"]; !present && previousRefresh != "" {
		refresh = previousRefresh
	} else if refresh == "" {
		return nil, errors.New("Invalid xAI OAuth response field: refresh_token")
	}
	life := 3600.0
	if _, present := v["expires_in"]; present {
		n, ok := num(v, "expires_in")
		if !ok || n <= 0 {
			return nil, errors.New("Invalid xAI OAuth response field: expires_in")
		}
		life = n
	}
	return newOAuth(access, refresh, time.Now().UnixMilli()+int64(life*1000)-xaiRefreshSkew.Milliseconds()), nil
}

func (xaiFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	r, v, err := xaiPost(ctx, xaiDeviceCodeURL, url.Values{"client_id": {xaiClientID}, "scope": {xaiScope}, "referrer": {"pi"}})
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		return nil, xaiFailure("device authorization", r)
	}
	device, user := str(v, "device_code"), str(v, "user_code")
	if device == "" || user == "" {
		return nil, errors.New("Invalid xAI OAuth response field: device_code")
	}
	verify := str(v, "verification_uri")
	if c := str(v, "verification_uri_complete"); c != "" {
		verify = c
	}
	if u, err := url.Parse(verify); err != nil || u.Scheme != "https" {
		return nil, errors.New("Untrusted verification URI in xAI OAuth response")
	}
	expires, ok := num(v, "expires_in")
	if !ok || expires <= 0 {
		return nil, errors.New("Invalid xAI OAuth response field: expires_in")
	}
	interval, okI := num(v, "interval")
	if !okI || interval <= 0 {
		interval = -1 // RFC 8628's 5 s
	}
	ui.Notify(Notice{Kind: NoticeDeviceCode, UserCode: user, VerificationURI: verify})
	var cred *Credential
	err = pollDevice(ctx, interval, expires, true, func() (pollStatus, float64, error) {
		r, v, err := xaiPost(ctx, xaiTokenURL, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "client_id": {xaiClientID}, "device_code": {device}})
		if err != nil {
			return 0, 0, err
		}
		if r.ok() {
			cred, err = xaiCredential(v, "")
			return pollComplete, 0, err
		}
		switch str(v, "error") {
		case "authorization_pending":
			return pollPending, 0, nil
		case "slow_down":
			n, _ := num(v, "interval")
			return pollSlowDown, n, nil
		case "access_denied", "authorization_denied":
			return 0, 0, errors.New("xAI device authorization was denied")
		case "expired_token":
			return 0, 0, errors.New("xAI device code expired")
		}
		return 0, 0, xaiFailure("device token polling", r)
	})
	if err != nil {
		return nil, err
	}
	if cred == nil {
		return nil, errors.New("xAI device code expired")
	}
	return cred, nil
}

func (xaiFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	r, v, err := xaiPost(ctx, xaiTokenURL, url.Values{"grant_type": {"refresh_token"}, "client_id": {xaiClientID}, "refresh_token": {c.Refresh}})
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		return nil, xaiFailure("token refresh", r)
	}
	return xaiCredential(v, c.Refresh)
}

func (xaiFlow) ToAuth(c *Credential) llm.RequestAuth { return llm.RequestAuth{APIKey: c.Access} }
