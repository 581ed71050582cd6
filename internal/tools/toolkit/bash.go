package toolkit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// The shared output side of bash (reference §1.6): pi's built-in bash, claude-code's Bash
// and opencode's bash all run commands through RunBash.
const (
	// DefaultBashTimeout and MaxBashTimeout bound the seed toolsets' timeouts (pi's own bash
	// has no default).
	DefaultBashTimeout = 120 * time.Second
	MaxBashTimeout     = 600 * time.Second
	// ringBytes is the in-memory tail kept of the output; progressBytes the tail a progress
	// update carries; progressEvery the least time between two updates.
	ringBytes     = 1 << 20
	progressBytes = 64 << 10
	progressEvery = 100 * time.Millisecond
	// MaxSpillBytes caps one command's full-output file: past it the file gets a last line
	// saying so and nothing more (a command printing gigabytes filled the disk). SpillMaxAge
	// is how long a full-output file is kept: the first spill of a process into a directory
	// removes the spill files older than that.
	MaxSpillBytes = 64 << 20
	SpillMaxAge   = 24 * time.Hour
)

// SpillCapNote ends a full-output file that reached MaxSpillBytes.
const SpillCapNote = "\n[pigo: the full output file stops here, at its 64 MiB cap; the command's output went on]\n"

// BashRun is one command to run.
type BashRun struct {
	Command string
	// Dir is the working directory; it must exist.
	Dir string
	// Timeout kills the process group after this long (0: never).
	Timeout time.Duration
	// Plan is the sandbox plan the command runs under; nil runs it directly (an approved
	// escalation). An unsandboxed plan runs it directly too.
	Plan *sandbox.Plan
	// Shell replaces the shell words at the end of the argv ([/bin/bash -lc] by default):
	// pi's own bash runs "<shellPath> -c COMMAND".
	Shell []string
	// Env is the environment (nil: the plan's five variables, or the process environment
	// without a plan).
	Env []string
	// SpillDir is where the full output goes (<agentDir>/tmp); "" keeps it in memory only.
	SpillDir string
	// SpillPrefix, when set, names the full-output file as pi names its own:
	// "<prefix>-<16 hex digits>.log" (pi's bash: "pi-bash" in the OS temp directory, which
	// is the OS's to clean, so no sweep runs there). Unset, the file is "<uuid>.txt" and
	// old files in SpillDir are swept.
	SpillPrefix string
	// Progress receives the last 64 KiB of output, at most every 100 ms (nil: none).
	Progress func(tail string)
	// Argv, when set, is run instead of a shell line (inside the plan's sandbox): the words
	// reach the program as they are, never through a shell.
	Argv []string
	// Stdout, when set, also receives the command's standard output alone.
	Stdout io.Writer
}

// BashOutput is a finished (or killed) command.
type BashOutput struct {
	// ExitCode is nil when the command was killed (timeout, abort) or died of a signal.
	ExitCode *int
	TimedOut bool
	Aborted  bool
	// Output is the tail the model sees: pi's truncateTail (2000 lines / 50 KB) of the
	// stream; Truncation has the exact totals from the stream counters.
	Output     string
	Truncation Truncation
	// LastLineBytes is the size of the last (possibly open) line.
	LastLineBytes int
	// FullOutputPath is the spill file ("" when nothing was written or it could not be made).
	FullOutputPath string
}

// Accumulator keeps the output's tail, counts lines and bytes, and spills every byte to a
// file: created on the first byte, or, with pi's naming, once the output is truncated
// (spillNow).
type Accumulator struct {
	mu        sync.Mutex
	ring      []byte
	dropped   bool // the ring lost its head
	headAtEOL bool // the byte before the ring's first byte was a newline
	total     int
	lines     int // completed lines
	lineBytes int // bytes of the open line
	SpillDir  string
	prefix    string // pi's naming (see BashRun.SpillPrefix)
	spill     *os.File
	spillPath string
	spillErr  bool
	spilled   int  // bytes in the spill file
	capped    bool // the spill file reached MaxSpillBytes
	dirty     bool
}

