package auth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi 1.6's order: --api-key, then the auth.json entry (which owns the provider), then
// models.json's apiKey, then the environment.
func TestResolvePrecedence(t *testing.T) {
	t.Setenv("ZAI_API_KEY", "from-env")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_OAUTH_TOKEN", "")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	t.Setenv("PIGO_T_VAR", "from-var")
	dir := t.TempDir()
	writeFile(t, Path(dir), `{
  "zai": {"type": "api_key", "key": "stored"},
  "cmd": {"type": "api_key", "key": "!printf %s from-cmd"},
  "tmpl": {"type": "api_key", "key": "$PIGO_T_OWN", "env": {"PIGO_T_OWN": "from-own-env"}},
  "failing": {"type": "api_key", "key": "!exit 3"},
  "deepseek": {"type": "api_key", "key": "!exit 3"},
  "anthropic": {"type": "oauth", "access": "sk-ant-oat-x", "refresh": "r", "expires": 1},
  "custom-oauth": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}
}`)
	f, err := Read(Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	configured := "$PIGO_T_VAR"
	t.Setenv("DEEPSEEK_API_KEY", "deepseek-env")
	for _, tc := range []struct {
		name     string
		in       Input
		key, src string
	}{
		{"runtime key wins", Input{Provider: "zai", RuntimeKey: "rt", File: f, ConfiguredKey: &configured}, "rt", "--api-key"},
		{"stored beats models.json and env", Input{Provider: "zai", File: f, ConfiguredKey: &configured}, "stored", "auth.json"},
		{"models.json beats env", Input{Provider: "zai", ConfiguredKey: &configured}, "from-var", "models.json apiKey"},
		{"env last", Input{Provider: "zai"}, "from-env", "ZAI_API_KEY"},
		{"stored command", Input{Provider: "cmd", File: f}, "from-cmd", "auth.json"},
		{"stored template with own env", Input{Provider: "tmpl", File: f}, "from-own-env", "auth.json"},
		{"failed command on a custom provider: nothing", Input{Provider: "failing", File: f, ConfiguredKey: &configured}, "", ""},
		{"failed command on a built-in: its env", Input{Provider: "deepseek", File: f}, "deepseek-env", "DEEPSEEK_API_KEY"},
		{"oauth entry", Input{Provider: "anthropic", File: f}, "sk-ant-oat-x", "auth.json (signed in)"},
		{"oauth entry for a provider without sign-in owns it: nothing", Input{Provider: "custom-oauth", File: f, ConfiguredKey: &configured}, "", ""},
		{"account-only provider ignores --api-key", Input{Provider: "openai-codex", RuntimeKey: "rt"}, "", ""},
		{"unknown provider without config: nothing", Input{Provider: "nope"}, "", ""},
	} {
		r, err := Resolve(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.APIKey != tc.key || r.Source != tc.src {
			t.Errorf("%s: got %q from %q, want %q from %q", tc.name, r.APIKey, r.Source, tc.key, tc.src)
		}
	}
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "bearer-tok")
	r, _ := Resolve(Input{Provider: "anthropic"})
	if r.APIKey != "" || r.Headers["Authorization"] != "Bearer bearer-tok" {
		t.Errorf("ANTHROPIC_AUTH_TOKEN: %+v", r)
	}
	bad := "!exit 1"
	if _, err := Resolve(Input{Provider: "x", ConfiguredKey: &bad}); err == nil || err.Error() != `Failed to resolve API key for provider "x" from shell command: exit 1` {
		t.Errorf("models.json command failure: %v", err)
	}
}

// A `!command` key runs once per process.
func TestCommandCachedPerProcess(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "n")
	cmd := "!echo x >> " + counter + "; echo key-$(wc -l < " + counter + ")"
	for range 3 {
		v, ok, _ := ResolveValue(cmd, nil)
		if !ok || v != "key-1" {
			t.Fatalf("%q %v", v, ok)
		}
	}
	data, _ := os.ReadFile(counter)
	if strings.Count(string(data), "x") != 1 {
		t.Errorf("ran %d times", strings.Count(string(data), "x"))
	}
}

// Amazon Bedrock has no key variable of pi's list: its guidance names the AWS ways.
func TestGuidanceBedrock(t *testing.T) {
	want := "set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), AWS_PROFILE (a profile of ~/.aws/config), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run `pigo auth login amazon-bedrock`"
	if got := Guidance("amazon-bedrock"); got != want {
		t.Errorf("%q", got)
	}
}
