package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/web/extract"
	"github.com/pigo-agent/pigo/internal/web/extractwire"
)

// heavyPage is 5 MiB of unclosed paragraphs: seconds of CPU and ~800 MB for the extractor.
func heavyPage() string {
	head := "<html><head><title>t</title></head><body>"
	return head + strings.Repeat("<p>x", (MaxBytes-len(head))/4)
}

// TestExtractWithoutHelper: no pigo-engines anywhere is engines.ErrNotFound, through Fetch.
func TestExtractWithoutHelper(t *testing.T) {
	srv, ap := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, article)
	})
	t.Setenv(engines.EnvPath, "")
	t.Setenv("PATH", t.TempDir())
	_, err := New(Options{Allow: []netip.AddrPort{ap}}).Fetch(context.Background(), srv.URL+"/")
	if !errors.Is(err, engines.ErrNotFound) || !strings.HasPrefix(err.Error(), engines.ErrNotFound.Error()) {
		t.Fatalf("got %v", err)
	}
}

// fakeHelper makes $PIGO_ENGINES a shell script.
func fakeHelper(t *testing.T, script string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), engines.Name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(engines.EnvPath, p)
}

// TestExtractHelperFailures: a helper that dies, fails, answers garbage or too much, hangs or
// leaves a child holding its pipes is a clear error for the one call, in bounded time.
func TestExtractHelperFailures(t *testing.T) {
	what := engines.Name + " " + extractwire.Engine
	cases := []struct {
		name, script string
		timeout      time.Duration
		want         string
	}{
		{"killed", "head -c 1000 >/dev/null; kill -9 $$", 0,
			"page extraction was stopped: " + what + " was killed (it may use 10s of CPU)"},
		{"fails", "echo 'boom: it broke' >&2; echo second line >&2; exit 3", 0,
			"page extraction failed: " + what + ": exit status 3: boom: it broke"},
		{"out of memory", "echo 'fatal error: runtime: out of memory' >&2; exit 2", 0,
			"page extraction was stopped: " + what + " ran out of its memory (it may use 1024 MiB)"},
		{"garbage", "echo not json", 0,
			"page extraction failed: " + what + " answered no JSON: invalid character 'o' in literal null (expecting 'u')"},
		{"endless", "exec yes '{\"title\":\"x\"}'", 0,
			"page extraction failed: the answer of " + what + " is over 20971520 bytes"},
		{"hangs", "exec sleep 30", 300 * time.Millisecond, "The operation was aborted due to timeout"},
		{"child holds the pipe", "sleep 8 & exec sleep 30", 300 * time.Millisecond, "The operation was aborted due to timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fakeHelper(t, c.script)
			ctx := context.Background()
			if c.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.timeout)
				defer cancel()
			}
			start := time.Now()
			p, err := ExtractMarkdown(ctx, article, "https://example.com/p")
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %+v, %v\nwant %s", p, err, c.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	// Cancelled (the turn's abort) rather than timed out: the seed's other text.
	fakeHelper(t, "exec sleep 30")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if _, err := ExtractMarkdown(ctx, article, "https://example.com/p"); err == nil || err.Error() != "This operation was aborted" {
		t.Errorf("cancelled: %v", err)
	}
}

// helperChildren are the pids of this process's children called pigo-engines.
func helperChildren(t *testing.T) []int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		f := strings.Fields(s[close+1:])
		if s[open+1:close] != engines.Name || len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
		pids = append(pids, pid)
	}
	return pids
}

// waitHelper waits until the real helper runs as this process's child and returns its pid.
func waitHelper(t *testing.T) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pids := helperChildren(t); len(pids) == 1 {
			return pids[0]
		}
	}
	t.Fatal("no helper started")
	return 0
}

