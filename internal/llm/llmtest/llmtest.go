// Package llmtest is a scripted model server for tests: an httptest server on 127.0.0.1 that
// speaks the streaming wire protocols of openai-completions (POST .../chat/completions),
// anthropic-messages (POST .../messages) and openai-responses (POST .../responses).
//
// A test queues responses with Push: scripted turns (text, thinking, tool calls, usage, stop
// reason) rendered in whichever API the request used, faults (429 with retry-after, 500,
// overloaded, context overflow, content_filter, a mid-stream disconnect, an in-stream error),
// or recorded bodies replayed verbatim (LoadCassette reads the shared fixtures). Each queued
// response answers one request, in order. Every request is recorded (method, path, headers,
// body) for assertions. Streams can be cut into writes of any size and salted with SSE
// comments, pings and blank-line noise, so clients are tested against chunk boundaries
// anywhere.
//
//	srv := llmtest.New(t)
//	srv.Push(llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{}`}}})
//	srv.Push(llmtest.Turn{Text: "Done."})
//	// point models.json baseUrl at srv.URL + "/v1", run, then inspect srv.Requests()
package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// API names (models.json "api").
const (
	OpenAICompletions = "openai-completions"
	AnthropicMessages = "anthropic-messages"
	OpenAIResponses   = "openai-responses"
	CodexResponses    = "openai-codex-responses"
	GoogleAI          = "google-generative-ai"
	GoogleVertex      = "google-vertex"
	Mistral           = "mistral-conversations"
)

// CodexToken is an access token shaped like ChatGPT's (a JWT whose claims name the account),
// for the Codex API, which reads the account id from it.
func CodexToken(account string) string {
	enc := func(v any) string { return base64.RawURLEncoding.EncodeToString([]byte(js(v))) }
	return enc(obj{"alg": "none"}) + "." + enc(obj{"https://api.openai.com/auth": obj{"chatgpt_account_id": account}, "exp": 4102444800}) + ".sig"
}

// Key is an API key the api's client accepts (most take anything; Codex needs a token that
// names an account).
func Key(api string) string {
	if api == CodexResponses {
		return CodexToken("acc-test")
	}
	return "k"
}

// Turn is one scripted response. Without Blocks, the blocks are Thinking (when set), Text
// (when set), then ToolCalls, in that order.
type Turn struct {
	Text      string
	Thinking  string
	ToolCalls []ToolCall
	// Blocks gives the content explicitly, in order (overrides Text, Thinking, ToolCalls).
	Blocks []Block

	// StopReason is pi's: "" (stop, or toolUse when there are tool calls), "stop", "length",
	// "toolUse", or a raw provider reason such as "content_filter" sent as is.
	StopReason string
	Usage      Usage
	// ID is the response id (default: one derived from the request number); Model the model
	// the stream names (default: the request's model).
	ID, Model string

	// ReasoningField is where openai-completions sends thinking: reasoning_content (default),
	// reasoning or reasoning_text.
	ReasoningField string
	// UsageInChoice puts openai-completions usage in choices[0].usage (Moonshot) instead of a
	// final usage chunk.
	UsageInChoice bool

	// Fault, when set, replaces or breaks the response (see the Fault constants).
	Fault Fault
	// RetryAfter is the retry-after header sent with a fault ("" = none).
	RetryAfter string
	// DisconnectAfter, with FaultDisconnect, is how many bytes of the stream are sent before
	// the connection is cut (0 = half of it).
	DisconnectAfter int

	// Raw, when set, is sent instead of anything rendered (a recorded response).
	Raw *Raw

	// Chunk cuts the stream into writes of this many bytes, each flushed (0 = one write per
	// SSE event). Noise adds SSE comments, pings (anthropic) and keep-alive blank lines
	// between events. Delay sleeps between writes.
	Chunk int
	Noise bool
	Delay time.Duration

	quietNoise bool // noise without data events
}

// Block is one content block of a scripted turn.
type Block struct {
	// Kind is "text", "thinking" or "tool".
	Kind string
	// Text is the text or thinking; Signature the thinking signature (anthropic) or the
	// encrypted reasoning (responses); Redacted makes an anthropic redacted_thinking block
	// whose data is Signature.
	Text      string
	Signature string
	Redacted  bool
	// Tool calls.
	ToolCall
}

// ToolCall is one scripted tool call; Args is its JSON arguments (sent in pieces).
type ToolCall struct {
	ID   string
	Name string
	Args string
}

