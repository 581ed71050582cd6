package auth

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/llm"
)

// GitHub Copilot's sign-in: GitHub's device flow gives a GitHub token (kept as the refresh
// token), which buys a short-lived Copilot token (the access token) from the Copilot token
// endpoint; the token names the API endpoint of the account (proxy-ep). GitHub Enterprise
// domains are supported as pi does.
const copilotClientIDB64 = "SXYxLmI1MDdhMDhjODdlY2ZlOTg="

// copilotHeaders are pairs, not a map: static data instead of a map built at every pigo
// process's start (D25.49).
var copilotHeaders = [...][2]string{
	{"User-Agent", "GitHubCopilotChat/0.35.0"},
	{"Editor-Version", "vscode/1.107.0"},
	{"Editor-Plugin-Version", "copilot-chat/0.35.0"},
	{"Copilot-Integration-Id", "vscode-chat"},
}

func copilotClientID() string {
	b, _ := base64.StdEncoding.DecodeString(copilotClientIDB64)
	return string(b)
}

type copilotFlow struct{}

func normalizeDomain(in string) string {
	s := strings.TrimSpace(in)
	if s == "" {
		return ""
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

func (copilotFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	in, err := ui.Prompt(ctx, Prompt{Kind: PromptText, Message: "GitHub Enterprise URL/domain (blank for github.com)", Placeholder: "company.ghe.com"})
	if err != nil {
		return nil, err
	}
	enterprise := normalizeDomain(in)
	if strings.TrimSpace(in) != "" && enterprise == "" {
		return nil, errors.New("Invalid GitHub Enterprise URL/domain")
	}
	domain := enterprise
	if domain == "" {
		domain = "github.com"
	}
	hdr := map[string]string{"Accept": "application/json", "User-Agent": "GitHubCopilotChat/0.35.0"}
	r, err := send(ctx, "POST", "https://"+domain+"/login/device/code", url.Values{"client_id": {copilotClientID()}, "scope": {"read:user"}}, hdr)
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		return nil, fmt.Errorf("%d: %s", r.status, truncate(string(r.body), 400))
	}
	v := decodeObject(r.body)
	device, user, verify := str(v, "device_code"), str(v, "user_code"), str(v, "verification_uri")
	expires, okE := num(v, "expires_in")
	interval, given := num(v, "interval")
	if !given {
		interval = -1
	}
	if device == "" || user == "" || verify == "" || !okE {
		return nil, errors.New("Invalid device code response fields")
	}
	if u, err := url.Parse(verify); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, errors.New("Untrusted verification_uri in device code response")
	}
	ui.Notify(Notice{Kind: NoticeDeviceCode, UserCode: user, VerificationURI: verify})
	var githubToken string
	err = pollDevice(ctx, interval, expires, true, func() (pollStatus, float64, error) {
		r, err := send(ctx, "POST", "https://"+domain+"/login/oauth/access_token", url.Values{"client_id": {copilotClientID()},
			"device_code": {device}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}, hdr)
		if err != nil {
			return 0, 0, err
		}
		if !r.ok() {
			return 0, 0, fmt.Errorf("%d: %s", r.status, truncate(string(r.body), 400))
		}
		v := decodeObject(r.body)
		if t := str(v, "access_token"); t != "" {
			githubToken = t
			return pollComplete, 0, nil
		}
		switch e := str(v, "error"); e {
		case "authorization_pending":
			return pollPending, 0, nil
		case "slow_down":
			n, _ := num(v, "interval")
			return pollSlowDown, n, nil
		case "":
			return 0, 0, errors.New("Invalid device token response")
		default:
			if d := str(v, "error_description"); d != "" {
				return 0, 0, fmt.Errorf("Device flow failed: %s: %s", e, d)
			}
			return 0, 0, fmt.Errorf("Device flow failed: %s", e)
		}
	})
	if err != nil {
		return nil, err
	}
	return copilotToken(ctx, githubToken, enterprise)
}

// copilotToken trades the GitHub token for a Copilot token.
func copilotToken(ctx context.Context, githubToken, enterprise string) (*Credential, error) {
	domain := enterprise
	if domain == "" {
		domain = "github.com"
	}
	hdr := map[string]string{"Accept": "application/json", "Authorization": "Bearer " + githubToken}
	for _, kv := range copilotHeaders {
		hdr[kv[0]] = kv[1]
	}
	r, err := send(ctx, "GET", "https://api."+domain+"/copilot_internal/v2/token", nil, hdr)
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		return nil, fmt.Errorf("%d: %s", r.status, truncate(string(r.body), 400))
	}
	v := decodeObject(r.body)
	token := str(v, "token")
	exp, okE := num(v, "expires_at")
	if token == "" || !okE {
		return nil, errors.New("Invalid Copilot token response fields")
	}
	c := newOAuth(token, githubToken, int64(exp)*1000-5*60*1000)
	if enterprise != "" {
		c.Fields = c.Fields.Set("enterpriseUrl", enterprise)
	}
	return c, nil
}

func (copilotFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	next, err := copilotToken(ctx, c.Refresh, normalizeDomain(c.Get("enterpriseUrl")))
	if err != nil {
		return nil, err
	}
	// The models the account may use are kept from the entry (pi re-reads them from the
	// Copilot API on refresh; pigo keeps the list it was given).
	if v, ok := c.Fields.Get("availableModelIds"); ok {
		next.Fields = next.Fields.Set("availableModelIds", v)
	}
	return next, nil
}

var proxyEP = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`proxy-ep=([^;]+)`) }}

// CopilotBaseURL is the API endpoint a Copilot token names (proxy-ep, "proxy." turned into
// "api."), else the enterprise's, else the individual endpoint.
func CopilotBaseURL(token, enterprise string) string {
	if m := proxyEP.Get().FindStringSubmatch(token); m != nil {
		host := m[1]
		if strings.HasPrefix(host, "proxy.") {
			host = "api." + host[len("proxy."):]
		}
		return "https://" + host
	}
	if enterprise != "" {
		return "https://copilot-api." + enterprise
	}
	return "https://api.individual.githubcopilot.com"
}

func (copilotFlow) ToAuth(c *Credential) llm.RequestAuth {
	return llm.RequestAuth{APIKey: c.Access, BaseURL: Endpoint(CopilotBaseURL(c.Access, normalizeDomain(c.Get("enterpriseUrl"))))}
}