func (a *Accumulator) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	a.total += len(p)
	for _, c := range p {
		if c == '\n' {
			a.lines++
			a.lineBytes = 0
		} else {
			a.lineBytes++
		}
	}
	if a.spill == nil && !a.spillErr && a.SpillDir != "" && a.spillNow() {
		name := newUUID() + ".txt"
		if a.prefix != "" {
			name = a.prefix + "-" + randomHex(8) + ".log"
		} else {
			sweepSpills(a.SpillDir)
		}
		if err := os.MkdirAll(a.SpillDir, 0o700); err == nil {
			path := filepath.Join(a.SpillDir, name)
			if f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
				a.spill, a.spillPath = f, path
			}
		}
		a.spillErr = a.spill == nil
		// pi's naming: the output before p, all of it still in the ring (it is under
		// MaxBytes), goes first.
		a.spillBytes(a.ring)
	}
	a.spillBytes(p)
	a.ring = append(a.ring, p...)
	if len(a.ring) > 2*ringBytes {
		cut := len(a.ring) - ringBytes
		a.headAtEOL = a.ring[cut-1] == '\n'
		a.ring = append(a.ring[:0:0], a.ring[cut:]...)
		a.dropped = true
	}
	a.dirty = true
	return len(p), nil
}

// spillNow reports whether the spill file is made at this write: at the first byte, or, with
// pi's naming, once the output counted so far is truncated (over MaxLines lines or MaxBytes
// bytes, the test Finish makes), as pi's OutputAccumulator makes its file only then. pi's
// bash keeps the file only for truncated output; made at the first byte, every command with
// any output cost a file made and removed in the temp directory.
func (a *Accumulator) spillNow() bool {
	lines := a.lines
	if a.lineBytes > 0 {
		lines++
	}
	return a.prefix == "" || a.total > MaxBytes || lines > MaxLines
}

// spillBytes writes p to the spill file, up to MaxSpillBytes.
func (a *Accumulator) spillBytes(p []byte) {
	if a.spill == nil || a.capped || len(p) == 0 {
		return
	}
	chunk := p
	if a.spilled+len(chunk) > MaxSpillBytes {
		chunk = chunk[:MaxSpillBytes-a.spilled]
		a.capped = true
	}
	_, err := a.spill.Write(chunk)
	if err == nil && a.capped {
		_, err = a.spill.WriteString(SpillCapNote)
	}
	a.spilled += len(chunk)
	if err != nil {
		a.spill.Close()
		a.spill, a.spillErr = nil, true // read-only fs: memory only from here on
		os.Remove(a.spillPath)
		a.spillPath = ""
	}
}

// tail returns the last n bytes of output starting on a line (when the ring lost its head)
// and a character boundary.
func (a *Accumulator) tail(n int) string {
	b := a.ring
	cut := a.dropped && !a.headAtEOL
	if len(b) > n {
		cut = b[len(b)-n-1] != '\n'
		b = b[len(b)-n:]
	}
	if cut {
		for i, c := range b {
			if c == '\n' {
				b = b[i+1:]
				break
			}
		}
	}
	return DecodeUTF8(trimToRune(b))
}

func trimToRune(b []byte) []byte {
	for len(b) > 0 && b[0]&0xc0 == 0x80 {
		b = b[1:]
	}
	return b
}

func (a *Accumulator) Finish() BashOutput {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.spill != nil {
		a.spill.Close()
	}
	text := a.tail(ringBytes)
	t := TruncateTail(text, MaxLines, MaxBytes)
	totalLines := a.lines
	if a.lineBytes > 0 {
		totalLines++
	}
	truncated := totalLines > MaxLines || a.total > MaxBytes
	t.Truncated = truncated
	if !truncated {
		t.TruncatedBy = nil
	} else if t.TruncatedBy == nil {
		if a.total > MaxBytes {
			t.TruncatedBy = by("bytes")
		} else {
			t.TruncatedBy = by("lines")
		}
	}
	t.TotalLines, t.TotalBytes = totalLines, a.total
	return BashOutput{Output: t.Content, Truncation: t, LastLineBytes: a.lineBytes, FullOutputPath: a.spillPath}
}

var (
	sweptMu sync.Mutex
	swept   = map[string]bool{}
)

// sweepSpills removes, once per process and directory, the full-output files in dir older
// than SpillMaxAge: regular files named like a spill file (a UUID, .txt or .log), nothing
// else. The model saw their paths in earlier results, so a day is kept.
func sweepSpills(dir string) {
	sweptMu.Lock()
	done := swept[dir]
	swept[dir] = true
	sweptMu.Unlock()
	if done {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-SpillMaxAge)
	for _, e := range ents {
		if !e.Type().IsRegular() || !isSpillName(e.Name()) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// isSpillName reports whether name is a full-output file's: a version 4 UUID (pigo's) or
// "pi-bash-<hex>" (pi 1.6's), with .txt or .log.
func isSpillName(name string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".txt"), ".log")
	if base == name {
		return false
	}
	if rest, ok := strings.CutPrefix(base, "pi-bash-"); ok {
		base = rest
	}
	if len(base) == 0 {
		return false
	}
	for _, c := range base {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-') {
			return false
		}
	}
	return true
}

