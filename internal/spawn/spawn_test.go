package spawn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeChild writes a script that prints what a child pigo would (JSON event lines) and exits
// with code.
func fakeChild(t *testing.T, lines []string, stderr string, code int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("#!/bin/sh\ncat <<'EOF'\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("EOF\n")
	if stderr != "" {
		b.WriteString("printf '%s' '" + stderr + "' >&2\n")
	}
	b.WriteString("exit " + string(rune('0'+code)) + "\n")
	p := filepath.Join(dir, "pigo")
	if err := os.WriteFile(p, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func end(text, stop string) string {
	return `{"type":"message_end","message":{"role":"assistant","stopReason":"` + stop + `","content":[{"type":"text","text":"` + text + `"}]}}`
}

func TestLastAssistantText(t *testing.T) {
	exe := fakeChild(t, []string{`{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"Task: x"}]}}`, end("first", "toolUse"), end("last", "stop")}, "", 0)
	r := Run(context.Background(), Request{Exe: exe, Cwd: t.TempDir(), Agent: "a", Task: "x"})
	if r.Failed || r.Text != "last" {
		t.Fatalf("%+v", r)
	}
}

func TestTruncatedAt50KB(t *testing.T) {
	big := strings.Repeat("é", MaxOutput) // 100 KB
	exe := fakeChild(t, []string{end(big, "stop")}, "", 0)
	r := Run(context.Background(), Request{Exe: exe, Cwd: t.TempDir(), Agent: "a", Task: "x"})
	head, note, ok := strings.Cut(r.Text, "\n\n[Output truncated")
	if !ok || len(head) != MaxOutput || note != " at 50 KB (102400 bytes in full); the full messages are in the details.]" || len(r.Messages) != 1 {
		t.Fatalf("len %d, note %q, %d messages", len(head), note, len(r.Messages))
	}
}

func TestFailure(t *testing.T) {
	exe := fakeChild(t, []string{end("partial", "error")}, "boom", 1)
	r := Run(context.Background(), Request{Exe: exe, Cwd: t.TempDir(), Agent: "a", Task: "x"})
	if !r.Failed || r.Text != "error: exit status 1\nstderr: boom\noutput: partial" {
		t.Fatalf("%q", r.Text)
	}
	exe = fakeChild(t, nil, "", 3)
	r = Run(context.Background(), Request{Exe: exe, Cwd: t.TempDir(), Agent: "a", Task: "x"})
	if !r.Failed || r.Text != "error: exit status 3\n(no output)" {
		t.Fatalf("%q", r.Text)
	}
}
