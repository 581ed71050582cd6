package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// MaxProcesses caps the tasks (processes and threads) of one sandboxed command: a model
// that starts hundreds of background processes in one call (the red team started 400)
// gets "fork: Resource temporarily unavailable" instead. Enough for a parallel build.
const MaxProcesses = 1024

// The limit holds before anything of the command runs. Where bwrap is not setuid and the
// pids hierarchy (if pigo may make cgroups at all) is cgroup v1, pigo starts bwrap itself:
//   - the cgroup: the thread that starts bwrap joins the run's pids cgroup for the fork and
//     leaves it right after (cgroup v1's `tasks` moves one thread: writing 0 moves the
//     writer without the kernel's global threadgroup lock, whose RCU grace period made the
//     write of another process's pid take 5–14 ms of wall time), so bwrap is born in the
//     cgroup and everything it starts too;
//   - RLIMIT_NPROC (the kernel counts it per user namespace, so the sandbox's new namespace
//     counts its own tasks; it binds every user but root): bwrap gets `--info-fd` and
//     `--block-fd`; its sandbox child (pid 1 of the sandbox) sets the sandbox up and then
//     waits on the block fd before it forks the command's process or execs anything;
//     pigo reads the child's pid from the info fd, sets the limit on bwrap and on that
//     child (prlimit), and only then releases it.
//
// So no process of the command is ever outside either limit. If a limit cannot be set, the
// sandbox is killed before the release: the command does not run. This replaced a wrapper
// bash that set the limit and joined the cgroup before exec'ing bwrap: one bash start per
// sandboxed command.
//
// Elsewhere the wrapper stays: a setuid bwrap (where unprivileged user namespaces are off)
// runs its child as root in a namespace root owns, which pigo may not prlimit; on cgroup v2
// a thread cannot join alone (the route there is CLONE_INTO_CGROUP, not taken: this
// machine has v1 and it could not be tested). wrapperScript's arguments: $1 the file to
// write to join the cgroup ("" for none), $2 the limit, then the bwrap argv; it joins by
// writing 0 (itself) to its file: on v1 `tasks`, on v2 `cgroup.procs`.
//
// The environment has the same variables either way: bash's exec exports SHLVL, PWD,
// OLDPWD and _ whatever the environment held, so bwrap gets --unsetenv for each right after
// its path (in both starts), and the sandbox sees exactly the plan's variables (bwrap sets
// PWD itself after its chdir). Their order is the plan's in a direct start (as in an
// unsandboxed one), bash's own through the wrapper.
const wrapperScript = `ulimit -u "$2" 2>/dev/null; [ -z "$1" ] || echo 0 > "$1" 2>/dev/null; shift 2; exec "$@"`

// wrapperExports are the variables the wrapper's bash adds to what it execs.
var wrapperExports = []string{"SHLVL", "PWD", "OLDPWD", "_"}

// startLimit is the limit of one directly started bwrap: the cgroup's join file and the
// file to write to leave it ("" for no cgroup), the limit, and the two pipes bwrap gets
// (info: it writes the child's pid; block: the child waits on it).
type startLimit struct {
	join, leave   string
	max           int
	infoR, infoW  *os.File
	blockR, block *os.File
	// exit is a pidfd of bwrap's sandbox child (its pid 1), opened while it waits on the
	// block fd, when the run has a cgroup; -1 otherwise. See removeCgroupAfter.
	exit int
}

// limited returns argv (whose element at bwrapAt is bwrap's path) with the process limit,
// the cgroup to remove after the run ("" when none was made) and, for a direct start, the
// limit pigo applies as it starts bwrap (nil: argv runs through the wrapper). fd is the
// descriptor number the first of the start's two extra files gets in bwrap.
func limited(argv []string, bwrapAt, max, fd int) ([]string, string, *startLimit, error) {
	if bwrapAt < 0 || bwrapAt >= len(argv) {
		return wrapped(argv, bwrapAt, max)
	}
	root := pidsRoot()
	if root.join != "" && root.join != "tasks" {
		return wrapped(argv, bwrapAt, max)
	}
	if fi, err := os.Stat(argv[bwrapAt]); err != nil || fi.Mode()&os.ModeSetuid != 0 {
		return wrapped(argv, bwrapAt, max)
	}
	l := &startLimit{max: max, exit: -1}
	var err error
	if l.infoR, l.infoW, err = pipe(); err != nil {
		return nil, "", nil, fmt.Errorf("process limit: %w", err)
	}
	if l.blockR, l.block, err = pipe(); err != nil {
		l.close()
		return nil, "", nil, fmt.Errorf("process limit: %w", err)
	}
	cg, join := newPidsCgroup(max)
	if join != "" {
		l.join, l.leave = join, filepath.Join(root.dir, root.join)
	}
	out := make([]string, 0, len(argv)+4+2*len(wrapperExports))
	out = append(out, argv[:bwrapAt+1]...)
	out = append(out, "--info-fd", strconv.Itoa(fd), "--block-fd", strconv.Itoa(fd+1))
	for _, v := range wrapperExports {
		out = append(out, "--unsetenv", v)
	}
	return append(out, argv[bwrapAt+1:]...), cg, l, nil
}

