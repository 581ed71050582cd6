package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// fakeConn is a connection to this test binary running as a fake server in mode, inside the
// default sandbox when sandboxed.
func fakeConn(t testing.TB, mode string, sandboxed bool, timeout float64, onTools func(*Conn)) (*Conn, *Options) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if sandboxed {
		if _, err := sandbox.FindBwrap("", sandbox.HostEnviron()); err != nil {
			t.Skipf("bwrap is not installed: %v", err)
		}
	}
	dir := t.TempDir()
	s := &mcp.Server{Name: "fake", Transport: mcp.Stdio, Command: exe, Env: map[string]string{"PIGO_FAKE_MCP": mode},
		Timeout: timeout, Enabled: true, Sandbox: mcp.Sandbox{Off: !sandboxed}}
	o := &Options{Cwd: dir, Home: os.Getenv("HOME"), ClientName: "pigo", ClientVersion: "test", Sandbox: sandbox.DefaultPolicy(),
		Environ: sandbox.HostEnviron(), Log: NewLog(filepath.Join(dir, "mcp.log"))}
	c := NewConn(s, o, onTools, nil)
	t.Cleanup(c.Close)
	return c, o
}

func TestStdioServerInSandbox(t *testing.T) {
	var lists atomic.Int32
	c, _ := fakeConn(t, "ok", true, 10, func(*Conn) { lists.Add(1) })
	ctx := context.Background()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(); st != StateConnected || len(c.Tools()) != 2 || c.Instructions() != "Fake server.\nSecond line." {
		t.Fatalf("state %s, tools %v, instructions %q", st, c.Tools(), c.Instructions())
	}
	raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"hi"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := ConvertResult("fake", "echo", raw, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.Content) != 2 || conv.Content[0].Text != `echo: {"text":"hi"}` || conv.Content[1].Text != "[unsupported MCP content hologram]" {
		t.Errorf("content: %+v", conv.Content)
	}
	if strings.Contains(string(conv.Structured), "_meta") || !strings.Contains(string(conv.Structured), `"hologram"`) {
		t.Errorf("scripts get the result as sent, without _meta: %s", conv.Structured)
	}
	// A tool-list change: the new list is read and announced.
	if _, err := c.CallTool(ctx, "add", nil, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(c.Tools()) != 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(c.Tools()) != 3 || lists.Load() < 2 {
		t.Errorf("after list_changed: %d tools, %d announcements", len(c.Tools()), lists.Load())
	}
}

func TestNeverAnswersInitialize(t *testing.T) {
	c, _ := fakeConn(t, "silent", false, 0.3, nil)
	err := c.Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), `MCP server "fake" failed to connect: MCP request timed out after 300ms`) {
		t.Fatalf("error: %v", err)
	}
	if st, msg := c.State(); st != StateFailed || !strings.Contains(msg, "timed out") {
		t.Errorf("state %s %q", st, msg)
	}
}

func TestCrashMidCall(t *testing.T) {
	c, _ := fakeConn(t, "crash", false, 10, nil)
	ctx := context.Background()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := c.CallTool(ctx, "echo", nil, nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("error: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	st, msg := c.State()
	for st != StateDisconnected && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		st, msg = c.State()
	}
	if st != StateDisconnected || !strings.Contains(msg, "fatal: the fake server crashed") {
		t.Errorf("state %s %q: the stderr tail says what happened", st, msg)
	}
	// The next call starts the server again.
	if err := c.Open(ctx); err != nil {
		t.Fatalf("reconnect: %v", err)
	}
}

func TestStderrFloodIsBounded(t *testing.T) {
	c, _ := fakeConn(t, "flood", false, 30, nil)
	ctx := context.Background()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	st := c.cl.t.(*stdioTransport)
	c.mu.Unlock()
	if n := len(st.stderrTail()); n > maxStderrBytes {
		t.Errorf("stderr tail of %d bytes", n)
	}
}

func TestHugeResultFailsItsCall(t *testing.T) {
	c, _ := fakeConn(t, "huge", false, 60, nil)
	ctx := context.Background()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := c.CallTool(ctx, "echo", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "MCP stdio message exceeds 16777216 bytes") {
		t.Fatalf("error: %v", err)
	}
	if time.Since(start) > 50*time.Second {
		t.Error("the call waited for its timeout instead of failing on the oversize answer")
	}
	// The connection stays usable.
	if st, _ := c.State(); st != StateConnected {
		t.Errorf("state %s", st)
	}
}

func TestManyToolsAreCapped(t *testing.T) {
	m := NewManager(nil, &Options{}, mcp.Cache{}, nil)
	c, _ := fakeConn(t, "many", false, 30, nil)
	m.conns = []*Conn{c}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(c.Tools()) != MaxTools || c.Dropped() != 10000-MaxTools {
		t.Errorf("%d tools kept, %d dropped", len(c.Tools()), c.Dropped())
	}
	if p := strings.Join(m.Problems(), "\n"); !strings.Contains(p, "announced 8000 tools more than pigo takes from one server (2000)") {
		t.Errorf("problems: %q", p)
	}
}

func TestProgressResetsTheTimeout(t *testing.T) {
	c, _ := fakeConn(t, "progress", false, 0.5, nil)
	ctx := context.Background()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var got []Progress
	raw, err := c.CallTool(ctx, "echo", nil, func(p Progress) { got = append(got, p) })
	if err != nil {
		t.Fatalf("a 1.5 s call with progress every 200 ms outlives a 0.5 s timeout: %v", err)
	}
	if len(got) != 7 || *got[6].Total != 7 || !strings.Contains(string(raw), "finished") {
		t.Errorf("progress %+v, result %s", got, raw)
	}
}

func TestLogNotifications(t *testing.T) {
	c, o := fakeConn(t, "log", false, 10, nil)
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(o.Log.path)
	if err != nil {
		t.Fatal(err)
	}
	line := string(b)
	if !strings.HasSuffix(line, " [fake] warning fake: line one\n    line two\n") || !strings.HasPrefix(line, "20") {
		t.Errorf("mcp.log: %q", line)
	}
}

func TestStopEndsTheProcessGroup(t *testing.T) {
	c, _ := fakeConn(t, "ok", true, 10, nil)
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	pid := c.cl.t.(*stdioTransport).proc.Pid()
	c.mu.Unlock()
	c.Close()
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server's process group is still alive after Close: %v", err)
	}
}

