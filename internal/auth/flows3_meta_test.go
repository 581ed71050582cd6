package auth

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Meta: the device code gives an identity token, which mints a day's key; a refresh mints again
// with it; a dead identity token says to sign in again.
func TestSignInMeta(t *testing.T) {
	srv := newOAuthServer(t)
	polls, mints := 1, 0
	srv.extra = func(w http.ResponseWriter, r *http.Request, p map[string]string) bool {
		switch r.URL.Path {
		case "/oidc/device/authorization/":
			writeJSON(w, 200, map[string]any{"device_code": "meta-dev", "user_code": "META-1", "verification_uri": "https://www.meta.ai/device", "expires_in": 600, "interval": 1})
		case "/oidc/device/token/":
			if polls--; polls >= 0 {
				writeJSON(w, 400, map[string]any{"error": "authorization_pending"})
				return true
			}
			writeJSON(w, 200, map[string]any{"access_token": "meta-identity", "token_type": "Bearer"})
		case "/muse-code/key":
			if r.Header.Get("Authorization") != "Bearer meta-identity" || r.Header.Get("x-api-version") != "1.0.0" {
				writeJSON(w, 401, map[string]any{"detail": "identity token expired"})
				return true
			}
			mints++
			writeJSON(w, 200, map[string]any{"api_key": "meta-key-" + string(rune('0'+mints))})
		default:
			return false
		}
		return true
	}
	ui := &script{t: t}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := NewStore(t.TempDir())
	if _, err := Login(ctx, store, "meta", TypeOAuth, ui); err != nil {
		t.Fatal(err)
	}
	c := stored(t, store, "meta")
	if c.Access != "meta-key-1" || c.Refresh != "meta-identity" || time.Until(time.UnixMilli(c.Expires)) < 23*time.Hour {
		t.Fatalf("%+v", c)
	}
	n, err := metaFlow{}.Refresh(ctx, c)
	if err != nil || n.Access != "meta-key-2" {
		t.Fatalf("refresh %v %+v", err, n)
	}
	c.Refresh = "dead"
	if _, err := (metaFlow{}).Refresh(ctx, c); err == nil || !strings.HasPrefix(err.Error(), "Meta session expired (status 401). Run `/login meta` to sign in again.: identity token expired") {
		t.Errorf("%v", err)
	}
}