// wrapped is argv run through the wrapper bash.
func wrapped(argv []string, bwrapAt, max int) ([]string, string, *startLimit, error) {
	cg, procs := newPidsCgroup(max)
	out := make([]string, 0, 6+len(argv)+2*len(wrapperExports))
	out = append(out, Shell, "-c", wrapperScript, "pigo-limit", procs, strconv.Itoa(max))
	if bwrapAt < 0 || bwrapAt >= len(argv) {
		return append(out, argv...), cg, nil, nil
	}
	out = append(out, argv[:bwrapAt+1]...)
	for _, v := range wrapperExports {
		out = append(out, "--unsetenv", v)
	}
	return append(out, argv[bwrapAt+1:]...), cg, nil, nil
}

// files are the two descriptors bwrap gets, in the order of its --info-fd and --block-fd.
func (l *startLimit) files() []*os.File { return []*os.File{l.infoW, l.blockR} }

// close closes whatever of the pipes is still open (the release, when it was not made,
// lets bwrap's child go on; apply kills the sandbox first when the limit failed).
func (l *startLimit) close() {
	for _, f := range []*os.File{l.infoR, l.infoW, l.blockR, l.block} {
		if f != nil {
			f.Close()
		}
	}
}

// start starts cmd (bwrap, in its own process group) from a thread that is in the run's
// pids cgroup for the fork only. If the thread cannot leave the cgroup again, bwrap is
// killed, the thread ends with its goroutine (Go terminates a thread whose goroutine exits
// locked to it; the main thread it parks for good, still in that cgroup, which is then
// left behind) and start fails.
func (l *startLimit) start(cmd *exec.Cmd) error {
	if l.join == "" {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := writeCgroupFile(l.join, "0"); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("process limit: joining the pids cgroup: %w", err)
			return
		}
		err := cmd.Start()
		if lerr := writeCgroupFile(l.leave, "0"); lerr != nil {
			if err == nil {
				// bwrap's child waits on the block fd, in bwrap's process group: kill both
				// before anything closes that fd.
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				_ = cmd.Wait()
				err = fmt.Errorf("process limit: leaving the pids cgroup: %w", lerr)
			}
			errc <- err
			return // still locked: the thread ends
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}

// writeCgroupFile writes s to a cgroup control file (a variable for the fail-closed test).
var writeCgroupFile = writeControl

// writeControl writes s to a control file as os.WriteFile(name, s, 0) does (the same open
// flags), in one write: open, write, close, where os.WriteFile's *os.File adds five system
// calls (the descriptor made non-blocking for the poller, refused by epoll, made blocking
// again).
func writeControl(name, s string) error {
	fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	n, err := unix.Write(fd, []byte(s))
	if cerr := unix.Close(fd); err == nil && cerr != nil {
		err = cerr
	}
	switch {
	case err != nil:
		return &os.PathError{Op: "write", Path: name, Err: err}
	case n < len(s):
		return &os.PathError{Op: "write", Path: name, Err: io.ErrShortWrite}
	}
	return nil
}

// pipe is os.Pipe without the poller: both ends blocking, close-on-exec. os.Pipe registers
// each end with the poller (two fcntls and an epoll_ctl each, an epoll_ctl again at close,
// fcntls again to hand an end to a child); the pipes of a sandboxed start are read and written
// a few bytes at a time, or handed to bwrap.
func pipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// started runs once bwrap (pid) has started: it reads the sandbox child's pid, limits bwrap
// and the child, and releases the child. An error means the limit does not hold: the
// caller kills the process group without releasing anything (the child is still in it:
// bwrap's setsid comes after the release). When bwrap ends before it writes its info (it
// could not start), there is nothing to limit and started returns nil.
func (l *startLimit) started(pid int) error {
	l.infoW.Close()
	l.blockR.Close()
	l.infoW, l.blockR = nil, nil
	info, err := io.ReadAll(l.infoR)
	if err != nil {
		return fmt.Errorf("process limit: %w", err)
	}
	if len(info) == 0 {
		return nil // bwrap ended before its sandbox existed; the child, if any, is never released
	}
	child, ok := childPid(info)
	if !ok {
		return fmt.Errorf("process limit: bwrap's --info-fd gave no child pid: %q", info)
	}
	if l.join != "" {
		// Alive (it waits for the release), so the pid is that child's.
		if fd, err := unix.PidfdOpen(child, 0); err == nil {
			l.exit = fd
		}
	}
	for _, p := range []int{pid, child} {
		// ESRCH: it has already ended (bwrap's set-up failed: a bad bind, say), so it runs
		// nothing more; the run then reports bwrap's own message.
		if err := limitNproc(p, l.max); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	// EPIPE: no reader is left, so no child waits for the release.
	if _, err := l.block.Write([]byte{1}); err != nil && !errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("process limit: releasing the sandbox: %w", err)
	}
	return nil
}

// childPid reads "child-pid" from bwrap's --info-fd JSON.
func childPid(info []byte) (int, bool) {
	var v struct {
		Pid int `json:"child-pid"`
	}
	if json.Unmarshal(info, &v) != nil || v.Pid <= 0 {
		return 0, false
	}
	return v.Pid, true
}

// prlimit is unix.Prlimit (a variable for the fail-closed test).
var prlimit = unix.Prlimit

// limitNproc sets RLIMIT_NPROC of pid to max, soft and hard, as bash's `ulimit -u` did: a
// hard limit already at or below max that pigo may not raise is kept (bash failed and left
// it, silently); any other failure is an error.
func limitNproc(pid, max int) error {
	want := unix.Rlimit{Cur: uint64(max), Max: uint64(max)}
	err := prlimit(pid, unix.RLIMIT_NPROC, &want, nil)
	if err == nil {
		return nil
	}
	var old unix.Rlimit
	if prlimit(pid, unix.RLIMIT_NPROC, nil, &old) == nil && old.Max <= want.Max {
		return nil
	}
	return fmt.Errorf("process limit: %w", err)
}

var cgroupSeq atomic.Int64

// pidsHierarchy is where pigo makes pids cgroups: the pids controller's directory for pigo's
// own cgroup ("" when pigo cannot make cgroups there) and the file a process writes 0 to
// to join one of them.
type pidsHierarchy struct{ dir, join string }

// pidsRoot finds the pids hierarchy (once per process).
var pidsRoot = sync.OnceValue(func() pidsHierarchy {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return pidsHierarchy{}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, join string
		switch {
		case parts[0] != "0" && hasWord(parts[1], "pids"): // cgroup v1
			dir, join = filepath.Join("/sys/fs/cgroup/pids", parts[2]), "tasks"
		case parts[0] == "0" && parts[1] == "": // cgroup v2: pids must be on for children
			dir, join = filepath.Join("/sys/fs/cgroup", parts[2]), "cgroup.procs"
			sub, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
			if err != nil || !hasWord(strings.ReplaceAll(string(sub), " ", ","), "pids") {
				continue
			}
		default:
			continue
		}
		probe := filepath.Join(dir, fmt.Sprintf("pigo-probe-%d", os.Getpid()))
		if err := os.Mkdir(probe, 0o755); err != nil {
			continue
		}
		_, err := os.Stat(filepath.Join(probe, "pids.max"))
		_ = os.Remove(probe)
		if err == nil {
			sweepCgroups(dir)
			return pidsHierarchy{dir, join}
		}
	}
	return pidsHierarchy{}
})

