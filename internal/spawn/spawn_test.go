package spawn

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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

// The progress log: consecutive tool calls share a line ("read x 2, ls"), a text block ends
// it, long contents fold around " … ", only the last five lines stay, a status line counts
// the thinking characters while the child thinks, and the usage line comes last.
func TestProgress(t *testing.T) {
	p := newProgress()
	if got := p.render(); got != "(running...)" {
		t.Fatalf("empty: %q", got)
	}
	p.toolStart("read")
	p.toolStart("read")
	p.toolStart("ls")
	if got := p.render(); got != "tool: read x 2, ls" {
		t.Fatalf("tool line: %q", got)
	}
	p.textEnd("Looking at\nthe  files now, then more")
	p.toolStart("grep")
	p.thinkingDelta("héllo")
	p.thinkingDelta(" you")
	want := "tool: read x 2, ls\ntext: Looking a … then more\ntool: grep\nthinking: 9 chars"
	if got := p.render(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	p.thinkingEnd()
	for _, n := range []string{"a", "b", "c"} {
		p.textEnd(n)
	}
	m := &message{Model: "m1"}
	m.Usage = &struct {
		TotalTokens int `json:"totalTokens"`
		Cost        struct {
			Total float64 `json:"total"`
		} `json:"cost"`
	}{TotalTokens: 12345}
	m.Usage.Cost.Total = 0.00125
	p.assistantEnd(m)
	p.assistantEnd(&message{Model: "m2"})
	want = "text: Looking a … then more\ntool: grep\ntext: a\ntext: b\ntext: c\n2 turns $0.0013 ctx:12k m1"
	if got := p.render(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := fold(strings.Repeat("界", 21)); got != strings.Repeat("界", 21) {
		t.Fatalf("21 runes folded: %q", got)
	}
	if got := fold("read x 3, grep x 2, ls, find"); got != "read x 3, …  ls, find" {
		t.Fatalf("fold: %q", got)
	}
}

// Run streams the child's progress through Progress: its tool calls, finished text blocks
// and turns as they happen, and nothing after it returns.
func TestRunProgress(t *testing.T) {
	script := "#!/bin/sh\n" +
		"echo '{\"type\":\"tool_execution_start\",\"toolCallId\":\"1\",\"toolName\":\"ls\",\"args\":{}}'\nsleep 0.3\n" +
		"echo '{\"type\":\"message_update\",\"assistantMessageEvent\":{\"type\":\"text_end\",\"contentIndex\":0,\"content\":\"found it\"}}'\nsleep 0.3\n" +
		"echo '" + end("done", "stop") + "'\n"
	exe := filepath.Join(t.TempDir(), "pigo")
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	r := Run(context.Background(), Request{Exe: exe, Cwd: t.TempDir(), Agent: "a", Task: "x", Progress: func(s string) {
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
	}})
	mu.Lock()
	n := len(got)
	mu.Unlock()
	want := []string{"tool: ls", "tool: ls\ntext: found it", "tool: ls\ntext: found it\n1 turn"}
	if r.Failed || r.Text != "done" || !slices.Equal(got, want) {
		t.Fatalf("%+v, updates %q, want %q", r, got, want)
	}
	time.Sleep(2 * ProgressEvery)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Fatalf("updates after Run returned: %q", got[n:])
	}
}

// A burst of changes is one update at once and one with the burst's last state when the
// interval ends.
func TestProgressThrottled(t *testing.T) {
	var mu sync.Mutex
	var got []string
	u := newUpdates(func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() })
	for _, name := range []string{"a", "b", "c"} {
		u.change(func(p *progress) { p.toolStart(name) })
	}
	time.Sleep(3 * ProgressEvery)
	u.stop()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"tool: a", "tool: a, b, c"}; !slices.Equal(got, want) {
		t.Fatalf("updates %q, want %q", got, want)
	}
}
