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
			out, errOut, _ := srv.RunPi(t, llmtest.PiRun{Model: tc.model, Args: append(args, "--mode", "json", "-p", "list files"), Files: map[string]string{"a.txt": "x"}})
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("pi made %d requests; stdout %q stderr %q", len(reqs), out, errOut)
			}
			m := &llm.Model{Provider: "local", ID: "m", API: CompletionsAPI, BaseURL: srv.BaseURL(CompletionsAPI), APIKey: "k",
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
			asst, evs := stream(t, m, c, o)
			if pa := llmtest.PiAssistants(out); len(pa) != 2 {
				t.Errorf("pi printed %d assistant messages", len(pa))
			} else if d := llmtest.DiffAssistant(pa[0], evs, asst); d != "" {
				t.Errorf("turn 1 differs from pi's:\n%s", d)
			}
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

// pi detects quirks from the base URL (DeepSeek, OpenRouter, z.ai, Moonshot): with those URLs
// reached through an HTTP proxy (the loopback server), pigo's bodies equal pi's.
func TestDiffPiCompatByURL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi")
	}
	for _, tc := range []struct{ name, url, id string }{
		{"deepseek", "http://api.deepseek.com/v1", "deepseek-reasoner"},
		{"openrouter", "http://openrouter.ai/api/v1", "openai/gpt-5"},
		{"zai", "http://api.z.ai/api/coding/paas/v4", "glm-4.6"},
		{"moonshot", "http://api.moonshot.ai/v1", "kimi-k2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			turn := llmtest.Turn{ID: "1", Thinking: "hmm", Text: "Hi.", Usage: llmtest.Usage{Input: 10, Output: 2}}
			srv.Push(turn)
			out, errOut, _ := srv.RunPi(t, llmtest.PiRun{BaseURL: tc.url, Env: []string{"HTTP_PROXY=" + srv.URL, "NO_PROXY="},
				Model: map[string]any{"id": tc.id, "reasoning": true}, Args: []string{"--tools", "ls", "--no-session", "--thinking", "high", "--mode", "json", "-p", "hi"}})
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("pi made %d requests; stdout %q stderr %q", len(reqs), out, errOut)
			}
			m := &llm.Model{Provider: "local", ID: tc.id, API: CompletionsAPI, BaseURL: tc.url, APIKey: "k", Reasoning: true,
				Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
			o := &llm.Options{ThinkingLevel: "high", ProxyURL: srv.URL}
			c := piContext(t, reqs[0].Body)
			if got := string(BuildBody(m, c, o)); got != string(reqs[0].Body) {
				t.Errorf("body differs:\npigo %s\npi   %s", got, reqs[0].Body)
			}
			srv.Push(turn)
			asst, evs := stream(t, m, c, o)
			if pa := llmtest.PiAssistants(out); len(pa) != 1 {
				t.Errorf("pi printed %d assistant messages", len(pa))
			} else if d := llmtest.DiffAssistant(pa[0], evs, asst); d != "" {
				t.Errorf("message differs from pi's:\n%s", d)
			}
		})
	}
}

// OpenRouter's reasoning_details: merged text pieces and an encrypted entry become the
// thinking signature exactly as pi stores it, and a reasoning field beside them is the text.
func TestDiffPiReasoningDetails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi")
	}
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}` + "\n\n"
	}
	body := chunk(`{"role":"assistant","content":"","reasoning":"Think","reasoning_details":[{"type":"reasoning.text","text":"Think","format":"unknown","index":0}]}`, "") +
		chunk(`{"reasoning":"ing.","reasoning_details":[{"type":"reasoning.text","text":"ing.","signature":"sig1","index":0}]}`, "") +
		chunk(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"ZW5j","id":"r1","format":"openai-responses-v1","index":1}]}`, "") +
		chunk(`{"content":"Done."}`, "") + chunk(`{}`, "stop") +
		`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}` + "\n\ndata: [DONE]\n\n"
	turn := llmtest.Turn{Raw: &llmtest.Raw{Code: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: body}}
	srv := llmtest.New(t)
	srv.Push(turn)
	out, errOut, _ := srv.RunPi(t, llmtest.PiRun{Model: map[string]any{"id": "m", "reasoning": true}, Args: []string{"--no-tools", "--no-session", "--thinking", "low", "--mode", "json", "-p", "hi"}})
	pa := llmtest.PiAssistants(out)
	if len(pa) != 1 {
		t.Fatalf("pi printed %d assistant messages; stderr %s", len(pa), errOut)
	}
	m := &llm.Model{Provider: "local", ID: "m", API: CompletionsAPI, BaseURL: srv.BaseURL(CompletionsAPI), APIKey: "k", Reasoning: true, Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
	srv.Push(turn)
	msg, evs := stream(t, m, userCtx("hi"), &llm.Options{ThinkingLevel: "low"})
	if d := llmtest.DiffAssistant(pa[0], evs, msg); d != "" {
		t.Errorf("differs from pi's:\n%s", d)
	}
	// Replayed to the same model, the details go back as reasoning_details.
	c := userCtx("hi")
	c.Messages = append(c.Messages, *msg, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("more")}, Timestamp: 9})
	if b := string(BuildBody(m, c, nil)); !strings.Contains(b, `"reasoning_details":[{"type":"reasoning.text","text":"Thinking.","format":"unknown","index":0,"signature":"sig1"}`) {
		t.Errorf("follow-up body %s", b)
	}
}
