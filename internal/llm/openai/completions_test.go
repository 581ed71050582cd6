package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func model(srv *llmtest.Server) *llm.Model {
	return &llm.Model{Provider: "local", ID: "m", API: CompletionsAPI, BaseURL: srv.URL + "/v1", APIKey: "k",
		Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
}

func stream(t *testing.T, m *llm.Model, c *llm.Context, o *llm.Options) (*llm.Message, []llm.Event) {
	t.Helper()
	var evs []llm.Event
	msg := Completions{}.Stream(context.Background(), m, c, o, func(e llm.Event) { evs = append(evs, e) })
	return msg, evs
}

func userCtx(text string) *llm.Context {
	return &llm.Context{SystemPrompt: "You are helpful.", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(text)}, Timestamp: 1}}}
}

func TestFixtureToolStreaming(t *testing.T) {
	cas := llmtest.Fixture(t, "openai/chat-completions-tool-streaming.yaml")
	for _, chunk := range []int{0, 1, 7, 64} {
		srv := llmtest.New(t)
		tr := cas.Interactions[0].Turn()
		tr.Chunk = chunk
		tr.Noise = chunk == 7
		srv.Push(tr)
		m := model(srv)
		m.Cost = llm.Cost{Input: 0.15, Output: 0.6}
		msg, evs := stream(t, m, userCtx("weather?"), nil)
		if msg.StopReason != llm.StopToolUse || msg.ErrorMessage != "" {
			t.Fatalf("chunk %d: %s %s", chunk, msg.StopReason, msg.ErrorMessage)
		}
		tcs := msg.ToolCalls()
		if len(tcs) != 1 || tcs[0].Name != "weather" || string(tcs[0].Arguments) != `{"location":"Florence,Italy"}` {
			t.Errorf("tool calls: %+v", tcs)
		}
		if got := llmtest.EventTypes(evs); !strings.HasPrefix(got, "start toolcall_start toolcall_delta") || !strings.HasSuffix(got, "toolcall_end done") {
			t.Errorf("events: %s", got)
		}
		if msg.Usage.Input == 0 || msg.Usage.TotalTokens != msg.Usage.Input+msg.Usage.Output+msg.Usage.CacheRead || msg.Usage.Cost.Total == 0 {
			t.Errorf("usage: %+v", msg.Usage)
		}
		if !strings.HasPrefix(msg.ResponseID, "chatcmpl-") {
			t.Errorf("responseId %q", msg.ResponseID)
		}
	}
}

func TestScriptedTextThenTool(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{"path":"."}`}}, Usage: llmtest.Usage{Input: 20, Output: 4}})
	msg, evs := stream(t, model(srv), userCtx("list"), nil)
	want := "start text_start text_delta toolcall_start toolcall_delta toolcall_delta toolcall_delta text_end toolcall_end done"
	if got := llmtest.EventTypes(evs); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if msg.Text() != "Reading." || msg.StopReason != llm.StopToolUse {
		t.Errorf("msg %+v", msg)
	}
	body := srv.Requests()[0].Body
	wantBody := `{"model":"m","messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":[{"type":"text","text":"list"}]}],"stream":true,"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":16384}`
	if string(body) != wantBody {
		t.Errorf("body:\n got %s\nwant %s", body, wantBody)
	}
}

func TestFaults(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Fault: llmtest.RateLimit, RetryAfter: "1"}, llmtest.Turn{Fault: llmtest.ContextOverflow},
		llmtest.Turn{Text: "x", StopReason: "content_filter"}, llmtest.Turn{Text: "a b c d e f g h", Fault: llmtest.Disconnect, DisconnectAfter: 300},
		llmtest.Turn{Text: "a b", Fault: llmtest.StreamError}, llmtest.Turn{Text: "a b c", Fault: llmtest.Truncated, DisconnectAfter: 250})
	for _, want := range []string{
		`429: {"message":"Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.","type":"requests","param":null,"code":"rate_limit_exceeded"}`,
		`400: {"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130011 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}`,
		"Provider finish_reason: content_filter",
		"terminated",
		"The server had an error while processing your request. Sorry about that!",
		"Stream ended without finish_reason",
	} {
		msg, evs := stream(t, model(srv), userCtx("x"), nil)
		if msg.StopReason != llm.StopError || msg.ErrorMessage != want {
			t.Errorf("got %s %q, want %q", msg.StopReason, msg.ErrorMessage, want)
		}
		if last := evs[len(evs)-1]; last.Type != llm.EventError || last.Error.ErrorMessage != want {
			t.Errorf("last event %+v", last)
		}
	}
}

