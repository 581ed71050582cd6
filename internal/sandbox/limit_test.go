package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// directStart skips unless Run starts bwrap itself here (bwrap not setuid; cgroup v1 or no
// pids cgroup for pigo), and returns the pids hierarchy.
func directStart(t *testing.T) pidsHierarchy {
	t.Helper()
	needBwrap(t)
	bwrap, err := exec.LookPath("bwrap")
	must(t, err)
	argv, cg, lim, err := limited([]string{bwrap, "x"}, 0, 8, 3)
	must(t, err)
	removeCgroup(cg)
	if lim == nil {
		t.Skipf("Run starts bwrap through the wrapper bash here: %q", argv)
	}
	lim.close()
	return pidsRoot()
}

// TestDirectStartLimits: in a directly started sandbox the limit holds for every process,
// bwrap's own pid 1 included (it is forked after the release): RLIMIT_NPROC soft and hard
// at the limit, and the run's pids cgroup where pigo makes one. Without the prlimit the
// limits are the host's; without the thread's join no process is in a pigo cgroup.
func TestDirectStartLimits(t *testing.T) {
	root := directStart(t)
	ws := newWorkspace(t)
	pl, err := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	must(t, err)
	res, err := Run(context.Background(), pl, `for p in 1 $$; do grep '^Max processes' /proc/$p/limits; grep -E '^[0-9]+:(pids)?:' /proc/$p/cgroup; done`, Options{MaxProcesses: 64})
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	var limits, cgroups int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "Max processes"):
			if f := strings.Fields(l); len(f) < 4 || f[2] != "64" || f[3] != "64" {
				t.Errorf("limit line %q: want 64 64", l)
			}
			limits++
		case strings.Contains(l, fmt.Sprintf("/pigo-%d-", os.Getpid())):
			cgroups++
		}
	}
	if limits != 2 {
		t.Errorf("%d limit lines, want 2:\n%s%s", limits, res.Stdout, res.Stderr)
	}
	if root.dir != "" && cgroups != 2 {
		t.Errorf("%d processes in the run's pids cgroup, want 2:\n%s%s", cgroups, res.Stdout, res.Stderr)
	}
}

