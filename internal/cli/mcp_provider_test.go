package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/mcpclient/mcptest"
)

// TestMCPProviderToken: an HTTP server whose entry says auth.provider gets the /login
// provider's credential as its bearer, read before every request (pi 1.6). Without a
// credential the server's 401 makes it "needs sign-in" with "/login PROVIDER" (`pigo mcp
// list`, `/mcp`); an expired OAuth token is refreshed at the provider's token endpoint (a
// loopback one here) and the new token is saved to auth.json and sent; a session's model
// calls the server's tool with it; an API key entry is sent as it is. No token reaches
// mcp.log, the session file or any output.
func TestMCPProviderToken(t *testing.T) {
	as := mcptest.New(t)
	t.Setenv("PIGO_TEST_OAUTH_ORIGIN", as.URL)
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"} {
		t.Setenv(k, "")
	}
	m := newMCPCLI(t)
	agent := filepath.Join(m.home, ".pi", "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(agent, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("mcp.json", fmt.Sprintf(`{
  // the company's server takes the Anthropic sign-in
  "mcpServers": {"corp": {"url": %q, "auth": {"provider": "anthropic"}, "exposure": "direct"}}
}`, as.URL+"/mcp"))
	srv := llmtest.New(t)
	models, _ := json.Marshal(map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k",
		"models": []any{map[string]any{"id": "m"}}}}})
	write("models.json", string(models))

	// No credential: no Authorization header; the server's 401 asks for /login anthropic.
	out, errOut, code := m.run("mcp", "list")
	if code != 1 || !strings.Contains(out, "corp: needs sign-in (direct, global)") || !strings.Contains(out, "  sign in with: /login anthropic in pigo") {
		t.Fatalf("list without a credential: %d\n%s\n%s", code, out, errOut)
	}
	for _, b := range as.Bearers() {
		if b != "" {
			t.Fatalf("a request without a credential sent Authorization %q", b)
		}
	}
	out, errOut, code = m.run("-p", "--model", "local/m", "--no-session", "/mcp")
	if code != 0 || !strings.Contains(out, "corp: needs sign-in, run /login anthropic (direct)") {
		t.Fatalf("/mcp without a credential: %d\n%s\n%s", code, out, errOut)
	}
	_, errOut, code = m.run("mcp", "login", "corp")
	if code != 1 || !strings.Contains(errOut, `MCP server "corp" uses the credentials of provider "anthropic". Run "pigo auth login anthropic".`) {
		t.Fatalf("mcp login of a provider's server: %d %s", code, errOut)
	}

	// An expired OAuth credential: refreshed before the first request, saved, sent.
	_, refresh := as.Grant()
	stale := "sk-ant-oat01-stale-token-0001"
	write("auth.json", fmt.Sprintf(`{"anthropic": {"type": "oauth", "access": %q, "refresh": %q, "expires": 1}}`, stale, refresh))
	out, errOut, code = m.run("mcp", "list")
	if code != 0 || !strings.Contains(out, "corp: connected, 2 tools (direct, global)") {
		t.Fatalf("list with an expired token: %d\n%s\n%s", code, out, errOut)
	}
	if as.Refreshes != 1 {
		t.Fatalf("refreshes: %d, want 1", as.Refreshes)
	}
	var stored map[string]struct {
		Access, Refresh string
		Expires         int64
	}
	data, _ := os.ReadFile(filepath.Join(agent, "auth.json"))
	if err := json.Unmarshal(data, &stored); err != nil {
		t.Fatal(err)
	}
	fresh := stored["anthropic"].Access
	if fresh == stale || !strings.HasPrefix(fresh, "access-") || stored["anthropic"].Refresh == refresh {
		t.Fatalf("auth.json after the refresh: %s", data)
	}
	for _, b := range as.Bearers() {
		if strings.Contains(b, stale) {
			t.Fatalf("the expired token was sent: %q", b)
		}
	}
	if last := as.Bearers()[len(as.Bearers())-1]; last != "Bearer "+fresh {
		t.Fatalf("last Authorization %q, want the refreshed token", last)
	}

	// A session: the model calls the server's tool; the result reaches the next request.
	srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "mcp__corp__whoami", Args: `{}`}}}, llmtest.Turn{Text: "done"})
	sessions := filepath.Join(m.home, "sessions")
	out, errOut, code = m.run("-p", "--model", "local/m", "--session-dir", sessions, "who am i")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("session: %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "whoami with scope") {
		t.Fatalf("the tool result did not reach the model: %d requests", len(reqs))
	}

	// A rejected token: the server's 401 is a sign-in to do again, without the token in the text.
	as.Revoke()
	out, errOut, code = m.run("mcp", "list")
	if code != 1 || !strings.Contains(out, "corp: needs sign-in (direct, global)") || !strings.Contains(out, "/login anthropic") {
		t.Fatalf("list with a revoked token: %d\n%s\n%s", code, out, errOut)
	}

	// An API key entry is sent as it is.
	key, _ := as.Grant()
	write("auth.json", fmt.Sprintf(`{"anthropic": {"type": "api_key", "key": %q}}`, key))
	out, errOut, code = m.run("mcp", "list")
	if code != 0 || !strings.Contains(out, "corp: connected, 2 tools") {
		t.Fatalf("list with an API key: %d\n%s\n%s", code, out, errOut)
	}
	if last := as.Bearers()[len(as.Bearers())-1]; last != "Bearer "+key {
		t.Fatalf("last Authorization %q, want the API key", last)
	}

	// No token anywhere pigo writes.
	secrets := []string{stale, refresh, fresh, stored["anthropic"].Refresh, key}
	var files []string
	filepath.Walk(m.home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(p) != "auth.json" {
			files = append(files, p)
		}
		return nil
	})
	sawSession := false
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.HasSuffix(f, ".jsonl") && strings.Contains(string(data), "whoami with scope") {
			sawSession = true
		}
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds a token", f)
			}
		}
	}
	if !sawSession {
		t.Errorf("no session file with the tool result among %v", files)
	}
}
