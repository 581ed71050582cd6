package anthropic

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// TestMemoMatchesRebuild: a body extended through a BodyMemo is the rebuilt body, turn after
// turn (the cache marker moves to the new last user message each turn) and after every event
// that changes what was sent before, with an API key and with a subscription token.
func TestMemoMatchesRebuild(t *testing.T) {
	model := func(id, key string) *llm.Model {
		return &llm.Model{Provider: "anthropic", ID: id, API: API, BaseURL: "http://127.0.0.1:1", Reasoning: true,
			MaxTokens: 32000, ContextWindow: 200000, Input: []string{"text", "image"}, APIKey: key}
	}
	for name, key := range map[string]string{"api key": "sk-ant-api-x", "subscription": "sk-ant-oat01-x"} {
		t.Run(name, func(t *testing.T) {
			llmtest.CheckMemo(t, BuildBody, [2]*llm.Model{model("claude-sonnet-4-5", key), model("claude-opus-4-1", key)})
		})
	}
}