// Usage is a turn's token counts as the provider reports them.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, Reasoning int
}

// Fault is a scripted failure.
type Fault int

// Faults, each rendered with the status and body the request's provider sends.
const (
	NoFault Fault = iota
	// RateLimit is a 429 (with RetryAfter as retry-after when set).
	RateLimit
	// ServerError is a 500.
	ServerError
	// Overloaded is anthropic's 529 overloaded_error (a 503 for the OpenAI APIs).
	Overloaded
	// ContextOverflow is the provider's 400 "context too long" error.
	ContextOverflow
	// Disconnect sends part of the stream, then cuts the connection without ending it.
	Disconnect
	// StreamError sends the start of a stream, then an in-stream error event.
	StreamError
	// Truncated sends part of the stream and ends it cleanly (no finish/stop event).
	Truncated
	// Unauthorized is the provider's 401 for a bad or expired credential.
	Unauthorized
)

// Raw is a response sent verbatim.
type Raw struct {
	Code   int
	Header map[string]string
	Body   string
}

// Request is one recorded request.
type Request struct {
	Method string
	Host   string
	Path   string
	Query  string // the URL's raw query
	API    string
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value (numbers as json.Number).
func (r Request) JSON() map[string]any {
	var v map[string]any
	d := json.NewDecoder(bytes.NewReader(r.Body))
	d.UseNumber()
	_ = d.Decode(&v)
	return v
}

// Server is the scripted model server.
type Server struct {
	// URL is the server's base URL (http://127.0.0.1:port); clients append their own paths
	// (models.json baseUrl is usually URL+"/v1").
	URL string

	srv   *httptest.Server
	mu    sync.Mutex
	queue []Turn
	reqs  []Request
	// Fallback answers requests when the queue is empty (nil: a 500 saying so).
	Fallback *Turn
}

// New starts a server on 127.0.0.1 and closes it when the test ends.
func New(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on 127.0.0.1 outside a test (benchmarks, examples, tools); Close
// stops it.
func Start() *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// CloseConnections makes every later response close its connection ("Connection: close"), as
// a server behind a load balancer may. A client that keeps a reply's socket open after it is
// done with it then still sees it end: pi 1.6.0's Bedrock client leaves the socket of a
// stream that ended in an exception open and, in -p mode, does not exit until the server
// closes it.
func (s *Server) CloseConnections() { s.srv.Config.SetKeepAlivesEnabled(false) }

// Push queues responses, answered to requests in order.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	s.queue = append(s.queue, turns...)
	s.mu.Unlock()
}

// Pending is the number of queued responses not yet served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// APIOf names the API a request path belongs to ("" for an unknown path).
func APIOf(path string) string {
	switch {
	case bedrockPath(path):
		return Bedrock
	case piMessagesPath(path):
		return PiMessages
	case strings.HasSuffix(path, "/chat/completions") && mistralPath(path):
		return Mistral
	case strings.HasSuffix(path, "/chat/completions"):
		return OpenAICompletions
	case strings.HasSuffix(path, "/messages"):
		return AnthropicMessages
	case strings.Contains(path, "/publishers/google/models/"):
		return GoogleVertex
	case strings.HasSuffix(path, ":streamGenerateContent"):
		return GoogleAI
	case strings.HasSuffix(path, "/codex/responses"):
		return CodexResponses
	case strings.HasSuffix(path, "/responses"):
		return OpenAIResponses
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	api := APIOf(r.URL.Path)
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		// A WebSocket attempt (pi's Codex transport) is recorded and refused without taking
		// a queued response: the client falls back to SSE.
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, API: api, Header: r.Header.Clone()})
		s.mu.Unlock()
		http.Error(w, "llmtest: no WebSocket", http.StatusNotFound)
		return
	}
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, Request{Method: r.Method, Host: r.Host, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, API: api, Header: r.Header.Clone(), Body: body})
	var turn *Turn
	if len(s.queue) > 0 {
		t := s.queue[0]
		s.queue = s.queue[1:]
		turn = &t
	} else if s.Fallback != nil {
		t := *s.Fallback
		turn = &t
	}
	s.mu.Unlock()
	if turn == nil {
		http.Error(w, fmt.Sprintf("llmtest: no response queued for request %d (%s %s)", n, r.Method, r.URL.Path), http.StatusInternalServerError)
		return
	}
	if turn.Raw != nil && api == Bedrock {
		s.write(w, turn, turn.Raw.Code, turn.Raw.Header, []string{turn.Raw.Body})
		return
	}
	if turn.Raw != nil {
		s.write(w, turn, turn.Raw.Code, turn.Raw.Header, splitEvents(turn.Raw.Body))
		return
	}
	if api == "" {
		http.Error(w, "llmtest: unknown path "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &req)
	if turn.Model == "" {
		turn.Model = req.Model
	}
	if turn.ID == "" {
		turn.ID = fmt.Sprintf("%d", n+1)
	}
	if code, hdr, errBody := faultResponse(api, turn); code != 0 {
		if turn.RetryAfter != "" {
			hdr["retry-after"] = turn.RetryAfter
		}
		s.write(w, turn, code, hdr, []string{errBody})
		return
	}
	events := render(api, turn)
	if api == Mistral {
		turn.quietNoise = true // pi's Mistral reader refuses any event without choices
	}
	if api == Bedrock {
		turn.Noise = false // binary framing has no room for SSE noise
		s.write(w, turn, 200, map[string]string{"Content-Type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "7d1c9e4a-0000-4000-8000-000000000000"}, events)
		return
	}
	s.write(w, turn, 200, map[string]string{"Content-Type": "text/event-stream; charset=utf-8"}, events)
}

// write sends the events (already framed) with the turn's chunking, noise and faults.
func (s *Server) write(w http.ResponseWriter, t *Turn, code int, hdr map[string]string, events []string) {
	for k, v := range hdr {
		w.Header().Set(k, v)
	}
	if t.Fault == Disconnect || t.Fault == Truncated {
		w.Header().Set("Transfer-Encoding", "chunked")
	}
	w.WriteHeader(code)
	fl, _ := w.(http.Flusher)
	var stream strings.Builder
	noise := noise
	if t.quietNoise {
		noise = func(i int) string { return ": keep-alive\n\n" }
	}
	for i, ev := range events {
		if t.Noise && i > 0 {
			stream.WriteString(noise(i))
		}
		stream.WriteString(ev)
	}
	all := stream.String()
	limit := len(all)
	if t.Fault == Disconnect || t.Fault == Truncated {
		limit = t.DisconnectAfter
		if limit <= 0 || limit > len(all) {
			limit = len(all) / 2
		}
	}
	var pieces []string
	if t.Chunk > 0 {
		for i := 0; i < limit; i += t.Chunk {
			pieces = append(pieces, all[i:min(i+t.Chunk, limit)])
		}
	} else {
		off := 0
		for i, ev := range events {
			if t.Noise && i > 0 {
				ev = noise(i) + ev
			}
			if off+len(ev) > limit {
				ev = ev[:limit-off]
			}
			if ev != "" {
				pieces = append(pieces, ev)
			}
			off += len(ev)
			if off >= limit {
				break
			}
		}
	}
	for _, p := range pieces {
		if _, err := io.WriteString(w, p); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		if t.Delay > 0 {
			time.Sleep(t.Delay)
		}
	}
	if t.Fault == Disconnect {
		// Cut the connection without the chunked terminator: the client sees an unexpected EOF.
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				if tc, ok := conn.(*net.TCPConn); ok {
					_ = tc.SetLinger(0)
				}
				conn.Close()
			}
		}
	}
}

func noise(i int) string {
	switch i % 4 {
	case 0:
		return ": keep-alive\n\n"
	case 1:
		return "\n"
	case 2:
		return "event: ping\ndata: {\"type\": \"ping\"}\n\n"
	}
	return ":\r\n\r\n"
}

// splitEvents cuts a recorded SSE body after each blank line, so it is written event by
// event like a live stream.
func splitEvents(body string) []string {
	var out []string
	for body != "" {
		i := strings.Index(body, "\n\n")
		if i < 0 {
			out = append(out, body)
			break
		}
		out = append(out, body[:i+2])
		body = body[i+2:]
	}
	return out
}

// mistralPath tells Mistral's endpoint ({baseUrl}/v1/chat/completions with the server's URL as
// base) from the OpenAI-compatible ones ({baseUrl}/chat/completions with URL+"/v1" as base,
// which the scripted tests use): a "/mistral" prefix marks it.
func mistralPath(path string) bool { return strings.HasPrefix(path, "/mistral/") }