// TestDirectStartThreadLeaves: the threads that started bwrap, four runs at a time, are back
// in pigo's own cgroup (every thread of the process is), and the runs' cgroups are gone
// after them. Without the leave, a thread stays in a run's cgroup, which then cannot be
// removed.
func TestDirectStartThreadLeaves(t *testing.T) {
	root := directStart(t)
	if root.dir == "" {
		t.Skip("pigo cannot make pids cgroups here (not root, or no pids controller)")
	}
	ws := newWorkspace(t)
	pl, err := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	must(t, err)
	// Four at a time, as the agent runs a reply's calls in parallel: each start locks its
	// own thread.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				res, err := Run(context.Background(), pl, "echo ok", Options{})
				if err != nil || string(res.Stdout) != "ok\n" {
					t.Errorf("run: %q %q %v", res.Stdout, res.Stderr, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	tasks, err := filepath.Glob("/proc/self/task/*/cgroup")
	must(t, err)
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		if strings.Contains(string(b), fmt.Sprintf("/pigo-%d-", os.Getpid())) {
			t.Errorf("%s is still in a run's cgroup:\n%s", f, b)
		}
	}
	left, _ := filepath.Glob(filepath.Join(root.dir, fmt.Sprintf("pigo-%d-*", os.Getpid())))
	if len(left) > 0 {
		t.Errorf("cgroups left after the runs: %q", left)
	}
}

// TestDirectStartFailsClosed: when the limit cannot be set (prlimit refused, the cgroup not
// joined or not left), Run reports it and the command does not run.
func TestDirectStartFailsClosed(t *testing.T) {
	root := directStart(t)
	ws := newWorkspace(t)
	pl, err := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	must(t, err)
	type fault struct {
		name   string
		inject func() func()
	}
	faults := []fault{{"prlimit", func() func() {
		old := prlimit
		prlimit = func(pid int, res int, n, o *unix.Rlimit) error {
			if n != nil {
				return syscall.EPERM
			}
			if o != nil {
				*o = unix.Rlimit{Cur: 1 << 20, Max: 1 << 20}
			}
			return nil
		}
		return func() { prlimit = old }
	}}}
	if root.dir != "" {
		for _, which := range []string{"join", "leave"} {
			faults = append(faults, fault{which, func() func() {
				old := writeCgroupFile
				writeCgroupFile = func(name, s string) error {
					if (which == "join") != strings.Contains(name, "/pigo-") {
						return old(name, s)
					}
					if which == "leave" {
						// The thread does leave (the test's other threads must not stay in a
						// run's cgroup: the goroutine may be on the main thread, which Go
						// parks for good instead of ending it), but the write reports failure.
						_ = old(name, s)
					}
					return syscall.EACCES
				}
				return func() { writeCgroupFile = old }
			}})
		}
	}
	for _, f := range faults {
		restore := f.inject()
		ran := filepath.Join(ws, "ran-"+f.name)
		_, err := Run(context.Background(), pl, "touch "+ran, Options{})
		restore()
		// The texts the bash tool reports (golden).
		want := map[string]string{
			"prlimit": "process limit: operation not permitted",
			"join":    "start /usr/bin/bwrap: process limit: joining the pids cgroup: permission denied",
			"leave":   "start /usr/bin/bwrap: process limit: leaving the pids cgroup: permission denied",
		}[f.name]
		if want = strings.Replace(want, "/usr/bin/bwrap", pl.Bwrap, 1); err == nil || err.Error() != want {
			t.Errorf("%s refused: err = %v, want %q", f.name, err, want)
		}
		if _, err := os.Stat(ran); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s refused: the command ran", f.name)
		}
		// Nothing of the sandbox is left waiting (bwrap's child blocks on the block fd, or
		// on bwrap's eventfd when bwrap died first: it must have been killed with it).
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, c := range cmdlines {
			if b, err := os.ReadFile(c); err == nil && strings.Contains(string(b), ran) {
				t.Errorf("%s refused: %s is left: %q", f.name, filepath.Dir(c), b)
			}
		}
	}
	// A hard limit already below the limit, which pigo may not raise, is kept (bash's
	// `ulimit -u` failed the same way and left it).
	old := prlimit
	defer func() { prlimit = old }()
	prlimit = func(pid int, res int, n, o *unix.Rlimit) error {
		if n != nil {
			return syscall.EPERM
		}
		*o = unix.Rlimit{Cur: 10, Max: 10}
		return nil
	}
	if err := limitNproc(os.Getpid(), 64); err != nil {
		t.Errorf("a lower hard limit: %v", err)
	}
}

// TestSetuidBwrapKeepsWrapper: a setuid bwrap runs its child in a namespace root owns,
// which pigo may not prlimit: it is started through the wrapper bash.
func TestSetuidBwrapKeepsWrapper(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bwrap")
	must(t, os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Chmod(f, 0o755|os.ModeSetuid))
	if fi, err := os.Stat(f); err != nil || fi.Mode()&os.ModeSetuid == 0 {
		t.Skip("cannot make a setuid file here")
	}
	argv, cg, lim, err := limited([]string{f, "--ro-bind", "/", "/"}, 0, 8, 3)
	must(t, err)
	removeCgroup(cg)
	if lim != nil || argv[0] != Shell || argv[2] != wrapperScript || !slices.Contains(argv, f) {
		t.Errorf("setuid bwrap started directly: %q", argv)
	}
}

// TestDirectStartSetupFailureRace: when bwrap's set-up fails, its processes may be gone before
// pigo limits them (prlimit: ESRCH; the release: EPIPE); the run reports bwrap's own message,
// as it did through the wrapper, not a process-limit error. The race is forced here.
func TestDirectStartSetupFailureRace(t *testing.T) {
	directStart(t)
	old := prlimit
	defer func() { prlimit = old }()
	prlimit = func(pid int, res int, n, o *unix.Rlimit) error { return syscall.ESRCH }
	err := runFailingSetup(t, newWorkspace(t))
	var se *SetupError
	if !errors.As(err, &se) {
		t.Errorf("err = %v, want bwrap's set-up failure", err)
	}
}

// aheadDir is the cgroup made ahead and waiting ("" when none).
func aheadDir() string {
	aheadCgroup.Lock()
	defer aheadCgroup.Unlock()
	return aheadCgroup.dir
}

