package providers

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// Failures end with pi's errorMessage, byte for byte: the same fault served to the real pi
// (retries off) and to pigo's client gives the same text and message. (Also checked by hand
// on 2026-12-01: content_filter and anthropic 529 overloaded agree too; left out to keep the
// suite fast.)
func TestDiffPiErrorMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi")
	}
	openrouter429 := llmtest.Turn{Fault: llmtest.RateLimit}
	if dir := llmtest.FixturesDir(); dir != "" {
		// OpenRouter's real 429: pi appends error.metadata.raw on its own line.
		openrouter429 = llmtest.Fixture(t, "openrouter/chat-completions-429-then-retry-streaming.yaml").Interactions[0].Turn()
	}
	for _, tc := range []struct {
		name, api string
		turn      llmtest.Turn
	}{
		{"openrouter-429", llmtest.OpenAICompletions, openrouter429},
		{"openai-429", llmtest.OpenAICompletions, llmtest.Turn{Fault: llmtest.RateLimit, RetryAfter: "1"}},
		{"openai-disconnect", llmtest.OpenAICompletions, llmtest.Turn{Text: "a b c d e f g h", Fault: llmtest.Disconnect, DisconnectAfter: 300}},
		{"anthropic-stream-error", llmtest.AnthropicMessages, llmtest.Turn{Text: "a b", Fault: llmtest.StreamError}},
		{"responses-overflow", llmtest.OpenAIResponses, llmtest.Turn{Fault: llmtest.ContextOverflow}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.turn.ID = "1"
			srv := llmtest.New(t)
			srv.Push(tc.turn)
			out, errOut, _ := srv.RunPi(t, llmtest.PiRun{API: tc.api, Settings: map[string]any{"retry": map[string]any{"enabled": false}},
				Args: []string{"--no-tools", "--no-session", "--mode", "json", "-p", "hi"}})
			pa := llmtest.PiAssistants(out)
			if len(pa) != 1 {
				t.Fatalf("pi printed %d assistant messages; stderr %s", len(pa), errOut)
			}
			var piMsg llm.Message
			_ = json.Unmarshal(pa[0].Message, &piMsg)
			p, _ := llm.ProviderFor(tc.api)
			m := &llm.Model{Provider: "local", ID: "m", API: tc.api, BaseURL: srv.BaseURL(tc.api), APIKey: "k", Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
			srv.Push(tc.turn)
			var evs []llm.Event
			msg := p.Stream(context.Background(), m, &llm.Context{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("hi")}, Timestamp: 1}}}, nil,
				func(e llm.Event) { evs = append(evs, e) })
			t.Logf("errorMessage %q", msg.ErrorMessage)
			if msg.ErrorMessage != piMsg.ErrorMessage || msg.StopReason != piMsg.StopReason {
				t.Errorf("pigo %s %q\npi   %s %q", msg.StopReason, msg.ErrorMessage, piMsg.StopReason, piMsg.ErrorMessage)
			}
			if d := llmtest.DiffAssistant(pa[0], evs, msg); d != "" {
				t.Errorf("differs from pi's:\n%s", d)
			}
		})
	}
}
