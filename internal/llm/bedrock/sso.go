package bedrock

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// IAM Identity Center (SSO) profiles, as the SDK reads them: the token `aws sso login` cached
// in ~/.aws/sso/cache (named by the SHA-1 of the sso-session's name, or of the start URL for a
// legacy profile), refreshed through SSO OIDC when it is about to expire and the cache holds a
// refresh token (sso-session profiles only), then traded for the role's credentials at the
// portal (GetRoleCredentials).

const ssoRefreshMessage = "To refresh this SSO session run 'aws sso login' with the corresponding profile."

type ssoToken struct {
	fields      map[string]json.RawMessage // the cache file as read (written back with the new token)
	AccessToken string
	ExpiresAt   time.Time
	Refresh     string
	ClientID    string
	Secret      string
}

func ssoCachePath(id string) string {
	sum := sha1.Sum([]byte(id))
	return filepath.Join(home(), ".aws", "sso", "cache", hex.EncodeToString(sum[:])+".json")
}

func readSSOToken(path string) (*ssoToken, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := &ssoToken{}
	if err := json.Unmarshal(data, &t.fields); err != nil {
		return nil, err
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(t.fields[k], &s)
		return s
	}
	t.AccessToken, t.Refresh, t.ClientID, t.Secret = str("accessToken"), str("refreshToken"), str("clientId"), str("clientSecret")
	if t.AccessToken == "" {
		return nil, fmt.Errorf("Value not present for 'accessToken' in SSO Token. %s", ssoRefreshMessage)
	}
	exp := str("expiresAt")
	if exp == "" {
		return nil, fmt.Errorf("Value not present for 'expiresAt' in SSO Token. %s", ssoRefreshMessage)
	}
	if t.ExpiresAt, err = time.Parse(time.RFC3339, exp); err != nil {
		return nil, fmt.Errorf("SSO token expiresAt %q: %v", exp, err)
	}
	return t, nil
}