// TestAheadCgroup: the pids cgroup Warm makes ahead is the next default-limit command's own:
// bwrap's pid 1 and the command's shell are in it, under its pids.max of MaxProcesses, and
// the run removes it as its own; a command with another limit makes its own cgroup and leaves
// the one made ahead waiting; one no command took is removed by DropAhead.
func TestAheadCgroup(t *testing.T) {
	root := directStart(t)
	if root.dir == "" || root.join != "tasks" {
		t.Skip("pigo cannot make cgroup v1 pids cgroups here (not root, or no pids controller)")
	}
	DropAhead()
	t.Cleanup(DropAhead)
	Warm(DefaultPolicy())
	ahead := aheadDir()
	if ahead == "" || !strings.HasPrefix(filepath.Base(ahead), fmt.Sprintf("pigo-%d-", os.Getpid())) {
		t.Fatalf("Warm made %q ahead, want a cgroup of this process", ahead)
	}
	if b, err := os.ReadFile(filepath.Join(ahead, "pids.max")); err != nil || strings.TrimSpace(string(b)) != "1024" {
		t.Fatalf("pids.max of the cgroup made ahead: %q %v", b, err)
	}
	rel, ok := strings.CutPrefix(ahead, "/sys/fs/cgroup/pids")
	if !ok {
		t.Skipf("pids hierarchy at %s", ahead)
	}
	ws := newWorkspace(t)
	pl, err := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	must(t, err)

	res, err := Run(context.Background(), pl, `grep -E '^[0-9]+:pids:' /proc/$$/cgroup`, Options{MaxProcesses: 64})
	must(t, err)
	if strings.HasSuffix(strings.TrimSpace(string(res.Stdout)), ":pids:"+rel) || aheadDir() != ahead {
		t.Fatalf("a command with another limit took the cgroup made ahead: %q", res.Stdout)
	}

	res, err = Run(context.Background(), pl, `for p in 1 $$; do grep -E '^[0-9]+:pids:' /proc/$p/cgroup; done; cat /sys/fs/cgroup/pids`+rel+`/pids.max`, Options{})
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], ":pids:"+rel) || !strings.HasSuffix(lines[1], ":pids:"+rel) || lines[2] != "1024" {
		t.Fatalf("the command's processes and limit:\n%s%s\nwant both in %s, pids.max 1024", res.Stdout, res.Stderr, rel)
	}
	if _, err := os.Stat(ahead); !os.IsNotExist(err) || aheadDir() != "" {
		t.Fatalf("after the run: %v, waiting %q; want the cgroup removed and none waiting", err, aheadDir())
	}

	Warm(DefaultPolicy())
	unused := aheadDir()
	if unused == "" {
		t.Fatal("a second Warm made no cgroup ahead")
	}
	DropAhead()
	if _, err := os.Stat(unused); !os.IsNotExist(err) || aheadDir() != "" {
		t.Fatalf("DropAhead left %s: %v", unused, err)
	}
}

// TestAheadCgroupSwept: a cgroup made ahead by a pigo that ended without using or dropping it
// (killed, or a process without a session's Close) is removed by the next pigo's sweep; one
// of a pigo still running is kept.
func TestAheadCgroupSwept(t *testing.T) {
	root := directStart(t)
	if root.dir == "" {
		t.Skip("pigo cannot make pids cgroups here (not root, or no pids controller)")
	}
	ended := exec.Command("true")
	must(t, ended.Run())
	running := exec.Command("sleep", "30")
	must(t, running.Start())
	defer func() { _ = running.Process.Kill(); _ = running.Wait() }()
	gone := filepath.Join(root.dir, fmt.Sprintf("pigo-%d-1", ended.Process.Pid))
	kept := filepath.Join(root.dir, fmt.Sprintf("pigo-%d-1", running.Process.Pid))
	for _, d := range []string{gone, kept} {
		must(t, os.Mkdir(d, 0o755))
		defer unix.Rmdir(d)
		must(t, os.WriteFile(filepath.Join(d, "pids.max"), []byte("1024"), 0o644))
	}
	sweepCgroups(root.dir)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the ended pigo's cgroup %s was not swept: %v", gone, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the running pigo's cgroup %s was swept: %v", kept, err)
	}
}

