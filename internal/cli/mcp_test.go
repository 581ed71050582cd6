package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/mcpclient/mcptest"
)

// mcpCLI runs pigo commands in-process with HOME (and the agent dir) in a temporary folder.
type mcpCLI struct {
	t    *testing.T
	home string
	env  map[string]string
	open func(string)
}

func newMCPCLI(t *testing.T) *mcpCLI {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return &mcpCLI{t: t, home: home, env: map[string]string{"HOME": home, "PATH": os.Getenv("PATH"), "PIGO_CACHE_DIR": filepath.Join(home, "cache")}}
}

func (m *mcpCLI) run(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	c := &CLI{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return m.env[k] }, OpenURL: m.open}
	code = c.Main(append([]string{"-C", filepath.Join(m.home, "proj")}, args...))
	return out.String(), errb.String(), code
}

// TestMCPLoginCommands: `pigo mcp add --url`, `mcp list` saying it needs a sign-in (exit 1),
// `mcp login` through the browser (a plain HTTP client here), `list` connected, `logout`.
func TestMCPLoginCommands(t *testing.T) {
	as := mcptest.New(t)
	m := newMCPCLI(t)
	m.open = func(u string) {
		if err := mcptest.Browse(u); err != nil {
			t.Errorf("browser: %v", err)
		}
	}
	out, errOut, code := m.run("mcp", "add", "secure", "--url", as.URL+"/mcp", "--exposure", "direct")
	if code != 0 || !strings.Contains(out, `Added global MCP server "secure"`) || !strings.Contains(out, "If it requires sign-in: pigo mcp login secure") {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	out, _, code = m.run("mcp", "list")
	if code != 1 || !strings.Contains(out, "secure: needs sign-in (direct, global)") || !strings.Contains(out, "sign in with: pigo mcp login secure") {
		t.Fatalf("list before sign-in: %d %s", code, out)
	}
	out, errOut, code = m.run("mcp", "login", "secure")
	if code != 0 || !strings.Contains(out, `Sign in to MCP server "secure" in your browser:`) || !strings.Contains(out, `Signed in to MCP server "secure" (2 tools).`) {
		t.Fatalf("login: %d %s %s", code, out, errOut)
	}
	out, _, code = m.run("mcp", "login", "secure")
	if code != 0 || !strings.Contains(out, `Already signed in to MCP server "secure" (2 tools).`) {
		t.Fatalf("second login: %d %s", code, out)
	}
	out, _, code = m.run("mcp", "list")
	if code != 0 || !strings.Contains(out, "secure: connected, 2 tools (direct, global)") {
		t.Fatalf("list after sign-in: %d %s", code, out)
	}
	// The list connected and cached the tools: pigo tools lists them without a connection.
	out, _, code = m.run("tools", "--format", "json")
	if code != 0 || !strings.Contains(out, `"name": "mcp__secure__whoami"`) {
		t.Fatalf("tools: %d %s", code, out)
	}
	out, _, code = m.run("mcp", "logout", "secure")
	if code != 0 || !strings.Contains(out, `Signed out of MCP server "secure".`) {
		t.Fatalf("logout: %d %s", code, out)
	}
	out, _, _ = m.run("mcp", "logout", "secure")
	if !strings.Contains(out, `No stored credentials for MCP server "secure".`) {
		t.Fatalf("second logout: %s", out)
	}
	_, errOut, code = m.run("mcp", "login", "securr")
	if code != 1 || !strings.Contains(errOut, `No MCP server named "securr". Did you mean "secure"? Configured: secure.`) {
		t.Fatalf("unknown server: %d %s", code, errOut)
	}
}

// TestMCPAddRemoveKeepsComments: add and remove edit mcp.json keeping its comments, refuse
// invalid entries with pi's text, and say where a server is defined.
func TestMCPAddRemoveKeepsComments(t *testing.T) {
	m := newMCPCLI(t)
	agent := filepath.Join(m.home, ".pi", "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	orig := "{\n  // my servers\n  \"mcpServers\": {\n    \"keep\": {\"command\": \"k\"} // keep this one\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(agent, "mcp.json"), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := m.run("mcp", "add", "fs", "--env", "TOKEN=${GH}", "npx", "-y", "@modelcontextprotocol/server-filesystem", ".")
	if code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(agent, "mcp.json"))
	got := string(b)
	for _, want := range []string{"// my servers", "// keep this one", `"command": "npx"`, `"args": ["-y", "@modelcontextprotocol/server-filesystem", "."]`, `"TOKEN": "${GH}"`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	_, errOut, code = m.run("mcp", "add", "bad", "--exposure", "loud", "--", "x")
	if code != 1 || !strings.Contains(errOut, `server "bad": exposure must be one of "codemode", "deferred", "direct", "hidden"`) {
		t.Errorf("invalid entry: %d %s", code, errOut)
	}
	_, errOut, code = m.run("mcp", "add", "h", "--url", "https://x/mcp", "--env", "A=1")
	if code != 2 || !strings.Contains(errOut, "--env only applies to stdio servers.") {
		t.Errorf("misplaced option: %d %s", code, errOut)
	}
	_, errOut, code = m.run("mcp", "remove", "-l", "keep")
	if code != 1 || !strings.Contains(errOut, "It is defined in") || !strings.Contains(errOut, "; omit --local.") {
		t.Errorf("remove from the wrong file: %d %s", code, errOut)
	}
	out, _, code = m.run("mcp", "remove", "fs")
	b, _ = os.ReadFile(filepath.Join(agent, "mcp.json"))
	if code != 0 || !strings.Contains(out, `Removed global MCP server "fs"`) || strings.Contains(string(b), "npx") || !strings.Contains(string(b), "// keep this one") {
		t.Errorf("remove: %d %s\n%s", code, out, b)
	}
}