// randomHex is n random bytes in lowercase hex (pi's randomBytes(n).toString("hex")).
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x", b)
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// RunBash runs one command with the shared output handling: merged stdout and stderr,
// spill file, tail ring, throttled progress, its own process group killed on timeout or
// abort. An error means the command did not start (no sandbox, bad working directory).
func RunBash(ctx context.Context, r BashRun) (BashOutput, error) {
	st, err := os.Stat(r.Dir)
	if err != nil {
		return BashOutput{}, fmt.Errorf("Working directory does not exist: %s", r.Dir)
	}
	if !st.IsDir() {
		return BashOutput{}, fmt.Errorf("Working directory is not a directory: %s", r.Dir)
	}
	acc := &Accumulator{SpillDir: r.SpillDir, prefix: r.SpillPrefix}
	var stdout io.Writer = acc
	if r.Stdout != nil {
		stdout = io.MultiWriter(acc, r.Stdout)
	}
	inner := r.Argv
	if len(inner) == 0 && len(r.Shell) > 0 {
		inner = append(append([]string{}, r.Shell...), r.Command)
	}
	// The run itself: through sandbox.Run whenever there is a plan, so a tool's command gets
	// exactly what `pigo sandbox run` gets (the seccomp filter, placeholders for missing
	// protected paths, restored links, the reaper for unsandboxed trees, bwrap set-up errors).
	type ran struct {
		res sandbox.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		if r.Plan == nil {
			res, err := runDirect(ctx, r, inner, stdout, acc)
			done <- ran{res, err}
			return
		}
		res, err := sandbox.Run(ctx, r.Plan, r.Command, sandbox.Options{Stdout: stdout, Stderr: acc,
			Timeout: r.Timeout, Dir: r.Dir, Argv: inner, Env: r.Env})
		done <- ran{res, err}
	}()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var got ran
wait:
	for {
		select {
		case got = <-done:
			break wait
		case <-tick.C:
			if r.Progress != nil {
				acc.mu.Lock()
				dirty := acc.dirty
				acc.dirty = false
				tail := acc.tail(progressBytes)
				acc.mu.Unlock()
				if dirty {
					r.Progress(tail)
				}
			}
		}
	}
	var te *sandbox.TimeoutError
	var ae *sandbox.AbortError
	res := acc.Finish()
	switch {
	case errors.As(got.err, &te):
		res.TimedOut = true
	case errors.As(got.err, &ae):
		res.Aborted = true
	case got.err != nil:
		return BashOutput{}, got.err
	case !got.res.Signaled:
		code := got.res.ExitCode
		res.ExitCode = &code
	}
	return res, nil
}

// runDirect runs a command with no plan at all (the process environment, no sandbox): its
// own process group, killed on timeout or abort.
func runDirect(ctx context.Context, r BashRun, inner []string, stdout, stderr io.Writer) (sandbox.Result, error) {
	argv := []string{sandbox.Shell, "-lc", r.Command}
	if len(inner) > 0 {
		argv = inner
	}
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = r.Dir, env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return sandbox.Result{}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	pgid := cmd.Process.Pid
	wait := make(chan struct{})
	go func() { _ = cmd.Wait(); close(wait) }()
	var timer <-chan time.Time
	if r.Timeout > 0 {
		t := time.NewTimer(r.Timeout)
		defer t.Stop()
		timer = t.C
	}
	var err error
	select {
	case <-wait:
	case <-timer:
		err = &sandbox.TimeoutError{Timeout: r.Timeout}
	case <-ctx.Done():
		err = &sandbox.AbortError{Cause: ctx.Err()}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // nothing of the group outlives the call
	<-wait
	var res sandbox.Result
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		res.Signaled = ws.Signaled()
		res.ExitCode = ws.ExitStatus()
	}
	return res, err
}

// policy is the session's sandbox policy, the reference defaults when none was set.
func policy(s *toolrun.Session) sandbox.Policy {
	p := s.SandboxPolicy()
	if p.FSMode == "" && p.NetMode == "" {
		return sandbox.DefaultPolicy()
	}
	return p
}

// BashPlan builds the sandbox plan for a command of this session (a plan per command, so
// paths created in between are covered).
func BashPlan(s *toolrun.Session) (*sandbox.Plan, error) {
	if err := s.SandboxError(); err != nil {
		return nil, err
	}
	env := s.Environ
	if env.Home == "" && env.Path == "" {
		env = sandbox.HostEnviron()
	}
	return sandbox.NewPlan(policy(s), s.Cwd, env)
}

// WarmSandbox makes ahead, under the session's policy, what its first sandboxed command would
// otherwise make on its path ([sandbox.Warm]); nothing when the policy could not be read.
func WarmSandbox(s *toolrun.Session) {
	if s.SandboxError() != nil {
		return
	}
	sandbox.Warm(policy(s))
}

