package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// FuzzStream: any body ends in exactly one done or error event, never a panic, and the
// final message marshals.
func FuzzStream(f *testing.F) {
	for _, seed := range llmtest.FuzzSeeds(llmtest.AnthropicMessages) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		m := &llm.Model{Provider: "p", ID: "m", API: API}
		llmtest.CheckStreamEnds(t, m, func(b *llm.Builder) *llm.Message {
			return run(context.Background(), b, m, strings.NewReader(body), nil)
		})
	})
}
