package openai

// The official openai-go SDK as a test-only oracle (D17): pigo's request bodies must decode
// into its param types and re-encode to the same JSON, and the recorded streams run through
// its ChatCompletionAccumulator must assemble the same message pigo assembles.

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

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

// richContext has every message shape pigo sends: system prompt, user text and image, an
// assistant turn with thinking, text and two tool calls, tool results (one with an image).
func richContext() *llm.Context {
	f := false
	return &llm.Context{
		SystemPrompt: "Be brief.",
		Tools:        []llm.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("look <here> & there"), {Type: llm.TypeImage, MimeType: "image/png", Data: "iVBORw0KGgo="}}, Timestamp: 1},
			{Role: llm.RoleAssistant, API: CompletionsAPI, Provider: "local", Model: "m", StopReason: llm.StopToolUse, Timestamp: 2, Content: []llm.Content{
				{Type: llm.TypeThinking, Thinking: "hmm", ThinkingSignature: "reasoning_content"}, llm.TextBlock("Looking."),
				{Type: llm.TypeToolCall, ID: "call_1", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)},
				{Type: llm.TypeToolCall, ID: "call_2", Name: "ls", Arguments: json.RawMessage(`{}`)}}},
			{Role: llm.RoleToolResult, ToolCallID: "call_1", ToolName: "ls", Content: []llm.Content{llm.TextBlock("a.txt")}, IsError: &f, Timestamp: 3},
			{Role: llm.RoleToolResult, ToolCallID: "call_2", ToolName: "ls", Content: []llm.Content{{Type: llm.TypeImage, MimeType: "image/png", Data: "iVBORw0KGgo="}}, IsError: &f, Timestamp: 4},
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("thanks")}, StringContent: true, Timestamp: 5},
		},
	}
}

func TestSDKDecodesRequestBodies(t *testing.T) {
	base := &llm.Model{Provider: "local", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Input: []string{"text", "image"}, ContextWindow: 128000, MaxTokens: 16384}
	reasoning := *base
	reasoning.Reasoning = true
	maxTok := *base
	maxTok.Compat = json.RawMessage(`{"maxTokensField":"max_tokens","supportsStore":false,"requiresToolResultName":true,"supportsStrictMode":false}`)
	for name, tc := range map[string]struct {
		m *llm.Model
		o *llm.Options
	}{"plain": {base, nil}, "reasoning": {&reasoning, &llm.Options{ThinkingLevel: "medium", SessionID: "s1"}}, "compat": {&maxTok, nil}} {
		body := BuildBody(tc.m, richContext(), tc.o)
		var p oai.ChatCompletionNewParams
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: the SDK rejects pigo's body: %v\n%s", name, err, body)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, want := generic(t, again), generic(t, body)
		// Fields the SDK has no type for (pi's compat extras) are dropped on the way back;
		// they are the only allowed differences.
		for _, m := range want.(map[string]any)["messages"].([]any) {
			delete(m.(map[string]any), "reasoning_content")
			if m.(map[string]any)["role"] == "tool" {
				delete(m.(map[string]any), "name") // compat requiresToolResultName
			}
		}
		if !reflect.DeepEqual(stripStream(got), stripStream(want)) {
			t.Errorf("%s: SDK round trip differs:\n sdk %s\npigo %s", name, again, body)
		}
	}
}

// stripStream drops "stream", which the SDK sets itself on NewStreaming.
func stripStream(v any) any {
	m := v.(map[string]any)
	delete(m, "stream")
	return m
}

// The recorded streams, through the SDK's accumulator, give pigo's message.
func TestSDKAccumulatorAgrees(t *testing.T) {
	for _, file := range []string{"openai/chat-completions-simple-streaming.yaml", "openai/chat-completions-tool-streaming.yaml",
		"openai/chat-completions-parallel-tools-streaming.yaml", "openrouter/chat-completions-tool-streaming-cost.yaml",
		"openai-compatible/llama-cpp-reasoning-content-streaming.yaml"} {
		cas := llmtest.Fixture(t, file)
		for n, in := range cas.Interactions {
			if in.Response.Code != 200 {
				continue
			}
			srv := llmtest.New(t)
			tr := in.Turn()
			// openai-go's decoder fails on a comment-only SSE block (": OPENROUTER
			// PROCESSING"), which pigo and the JS SDK skip: the SDK gets the same data
			// without the comments.
			var kept []string
			for _, ln := range strings.SplitAfter(tr.Raw.Body, "\n") {
				if !strings.HasPrefix(ln, ":") {
					kept = append(kept, ln)
				}
			}
			sdkTurn := llmtest.Turn{Raw: &llmtest.Raw{Code: 200, Header: tr.Raw.Header, Body: strings.TrimLeft(strings.ReplaceAll(strings.Join(kept, ""), "\n\n\n", "\n\n"), "\n")}, Chunk: 11}
			srv.Push(tr, sdkTurn)
			m := model(srv)
			msg, _ := stream(t, m, userCtx("x"), nil)

			client := oai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
			st := client.Chat.Completions.NewStreaming(context.Background(), oai.ChatCompletionNewParams{Model: "m", Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("x")}})
			var acc oai.ChatCompletionAccumulator
			reasoning := ""
			for st.Next() {
				ch := st.Current()
				acc.AddChunk(ch)
				if len(ch.Choices) > 0 {
					if f, ok := ch.Choices[0].Delta.JSON.ExtraFields["reasoning_content"]; ok {
						var s string
						_ = json.Unmarshal([]byte(f.Raw()), &s)
						reasoning += s
					}
				}
			}
			if err := st.Err(); err != nil {
				t.Fatalf("%s #%d: sdk: %v", file, n, err)
			}
			choice := acc.Choices[0]
			if msg.Text() != choice.Message.Content {
				t.Errorf("%s #%d: text pigo %q sdk %q", file, n, msg.Text(), choice.Message.Content)
			}
			var thinking string
			for _, c := range msg.Content {
				if c.Type == llm.TypeThinking {
					thinking += c.Thinking
				}
			}
			if thinking != reasoning {
				t.Errorf("%s #%d: reasoning pigo %q sdk %q", file, n, thinking, reasoning)
			}
			calls := msg.ToolCalls()
			if len(calls) != len(choice.Message.ToolCalls) {
				t.Fatalf("%s #%d: %d tool calls, sdk %d", file, n, len(calls), len(choice.Message.ToolCalls))
			}
			for i, tc := range choice.Message.ToolCalls {
				if calls[i].ID != tc.ID || calls[i].Name != tc.Function.Name || !reflect.DeepEqual(generic(t, calls[i].Arguments), generic(t, []byte(tc.Function.Arguments))) {
					t.Errorf("%s #%d: call %d pigo %+v sdk %+v", file, n, i, calls[i], tc)
				}
			}
			wantStop, _ := MapFinishReason(choice.FinishReason)
			if msg.StopReason != wantStop || msg.ResponseID != acc.ID {
				t.Errorf("%s #%d: stop %s/%s id %s/%s", file, n, msg.StopReason, wantStop, msg.ResponseID, acc.ID)
			}
			u := acc.Usage
			if msg.Usage.Input+msg.Usage.CacheRead != int(u.PromptTokens) || msg.Usage.Output != int(u.CompletionTokens) || msg.Usage.CacheRead != int(u.PromptTokensDetails.CachedTokens) {
				t.Errorf("%s #%d: usage pigo %+v sdk %+v", file, n, msg.Usage, u)
			}
		}
	}
}
