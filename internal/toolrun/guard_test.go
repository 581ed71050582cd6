package toolrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func TestGuardWrite(t *testing.T) {
	root := outsideTmp(t)
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	outside := filepath.Join(root, "o.txt")
	os.WriteFile(outside, []byte("a\nb\n"), 0o644)
	w := Write{Tool: "Write", Path: outside, Old: []byte("a\nb\n"), Exists: true, New: []byte("a\nc\n")}
	ctx := context.Background()

	s := &Session{Cwd: ws, Headless: true}
	if err := s.GuardWrite(ctx, w); err == nil || err.Error() != `Path "`+outside+`" is outside workspace. No UI available for approval.` {
		t.Fatalf("headless: %v", err)
	}
	s = &Session{Cwd: ws, DenyRequests: true, Approver: &fakeApprover{}}
	if err := s.GuardWrite(ctx, w); err == nil || err.Error() != "user deny Write: blocked" {
		t.Fatalf("deny requests: %v", err)
	}
	inside := w
	inside.Path = filepath.Join(ws, "x.txt")
	if err := (&Session{Cwd: ws, Headless: true}).GuardWrite(ctx, inside); err != nil {
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
		f := &fakeApprover{write: c.d}
		s := &Session{Cwd: ws, Approver: f, Abort: func() { aborted = true }}
		err := s.GuardWrite(ctx, w)
		if got := errString(err); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.d, got, c.want)
		}
		wantTitle := "Model requests write access outside workspace:\n\n  Tool:  Write\n  Path:  " + outside + "\n\n" +
			"```diff\n--- o.txt\n+++ o.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\n\nAllow?"
		if f.req == nil || f.req.Title != wantTitle {
			t.Errorf("title:\n%q\nwant\n%q", f.req.Title, wantTitle)
		}
	}
	if !aborted {
		t.Error("a dismissed dialog did not abort the turn")
	}
	// The file changes while the dialog is open: approve once refuses.
	f := &fakeApprover{write: approve.Decision{Choice: approve.Allow}, onAsk: func() { os.WriteFile(outside, []byte("changed"), 0o644) }}
	s = &Session{Cwd: ws, Approver: f}
	if err := s.GuardWrite(ctx, w); errString(err) != TextModified {
		t.Fatalf("changed during dialog: %v", err)
	}
	// A new file outside: a missing file counts as empty.
	nw := Write{Tool: "write", Path: filepath.Join(root, "new.txt"), New: []byte("x")}
	s = &Session{Cwd: ws, Approver: &fakeApprover{write: approve.Decision{Choice: approve.Allow}}}
	if err := s.GuardWrite(ctx, nw); err != nil {
		t.Fatalf("new file: %v", err)
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
