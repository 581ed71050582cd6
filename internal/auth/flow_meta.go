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

// Meta's sign-in for Muse subscribers: an OIDC device-code flow on auth.meta.com gives an
// identity token, which mints a Meta Model API key valid for a day; the identity token is kept
// as the refresh token, and a refresh mints a new key with it.
const (
	metaClientID    = "1031625952748946"
	metaDeviceURL   = "https://auth.meta.com/oidc/device/authorization/"
	metaTokenURL    = "https://auth.meta.com/oidc/device/token/"
	metaMintURL     = "https://api.meta.ai/muse-code/key"
	metaKeyLifetime = 24 * time.Hour
)

type metaFlow struct{}

// metaDetail is pi's errorDetail: ": <the first non-blank of error_description, detail,
// message, error>".
func metaDetail(v map[string]any) string {
	for _, k := range []string{"error_description", "detail", "message", "error"} {
		if s := strings.TrimSpace(str(v, k)); s != "" {
			return ": " + s
		}
	}
	return ""
}

func (metaFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	r, err := send(ctx, "POST", metaDeviceURL, url.Values{"client_id": {metaClientID}}, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, err
	}
	v := decodeObject(r.body)
	if !r.ok() {
		return nil, fmt.Errorf("Meta device authorization failed with status %d%s", r.status, metaDetail(v))
	}
	device, user := str(v, "device_code"), str(v, "user_code")
	verify := trustedHTTPURL(str(v, "verification_uri_complete"))
	if verify == "" {
		verify = trustedHTTPURL(str(v, "verification_uri"))
	}
	if device == "" || user == "" || verify == "" {
		return nil, fmt.Errorf("Invalid Meta device authorization response: %s", compactJSON(v))
	}
	interval, okI := num(v, "interval")
	if !okI || interval <= 0 {
		interval = -1
	}
	expires, okE := num(v, "expires_in")
	if !okE || expires <= 0 {
		expires = 0
	}
	ui.Notify(Notice{Kind: NoticeDeviceCode, UserCode: user, VerificationURI: verify})
	identity := ""
	err = pollDevice(ctx, interval, expires, true, func() (pollStatus, float64, error) {
		r, err := send(ctx, "POST", metaTokenURL, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {device}, "client_id": {metaClientID}},
			map[string]string{"Accept": "application/json"})
		if err != nil {
			return 0, 0, err
		}
		v := decodeObject(r.body)
		if r.ok() && str(v, "access_token") != "" {
			identity = str(v, "access_token")
			return pollComplete, 0, nil
		}
		switch str(v, "error") {
		case "authorization_pending":
			return pollPending, 0, nil
		case "slow_down":
			n, _ := num(v, "interval")
			return pollSlowDown, n, nil
		case "access_denied":
			return 0, 0, errors.New("Meta login was denied.")
		case "expired_token":
			return 0, 0, errors.New("Meta device authorization expired. Please restart login.")
		}
		return 0, 0, fmt.Errorf("Meta device token request failed with status %d%s", r.status, metaDetail(v))
	})
	if err != nil {
		return nil, err
	}
	if identity == "" {
		return nil, errors.New("Device flow timed out")
	}
	ui.Notify(Notice{Kind: NoticeProgress, Message: "Enabling Meta Model API access..."})
	return metaMint(ctx, identity)
}

// metaMint trades the identity token for a day's API key.
func metaMint(ctx context.Context, identity string) (*Credential, error) {
	r, err := send(ctx, "POST", metaMintURL, map[string]any{}, map[string]string{"Accept": "application/json", "Authorization": "Bearer " + identity, "x-api-version": "1.0.0"})
	if err != nil {
		return nil, err
	}
	v := decodeObject(r.body)
	if r.status == 401 || r.status == 403 {
		return nil, fmt.Errorf("Meta session expired (status %d). Run `/login meta` to sign in again.%s", r.status, metaDetail(v))
	}
	if !r.ok() {
		return nil, fmt.Errorf("Meta API key mint failed with status %d%s", r.status, metaDetail(v))
	}
	key := str(v, "api_key")
	if key == "" {
		msg := "Meta did not issue an API key."
		if a := trustedHTTPURL(str(v, "action_url")); a != "" {
			msg += " Complete setup at " + a
		}
		return nil, errors.New(msg)
	}
	return newOAuth(key, identity, time.Now().Add(metaKeyLifetime).UnixMilli()), nil
}

func (metaFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	return metaMint(ctx, c.Refresh)
}

func (metaFlow) ToAuth(c *Credential) llm.RequestAuth { return llm.RequestAuth{APIKey: c.Access} }
