package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The reaper: an unsandboxed command (both axes allow-all) has no PID namespace to take its
// tree down, and a process group does not hold a grandchild that called setsid. So [Run]
// starts it through a helper, the running binary itself re-executed with reaperEnv set: the
// helper makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so that every orphan of the
// tree becomes its child; it runs the shell, and when the shell ends or the helper gets
// SIGTERM (timeout, cancellation, pigo's death through PDEATHSIG) it kills every remaining
// descendant and reaps them before it exits with the shell's code.

// reaperEnv marks the helper process; its value is ignored. It is not passed on.
const reaperEnv = "PIGO_SANDBOX_REAPER"

const prSetChildSubreaper = 36

func init() {
	if _, ok := os.LookupEnv(reaperEnv); ok && len(os.Args) > 1 {
		os.Exit(reaper(os.Args[1:]))
	}
}

// reaper runs argv as the subreaper helper and returns the exit code to exit with.
func reaper(argv []string) int {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		os.Stderr.WriteString("pigo: cannot become a child subreaper: " + e.Error() + "\n")
		return 126
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString("pigo: " + err.Error() + "\n")
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	code := 0
	select {
	case err := <-done:
		code = exitCode(cmd.ProcessState)
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			code = 126
		}
	case <-sig:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		code = ExitTimeout
	}
	killDescendants()
	return code
}

// killDescendants kills the helper's children (orphans reparented to it included) until none
// is left, reaping each.
func killDescendants() {
	self := os.Getpid()
	for round := 0; round < 200; round++ {
		kids := childrenOf(self)
		if len(kids) == 0 {
			return
		}
		for _, k := range kids {
			_ = syscall.Kill(-k, syscall.SIGKILL) // its group, when it leads one
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		deadline := time.Now().Add(100 * time.Millisecond)
		for time.Now().Before(deadline) {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err != nil || pid == 0 {
				if len(childrenOf(self)) == 0 {
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
}

// childrenOf lists the processes whose parent is pid (from /proc/PID/stat).
func childrenOf(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil && pp == pid && f[0] != "Z" {
			out = append(out, n)
		}
	}
	return out
}

// reaperArgv is the helper's command line for argv, or argv itself when the running binary
// cannot be found.
func reaperArgv(argv []string) ([]string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return argv, false
	}
	return append([]string{exe}, argv...), true
}
