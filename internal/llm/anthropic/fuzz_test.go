package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// FuzzStream: any body ends in exactly one done or error event, never a panic, and the
// final message marshals.
func FuzzStream(f *testing.F) {
	f.Add(llmtest.Render(llmtest.AnthropicMessages, llmtest.Turn{Thinking: "a b", Text: "c d", ToolCalls: []llmtest.ToolCall{{Name: "x", Args: `{"a":[1,"2"]}`}}}))
	f.Add(llmtest.Render(llmtest.AnthropicMessages, llmtest.Turn{Text: "x", StopReason: "length"}))
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}\n\n")
	f.Add("event: message_start\ndata: {\"type\":\"message_start\"}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		m := &llm.Model{Provider: "p", ID: "m", API: API}
		var ends int
		b := llm.NewBuilder(m, func(e llm.Event) {
			if e.Type == llm.EventDone || e.Type == llm.EventError {
				ends++
			}
		})
		msg := run(context.Background(), b, m, strings.NewReader(body))
		if ends != 1 {
			t.Fatalf("%d end events", ends)
		}
		if msg.StopReason == "pending" || msg.StopReason == "" {
			t.Fatalf("stop reason %q", msg.StopReason)
		}
		if _, err := json.Marshal(msg); err != nil {
			t.Fatal(err)
		}
	})
}
