package openai

// openai-go's Azure client as a test-only oracle (D17) for azure-openai-responses: pigo's
// Azure body decodes into the SDK's ResponseNewParams and re-encodes to the same JSON; the SDK,
// configured for Azure (the endpoint, the API version, the api-key header) and pointed at the
// loopback server, makes the same request line and key header, and accumulates the same reply
// pigo assembles from the same stream.

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
	oresp "github.com/openai/openai-go/v3/responses"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func TestAzureSDKAgrees(t *testing.T) {
	t.Setenv("AZURE_OPENAI_BASE_URL", "")
	t.Setenv("AZURE_OPENAI_RESOURCE_NAME", "")
	t.Setenv("AZURE_OPENAI_API_VERSION", "")
	srv := llmtest.New(t)
	tr := llmtest.Turn{Thinking: "Thinking it over.", Text: "Listing.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "ls", Args: `{"path":"src"}`}},
		Usage: llmtest.Usage{Input: 80, CacheRead: 20, Output: 30, Reasoning: 10}}
	srv.Push(tr, tr)
	m := &llm.Model{Provider: "azure", ID: "gpt-5", API: AzureResponsesAPI, BaseURL: srv.URL + "/openai", APIKey: "azure-key", Reasoning: true,
		Input: []string{"text"}, ContextWindow: 400000, MaxTokens: 128000,
		Env: map[string]string{"AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-5=prod-gpt5", "AZURE_OPENAI_API_VERSION": "2025-04-01-preview"}}
	c := &llm.Context{SystemPrompt: "Be brief.", Tools: []llm.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("x")}, Timestamp: 1}}}
	o := &llm.Options{ThinkingLevel: "medium", SessionID: "sess-1"}
	msg := AzureResponses{}.Stream(context.Background(), m, c, o, func(llm.Event) {})
	if msg.StopReason == llm.StopError {
		t.Fatalf("pigo: %s", msg.ErrorMessage)
	}
	pigo := srv.Requests()[0]

	// The body, strictly in the SDK's types (the input items as in responses_sdk_test).
	var top map[string]json.RawMessage
	_ = json.Unmarshal(pigo.Body, &top)
	delete(top, "input")
	rest, _ := json.Marshal(top)
	var p oresp.ResponseNewParams
	if err := json.Unmarshal(rest, &p); err != nil {
		t.Fatalf("the SDK rejects pigo's Azure body: %v\n%s", err, rest)
	}
	again, _ := json.Marshal(p)
	got, want := respGeneric(t, again).(map[string]any), respGeneric(t, rest).(map[string]any)
	delete(want, "stream")
	if !reflect.DeepEqual(got, want) || got["model"] != "prod-gpt5" {
		t.Errorf("SDK round trip differs:\n sdk %s\npigo %s", again, rest)
	}

	// The SDK's Azure client: the same path, api-version and key header.
	client := oresp.NewResponseService(azure.WithEndpoint(srv.URL, "2025-04-01-preview"), azure.WithAPIKey("azure-key"), option.WithMaxRetries(0))
	st := client.NewStreaming(context.Background(), p)
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
		t.Fatalf("sdk: %v", err)
	}
	sdk := srv.Requests()[1]
	if sdk.Path != pigo.Path || sdk.Query != pigo.Query || sdk.Header.Get("Api-Key") != pigo.Header.Get("Api-Key") || pigo.Header.Get("Authorization") != "" {
		t.Errorf("request: sdk %s?%s key %q; pigo %s?%s key %q auth %q", sdk.Path, sdk.Query, sdk.Header.Get("Api-Key"), pigo.Path, pigo.Query,
			pigo.Header.Get("Api-Key"), pigo.Header.Get("Authorization"))
	}
	if msg.Text() != text.String() {
		t.Errorf("text pigo %q sdk %q", msg.Text(), text.String())
	}
	var calls []string
	for _, it := range done.Output {
		if it.Type == "function_call" {
			calls = append(calls, it.CallID+" "+it.Name+" "+it.Arguments) // item ids follow the request number
		}
	}
	var ours []string
	for _, tc := range msg.ToolCalls() {
		id, _, _ := strings.Cut(tc.ID, "|")
		ours = append(ours, id+" "+tc.Name+" "+string(tc.Arguments))
	}
	if !reflect.DeepEqual(ours, calls) {
		t.Errorf("calls pigo %q sdk %q", ours, calls)
	}
	u := done.Usage
	if msg.Usage.Input+msg.Usage.CacheRead != int(u.InputTokens) || msg.Usage.CacheRead != int(u.InputTokensDetails.CachedTokens) ||
		msg.Usage.Output != int(u.OutputTokens) || msg.StopReason != llm.StopToolUse || done.Status != "completed" {
		t.Errorf("usage/stop pigo %+v %s, sdk %+v %s", msg.Usage, msg.StopReason, u, done.Status)
	}
}
