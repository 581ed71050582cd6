package llm

import (
	"context"
	"maps"
	"strings"
)

// Credentials supply a model's credential per request, for credentials that change while a
// session runs (OAuth access tokens): Resolve is called before every request, and once more
// with refresh set after the provider answered 401.
type Credentials interface {
	Resolve(ctx context.Context, refresh bool) (RequestAuth, error)
}

// RequestAuth is what one request is authenticated with: an API key or bearer token, headers
// that carry identity, and, for providers whose endpoint depends on the account (GitHub
// Copilot), the base URL.
type RequestAuth struct {
	APIKey  string
	Headers map[string]string
	BaseURL string
}

// authed wraps a wire client: when the model has Credentials it resolves them before the
// request, and after a 401 refreshes them and sends the request once more (the first attempt's
// error event is held back, so listeners see one stream). Every error text leaving it has the
// credential's secrets replaced.
type authed struct{ p Provider }

func (a authed) Stream(ctx context.Context, m *Model, c *Context, o *Options, emit func(Event)) *Message {
	if emit == nil {
		emit = func(Event) {}
	}
	if m.Auth == nil {
		return scrubMessage(a.p.Stream(ctx, m, c, o, scrubbing(emit, m.APIKey)), m.APIKey)
	}
	attempt := func(refresh bool, hold bool) (*Message, *Event) {
		ra, err := m.Auth.Resolve(ctx, refresh)
		if err != nil {
			b := NewBuilder(m, emit)
			return b.Fail(ctx, err.Error()), nil
		}
		mm := *m
		mm.Auth = nil
		if ra.APIKey != "" {
			mm.APIKey = ra.APIKey
		}
		if ra.BaseURL != "" {
			mm.BaseURL = ra.BaseURL
		}
		if len(ra.Headers) > 0 {
			hs := maps.Clone(m.Headers)
			if hs == nil {
				hs = map[string]string{}
			}
			for k, v := range ra.Headers {
				hs[k] = v
			}
			mm.Headers = hs
		}
		var held *Event
		out := scrubbing(emit, mm.APIKey)
		if hold {
			inner := out
			out = func(e Event) {
				if e.Type == EventError && e.Error != nil && e.Error.status == 401 {
					cp := e
					held = &cp
					return
				}
				inner(e)
			}
		}
		return scrubMessage(a.p.Stream(ctx, &mm, c, o, out), mm.APIKey), held
	}
	msg, held := attempt(false, true)
	if held == nil {
		return msg
	}
	retry, _ := attempt(true, false)
	return retry
}

// scrubbing replaces secret in the error text of error events and final messages (a provider
// may echo a key in its error body; pigo never shows or records it).
func scrubbing(emit func(Event), secret string) func(Event) {
	if len(secret) < 8 {
		return emit
	}
	return func(e Event) {
		if e.Type == EventError && e.Error != nil && strings.Contains(e.Error.ErrorMessage, secret) {
			cp := *e.Error
			cp.ErrorMessage = strings.ReplaceAll(cp.ErrorMessage, secret, "[redacted]")
			e.Error = &cp
		}
		emit(e)
	}
}

func scrubMessage(m *Message, secret string) *Message {
	if m != nil && len(secret) >= 8 && strings.Contains(m.ErrorMessage, secret) {
		m.ErrorMessage = strings.ReplaceAll(m.ErrorMessage, secret, "[redacted]")
	}
	return m
}