func TestReasoningFields(t *testing.T) {
	for _, f := range []string{"reasoning_content", "reasoning", "reasoning_text"} {
		srv := llmtest.New(t)
		srv.Push(llmtest.Turn{Thinking: "hmm ok", Text: "hi", ReasoningField: f, UsageInChoice: true, Usage: llmtest.Usage{Input: 3, Output: 2}})
		m := model(srv)
		m.Reasoning = true
		msg, evs := stream(t, m, userCtx("x"), &llm.Options{ThinkingLevel: "high"})
		if msg.Content[0].Type != llm.TypeThinking || msg.Content[0].Thinking != "hmm ok" || msg.Content[0].ThinkingSignature != f {
			t.Errorf("%s: %+v", f, msg.Content)
		}
		if msg.Usage.Input != 3 {
			t.Errorf("choice usage: %+v", msg.Usage)
		}
		if got := llmtest.EventTypes(evs); got != "start thinking_start thinking_delta thinking_delta text_start text_delta thinking_end text_end done" {
			t.Errorf("%s", got)
		}
		var body map[string]any
		_ = json.Unmarshal(srv.Requests()[0].Body, &body)
		if body["reasoning_effort"] != "high" || body["messages"].([]any)[0].(map[string]any)["role"] != "developer" {
			t.Errorf("body %s", srv.Requests()[0].Body)
		}
	}
}

// With a proxy configured, requests go through it (the loopback server plays the proxy for
// a host that does not exist), and the model's headers are sent.
func TestProxyAndHeaders(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "via proxy"})
	m := model(srv)
	m.BaseURL = "http://models.example.invalid/v1"
	m.Headers = map[string]string{"X-Custom": "1"}
	msg, _ := stream(t, m, userCtx("x"), &llm.Options{ProxyURL: srv.URL, Headers: map[string]string{"Thread-Id": "s1"}})
	if msg.Text() != "via proxy" {
		t.Fatalf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
	h := srv.Requests()[0].Header
	if h.Get("X-Custom") != "1" || h.Get("Thread-Id") != "s1" || h.Get("Authorization") != "Bearer k" || !strings.HasPrefix(h.Get("User-Agent"), "pigo (") {
		t.Errorf("headers %v", h)
	}
}

// The seed's openai-cost: the provider's usage.cost becomes the cost total.
func TestReportedCost(t *testing.T) {
	cas := llmtest.Fixture(t, "openrouter/chat-completions-tool-streaming-cost.yaml")
	srv := llmtest.New(t)
	srv.Push(cas.Interactions[0].Turn(), cas.Interactions[0].Turn())
	m := model(srv)
	m.Cost = llm.Cost{Input: 1, Output: 1}
	plain, _ := stream(t, m, userCtx("x"), nil)
	withCost, _ := stream(t, m, userCtx("x"), &llm.Options{ReportedCost: true})
	if plain.Usage.Cost.Input == 0 || plain.Usage.Cost.Total == withCost.Usage.Cost.Total {
		t.Errorf("plain cost %+v", plain.Usage.Cost)
	}
	if c := withCost.Usage.Cost; c.Input != 0 || c.Output != 0 || c.Total <= 0 || c.Total > 0.01 {
		t.Errorf("reported cost %+v", c)
	}
}

