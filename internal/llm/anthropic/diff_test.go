package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// piContext rebuilds the inputs pi sent in an anthropic-messages body: system prompt, tools
// and the first user message's text.
func piContext(t *testing.T, body []byte) (*llm.Context, string) {
	t.Helper()
	var req struct {
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
		Messages []struct {
			Content []struct {
				Text    string          `json:"text"`
				Content json.RawMessage `json:"content"`
				Type    string          `json:"type"`
			} `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	c := &llm.Context{SystemPrompt: req.System[0].Text}
	c.Messages = []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(req.Messages[0].Content[0].Text)}, Timestamp: 1}}
	for _, tl := range req.Tools {
		c.Tools = append(c.Tools, llm.Tool{Name: tl.Name, Description: tl.Description, Parameters: tl.InputSchema})
	}
	result := ""
	if len(req.Messages) > 2 {
		var s string
		_ = json.Unmarshal(req.Messages[2].Content[0].Content, &s)
		result = s
	}
	return c, result
}

// pigo's request bodies equal the real pi's byte for byte: a tool turn (with thinking at
// level medium) and the follow-up carrying the signed thinking, the tool_use and the result.
func TestDiffPiRequestBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi")
	}
	for _, tc := range []struct {
		name  string
		model map[string]any
		level string
		turn1 llmtest.Turn
	}{
		{"plain", map[string]any{"id": "m"}, "", llmtest.Turn{ID: "1", Text: "Reading.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{"path":"."}`}}, Usage: llmtest.Usage{Input: 100, Output: 10}}},
		{"thinking", map[string]any{"id": "m", "reasoning": true, "maxTokens": 32000}, "medium",
			llmtest.Turn{ID: "1", Blocks: []llmtest.Block{{Kind: "thinking", Text: "Let me look.", Signature: "c2ln"}, {Kind: "text", Text: "Reading."},
				{Kind: "tool", ToolCall: llmtest.ToolCall{Name: "ls", Args: `{}`}}}, Usage: llmtest.Usage{Input: 100, Output: 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			srv.Push(tc.turn1, llmtest.Turn{Text: "Done: saw files."})
			args := []string{"--tools", "ls", "--no-session"}
			if tc.level != "" {
				args = append(args, "--thinking", tc.level)
			}
			out, errOut, _ := srv.RunPi(t, llmtest.PiRun{API: API, Model: tc.model, Args: append(args, "--mode", "json", "-p", "list files"), Files: map[string]string{"a.txt": "x"}})
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("pi made %d requests; stdout %q stderr %q", len(reqs), out, errOut)
			}
			m := &llm.Model{Provider: "local", ID: "m", API: API, BaseURL: srv.BaseURL(API), APIKey: "k",
				Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
			if tc.model["reasoning"] == true {
				m.Reasoning, m.MaxTokens = true, 32000
			}
			o := &llm.Options{ThinkingLevel: tc.level}
			c, _ := piContext(t, reqs[0].Body)
			if got := string(BuildBody(m, c, o)); got != string(reqs[0].Body) {
				t.Errorf("request 1 differs:\npigo %s\npi   %s", got, reqs[0].Body)
			}
			srv.Push(tc.turn1)
			asst, evs := stream(t, m, c, o)
			if pa := llmtest.PiAssistants(out); len(pa) != 2 {
				t.Errorf("pi printed %d assistant messages", len(pa))
			} else if d := llmtest.DiffAssistant(pa[0], evs, asst); d != "" {
				t.Errorf("turn 1 differs from pi's:\n%s", d)
			}
			_, result := piContext(t, reqs[1].Body)
			isErr := false
			c.Messages = append(c.Messages, *asst, llm.Message{Role: llm.RoleToolResult, ToolCallID: asst.ToolCalls()[0].ID, ToolName: "ls",
				Content: []llm.Content{llm.TextBlock(result)}, IsError: &isErr, Timestamp: 3})
			if got := string(BuildBody(m, c, o)); got != string(reqs[1].Body) {
				t.Errorf("request 2 differs:\npigo %s\npi   %s", got, reqs[1].Body)
			}
			for _, h := range []string{"x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access"} {
				if got, want := srv.Requests()[2].Header.Get(h), reqs[0].Header.Get(h); got != want {
					t.Errorf("header %s: pigo %q, pi %q", h, got, want)
				}
			}
		})
	}
}

// A small output cap with thinking high (pi clamps the budget to leave 1024 tokens), and a
// reply with redacted thinking: the body and the message equal pi's.
func TestDiffPiBudgetClampAndRedacted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi")
	}
	srv := llmtest.New(t)
	turn := llmtest.Turn{ID: "1", Blocks: []llmtest.Block{{Kind: "thinking", Redacted: true, Signature: "b3BhcXVl"}, {Kind: "text", Text: "Hello there."}},
		Usage: llmtest.Usage{Input: 7, CacheRead: 3, CacheWrite: 2, Output: 4}}
	srv.Push(turn)
	out, errOut, _ := srv.RunPi(t, llmtest.PiRun{API: API, Model: map[string]any{"id": "m", "reasoning": true, "maxTokens": 4096, "cost": map[string]any{"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}},
		Args: []string{"--no-tools", "--no-session", "--thinking", "high", "--mode", "json", "-p", "hi"}})
	reqs := srv.Requests()
	pa := llmtest.PiAssistants(out)
	if len(reqs) != 1 || len(pa) != 1 {
		t.Fatalf("pi: %d requests, %d messages; stderr %s", len(reqs), len(pa), errOut)
	}
	m := &llm.Model{Provider: "local", ID: "m", API: API, BaseURL: srv.BaseURL(API), APIKey: "k", Reasoning: true, Input: []string{"text"},
		ContextWindow: 128000, MaxTokens: 4096, Cost: llm.Cost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	o := &llm.Options{ThinkingLevel: "high"}
	c, _ := piContext(t, reqs[0].Body)
	if got := string(BuildBody(m, c, o)); got != string(reqs[0].Body) {
		t.Errorf("body differs:\npigo %s\npi   %s", got, reqs[0].Body)
	}
	srv.Push(turn)
	msg, evs := stream(t, m, c, o)
	if d := llmtest.DiffAssistant(pa[0], evs, msg); d != "" {
		t.Errorf("differs from pi's:\n%s", d)
	}
}
