package openai

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
	for _, seed := range llmtest.FuzzSeeds(llmtest.OpenAICompletions) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		m := &llm.Model{Provider: "p", ID: "m", API: CompletionsAPI}
		llmtest.CheckStreamEnds(t, m, func(b *llm.Builder) *llm.Message {
			return runCompletions(context.Background(), b, m, ResolveCompat(m), strings.NewReader(body), false)
		})
	})
}
