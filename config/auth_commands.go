package config

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/auth"
)

// pigo auth: pi 1.5+'s credential commands (docs/cli.md "Credential commands") answered from
// this configuration: which provider a flag names, whether its credential is ready, the key or
// bearer token it resolves to, and logout. Error texts are pi's, printed as they are.

// AuthProvider is the provider an auth command names: provider (--provider), or the provider
// of model (--model: models.json or the catalogue), with models.json's spelling. "" with a nil
// error: neither was given.
func (c *Config) AuthProvider(provider, model string) (string, error) {
	p := strings.TrimSpace(provider)
	if m := strings.TrimSpace(model); m != "" {
		flag := m
		if p != "" && !strings.Contains(m, "/") {
			flag = p + "/" + m
		}
		mi, err := c.SessionModel(flag)
		if err != nil || mi == nil || mi.Provider == "" || mi.Source == "defaults" {
			return "", fmt.Errorf("Model %q not found. Use --list-models to see available models.", m)
		}
		p = mi.Provider
	}
	if p == "" {
		return "", nil
	}
	return c.CanonicalProvider(p), nil
}

// CanonicalProvider spells a provider as pi knows it: a built-in id or models.json's key
// (matched case-insensitively, display names too).
func (c *Config) CanonicalProvider(ref string) string {
	if info, ok := auth.Provider(ref); ok {
		return info.ID
	}
	for _, info := range auth.Providers() {
		if strings.EqualFold(info.Name, strings.TrimSpace(ref)) {
			return info.ID
		}
	}
	for _, p := range c.ModelsJSONProviders() {
		if strings.EqualFold(p, strings.TrimSpace(ref)) {
			return p
		}
	}
	return strings.TrimSpace(ref)
}

// KnownProvider reports whether pi would know provider: built in, or in models.json.
func (c *Config) KnownProvider(provider string) bool {
	if _, ok := auth.Provider(provider); ok {
		return true
	}
	for _, p := range c.ModelsJSONProviders() {
		if p == provider {
			return true
		}
	}
	return false
}

// KnownCustomProvider reports whether provider is models.json's and not built in.
func (c *Config) KnownCustomProvider(provider string) bool {
	if _, ok := auth.Provider(provider); ok {
		return false
	}
	return c.KnownProvider(provider)
}

// AuthCheck is pi's `auth check` result (its JSON).
type AuthCheck struct {
	Status      string `json:"status"`
	Provider    string `json:"provider"`
	AuthType    string `json:"authType,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Credentials string `json:"credentials,omitempty"`
}

// CheckAuth is `pigo auth check`: ready, not_ready or invalid, with the credential when
// withCredentials. An expired OAuth token is refreshed unless noRefresh. problem is why the
// state is invalid (printed, not part of the result).
func (c *Config) CheckAuth(provider string, noRefresh, withCredentials bool) (res AuthCheck, problem error) {
	res = AuthCheck{Provider: provider}
	var cred string
	switch {
	case !c.KnownProvider(provider):
		res.Status, res.Reason = "not_ready", "provider_not_found"
	default:
		r, err := c.Credential(provider, "")
		switch {
		case err != nil:
			problem = err
			res.Status, res.Reason = "invalid", "invalid_state"
		case r.Type == "":
			res.Status, res.Reason = "not_ready", "credentials_not_configured"
		case r.Type == auth.TypeOAuth && !noRefresh:
			oc, err := c.oauthSource(provider).Credential(context.Background(), false, 0)
			if err != nil {
				problem = err
				res.Status, res.Reason = "invalid", "invalid_state"
			} else {
				res.Status, res.AuthType, cred = "ready", auth.TypeOAuth, oc.Access
			}
		default:
			res.Status, res.AuthType = "ready", r.Type
			cred = r.APIKey
			if cred == "" {
				cred = bearerOf(r.Headers)
			}
		}
	}
	if withCredentials && res.Status == "ready" {
		if cred == "" {
			res = AuthCheck{Status: "not_ready", Provider: provider, Reason: "credential_not_available"}
		} else {
			res.Credentials = cred
		}
	}
	return res, problem
}

var bearerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^Bearer\s+(.+)$`) })