func (c *chain) sso(ctx context.Context, profile string, s map[string]string) (Credentials, error) {
	start, region, cacheID := s["sso_start_url"], s["sso_region"], s["sso_start_url"]
	session := s["sso_session"]
	if session != "" {
		cfg, err := iniFile(configPath(c.m))
		if err != nil {
			return Credentials{}, err
		}
		sec := cfg["sso-session "+session]
		if sec == nil {
			return Credentials{}, fmt.Errorf("Sso session '%s' could not be found in shared credentials file.", session)
		}
		for _, k := range []string{"sso_start_url", "sso_region"} {
			if sec[k] == "" {
				return Credentials{}, fmt.Errorf("Sso session '%s' is missing required property '%s'.", session, k)
			}
		}
		if start != "" && start != sec["sso_start_url"] || region != "" && region != sec["sso_region"] {
			return Credentials{}, fmt.Errorf("Conflicting SSO configuration in profile %s and sso-session %s.", profile, session)
		}
		start, region, cacheID = sec["sso_start_url"], sec["sso_region"], session
	}
	var missing []string
	for _, k := range []string{"sso_start_url", "sso_account_id", "sso_region", "sso_role_name"} {
		if v := map[string]string{"sso_start_url": start, "sso_region": region}[k]; v == "" && s[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Credentials{}, fmt.Errorf("AWS profile %s: incomplete SSO configuration (no %s)", profile, strings.Join(missing, ", "))
	}
	account, role := s["sso_account_id"], s["sso_role_name"]
	return memo("sso\x00"+start+"\x00"+account+"\x00"+role, func() (Credentials, time.Time, error) {
		tok, err := c.ssoAccessToken(ctx, profile, cacheID, region, session != "")
		if err != nil {
			return Credentials{}, time.Time{}, err
		}
		return c.roleCredentials(ctx, region, tok, account, role)
	})
}

// ssoAccessToken is the cached token, refreshed first when it expires within five minutes
// and can be (an sso-session's cache with a refresh token and the client's registration).
func (c *chain) ssoAccessToken(ctx context.Context, profile, cacheID, region string, refreshable bool) (string, error) {
	path := ssoCachePath(cacheID)
	tok, err := readSSOToken(path)
	if err != nil {
		return "", fmt.Errorf("The SSO session token associated with profile=%s was not found or is invalid. %s", profile, ssoRefreshMessage)
	}
	if time.Until(tok.ExpiresAt) > expireWindow {
		return tok.AccessToken, nil
	}
	expired := func() error {
		if refreshable {
			return fmt.Errorf("Token is expired. %s", ssoRefreshMessage)
		}
		return fmt.Errorf("The SSO session associated with this profile has expired. %s", ssoRefreshMessage)
	}
	if !refreshable || tok.Refresh == "" || tok.ClientID == "" || tok.Secret == "" {
		if time.Now().After(tok.ExpiresAt) {
			return "", expired()
		}
		return tok.AccessToken, nil
	}
	fresh, err := c.ssoRefresh(ctx, region, tok)
	if err != nil {
		if time.Now().After(tok.ExpiresAt) {
			return "", expired()
		}
		return tok.AccessToken, nil
	}
	// Written back as the SDK does, so the AWS CLI and pi see the new token too.
	set := func(k string, v any) {
		b, _ := json.Marshal(v)
		tok.fields[k] = b
	}
	set("accessToken", fresh.AccessToken)
	set("expiresAt", fresh.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z"))
	if fresh.Refresh != "" {
		set("refreshToken", fresh.Refresh)
	}
	if out, err := json.MarshalIndent(tok.fields, "", "  "); err == nil {
		tmp := path + ".pigo-tmp"
		if os.WriteFile(tmp, out, 0o600) == nil {
			_ = os.Rename(tmp, path)
		}
	}
	return fresh.AccessToken, nil
}

// ssoRefresh is SSO OIDC CreateToken with the refresh token.
func (c *chain) ssoRefresh(ctx context.Context, region string, tok *ssoToken) (*ssoToken, error) {
	body, _ := json.Marshal(map[string]string{"clientId": tok.ClientID, "clientSecret": tok.Secret, "refreshToken": tok.Refresh, "grantType": "refresh_token"})
	endpoint := serviceEndpoint(c.m, "SSO_OIDC", regionalHost("oidc", region))
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/token", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := llm.Client(c.o).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var v struct {
		AccessToken  string `json:"accessToken"`
		ExpiresIn    int64  `json:"expiresIn"`
		RefreshToken string `json:"refreshToken"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(data, &v) != nil || v.AccessToken == "" || v.ExpiresIn <= 0 {
		return nil, fmt.Errorf("SSO OIDC CreateToken: HTTP %d", resp.StatusCode)
	}
	return &ssoToken{AccessToken: v.AccessToken, ExpiresAt: time.Now().Add(time.Duration(v.ExpiresIn) * time.Second), Refresh: v.RefreshToken}, nil
}

// roleCredentials is the portal's GetRoleCredentials.
func (c *chain) roleCredentials(ctx context.Context, region, token, account, role string) (Credentials, time.Time, error) {
	endpoint := serviceEndpoint(c.m, "SSO", regionalHost("portal.sso", region))
	q := url.Values{"account_id": {account}, "role_name": {role}}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/federation/credentials?"+q.Encode(), nil)
	if err != nil {
		return Credentials{}, time.Time{}, err
	}
	req.Header.Set("x-amz-sso_bearer_token", token)
	resp, err := llm.Client(c.o).Do(req)
	if err != nil {
		return Credentials{}, time.Time{}, fmt.Errorf("SSO GetRoleCredentials: %v", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != 200 {
		var e struct{ Message string }
		_ = json.Unmarshal(data, &e)
		kind := resp.Header.Get("x-amzn-errortype")
		if i := strings.IndexByte(kind, ':'); i >= 0 {
			kind = kind[:i]
		}
		if kind == "" {
			kind = fmt.Sprintf("HTTP %d", resp.StatusCode)
		}
		return Credentials{}, time.Time{}, fmt.Errorf("SSO GetRoleCredentials: %s %s", kind, e.Message)
	}
	var v struct {
		RoleCredentials struct {
			AccessKeyID     string `json:"accessKeyId"`
			SecretAccessKey string `json:"secretAccessKey"`
			SessionToken    string `json:"sessionToken"`
			Expiration      int64  `json:"expiration"`
		} `json:"roleCredentials"`
	}
	if json.Unmarshal(data, &v) != nil || v.RoleCredentials.AccessKeyID == "" {
		return Credentials{}, time.Time{}, errors.New("SSO GetRoleCredentials: the answer carries no credentials")
	}
	r := v.RoleCredentials
	return Credentials{r.AccessKeyID, r.SecretAccessKey, r.SessionToken}, time.UnixMilli(r.Expiration), nil
}
