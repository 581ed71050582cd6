package chat

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/session"
)

// quietToolsets disables the aft and GitHub tools in the e2e chats' settings, so a machine
// without aft or gh starts them without those toolsets' session-start notices.
const quietToolsets = `"personalExtensions": {"disabledTools": ["aft_*", "*-github-*"]}`

// The toolsets' session-start notices reach the chat as the seed's extensions notify them at
// session_start: gh missing is an error, the aft binary missing a warning naming where it was
// looked for. With the toolsets disabled (quietToolsets) nothing is said.
func TestE2EStartNotices(t *testing.T) {
	if gh, err := exec.LookPath("gh"); err == nil {
		t.Skipf("gh is installed (%s): the missing-gh notice cannot be shown here", gh)
	}
	for _, p := range []string{"/usr/bin/gh", "/usr/local/bin/gh"} {
		if _, err := os.Stat(p); err == nil {
			t.Skipf("gh is installed (%s): the missing-gh notice cannot be shown here", p)
		}
	}
	settings := `{"defaultProvider": "local", "defaultModel": "m", "retry": {"enabled": false}}`
	tm := startTerm(t, 200, 40, termCfg{settings: settings}, textTurn("ok"))
	s := tm.waitFor("(auto)", "error: gh CLI not found in PATH: GitHub read-only tools are disabled.",
		"warning: aft: the aft binary was not found (looked in "+filepath.Join(tm.home, ".cache", "aft", "bin"))
	if strings.Index(s, "error: gh CLI") > strings.Index(s, "warning: aft:") {
		t.Errorf("the notices are not in the toolsets' order (gh, then aft):\n%s", s)
	}
	tm.typeLine("/quit")
	tm.waitFor("EXIT=0")

	quiet := newTerm(t, 200, 40, textTurn("ok"))
	s = quiet.ready()
	if strings.Contains(s, "gh CLI") || strings.Contains(s, "aft:") {
		t.Errorf("disabled toolsets still gave their notices:\n%s", s)
	}
}

// A --session file whose stored working directory is gone (pi 1.6.0's start-up question):
// the chat asks before it starts; fork continues a copy in the current folder (the original
// file unchanged), continue keeps the file, cancel ends with exit 0.
func TestE2EMissingSessionCwd(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old.jsonl")
	const text = `{"type":"session","version":3,"id":"0192d4e5-1b2c-7d3e-8f40-123456789abc","timestamp":"2026-11-01T10:00:00.000Z","cwd":"/nonexistent/gone-project"}
{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-11-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"the earlier question"}],"timestamp":1793527201000}}
{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-11-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"the earlier answer"}],"api":"openai-completions","provider":"local","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1793527202000}}
`
	write(t, old, text)
	tm := startTerm(t, 120, 30, termCfg{args: []string{"--session", old}}, textTurn("the new answer"))
	tm.waitFor("Session cwd does not exist: /nonexistent/gone-project",
		"[c] Continue in "+tm.proj+" (asks again next time)",
		"[f] Fork into "+tm.proj+" (new session ID, original kept)", "[q] Cancel")
	tm.keys("f")
	tm.waitFor("the earlier answer", "(auto)")
	tm.typeLine("next")
	tm.waitFor("the new answer")
	tm.typeLine("/quit")
	tm.waitFor("EXIT=0")
	if b, err := os.ReadFile(old); err != nil || string(b) != text {
		t.Errorf("the original session file changed:\n%s", b)
	}
	forks, _ := filepath.Glob(filepath.Join(tm.home, ".pi", "agent", "sessions", "*", "*.jsonl"))
	if len(forks) != 1 {
		t.Fatalf("forked sessions: %v", forks)
	}
	b, _ := os.ReadFile(forks[0])
	if !strings.Contains(string(b), `"cwd":"`+tm.proj+`"`) || !strings.Contains(string(b), "the earlier question") || !strings.Contains(string(b), "next") {
		t.Errorf("the fork:\n%s", b)
	}

	cancel := tm.again([]string{"--session", old})
	cancel.waitFor("Session cwd does not exist")
	cancel.keys("q")
	cancel.waitFor("EXIT=0")

	cont := cancel.again([]string{"--session", old})
	cont.waitFor("Session cwd does not exist")
	cont.keys("c")
	cont.waitFor("the earlier answer", "(auto)")
	cont.typeLine("/quit")
	cont.waitFor("EXIT=0")
}

// /resume into a session whose stored working directory is gone asks as pi 1.6's chat does:
// cancel (Esc or the Cancel item) keeps the current session, continue resumes the file
// working here (the file unchanged: the next resume asks again), fork continues a copy made
// for this folder with a new id (the original kept).
func TestE2EResumeMissingCwd(t *testing.T) {
	const text = `{"type":"session","version":3,"id":"0192d4e5-1b2c-7d3e-8f40-123456789abc","timestamp":"2026-11-01T10:00:00.000Z","cwd":"/nonexistent/gone-project"}
{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-11-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"the earlier question"}],"timestamp":1793527201000}}
{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-11-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"the earlier answer"}],"api":"openai-completions","provider":"local","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1793527202000}}
`
	tm := startTerm(t, 120, 30, termCfg{args: []string{}}, textTurn("the new answer"))
	dir := session.DefaultDir(filepath.Join(tm.home, ".pi", "agent"), tm.proj)
	old := filepath.Join(dir, "2026-11-01T10-00-00-000Z_0192d4e5-1b2c-7d3e-8f40-123456789abc.jsonl")
	write(t, old, text)
	question := func(tm *term) {
		tm.ready()
		tm.typeLine("/resume")
		tm.waitFor("Resume Session (Current Folder)", "the earlier question")
		tm.keys("Enter")
		tm.waitFor("Session cwd does not exist: /nonexistent/gone-project",
			"Continue in "+tm.proj+" (asks again next time)",
			"Fork into "+tm.proj+" (new session ID, original kept)", "Cancel")
	}

	question(tm)
	tm.keys("Escape")
	tm.waitFor("Resume cancelled")
	question(tm)
	tm.keys("Down", "Down", "Enter")
	s := tm.waitFor("Resume cancelled")
	if strings.Contains(s, "the earlier answer") {
		t.Errorf("cancel resumed the session:\n%s", s)
	}
	question(tm)
	tm.keys("Enter")
	tm.waitFor("Resumed session in "+tm.proj, "the earlier answer")
	tm.typeLine("/quit")
	tm.waitFor("EXIT=0")
	if b, err := os.ReadFile(old); err != nil || string(b) != text {
		t.Errorf("continue changed the session file:\n%s", b)
	}

	fork := tm.again([]string{})
	question(fork)
	fork.keys("Down", "Enter")
	fork.waitFor("Forked into new session ", " in "+tm.proj, "the earlier answer")
	fork.typeLine("next")
	fork.waitFor("the new answer")
	fork.typeLine("/quit")
	fork.waitFor("EXIT=0")
	if b, err := os.ReadFile(old); err != nil || string(b) != text {
		t.Errorf("fork changed the original session file:\n%s", b)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var forks []string
	for _, f := range files {
		if f != old {
			forks = append(forks, f)
		}
	}
	if len(forks) != 1 {
		t.Fatalf("session files besides the original: %v", forks)
	}
	b, _ := os.ReadFile(forks[0])
	if !strings.Contains(string(b), `"cwd":"`+tm.proj+`"`) || strings.Contains(string(b), "0192d4e5-1b2c-7d3e-8f40-123456789abc\",\"timestamp") ||
		!strings.Contains(string(b), "the earlier question") || !strings.Contains(string(b), "next") {
		t.Errorf("the fork:\n%s", b)
	}
}