func hasWord(list, w string) bool {
	for _, x := range strings.Split(strings.TrimSpace(list), ",") {
		if x == w {
			return true
		}
	}
	return false
}

// newPidsCgroup returns a pids cgroup of its own for a run, with pids.max = max, and the file
// to write to join it; "" when it cannot: the one [Warm] made ahead when max is the default
// limit and it is there, else a fresh one.
func newPidsCgroup(max int) (dir, join string) {
	root := pidsRoot()
	if root.dir == "" {
		return "", ""
	}
	if max == MaxProcesses {
		if dir = takeAheadCgroup(); dir != "" {
			return dir, filepath.Join(dir, root.join)
		}
	}
	return makePidsCgroup(root, max)
}

// aheadCgroup is a pids cgroup [Warm] made, off the path, for the next command with the
// default limit (a run's cgroup like any other: empty, pids.max = MaxProcesses, named after
// this process): making one is a mkdir and a write of pids.max, ~0.1–0.25 ms on the first
// command's path. The command that takes it removes it after its run as it would its own; one
// that no command took is removed by [DropAhead] (a session's Close), or, when the process
// ends without it, by the next pigo's sweep (its name carries this process's pid).
var aheadCgroup struct {
	sync.Mutex
	dir string
}

// makeAheadCgroup makes the cgroup for the next command when none is waiting.
func makeAheadCgroup() {
	root := pidsRoot()
	if root.dir == "" {
		return
	}
	aheadCgroup.Lock()
	defer aheadCgroup.Unlock()
	if aheadCgroup.dir == "" {
		aheadCgroup.dir, _ = makePidsCgroup(root, MaxProcesses)
	}
}