// DropSandboxAhead removes what [WarmSandbox] made ahead for a command that never came (the
// pids cgroup made ahead: [sandbox.DropAhead]); call it once the warm-up is done.
func DropSandboxAhead() { sandbox.DropAhead() }

// The escalation refusals (extensions-behaviour §3.6), byte for byte.
const (
	TextUnsandboxedDenied = "User denied unsandboxed execution."
	textRuleDenied        = "Command denied by bwrap approval rule: "
	textDeniedReason      = "User denied command execution with reason: "
	textDenied            = "User denied command execution."
	textDismissed         = "User denied the command execution."
)

// Escalation is the outcome of a dangerouslyDisableSandbox request that may go ahead.
type Escalation struct {
	// Plan is nil to run unsandboxed, else the sandbox plan ("Run this in sandbox").
	Plan *sandbox.Plan
	// InSandbox is true when the person sent the command back into the sandbox.
	InSandbox bool
}

// Escalate decides a request to run command outside the sandbox (extensions-behaviour
// §3.6): refused while requests are denied; else the approval rules (deny → refused, allow
// → unsandboxed); else the session's Approver (package approve: a headless session refuses,
// "always allow" patterns a person ticks are saved by the approvals' hook).
func Escalate(ctx context.Context, s *toolrun.Session, tool, command string) (Escalation, error) {
	if s.DenyingRequests() {
		return Escalation{}, errors.New(TextUnsandboxedDenied)
	}
	var ap sandbox.Approval
	if s.Rules != nil {
		ap = s.Rules.Evaluate(command)
	} else {
		ap = sandbox.Evaluate(policy(s).ApprovalRules, command)
	}
	switch ap.Decision {
	case sandbox.Deny:
		text := command
		for _, c := range ap.Commands {
			if c.Decision == sandbox.Deny {
				text = c.Text
				break
			}
		}
		return Escalation{}, errors.New(textRuleDenied + text)
	case sandbox.Allow:
		return Escalation{}, nil
	}
	d, err := s.ApproverFor(ctx).Ask(ctx, approve.Request{Kind: approve.KindCommand, Tool: tool, Command: command, Approval: ap,
		NoUI: TextUnsandboxedDenied})
	if err != nil {
		if ctx.Err() == nil {
			return Escalation{}, err
		}
		d = approve.Decision{Choice: approve.Dismissed} // aborted while the dialog was open
	}
	switch d.Choice {
	case approve.Allow, approve.AllowSession:
		return Escalation{}, nil
	case approve.RunInSandbox:
		pl, err := BashPlan(s)
		if err != nil {
			return Escalation{}, err
		}
		return Escalation{Plan: pl, InSandbox: true}, nil
	case approve.Deny:
		return Escalation{}, errors.New(TextUnsandboxedDenied)
	case approve.DenyReason:
		if d.Reason == "" {
			return Escalation{}, errors.New(textDenied)
		}
		return Escalation{}, errors.New(textDeniedReason + d.Reason)
	}
	if s.Abort != nil {
		s.Abort()
	}
	return Escalation{}, errors.New(textDismissed)
}

// CommandExecutionPrompt is the system-prompt section the sandbox appends (reference §1.6):
// "\n\n## Command Execution\n" and a text describing the session's sandbox. The seed's own
// mode text was not available to the reference; this one states the same facts.
func CommandExecutionPrompt(s *toolrun.Session) string {
	p := policy(s)
	var b strings.Builder
	b.WriteString("\n\n## Command Execution\n")
	if !p.Sandboxed() {
		b.WriteString("Commands run directly on the host, without a sandbox.")
		return b.String()
	}
	switch p.FSMode {
	case sandbox.FSReadonly:
		b.WriteString("Commands run in a bubblewrap sandbox with a read-only filesystem.")
	case sandbox.FSWorkspaceWrite:
		b.WriteString("Commands run in a bubblewrap sandbox: the workspace and /tmp are writable, everything else is read-only, and .pi, .agent and .git stay read-only.")
	default:
		b.WriteString("Commands run in a bubblewrap sandbox with a writable filesystem.")
	}
	switch p.NetMode {
	case sandbox.NetBlock:
		b.WriteString(" The network is blocked.")
	case sandbox.NetLimited:
		b.WriteString(" Only the hosts of the network allowlist are reachable.")
	}
	if s.DenyingRequests() {
		b.WriteString(" Requests to run outside the sandbox are denied.")
	} else {
		b.WriteString(" If a command fails because of these limits, retry it with dangerouslyDisableSandbox: true and say why; the user approves it.")
	}
	return b.String()
}
