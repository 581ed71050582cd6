package google

// google.golang.org/genai as a test-only oracle (D17): pigo's request bodies decode strictly
// into the SDK's request types (nothing pigo sends is unknown to it), and the SDK, streaming
// from the loopback server, accumulates the same message pigo assembles from the same stream.

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// wireRequest is the REST body of generateContent in the SDK's own types.
type wireRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
}

func generic(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func sdkContext() *llm.Context {
	f := false
	return &llm.Context{
		SystemPrompt: "Be brief.",
		Tools:        []llm.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"mode":{"const":"long"}},"required":["path"]}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("look"), {Type: llm.TypeImage, MimeType: "image/png", Data: "iVBORw0KGgo="}}, Timestamp: 1},
			{Role: llm.RoleAssistant, API: "google-generative-ai", Provider: "google", Model: "gemini-2.5-flash", StopReason: llm.StopToolUse, Timestamp: 2, Content: []llm.Content{
				{Type: llm.TypeThinking, Thinking: "hmm", ThinkingSignature: "c2lnbmF0dXJl"},
				{Type: llm.TypeText, Text: "Looking."},
				{Type: llm.TypeToolCall, ID: "call_1", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`), ThoughtSignature: "c2lnbmF0dXJl"}}},
			{Role: llm.RoleToolResult, ToolCallID: "call_1", ToolName: "ls", Content: []llm.Content{llm.TextBlock("a.txt")}, IsError: &f, Timestamp: 3},
		},
	}
}

func TestSDKDecodesRequestBodies(t *testing.T) {
	for _, m := range []*llm.Model{
		{Provider: "google", ID: "gemini-2.5-flash", API: "google-generative-ai", BaseURL: "http://127.0.0.1:1/v1beta", Input: []string{"text", "image"}, Reasoning: true, ContextWindow: 1048576, MaxTokens: 65536},
		{Provider: "google", ID: "gemini-3-pro-preview", API: "google-generative-ai", BaseURL: "http://127.0.0.1:1/v1beta", Input: []string{"text", "image"}, Reasoning: true, ContextWindow: 1048576, MaxTokens: 65536},
		{Provider: "google-vertex", ID: "gemini-2.5-pro", API: "google-vertex", BaseURL: "http://127.0.0.1:1", Input: []string{"text"}, Reasoning: true, ContextWindow: 1048576, MaxTokens: 65536},
	} {
		for _, o := range []*llm.Options{nil, {ThinkingLevel: "high", ToolChoice: "auto"}, {ThinkingLevel: "off"}} {
			body, err := BuildBody(m, sdkContext(), o)
			if err != nil {
				t.Fatal(err)
			}
			var req wireRequest
			d := json.NewDecoder(bytes.NewReader(body))
			d.DisallowUnknownFields()
			if err := d.Decode(&req); err != nil {
				t.Fatalf("%s %+v: the SDK's types reject pigo's body: %v\n%s", m.ID, o, err, body)
			}
			again, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := generic(t, again), generic(t, body); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %+v: a field was lost in the SDK's types:\n sdk %s\npigo %s", m.ID, o, again, body)
			}
		}
	}
}

// sdkMessage is what genai's stream gives, in pi's terms.
type sdkMessage struct {
	Thinking, Text string
	Calls          []string // name + args
	Input, Output  int
	CacheRead      int
	Finish         string
}

func TestSDKStreamAgrees(t *testing.T) {
	for _, tr := range []llmtest.Turn{
		{Thinking: "Let me look.", Text: "Here are the files.", Usage: llmtest.Usage{Input: 120, CacheRead: 30, Output: 40, Reasoning: 12}},
		{Text: "Listing.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{"path":"src","depth":2}`}, {Name: "read", Args: `{"path":"a.txt"}`}}, Usage: llmtest.Usage{Input: 50, Output: 9}},
		{Text: "cut off", StopReason: "length", Usage: llmtest.Usage{Input: 5, Output: 100}},
	} {
		srv := llmtest.New(t)
		srv.Push(tr, tr)
		m := &llm.Model{Provider: "google", ID: "gemini-2.5-flash", API: "google-generative-ai", BaseURL: srv.BaseURL(llmtest.GoogleAI), APIKey: "k",
			Input: []string{"text"}, Reasoning: true, ContextWindow: 1048576, MaxTokens: 65536}
		msg := Provider{API: "google-generative-ai"}.Stream(context.Background(), m,
			&llm.Context{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("x")}}}}, nil, func(llm.Event) {})
		if msg.StopReason == llm.StopError {
			t.Fatalf("pigo: %s", msg.ErrorMessage)
		}
		var mine sdkMessage
		for _, b := range msg.Content {
			switch b.Type {
			case llm.TypeThinking:
				mine.Thinking += b.Thinking
			case llm.TypeText:
				mine.Text += b.Text
			case llm.TypeToolCall:
				mine.Calls = append(mine.Calls, b.Name+" "+string(b.Arguments))
			}
		}
		mine.Input, mine.Output, mine.CacheRead = msg.Usage.Input, msg.Usage.Output, msg.Usage.CacheRead
		mine.Finish = msg.StopReason

		client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL + "/", APIVersion: "v1beta"}})
		if err != nil {
			t.Fatal(err)
		}
		var sdk sdkMessage
		var usage *genai.GenerateContentResponseUsageMetadata
		var finish genai.FinishReason
		for resp, err := range client.Models.GenerateContentStream(context.Background(), m.ID, genai.Text("x"), nil) {
			if err != nil {
				t.Fatalf("sdk: %v", err)
			}
			if resp.UsageMetadata != nil {
				usage = resp.UsageMetadata
			}
			for _, c := range resp.Candidates {
				if c.FinishReason != "" {
					finish = c.FinishReason
				}
				if c.Content == nil {
					continue
				}
				for _, p := range c.Content.Parts {
					switch {
					case p.FunctionCall != nil:
						args, _ := json.Marshal(p.FunctionCall.Args)
						sdk.Calls = append(sdk.Calls, p.FunctionCall.Name+" "+string(args))
					case p.Thought:
						sdk.Thinking += p.Text
					default:
						sdk.Text += p.Text
					}
				}
			}
		}
		if usage == nil {
			t.Fatal("sdk: no usage")
		}
		// pi's usage mapping of the same metadata.
		sdk.CacheRead = int(usage.CachedContentTokenCount)
		sdk.Input = int(usage.PromptTokenCount) - sdk.CacheRead
		sdk.Output = int(usage.CandidatesTokenCount) + int(usage.ThoughtsTokenCount)
		sdk.Finish = map[genai.FinishReason]string{genai.FinishReasonStop: llm.StopStop, genai.FinishReasonMaxTokens: llm.StopLength}[finish]
		if len(sdk.Calls) > 0 && sdk.Finish == llm.StopStop {
			sdk.Finish = llm.StopToolUse
		}
		// Arguments are compared as values (the SDK re-encodes them in its own key order).
		norm := func(calls []string) []any {
			var out []any
			for _, c := range calls {
				name, args, _ := strings.Cut(c, " ")
				out = append(out, []any{name, generic(t, []byte(args))})
			}
			return out
		}
		if !reflect.DeepEqual(norm(mine.Calls), norm(sdk.Calls)) {
			t.Errorf("tool calls: pigo %q, sdk %q", mine.Calls, sdk.Calls)
		}
		mine.Calls, sdk.Calls = nil, nil
		if !reflect.DeepEqual(mine, sdk) {
			t.Errorf("pigo %+v\n sdk %+v", mine, sdk)
		}
	}
}
