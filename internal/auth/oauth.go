package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Interaction is how a sign-in flow talks to the person signing in: `pigo auth login` writes
// to the terminal, the chat draws dialogs. Both get the same notices and prompts.
type Interaction interface {
	// Notify shows a notice: the URL to open, a device code to enter, progress.
	Notify(n Notice)
	// Prompt asks for an answer. ctx ends when the answer is no longer needed (the browser
	// reached the loopback callback first); the prompt should then go away.
	Prompt(ctx context.Context, p Prompt) (string, error)
}

// Notice kinds.
const (
	NoticeAuthURL    = "auth_url"
	NoticeDeviceCode = "device_code"
	NoticeProgress   = "progress"
)

// Notice is something a sign-in flow shows.
type Notice struct {
	Kind string
	// auth_url: the URL to open and what to do there.
	URL, Instructions string
	// device_code: the code to enter at VerificationURI.
	UserCode, VerificationURI string
	// progress (and any other kind): a line of text.
	Message string
}

// Prompt kinds.
const (
	PromptSelect     = "select"
	PromptText       = "text"
	PromptSecret     = "secret"
	PromptManualCode = "manual_code"
)

// Prompt is a question of a sign-in flow: a choice among Options, a line of text, a secret
// (not echoed), or the pasted redirect URL or authorization code.
type Prompt struct {
	Kind        string
	Message     string
	Placeholder string
	Options     []Option
}

// Option is one choice of a select prompt.
type Option struct{ ID, Label string }

// Flow is one provider's account sign-in: Login runs the browser or device flow, Refresh
// trades a refresh token for new tokens, ToAuth says how a request is authenticated with them.
type Flow interface {
	Login(ctx context.Context, ui Interaction) (*Credential, error)
	Refresh(ctx context.Context, c *Credential) (*Credential, error)
	ToAuth(c *Credential) llm.RequestAuth
}

// FlowFor returns the sign-in flow pigo has for provider (nil when it has none). The flows are
// listed here, not registered into a map by an init function in each flow's file: that was
// work every pigo process did at start (D25.49).
func FlowFor(provider string) Flow {
	switch provider {
	case "anthropic":
		return anthropicFlow{}
	case "openai":
		return chatgptFlow{}
	case "openai-codex":
		return codexFlow{}
	case "github-copilot":
		return copilotFlow{}
	case "kimi-coding":
		return kimiFlow{}
	case "meta":
		return metaFlow{}
	case "openrouter":
		return openRouterFlow{}
	case "radius":
		return radiusFlow{}
	case "xai":
		return xaiFlow{}
	}
	return nil
}

// refreshMargin is pi's: a token with less than five minutes left is refreshed first.
const refreshMargin = 5 * time.Minute

// refreshTimeout bounds one refresh (pi's): once started it is not cancelled with the
// request, since the provider may already have rotated the refresh token.
const refreshTimeout = 15 * time.Second

func expiresSoon(c *Credential, margin time.Duration) bool {
	return time.Now().Add(margin).UnixMilli() >= c.Expires
}

// Source supplies a signed-in provider's tokens to its requests (llm.Credentials): before each
// request it reads auth.json (another process may have refreshed), refreshes a token about to
// expire under the file lock, re-checking under the lock so concurrent refreshes happen once,
// and after a 401 refreshes once more.
type Source struct {
	Store    *Store
	Provider string
	Flow     Flow

	mu sync.Mutex
}

// Resolve implements llm.Credentials.
func (s *Source) Resolve(ctx context.Context, refresh bool) (llm.RequestAuth, error) {
	c, err := s.Credential(ctx, refresh, 0)
	if err != nil {
		return llm.RequestAuth{}, err
	}
	if s.Flow == nil {
		return llm.RequestAuth{APIKey: c.Access}, nil
	}
	return s.Flow.ToAuth(c), nil
}

// Credential returns the provider's current OAuth credential, refreshed when it expires within
// five minutes (or minValidity when longer), or when force is set and nobody refreshed it since.
func (s *Source) Credential(ctx context.Context, force bool, minValidity time.Duration) (*Credential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.Store.Load()
	if err != nil {
		return nil, err
	}
	c := f.Get(s.Provider)
	if c == nil || c.Type != TypeOAuth {
		return nil, fmt.Errorf("not signed in to %s: run `pigo auth login %s`", s.Provider, s.Provider)
	}
	margin := max(refreshMargin, minValidity)
	stale := c.Access
	needs := func(cur *Credential) bool {
		if force {
			return cur.Access == stale
		}
		return expiresSoon(cur, margin)
	}
	if !needs(c) {
		return c, nil
	}
	c, err = s.refresh(ctx, needs)
	if err != nil {
		return nil, err
	}
	if minValidity > 0 && expiresSoon(c, minValidity) {
		return nil, fmt.Errorf("OAuth refresh returned a token that expires too soon for %s", s.Provider)
	}
	return c, nil
}

var errLoggedOut = errors.New("logged out meanwhile")

func (s *Source) refresh(ctx context.Context, needs func(*Credential) bool) (*Credential, error) {
	var secrets []string
	out, err := s.Store.Modify(ctx, s.Provider, func(cur *Credential) (*Credential, error) {
		if cur == nil || cur.Type != TypeOAuth {
			return nil, errLoggedOut
		}
		if !needs(cur) {
			return nil, nil // another request or process refreshed it
		}
		secrets = append(secrets, cur.Access, cur.Refresh)
		if s.Flow == nil {
			return nil, fmt.Errorf("pigo cannot refresh %s tokens yet (the token expired; sign in again with pi, or use an API key)", s.Provider)
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refreshTimeout)
		defer cancel()
		next, err := s.Flow.Refresh(rctx, cur)
		if err != nil {
			return nil, err
		}
		next.Type = TypeOAuth
		return next, nil
	})
	if errors.Is(err, errLoggedOut) {
		return nil, fmt.Errorf("not signed in to %s: run `pigo auth login %s`", s.Provider, s.Provider)
	}
	if err != nil {
		return nil, fmt.Errorf("OAuth refresh failed for %s: %s; sign in again with `pigo auth login %s` (or /login in the chat)",
			s.Provider, Redact(err.Error(), secrets...), s.Provider)
	}
	return out, nil
}

// Redact replaces every secret (at least 8 bytes long) in s.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 8 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// testOriginEnv names a loopback origin (http://127.0.0.1:PORT) that replaces the scheme and
// host of every sign-in endpoint, so the flows run end to end against a local authorization
// server in tests. Anything but a loopback origin is ignored: no token can be sent elsewhere.
const testOriginEnv = "PIGO_TEST_OAUTH_ORIGIN"

// Endpoint returns raw, or raw re-rooted at the test origin when one is set.
func Endpoint(raw string) string {
	origin := os.Getenv(testOriginEnv)
	if origin == "" {
		return raw
	}
	o, err := url.Parse(origin)
	if err != nil || o.Scheme != "http" || (o.Hostname() != "127.0.0.1" && o.Hostname() != "localhost") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme, u.Host = o.Scheme, o.Host
	return u.String()
}
