// Package engines runs the pigo-engines helper: the engines that pigo's start does not need,
// each in a process of its own. Every pigo process initialises every package linked into it,
// whatever the command, and three libraries cost every start more than pigo's own work (issue
// 25, D25.20): the HTML parser and readability extractor behind web_fetch, the QuickJS VM behind
// codemode and the SQLite driver behind talk (modernc's C runtime with them). pigo links none of
// them; the helper does, and pigo starts it when a tool needs one:
//
//	pigo-engines extract URL   an HTML page on stdin → its main content as Markdown (web_fetch)
//	pigo-engines js            a codemode script, its tool calls bridged over stdin/stdout
//	pigo-engines store PATH    the talk mailbox's SQLite file, one request a line
//
// A separate process also bounds what hostile input can do: the page, the script and the file
// are parsed under the helper's own CPU and memory limits, with an empty environment (no
// credential reaches it), and a crash ends the helper, not the session.
//
// The helper is found as $PIGO_ENGINES, else beside the pigo executable, else on PATH
// (cmd/pigo-engines; `go install ./cmd/...` installs it with pigo).
package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Name is the helper's executable name.
const Name = "pigo-engines"

// EnvPath names the helper explicitly.
const EnvPath = "PIGO_ENGINES"

// ErrNotFound is returned when no helper is installed.
var ErrNotFound = errors.New("this needs the " + Name + " helper, which is not installed beside pigo or on PATH (go install github.com/pigo-agent/pigo/cmd/" + Name + "@latest, or set $" + EnvPath + ")")

// Locate finds a helper program called name: the path in $env when set (an error when it names
// no program), else beside the running executable, else on PATH.
func Locate(name, env string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			return "", fmt.Errorf("$%s names %s, which is not a program", env, p)
		}
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", errors.New("not found")
}

// Find returns the pigo-engines helper's path.
func Find() (string, error) {
	p, err := Locate(Name, EnvPath)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	return p, nil
}

// Installed reports whether the helper is found (the `which("pigo-engines")` condition of the
// toolsets that need it).
func Installed() bool {
	_, err := Find()
	return err == nil
}

// Command is `pigo-engines ENGINE ARGS...`, ready to start: an empty environment (the helper
// needs none, and no secret of pigo's reaches it) but GOMAXPROCS=1 (one engine, one core). It
// is killed when ctx ends. Each engine bounds itself (SetLimits) with limits of its own or
// given in its protocol.
func Command(ctx context.Context, engine string, args ...string) (*exec.Cmd, error) {
	exe, err := Find()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, append([]string{engine}, args...)...)
	cmd.Env = []string{"GOMAXPROCS=1"}
	return cmd, nil
}

// Server is one engine's main: its arguments after the engine's name, the protocol on stdin and
// stdout, messages for a person on stderr; it returns the exit code.
type Server func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Main is the helper's main: `pigo-engines ENGINE ARGS...` runs servers[ENGINE].
func Main(args []string, servers map[string]Server, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if s, ok := servers[args[0]]; ok {
			return s(args[1:], stdin, stdout, stderr)
		}
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(stderr, "usage: %s ENGINE ARGS... (ENGINE: %s)\n(%s runs the engines pigo's start does not link; pigo starts it)\n", Name, strings.Join(names, ", "), Name)
	return 64
}

// SetLimits bounds the calling process (an engine, at its start): cpu of CPU time
// (RLIMIT_CPU: SIGXCPU, then SIGKILL a second later) and mem bytes of address space beyond
// what it has mapped now (RLIMIT_AS: allocations fail; Go's runtime then crashes). Zero leaves
// a limit unset.
func SetLimits(cpu time.Duration, mem uint64) error {
	if mem > 0 {
		statm, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			return err
		}
		f := strings.Fields(string(statm))
		if len(f) == 0 {
			return errors.New("/proc/self/statm: empty")
		}
		pages, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return err
		}
		as := pages*uint64(os.Getpagesize()) + mem
		if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: as, Max: as}); err != nil {
			return err
		}
	}
	if s := uint64(cpu / time.Second); s > 0 {
		if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: s, Max: s + 1}); err != nil {
			return err
		}
	}
	return nil
}
