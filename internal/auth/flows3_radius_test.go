package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Radius: the browser reaching the fixed loopback callback (1456) and the device code, both
// against the loopback gateway; then a refresh, and a refused one.
func TestSignInRadius(t *testing.T) {
	srv := newOAuthServer(t)
	polls, gen := 1, 0
	valid := map[string]bool{}
	srv.extra = func(w http.ResponseWriter, r *http.Request, p map[string]string) bool {
		issue := func() {
			gen++
			ref := fmt.Sprintf("radius-refresh-%d", gen)
			valid[ref] = true
			writeJSON(w, 200, map[string]any{"access_token": fmt.Sprintf("radius-access-%d", gen), "refresh_token": ref, "expires_in": 3600, "scope": "gateway offline_access"})
		}
		switch {
		case r.URL.Path == "/v1/oauth" && r.Method == "GET":
			writeJSON(w, 200, map[string]any{"authorizationEndpoint": "https://radius.pi.dev/oauth/authorize"})
		case r.URL.Path == "/v1/oauth/device":
			writeJSON(w, 200, map[string]any{"device_code": "rad-dev", "user_code": "RAD-1", "verification_uri": "https://radius.pi.dev/device", "expires_in": 600, "interval": 1})
		case r.URL.Path == "/v1/oauth/token" && p["client_id"] == radiusClientID:
			switch p["grant_type"] {
			case "authorization_code":
				if p["code"] != "the-code" || p["code_verifier"] == "" || p["redirect_uri"] != radiusRedirectURI {
					writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
					return true
				}
				issue()
			case "urn:ietf:params:oauth:grant-type:device_code":
				if polls--; polls >= 0 {
					writeJSON(w, 400, map[string]any{"error": "authorization_pending"})
					return true
				}
				issue()
			case "refresh_token":
				if !valid[p["refresh_token"]] {
					writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "refresh token revoked"})
					return true
				}
				delete(valid, p["refresh_token"])
				issue()
			}
		default:
			return false
		}
		return true
	}
	for _, tc := range []struct {
		name string
		ui   *script
	}{
		{"browser", &script{answers: map[string]string{PromptSelect: "browser"}, browser: true}},
		{"device code", &script{answers: map[string]string{PromptSelect: "device-code"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.ui.t = t
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			store := NewStore(t.TempDir())
			if _, err := Login(ctx, store, "radius", TypeOAuth, tc.ui); err != nil {
				t.Fatal(err)
			}
			c := stored(t, store, "radius")
			if !strings.HasPrefix(c.Access, "radius-access-") || c.Get("scope") != "gateway offline_access" {
				t.Fatalf("%+v", c)
			}
			n, err := radiusFlow{}.Refresh(ctx, c)
			if err != nil || n.Access == c.Access {
				t.Fatalf("refresh %v %+v", err, n)
			}
			if _, err := (radiusFlow{}).Refresh(ctx, c); err == nil || err.Error() != "Radius OAuth token request failed: invalid_grant: refresh token revoked" {
				t.Errorf("refused refresh: %v", err)
			}
		})
	}
}
