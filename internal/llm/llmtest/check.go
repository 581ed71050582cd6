package llmtest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// FuzzSeeds are the stream bodies every provider's FuzzStream starts from: two rendered turns
// of api, and two bodies in the other APIs' shapes.
func FuzzSeeds(api string) []string {
	return []string{
		Render(api, Turn{Thinking: "a b", Text: "c d", ToolCalls: []ToolCall{{Name: "x", Args: `{"a":[1,"2"]}`}}}),
		Render(api, Turn{Text: "x", StopReason: "length"}),
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}\n\n",
		"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
	}
}

// CheckStreamEnds runs a provider's stream parser on a fresh builder for model m and fails t
// unless it emitted exactly one done or error event, the final message has a final stop
// reason, and it marshals: the invariant of every provider's FuzzStream.
func CheckStreamEnds(t testing.TB, m *llm.Model, run func(b *llm.Builder) *llm.Message) {
	t.Helper()
	var ends int
	b := llm.NewBuilder(m, func(e llm.Event) {
		if e.Type == llm.EventDone || e.Type == llm.EventError {
			ends++
		}
	})
	msg := run(b)
	if ends != 1 {
		t.Fatalf("%d end events", ends)
	}
	if msg.StopReason == "pending" || msg.StopReason == "" {
		t.Fatalf("stop reason %q", msg.StopReason)
	}
	if _, err := json.Marshal(msg); err != nil {
		t.Fatal(err)
	}
}

// EventTypes joins the events' types with spaces, for comparing event sequences.
func EventTypes(evs []llm.Event) string {
	s := make([]string, len(evs))
	for i, e := range evs {
		s[i] = e.Type
	}
	return strings.Join(s, " ")
}