func bearerOf(h map[string]string) string {
	for k, v := range h {
		if strings.EqualFold(k, "authorization") {
			if m := bearerRe().FindStringSubmatch(v); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

func (c *Config) oauthSource(provider string) *auth.Source {
	return &auth.Source{Store: auth.NewStore(c.AgentDir), Provider: provider, Flow: auth.FlowFor(provider)}
}

// PrintableAPIKey is `pigo auth print-api-key`: the provider's resolved API key (or the bearer
// of its Authorization header), refused for an OAuth provider.
func (c *Config) PrintableAPIKey(provider string) (string, error) {
	if !c.KnownProvider(provider) {
		return "", fmt.Errorf("Unknown provider %q. Use --list-models to see available providers.", provider)
	}
	r, err := c.Credential(provider, "")
	if err != nil {
		return "", err
	}
	if r.Type == auth.TypeOAuth {
		return "", fmt.Errorf("Provider %q is configured with OAuth, not an API key", provider)
	}
	key := r.APIKey
	if key == "" {
		key = bearerOf(r.Headers)
	}
	if key == "" {
		return "", errors.New("No usable API key is configured")
	}
	return key, nil
}

// BearerToken is `pigo auth print-bearer-token`: a signed-in provider's OAuth access token,
// refreshed when it expires within minExpiry.
func (c *Config) BearerToken(provider string, minExpiry time.Duration) (string, error) {
	if !c.KnownProvider(provider) {
		return "", fmt.Errorf("Unknown provider %q. Use --list-models to see available providers.", provider)
	}
	r, err := c.Credential(provider, "")
	if err != nil {
		return "", err
	}
	if r.Type != auth.TypeOAuth {
		return "", fmt.Errorf("Provider %q is not configured with an OAuth bearer token", provider)
	}
	oc, err := c.oauthSource(provider).Credential(context.Background(), false, minExpiry)
	if err != nil {
		return "", err
	}
	return oc.Access, nil
}

// Logout is `pigo auth logout PROVIDER`: the provider's stored credentials removed from
// auth.json. It returns what to tell the person.
func (c *Config) Logout(ref string) (string, error) {
	store := auth.NewStore(c.AgentDir)
	f, err := store.Load()
	if err != nil {
		return "", fmt.Errorf("Could not read stored credentials: %v", err)
	}
	provider := c.CanonicalProvider(ref)
	known := c.KnownProvider(provider)
	cred := f.Get(provider)
	if cred == nil && f.Get(ref) != nil {
		provider, cred = ref, f.Get(ref)
	}
	name := ProviderName(provider)
	if !known && cred == nil {
		stored := f.Providers()
		sort.Strings(stored)
		list := strings.Join(stored, ", ")
		if list == "" {
			list = "none"
		}
		return "", fmt.Errorf("Unknown provider %q.\nStored credentials: %s", ref, list)
	}
	if cred == nil {
		return fmt.Sprintf("No stored credentials for %s. Environment variables and models.json config are unchanged.", name), nil
	}
	if _, err := store.Delete(context.Background(), provider); err != nil {
		return "", fmt.Errorf("Logout failed: %v", err)
	}
	if cred.Type == auth.TypeOAuth {
		return fmt.Sprintf("Logged out of %s.", name), nil
	}
	return fmt.Sprintf("Removed stored API key for %s. Environment variables and models.json config are unchanged.", name), nil
}

// ProviderName is a provider's display name (its id when it has none).
func ProviderName(id string) string {
	if info, ok := auth.Provider(id); ok {
		return info.Name
	}
	return id
}

// Login is `pigo auth login PROVIDER` once the provider is known and a person sits at the
// terminal (in, out): an API key (apiKey) or the account sign-in (with a browser unless
// noBrowser), saved in auth.json. It returns what to print on success; the error's text is
// what to print otherwise ("Login cancelled." when ctx ended or the person cancelled).
func (c *Config) Login(ctx context.Context, provider string, apiKey, noBrowser bool, in *os.File, out io.Writer) (string, error) {
	method, err := auth.LoginMethod(provider, apiKey, c.KnownCustomProvider(provider))
	if err != nil {
		return "", err
	}
	ui := &auth.Terminal{In: bufio.NewReader(in), Fd: int(in.Fd()), Out: out, Provider: provider, Browser: !noBrowser, APIKey: method == auth.TypeAPIKey}
	cred, err := auth.Login(ctx, auth.NewStore(c.AgentDir), provider, method, ui)
	name := ProviderName(provider)
	if err != nil {
		if ctx.Err() != nil || err.Error() == "Login cancelled" {
			return "", errors.New("Login cancelled.")
		}
		return "", fmt.Errorf("Failed to log in to %s: %v", name, err)
	}
	if cred.Type == auth.TypeOAuth {
		return fmt.Sprintf("Logged in to %s. Credentials saved to %s", name, auth.Path(c.AgentDir)), nil
	}
	return fmt.Sprintf("Saved API key for %s. Credentials saved to %s", name, auth.Path(c.AgentDir)), nil
}