// TestStartFilesWithoutPoller: the descriptors a sandboxed start makes for itself (the
// seccomp program's pipe, the --info-fd and --block-fd pipes, the standard input) are plain
// blocking close-on-exec descriptors, not the poller's (os.Pipe's and os.Open's ends are
// non-blocking and registered with epoll: system calls at each open, close and hand-over to
// bwrap); data still flows through them, and a control file is written in one write.
func TestStartFilesWithoutPoller(t *testing.T) {
	plain := func(name string, f *os.File) {
		t.Helper()
		// Not f.Fd(): it makes a poller's descriptor blocking.
		var fl, fd int
		rc, err := f.SyscallConn()
		must(t, err)
		must(t, rc.Control(func(d uintptr) {
			fl, _ = unix.FcntlInt(d, unix.F_GETFL, 0)
			fd, _ = unix.FcntlInt(d, unix.F_GETFD, 0)
		}))
		if fl&unix.O_NONBLOCK != 0 || fd&unix.FD_CLOEXEC == 0 {
			t.Errorf("%s: flags %#x, descriptor flags %#x: want blocking and close-on-exec", name, fl, fd)
		}
	}
	r, err := filterPipe([]byte("program"))
	must(t, err)
	plain("seccomp pipe", r)
	if b, err := io.ReadAll(r); err != nil || string(b) != "program" {
		t.Errorf("seccomp pipe read %q, %v", b, err)
	}
	r.Close()

	l := &startLimit{}
	l.infoR, l.infoW, err = pipe()
	must(t, err)
	l.blockR, l.block, err = pipe()
	must(t, err)
	for i, f := range []*os.File{l.infoR, l.infoW, l.blockR, l.block} {
		plain(fmt.Sprint("limit pipe ", i), f)
	}
	l.close()

	null := devNull()
	if null == nil {
		t.Fatal("no /dev/null")
	}
	plain("standard input", null)
	if fl, _ := unix.FcntlInt(null.Fd(), unix.F_GETFL, 0); fl&unix.O_ACCMODE != unix.O_RDONLY { // blocking already
		t.Errorf("/dev/null opened %#x, want read-only", fl)
	}

	f := filepath.Join(t.TempDir(), "pids.max")
	must(t, os.WriteFile(f, []byte("old value"), 0o644))
	must(t, writeControl(f, "64"))
	if b, _ := os.ReadFile(f); string(b) != "64" {
		t.Errorf("control file holds %q after the write, want 64", b)
	}
	if err := writeControl(filepath.Join(t.TempDir(), "missing", "pids.max"), "1"); err == nil || !strings.HasPrefix(err.Error(), "open ") {
		t.Errorf("write of a missing control file: %v", err)
	}
}

// TestRemoveCgroupWaitsForExit: a run's cgroup still holding its sandbox child (which tears
// its namespaces down after its pipes closed) is removed as soon as the child has exited,
// waited for on its pidfd, with no pause (the kernel refuses the rmdir while the task is in
// it). Without the pidfd the removal pauses 1 ms, 2 ms, ... between rmdirs.
func TestRemoveCgroupWaitsForExit(t *testing.T) {
	root := pidsRoot()
	if root.dir == "" {
		t.Skip("no pids cgroup for pigo here")
	}
	cg, join := makePidsCgroup(root, 8)
	if cg == "" {
		t.Skip("cannot make a pids cgroup")
	}
	cmd := exec.Command("sleep", "0.2")
	must(t, cmd.Start())
	defer cmd.Wait()
	must(t, os.WriteFile(join, []byte(fmt.Sprint(cmd.Process.Pid)), 0))
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		removeCgroup(cg)
		t.Skipf("pidfd_open: %v", err)
	}
	var pauses int
	cgroupPause = func(d time.Duration) { pauses++; time.Sleep(d) }
	defer func() { cgroupPause = time.Sleep }()
	removeCgroupAfter(cg, fd)
	if _, err := os.Stat(cg); !os.IsNotExist(err) {
		t.Fatalf("cgroup left: %v", err)
	}
	if pauses != 0 {
		t.Fatalf("%d pauses while waiting for the task's exit", pauses)
	}
	if err := unix.Close(fd); err != unix.EBADF {
		t.Fatalf("the pidfd was not closed (close: %v)", err)
	}
}
