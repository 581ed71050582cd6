package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
)

// TestBadInput puts every kind of unreadable or malformed input into one agent dir and project
// and checks that each gets exactly one diagnostic naming its file (or none where the input is
// valid), that the files around them are still checked, and that nothing panics.
func TestBadInput(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agent")
	project := filepath.Join(root, "project")
	pi := filepath.Join(project, ".pi")
	write := func(path string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(target, link string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}

	type want struct {
		sev  diag.Severity
		code string
		msg  string // substring of the message
		line int    // 0: a diagnostic about the whole file (or not checked)
	}
	cases := map[string]*want{} // file → its one diagnostic; nil: none

	// Binary garbage.
	write(filepath.Join(agent, "settings.json"), []byte("\x7fELF\x02\x01\x01\x00\x00\x00garbage\xff\xfe"))
	cases[filepath.Join(agent, "settings.json")] = &want{diag.Error, "syntax", "not a text file", 1}
	// Invalid UTF-8 in an otherwise textual Markdown file.
	write(filepath.Join(agent, "prompts", "latin1.md"), []byte("---\ndescription: caf\xe9\n---\nBody\n"))
	cases[filepath.Join(agent, "prompts", "latin1.md")] = &want{diag.Error, "syntax", "invalid UTF-8", 2}
	// A 10 MB file.
	big := append([]byte(`{"approvalRules": [], "x": "`), bytes.Repeat([]byte("a"), 10<<20)...)
	write(filepath.Join(agent, "sandbox.json"), append(big, `"}`...))
	cases[filepath.Join(agent, "sandbox.json")] = &want{diag.Error, "io", "too large", 0}
	// A directory where a file should be, at a fixed name and under agents/.
	if err := os.MkdirAll(filepath.Join(agent, "lsp.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases[filepath.Join(agent, "lsp.json")] = &want{diag.Error, "io", "is a directory", 0}
	if err := os.MkdirAll(filepath.Join(agent, "agents", "folder.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases[filepath.Join(agent, "agents", "folder.md")] = &want{diag.Error, "io", "is a directory", 0}
	// A dangling symbolic link (an unreadable place even for root).
	symlink(filepath.Join(root, "nowhere", "spawn-agent.json"), filepath.Join(agent, "spawn-agent.json"))
	cases[filepath.Join(agent, "spawn-agent.json")] = &want{diag.Error, "io", "no such file", 0}
	symlink(filepath.Join(root, "nowhere.md"), filepath.Join(agent, "agents", "gone.md"))
	cases[filepath.Join(agent, "agents", "gone.md")] = &want{diag.Error, "io", "no such file", 0}
	// A symbolic link loop under agents/, and a directory loop under skills/.
	symlink("loop.md", filepath.Join(agent, "agents", "loop.md"))
	cases[filepath.Join(agent, "agents", "loop.md")] = &want{diag.Error, "io", "symbolic link loop", 0}
	symlink("..", filepath.Join(agent, "skills", "again", "up"))
	write(filepath.Join(agent, "skills", "real", "SKILL.md"), []byte("---\nname: real\ndescription: A real skill\n---\nBody\n"))
	cases[filepath.Join(agent, "skills", "real", "SKILL.md")] = nil
	// Unreadable permissions: chmod 000 does not stop root, so that sub-case needs a normal user.
	unreadable := filepath.Join(agent, "models.json")
	write(unreadable, []byte(`{"providers": {}}`))
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(unreadable, 0o644) })
	if _, err := os.ReadFile(unreadable); err == nil {
		t.Logf("running as root (or with CAP_DAC_OVERRIDE): chmod 000 does not stop reading; the permission sub-case is skipped (the dangling links cover unreadable places)")
		cases[unreadable] = nil
	} else {
		cases[unreadable] = &want{diag.Error, "io", "permission denied", 0}
	}
	// Empty files: a JSON file counts as {} (one info), a Markdown agent has no frontmatter.
	write(filepath.Join(agent, "proxy.json"), nil)
	cases[filepath.Join(agent, "proxy.json")] = &want{diag.Info, "empty-file", "empty", 0}
	write(filepath.Join(agent, "agents", "empty.md"), nil)
	cases[filepath.Join(agent, "agents", "empty.md")] = &want{diag.Warning, "no-frontmatter", "no YAML frontmatter", 1}
	// A file with a real error, to show that the run went on.
	write(filepath.Join(agent, "trust.json"), []byte("{\n  \"/src/x\": \"yes\"\n}\n"))
	cases[filepath.Join(agent, "trust.json")] = &want{diag.Error, "schema", `expected a boolean or null, got "yes"`, 2}
	// Valid: a BOM, CRLF line ends, tabs.
	write(filepath.Join(pi, "settings.json"), []byte("\uFEFF{\r\n\t\"theme\": \"light\",\r\n\t// comment\r\n\t\"quietStartup\": true,\r\n}\r\n"))
	cases[filepath.Join(pi, "settings.json")] = nil
	write(filepath.Join(pi, "agents", "crlf.md"), []byte("\uFEFF---\r\nname: crlf\r\ndescription: Written on Windows\r\n---\r\nBody\r\n"))
	cases[filepath.Join(pi, "agents", "crlf.md")] = nil
	// A CRLF file with an error on line 3: the column does not count the \r.
	write(filepath.Join(pi, "sandbox.json"), []byte("{\r\n  \"fs\": {},\r\n  \"network\": {\"mode\": \"open\"}\r\n}\r\n"))
	cases[filepath.Join(pi, "sandbox.json")] = &want{diag.Error, "schema", `network.mode: expected one of "block", "limited", "allow-all", got "open"`, 3}

	approve := true
	cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: project, Approve: &approve, Home: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	list := cfg.Check()
	byFile := map[string][]diag.Diagnostic{}
	for _, d := range list {
		byFile[d.File()] = append(byFile[d.File()], d)
	}
	var text strings.Builder
	diag.WriteText(&text, list, diag.Style{})
	t.Logf("check output:\n%s", text.String())
	for file, w := range cases {
		ds := byFile[file]
		delete(byFile, file)
		if w == nil {
			if len(ds) != 0 {
				t.Errorf("%s: want no diagnostic, got %d: %+v", file, len(ds), ds[0].Message)
			}
			continue
		}
		if len(ds) != 1 {
			t.Errorf("%s: want exactly one diagnostic, got %d", file, len(ds))
			continue
		}
		d := ds[0]
		if d.Severity != w.sev || d.Code != w.code || !strings.Contains(d.Message, w.msg) {
			t.Errorf("%s: got %s %s %q, want %s %s containing %q", file, d.Severity, d.Code, d.Message, w.sev, w.code, w.msg)
		}
		if l, _ := d.Pos(); w.line != 0 && l != w.line {
			t.Errorf("%s: diagnostic on line %d, want %d", file, l, w.line)
		}
	}
	for file, ds := range byFile {
		t.Errorf("unexpected diagnostics for %s: %s [%s]", file, ds[0].Message, ds[0].Code)
	}
	// Files that cannot be read or parsed are marked broken and never applied; valid ones are.
	for _, f := range cfg.Files {
		if c, ok := cases[f.Path]; ok && c != nil && (c.code == "io" || c.code == "syntax") && (f.Applied || !f.Broken) {
			t.Errorf("%s cannot be read but is applied %v, broken %v", f.Path, f.Applied, f.Broken)
		}
	}
	if l := cfg.Layer(config.Settings, config.Project); l == nil || !l.Applied {
		t.Errorf("the BOM/CRLF project settings were not applied")
	}
}
