package openai

import (
	"encoding/json"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// TestCompletionsMemoMatchesRebuild: a body extended through a BodyMemo is the rebuilt body,
// turn after turn and after every event that changes what was sent before, for plain models,
// OpenRouter's anthropic models (cache markers that move each turn) and the compat quirks
// that add or merge messages (the assistant bridge after tool results, thinking as text,
// tool result names).
func TestCompletionsMemoMatchesRebuild(t *testing.T) {
	build := func(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
		return BuildBody(m, c, o)
	}
	model := func(provider, id, base string, compat string) *llm.Model {
		return &llm.Model{Provider: provider, ID: id, API: CompletionsAPI, BaseURL: base, Reasoning: true,
			MaxTokens: 32000, ContextWindow: 200000, Input: []string{"text", "image"}, Compat: json.RawMessage(compat)}
	}
	for name, ms := range map[string][2]*llm.Model{
		"plain": {model("p", "m", "http://127.0.0.1:1/v1", ""), model("q", "other", "http://127.0.0.1:1/v1", "")},
		"openrouter anthropic": {model("openrouter", "anthropic/claude-sonnet-4", "https://openrouter.ai/api/v1", ""),
			model("openrouter", "openai/gpt-5", "https://openrouter.ai/api/v1", "")},
		"quirks": {model("p", "m", "http://127.0.0.1:1/v1", `{"requiresAssistantAfterToolResult":true,"requiresToolResultName":true,"requiresThinkingAsText":true}`),
			model("deepseek", "deepseek-chat", "https://api.deepseek.com/v1", "")},
	} {
		t.Run(name, func(t *testing.T) { llmtest.CheckMemo(t, build, ms) })
	}
}

// TestResponsesMemoMatchesRebuild: the same for the Responses API (OpenAI's, Azure's and the
// Codex subscription's bodies).
func TestResponsesMemoMatchesRebuild(t *testing.T) {
	model := func(provider, id, api, base string) *llm.Model {
		return &llm.Model{Provider: provider, ID: id, API: api, BaseURL: base, Reasoning: true,
			MaxTokens: 32000, ContextWindow: 200000, Input: []string{"text", "image"}}
	}
	t.Run("responses", func(t *testing.T) {
		llmtest.CheckMemo(t, BuildResponsesBody, [2]*llm.Model{model("openai", "gpt-5", ResponsesAPI, "https://api.openai.com/v1"),
			model("openai", "gpt-5-mini", ResponsesAPI, "https://api.openai.com/v1")})
	})
	t.Run("codex", func(t *testing.T) {
		llmtest.CheckMemo(t, BuildCodexBody, [2]*llm.Model{model("openai-codex", "gpt-5.1-codex", CodexAPI, "https://chatgpt.com/backend-api"),
			model("openai-codex", "gpt-5.1-codex-mini", CodexAPI, "https://chatgpt.com/backend-api")})
	})
}
