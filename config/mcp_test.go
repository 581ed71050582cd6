package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/diag"
)

// mcpLoad writes a global and a project mcp.json ("" = absent) and loads them.
func mcpLoad(t *testing.T, global, project string, trusted bool) (*Config, *MCPConfig) {
	t.Helper()
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	if global != "" {
		write(t, filepath.Join(home, ".pi", "agent", "mcp.json"), global)
	}
	if project != "" {
		write(t, filepath.Join(proj, ".pi", "mcp.json"), project)
	} else {
		write(t, filepath.Join(proj, "README"), "")
	}
	c := load(t, home, proj, ptr(trusted))
	return c, c.MCP()
}

// diagLines renders diagnostics as "file:line:col: severity: message [code]" with the file's
// base name.
func diagLines(list diag.List) []string {
	var out []string
	for _, d := range list.Sort() {
		l, col := d.Pos()
		out = append(out, fmt.Sprintf("%s:%d:%d: %s: %s [%s]", filepath.Base(d.File()), l, col, d.Severity, d.Message, d.Code))
	}
	return out
}

// TestMCPValidation: pi's validation texts, each at the value it is about, and invalid entries
// skipped while the others stay.
func TestMCPValidation(t *testing.T) {
	global := `{
  "mcpServers": {
    "ok": {"command": "srv", "args": ["-x"], "timeout": 2},
    "bad name": {"command": "x"},
    "sse": {"type": "sse", "url": "https://x/sse"},
    "u": {"url": "ftp://x"},
    "n": {},
    "e": {"command": "x", "env": {"A": 1}},
    "t": {"url": "https://x/mcp", "type": "stdio"},
    "h": {"url": "https://x/mcp", "headers": ["a"]},
    "o": {"url": "https://x/mcp", "oauth": {"callbackUrl": "http://example.com/cb"}},
    "c": {"url": "https://x/mcp", "oauth": {"clientRegistration": "cimd"}},
    "p": {"url": "http://remote.example/mcp", "auth": {"provider": "x"}},
    "x": {"command": "x", "exposure": "codemode-deferred", "toolExposure": {"a": "direct"}},
    "a-b": {"command": "x"},
    "a_b": {"command": "y"},
    "s": {"command": "npx -y foo"}
  },
  "autoEnableCodemode": "yes"
}`
	c, m := mcpLoad(t, global, "", true)
	var names []string
	for _, s := range m.Servers {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"ok", "x", "a-b", "s"}, names); diff != "" {
		t.Errorf("servers kept (-want +got):\n%s", diff)
	}
	if x := m.Server("x"); x == nil || x.Exposure != "codemode" || x.ToolExposureOf("a") != "direct" || x.ToolExposureOf("b") != "codemode" {
		t.Errorf("exposure alias and toolExposure: %+v", x)
	}
	if ok := m.Server("ok"); ok.Timeout != 2 || ok.Transport != "stdio" || ok.Source.Line != 3 || ok.Source.Column != 5 {
		t.Errorf("ok: %+v", ok)
	}
	want := []string{
		`mcp.json:4:5: error: invalid server name "bad name" (use letters, digits, "_" and "-") [mcp-server]`,
		`mcp.json:5:21: error: server "sse": legacy SSE transport is not supported; use the streamable HTTP URL [mcp-server]`,
		`mcp.json:6:18: error: server "u": url must be an http or https URL [mcp-server]`,
		`mcp.json:7:5: error: server "n" needs either "command" (stdio) or "url" (streamable HTTP) [mcp-server]`,
		`mcp.json:8:40: error: mcpServers.e.env.A: expected a string, got 1 [schema]`,
		`mcp.json:9:5: error: server "t" needs either "command" (stdio) or "url" (streamable HTTP) [mcp-server]`,
		`mcp.json:10:46: error: mcpServers.h.headers: expected an object, got an array [schema]`,
		`mcp.json:11:60: error: server "o": oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment [mcp-server]`,
		`mcp.json:12:67: error: server "c": oauth.clientRegistration "cimd" is not supported: there are no Client ID Metadata Documents [mcp-server]`,
		`mcp.json:13:55: error: server "p": auth requires an https URL, or http on localhost, 127.0.0.1, or [::1] [mcp-server]`,
		`mcp.json:16:5: error: server "a_b" conflicts with "a-b" [mcp-server]`,
		`mcp.json:17:22: warning: server "s": command "npx -y foo" is one executable, not a shell line [mcp-command]`,
		`mcp.json:19:25: error: autoEnableCodemode: expected a boolean, got "yes" [schema]`,
	}
	var mcpFile *File
	for _, f := range c.Files {
		if f.Kind == MCP {
			mcpFile = f
		}
	}
	c.checkFile(nil, mcpFile)
	full := c.Check()
	var got diag.List
	for _, d := range full {
		if d.File() == mcpFile.Path {
			got = append(got, d)
		}
	}
	if diff := cmp.Diff(want, diagLines(got)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if !mcpFile.Applied {
		t.Error("mcp.json with errors must stay applied (the valid servers connect)")
	}
	na := diagLines(c.NotApplied())
	if len(na) != 1 || !strings.Contains(na[0], "mcp.json has errors: the servers in error are skipped and the others connect") {
		t.Errorf("not-applied notice: %q", na)
	}
}