// Cancelled before any response: aborted, with the text pi's retry wrapper gives.
func TestAbortBeforeResponse(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "never"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var evs []llm.Event
	msg := Completions{}.Stream(ctx, model(srv), userCtx("x"), nil, func(e llm.Event) { evs = append(evs, e) })
	if msg.StopReason != llm.StopAborted || msg.ErrorMessage != "Request aborted" || len(evs) != 1 || evs[0].Type != llm.EventError {
		t.Errorf("%s %q %v", msg.StopReason, msg.ErrorMessage, llmtest.EventTypes(evs))
	}
}

func TestNoAPIKey(t *testing.T) {
	m := &llm.Model{Provider: "local", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1"}
	msg, _ := stream(t, m, userCtx("x"), nil)
	if msg.ErrorMessage != "No API key for provider: local" {
		t.Errorf("%q", msg.ErrorMessage)
	}
	// An Authorization header stands in for the key.
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "ok"})
	m.BaseURL = srv.BaseURL(CompletionsAPI)
	msg, _ = stream(t, m, userCtx("x"), &llm.Options{Headers: map[string]string{"Authorization": "Bearer own"}})
	if msg.Text() != "ok" || srv.Requests()[0].Header.Get("Authorization") != "Bearer own" {
		t.Errorf("%q %v", msg.ErrorMessage, srv.Requests()[0].Header)
	}
}

func TestConnectionError(t *testing.T) {
	srv := llmtest.New(t)
	m := model(srv)
	srv.Close()
	msg, _ := stream(t, m, userCtx("x"), nil)
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "Connection error." {
		t.Errorf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
}

// The reported cost in its three shapes goes into the final message only, as the seed writes it
// on the done or error event: the updates before keep the prices' cost. A stream that fails
// after reporting a cost carries it on the error.
func TestReportedCostShapesFinalOnly(t *testing.T) {
	sse := func(usage string, tail string) string {
		return "data: {\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi.\"}}]}\n\n" + usage + tail
	}
	final := "data: {\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	for _, tc := range []struct {
		name, body, reason string
		total              float64
	}{
		{"number", sse("data: {\"id\":\"r\",\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":10,\"cost\":0.5}}\n\n", final), llm.StopStop, 0.5},
		{"object", sse("data: {\"id\":\"r\",\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":10,\"cost\":{\"total\":0.25,\"upstream\":9}}}\n\n", final), llm.StopStop, 0.25},
		{"choice", sse("data: {\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{},\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":10,\"cost\":0.125}}]}\n\n", final), llm.StopStop, 0.125},
		{"error", sse("data: {\"id\":\"r\",\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":10,\"cost\":0.75}}\n\n", "data: {\"error\":{\"message\":\"boom\"}}\n\n"), llm.StopError, 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Push(llmtest.Turn{Raw: &llmtest.Raw{Code: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: tc.body}})
			m := model(srv)
			m.Cost = llm.Cost{Input: 1, Output: 1}
			msg, evs := stream(t, m, userCtx("x"), &llm.Options{ReportedCost: true})
			if msg.StopReason != tc.reason || msg.Usage.Cost != (llm.Cost{Total: tc.total}) {
				t.Fatalf("%s %q cost %+v", msg.StopReason, msg.ErrorMessage, msg.Usage.Cost)
			}
			last := evs[len(evs)-1]
			if fin := firstNonNil(last.Message, last.Error); fin == nil || fin.Usage.Cost.Total != tc.total {
				t.Errorf("final event %+v", last)
			}
			for _, e := range evs[:len(evs)-1] {
				if e.Partial != nil && e.Partial.Usage.Cost.Total == tc.total {
					t.Errorf("%s carries the reported cost before the end", e.Type)
				}
			}
		})
	}
}

func firstNonNil(ms ...*llm.Message) *llm.Message {
	for _, m := range ms {
		if m != nil {
			return m
		}
	}
	return nil
}
