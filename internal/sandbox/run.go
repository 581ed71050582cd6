package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/headbuf"
)

// ExitTimeout is the exit code reported when a command is killed by its timeout.
const ExitTimeout = 124

// Options controls one [Run].
type Options struct {
	Stdin   io.Reader     // nil: no input (/dev/null)
	Stdout  io.Writer     // nil: captured into Result.Stdout
	Stderr  io.Writer     // nil: captured into Result.Stderr
	Timeout time.Duration // 0: none
	Dir     string        // working directory; "" means the plan's workspace
	// Argv, when set, runs in place of the shell line (`bash -lc command`) inside the same
	// sandbox: a declarative tool's exec argv, or a configured shell with its own flags. The
	// words reach the program as they are, never through a shell.
	Argv []string
	// Env, when non-nil, replaces the plan's environment.
	Env []string
	// MaxProcesses caps the command's tasks (0: the package's MaxProcesses).
	MaxProcesses int
}

// Result is the outcome of a command that started.
type Result struct {
	ExitCode int    // the command's exit code; 124 on timeout; 128+N when killed by signal N
	Stdout   []byte // captured output when Options.Stdout was nil
	Stderr   []byte // captured output when Options.Stderr was nil
	Duration time.Duration
	// Restored says which protected symbolic links the command replaced and Run put back.
	Restored []string
	// Signaled is true when the command died of a signal (ExitCode is then 128+N).
	Signaled bool
}

// SetupError reports that bwrap could not set the sandbox up: the command did not run.
type SetupError struct{ Detail string }

// Error says the sandbox could not be set up, with bwrap's own message.
func (e *SetupError) Error() string {
	return "the sandbox could not be set up, the command did not run: " + e.Detail
}

// TimeoutError reports a command killed by its timeout; its text is "timeout:<seconds>".
type TimeoutError struct{ Timeout time.Duration }

// Error returns "timeout:N" with N the timeout in seconds.
func (e *TimeoutError) Error() string {
	return "timeout:" + strconv.FormatFloat(e.Timeout.Seconds(), 'f', -1, 64)
}

// AbortError reports a command killed because its context was cancelled.
type AbortError struct{ Cause error }

// Error says the command was aborted and why.
func (e *AbortError) Error() string { return "aborted: " + e.Cause.Error() }

// Unwrap returns the context's error.
func (e *AbortError) Unwrap() error { return e.Cause }

// waitDelay bounds how long Run waits for output pipes after the process group is dead (a
// daemonised grandchild that escaped the group may still hold them).
const waitDelay = 2 * time.Second

// reaperGrace bounds how long the reaper helper may take to kill an unsandboxed tree.
const reaperGrace = 3 * time.Second

// Run runs command ("bash -lc command") under the plan. The process gets its own process
// group; on timeout or cancellation the whole group gets SIGKILL (bwrap's --die-with-parent
// and PID namespace take the sandboxed tree with it). A non-zero exit is not an error: read
// Result.ExitCode. Errors: a refusal before start (limited network without its helpers), a
// start failure, [*TimeoutError] (ExitCode 124) or [*AbortError].
func Run(ctx context.Context, pl *Plan, command string, opt Options) (Result, error) {
	if pl.Sandboxed && pl.NetMode == NetLimited {
		env := Environ{Home: pl.home, Path: pl.pathEnv}
		if _, err := FindMihomo(pl.mihomoPath, env); err != nil {
			return Result{ExitCode: -1}, err
		}
		if _, err := FindSlirp4netns(pl.slirpPath, env); err != nil {
			return Result{ExitCode: -1}, err
		}
		return Result{ExitCode: -1}, ErrLimitedNotImplemented
	}
	dir := firstNonEmpty(opt.Dir, pl.Workspace)
	env := pl.Env
	if opt.Env != nil {
		env = opt.Env
	}
	if !pl.Sandboxed {
		argv, helped := reaperArgv(pl.commandArgv(command, opt.Argv))
		if helped {
			env = append(append([]string{}, env...), reaperEnv+"=1")
		}
		return runArgv(ctx, argv, env, dir, opt, nil, helped, nil)
	}
	filter, err := pl.SeccompFilter()
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	var extra []*os.File
	if filter != nil {
		r, err := filterPipe(filter)
		if err != nil {
			return Result{ExitCode: -1}, err
		}
		defer r.Close()
		extra = append(extra, r)
	}
	g, err := pl.prepare()
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	// bwrap's own failures are "bwrap: ..." as the first line of stderr with exit code 1; the
	// head of stderr is kept to tell them from the command's.
	head := &headbuf.Buffer{Max: headMax}
	o := opt
	maxProcs := opt.MaxProcesses
	if maxProcs <= 0 {
		maxProcs = MaxProcesses
	}
	argv := pl.commandArgv(command, opt.Argv)
	argv, cg, lim, err := limited(argv, slices.Index(argv, pl.Bwrap), maxProcs, 3+len(extra))
	defer func() { removeCgroupAfter(cg, lim.exited()) }()
	if err != nil {
		g.release()
		return Result{ExitCode: -1}, err
	}
	var start starter
	if lim != nil {
		defer lim.close()
		extra = append(extra, lim.files()...)
		start = lim
	}
	if o.Stderr == nil {
		var buf bytes.Buffer
		o.Stderr = io.MultiWriter(&buf, head)
		res, err := runArgv(ctx, argv, env, dir, o, extra, false, start)
		res.Stderr = buf.Bytes()
		return pl.finish(g, head, res, err)
	}
	o.Stderr = io.MultiWriter(opt.Stderr, head)
	if sameWriter(opt.Stdout, opt.Stderr) {
		// One writer for both (a merged transcript): keep it one pipe, so the command's
		// output arrives in the order it was written.
		o.Stdout = o.Stderr
	}
	res, err := runArgv(ctx, argv, env, dir, o, extra, false, start)
	return pl.finish(g, head, res, err)
}

