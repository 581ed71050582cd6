package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// piContext rebuilds the context pi sent in an openai-completions request body: its system
// prompt and tools (so pigo is given the same inputs) and its first user message.
func piContext(t *testing.T, body []byte) *llm.Context {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function llm.Tool `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	c := &llm.Context{}
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			_ = json.Unmarshal(m.Content, &c.SystemPrompt)
		case "user":
			var parts []llm.Content
			_ = json.Unmarshal(m.Content, &parts)
			c.Messages = append(c.Messages, llm.Message{Role: llm.RoleUser, Content: parts, Timestamp: 1})
		}
	}
	for _, tl := range req.Tools {
		c.Tools = append(c.Tools, tl.Function)
	}
	return c
}

// The request bodies pigo builds equal the real pi's, byte for byte, for a tool turn and the
// follow-up that carries the assistant tool call and the tool result.
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
		{"plain", map[string]any{"id": "m"}, "", llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{"path":"."}`}}, Usage: llmtest.Usage{Input: 100, Output: 10}}},
		{"reasoning", map[string]any{"id": "m", "reasoning": true, "contextWindow": 64000, "maxTokens": 8000}, "high",
			llmtest.Turn{Thinking: "Let me look.", Text: "Reading.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{}`}}, Usage: llmtest.Usage{Input: 100, Output: 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.turn1.ID = "1"
			srv := llmtest.New(t)
			srv.Push(tc.turn1, llmtest.Turn{Text: "Done: saw files."})
			args := []string{"--tools", "ls", "--no-session"}
			if tc.level != "" {
				args = append(args, "--thinking", tc.level)
			}
			out, errOut, _ := srv.RunPi(t, llmtest.PiRun{Model: tc.model, Args: append(args, "-p", "list files"), Files: map[string]string{"a.txt": "x"}})
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("pi made %d requests; stdout %q stderr %q", len(reqs), out, errOut)
			}
			m := &llm.Model{Provider: "local", ID: "m", API: API, BaseURL: srv.BaseURL(API), APIKey: "k",
				Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
			if tc.model["reasoning"] == true {
				m.Reasoning, m.ContextWindow, m.MaxTokens = true, 64000, 8000
			}
			o := &llm.Options{ThinkingLevel: tc.level}
			c := piContext(t, reqs[0].Body)
			if got := string(BuildBody(m, c, o)); got != string(reqs[0].Body) {
				t.Errorf("request 1 differs:\npigo %s\npi   %s", got, reqs[0].Body)
			}
			// Stream turn 1 through pigo to get the assistant message pigo would store.
			srv.Push(tc.turn1)
			asst, _ := stream(t, m, c, o)
			var piReq2 struct {
				Messages []map[string]any `json:"messages"`
			}
			_ = json.Unmarshal(reqs[1].Body, &piReq2)
			var result string
			for _, pm := range piReq2.Messages {
				if pm["role"] == "tool" {
					result = pm["content"].(string)
				}
			}
			isErr := false
			c.Messages = append(c.Messages, *asst, llm.Message{Role: llm.RoleToolResult, ToolCallID: asst.ToolCalls()[0].ID, ToolName: "ls",
				Content: []llm.Content{llm.TextBlock(result)}, IsError: &isErr, Timestamp: 3})
			if got := string(BuildBody(m, c, o)); got != string(reqs[1].Body) {
				t.Errorf("request 2 differs:\npigo %s\npi   %s", got, reqs[1].Body)
			}
			for _, h := range []string{"Authorization", "Content-Type", "Accept"} {
				if reqs[0].Header.Get(h) == "" {
					t.Errorf("pi sent no %s", h)
				}
			}
			if !strings.HasPrefix(reqs[0].Header.Get("User-Agent"), "pi (") {
				t.Logf("pi user agent %q", reqs[0].Header.Get("User-Agent"))
			}
		})
	}
}
