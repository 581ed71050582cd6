package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// bashEnv is a file-toolset session whose Bash runs in bwrap when it works
// here, else unsandboxed (the texts are the same; the sandbox has its own
// tests).
func bashEnv(t *testing.T, fileIO string) *ftEnv {
	t.Helper()
	e := newFileEnv(t, fileIO)
	// A HOME of its own keeps the machine's login profile (pyenv, …) out of
	// the output of `bash -lc`.
	home := t.TempDir()
	e.s.Environ = sandbox.Environ{Home: home, Path: os.Getenv("PATH"), UID: os.Getuid(), GID: os.Getgid()}
	if _, err := exec.LookPath("bwrap"); err != nil || exec.Command("bwrap", "--ro-bind", "/", "/", "true").Run() != nil {
		p := sandbox.DefaultPolicy()
		p.FSMode, p.NetMode = sandbox.FSAllowAll, sandbox.NetAllowAll
		e.s.Sandbox = p
	}
	return e
}

func TestClaudeBash(t *testing.T) {
	e := bashEnv(t, "claude-code")
	r := e.ok("Bash", map[string]any{"command": "echo hi"}, "hi\n")
	if string(r.Structured) != `{"exitCode":0,"output":"hi\n"}` {
		t.Errorf("structured %s", r.Structured)
	}
	e.ok("Bash", map[string]any{"command": "true"}, "(no output)")
	r = e.call("Bash", map[string]any{"command": "echo oops; exit 3"})
	if !r.IsError || r.Text() != "Exit code 3\noops\n" || string(r.Structured) != `{"exitCode":3,"output":"oops\n"}` {
		t.Errorf("exit: %q %v %s", r.Text(), r.IsError, r.Structured)
	}
	e.fail("Bash", map[string]any{"command": "exit 1"}, "Exit code 1")
	e.fail("Bash", map[string]any{"command": "sleep 5", "timeout": 200}, "Command timed out after 200 milliseconds")
	e.fail("Bash", map[string]any{"command": "true", "timeout": 600001}, "timeout must be between 1 and 600000 milliseconds")
	e.fail("Bash", map[string]any{"command": "true", "timeout": 0}, "timeout must be between 1 and 600000 milliseconds")
	e.fail("Bash", map[string]any{"command": "true", "workdir": "nope"}, "Working directory does not exist: "+filepath.Join(e.dir, "nope"))
	e.write("sub/f", "")
	e.ok("Bash", map[string]any{"command": "ls", "workdir": "sub"}, "f\n")
	e.fail("Bash", map[string]any{"command": "true", "dangerouslyDisableSandbox": true}, "User denied unsandboxed execution.")

	// Past 10 000 characters the error keeps the first and last 5000.
	r = e.call("Bash", map[string]any{"command": "printf 'a%.0s' $(seq 12000); exit 2"})
	want := "Exit code 2\n" + strings.Repeat("a", 4988) + "\n\n... [2012 characters truncated] ...\n\n" + strings.Repeat("a", 5000)
	if r.Text() != want {
		t.Errorf("long error: len %d, head %q", len(r.Text()), r.Text()[:40])
	}

	// More than 2000 lines: the tail, the note and the spill file with all of it.
	r = e.call("Bash", map[string]any{"command": "seq 3000"})
	text := r.Text()
	var d struct {
		FullOutputPath string `json:"fullOutputPath"`
	}
	json.Unmarshal(r.Details, &d)
	if d.FullOutputPath == "" || !strings.HasSuffix(text, "\n\n[Showing lines 1001-3000 of 3000. Full output: "+d.FullOutputPath+"]") || !strings.HasPrefix(text, "1001\n") {
		t.Errorf("truncated: %q … %q (details %s)", text[:20], text[len(text)-80:], r.Details)
	}
	full, _ := os.ReadFile(d.FullOutputPath)
	var st toolkit.BashStructured
	json.Unmarshal(r.Structured, &st)
	if len(full) != len(st.Output) || !strings.HasPrefix(st.Output, "1\n2\n") {
		t.Errorf("structured output is not the full output (%d vs %d bytes)", len(st.Output), len(full))
	}
}

func TestOpencodeBash(t *testing.T) {
	e := bashEnv(t, "opencode")
	r := e.call("bash", map[string]any{"command": "echo out; exit 4"})
	if r.IsError || len(r.Content) != 2 || r.Content[0].Text != "out\n" || r.Content[1].Text != "Command exited with code 4." {
		t.Errorf("exit: %+v", r.Content)
	}
	if !strings.HasPrefix(string(r.Details), `{"exitCode":4,"truncated":false`) || string(r.Structured) != `{"exitCode":4,"output":"out\n"}` {
		t.Errorf("details %s structured %s", r.Details, r.Structured)
	}
	r = e.call("bash", map[string]any{"command": "true"})
	if r.Content[0].Text != "(no output)" || r.Content[1].Text != "Command exited with code 0." {
		t.Errorf("no output: %+v", r.Content)
	}
	r = e.call("bash", map[string]any{"command": "sleep 5", "timeout": 150})
	if r.IsError || len(r.Content) != 2 || r.Content[0].Text != "Command exceeded timeout of 150 ms. Retry with a larger timeout if the command is expected to take longer." ||
		r.Content[1].Text != "Command timed out before completion." || string(r.Details) != `{"timeout":true}` || string(r.Structured) != `{"exitCode":null,"output":""}` {
		t.Errorf("timeout: %+v %s %s", r.Content, r.Details, r.Structured)
	}
	r = e.call("bash", map[string]any{"command": "seq 2500"})
	var d struct {
		FullOutputPath string `json:"fullOutputPath"`
	}
	json.Unmarshal(r.Details, &d)
	if !strings.HasSuffix(r.Content[0].Text, "\n\n[output capture truncated at the in-memory safety limit]\nFull output: "+d.FullOutputPath) || d.FullOutputPath == "" {
		t.Errorf("truncated: %q", r.Content[0].Text[len(r.Content[0].Text)-120:])
	}
	e.fail("bash", map[string]any{"command": "true", "timeout": -1}, "timeout must be between 1 and 600000 milliseconds")
}
