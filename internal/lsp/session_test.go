package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeManager is a manager whose one server ("fake", every .txt file) is this test binary as
// the fake server, logging every message it gets to the returned file.
func fakeManager(t *testing.T, extra string) (*Manager, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	log := filepath.Join(dir, "lsp.log")
	doc := `{"servers": {"fake": {"bin": ` + q(exe) + `, "include": ["**/*.txt"],
	  "env": {"PIGO_LSP_FAKE": "normal", "PIGO_LSP_LOG": ` + q(log) + `, "GORACE": "atexit_sleep_ms=0"}}}` + extra + `}`
	cfg, err := ParseConfig([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	// A file the workspace holds before the session starts (the watch reports it as changed).
	write(t, filepath.Join(ws, "a.txt"), "hello\n")
	m := NewManager(cfg, ws, OSEnv())
	t.Cleanup(m.Close)
	return m, ws, log
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

func write(t *testing.T, p, s string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type logged struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func readLog(t *testing.T, p string) []logged {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []logged
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l logged
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

func count(ls []logged, method string) int {
	n := 0
	for _, l := range ls {
		if l.Method == method {
			n++
		}
	}
	return n
}

// waitLog waits until the fake's log satisfies ok.
func waitLog(t *testing.T, p string, ok func([]logged) bool) []logged {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ls := readLog(t, p)
		if ok(ls) {
			return ls
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake server's log never got there: %+v", ls)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStopStartReload(t *testing.T) {
	m, ws, log := fakeManager(t, `, "watch": {"enabled": false}`)
	ctx := context.Background()
	a := write(t, filepath.Join(ws, "a.txt"), "hello\n")
	if _, err := m.DocumentDiagnostics(ctx, a, []byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	if got := m.Running(); len(got) != 1 || got[0] != "fake" {
		t.Fatalf("running: %v", got)
	}
	r, _ := RunCommand(ctx, m, "lsp-stop", "", nil)
	if r.Text != "LSP disabled: all servers stopped" || len(m.Running()) != 0 || !m.Disabled() {
		t.Fatalf("stop: %+v running %v", r, m.Running())
	}
	if ds, _ := m.DocumentDiagnostics(ctx, a, []byte("hello\n")); ds != nil || len(m.Running()) != 0 {
		t.Fatalf("a server started while LSP is stopped: %v", m.Running())
	}
	r, _ = RunCommand(ctx, m, "lsp-start", "", nil)
	if r.Text != "LSP enabled: servers will start on the next tool call" || len(m.Running()) != 0 {
		t.Fatalf("start: %+v", r)
	}
	m.DocumentDiagnostics(ctx, a, []byte("hello\n"))
	if len(m.Running()) != 1 {
		t.Fatalf("not restarted on the next call: %v", m.Running())
	}
	inits := count(readLog(t, log), "initialize")
	// lsp.json read again: the running server restarts at once.
	r, _ = RunCommand(ctx, m, "lsp-reload", "", func() (*Config, error) { return m.Config(), nil })
	if r.Text != "LSP reloaded: fake restarted" {
		t.Fatalf("reload: %+v", r)
	}
	waitLog(t, log, func(ls []logged) bool { return count(ls, "initialize") == inits+1 })
	r, _ = RunCommand(ctx, m, "lsp-reload", "fake", nil)
	if r.Text != `LSP server "fake" reloaded` {
		t.Fatalf("reload id: %+v", r)
	}
	r, _ = RunCommand(ctx, m, "lsp-reload", "nope", nil)
	if r.Level != "warning" || !strings.Contains(r.Text, `"nope" is not configured`) {
		t.Fatalf("reload unknown: %+v", r)
	}
	m.Stop()
	r, _ = RunCommand(ctx, m, "lsp-reload", "", nil)
	if r.Text != "LSP reloaded: servers will restart on the next tool call" {
		t.Fatalf("reload while stopped: %+v", r)
	}
	for _, c := range []string{"lsp-stop", "lsp-start", "lsp-reload"} {
		r, ok := RunCommand(ctx, nil, c, "", nil)
		if !ok || r.Level != "warning" || !strings.HasPrefix(r.Text, "LSP not configured: nothing to ") {
			t.Errorf("%s without LSP: %+v", c, r)
		}
	}
}

// TestMaxOpenDocuments: past lsp.json's maxOpenDocuments the least recently used document is
// closed.
func TestMaxOpenDocuments(t *testing.T) {
	m, ws, log := fakeManager(t, `, "maxOpenDocuments": 2, "watch": {"enabled": false}`)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		p := write(t, filepath.Join(ws, n+".txt"), n+"\n")
		m.DocumentDiagnostics(ctx, p, []byte(n+"\n"))
	}
	ls := waitLog(t, log, func(ls []logged) bool { return count(ls, "textDocument/didClose") == 1 })
	for _, l := range ls {
		if l.Method == "textDocument/didClose" && !strings.Contains(string(l.Params), "a.txt") {
			t.Fatalf("closed %s, want a.txt (least recently used)", l.Params)
		}
	}
	if n := count(ls, "textDocument/didOpen"); n != 3 {
		t.Fatalf("%d didOpen", n)
	}
}

// TestWatchNotifiesServers: a change nobody announced reaches the running server as one
// workspace/didChangeWatchedFiles batch; ignored folders do not; a batch over maxBatch is cut
// with one notice.
func TestWatchNotifiesServers(t *testing.T) {
	m, ws, log := fakeManager(t, `, "watch": {"debounceMs": 50, "maxBatch": 3, "ignore": ["gen/**"]}`)
	var mu sync.Mutex
	var notices []string
	m.Notify = func(level, text string) { mu.Lock(); notices = append(notices, level+": "+text); mu.Unlock() }
	ctx := context.Background()
	a := filepath.Join(ws, "a.txt")
	m.DocumentDiagnostics(ctx, a, []byte("hello\n"))
	write(t, filepath.Join(ws, "node_modules", "x.txt"), "ignored\n")
	write(t, filepath.Join(ws, "gen", "y.txt"), "ignored\n")
	write(t, filepath.Join(ws, "sub", "b.txt"), "new\n")
	write(t, a, "changed\n")
	ls := waitLog(t, log, func(ls []logged) bool { return count(ls, "workspace/didChangeWatchedFiles") >= 1 })
	var all []string
	for _, l := range ls {
		if l.Method != "workspace/didChangeWatchedFiles" {
			continue
		}
		var p struct {
			Changes []struct {
				URI  string `json:"uri"`
				Type int    `json:"type"`
			} `json:"changes"`
		}
		json.Unmarshal(l.Params, &p)
		for _, c := range p.Changes {
			all = append(all, filepath.Base(c.URI)+"="+string(rune('0'+c.Type)))
		}
	}
	got := strings.Join(all, " ")
	if !strings.Contains(got, "b.txt=1") || !strings.Contains(got, "a.txt=2") || strings.Contains(got, "x.txt") || strings.Contains(got, "y.txt") {
		t.Fatalf("changes: %s", got)
	}
	os.Remove(filepath.Join(ws, "sub", "b.txt"))
	waitLog(t, log, func(ls []logged) bool {
		for _, l := range ls {
			if l.Method == "workspace/didChangeWatchedFiles" && strings.Contains(string(l.Params), `{"type":3,"uri":"file://`+filepath.Join(ws, "sub", "b.txt")+`"}`) {
				return true
			}
		}
		return false
	})
	for i := 0; i < 6; i++ {
		write(t, filepath.Join(ws, "many", string(rune('a'+i))+".txt"), "x\n")
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(notices)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 || !strings.Contains(notices[0], "watch.maxBatch") {
		t.Fatalf("notices: %v", notices)
	}
}
