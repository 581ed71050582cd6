package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runIn plans p for ws and runs line, failing the test on a refusal.
func runIn(t *testing.T, p Policy, ws, line string) Result {
	t.Helper()
	pl, err := NewPlan(p, ws, testEnvReal(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), pl, line, Options{})
	if err != nil {
		t.Fatalf("Run(%q): %v", line, err)
	}
	return res
}

// testEnvReal is the host's uid/gid (bwrap maps them) with a temp HOME.
func testEnvReal(t *testing.T) Environ {
	t.Helper()
	e := HostEnviron()
	e.Home = t.TempDir()
	return e
}

func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := FindBwrap("", HostEnviron()); err != nil {
		t.Skip("bwrap not installed")
	}
}

func TestRunWorkspaceWrite(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "secrets", "key"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	p := DefaultPolicy()
	p.WritablePaths = []string{"."} // no /tmp, so other temp dirs are outside
	p.DenyPaths = []string{".env", "secrets/"}

	if r := runIn(t, p, ws, "echo ok > inside.txt"); r.ExitCode != 0 {
		t.Fatalf("write inside: exit %d: %s", r.ExitCode, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(b) != "ok\n" {
		t.Errorf("inside.txt = %q, %v", b, err)
	}
	for _, target := range []string{
		filepath.Join(outside, "x"), filepath.Join(ws, ".git", "x"), filepath.Join(ws, ".pi", "x"),
		filepath.Join(ws, ".agent", "x"),
	} {
		r := runIn(t, p, ws, fmt.Sprintf("echo no > %q", target))
		if r.ExitCode == 0 {
			t.Errorf("write to %s succeeded", target)
		}
		if !strings.Contains(string(r.Stderr), "Read-only file system") && !strings.Contains(string(r.Stderr), "Operation not permitted") {
			t.Errorf("write to %s: stderr %q", target, r.Stderr)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s exists on the host", target)
		}
	}
	// The denied file is /dev/null mounted nodev: it has no content to give (reading it is
	// refused with EACCES), and the denied directory is an empty tmpfs.
	r := runIn(t, p, ws, "cat .env; echo; ls -A secrets | wc -l")
	if strings.Contains(string(r.Stdout), "TOKEN") || strings.TrimSpace(string(r.Stdout)) != "0" {
		t.Errorf("denied file / dir leaked: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".env")); string(b) != "TOKEN=1\n" {
		t.Errorf("host .env changed: %q", b)
	}
}

func TestRunReadonly(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	extra := t.TempDir()
	p := DefaultPolicy()
	p.FSMode = FSReadonly
	p.ExtraWritablePaths = []string{extra}
	for _, target := range []string{filepath.Join(ws, "x"), "/tmp/pigo-readonly-probe", filepath.Join(ws, ".git", "x")} {
		if r := runIn(t, p, ws, fmt.Sprintf("echo no > %q", target)); r.ExitCode == 0 {
			t.Errorf("readonly write to %s succeeded", target)
		}
	}
	if r := runIn(t, p, ws, fmt.Sprintf("echo yes > %q", filepath.Join(extra, "y"))); r.ExitCode != 0 {
		t.Errorf("extra path not writable: %s", r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(extra, "y")); err != nil {
		t.Error(err)
	}
}

func TestRunNetwork(t *testing.T) {
	needBwrap(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	line := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && head -n1 <&3", port)
	ws := newWorkspace(t)
	p := DefaultPolicy()
	if r := runIn(t, p, ws, line); r.ExitCode == 0 || strings.Contains(string(r.Stdout), "hello") {
		t.Errorf("block: connected (exit %d, %q)", r.ExitCode, r.Stdout)
	}
	p.NetMode = NetAllowAll
	if r := runIn(t, p, ws, line); r.ExitCode != 0 || string(r.Stdout) != "hello\n" {
		t.Errorf("allow-all: exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	}
}

func TestRunEnvExact(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	t.Setenv("PIGO_LEAK_PROBE", "secret")
	for _, fs := range []string{FSWorkspaceWrite, FSAllowAll} {
		p := DefaultPolicy()
		p.FSMode, p.NetMode = fs, NetAllowAll // allow-all+allow-all: direct exec, same env

		env := testEnvReal(t)
		pl, err := NewPlan(p, ws, env)
		if err != nil {
			t.Fatal(err)
		}
		// The shell's own initial environment, before bash adds PWD/SHLVL/_.
		res, err := Run(context.Background(), pl, `tr '\0' '\n' < /proc/$$/environ | sort`, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"HOME=" + env.Home, "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash", "TERM=dumb"}
		if pl.Sandboxed {
			// bwrap itself exports PWD after changing directory; nothing else gets through.
			want = append(want[:3], append([]string{"PWD=" + ws}, want[3:]...)...)
		}
		if d := cmp.Diff(want, strings.Fields(string(res.Stdout))); d != "" {
			t.Errorf("%s: env (-want +got):\n%s", fs, d)
		}
	}
}

func TestRunExitCodeAndStreams(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	pl, err := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), pl, "read x; echo got:$x; echo err >&2; exit 7",
		Options{Stdin: strings.NewReader("input\n")})
	if err != nil || res.ExitCode != 7 || string(res.Stdout) != "got:input\n" || string(res.Stderr) != "err\n" {
		t.Errorf("got %+v, %v", res, err)
	}
	// More than 10 MB on both streams at once, captured and streamed, without deadlock.
	const n = 12 << 20
	res, err = Run(context.Background(), pl, fmt.Sprintf("head -c %d /dev/zero; head -c %d /dev/zero >&2", n, n), Options{})
	if err != nil || len(res.Stdout) != n || len(res.Stderr) != n {
		t.Errorf("captured: %d/%d bytes, %v", len(res.Stdout), len(res.Stderr), err)
	}
	var cw countWriter
	res, err = Run(context.Background(), pl, fmt.Sprintf("head -c %d /dev/zero", n), Options{Stdout: &cw})
	if err != nil || cw.n != n || res.Stdout != nil {
		t.Errorf("streamed: %d bytes, %v", cw.n, err)
	}
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// alive reports whether any process has marker in its command line.
func alive(marker string) bool {
	out, _ := exec.Command("pgrep", "-f", marker).Output()
	return len(bytes.TrimSpace(out)) > 0
}

// waitGone waits (bounded) for processes to disappear after a kill: the kernel reaps
// asynchronously. This is a liveness wait, not a timing assertion.
func waitGone(marker string) bool {
	for i := 0; i < 100; i++ {
		if !alive(marker) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func TestRunTimeoutKillsTree(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	for i, fs := range []string{FSWorkspaceWrite, FSAllowAll} {
		p := DefaultPolicy()
		p.FSMode, p.NetMode = fs, NetAllowAll
		pl, err := NewPlan(p, ws, testEnvReal(t))
		if err != nil {
			t.Fatal(err)
		}
		marker := fmt.Sprintf("%d%d", 9123400+i, os.Getpid())
		// A child that ignores SIGTERM, a grandchild, and the shell waiting on them.
		line := fmt.Sprintf(`bash -c 'trap "" TERM; sleep %s & sleep %s; wait' & sleep %s; wait`, marker, marker, marker)
		res, err := Run(context.Background(), pl, line, Options{Timeout: 300 * time.Millisecond})
		var te *TimeoutError
		if !errors.As(err, &te) || err.Error() != "timeout:0.3" || res.ExitCode != 124 {
			t.Errorf("%s: err %v, exit %d", fs, err, res.ExitCode)
		}
		if !waitGone(marker) {
			t.Errorf("%s: processes survived the timeout", fs)
			_ = exec.Command("pkill", "-9", "-f", marker).Run()
		}
	}
	if got := (&TimeoutError{Timeout: time.Second}).Error(); got != "timeout:1" {
		t.Errorf("timeout text %q", got)
	}
}

func TestRunCancel(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	pl, err := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("8765%d", os.Getpid())
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncWriter{}
	go func() {
		// Cancel once the command has started printing.
		for i := 0; i < 200 && !strings.Contains(out.String(), "started"); i++ {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	_, err = Run(ctx, pl, fmt.Sprintf(`trap "" TERM; echo started; sleep %s`, marker), Options{Stdout: out})
	var ae *AbortError
	if !errors.As(err, &ae) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if !waitGone(marker) {
		t.Error("process survived cancellation")
	}
}

// syncWriter guards a buffer read by another goroutine.
type syncWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func TestRunLimitedFailsClosed(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	p := DefaultPolicy()
	p.NetMode = NetLimited
	p.Allowlist = []string{"example.com"}
	env := testEnvReal(t)
	env.Path = "/usr/bin:/bin" // no mihomo here
	pl, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), pl, "touch ran", Options{})
	if err == nil || err.Error() != "mihomo not found in PATH. Install it from https://github.com/MetaCubeX/mihomo" {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("command ran without its network stack")
	}
}

// One writer for both streams keeps them one pipe: the merged transcript is in the order the
// command wrote it (pi's bash output, "hi" before "err" below), never reordered by two pipes.
func TestRunMergedStreamsKeepOrder(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	pl, err := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		var buf bytes.Buffer
		if _, err := Run(context.Background(), pl, "echo hi; echo err >&2; echo ok", Options{Stdout: &buf, Stderr: &buf}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != "hi\nerr\nok\n" {
			t.Fatalf("run %d: merged output %q", i, buf.String())
		}
	}
}
