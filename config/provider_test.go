package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func providerConfig(t *testing.T, models, settings string) *Config {
	t.Helper()
	home := t.TempDir()
	agent := filepath.Join(home, "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	if models != "" {
		if err := os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if settings != "" {
		if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proj := filepath.Join(home, "proj")
	_ = os.MkdirAll(proj, 0o755)
	c, err := Load(Options{AgentDir: agent, ProjectDir: proj, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProviderModelFromModelsJSON(t *testing.T) {
	t.Setenv("PIGO_TEST_KEY", "sekret")
	t.Setenv("PIGO_TEST_TEAM", "blue")
	c := providerConfig(t, `{"providers":{"local":{
		"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"$PIGO_TEST_KEY",
		"headers":{"X-Team":"${PIGO_TEST_TEAM}-$$1","X-Both":"provider"},
		"compat":{"supportsStore":false,"openRouterRouting":{"order":["a"]}},
		"models":[{"id":"m","name":"My M","reasoning":true,"input":["text","image"],"contextWindow":64000,"maxTokens":4000,
			"cost":{"input":1,"output":2,"cacheRead":0.1,"cacheWrite":1.25},"headers":{"X-Both":"model","X-Model":"!echo hi"},
			"compat":{"maxTokensField":"max_tokens","openRouterRouting":{"only":["b"]}},"thinkingLevelMap":{"xhigh":"max","minimal":null}}],
		"modelOverrides":{"m":{"name":"Renamed","cost":{"output":3}}}}}}`, "")
	m, err := c.ProviderModel("local/m", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.API != "openai-completions" || m.BaseURL != "http://127.0.0.1:9/v1" || m.APIKey != "sekret" || m.Name != "Renamed" ||
		!m.Reasoning || m.ContextWindow != 64000 || m.MaxTokens != 4000 || len(m.Input) != 2 {
		t.Errorf("model %+v", m)
	}
	if m.Cost.Input != 1 || m.Cost.Output != 3 || m.Cost.CacheRead != 0.1 || m.Cost.CacheWrite != 1.25 {
		t.Errorf("cost %+v", m.Cost)
	}
	if m.Headers["X-Team"] != "blue-$1" || m.Headers["X-Both"] != "provider" || m.Headers["X-Model"] != "hi" {
		t.Errorf("headers %v", m.Headers)
	}
	var compat map[string]any
	_ = json.Unmarshal(m.Compat, &compat)
	if compat["supportsStore"] != false || compat["maxTokensField"] != "max_tokens" || len(compat["openRouterRouting"].(map[string]any)) != 2 {
		t.Errorf("compat %s", m.Compat)
	}
	if v := m.ThinkingLevelMap["xhigh"]; v == nil || *v != "max" {
		t.Errorf("thinking map %v", m.ThinkingLevelMap)
	}
	if v, ok := m.ThinkingLevelMap["minimal"]; !ok || v != nil {
		t.Errorf("minimal should be null: %v", m.ThinkingLevelMap)
	}
	// --api-key wins over models.json.
	m, _ = c.ProviderModel("local/m", "flag-key")
	if m.APIKey != "flag-key" {
		t.Errorf("flag key %q", m.APIKey)
	}
}

func TestProviderModelKeyErrors(t *testing.T) {
	unsetenv(t, "PIGO_MISSING_1", "PIGO_MISSING_2")
	for models, want := range map[string]string{
		`{"providers":{"p":{"baseUrl":"http://x","api":"openai-completions","apiKey":"$PIGO_MISSING_1","models":[{"id":"m"}]}}}`:                  `Failed to resolve API key for provider "p" from environment variable: PIGO_MISSING_1`,
		`{"providers":{"p":{"baseUrl":"http://x","api":"openai-completions","apiKey":"${PIGO_MISSING_1}$PIGO_MISSING_2","models":[{"id":"m"}]}}}`: `Failed to resolve API key for provider "p" from environment variables: PIGO_MISSING_1, PIGO_MISSING_2`,
		`{"providers":{"p":{"baseUrl":"http://x","api":"openai-completions","apiKey":"!exit 3","models":[{"id":"m"}]}}}`:                          `Failed to resolve API key for provider "p" from shell command: exit 3`,
		`{"providers":{"p":{"baseUrl":"http://x","api":"openai-completions","authHeader":true,"models":[{"id":"m"}]}}}`:                           `authHeader requires a resolved API key`,
	} {
		c := providerConfig(t, models, "")
		_, err := c.ProviderModel("p/m", "")
		if err == nil || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
}

func TestProviderModelBuiltinAndEnv(t *testing.T) {
	t.Setenv("ANTHROPIC_OAUTH_TOKEN", "")
	t.Setenv("ANTHROPIC_API_KEY", "ant-env")
	c := providerConfig(t, `{"providers":{"anthropic":{"baseUrl":"http://127.0.0.1:9","headers":{"X-A":"1"},"authHeader":true}}}`, "")
	m, err := c.ProviderModel("anthropic/claude-sonnet-4-5", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.API != "anthropic-messages" || m.BaseURL != "http://127.0.0.1:9" || m.APIKey != "ant-env" || m.ContextWindow != 1000000 || m.Name != "Claude Sonnet 4.5 (latest)" ||
		m.Cost.Output != 15 || string(m.Compat) != `{"supportsStrictTools":true}` ||
		m.Headers["Authorization"] != "Bearer ant-env" || m.Headers["X-A"] != "1" {
		t.Errorf("model %+v", m)
	}
	t.Setenv("OPENAI_API_KEY", "")
	m, err = c.ProviderModel("openai/gpt-5", "")
	if err != nil || m.API != "openai-responses" || m.BaseURL != "https://api.openai.com/v1" || m.APIKey != "" {
		t.Errorf("openai %+v %v", m, err)
	}
}

func TestResolveConfigValue(t *testing.T) {
	t.Setenv("PIGO_A", "a")
	unsetenv(t, "PIGO_UNSET")
	for in, want := range map[string]string{"plain": "plain", "$PIGO_A-x": "a-x", "${PIGO_A}b": "ab", "$$PIGO_A": "$PIGO_A", "$!x": "!x",
		"${not valid}": "${not valid}", "${open": "${open", "a$": "a$", "$1": "$1", "!printf ' key \\n'": "key"} {
		got, ok, _ := ResolveConfigValue(in)
		if !ok || got != want {
			t.Errorf("%q: got %q %v want %q", in, got, ok, want)
		}
	}
	if _, ok, missing := ResolveConfigValue("x$PIGO_UNSET"); ok || len(missing) != 1 {
		t.Errorf("unset: %v %v", ok, missing)
	}
}

func TestProxyURL(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("HTTPS_PROXY", "")
	c := providerConfig(t, "", `{"httpProxy":" http://proxy.local:3128 "}`)
	if p, err := c.ProxyURL(); err != nil || p != "http://proxy.local:3128" {
		t.Errorf("%q %v", p, err)
	}
	t.Setenv("HTTPS_PROXY", "http://env:1")
	if p, _ := c.ProxyURL(); p != "" {
		t.Errorf("env should win, got %q", p)
	}
}

func BenchmarkProviderModelBuiltin(b *testing.B) {
	home := b.TempDir()
	c, err := Load(Options{AgentDir: home, ProjectDir: home, Home: home})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.ProviderModel("anthropic/claude-sonnet-4-5", "k"); err != nil {
			b.Fatal(err)
		}
	}
}

// unsetenv removes variables for one test: t.Setenv first records their values for the end of
// the test and refuses a parallel test, so no other test runs while they are unset.
func unsetenv(t *testing.T, keys ...string) {
	for _, k := range keys {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}
