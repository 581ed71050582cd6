package bedrock_test

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/bedrock"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// TestMemoMatchesRebuild: a body extended through a BodyMemo is the rebuilt body, turn after
// turn and after every event that changes what was sent before.
func TestMemoMatchesRebuild(t *testing.T) {
	model := func(id string) *llm.Model {
		return &llm.Model{Provider: "amazon-bedrock", ID: id, API: bedrock.API, BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com", Reasoning: true,
			MaxTokens: 32000, ContextWindow: 200000, Input: []string{"text", "image"}}
	}
	build := func(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
		b, err := bedrock.BuildBody(m, c, o)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	llmtest.CheckMemo(t, build, [2]*llm.Model{model("us.anthropic.claude-sonnet-4-5-20250929-v1:0"), model("us.anthropic.claude-opus-4-1-20250805-v1:0")})
}