// TestExtractHelperKilled: the real helper, killed in the middle of a heavy page, is the
// call's error; cancelled, it is killed and the call returns at once.
func TestExtractHelperKilled(t *testing.T) {
	page := heavyPage()
	done := make(chan error, 1)
	go func() {
		_, err := ExtractMarkdown(context.Background(), page, "https://example.com/p")
		done <- err
	}()
	syscall.Kill(waitHelper(t), syscall.SIGKILL)
	if err := <-done; err == nil || !strings.HasPrefix(err.Error(), "page extraction was stopped: "+engines.Name+" "+extractwire.Engine+" was killed") {
		t.Errorf("killed: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, err := ExtractMarkdown(ctx, page, "https://example.com/p")
		done <- err
	}()
	pid := waitHelper(t)
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil || err.Error() != "This operation was aborted" {
			t.Errorf("cancelled: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("helper %d still there after the call: %v", pid, err)
	}
}

// TestExtractLimits: the helper bounds itself at its start (Serve: extractwire.CPU, extractwire.Mem beyond
// its start), and each limit stops a page that needs more, as the call's error (the engines
// extract-cpu and extract-mem are Serve with 1 s and 64 MiB).
func TestExtractLimits(t *testing.T) {
	cmd, err := engines.Command(context.Background(), extractwire.Engine, "https://example.com/p")
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var limits string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", cmd.Process.Pid))
		limits = string(b)
		if strings.Contains(limits, "Max cpu time              10                   11                   seconds") {
			break
		}
	}
	stdin.Close()
	cmd.Wait()
	if !strings.Contains(limits, "Max cpu time              10                   11                   seconds") {
		t.Errorf("CPU limit not set:\n%s", limits)
	}
	var as uint64
	for _, l := range strings.Split(limits, "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "Max address space") && len(f) >= 5 {
			as, _ = strconv.ParseUint(f[3], 10, 64)
		}
	}
	if as < extractwire.Mem || as > 4*extractwire.Mem {
		t.Errorf("address space limit %d, want the helper's start + %d:\n%s", as, uint64(extractwire.Mem), limits)
	}

	page := heavyPage()
	defer func(e string) { extractEngine = e }(extractEngine)
	extractEngine = "extract-cpu"
	start := time.Now()
	_, err = ExtractMarkdown(context.Background(), page, "https://example.com/p")
	if err == nil || !strings.HasPrefix(err.Error(), "page extraction was stopped: "+engines.Name+" "+extractwire.Engine+" was killed") {
		t.Errorf("CPU limit: %v", err)
	}
	t.Logf("CPU limit of 1 s: stopped after %v", time.Since(start))
	extractEngine = "extract-mem"
	_, err = ExtractMarkdown(context.Background(), page, "https://example.com/p")
	if err == nil || err.Error() != "page extraction was stopped: "+engines.Name+" "+extractwire.Engine+" ran out of its memory (it may use 1024 MiB)" {
		t.Errorf("memory limit: %v", err)
	}
}

// TestExtractMatchesInProcess: what comes back through the helper is the extractor's own
// answer, byte for byte (the JSON answer keeps every text as it was), and its errors' texts.
func TestExtractMatchesInProcess(t *testing.T) {
	words := strings.Repeat("Words <b>in</b> a paragraph &amp; more: \u2028 \"quoted\" \\ <tag> \u00e9\u4e2d\U0001F600 ", 12)
	pages := []string{
		article,
		"<html><head><title> Spaced\u00a0title </title></head><body><div hidden id=\"S:3\"><p>" + words + "</p></div></body></html>",
		"<html><body><pre><code>" + strings.Repeat("if a < b && c > d { return \"x\\n\" }\n", 20) + "</code></pre></body></html>",
		"<p>" + strings.Repeat("x", 250) + "\x00</p>",
		"<html><body><p>tiny</p></body></html>",
		"",
	}
	for i, page := range pages {
		title, md, werr := extract.Markdown(page, "https://example.com/dir/p?q=1")
		p, err := ExtractMarkdown(context.Background(), page, "https://example.com/dir/p?q=1")
		if werr != nil {
			if err == nil || err.Error() != werr.Error() {
				t.Errorf("page %d: got %+v %v, want the error %v", i, p, err, werr)
			}
			continue
		}
		if err != nil || p.Title != title || p.Markdown != md || p.URL != "https://example.com/dir/p?q=1" {
			t.Errorf("page %d: got %+v %v\nwant %q %q", i, p, err, title, md)
		}
	}
}
