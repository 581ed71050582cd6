package chat

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/mcpclient/mcptest"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// TestE2EMCPManager: a bare /mcp opens pi 1.6's manager (the servers with state, exposure and
// source, those needing attention first); a person moves to a disabled server, enables it
// (saved to mcp.json keeping its comment; the server connects while the screen is open),
// changes its exposure, opens its tools, and goes back with Escape screen by screen until the
// manager closes. The same keys on pi 1.6.0 show the same screens (differences:
// docs/decisions/24-mcp.md, "The /mcp manager").
func TestE2EMCPManager(t *testing.T) {
	mem := pitest.Tool(t, "mcp-server-memory")
	mcpJSON := `{
  // servers for the manager
  "mcpServers": {
    "broken": {"command": "/nonexistent/server"},
    "mem": {"command": "` + mem + `", "exposure": "direct"},
    "off": {"command": "` + mem + `", "enabled": false}
  }
}
`
	tm := startTerm(t, 110, 36, termCfg{
		env:   []string{"PATH=" + pitest.NodeDir() + ":" + os.Getenv("PATH")},
		files: map[string]string{".pi/agent/mcp.json": mcpJSON},
	})
	tm.ready()
	tm.typeLine("/mcp")
	s := tm.waitFor("MCP servers", "connected · 9 tools", "esc close")
	// Attention first: the failed server, then the connected one, then the disabled one.
	b, m, o := strings.Index(s, "→ broken"), strings.Index(s, "  mem "), strings.Index(s, "  off ")
	if b < 0 || m < b || o < m || !strings.Contains(s, "failed: ") || !strings.Contains(s, "disabled · codemode · global") {
		t.Fatalf("servers screen:\n%s", s)
	}
	tm.moveTo("off")
	tm.keys("Enter")
	s = tm.waitFor("MCP server off", "State: disabled", "Enable ", "saved to the global mcp.json")
	if strings.Contains(s, "Reconnect") {
		t.Fatalf("a disabled server offers more than enabling:\n%s", s)
	}
	tm.keys("Enter")
	s = tm.waitFor("MCP server off", "State: connected · 9 tools", "Tools ", "Disable ")
	data, err := os.ReadFile(filepath.Join(tm.home, ".pi", "agent", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"enabled"`) || !strings.Contains(string(data), "// servers for the manager") {
		t.Fatalf("mcp.json after enabling:\n%s", data)
	}
	tm.moveTo("Exposure")
	tm.keys("Enter")
	tm.waitFor("Exposure of off", "✓ codemode", "enter save")
	tm.keys("Down", "Enter")
	tm.waitFor("MCP server off", "Exposure                        deferred")
	data, _ = os.ReadFile(filepath.Join(tm.home, ".pi", "agent", "mcp.json"))
	if !strings.Contains(string(data), `"exposure": "deferred"`) || !strings.Contains(string(data), "// servers for the manager") {
		t.Fatalf("mcp.json after the exposure:\n%s", data)
	}
	tm.moveTo("Tools")
	tm.keys("Enter")
	tm.waitFor("Tools of off", "Exposure deferred: not declared until tool_search loads them", "read_graph")
	tm.keys("Escape")
	tm.waitFor("MCP server off", "State: connected")
	tm.keys("Escape")
	s = tm.waitFor("MCP servers", "esc close")
	if !strings.Contains(s, "off ") || !strings.Contains(s, "deferred · global") {
		t.Fatalf("servers screen after the changes:\n%s", s)
	}
	tm.keys("Escape")
	for deadline := time.Now().Add(20 * time.Second); strings.Contains(tm.screen(), "esc close"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the manager did not close:\n%s", tm.screen())
		}
	}
	tm.ready()
}

// moveTo presses Down until the selector's marked line is label (a person looking at the
// screen; the list wraps, so a few rounds at most).
func (tm *term) moveTo(label string) {
	tm.t.Helper()
	for i := 0; i < 30; i++ {
		if strings.Contains(tm.stable("→ "), "→ "+label+" ") {
			return
		}
		tm.keys("Down")
	}
	tm.t.Fatalf("never reached %q:\n%s", label, tm.screen())
}

// TestE2EMCPManagerPastedSignIn: the manager's sign-in for an OAuth MCP server shows the URL
// and a field for the redirect URL (pi 1.6's sign-in screen) over the manager. Escape cancels
// the sign-in and the manager comes back saying so; pasting the address a browser on another
// machine was redirected to signs in (the loopback callback is never reached) and the server
// connects while the manager is open. Without the field the sign-in could only finish through
// the callback on this machine.
func TestE2EMCPManagerPastedSignIn(t *testing.T) {
	as := mcptest.New(t)
	bin := t.TempDir()
	// The person's browser: it records the URL it was asked to open (there is no browser here).
	write(t, filepath.Join(bin, "xdg-open"), "#!/bin/sh\nprintf '%s' \"$1\" > \"$HOME/opened\"\n")
	if err := os.Chmod(filepath.Join(bin, "xdg-open"), 0o755); err != nil {
		t.Fatal(err)
	}
	tm := startTerm(t, 120, 40, termCfg{
		env:   []string{"DISPLAY=:99", "PATH=" + bin + ":" + os.Getenv("PATH")},
		files: map[string]string{".pi/agent/mcp.json": `{"mcpServers": {"secure": {"url": "` + as.URL + `/mcp", "exposure": "direct"}}}`},
	})
	tm.ready()
	opened := filepath.Join(tm.home, "opened")
	signIn := func() string {
		t.Helper()
		_ = os.Remove(opened)
		tm.typeLine("/mcp")
		tm.waitFor("MCP servers", "esc close")
		tm.moveTo("secure")
		tm.keys("Enter")
		tm.waitFor("MCP server secure", "Sign in")
		tm.moveTo("Sign in")
		tm.keys("Enter")
		tm.waitFor("Sign in to secure", "If the browser runs on another machine, paste")
		var u []byte
		for deadline := time.Now().Add(20 * time.Second); len(u) == 0; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the browser was not opened:\n%s", tm.screen())
			}
			u, _ = os.ReadFile(opened)
		}
		return string(u)
	}
	signIn()
	tm.keys("Escape")
	tm.waitFor("MCP server secure", `Sign-in to MCP server "secure" cancelled.`)
	tm.keys("Escape")
	tm.waitFor("MCP servers", "esc close")
	tm.keys("Escape")
	for deadline := time.Now().Add(20 * time.Second); strings.Contains(tm.screen(), "esc close"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the manager did not close:\n%s", tm.screen())
		}
	}
	tm.ready()

	authURL := signIn()
	// The browser on the other machine approves; its address bar shows the redirect.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	redirect := resp.Header.Get("Location")
	if !strings.Contains(redirect, "code=") {
		t.Fatalf("no redirect with a code from %s: %s", authURL, resp.Status)
	}
	tm.keys("-l", redirect)
	tm.keys("Enter")
	s := tm.waitFor("MCP server secure", "State: connected · 2 tools")
	if strings.Contains(s, "paste") {
		t.Fatalf("the sign-in screen stayed open:\n%s", s)
	}
	if as.Authorizations != 1 {
		t.Fatalf("authorizations: %d, want 1 (the browser approved once; the cancelled sign-in never reached it)", as.Authorizations)
	}
}
