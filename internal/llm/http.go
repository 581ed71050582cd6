package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/net/http/httpproxy"
)

// Texts pi's SDKs give for failures without an HTTP status.
const (
	ConnectionError  = "Connection error."
	RequestAborted   = "Request aborted"
	StreamAborted    = "Request was aborted"
	StreamTerminated = "terminated"
)

var (
	clientsMu sync.Mutex
	clients   = map[string]*http.Client{}
)

// Client returns the HTTP client for o: o.HTTPClient when set, else one per proxy URL (no
// overall timeout: streams run as long as the model writes), with the environment's proxy
// when none is configured.
func Client(o *Options) HTTPDoer {
	if o != nil && o.HTTPClient != nil {
		return o.HTTPClient
	}
	proxy := ""
	if o != nil {
		proxy = o.ProxyURL
	}
	clientsMu.Lock()
	defer clientsMu.Unlock()
	if c := clients[proxy]; c != nil {
		return c
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = dialBodyConn
	if proxy != "" {
		// Like pi, which puts httpProxy into HTTP(S)_PROXY: NO_PROXY still applies, and
		// loopback hosts are never proxied.
		pc := httpproxy.Config{HTTPProxy: proxy, HTTPSProxy: proxy, NoProxy: firstEnv("NO_PROXY", "no_proxy")}
		f := pc.ProxyFunc()
		tr.Proxy = func(r *http.Request) (*url.URL, error) { return f(r.URL) }
	}
	c := &http.Client{Transport: tr}
	clients[proxy] = c
	return c
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

var uaOnce sync.Once
var ua string

// UserAgent is pigo's User-Agent, in pi's shape: "pigo (<os> <release>; <arch>)".
func UserAgent() string {
	uaOnce.Do(func() {
		arch := runtime.GOARCH
		switch arch {
		case "amd64":
			arch = "x64"
		case "386":
			arch = "ia32"
		}
		ua = fmt.Sprintf("pigo (%s %s; %s)", runtime.GOOS, osRelease(), arch)
	})
	return ua
}

func osRelease() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

// Header is one request header; requests keep pi's header order.
type Header struct{ Name, Value string }

// SetHeader sets name in hs (case-insensitively replacing an earlier value, as JavaScript's
// Object.assign on the SDK's header record does for the same spelling).
func SetHeader(hs []Header, name, value string) []Header {
	for i := range hs {
		if strings.EqualFold(hs[i].Name, name) {
			hs[i] = Header{name, value}
			return hs
		}
	}
	return append(hs, Header{name, value})
}

// HasHeader reports a non-blank header (pi's hasHeader).
func HasHeader(hs map[string]string, name string) bool {
	for k, v := range hs {
		if strings.EqualFold(k, name) && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// RequestError is the message for a request that got no response.
func RequestError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return RequestAborted
	}
	return ConnectionError
}

// ReadError is the message for a failure while reading a streamed body.
func ReadError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return StreamAborted
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return StreamTerminated
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return StreamTerminated
	}
	return StreamTerminated
}

// ReadBody reads an error response body (at most 1 MiB).
func ReadBody(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return string(b)
}

const maxErrorBody = 4000

// truncateJS is pi's truncateErrorText (counted in UTF-16 units).
func truncateJS(s string, n int) string {
	if JSLen(s) <= n {
		return s
	}
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return fmt.Sprintf("%s... [truncated %d chars]", s[:i], JSLen(s)-n)
		}
		units += w
	}
	return s
}

// sdkMessage is the OpenAI/Anthropic SDKs' APIError.makeMessage for a status and an error
// value (the decoded JSON, or nil with the raw text).
func sdkMessage(status int, errVal any, hasErr bool, text string) string {
	msg := ""
	if hasErr {
		if o, ok := errVal.(*object); ok {
			if m, ok := o.vals["message"]; ok && truthy(m) {
				if s, ok := m.(string); ok {
					msg = s
				} else {
					msg = string(appendValue(nil, m))
				}
			} else {
				msg = string(appendValue(nil, errVal))
			}
		} else if truthy(errVal) {
			msg = string(appendValue(nil, errVal))
		} else {
			msg = text
		}
	} else {
		msg = text
	}
	switch {
	case status != 0 && msg != "":
		return fmt.Sprintf("%d %s", status, msg)
	case status != 0:
		return fmt.Sprintf("%d status code (no body)", status)
	case msg != "":
		return msg
	}
	return "(no status code or body)"
}

