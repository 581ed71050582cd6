package openai

import (
	"encoding/json"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Compat is the resolved set of openai-completions quirks: pi's detectCompat from the
// provider name and base URL, overridden by the model's models.json `compat`.
type Compat struct {
	SupportsStore                       bool
	SupportsDeveloperRole               bool
	SupportsReasoningEffort             bool
	SupportsUsageInStreaming            bool
	SupportsFinishReason                bool
	MaxTokensField                      string
	RequiresToolResultName              bool
	RequiresAssistantAfterToolResult    bool
	RequiresThinkingAsText              bool
	RequiresReasoningContentOnAssistant bool
	ThinkingFormat                      string
	ZaiToolStream                       bool
	SupportsThinkingTokenBudget         bool
	ThinkingTokenBudgetField            string
	SupportsStrictMode                  bool
	CacheControlFormat                  string
	SendSessionAffinityHeaders          bool
	SessionAffinityFormat               string
	SupportsLongCacheRetention          bool
	// OpenRouterRouting is compat.openRouterRouting as given (sent as "provider").
	OpenRouterRouting json.RawMessage
}

// rawCompat is models.json's compat for openai-completions; nil = not given.
type rawCompat struct {
	SupportsStore                               *bool           `json:"supportsStore"`
	SupportsDeveloperRole                       *bool           `json:"supportsDeveloperRole"`
	SupportsReasoningEffort                     *bool           `json:"supportsReasoningEffort"`
	SupportsUsageInStreaming                    *bool           `json:"supportsUsageInStreaming"`
	SupportsFinishReason                        *bool           `json:"supportsFinishReason"`
	MaxTokensField                              *string         `json:"maxTokensField"`
	RequiresToolResultName                      *bool           `json:"requiresToolResultName"`
	RequiresAssistantAfterToolResult            *bool           `json:"requiresAssistantAfterToolResult"`
	RequiresThinkingAsText                      *bool           `json:"requiresThinkingAsText"`
	RequiresReasoningContentOnAssistantMessages *bool           `json:"requiresReasoningContentOnAssistantMessages"`
	ThinkingFormat                              *string         `json:"thinkingFormat"`
	ZaiToolStream                               *bool           `json:"zaiToolStream"`
	SupportsThinkingTokenBudget                 *bool           `json:"supportsThinkingTokenBudget"`
	ThinkingTokenBudgetField                    *string         `json:"thinkingTokenBudgetField"`
	SupportsStrictMode                          *bool           `json:"supportsStrictMode"`
	CacheControlFormat                          *string         `json:"cacheControlFormat"`
	SendSessionAffinityHeaders                  *bool           `json:"sendSessionAffinityHeaders"`
	SessionAffinityFormat                       *string         `json:"sessionAffinityFormat"`
	SupportsLongCacheRetention                  *bool           `json:"supportsLongCacheRetention"`
	OpenRouterRouting                           json.RawMessage `json:"openRouterRouting"`
}

// DetectCompat is pi's detectCompat: the quirks implied by the provider name and base URL.
func DetectCompat(m *llm.Model) Compat {
	p, u := m.Provider, m.BaseURL
	has := func(s string) bool { return strings.Contains(u, s) }
	isZai := p == "zai" || p == "zai-coding-cn" || has("api.z.ai") || has("open.bigmodel.cn")
	isTogether := p == "together" || has("api.together.ai") || has("api.together.xyz")
	isMoonshot := p == "moonshotai" || p == "moonshotai-cn" || has("api.moonshot.")
	isOpenRouter := p == "openrouter" || has("openrouter.ai")
	isCFWorkers := p == "cloudflare-workers-ai" || has("api.cloudflare.com")
	isCFGateway := p == "cloudflare-ai-gateway" || has("gateway.ai.cloudflare.com")
	isNvidia := p == "nvidia" || has("integrate.api.nvidia.com")
	isAntLing := p == "ant-ling" || has("api.ant-ling.com")
	isDeepSeek := p == "deepseek" || strings.Contains(strings.ToLower(u), "deepseek.com")
	isGrok := p == "xai" || has("api.x.ai")
	nonStandard := isNvidia || p == "cerebras" || has("cerebras.ai") || isGrok || isTogether || has("chutes.ai") ||
		isDeepSeek || isZai || isMoonshot || p == "opencode" || has("opencode.ai") || isCFWorkers || isCFGateway || isAntLing
	useMaxTokens := has("chutes.ai") || isDeepSeek || isMoonshot || isCFGateway || isTogether || isNvidia || isAntLing || isZai
	orDevModel := isOpenRouter && (strings.HasPrefix(m.ID, "anthropic/") || strings.HasPrefix(m.ID, "openai/"))
	c := Compat{
		SupportsStore:                       !nonStandard,
		SupportsDeveloperRole:               orDevModel || (!nonStandard && !isOpenRouter),
		SupportsReasoningEffort:             !isGrok && !isZai && !isMoonshot && !isTogether && !isCFGateway && !isNvidia && !isAntLing,
		SupportsUsageInStreaming:            true,
		SupportsFinishReason:                true,
		MaxTokensField:                      "max_completion_tokens",
		RequiresReasoningContentOnAssistant: isDeepSeek,
		ThinkingFormat:                      "openai",
		SupportsStrictMode:                  !isMoonshot && !isTogether && !isCFGateway && !isNvidia,
		SessionAffinityFormat:               "openai",
		SupportsLongCacheRetention:          !(isTogether || isCFWorkers || isCFGateway || isNvidia || isAntLing),
	}
	if useMaxTokens {
		c.MaxTokensField = "max_tokens"
	}
	switch {
	case isDeepSeek:
		c.ThinkingFormat = "deepseek"
	case isZai:
		c.ThinkingFormat = "zai"
	case isTogether:
		c.ThinkingFormat = "together"
	case isAntLing:
		c.ThinkingFormat = "ant-ling"
	case isOpenRouter:
		c.ThinkingFormat = "openrouter"
	}
	if p == "openrouter" && strings.HasPrefix(m.ID, "anthropic/") {
		c.CacheControlFormat = "anthropic"
	}
	if isOpenRouter {
		c.SessionAffinityFormat = "openrouter"
	}
	return c
}

// ResolveCompat is pi's getCompat: detected quirks overridden by the model's compat.
func ResolveCompat(m *llm.Model) Compat {
	c := DetectCompat(m)
	if len(m.Compat) == 0 {
		return c
	}
	var r rawCompat
	if err := json.Unmarshal(m.Compat, &r); err != nil {
		return c
	}
	b := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	s := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	b(&c.SupportsStore, r.SupportsStore)
	b(&c.SupportsDeveloperRole, r.SupportsDeveloperRole)
	b(&c.SupportsReasoningEffort, r.SupportsReasoningEffort)
	b(&c.SupportsUsageInStreaming, r.SupportsUsageInStreaming)
	b(&c.SupportsFinishReason, r.SupportsFinishReason)
	s(&c.MaxTokensField, r.MaxTokensField)
	b(&c.RequiresToolResultName, r.RequiresToolResultName)
	b(&c.RequiresAssistantAfterToolResult, r.RequiresAssistantAfterToolResult)
	b(&c.RequiresThinkingAsText, r.RequiresThinkingAsText)
	b(&c.RequiresReasoningContentOnAssistant, r.RequiresReasoningContentOnAssistantMessages)
	s(&c.ThinkingFormat, r.ThinkingFormat)
	b(&c.ZaiToolStream, r.ZaiToolStream)
	b(&c.SupportsThinkingTokenBudget, r.SupportsThinkingTokenBudget)
	s(&c.ThinkingTokenBudgetField, r.ThinkingTokenBudgetField)
	b(&c.SupportsStrictMode, r.SupportsStrictMode)
	s(&c.CacheControlFormat, r.CacheControlFormat)
	b(&c.SendSessionAffinityHeaders, r.SendSessionAffinityHeaders)
	s(&c.SessionAffinityFormat, r.SessionAffinityFormat)
	b(&c.SupportsLongCacheRetention, r.SupportsLongCacheRetention)
	if len(r.OpenRouterRouting) > 0 && string(r.OpenRouterRouting) != "null" {
		c.OpenRouterRouting = r.OpenRouterRouting
	}
	return c
}
