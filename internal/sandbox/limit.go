package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxProcesses caps the tasks (processes and threads) of one sandboxed command: a model
// that starts hundreds of background processes in one call (the red team started 400)
// gets "fork: Resource temporarily unavailable" instead. Enough for a parallel build.
const MaxProcesses = 1024

// The limit is applied by a wrapper that runs before bwrap, with nothing of the command in
// it yet, and then becomes bwrap (exec): it sets RLIMIT_NPROC (the kernel counts it per
// user namespace, so bwrap's new namespace counts the sandbox's own tasks; it binds every
// user but root) and, where pigo may create one, moves itself into a pids cgroup with
// pids.max set (binds root too). Joining the cgroup from inside the wrapper, before bwrap
// forks anything, leaves no window in which a process of the sandbox is outside it.
//
// wrapperScript's arguments: $1 the file to write to join the cgroup ("" for none), $2 the limit,
// then the bwrap argv. bash's exec exports SHLVL, PWD, OLDPWD and _ whatever the environment
// held; bwrap drops them again (limited adds --unsetenv for each right after bwrap's path), so
// the sandbox still sees exactly the plan's variables (bwrap sets PWD itself after its
// chdir). This was `exec /usr/bin/env -u …` before: one exec less per bash call.
//
// The wrapper joins by writing 0 (itself) to its file: on cgroup v1 the `tasks` file, which
// moves the one thread a bash has without taking the kernel's global threadgroup lock, whose
// RCU grace period made the write of a pid to `cgroup.procs` take 5–14 ms of wall time (a
// third of a sandboxed `ls`, strace); on cgroup v2 `cgroup.procs` (there is no `tasks`).
const wrapperScript = `ulimit -u "$2" 2>/dev/null; [ -z "$1" ] || echo 0 > "$1" 2>/dev/null; shift 2; exec "$@"`

// wrapperExports are the variables the wrapper's bash adds to what it execs.
var wrapperExports = []string{"SHLVL", "PWD", "OLDPWD", "_"}

// limited returns argv (whose element at bwrapAt is bwrap's path) run through the wrapper,
// and the cgroup to remove after the run ("" when none was made).
func limited(argv []string, bwrapAt, max int) ([]string, string) {
	cg, procs := newPidsCgroup(max)
	out := make([]string, 0, 6+len(argv)+2*len(wrapperExports))
	out = append(out, Shell, "-c", wrapperScript, "pigo-limit", procs, strconv.Itoa(max))
	if bwrapAt < 0 || bwrapAt >= len(argv) {
		return append(out, argv...), cg
	}
	out = append(out, argv[:bwrapAt+1]...)
	for _, v := range wrapperExports {
		out = append(out, "--unsetenv", v)
	}
	return append(out, argv[bwrapAt+1:]...), cg
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

// newPidsCgroup makes a fresh pids cgroup with pids.max = max and returns it and the file to
// write to join it; "" when it cannot.
func newPidsCgroup(max int) (dir, join string) {
	root := pidsRoot()
	if root.dir == "" {
		return "", ""
	}
	dir = filepath.Join(root.dir, fmt.Sprintf("pigo-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", ""
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0o644); err != nil {
		_ = os.Remove(dir)
		return "", ""
	}
	return dir, filepath.Join(dir, root.join)
}

// removeCgroup removes a run's cgroup once its tasks are gone (they die with bwrap's PID
// namespace; the kernel may take a moment to let go of the last one).
func removeCgroup(dir string) {
	if dir == "" {
		return
	}
	for i := 0; i < 50; i++ {
		if os.Remove(dir) == nil {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

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
