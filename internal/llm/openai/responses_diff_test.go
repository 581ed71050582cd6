package openai

import (
	"encoding/json"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func respPiContext(t *testing.T, body []byte) (*llm.Context, string, string) {
	t.Helper()
	var req struct {
		Input []struct {
			Role    string          `json:"role"`
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
			Output  string          `json:"output"`
		} `json:"input"`
		Tools     []llm.Tool `json:"tools"`
		PromptKey string     `json:"prompt_cache_key"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	c := &llm.Context{Tools: req.Tools}
	result := ""
	for _, in := range req.Input {
		switch {
		case in.Role == "developer" || in.Role == "system":
			_ = json.Unmarshal(in.Content, &c.SystemPrompt)
		case in.Role == "user" && len(c.Messages) == 0:
			var parts []struct{ Text string }
			_ = json.Unmarshal(in.Content, &parts)
			c.Messages = append(c.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(parts[0].Text)}, Timestamp: 1})
		case in.Type == "function_call_output":
			result = in.Output
		}
	}
	return c, result, req.PromptKey
}

// pigo's openai-responses bodies equal the real pi's byte for byte (a reasoning model: the
// follow-up replays the reasoning item, the function_call with its fc_ item id and the
// output), with pi's session id as prompt_cache_key.
func TestResponsesDiffPiRequestBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi")
	}
	srv := llmtest.New(t)
	turn1 := llmtest.Turn{ID: "1", Thinking: "Let me look.", Text: "Reading.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{"path":"."}`}}, Usage: llmtest.Usage{Input: 100, Output: 10}}
	srv.Push(turn1, llmtest.Turn{Text: "Done: saw files."})
	out, errOut, _ := srv.RunPi(t, llmtest.PiRun{API: ResponsesAPI, Model: map[string]any{"id": "m", "reasoning": true}, Args: []string{"--tools", "ls", "--no-session", "--thinking", "low", "--mode", "json", "-p", "list files"},
		Files: map[string]string{"a.txt": "x"}})
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("pi made %d requests; stdout %q stderr %q", len(reqs), out, errOut)
	}
	m := &llm.Model{Provider: "local", ID: "m", API: ResponsesAPI, BaseURL: srv.BaseURL(ResponsesAPI), APIKey: "k", Reasoning: true,
		Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
	c, _, key := respPiContext(t, reqs[0].Body)
	o := &llm.Options{ThinkingLevel: "low", SessionID: key}
	if got := string(BuildResponsesBody(m, c, o)); got != string(reqs[0].Body) {
		t.Errorf("request 1 differs:\npigo %s\npi   %s", got, reqs[0].Body)
	}
	srv.Push(turn1)
	asst, evs := respStream(t, m, c, o)
	if pa := llmtest.PiAssistants(out); len(pa) != 2 {
		t.Errorf("pi printed %d assistant messages", len(pa))
	} else if d := llmtest.DiffAssistant(pa[0], evs, asst); d != "" {
		t.Errorf("turn 1 differs from pi's:\n%s", d)
	}
	_, result, _ := respPiContext(t, reqs[1].Body)
	isErr := false
	c.Messages = append(c.Messages, *asst, llm.Message{Role: llm.RoleToolResult, ToolCallID: asst.ToolCalls()[0].ID, ToolName: "ls",
		Content: []llm.Content{llm.TextBlock(result)}, IsError: &isErr, Timestamp: 3})
	if got := string(BuildResponsesBody(m, c, o)); got != string(reqs[1].Body) {
		t.Errorf("request 2 differs:\npigo %s\npi   %s", got, reqs[1].Body)
	}
	for _, h := range []string{"session_id", "x-client-request-id", "Authorization"} {
		if got, want := srv.Requests()[2].Header.Get(h), reqs[0].Header.Get(h); got != want {
			t.Errorf("header %s: pigo %q, pi %q", h, got, want)
		}
	}
}

// A model without reasoning: system role, no reasoning parameter; an incomplete response
// (max_output_tokens) ends as length. Body and message equal pi's.
func TestResponsesDiffPiPlainLength(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi")
	}
	srv := llmtest.New(t)
	turn := llmtest.Turn{ID: "1", Text: "Cut off", StopReason: "length", Usage: llmtest.Usage{Input: 9, CacheRead: 1, Output: 16}}
	srv.Push(turn)
	out, errOut, _ := srv.RunPi(t, llmtest.PiRun{API: ResponsesAPI, Model: map[string]any{"id": "m", "maxTokens": 8}, Args: []string{"--tools", "ls", "--no-session", "--mode", "json", "-p", "hi"}})
	reqs := srv.Requests()
	pa := llmtest.PiAssistants(out)
	if len(reqs) != 1 || len(pa) != 1 {
		t.Fatalf("pi: %d requests, %d messages; stderr %s", len(reqs), len(pa), errOut)
	}
	m := &llm.Model{Provider: "local", ID: "m", API: ResponsesAPI, BaseURL: srv.BaseURL(ResponsesAPI), APIKey: "k", Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 8}
	c, _, key := respPiContext(t, reqs[0].Body)
	o := &llm.Options{SessionID: key}
	if got := string(BuildResponsesBody(m, c, o)); got != string(reqs[0].Body) {
		t.Errorf("body differs:\npigo %s\npi   %s", got, reqs[0].Body)
	}
	srv.Push(turn)
	msg, evs := respStream(t, m, c, o)
	if d := llmtest.DiffAssistant(pa[0], evs, msg); d != "" {
		t.Errorf("differs from pi's:\n%s", d)
	}
}
