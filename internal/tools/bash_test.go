package tools

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/pi"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func bashSession(t *testing.T) *toolrun.Session {
	ws := tempWS(t)
	os.MkdirAll(ws, 0o755)
	return &toolrun.Session{Cwd: ws, AgentDir: filepath.Join(filepath.Dir(ws), "agent"), Headless: true}
}

func plan(t *testing.T, s *toolrun.Session) *sandbox.Plan {
	pl, err := toolkit.BashPlan(s)
	if err != nil {
		t.Skipf("no sandbox: %v", err)
	}
	return pl
}

// noLogin runs "bash -c": a login shell would print the host profile's noise.
var noLogin = []string{"/bin/bash", "-c"}

var uuidTxt = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.txt$`)

// The spill file is <agentDir>/tmp/<uuid>.txt, made on the first byte, holding every byte;
// the model gets pi's truncateTail with totals from the stream counters.
func TestRunBashSpillAndTail(t *testing.T) {
	s := bashSession(t)
	out, err := toolkit.RunBash(context.Background(), toolkit.BashRun{Command: "seq 1 300000", Dir: s.Cwd, Plan: plan(t, s), Shell: noLogin, SpillDir: toolkit.SpillDir(s)})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode == nil || *out.ExitCode != 0 {
		t.Fatalf("exit %v", out.ExitCode)
	}
	if filepath.Dir(out.FullOutputPath) != filepath.Join(s.AgentDir, "tmp") || !uuidTxt.MatchString(filepath.Base(out.FullOutputPath)) {
		t.Fatalf("spill path %q", out.FullOutputPath)
	}
	full, _ := os.ReadFile(out.FullOutputPath)
	if len(full) != out.Truncation.TotalBytes || out.Truncation.TotalLines != 300000 || !strings.HasSuffix(string(full), "299999\n300000\n") {
		t.Fatalf("spill %d bytes, totals %+v", len(full), out.Truncation)
	}
	tr := out.Truncation
	if !tr.Truncated || *tr.TruncatedBy != "lines" || tr.OutputLines != 2000 || !strings.HasPrefix(out.Output, "298001\n") || !strings.HasSuffix(out.Output, "\n300000") {
		t.Fatalf("tail: %+v %q…", tr, out.Output[:20])
	}
	// No output: no spill file at all.
	out, _ = toolkit.RunBash(context.Background(), toolkit.BashRun{Command: "true", Dir: s.Cwd, Plan: plan(t, s), Shell: noLogin, SpillDir: toolkit.SpillDir(s)})
	if out.FullOutputPath != "" || out.Output != "" {
		t.Fatalf("silent command: %+v", out)
	}
}

// A spill directory that cannot be written leaves the output in memory only.
func TestRunBashReadOnlySpill(t *testing.T) {
	s := bashSession(t)
	ro := filepath.Join(filepath.Dir(s.Cwd), "ro")
	os.MkdirAll(ro, 0o555)
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	if os.Getuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	out, err := toolkit.RunBash(context.Background(), toolkit.BashRun{Command: "echo hi", Dir: s.Cwd, Plan: plan(t, s), Shell: noLogin, SpillDir: filepath.Join(ro, "tmp")})
	if err != nil || out.Output != "hi\n" || out.FullOutputPath != "" {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestRunBashProgressAbortTimeout(t *testing.T) {
	s := bashSession(t)
	var mu sync.Mutex
	var updates []string
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(600 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	out, err := toolkit.RunBash(ctx, toolkit.BashRun{Command: "for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.1; done; sleep 30 & wait", Dir: s.Cwd, Plan: plan(t, s), Shell: noLogin,
		Progress: func(tail string) { mu.Lock(); updates = append(updates, tail); mu.Unlock() }})
	if err != nil || !out.Aborted || out.ExitCode != nil {
		t.Fatalf("abort: %+v %v", out, err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("abort did not kill the process group")
	}
	mu.Lock()
	if len(updates) < 1 || !strings.HasPrefix(updates[len(updates)-1], "tick 1\n") {
		t.Fatalf("progress updates: %q", updates)
	}
	mu.Unlock()
	out, err = toolkit.RunBash(context.Background(), toolkit.BashRun{Command: "echo a; sleep 30", Dir: s.Cwd, Plan: plan(t, s), Shell: noLogin, Timeout: 3 * time.Second})
	if err != nil || !out.TimedOut || out.Output != "a\n" {
		t.Fatalf("timeout: %+v %v", out, err)
	}
	if _, err := toolkit.RunBash(context.Background(), toolkit.BashRun{Command: "true", Dir: filepath.Join(s.Cwd, "nope")}); err == nil || err.Error() != "Working directory does not exist: "+filepath.Join(s.Cwd, "nope") {
		t.Fatalf("missing dir: %v", err)
	}
	os.WriteFile(filepath.Join(s.Cwd, "f"), nil, 0o644)
	if _, err := toolkit.RunBash(context.Background(), toolkit.BashRun{Command: "true", Dir: filepath.Join(s.Cwd, "f")}); err == nil || err.Error() != "Working directory is not a directory: "+filepath.Join(s.Cwd, "f") {
		t.Fatalf("file as dir: %v", err)
	}
}

// Bash runs in bwrap: the workspace is writable, .git and everything outside are not.
func TestRunBashSandboxed(t *testing.T) {
	s := bashSession(t)
	os.MkdirAll(filepath.Join(s.Cwd, ".git"), 0o755)
	od, err := os.MkdirTemp("/var/tmp", "pigo-bash-")
	if err != nil {
		t.Skip("no /var/tmp")
	}
	t.Cleanup(func() { os.RemoveAll(od) })
	outside := filepath.Join(od, "outside.txt")
	out, err := toolkit.RunBash(context.Background(), toolkit.BashRun{Command: "echo ok > in.txt; echo x > .git/config; echo y > " + outside + "; cat in.txt", Dir: s.Cwd, Plan: plan(t, s), Shell: noLogin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Cwd, "in.txt")); err != nil {
		t.Fatalf("workspace write failed: %s", out.Output)
	}
	if _, err := os.Stat(filepath.Join(s.Cwd, ".git", "config")); err == nil {
		t.Fatal(".git was writable in the sandbox")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("wrote outside the workspace")
	}
}

type cmdApprover struct {
	d   approve.Decision
	req *approve.Request
}

func (a *cmdApprover) Ask(_ context.Context, r approve.Request) (approve.Decision, error) {
	a.req = &r
	return a.d, nil
}

func TestEscalate(t *testing.T) {
	rules := []sandbox.Rule{{Action: "allow", Pattern: "git status *"}, {Action: "deny", Pattern: "git push *"}}
	base := func() *toolrun.Session {
		s := bashSession(t)
		s.Sandbox = sandbox.DefaultPolicy()
		s.Sandbox.ApprovalRules = rules
		s.Rules = approve.NewRules(rules)
		return s
	}
	ctx := context.Background()
	s := base()
	if _, err := toolkit.Escalate(ctx, s, "Bash", "git status && git push origin main"); errString(err) != "Command denied by bwrap approval rule: git push origin main" {
		t.Errorf("deny: %v", err)
	}
	if e, err := toolkit.Escalate(ctx, s, "Bash", "git status"); err != nil || e.Plan != nil {
		t.Errorf("allow: %+v %v", e, err)
	}
	if _, err := toolkit.Escalate(ctx, s, "Bash", "curl example.com"); errString(err) != "User denied unsandboxed execution." {
		t.Errorf("headless: %v", err)
	}
	if _, err := toolkit.Escalate(ctx, s, "Bash", "git status > out.txt"); errString(err) != "User denied unsandboxed execution." {
		t.Errorf("redirect asks (headless refuses): %v", err)
	}
	s.DenyRequests = true
	if _, err := toolkit.Escalate(ctx, s, "Bash", "git status"); errString(err) != "User denied unsandboxed execution." {
		t.Errorf("deny requests: %v", err)
	}
	aborted := false
	for _, c := range []struct {
		d    approve.Decision
		want string
	}{
		{approve.Decision{Choice: approve.Allow}, ""},
		{approve.Decision{Choice: approve.AllowSession}, ""},
		{approve.Decision{Choice: approve.RunInSandbox}, ""},
		{approve.Decision{Choice: approve.Deny}, "User denied unsandboxed execution."},
		{approve.Decision{Choice: approve.DenyReason, Reason: "use the mirror"}, "User denied command execution with reason: use the mirror"},
		{approve.Decision{Choice: approve.DenyReason}, "User denied command execution."},
		{approve.Decision{Choice: approve.Dismissed}, "User denied the command execution."},
	} {
		s := base()
		s.Headless = false
		a := &cmdApprover{d: c.d}
		s.Approver = a
		s.Abort = func() { aborted = true }
		e, err := toolkit.Escalate(ctx, s, "Bash", "npm install react")
		if errString(err) != c.want {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
		if c.d.Choice == approve.RunInSandbox && (e.Plan == nil || !e.InSandbox) {
			t.Errorf("run in sandbox: %+v", e)
		}
		if c.d.Choice == approve.Allow && e.Plan != nil {
			t.Errorf("allow once runs sandboxed: %+v", e)
		}
		if a.req == nil || strings.Join(a.req.Approval.Suggestions, ",") != "npm install *" {
			t.Errorf("request: %+v", a.req)
		}
	}
	if !aborted {
		t.Error("dismissing the dialog did not abort the turn")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCommandExecutionPrompt(t *testing.T) {
	s := bashSession(t)
	got := toolkit.CommandExecutionPrompt(s)
	if !strings.HasPrefix(got, "\n\n## Command Execution\n") || !strings.Contains(got, "network is blocked") {
		t.Fatalf("%q", got)
	}
	s.Sandbox = sandbox.Policy{FSMode: sandbox.FSAllowAll, NetMode: sandbox.NetAllowAll}
	if got := toolkit.CommandExecutionPrompt(s); got != "\n\n## Command Execution\nCommands run directly on the host, without a sandbox." {
		t.Fatalf("%q", got)
	}
}

// pi's bash gets the PI_* session variables, settings.shellCommandPrefix and shellPath.
func TestPiBashEnvironmentAndShell(t *testing.T) {
	e := newEnv(t, "")
	s := e.runner.Session
	s.Env = toolrun.SessionEnv{SessionID: "sid", SessionFile: "/s.jsonl", Provider: "p", Model: "m", ReasoningLevel: "high"}
	s.Shell = toolrun.Shell{CommandPrefix: "shopt -s expand_aliases; alias hi='echo prefixed'"}
	r := e.call("bash", `{"command":"hi; env | grep ^PI_ | sort"}`)
	if want := "prefixed\nPI_MODEL=m\nPI_PROVIDER=p\nPI_REASONING_LEVEL=high\nPI_SESSION_FILE=/s.jsonl\nPI_SESSION_ID=sid\n"; r.IsError || r.Text() != want {
		t.Fatalf("got %q", r.Text())
	}
	s.Env.Hide = true
	s.Shell = toolrun.Shell{Path: "/bin/sh"}
	r = e.call("bash", `{"command":"env | grep -c ^PI_ ; echo $0"}`)
	if r.Text() != "0\n/bin/sh\n" {
		t.Fatalf("hidden env / shellPath: %q", r.Text())
	}
	s.Shell = toolrun.Shell{Path: "/no/such/shell"}
	if r = e.call("bash", `{"command":"true"}`); !r.IsError || r.Text() != "Custom shell path not found: /no/such/shell" {
		t.Fatalf("%q", r.Text())
	}
}

// pi's bash publishes progress: an empty update first, then the output's tail.
func TestPiBashProgress(t *testing.T) {
	e := newEnv(t, "")
	var mu sync.Mutex
	var texts []string
	r := e.runner.Run(context.Background(), toolrun.Call{Name: "bash", Arguments: []byte(`{"command":"echo one; sleep 0.3; echo two"}`)},
		func(p toolrun.Result) {
			mu.Lock()
			defer mu.Unlock()
			if len(p.Content) == 0 {
				texts = append(texts, "")
			} else {
				texts = append(texts, p.Content[0].Text)
			}
		})
	if r.IsError || r.Text() != "one\ntwo\n" {
		t.Fatalf("%q", r.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(texts) < 2 || texts[0] != "" || !strings.HasPrefix(texts[1], "one\n") {
		t.Fatalf("updates %q", texts)
	}
}

// TestSpillCapAndSweep: a command's full-output file stops at MaxSpillBytes (the red team's
// 1.5 GB of output stayed on disk), and spill files older than SpillMaxAge are removed by
// the next spill into the directory; other files stay.
func TestSpillCapAndSweep(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "0b1c2d3e-0000-4000-8000-000000000000.txt")
	keep := filepath.Join(dir, "notes.txt")
	fresh := filepath.Join(dir, "1b1c2d3e-0000-4000-8000-000000000000.txt")
	for _, p := range []string{old, keep, fresh} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	past := time.Now().Add(-toolkit.SpillMaxAge - time.Hour)
	os.Chtimes(old, past, past)
	os.Chtimes(keep, past, past)

	a := &toolkit.Accumulator{SpillDir: dir}
	chunk := bytes.Repeat([]byte("0123456789abcde\n"), 1<<16) // 1 MiB
	for i := 0; i < 70; i++ {
		a.Write(chunk)
	}
	out := a.Finish()
	fi, err := os.Stat(out.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != toolkit.MaxSpillBytes+int64(len(toolkit.SpillCapNote)) {
		t.Errorf("spill file is %d bytes", fi.Size())
	}
	if out.Truncation.TotalBytes != 70<<20 {
		t.Errorf("the counters stopped at the cap: %d", out.Truncation.TotalBytes)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("an old spill file was kept")
	}
	for _, p := range []string{keep, fresh} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed", p)
		}
	}
	// The safe twin: a small output is spilled whole.
	b := &toolkit.Accumulator{SpillDir: dir}
	b.Write([]byte("hello\n"))
	if got, _ := os.ReadFile(b.Finish().FullOutputPath); string(got) != "hello\n" {
		t.Errorf("small spill %q", got)
	}
}

// TestPiBashHeadlessTimeout: pi's bash has no default timeout; headless pigo gives it one.
func TestPiBashHeadlessTimeout(t *testing.T) {
	if pi.BashTimeout(0, true) != toolkit.DefaultBashTimeout || pi.BashTimeout(0, false) != 0 || pi.BashTimeout(time.Second, true) != time.Second {
		t.Fatal("piBashTimeout")
	}
}
