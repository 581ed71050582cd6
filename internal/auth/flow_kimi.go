package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Kimi Code's sign-in for subscribers: an OAuth device-code flow on auth.kimi.com
// (KIMI_CODE_OAUTH_HOST or KIMI_OAUTH_HOST replace it); requests carry the access token as a
// bearer Authorization header. A refresh that fails with 429 or 5xx is tried up to three more
// times (1 s, 2 s, 4 s apart), as pi does.
const kimiClientID = "17e5f671-d194-4dfb-9706-5516cb48c098"

type kimiFlow struct{}

func kimiHost() string {
	h := os.Getenv("KIMI_CODE_OAUTH_HOST")
	if h == "" {
		h = os.Getenv("KIMI_OAUTH_HOST")
	}
	if h == "" {
		h = "https://auth.kimi.com"
	}
	return strings.TrimRight(h, "/")
}

func trustedHTTPURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

func kimiTokens(v map[string]any, op string) (*Credential, error) {
	access, refresh := str(v, "access_token"), str(v, "refresh_token")
	n, ok := v["expires_in"].(interface{ Float64() (float64, error) })
	var exp float64
	if ok {
		exp, _ = n.Float64()
	}
	if access == "" || refresh == "" || !ok || exp <= 0 {
		return nil, fmt.Errorf("Kimi Code token %s response missing fields: %s", op, compactJSON(v))
	}
	return newOAuth(access, refresh, time.Now().UnixMilli()+int64(exp*1000)), nil
}

func (kimiFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	host := kimiHost()
	form := func(v url.Values) url.Values { v.Set("client_id", kimiClientID); return v }
	r, err := send(ctx, "POST", host+"/api/oauth/device_authorization", form(url.Values{}), map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		text := strings.TrimSpace(string(r.body))
		if text != "" {
			text = ": " + text
		}
		return nil, fmt.Errorf("Kimi Code device authorization failed with status %d%s", r.status, text)
	}
	v := decodeObject(r.body)
	device, user := str(v, "device_code"), str(v, "user_code")
	verify, complete := trustedHTTPURL(str(v, "verification_uri")), trustedHTTPURL(str(v, "verification_uri_complete"))
	if device == "" || user == "" || verify == "" || complete == "" {
		return nil, fmt.Errorf("Invalid Kimi Code device authorization response: %s", compactJSON(v))
	}
	interval, okI := num(v, "interval")
	if !okI || interval <= 0 {
		interval = 5
	}
	expires, okE := num(v, "expires_in")
	if !okE || expires <= 0 {
		expires = 15 * 60
	}
	ui.Notify(Notice{Kind: NoticeDeviceCode, UserCode: user, VerificationURI: complete})
	var cred *Credential
	err = pollDevice(ctx, interval, expires, true, func() (pollStatus, float64, error) {
		r, err := send(ctx, "POST", host+"/api/oauth/token", form(url.Values{"device_code": {device}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}),
			map[string]string{"Accept": "application/json"})
		if err != nil {
			return 0, 0, err
		}
		if r.status >= 500 {
			text := strings.TrimSpace(string(r.body))
			if text != "" {
				text = ": " + text
			}
			return 0, 0, fmt.Errorf("Kimi Code device token request failed with status %d%s", r.status, text)
		}
		v := decodeObject(r.body)
		if r.ok() && str(v, "access_token") != "" {
			cred, err = kimiTokens(v, "poll")
			return pollComplete, 0, err
		}
		e := str(v, "error")
		switch e {
		case "authorization_pending":
			return pollPending, 0, nil
		case "slow_down":
			n, _ := num(v, "interval")
			return pollSlowDown, n, nil
		case "expired_token":
			return 0, 0, errors.New("Kimi Code device authorization expired. Please restart login.")
		case "access_denied":
			return 0, 0, errors.New("Kimi Code login was denied.")
		}
		detail := ""
		if e != "" {
			detail = ": " + e
			if d := str(v, "error_description"); d != "" {
				detail += ": " + d
			}
		}
		return 0, 0, fmt.Errorf("Kimi Code device token request failed (status %d)%s", r.status, detail)
	})
	if err != nil {
		return nil, err
	}
	if cred == nil {
		return nil, errors.New("Device flow timed out")
	}
	return cred, nil
}

// kimiRetryDelay is the wait before a refresh's retry n (1, 2, 3); tests shorten it.
var kimiRetryDelay = func(n int) time.Duration { return time.Second << (n - 1) }

func (kimiFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	var last error
	for attempt := 0; attempt <= 3; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, errors.New("Kimi Code token refresh aborted")
			case <-time.After(kimiRetryDelay(attempt)):
			}
		}
		r, err := send(ctx, "POST", kimiHost()+"/api/oauth/token", url.Values{"client_id": {kimiClientID}, "grant_type": {"refresh_token"}, "refresh_token": {c.Refresh}},
			map[string]string{"Accept": "application/json"})
		if err != nil {
			last = err
			continue
		}
		v := decodeObject(r.body)
		if r.ok() {
			return kimiTokens(v, "refresh")
		}
		if r.status == 401 || r.status == 403 || str(v, "error") == "invalid_grant" {
			d := str(v, "error_description")
			if d != "" {
				d = ": " + d
			}
			return nil, fmt.Errorf("Kimi Code token refresh unauthorized (status %d)%s", r.status, d)
		}
		if (r.status == 429 || r.status >= 500) && attempt < 3 {
			last = fmt.Errorf("Kimi Code token refresh failed with status %d", r.status)
			continue
		}
		return nil, fmt.Errorf("Kimi Code token refresh failed with status %d: %s", r.status, compactJSON(v))
	}
	if last == nil {
		last = errors.New("Kimi Code token refresh failed")
	}
	return nil, last
}

func (kimiFlow) ToAuth(c *Credential) llm.RequestAuth {
	return llm.RequestAuth{Headers: map[string]string{"Authorization": "Bearer " + c.Access}}
}

// compactJSON is JSON.stringify of a decoded response ("null" for none).
func compactJSON(v map[string]any) string {
	if v == nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
