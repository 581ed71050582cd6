package auth

import "strings"

// ProviderInfo is what pi 1.6 knows about signing in to one built-in provider: its display
// name, the name of its API-key method (empty when it has none), the environment variables its
// key is read from (in order), and the name of its account sign-in (empty when it has none).
type ProviderInfo struct {
	ID        string
	Name      string
	KeyName   string
	EnvVars   []string
	OAuthName string
}

// providers is pi-ai 1.6's built-in provider list (providers/all.js), its auth facts only.
var providers = []ProviderInfo{
	{ID: "amazon-bedrock", Name: "Amazon Bedrock", KeyName: "AWS credentials or bearer token", EnvVars: nil, OAuthName: ""},
	{ID: "ant-ling", Name: "Ant Ling", KeyName: "Ant Ling API key", EnvVars: []string{"ANT_LING_API_KEY"}, OAuthName: ""},
	{ID: "anthropic", Name: "Anthropic", KeyName: "Anthropic API key", EnvVars: []string{"ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"}, OAuthName: "Anthropic (Claude Pro/Max)"},
	{ID: "azure", Name: "Azure", KeyName: "Azure OpenAI API key", EnvVars: []string{"AZURE_OPENAI_API_KEY"}, OAuthName: ""},
	{ID: "baseten", Name: "Baseten", KeyName: "Baseten API key", EnvVars: []string{"BASETEN_API_KEY"}, OAuthName: ""},
	{ID: "cerebras", Name: "Cerebras", KeyName: "Cerebras API key", EnvVars: []string{"CEREBRAS_API_KEY"}, OAuthName: ""},
	{ID: "cloudflare-ai-gateway", Name: "Cloudflare AI Gateway", KeyName: "Cloudflare API key", EnvVars: []string{"CLOUDFLARE_API_KEY"}, OAuthName: ""},
	{ID: "cloudflare-workers-ai", Name: "Cloudflare Workers AI", KeyName: "Cloudflare API key", EnvVars: []string{"CLOUDFLARE_API_KEY"}, OAuthName: ""},
	{ID: "deepseek", Name: "DeepSeek", KeyName: "DeepSeek API key", EnvVars: []string{"DEEPSEEK_API_KEY"}, OAuthName: ""},
	{ID: "fireworks", Name: "Fireworks", KeyName: "Fireworks API key", EnvVars: []string{"FIREWORKS_API_KEY"}, OAuthName: ""},
	{ID: "github-copilot", Name: "GitHub Copilot", KeyName: "GitHub Copilot token", EnvVars: []string{"COPILOT_GITHUB_TOKEN"}, OAuthName: "GitHub Copilot"},
	{ID: "google", Name: "Google", KeyName: "Gemini API key", EnvVars: []string{"GEMINI_API_KEY"}, OAuthName: ""},
	{ID: "google-vertex", Name: "Google Vertex AI", KeyName: "Google Cloud credentials", EnvVars: []string{"GOOGLE_CLOUD_API_KEY"}, OAuthName: ""},
	{ID: "groq", Name: "Groq", KeyName: "Groq API key", EnvVars: []string{"GROQ_API_KEY"}, OAuthName: ""},
	{ID: "huggingface", Name: "Hugging Face", KeyName: "Hugging Face token", EnvVars: []string{"HF_TOKEN"}, OAuthName: ""},
	{ID: "kimi-coding", Name: "Kimi For Coding", KeyName: "Kimi API key", EnvVars: []string{"KIMI_API_KEY"}, OAuthName: "Kimi Code (subscription)"},
	{ID: "meta", Name: "Meta", KeyName: "Meta Model API key", EnvVars: []string{"META_API_KEY"}, OAuthName: "Meta (Muse subscription)"},
	{ID: "minimax", Name: "MiniMax", KeyName: "MiniMax API key", EnvVars: []string{"MINIMAX_API_KEY"}, OAuthName: ""},
	{ID: "minimax-cn", Name: "MiniMax CN", KeyName: "MiniMax CN API key", EnvVars: []string{"MINIMAX_CN_API_KEY"}, OAuthName: ""},
	{ID: "mistral", Name: "Mistral", KeyName: "Mistral API key", EnvVars: []string{"MISTRAL_API_KEY"}, OAuthName: ""},
	{ID: "moonshotai", Name: "Moonshot AI", KeyName: "Moonshot AI API key", EnvVars: []string{"MOONSHOT_API_KEY"}, OAuthName: ""},
	{ID: "moonshotai-cn", Name: "Moonshot AI CN", KeyName: "Moonshot AI API key", EnvVars: []string{"MOONSHOT_API_KEY"}, OAuthName: ""},
	{ID: "nvidia", Name: "NVIDIA", KeyName: "NVIDIA API key", EnvVars: []string{"NVIDIA_API_KEY"}, OAuthName: ""},
	{ID: "openai", Name: "OpenAI", KeyName: "OpenAI API key", EnvVars: []string{"OPENAI_API_KEY"}, OAuthName: "OpenAI (ChatGPT subscription)"},
	{ID: "openai-codex", Name: "OpenAI Codex", KeyName: "", EnvVars: nil, OAuthName: "OpenAI (ChatGPT Plus/Pro)"},
	{ID: "opencode", Name: "OpenCode Zen", KeyName: "OpenCode API key", EnvVars: []string{"OPENCODE_API_KEY"}, OAuthName: ""},
	{ID: "opencode-go", Name: "OpenCode Go", KeyName: "OpenCode API key", EnvVars: []string{"OPENCODE_API_KEY"}, OAuthName: ""},
	{ID: "openrouter", Name: "OpenRouter", KeyName: "OpenRouter API key", EnvVars: []string{"OPENROUTER_API_KEY"}, OAuthName: "OpenRouter OAuth"},
	{ID: "qwen-token-plan", Name: "Qwen Token Plan Team", KeyName: "Qwen Token Plan Team API key", EnvVars: []string{"QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"}, OAuthName: ""},
	{ID: "qwen-token-plan-cn", Name: "Qwen Token Plan Team CN", KeyName: "Qwen Token Plan Team CN API key", EnvVars: []string{"QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"}, OAuthName: ""},
	{ID: "qwen-token-plan-individual", Name: "Qwen Token Plan Individual", KeyName: "Qwen Token Plan Individual API key", EnvVars: []string{"QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"}, OAuthName: ""},
	{ID: "qwen-token-plan-individual-cn", Name: "Qwen Token Plan Individual CN", KeyName: "Qwen Token Plan Individual CN API key", EnvVars: []string{"QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"}, OAuthName: ""},
	{ID: "radius", Name: "Radius", KeyName: "Radius API key", EnvVars: []string{"RADIUS_API_KEY"}, OAuthName: "Radius"},
	{ID: "together", Name: "Together", KeyName: "Together API key", EnvVars: []string{"TOGETHER_API_KEY"}, OAuthName: ""},
	{ID: "typesafe", Name: "TypeSafe", KeyName: "TypeSafe API key", EnvVars: []string{"TYPESAFE_API_KEY"}, OAuthName: ""},
	{ID: "vercel-ai-gateway", Name: "Vercel AI Gateway", KeyName: "Vercel AI Gateway API key", EnvVars: []string{"AI_GATEWAY_API_KEY"}, OAuthName: ""},
	{ID: "xai", Name: "xAI", KeyName: "xAI API key", EnvVars: []string{"XAI_API_KEY"}, OAuthName: "xAI (Grok/X subscription)"},
	{ID: "xiaomi", Name: "Xiaomi", KeyName: "Xiaomi API key", EnvVars: []string{"XIAOMI_API_KEY"}, OAuthName: ""},
	{ID: "xiaomi-token-plan-ams", Name: "Xiaomi Token Plan AMS", KeyName: "Xiaomi Token Plan AMS API key", EnvVars: []string{"XIAOMI_TOKEN_PLAN_AMS_API_KEY"}, OAuthName: ""},
	{ID: "xiaomi-token-plan-cn", Name: "Xiaomi Token Plan CN", KeyName: "Xiaomi Token Plan CN API key", EnvVars: []string{"XIAOMI_TOKEN_PLAN_CN_API_KEY"}, OAuthName: ""},
	{ID: "xiaomi-token-plan-sgp", Name: "Xiaomi Token Plan SGP", KeyName: "Xiaomi Token Plan SGP API key", EnvVars: []string{"XIAOMI_TOKEN_PLAN_SGP_API_KEY"}, OAuthName: ""},
	{ID: "zai", Name: "Z.AI", KeyName: "Z.AI API key", EnvVars: []string{"ZAI_API_KEY"}, OAuthName: ""},
	{ID: "zai-coding-cn", Name: "Z.AI Coding CN", KeyName: "Z.AI Coding CN API key", EnvVars: []string{"ZAI_CODING_CN_API_KEY"}, OAuthName: ""},
}

// Provider returns a built-in provider's auth facts (case-insensitive; old ids are aliases).
func Provider(id string) (ProviderInfo, bool) {
	if a, ok := alias(strings.ToLower(id)); ok {
		id = a
	}
	for _, p := range providers {
		if strings.EqualFold(p.ID, id) {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

// Providers lists the built-in providers, sorted by id.
func Providers() []ProviderInfo { return append([]ProviderInfo(nil), providers...) }

// EnvKey is a provider's key from its usual environment variables (pi-ai's getEnvApiKey:
// anthropic's ANTHROPIC_AUTH_TOKEN is a bearer token, not a key, and is skipped) and the
// variable it came from.
func EnvKey(provider string) (key, from string) {
	p, _ := Provider(provider)
	for _, name := range p.EnvVars {
		if name == "ANTHROPIC_AUTH_TOKEN" {
			continue
		}
		if v := Lookup(name, nil); v != "" {
			return v, name
		}
	}
	return "", ""
}

// alias returns the provider id pi reads an older id as (a comparison, not a map built at start-up).
func alias(id string) (string, bool) {
	if id == "azure-openai-responses" {
		return "azure", true
	}
	return "", false
}