// takeAheadCgroup returns the cgroup made ahead ("" when none), which is then the caller's.
func takeAheadCgroup() string {
	aheadCgroup.Lock()
	defer aheadCgroup.Unlock()
	dir := aheadCgroup.dir
	aheadCgroup.dir = ""
	return dir
}

// DropAhead removes the pids cgroup [Warm] made ahead for a command when no command took it.
// Call it when a session that was warmed ends (after its warm-up is done).
func DropAhead() { removeCgroup(takeAheadCgroup()) }

// exited returns the pidfd of bwrap's sandbox child (-1 when none, or l nil); the caller
// closes it (removeCgroupAfter).
func (l *startLimit) exited() int {
	if l == nil {
		return -1
	}
	fd := l.exit
	l.exit = -1
	return fd
}

// makePidsCgroup makes a fresh pids cgroup under root with pids.max = max.
func makePidsCgroup(root pidsHierarchy, max int) (dir, join string) {
	dir = filepath.Join(root.dir, fmt.Sprintf("pigo-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", ""
	}
	if err := writeControl(filepath.Join(dir, "pids.max"), strconv.Itoa(max)); err != nil {
		_ = os.Remove(dir)
		return "", ""
	}
	return dir, filepath.Join(dir, root.join)
}

// removeCgroup removes a run's cgroup once its tasks are gone (they die with bwrap's PID
// namespace; the kernel may take a moment to let go of the last one, and on a loaded machine
// more than the 100 ms a fixed count of short waits gave: a full test suite beside other work
// left one behind). It waits up to cgroupRemoveWait, the pauses doubling from 1 ms to 50 ms.
func removeCgroup(dir string) { removeCgroupAfter(dir, -1) }

// removeCgroupAfter is removeCgroup for a run whose sandbox child has the pidfd exit (-1:
// none), which it closes. The child's pipes close before it tears its namespaces down (about
// sixty mounts unmounted, an RCU grace period, the network namespace), so Run's wait ends
// while the child is still in the cgroup and the first rmdir fails with EBUSY: it then waits
// for the child's exit on the pidfd (the namespace's other tasks are gone by then) instead
// of a 1 ms pause, which the release's rmdirs used to cover and the pool (pool.go) no longer
// does.
func removeCgroupAfter(dir string, exit int) {
	if exit >= 0 {
		defer unix.Close(exit)
	}
	if dir == "" {
		return
	}
	deadline := time.Now().Add(cgroupRemoveWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		// rmdir itself: os.Remove tries unlink first, which fails (EISDIR) on every cgroup.
		if err := unix.Rmdir(dir); err == nil || errors.Is(err, unix.ENOENT) || time.Now().After(deadline) {
			return
		}
		if exit >= 0 && waitExit(exit, deadline) {
			exit = -1 // closed by the defer
			continue
		}
		cgroupPause(pause)
	}
}

// waitExit waits until the process of pidfd fd has exited or the deadline passes, and reports
// whether it has exited.
func waitExit(fd int, deadline time.Time) bool {
	for {
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms <= 0 {
			return false
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return false
		}
		return n > 0
	}
}

// cgroupPause is removeCgroup's pause (a variable for the test counting them).
var cgroupPause = time.Sleep

// cgroupRemoveWait bounds removeCgroup's wait; a cgroup still busy then is left to the next
// pigo's sweep (sweepCgroups).
const cgroupRemoveWait = 3 * time.Second

// sweepCgroups removes empty cgroups a killed pigo left behind (once per process).
func sweepCgroups(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "pigo-") {
			continue
		}
		f := strings.Split(strings.TrimPrefix(e.Name(), "pigo-"), "-")
		if pid, err := strconv.Atoi(f[0]); err == nil && pid != os.Getpid() {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
				continue // another pigo still running
			}
		}
		_ = os.Remove(filepath.Join(root, e.Name())) // fails, and keeps it, when not empty
	}
}