// TestMCPProjectLayer: pi 1.6's rules between the global file and a trusted project's.
func TestMCPProjectLayer(t *testing.T) {
	global := `{"mcpServers": {
  "fs": {"command": "fs-server", "env": {"TOKEN": "${T}"}, "exposure": "direct"},
  "docs": {"url": "https://docs.example/mcp", "auth": {"provider": "p"}},
  "keep": {"command": "k"}
}, "autoEnableCodemode": false}`
	project := `{"mcpServers": {
  "fs": {"enabled": false, "toolExposure": {"write_*": "hidden"}},
  "docs": {"url": "https://other.example/mcp"},
  "new": {"command": "n"},
  "ghost": {"enabled": true},
  "keep": {"enabled": false, "args": ["x"]},
  "r": {"url": "https://r.example/mcp", "auth": {"provider": "p"}}
}, "autoEnableCodemode": true}`
	_, m := mcpLoad(t, global, project, true)
	var got []string
	for _, s := range m.Servers {
		over := ""
		if s.Override != nil {
			over = " override " + filepath.Base(filepath.Dir(s.Override.File))
		}
		got = append(got, fmt.Sprintf("%s %s %s enabled=%v exposure=%s%s", s.Name, s.Scope, s.Describe(), s.Enabled, s.ServerExposure(), over))
	}
	want := []string{
		"fs global fs-server enabled=false exposure=direct override .pi",
		"docs project https://other.example/mcp enabled=true exposure=codemode",
		"keep global k enabled=true exposure=codemode",
		"new project n enabled=true exposure=codemode",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if fs := m.Server("fs"); fs.Env["TOKEN"] != "${T}" || fs.ToolExposureOf("write_file") != "hidden" || fs.ToolExposureOf("read") != "direct" {
		t.Errorf("an override keeps the global entry's env and changes toolExposure: %+v", fs)
	}
	if !m.AutoCodemode() {
		t.Error("the project's autoEnableCodemode overrides the global one")
	}
	msgs := strings.Join(diagLines(m.Diags), "\n")
	for _, w := range []string{
		`server "ghost" needs "command" or "url", or a global server to override`,
		`server "keep": an override can only set enabled, exposure, toolExposure`,
		`server "r": auth is only allowed in the global mcp.json`,
	} {
		if !strings.Contains(msgs, w) {
			t.Errorf("missing %q in:\n%s", w, msgs)
		}
	}
	// Untrusted: nothing of the project applies, and it is said where.
	_, u := mcpLoad(t, global, project, false)
	if len(u.Servers) != 3 || u.Ignored == "" || u.AutoCodemode() {
		t.Errorf("untrusted project: %d servers, ignored %q, autoCodemode %v", len(u.Servers), u.Ignored, u.AutoCodemode())
	}
}

// TestMCPBlameOverride: config blame shows the override rule and what it replaced.
func TestMCPBlameOverride(t *testing.T) {
	c, _ := mcpLoad(t, `{"mcpServers": {"fs": {"command": "a", "exposure": "direct"}, "g": {"command": "g"}}}`,
		`{"mcpServers": {"fs": {"exposure": "deferred", "enabled": false}, "g": {"url": "https://g/mcp"}}}`, true)
	e, err := c.Effective(MCP)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range e.Leaves() {
		got = append(got, fmt.Sprintf("%s=%s [%s] replaced=%d", l.Path, l.Value.JSON(), l.Rule, len(l.Replaced)))
	}
	want := []string{
		`mcpServers.fs.command="a" [only] replaced=0`,
		`mcpServers.fs.exposure="deferred" [replace] replaced=1`,
		`mcpServers.fs.enabled=false [only] replaced=0`,
		`mcpServers.g.url="https://g/mcp" [replace] replaced=1`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}
}

// TestMCPWidening: an entry that widens or leaves the sandbox is a sandbox-widened warning.
func TestMCPWidening(t *testing.T) {
	_, m := mcpLoad(t, `{"mcpServers": {
  "off": {"command": "a", "sandbox": false},
  "wide": {"command": "b", "sandbox": {"writablePaths": ["~/.npm"], "network": "allow-all"}},
  "same": {"command": "c", "sandbox": true},
  "http": {"url": "https://h/mcp", "sandbox": false}
}}`, "", true)
	got := diagLines(m.Diags)
	want := []string{
		`mcp.json:2:38: warning: MCP server "off" runs outside the sandbox ("sandbox": false): it can read, write and reach everything you can [sandbox-widened]`,
		`mcp.json:3:39: warning: MCP server "wide" widens the sandbox of sandbox.json: it may also write "~/.npm"; its network is "allow-all" [sandbox-widened]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !m.Server("off").Sandbox.Off || m.Server("same").Sandbox.Widens() || m.Server("wide").Sandbox.Network != "allow-all" {
		t.Error("sandbox settings not read")
	}
}

// TestValidateMCPEntry is pi mcp add's validation of the one entry it writes.
func TestValidateMCPEntry(t *testing.T) {
	for _, c := range []struct{ name, entry, want string }{
		{"fs", `{"command":"npx","args":["-y","x"]}`, ""},
		{"bad name", `{"command":"x"}`, `invalid server name "bad name" (use letters, digits, "_" and "-")`},
		{"h", `{"url":"https://x","exposure":"loud"}`, `server "h": exposure must be one of "codemode", "deferred", "direct", "hidden"`},
		{"o", `{"url":"https://x","oauth":{"callbackPort":70000}}`, `server "o": oauth.callbackPort must be a port number`},
	} {
		if got := ValidateMCPEntry(c.name, []byte(c.entry)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
