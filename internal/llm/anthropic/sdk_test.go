package anthropic

// The official anthropic-sdk-go as a test-only oracle (D17): pigo's request bodies decode
// into MessageNewParams and re-encode to the same JSON; the recorded streams accumulated by
// the SDK's Message.Accumulate give pigo's message.

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	ant "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func generic(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func richContext() *llm.Context {
	f, tr := false, true
	return &llm.Context{
		SystemPrompt: "Be brief.",
		Tools:        []llm.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("look"), {Type: llm.TypeImage, MimeType: "image/png", Data: "iVBORw0KGgo="}}, Timestamp: 1},
			{Role: llm.RoleAssistant, API: API, Provider: "local", Model: "m", StopReason: llm.StopToolUse, Timestamp: 2, Content: []llm.Content{
				{Type: llm.TypeThinking, Thinking: "hmm", ThinkingSignature: "c2ln"}, {Type: llm.TypeThinking, Redacted: true, ThinkingSignature: "b3BhcXVl"},
				llm.TextBlock("Looking."), {Type: llm.TypeToolCall, ID: "toolu_1", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)},
				{Type: llm.TypeToolCall, ID: "toolu_2", Name: "ls", Arguments: json.RawMessage(`{"path":"b"}`)}}},
			{Role: llm.RoleToolResult, ToolCallID: "toolu_1", ToolName: "ls", Content: []llm.Content{llm.TextBlock("a.txt")}, IsError: &f, Timestamp: 3},
			{Role: llm.RoleToolResult, ToolCallID: "toolu_2", ToolName: "ls", Content: []llm.Content{{Type: llm.TypeImage, MimeType: "image/png", Data: "iVBORw0KGgo="}}, IsError: &tr, Timestamp: 4},
		},
	}
}

func TestSDKDecodesRequestBodies(t *testing.T) {
	base := &llm.Model{Provider: "local", ID: "m", API: API, BaseURL: "http://127.0.0.1:1", Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 32000}
	reasoning := *base
	reasoning.Reasoning = true
	for name, tc := range map[string]struct {
		m *llm.Model
		o *llm.Options
	}{"plain": {base, nil}, "thinking": {&reasoning, &llm.Options{ThinkingLevel: "high"}}, "thinking-off": {&reasoning, nil}, "long-cache": {base, &llm.Options{CacheRetention: "long"}}} {
		body := BuildBody(tc.m, richContext(), tc.o)
		var p ant.MessageNewParams
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: the SDK rejects pigo's body: %v\n%s", name, err, body)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, want := generic(t, again).(map[string]any), generic(t, body).(map[string]any)
		delete(want, "stream")
		// Fields this SDK version has no type for: thinking.display, tools' eager_input_streaming.
		if th, ok := want["thinking"].(map[string]any); ok {
			delete(th, "display")
		}
		for _, tl := range want["tools"].([]any) {
			delete(tl.(map[string]any), "eager_input_streaming")
		}
		// The SDK writes a tool_result's string content as one text block: the same request.
		for _, m := range want["messages"].([]any) {
			if blocks, ok := m.(map[string]any)["content"].([]any); ok {
				for _, b := range blocks {
					if b := b.(map[string]any); b["type"] == "tool_result" {
						if s, ok := b["content"].(string); ok {
							b["content"] = []any{map[string]any{"type": "text", "text": s}}
						}
					}
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: SDK round trip differs:\n sdk %s\npigo %s", name, again, body)
		}
	}
}

func TestSDKAccumulatorAgrees(t *testing.T) {
	for _, file := range []string{"anthropic/messages-tool-streaming.yaml", "anthropic/messages-parallel-tools-streaming.yaml", "anthropic/messages-thinking-streaming.yaml"} {
		cas := llmtest.Fixture(t, file)
		for n, in := range cas.Interactions {
			srv := llmtest.New(t)
			tr := in.Turn()
			tr.Chunk = 17
			srv.Push(in.Turn(), tr)
			msg, _ := stream(t, model(srv), userCtx("x"), nil)

			client := ant.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
			st := client.Messages.NewStreaming(context.Background(), ant.MessageNewParams{Model: "m", MaxTokens: 10, Messages: []ant.MessageParam{ant.NewUserMessage(ant.NewTextBlock("x"))}})
			var acc ant.Message
			for st.Next() {
				if err := acc.Accumulate(st.Current()); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Err(); err != nil {
				t.Fatalf("%s #%d: sdk: %v", file, n, err)
			}
			if len(acc.Content) != len(msg.Content) {
				t.Fatalf("%s #%d: %d blocks, sdk %d", file, n, len(msg.Content), len(acc.Content))
			}
			for i, b := range acc.Content {
				c := msg.Content[i]
				switch b.Type {
				case "text":
					if c.Type != llm.TypeText || c.Text != b.Text {
						t.Errorf("%s #%d: block %d pigo %+v sdk %q", file, n, i, c, b.Text)
					}
				case "thinking":
					if c.Type != llm.TypeThinking || c.Thinking != b.Thinking || c.ThinkingSignature != b.Signature {
						t.Errorf("%s #%d: block %d pigo %+v sdk %+v", file, n, i, c, b)
					}
				case "tool_use":
					if c.Type != llm.TypeToolCall || c.ID != b.ID || c.Name != b.Name || !reflect.DeepEqual(generic(t, c.Arguments), generic(t, b.Input)) {
						t.Errorf("%s #%d: block %d pigo %+v sdk %+v", file, n, i, c, b)
					}
				default:
					t.Errorf("unexpected sdk block %s", b.Type)
				}
			}
			wantStop, _, _ := MapStopReason(string(acc.StopReason), "")
			u := acc.Usage
			if msg.StopReason != wantStop || msg.ResponseID != acc.ID || msg.Model != string(acc.Model) {
				t.Errorf("%s #%d: stop %s/%s id %s/%s", file, n, msg.StopReason, wantStop, msg.ResponseID, acc.ID)
			}
			if msg.Usage.Input != int(u.InputTokens) || msg.Usage.Output != int(u.OutputTokens) || msg.Usage.CacheRead != int(u.CacheReadInputTokens) || msg.Usage.CacheWrite != int(u.CacheCreationInputTokens) {
				t.Errorf("%s #%d: usage pigo %+v sdk %+v", file, n, msg.Usage, u)
			}
		}
	}
}
