package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func model(srv *llmtest.Server) *llm.Model {
	return &llm.Model{Provider: "local", ID: "m", API: API, BaseURL: srv.BaseURL(API), APIKey: "k",
		Input: []string{"text"}, ContextWindow: 200000, MaxTokens: 16384}
}

func stream(t *testing.T, m *llm.Model, c *llm.Context, o *llm.Options) (*llm.Message, []llm.Event) {
	t.Helper()
	var evs []llm.Event
	msg := Provider{}.Stream(context.Background(), m, c, o, func(e llm.Event) { evs = append(evs, e) })
	return msg, evs
}

func userCtx(text string) *llm.Context {
	return &llm.Context{SystemPrompt: "You are helpful.", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(text)}, Timestamp: 1}}}
}

func TestFixtures(t *testing.T) {
	for _, tc := range []struct {
		file, wantTypes, wantArgs string
		blocks                    int
	}{
		{"anthropic/messages-tool-streaming.yaml", "text toolCall", `{"location":"Florence,Italy"}`, 2},
		{"anthropic/messages-parallel-tools-streaming.yaml", "text toolCall toolCall", "", 3},
		{"anthropic/messages-thinking-streaming.yaml", "thinking toolCall", "", 2},
	} {
		cas := llmtest.Fixture(t, tc.file)
		for _, chunk := range []int{0, 1, 13} {
			srv := llmtest.New(t)
			tr := cas.Interactions[0].Turn()
			tr.Chunk, tr.Noise = chunk, chunk == 13
			srv.Push(tr)
			m := model(srv)
			m.Cost = llm.Cost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
			msg, evs := stream(t, m, userCtx("x"), nil)
			if msg.StopReason != llm.StopToolUse || msg.ErrorMessage != "" {
				t.Fatalf("%s/%d: %s %q", tc.file, chunk, msg.StopReason, msg.ErrorMessage)
			}
			var kinds []string
			for _, c := range msg.Content {
				kinds = append(kinds, c.Type)
				if c.Type == llm.TypeThinking && (c.Thinking == "" || c.ThinkingSignature == "") {
					t.Errorf("thinking without text or signature: %+v", c)
				}
			}
			if strings.Join(kinds, " ") != tc.wantTypes {
				t.Errorf("%s: blocks %v", tc.file, kinds)
			}
			if tc.wantArgs != "" && string(msg.ToolCalls()[0].Arguments) != tc.wantArgs {
				t.Errorf("%s: args %s", tc.file, msg.ToolCalls()[0].Arguments)
			}
			if !strings.HasPrefix(llmtest.EventTypes(evs), "start ") || !strings.HasSuffix(llmtest.EventTypes(evs), " done") {
				t.Errorf("events %s", llmtest.EventTypes(evs))
			}
			if msg.Usage.Input == 0 || msg.Usage.Output == 0 || msg.Usage.Cost.Total == 0 || msg.Usage.CacheWrite1h == nil {
				t.Errorf("usage %+v", msg.Usage)
			}
			if !strings.HasPrefix(msg.ResponseID, "msg_") || !strings.HasPrefix(msg.Model, "claude-") {
				t.Errorf("ids %q %q", msg.ResponseID, msg.Model)
			}
		}
	}
}

