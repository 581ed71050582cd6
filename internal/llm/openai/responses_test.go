package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func respModel(srv *llmtest.Server) *llm.Model {
	return &llm.Model{Provider: "local", ID: "m", API: ResponsesAPI, BaseURL: srv.BaseURL(ResponsesAPI), APIKey: "k",
		Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
}

func respStream(t *testing.T, m *llm.Model, c *llm.Context, o *llm.Options) (*llm.Message, []llm.Event) {
	t.Helper()
	var evs []llm.Event
	msg := Responses{}.Stream(context.Background(), m, c, o, func(e llm.Event) { evs = append(evs, e) })
	return msg, evs
}

func TestResponsesFixture(t *testing.T) {
	cas := llmtest.Fixture(t, "openai/responses-tool-streaming.yaml")
	for _, chunk := range []int{0, 1, 9} {
		srv := llmtest.New(t)
		tr0, tr1 := cas.Interactions[0].Turn(), cas.Interactions[1].Turn()
		tr0.Chunk, tr0.Noise = chunk, chunk == 9
		tr1.Chunk = chunk
		srv.Push(tr0, tr1)
		m := respModel(srv)
		m.ID, m.Reasoning, m.Cost = "gpt-5", true, llm.Cost{Input: 1.25, Output: 10, CacheRead: 0.125}
		c := userCtx("weather in Florence?")
		msg, evs := respStream(t, m, c, nil)
		if msg.StopReason != llm.StopToolUse {
			t.Fatalf("chunk %d: %s %q", chunk, msg.StopReason, msg.ErrorMessage)
		}
		if msg.Content[0].Type != llm.TypeThinking || !strings.HasPrefix(msg.Content[0].ThinkingSignature, `{"id":"rs_`) {
			t.Errorf("reasoning: %+v", msg.Content[0])
		}
		tc := msg.ToolCalls()
		if len(tc) != 1 || tc[0].Name != "weather" || !strings.Contains(tc[0].ID, "|fc_") || string(tc[0].Arguments) != `{"location":"Florence, Italy"}` {
			t.Errorf("tool call %+v %s", tc, tc[0].Arguments)
		}
		if msg.Usage.Reasoning == nil || msg.Usage.Output != 77 || msg.Usage.TotalTokens == 0 || msg.Usage.Cost.Total == 0 || !strings.HasPrefix(msg.ResponseID, "resp_") {
			t.Errorf("usage %+v id %q", msg.Usage, msg.ResponseID)
		}
		if got := llmtest.EventTypes(evs); !strings.HasPrefix(got, "start thinking_start thinking_end toolcall_start toolcall_delta") {
			t.Errorf("events %s", got)
		}
		f := false
		c.Messages = append(c.Messages, *msg, llm.Message{Role: llm.RoleToolResult, ToolCallID: tc[0].ID, ToolName: "weather", Content: []llm.Content{llm.TextBlock("40 C")}, IsError: &f})
		final, _ := respStream(t, m, c, nil)
		if final.StopReason != llm.StopStop || !strings.Contains(final.Text(), "40") || !strings.HasPrefix(final.Content[len(final.Content)-1].TextSignature, `{"v":1,"id":"msg_`) {
			t.Errorf("final %s %q %+v", final.StopReason, final.ErrorMessage, final.Content)
		}
		var req struct {
			Input []map[string]any `json:"input"`
		}
		_ = json.Unmarshal(srv.Requests()[1].Body, &req)
		var kinds []string
		for _, in := range req.Input {
			if ty, ok := in["type"].(string); ok {
				kinds = append(kinds, ty)
			} else {
				kinds = append(kinds, in["role"].(string))
			}
		}
		if got := strings.Join(kinds, " "); got != "developer user reasoning function_call function_call_output" {
			t.Errorf("follow-up input %s", got)
		}
	}
}

func TestResponsesScriptedAndFaults(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Thinking: "deep thought", Text: "Hi there.", Usage: llmtest.Usage{Input: 10, CacheRead: 4, Output: 3, Reasoning: 1}},
		llmtest.Turn{Text: "cut", StopReason: "length"}, llmtest.Turn{Fault: llmtest.ContextOverflow}, llmtest.Turn{Fault: llmtest.RateLimit},
		llmtest.Turn{Text: "a", Fault: llmtest.StreamError}, llmtest.Turn{Text: "a b c d", Fault: llmtest.Truncated, DisconnectAfter: 500},
		llmtest.Turn{Text: "x", StopReason: "content_filter"})
	msg, evs := respStream(t, respModel(srv), userCtx("x"), nil)
	if got := llmtest.EventTypes(evs); got != "start thinking_start thinking_delta thinking_delta thinking_delta thinking_end text_start text_delta text_delta text_end done" {
		t.Errorf("events %s", got)
	}
	if msg.Content[0].Thinking != "deep thought" || msg.Text() != "Hi there." || msg.Usage.Input != 10 || msg.Usage.CacheRead != 4 {
		t.Errorf("msg %+v %+v", msg.Content, msg.Usage)
	}
	msg, _ = respStream(t, respModel(srv), userCtx("x"), nil)
	if msg.StopReason != llm.StopLength || msg.RawStopReason != "incomplete.max_output_tokens" {
		t.Errorf("length: %s %s", msg.StopReason, msg.RawStopReason)
	}
	for _, want := range []string{
		`OpenAI API error (400): {"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}`,
		`OpenAI API error (429): {"message":"Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.","type":"requests","param":null,"code":"rate_limit_exceeded"}`,
		"Error Code server_error: The server had an error while processing your request.",
		"OpenAI Responses stream ended before a terminal response event",
		"Response incomplete: content_filter",
	} {
		msg, _ := respStream(t, respModel(srv), userCtx("x"), nil)
		if msg.StopReason != llm.StopError || msg.ErrorMessage != want {
			t.Errorf("got %s %q\nwant %q", msg.StopReason, msg.ErrorMessage, want)
		}
	}
}