func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number:
		return t != "0" && t != "-0"
	}
	return true
}

func decodeAny(text string) (any, bool) {
	var v any
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	if err := decodeOrdered(d, &v); err != nil || d.More() {
		return nil, false
	}
	return v, true
}

// OpenAIHTTPError is the errorMessage pi gives for an HTTP error from the openai SDK
// (openai-completions with prefix "", openai-responses with "OpenAI API error"): the SDK's
// message, or "<status>: <the JSON of body.error>" when that body is not in the message, plus
// OpenRouter's error.metadata.raw for openai-completions.
func OpenAIHTTPError(status int, text, prefix string) string {
	var errVal any
	hasErr := false
	parsed, isJSON := decodeAny(text)
	raw := ""
	if isJSON {
		if o, ok := parsed.(*object); ok {
			errVal, hasErr = o.vals["error"]
		}
		text = ""
	}
	msg := sdkMessage(status, errVal, hasErr && errVal != nil, text)
	body := ""
	if o, ok := errVal.(*object); ok && len(o.keys) > 0 {
		body = truncateJS(strings.TrimSpace(string(appendValue(nil, o))), maxErrorBody)
		if md, ok := o.vals["metadata"].(*object); ok {
			if r, ok := md.vals["raw"]; ok && truthy(r) {
				if s, ok := r.(string); ok {
					raw = s
				} else {
					raw = string(appendValue(nil, r))
				}
			}
		}
	}
	var out string
	if body == "" || strings.Contains(msg, body) {
		if prefix != "" {
			out = fmt.Sprintf("%s (%d): %s", prefix, status, msg)
		} else {
			out = msg
		}
	} else if prefix != "" {
		out = fmt.Sprintf("%s (%d): %s", prefix, status, body)
	} else {
		out = fmt.Sprintf("%d: %s", status, body)
	}
	if prefix == "" && raw != "" && !strings.Contains(out, raw) {
		out += "\n" + raw
	}
	return out
}

// StreamErrorMessage is the message of an error object sent inside a stream (openai SDK:
// error.message, else its JSON).
func StreamErrorMessage(raw json.RawMessage) string {
	v, ok := decodeAny(string(raw))
	if !ok {
		return string(raw)
	}
	return sdkMessage(0, v, true, "")
}

// AnthropicHTTPError is the errorMessage pi gives for an HTTP error from the Anthropic SDK:
// "<status> <body.message or the body's JSON or the raw text>".
func AnthropicHTTPError(status int, text string) string {
	if v, ok := decodeAny(text); ok {
		return sdkMessage(status, v, true, "")
	}
	return sdkMessage(status, nil, false, text)
}

// CopilotHeaders are the headers GitHub Copilot wants on every request, as pi sends them:
// who started the turn (X-Initiator: the person for a new prompt, the agent after a reply or
// a tool result), the intent, and whether the request carries images.
func CopilotHeaders(c *Context) map[string]string {
	initiator := "user"
	if n := len(c.Messages); n > 0 && c.Messages[n-1].Role != RoleUser {
		initiator = "agent"
	}
	h := map[string]string{"X-Initiator": initiator, "Openai-Intent": "conversation-edits"}
	for _, m := range c.Messages {
		if m.Role != RoleUser && m.Role != RoleToolResult {
			continue
		}
		for _, b := range m.Content {
			if b.Type == TypeImage {
				h["Copilot-Vision-Request"] = "true"
			}
		}
	}
	return h
}

// TruncateJS is pi's truncateErrorText: s cut to n UTF-16 units with a note of how much was cut.
func TruncateJS(s string, n int) string { return truncateJS(s, n) }
