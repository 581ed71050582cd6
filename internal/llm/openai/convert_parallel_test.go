package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// randomMessages is a context of every kind of message convertMessages meets: user prompts
// as strings and as parts (text, images, empty), assistant replies with text, thinking
// (reasoning fields, OpenRouter details, empty), tool calls, errors and nothing, runs of tool
// results with and without text and images, from this model and another.
func randomMessages(r *rand.Rand, n int) []llm.Message {
	text := func() string {
		switch r.Intn(6) {
		case 0:
			return ""
		case 1:
			return "  "
		}
		return fmt.Sprintf("text %d\n\"q\"", r.Intn(1000))
	}
	img := llm.Content{Type: llm.TypeImage, Data: "AAAA", MimeType: "image/png"}
	var out []llm.Message
	call := 0
	for len(out) < n {
		switch r.Intn(4) {
		case 0:
			m := llm.Message{Role: llm.RoleUser, Timestamp: 1}
			if r.Intn(2) == 0 {
				m.StringContent = true
				m.Content = []llm.Content{llm.TextBlock(text())}
			} else {
				for range r.Intn(3) {
					if r.Intn(3) == 0 {
						m.Content = append(m.Content, img)
					} else {
						m.Content = append(m.Content, llm.TextBlock(text()))
					}
				}
			}
			out = append(out, m)
		case 1, 2:
			m := llm.Message{Role: llm.RoleAssistant, API: CompletionsAPI, Provider: "p", Model: "m", StopReason: llm.StopToolUse}
			if r.Intn(4) == 0 {
				m.Model = "other"
			}
			if r.Intn(10) == 0 {
				m.StopReason = llm.StopError
			}
			for range r.Intn(4) {
				switch r.Intn(4) {
				case 0:
					m.Content = append(m.Content, llm.TextBlock(text()))
				case 1:
					sig := []string{"reasoning_content", "reasoning", "", `[{"type":"reasoning.text","text":"t"}]`}[r.Intn(4)]
					m.Content = append(m.Content, llm.Content{Type: llm.TypeThinking, Thinking: text(), ThinkingSignature: sig})
				default:
					call++
					id := fmt.Sprintf("call_%d", call)
					if r.Intn(5) == 0 {
						id += "|item_" + id
					}
					if r.Intn(3) == 0 {
						id = fmt.Sprintf("call_%d|item_call_%d", call, call)
					}
					m.Content = append(m.Content, llm.Content{Type: llm.TypeToolCall, ID: id, Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)})
				}
			}
			out = append(out, m)
			for _, b := range m.Content {
				if b.Type == llm.TypeToolCall && r.Intn(6) != 0 {
					tr := llm.Message{Role: llm.RoleToolResult, ToolCallID: b.ID, ToolName: b.Name}
					for range r.Intn(3) {
						if r.Intn(4) == 0 {
							tr.Content = append(tr.Content, img)
						} else {
							tr.Content = append(tr.Content, llm.TextBlock(text()))
						}
					}
					out = append(out, tr)
				}
			}
		case 3:
			// A result far from its call (after a user message): it takes the id the call
			// was given, when it was given another.
			id := "orphan"
			if call > 0 && r.Intn(2) == 0 {
				id = fmt.Sprintf("call_%d|item_call_%d", 1+r.Intn(call), 1+r.Intn(call))
			}
			out = append(out, llm.Message{Role: llm.RoleToolResult, ToolCallID: id, Content: []llm.Content{llm.TextBlock(text())}})
		}
	}
	return out
}

// The body of a context converted in two halves on two cores is byte for byte the body
// converted in order, for random contexts and the models whose compat changes the
// conversion (a model that needs an assistant message after tool results is converted in
// order).
func TestConvertHalvesSameBody(t *testing.T) {
	defer func(n int) { convertParallelMin = n }(convertParallelMin)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	models := []*llm.Model{
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000, Input: []string{"text", "image"}},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", MaxTokens: 32000},
		{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", API: CompletionsAPI, BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, MaxTokens: 32000},
		{Provider: "deepseek", ID: "deepseek-reasoner", API: CompletionsAPI, BaseURL: "https://api.deepseek.com", Reasoning: true, MaxTokens: 32000},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresToolResultName":true,"requiresThinkingAsText":true}`)},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresAssistantAfterToolResult":true}`)},
	}
	r := rand.New(rand.NewSource(1))
	for round := range 300 {
		c := &llm.Context{SystemPrompt: "sys", Messages: randomMessages(r, 2+r.Intn(60))}
		m := models[round%len(models)]
		for _, o := range []*llm.Options{{}, {ThinkingLevel: "high", SessionID: "s", CacheRetention: "long", Memo: new(llm.BodyMemo)}} {
			convertParallelMin = math.MaxInt
			want := BuildBody(m, c, o)
			convertParallelMin = 0
			got := BuildBody(m, c, o)
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d, model %s %s: the halves give another body\n got %s\nwant %s", round, m.ID, m.Compat, got, want)
			}
		}
	}
}

// TestConvertHalvesGrownSession: the same for a real session (PIGO_GROWTH_SESSION, else pi's
// large-session.jsonl in /tmp), for the plain and the OpenRouter-anthropic models.
func TestConvertHalvesGrownSession(t *testing.T) {
	path := os.Getenv("PIGO_GROWTH_SESSION")
	if path == "" {
		path = "/tmp/large-session.jsonl"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no session at %s", path)
	}
	s, err := session.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &llm.Context{SystemPrompt: "You are pi.", Messages: s.Context().Messages}
	defer func(n int) { convertParallelMin = n }(convertParallelMin)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	for _, m := range []*llm.Model{
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000},
		{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", API: CompletionsAPI, BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, MaxTokens: 32000},
	} {
		if convertCut(c.Messages, ResolveCompat(m)) == 0 && len(c.Messages) > 2 {
			convertParallelMin = 0
			if convertCut(c.Messages, ResolveCompat(m)) == 0 {
				t.Fatalf("%s: no cut in %d messages", path, len(c.Messages))
			}
		}
		convertParallelMin = math.MaxInt
		want := BuildBody(m, c, &llm.Options{Memo: new(llm.BodyMemo)})
		convertParallelMin = 0
		got := BuildBody(m, c, &llm.Options{Memo: new(llm.BodyMemo)})
		if !bytes.Equal(got, want) {
			t.Fatalf("%s, %s: the halves give another body", path, m.ID)
		}
	}
}