// The thinking fixture's second request sends the thinking block back verbatim with its
// signature: pigo's follow-up body carries exactly the signature the stream gave.
func TestThinkingSignatureSentBack(t *testing.T) {
	cas := llmtest.Fixture(t, "anthropic/messages-thinking-streaming.yaml")
	srv := llmtest.New(t)
	srv.Push(cas.Interactions[0].Turn(), cas.Interactions[1].Turn())
	m := model(srv)
	m.Reasoning = true
	m.ID = "claude-sonnet-4-20250514" // the model the stream names: pi replays thinking only to the same model
	c := userCtx("weather?")
	o := &llm.Options{ThinkingLevel: "medium"}
	asst, _ := stream(t, m, c, o)
	f := false
	c.Messages = append(c.Messages, *asst, llm.Message{Role: llm.RoleToolResult, ToolCallID: asst.ToolCalls()[0].ID, ToolName: "weather", Content: []llm.Content{llm.TextBlock("40 C")}, IsError: &f})
	final, _ := stream(t, m, c, o)
	if final.StopReason != llm.StopStop || final.Text() == "" {
		t.Fatalf("%s %q", final.StopReason, final.ErrorMessage)
	}
	var fantasy, pigo struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal([]byte(cas.Interactions[1].Request.Body), &fantasy)
	_ = json.Unmarshal(srv.Requests()[1].Body, &pigo)
	want := fantasy.Messages[1].Content[0]
	got := pigo.Messages[1].Content[0]
	if got["type"] != "thinking" || got["signature"] != want["signature"] || got["thinking"] != want["thinking"] {
		t.Errorf("thinking sent back:\n got %v\nwant %v", got, want)
	}
	body := srv.Requests()[1].Body
	if !strings.Contains(string(body), `"thinking":{"type":"enabled","budget_tokens":8192,"display":"summarized"}`) || !strings.Contains(string(body), `"max_tokens":16384`) {
		t.Errorf("thinking params: %s", body)
	}
}

func TestScripted(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Blocks: []llmtest.Block{{Kind: "thinking", Text: "hmm", Signature: "SIG"}, {Kind: "thinking", Redacted: true, Signature: "OPAQUE"},
		{Kind: "text", Text: "Reading now."}, {Kind: "tool", ToolCall: llmtest.ToolCall{Name: "ls", Args: `{"path":"."}`}}}, Usage: llmtest.Usage{Input: 5, CacheRead: 7, CacheWrite: 3, Output: 9}, Noise: true})
	msg, evs := stream(t, model(srv), userCtx("x"), nil)
	want := "start thinking_start thinking_delta thinking_end thinking_start thinking_end text_start text_delta text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_delta toolcall_end done"
	if got := llmtest.EventTypes(evs); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	if c := msg.Content[0]; c.ThinkingSignature != "SIG" {
		t.Errorf("signature %+v", c)
	}
	if c := msg.Content[1]; !c.Redacted || c.ThinkingSignature != "OPAQUE" || c.Thinking != "[Reasoning redacted]" {
		t.Errorf("redacted %+v", c)
	}
	if u := msg.Usage; u.Input != 5 || u.CacheRead != 7 || u.CacheWrite != 3 || u.Output != 9 || u.TotalTokens != 24 {
		t.Errorf("usage %+v", u)
	}
	// The follow-up sends both thinking blocks back as they came.
	c := userCtx("x")
	c.Messages = append(c.Messages, *msg)
	body := string(BuildBody(model(srv), c, nil))
	if !strings.Contains(body, `{"type":"thinking","thinking":"hmm","signature":"SIG"},{"type":"redacted_thinking","data":"OPAQUE"}`) {
		t.Errorf("body %s", body)
	}
	h := srv.Requests()[0].Header
	if h.Get("x-api-key") != "k" || h.Get("anthropic-version") != "2023-06-01" || h.Get("anthropic-beta") != "interleaved-thinking-2025-05-14" {
		t.Errorf("headers %v", h)
	}
}

func TestFaults(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Fault: llmtest.Overloaded}, llmtest.Turn{Fault: llmtest.ContextOverflow}, llmtest.Turn{Fault: llmtest.RateLimit, RetryAfter: "5"},
		llmtest.Turn{Text: "a b", Fault: llmtest.StreamError}, llmtest.Turn{Text: "a b c d e f g", Fault: llmtest.Disconnect, DisconnectAfter: 400},
		llmtest.Turn{Text: "a b c d e f g", Fault: llmtest.Truncated, DisconnectAfter: 400}, llmtest.Turn{Text: "x", StopReason: "refusal"})
	for _, want := range []string{
		`529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"}}`,
		`429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		"terminated",
		"Anthropic stream ended before message_stop",
		"The model refused to complete the request",
	} {
		msg, _ := stream(t, model(srv), userCtx("x"), nil)
		if msg.StopReason != llm.StopError || msg.ErrorMessage != want {
			t.Errorf("got %s %q\nwant %q", msg.StopReason, msg.ErrorMessage, want)
		}
	}
}
