package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
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
}

// Result is the outcome of a command that started.
type Result struct {
	ExitCode int    // the command's exit code; 124 on timeout; 128+N when killed by signal N
	Stdout   []byte // captured output when Options.Stdout was nil
	Stderr   []byte // captured output when Options.Stderr was nil
	Duration time.Duration
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
	return runArgv(ctx, pl.Argv(command, 0), pl.Env, firstNonEmpty(opt.Dir, pl.Workspace), opt)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runArgv is the process-group runner behind Run.
func runArgv(ctx context.Context, argv, env []string, dir string, opt Options) (Result, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdin = opt.Stdin
	var outBuf, errBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = opt.Stdout, opt.Stderr
	if cmd.Stdout == nil {
		cmd.Stdout = &outBuf
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &errBuf
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = waitDelay
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timer <-chan time.Time
	if opt.Timeout > 0 {
		t := time.NewTimer(opt.Timeout)
		defer t.Stop()
		timer = t.C
	}
	var stopErr error
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer:
		stopErr = &TimeoutError{Timeout: opt.Timeout}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		waitErr = <-done
	case <-ctx.Done():
		stopErr = &AbortError{Cause: ctx.Err()}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		waitErr = <-done
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
