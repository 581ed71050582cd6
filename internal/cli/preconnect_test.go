package cli

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// preconnectRun runs `pigo ARGS` in this process against models.json's provider "local" at
// baseURL (apiKey "k" unless noKey) and returns the exit code and standard error.
func preconnectRun(t *testing.T, baseURL string, noKey bool, env map[string]string, args ...string) (int, string) {
	t.Helper()
	llm.ResetPreconnect()
	t.Cleanup(llm.ResetPreconnect)
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	cwd := filepath.Join(home, "work")
	for _, d := range []string{agent, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := `"apiKey": "k", `
	if noKey {
		key = ""
	}
	models := `{"providers": {"local": {"baseUrl": "` + baseURL + `", "api": "openai-completions", ` + key + `"models": [{"id": "m"}]}}}`
	if err := os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home, "PI_CODING_AGENT_DIR": agent, "NO_COLOR": "1", "PATH": os.Getenv("PATH"),
		"PIGO_CACHE_DIR": filepath.Join(home, "cache")}
	for k, v := range env {
		vars[k] = v
	}
	var stdout, stderr bytes.Buffer
	c := &CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return vars[k] }}
	code := c.Main(append([]string{"-C", cwd, "--model", "local/m", "--no-tools", "--no-context-files", "--system-prompt", "x"}, args...))
	return code, stderr.String()
}

// A -p run opens its provider's connection ahead of the first request, offline too: offline
// stops automatic network activity, not the request the run makes at once over this
// connection (D25.43). A run whose first prompt is a command does not.
func TestPreconnectPrintRun(t *testing.T) {
	srv := llmtest.New(t)
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want bool
	}{
		{"print", nil, []string{"-p", "hi"}, true},
		{"json", nil, []string{"--mode", "json", "hi"}, true},
		{"--offline", nil, []string{"--offline", "-p", "hi"}, true},
		{"PI_OFFLINE", map[string]string{"PI_OFFLINE": "1"}, []string{"-p", "hi"}, true},
	} {
		srv.Push(llmtest.Turn{Text: "hello"})
		code, stderr := preconnectRun(t, srv.URL+"/v1", false, c.env, c.args...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		if got := llm.PreconnectStarted(); got != c.want {
			t.Errorf("%s: preconnect started %v, want %v", c.name, got, c.want)
		}
	}
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
}

// A run that ends before its first request opens no connection at all.
func TestPreconnectNoRequestNoConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	url := "http://" + ln.Addr().String() + "/v1"
	for _, c := range []struct {
		name  string
		noKey bool
		args  []string
		code  int
		say   string
	}{
		{"no credential", true, []string{"-p", "hi"}, ExitFailed, "No API key"},
		{"bad flag", false, []string{"--thinking", "lots", "-p", "hi"}, ExitUsage, "--thinking"},
		{"no prompt", false, []string{"-p"}, ExitUsage, "no prompt"},
	} {
		code, stderr := preconnectRun(t, url, c.noKey, nil, c.args...)
		if code != c.code || !strings.Contains(stderr, c.say) {
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
		}
		if llm.PreconnectStarted() {
			t.Errorf("%s: a preconnect started", c.name)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Fatalf("%d connections to the provider of runs that made no request", n)
	}
}