// finish releases the placeholders, restores replaced links and turns a bwrap set-up failure
// into a [*SetupError].
func (pl *Plan) finish(g *guard, head *headbuf.Buffer, res Result, err error) (Result, error) {
	g.release()
	res.Restored = pl.checkLinks()
	if err == nil && res.ExitCode == 1 {
		if line, ok := firstLine(head); ok && strings.HasPrefix(line, "bwrap: ") {
			return res, &SetupError{Detail: line}
		}
	}
	return res, err
}

// sameWriter is true when a and b are the same writer (os/exec's own test for sharing one
// pipe; writers of incomparable types are never the same).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a != nil && a == b
}

// headMax is how much of bwrap's stderr is kept to tell its own failure from the command's.
const headMax = 512

// firstLine returns the first complete line of h (or all of a short output without a newline).
func firstLine(h *headbuf.Buffer) (string, bool) {
	s := h.String()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], true
	}
	return s, len(s) > 0 && len(s) < headMax
}

// filterPipe returns the read end of a pipe holding the seccomp program (bwrap reads it to
// the end). The program is a few dozen bytes, far below a pipe's buffer.
func filterPipe(filter []byte) (*os.File, error) {
	r, w, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	_, err = w.Write(filter)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	return r, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// starter starts a command in place of exec.Cmd.Start, and is told its pid once started.
type starter interface {
	start(cmd *exec.Cmd) error
	started(pid int) error
}

// runArgv is the process-group runner behind Run. st, when set, starts the process and is
// told its pid; an error from started kills the process group and is returned.
func runArgv(ctx context.Context, argv, env []string, dir string, opt Options, extra []*os.File, reaper bool, st starter) (Result, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = extra
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdin = opt.Stdin
	if cmd.Stdin == nil {
		if null := devNull(); null != nil {
			cmd.Stdin = null // what os/exec would open for this run, opened once
		}
	}
	var outBuf, errBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = opt.Stdout, opt.Stderr
	if cmd.Stdout == nil {
		cmd.Stdout = &outBuf
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &errBuf
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if reaper {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM // the helper cleans up when pigo dies
	}
	cmd.WaitDelay = waitDelay
	start := time.Now()
	startCmd := cmd.Start
	if st != nil {
		startCmd = func() error { return st.start(cmd) }
	}
	if err := startCmd(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if st != nil {
		if err := st.started(pgid); err != nil {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
			return Result{ExitCode: -1}, err
		}
	}

	var timer <-chan time.Time
	if opt.Timeout > 0 {
		t := time.NewTimer(opt.Timeout)
		defer t.Stop()
		timer = t.C
	}
	var stopErr error
	var waitErr error
	// stop kills the tree: the reaper helper gets SIGTERM and a moment to kill the
	// descendants that left the group, then the group gets SIGKILL.
	stop := func() {
		if reaper {
			_ = syscall.Kill(pgid, syscall.SIGTERM)
			select {
			case waitErr = <-done:
				return
			case <-time.After(reaperGrace):
			}
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		waitErr = <-done
	}
	select {
	case waitErr = <-done:
	case <-timer:
		stopErr = &TimeoutError{Timeout: opt.Timeout}
		stop()
	case <-ctx.Done():
		stopErr = &AbortError{Cause: ctx.Err()}
		stop()
	}
	// Whatever the outcome, nothing of the group may outlive Run.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	res := Result{Duration: time.Since(start)}
	if opt.Stdout == nil {
		res.Stdout = outBuf.Bytes()
	}
	if opt.Stderr == nil {
		res.Stderr = errBuf.Bytes()
	}
	res.ExitCode = exitCode(cmd.ProcessState)
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			res.Signaled = ws.Signaled()
		}
	}
	switch e := stopErr.(type) {
	case *TimeoutError:
		res.ExitCode = ExitTimeout
		return res, e
	case *AbortError:
		return res, e
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return res, waitErr
	}
	return res, nil
}

// devNull is /dev/null opened read-only once a process, the standard input of every command
// run without one: os/exec opens it for each start otherwise, an *os.File's open (six system
// calls with the poller's) and close on the path. nil when it cannot be opened (os/exec then
// opens it itself, and reports why).
var devNull = sync.OnceValue(func() *os.File {
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), os.DevNull)
})

// commandArgv is the plan's argv for command, with inner (when given) in place of the
// trailing shell words.
func (pl *Plan) commandArgv(command string, inner []string) []string {
	argv := pl.Argv(command, 0)
	if len(inner) == 0 {
		return argv
	}
	return append(argv[:len(argv)-3:len(argv)-3], inner...)
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	st, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return -1
	}
	if st.Signaled() {
		return 128 + int(st.Signal())
	}
	return st.ExitStatus()
}
