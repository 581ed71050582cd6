package toolrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/approve"
)

type fakeApprover struct {
	write approve.Decision
	req   *approve.Request
	onAsk func()
}

func (f *fakeApprover) Ask(_ context.Context, r approve.Request) (approve.Decision, error) {
	f.req = &r
	if f.onAsk != nil {
		f.onAsk()
	}
	return f.write, nil
}

// outsideTmp is a temp dir that is not under /tmp (writes under /tmp never ask).
func outsideTmp(t *testing.T) string {
	for _, base := range []string{"/var/tmp", os.Getenv("HOME")} {
		if base == "" {
			continue
		}
		if d, err := os.MkdirTemp(base, "pigo-guard-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			d, _ = filepath.EvalSymlinks(d)
			return d
		}
	}
	t.Skip("no temp dir outside /tmp")
	return ""
}

func TestInsideOnRealpaths(t *testing.T) {
	root := outsideTmp(t)
	ws := filepath.Join(root, "ws")
	out := filepath.Join(root, "outside")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(out, 0o755)
	os.Symlink(out, filepath.Join(ws, "escape"))
	os.Symlink(filepath.Join(ws, "inner"), filepath.Join(root, "wslink"))
	os.MkdirAll(filepath.Join(ws, "inner"), 0o755)
	s := &Session{Cwd: ws}
	cases := map[string]bool{
		filepath.Join(ws, "a.txt"):                  true,
		filepath.Join(ws, "new", "dir", "a.txt"):    true,
		filepath.Join(ws, "escape", "a.txt"):        false, // the deliberate tightening
		filepath.Join(ws, "escape", "new", "a.txt"): false,
		filepath.Join(root, "wslink", "a.txt"):      true, // a link from outside into the workspace
		filepath.Join(out, "a.txt"):                 false,
		filepath.Join(ws, "..", "outside", "a.txt"): false,
		"/tmp/pigo-guard-test/a.txt":                true,
		filepath.Join(root, "ws-sibling", "a.txt"):  false,
	}
	for p, want := range cases {
		if got := s.Inside(p); got != want {
			t.Errorf("Inside(%s) = %v, want %v", p, got, want)
		}
	}
}

// write is one WriteFile of content to path by tool Write (strict check off).
func write(s *Session, path, content string) error {
	_, err := s.WriteFile(context.Background(), FileWrite{Tool: "Write", Path: path,
		Update: func([]byte, bool) ([]byte, error) { return []byte(content), nil }})
	return err
}

func TestGuardWrite(t *testing.T) {
	root := outsideTmp(t)
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	outside := filepath.Join(root, "o.txt")
	reset := func() { os.WriteFile(outside, []byte("a\nb\n"), 0o644) }
	reset()

	s := &Session{Cwd: ws, Headless: true}
	if err := write(s, outside, "a\nc\n"); err == nil || err.Error() != `Path "`+outside+`" is outside workspace. No UI available for approval.` {
		t.Fatalf("headless: %v", err)
	}
	var r *Refusal
	if err := write(s, outside, "x"); !errors.As(err, &r) || r.Kind != RefusedHeadless {
		t.Fatalf("not a typed refusal: %#v", err)
	}
	s = &Session{Cwd: ws, DenyRequests: true, Approver: &fakeApprover{}}
	if err := write(s, outside, "a\nc\n"); err == nil || err.Error() != "user deny Write: blocked" {
		t.Fatalf("deny requests: %v", err)
	}
	if err := write(&Session{Cwd: ws, Headless: true}, filepath.Join(ws, "x.txt"), "x"); err != nil {
		t.Fatalf("inside: %v", err)
	}

	aborted := false
	for _, c := range []struct {
		d    approve.Decision
		want string
	}{
		{approve.Decision{Choice: approve.Allow}, ""},
		{approve.Decision{Choice: approve.AllowSession}, ""},
		{approve.Decision{Choice: approve.Deny}, "user deny Write: blocked"},
		{approve.Decision{Choice: approve.DenyReason, Reason: "not there"}, "user deny Write: not there"},
		{approve.Decision{Choice: approve.DenyReason}, "user deny Write: blocked"},
		{approve.Decision{Choice: approve.Dismissed}, "user deny Write: cancelled"},
	} {
		reset()
		f := &fakeApprover{write: c.d}
		s := &Session{Cwd: ws, Approver: f, Abort: func() { aborted = true }}
		err := write(s, outside, "a\nc\n")
		if got := errString(err); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.d, got, c.want)
		}
		wantTitle := "Model requests write access outside workspace:\n\n  Tool:  Write\n  Path:  " + outside + "\n\n" +
			"```diff\n--- o.txt\n+++ o.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\n\nAllow?"
		if f.req == nil || f.req.Title != wantTitle {
			t.Errorf("title:\n%q\nwant\n%q", f.req.Title, wantTitle)
		}
		b, _ := os.ReadFile(outside)
		if want := map[bool]string{true: "a\nc\n", false: "a\nb\n"}[c.want == ""]; string(b) != want {
			t.Errorf("%+v: file holds %q", c.d, b)
		}
	}
	if !aborted {
		t.Error("a dismissed dialog did not abort the turn")
	}
	// The file changes while the dialog is open: approve once refuses.
	reset()
	f := &fakeApprover{write: approve.Decision{Choice: approve.Allow}, onAsk: func() { os.WriteFile(outside, []byte("changed"), 0o644) }}
	s = &Session{Cwd: ws, Approver: f}
	if err := write(s, outside, "x"); errString(err) != TextModified {
		t.Fatalf("changed during dialog: %v", err)
	}
	// A new file outside: a missing file counts as empty.
	s = &Session{Cwd: ws, Approver: &fakeApprover{write: approve.Decision{Choice: approve.Allow}}}
	if err := write(s, filepath.Join(root, "new.txt"), "x"); err != nil {
		t.Fatalf("new file: %v", err)
	}
}

