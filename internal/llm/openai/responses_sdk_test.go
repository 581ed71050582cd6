package openai

// openai-go's responses package as a test-only oracle (D17): pigo's request bodies decode
// into ResponseNewParams and re-encode to the same JSON; the recorded streams read by the
// SDK give the same text, tool calls, reasoning items and usage pigo assembles.

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"
	oresp "github.com/openai/openai-go/v3/responses"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func respGeneric(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func TestResponsesSDKDecodesRequestBodies(t *testing.T) {
	f := false
	c := &llm.Context{
		SystemPrompt: "Be brief.",
		Tools:        []llm.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("look"), {Type: llm.TypeImage, MimeType: "image/png", Data: "iVBORw0KGgo="}}, Timestamp: 1},
			{Role: llm.RoleAssistant, API: ResponsesAPI, Provider: "local", Model: "m", StopReason: llm.StopToolUse, Timestamp: 2, Content: []llm.Content{
				{Type: llm.TypeThinking, Thinking: "hmm", ThinkingSignature: `{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"hmm"}],"encrypted_content":"ZW5j"}`},
				{Type: llm.TypeText, Text: "Looking.", TextSignature: `{"v":1,"id":"msg_1"}`},
				{Type: llm.TypeToolCall, ID: "call_1|fc_1", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)}}},
			{Role: llm.RoleToolResult, ToolCallID: "call_1|fc_1", ToolName: "ls", Content: []llm.Content{llm.TextBlock("a.txt")}, IsError: &f, Timestamp: 3},
		},
	}
	m := &llm.Model{Provider: "local", ID: "m", API: ResponsesAPI, BaseURL: "http://127.0.0.1:1/v1", Input: []string{"text", "image"}, Reasoning: true, ContextWindow: 128000, MaxTokens: 16384}
	for name, o := range map[string]*llm.Options{"off": nil, "high": {ThinkingLevel: "high", SessionID: "sess"}} {
		body := BuildResponsesBody(m, c, o)
		// The SDK cannot unmarshal the input union as a whole (its discriminator is "type",
		// which easy input messages {role, content} leave out, as pi does), so each item is
		// decoded into its own param type and the rest of the body into ResponseNewParams.
		var top map[string]json.RawMessage
		_ = json.Unmarshal(body, &top)
		var items []json.RawMessage
		_ = json.Unmarshal(top["input"], &items)
		for i, raw := range items {
			var again []byte
			var err error
			if v := respGeneric(t, raw).(map[string]any); v["type"] == "message" && v["role"] == "assistant" {
				var p oresp.ResponseOutputMessageParam
				if err = json.Unmarshal(raw, &p); err == nil {
					again, err = json.Marshal(p)
				}
			} else if v["type"] == nil {
				var p oresp.EasyInputMessageParam
				if err = json.Unmarshal(raw, &p); err == nil {
					again, err = json.Marshal(p)
				}
			} else {
				var p oresp.ResponseInputItemUnionParam
				if err = json.Unmarshal(raw, &p); err == nil {
					again, err = json.Marshal(p)
				}
			}
			if err != nil {
				t.Fatalf("%s: input %d rejected: %v\n%s", name, i, err, raw)
			}
			if !reflect.DeepEqual(respGeneric(t, again), respGeneric(t, raw)) {
				t.Errorf("%s: input %d round trip differs:\n sdk %s\npigo %s", name, i, again, raw)
			}
		}
		delete(top, "input")
		rest, _ := json.Marshal(top)
		var p oresp.ResponseNewParams
		if err := json.Unmarshal(rest, &p); err != nil {
			t.Fatalf("%s: the SDK rejects pigo's body: %v\n%s", name, err, rest)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, want := respGeneric(t, again).(map[string]any), respGeneric(t, rest).(map[string]any)
		delete(want, "stream")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: SDK round trip differs:\n sdk %s\npigo %s", name, again, rest)
		}
	}
}

func TestResponsesSDKStreamAgrees(t *testing.T) {
	cas := llmtest.Fixture(t, "openai/responses-tool-streaming.yaml")
	for n, in := range cas.Interactions {
		srv := llmtest.New(t)
		tr := in.Turn()
		tr.Chunk = 23
		srv.Push(in.Turn(), tr)
		m := respModel(srv)
		m.ID, m.Reasoning = "gpt-5", true
		msg, _ := respStream(t, m, userCtx("x"), nil)

		client := oresp.NewResponseService(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
		st := client.NewStreaming(context.Background(), oresp.ResponseNewParams{Model: "gpt-5"})
		var text strings.Builder
		var done oresp.Response
		for st.Next() {
			ev := st.Current()
			switch ev.Type {
			case "response.output_text.delta":
				text.WriteString(ev.Delta)
			case "response.completed":
				done = ev.AsResponseCompleted().Response
			}
		}
		if err := st.Err(); err != nil {
			t.Fatalf("#%d: sdk: %v", n, err)
		}
		if msg.Text() != text.String() || msg.ResponseID != done.ID {
			t.Errorf("#%d: text pigo %q sdk %q", n, msg.Text(), text.String())
		}
		var calls []llm.Content
		var reasoning []string
		for _, it := range done.Output {
			switch it.Type {
			case "function_call":
				calls = append(calls, llm.Content{Type: llm.TypeToolCall, ID: it.CallID + "|" + it.ID, Name: it.Name, Arguments: json.RawMessage(it.Arguments)})
			case "reasoning":
				reasoning = append(reasoning, it.ID)
			}
		}
		got := msg.ToolCalls()
		if len(got) != len(calls) {
			t.Fatalf("#%d: %d calls, sdk %d", n, len(got), len(calls))
		}
		for i := range calls {
			if got[i].ID != calls[i].ID || got[i].Name != calls[i].Name || !reflect.DeepEqual(respGeneric(t, got[i].Arguments), respGeneric(t, calls[i].Arguments)) {
				t.Errorf("#%d: call pigo %+v sdk %+v", n, got[i], calls[i])
			}
		}
		var ours []string
		for _, c := range msg.Content {
			if c.Type == llm.TypeThinking {
				var item struct{ ID string }
				_ = json.Unmarshal([]byte(c.ThinkingSignature), &item)
				ours = append(ours, item.ID)
			}
		}
		if !reflect.DeepEqual(ours, reasoning) {
			t.Errorf("#%d: reasoning items pigo %v sdk %v", n, ours, reasoning)
		}
		u := done.Usage
		if msg.Usage.Input+msg.Usage.CacheRead != int(u.InputTokens) || msg.Usage.Output != int(u.OutputTokens) || msg.Usage.TotalTokens != int(u.TotalTokens) || *msg.Usage.Reasoning != int(u.OutputTokensDetails.ReasoningTokens) {
			t.Errorf("#%d: usage pigo %+v sdk %+v", n, msg.Usage, u)
		}
	}
}