func TestResultTruncation(t *testing.T) {
	saved := ""
	save := func(b []byte, ext string) (string, error) {
		saved = string(b)
		return "/tmp/pigo-mcp-0123456789abcdef" + ext, nil
	}
	text := strings.Repeat("é", 6000) + "\n" + strings.Repeat("b", 20000) + "\n"
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text},
		map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/png"}}})
	conv, err := ConvertResult("s", "t", raw, false, save)
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.Content) != 2 || conv.Content[1].Type != llm.TypeImage || saved != text {
		t.Fatalf("content %d blocks, saved %d bytes", len(conv.Content), len(saved))
	}
	got := conv.Content[0].Text
	if !strings.HasPrefix(got, "Warning: truncated output (original token count: 8001)\nTotal output lines: 2\n\n") ||
		!strings.Contains(got, "…") || !strings.HasSuffix(got, "\n\n[Full output: /tmp/pigo-mcp-0123456789abcdef.txt (read it with offset/limit)]") {
		t.Errorf("truncated text: %q...%q", got[:120], got[len(got)-120:])
	}
	if !strings.Contains(string(conv.Details), `"fullOutputPath":"/tmp/pigo-mcp-0123456789abcdef.txt"`) {
		t.Errorf("details: %s", conv.Details)
	}
	// Error results without text get pi's sentence; structured-only results their JSON.
	conv, _ = ConvertResult("s", "t", json.RawMessage(`{"content":[],"isError":true}`), false, save)
	if !conv.IsError || conv.Content[0].Text != "MCP tool s/t returned an error" {
		t.Errorf("error result: %+v", conv)
	}
	conv, _ = ConvertResult("s", "t", json.RawMessage(`{"structuredContent":{"a":1.0,"b":"\u00e9"}}`), false, save)
	if conv.Content[0].Text != "{\n  \"a\": 1,\n  \"b\": \"é\"\n}" || string(conv.Structured) != `{"content":[],"structuredContent":{"a":1.0,"b":"\u00e9"}}` {
		t.Errorf("structured only: %q %s", conv.Content[0].Text, conv.Structured)
	}
}

func TestResourceLinksAndBlobs(t *testing.T) {
	var savedExt string
	save := func(b []byte, ext string) (string, error) { savedExt = ext; return "/tmp/x" + ext, nil }
	blocks := []json.RawMessage{
		json.RawMessage(`{"type":"resource_link","uri":"file:///a.txt","name":"a","mimeType":"text/plain","size":2048,"description":"A file"}`),
		json.RawMessage(`{"type":"resource","resource":{"uri":"file:///b.bin","mimeType":"application/octet-stream","blob":"AAEC"}}`),
		json.RawMessage(`{"type":"resource","resource":{"uri":"file:///c.json","mimeType":"application/json","blob":"eyJhIjoxfQ=="}}`),
		json.RawMessage(`{"type":"audio","mimeType":"audio/wav","data":"x"}`),
	}
	got := ModelContent("srv", blocks, true, save)
	want := []string{
		`[Resource file:///a.txt "a" (text/plain, 2.0KB): A file. Read it with read_mcp_resource (server "srv")]`,
		`[Binary resource file:///b.bin (application/octet-stream, 3B) saved to /tmp/x.bin]`,
		`{"a":1}`,
		`[audio audio/wav omitted]`,
	}
	for i, w := range want {
		if got[i].Text != w {
			t.Errorf("block %d: %q, want %q", i, got[i].Text, w)
		}
	}
	if savedExt != ".bin" {
		t.Errorf("extension %q", savedExt)
	}
}
