package pimessages

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// TestMemoMatchesRebuild: a body extended through a BodyMemo is the rebuilt body, turn after
// turn and after every event that changes what was sent before.
func TestMemoMatchesRebuild(t *testing.T) {
	model := func(id string) *llm.Model {
		return &llm.Model{Provider: "pi", ID: id, API: API, BaseURL: "http://127.0.0.1:1", Reasoning: true,
			MaxTokens: 32000, ContextWindow: 200000, Input: []string{"text", "image"}}
	}
	llmtest.CheckMemo(t, BuildBody, [2]*llm.Model{model("a"), model("b")})
}
