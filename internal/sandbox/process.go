package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Process is a long-lived program started under a plan (an MCP stdio server): unlike [Run],
// the caller talks to it through its pipes for as long as it runs. It has its own process
// group; [Process.Stop] ends the whole tree.
type Process struct {
	// Stdin, Stdout and Stderr are the program's standard streams.
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr io.ReadCloser

	cmd   *exec.Cmd
	pgid  int
	pl    *Plan
	g     *guard
	done  chan struct{}
	err   error
	state *os.ProcessState

	stopOnce sync.Once
}

// StartOptions controls one [Start].
type StartOptions struct {
	// Dir is the working directory; "" means the plan's workspace.
	Dir string
	// Env replaces the plan's environment when non-nil.
	Env []string
}

// Start runs argv (one executable and its arguments, never a shell line) under the plan: inside
// bwrap when the plan is sandboxed (the same mounts, protections, seccomp filter and network
// namespace as a command of [Run]), otherwise directly. The process gets its own process group.
// A limited network is refused as [Run] refuses it.
func Start(pl *Plan, argv []string, opt StartOptions) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no program to start")
	}
	if pl.Sandboxed && pl.NetMode == NetLimited {
		env := Environ{Home: pl.home, Path: pl.pathEnv}
		if _, err := FindMihomo(pl.mihomoPath, env); err != nil {
			return nil, err
		}
		if _, err := FindSlirp4netns(pl.slirpPath, env); err != nil {
			return nil, err
		}
		return nil, ErrLimitedNotImplemented
	}
	env := pl.Env
	if opt.Env != nil {
		env = opt.Env
	}
	p := &Process{pl: pl, done: make(chan struct{})}
	full := argv
	var extra []*os.File
	if pl.Sandboxed {
		filter, err := pl.SeccompFilter()
		if err != nil {
			return nil, err
		}
		if filter != nil {
			r, err := filterPipe(filter)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			extra = append(extra, r)
		}
		if p.g, err = pl.prepare(); err != nil {
			return nil, err
		}
		full = pl.commandArgv("", argv)
	}
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Env = env
	cmd.Dir = firstNonEmpty(opt.Dir, pl.Workspace)
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if p.Stdin, err = cmd.StdinPipe(); err == nil {
		if p.Stdout, err = cmd.StdoutPipe(); err == nil {
			p.Stderr, err = cmd.StderrPipe()
		}
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		if p.g != nil {
			p.g.release()
		}
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	p.cmd, p.pgid = cmd, cmd.Process.Pid
	go func() {
		// Wait only for the process (the caller drains the pipes); then release the sandbox's
		// placeholders and put back protected links a server replaced.
		st, werr := cmd.Process.Wait()
		p.state, p.err = st, werr
		// Nothing of the group outlives the server (npx, uvx and their children).
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		if p.g != nil {
			p.g.release()
			pl.checkLinks()
		}
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id (also its process group id).
func (p *Process) Pid() int { return p.pgid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode is the exit code once Done is closed (128+N for signal N, -1 when unknown).
func (p *Process) ExitCode() int { return exitCode(p.state) }

// Stop ends the program the way the MCP specification asks for stdio servers: close its stdin
// and give it grace to exit, then SIGTERM to its process group, then SIGKILL after kill. It
// returns once the process has exited.
func (p *Process) Stop(grace, kill time.Duration) {
	p.stopOnce.Do(func() {
		_ = p.Stdin.Close()
		select {
		case <-p.done:
			return
		case <-time.After(grace):
		}
		_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
		select {
		case <-p.done:
			return
		case <-time.After(kill):
		}
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	})
	<-p.done
}