// TestGuardDanglingLink is issue 20's critical finding: a link inside the workspace whose
// target does not exist yet (made by an earlier bash call or shipped in a cloned repository)
// is judged by where it leads, and the dialog names the real target.
func TestGuardDanglingLink(t *testing.T) {
	root := outsideTmp(t)
	ws, ad := filepath.Join(root, "ws"), filepath.Join(root, "agent")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(ad, 0o755)
	link := filepath.Join(ws, "notes.md")
	os.Symlink("../agent/sandbox.json", link)
	s := &Session{Cwd: ws, AgentDir: ad, Headless: true}
	err := write(s, link, `{"fs":{"mode":"allow-all"}}`)
	if want := `Path "` + link + `" is outside workspace. No UI available for approval.`; errString(err) != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if _, err := os.Lstat(filepath.Join(ad, "sandbox.json")); err == nil {
		t.Fatal("the link was followed")
	}
	f := &fakeApprover{write: approve.Decision{Choice: approve.Deny}}
	s = &Session{Cwd: ws, AgentDir: ad, Approver: f}
	write(s, link, "x")
	if f.req == nil || f.req.Path != filepath.Join(ad, "sandbox.json") || f.req.Asked != link ||
		!strings.Contains(f.req.Title, "  Path:  "+link+"\n  Target: "+filepath.Join(ad, "sandbox.json")+" (where a symbolic link leads)\n") {
		t.Fatalf("dialog: %+v", f.req)
	}

	// The safe twin: a link that stays inside is written through, without asking.
	os.Symlink("docs/new.md", filepath.Join(ws, "inner.md"))
	s = &Session{Cwd: ws, AgentDir: ad, Headless: true}
	if err := write(s, filepath.Join(ws, "inner.md"), "ok"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "docs", "new.md")); string(b) != "ok" {
		t.Fatalf("target holds %q", b)
	}
}

// TestGuardProtected: the workspace's .pi, .agent and .git and the agent dir are on the one
// protected list; a file tool asks before writing them (headless refuses), even inside the
// workspace.
func TestGuardProtected(t *testing.T) {
	root := outsideTmp(t)
	ws, ad := filepath.Join(root, "ws"), filepath.Join(root, "agent")
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(ws, "sub", ".git"), 0o755)
	os.MkdirAll(ad, 0o755)
	s := &Session{Cwd: ws, AgentDir: ad, Headless: true}
	for _, p := range []string{".git/config", ".git/hooks/pre-commit", ".pi/sandbox.json", ".agent/x.md", "sub/.git/config", "ag/sandbox.json"} {
		full := filepath.Join(ws, p)
		if strings.HasPrefix(p, "ag/") {
			full = filepath.Join(ad, strings.TrimPrefix(p, "ag/"))
		}
		err := write(s, full, "x")
		var r *Refusal
		if !errors.As(err, &r) || !strings.Contains(r.Text, "No UI available for approval.") {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := os.Lstat(full); err == nil {
			t.Errorf("%s: written", p)
		}
	}
	f := &fakeApprover{write: approve.Decision{Choice: approve.Allow}}
	s = &Session{Cwd: ws, AgentDir: ad, Approver: f}
	if err := write(s, filepath.Join(ws, ".git", "config"), "[core]\n"); err != nil {
		t.Fatal(err)
	}
	if f.req == nil || !strings.HasPrefix(f.req.Title, "Model requests write access to a protected path:") || f.req.Protected == "" {
		t.Fatalf("dialog: %+v", f.req)
	}
	// The safe twin: .gitignore and a file named like .pi elsewhere are ordinary.
	s = &Session{Cwd: ws, AgentDir: ad, Headless: true}
	for _, p := range []string{".gitignore", "docs/.pi.md", "sub/x.go"} {
		if err := write(s, filepath.Join(ws, p), "x"); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestPreview(t *testing.T) {
	old := strings.Repeat("line\n", 300)
	new := strings.ReplaceAll(old, "line", "LINE")
	p := Preview("f.txt", []byte(old), []byte(new))
	lines := strings.Split(p, "\n")
	if lines[0] != "```diff" || lines[len(lines)-1] != "```" || lines[len(lines)-2] != "… (preview truncated to 100 lines)" || len(lines) != 103 {
		t.Fatalf("preview: %d lines, head %q tail %q", len(lines), lines[:2], lines[len(lines)-2:])
	}
	p = Preview("f.md", []byte("a\r\n"), []byte("```go\n`````\n"))
	if !strings.HasPrefix(p, "``````diff\n") || !strings.HasSuffix(p, "\n``````") || strings.Contains(p, "\r") {
		t.Fatalf("fence: %q", p)
	}
}

// TestPrepareAllSameFile: two writes of one batch that resolve to one file (a link and its
// target) are refused instead of waiting forever on their own lock.
func TestPrepareAllSameFile(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.go"), []byte("x"), 0o644)
	os.Symlink("a.go", filepath.Join(ws, "b.go"))
	s := &Session{Cwd: ws, Headless: true}
	up := func([]byte, bool) ([]byte, error) { return []byte("y"), nil }
	done := make(chan error, 1)
	go func() {
		_, err := s.PrepareAll(context.Background(), []FileWrite{
			{Tool: "lsp-rename", Path: filepath.Join(ws, "a.go"), Update: up},
			{Tool: "lsp-rename", Path: filepath.Join(ws, "b.go"), Update: up}})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "are the same file") {
			t.Fatalf("got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("deadlocked")
	}
}
