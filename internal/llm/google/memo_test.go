package google

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// TestMemoMatchesRebuild: a body extended through a BodyMemo is the rebuilt body, turn after
// turn and after every event that changes what was sent before.
func TestMemoMatchesRebuild(t *testing.T) {
	model := func(id string) *llm.Model {
		return &llm.Model{Provider: "google", ID: id, API: GenerativeAI, BaseURL: "http://127.0.0.1:1", Reasoning: true,
			MaxTokens: 32000, ContextWindow: 200000, Input: []string{"text", "image"}}
	}
	build := func(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
		b, err := BuildBody(m, c, o)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	llmtest.CheckMemo(t, build, [2]*llm.Model{model("gemini-2.5-pro"), model("gemini-2.5-flash")})
}
