package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a probe run inside the sandbox: PIGO_TEST_PROBE=dial:ADDR
// connects to a Unix socket (ADDR "@name" is abstract) and echoes a line through it;
// PIGO_TEST_PROBE=socketpair makes an anonymous pair.
func init() {
	probe, ok := os.LookupEnv("PIGO_TEST_PROBE")
	if !ok {
		return
	}
	switch {
	case strings.HasPrefix(probe, "dial:"):
		c, err := net.Dial("unix", strings.TrimPrefix(probe, "dial:"))
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(3)
		}
		fmt.Fprintln(c, "ping")
		line, _ := bufio.NewReader(c).ReadString('\n')
		fmt.Print("reply:", line)
		os.Exit(0)
	case strings.HasPrefix(probe, "spawn:"):
		// Start N sleeping children, print how many started, kill them.
		n, _ := strconv.Atoi(strings.TrimPrefix(probe, "spawn:"))
		var kids []*exec.Cmd
		for i := 0; i < n; i++ {
			c := exec.Command("/bin/sleep", "30")
			if c.Start() != nil {
				continue
			}
			kids = append(kids, c)
		}
		fmt.Printf("started %d\n", len(kids))
		for _, c := range kids {
			c.Process.Kill()
			c.Wait()
		}
		os.Exit(0)
	case probe == "socketpair":
		if _, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0); err != nil {
			fmt.Println("socketpair:", err)
			os.Exit(3)
		}
		fmt.Println("socketpair ok")
		os.Exit(0)
	}
}

func probeCmd(t *testing.T, probe string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("PIGO_TEST_PROBE=%q %q", probe, exe)
}

// echoServer serves a plain Unix-socket echo on addr on the host until the test ends.
func echoServer(t *testing.T, addr string) {
	t.Helper()
	l, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				fmt.Fprint(c, "echo "+line)
			}()
		}
	}()
}

func TestUnixSocketsBlocked(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	sockDir := t.TempDir() // under /tmp, which the default policy binds writable
	sock := filepath.Join(sockDir, "echo.sock")
	echoServer(t, sock)
	abstract := fmt.Sprintf("@pigo-test-%d", os.Getpid())
	echoServer(t, abstract)

	// The server answers on the host.
	if out, err := exec.Command("/bin/bash", "-c", probeCmd(t, "dial:"+sock)).CombinedOutput(); err != nil || !strings.Contains(string(out), "reply:echo ping") {
		t.Fatalf("host probe: %v %s", err, out)
	}
	for _, addr := range []string{sock, abstract} {
		res := runIn(t, DefaultPolicy(), ws, probeCmd(t, "dial:"+addr))
		if res.ExitCode == 0 || strings.Contains(string(res.Stdout), "reply:") {
			t.Errorf("%s reachable from inside: exit %d, %s", addr, res.ExitCode, res.Stdout)
		}
		if !strings.Contains(string(res.Stdout), "operation not permitted") {
			t.Errorf("%s: want EPERM from the seccomp filter, got %q", addr, res.Stdout)
		}
	}
	// socketpair reaches nothing outside and stays allowed.
	if res := runIn(t, DefaultPolicy(), ws, probeCmd(t, "socketpair")); res.ExitCode != 0 {
		t.Errorf("socketpair refused: %s", res.Stdout)
	}
	// A socket the policy names is reachable; the filter then allows AF_UNIX.
	p := DefaultPolicy()
	p.AllowUnixSockets = []string{sock}
	if res := runIn(t, p, ws, probeCmd(t, "dial:"+sock)); res.ExitCode != 0 || !strings.Contains(string(res.Stdout), "reply:echo ping") {
		t.Errorf("allowed socket: exit %d, %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	// With the network allow-all, nothing is filtered (the user allowed everything).
	p = DefaultPolicy()
	p.NetMode = NetAllowAll
	if res := runIn(t, p, ws, probeCmd(t, "dial:"+sock)); res.ExitCode != 0 {
		t.Errorf("allow-all network: exit %d, %s", res.ExitCode, res.Stdout)
	}
}

func TestTmuxRunShellBlocked(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	ws := newWorkspace(t)
	outside := t.TempDir()
	name := fmt.Sprintf("pigotest%d", os.Getpid())
	if out, err := exec.Command("tmux", "-L", name, "new-session", "-d", "-s", "x").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() {
		// tmux 3.3's kill-server leaves the socket file in /tmp/tmux-UID: it is removed too.
		path, _ := exec.Command("tmux", "-L", name, "display-message", "-p", "#{socket_path}").Output()
		_ = exec.Command("tmux", "-L", name, "kill-server").Run()
		if p := strings.TrimSpace(string(path)); p != "" {
			os.Remove(p)
		}
	})
	marker := filepath.Join(outside, "ESCAPED")
	for _, p := range []Policy{DefaultPolicy(), func() Policy { p := DefaultPolicy(); p.WritablePaths = []string{"."}; return p }()} {
		res := runIn(t, p, ws, fmt.Sprintf("tmux -L %s run-shell 'touch %s'", name, marker))
		time.Sleep(200 * time.Millisecond) // run-shell is asynchronous in the server
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("tmux run-shell ran outside the sandbox (exit %d)", res.ExitCode)
		}
		if res.ExitCode == 0 {
			t.Errorf("tmux succeeded from inside: %s %s", res.Stdout, res.Stderr)
		}
	}
	// The host server still works: the test would otherwise prove nothing.
	if out, err := exec.Command("tmux", "-L", name, "run-shell", "touch "+marker).CombinedOutput(); err != nil {
		t.Fatalf("host tmux: %v %s", err, out)
	}
	for i := 0; i < 50; i++ {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Error("host tmux run-shell did not run")
}

func TestSocketDirsHidden(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	dir := filepath.Join(t.TempDir(), "runtime")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnvReal(t)
	env.RuntimeDir = dir
	pl, err := NewPlan(DefaultPolicy(), ws, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), pl, "ls -A "+dir+"; ls -A /run | wc -l", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != "0" {
		t.Errorf("socket dirs not hidden: %q", got)
	}
	// A directory that holds the workspace is not hidden.
	if got := hideable([]string{filepath.Dir(ws), "/nonexistent"}, []string{ws}); len(got) != 0 {
		t.Errorf("hid the workspace's parent: %v", got)
	}
}

// protectVariant prepares one protected path in one shape and returns the path.
type protectCase struct {
	name  string
	path  func(ws, home string) string
	setup string // "exists" | "missing" | "symlink"
}

func TestProtectedPathsNeverWritable(t *testing.T) {
	needBwrap(t)
	for _, which := range []string{".pi", ".git", ".agent", "agentdir"} {
		for _, shape := range []string{"exists", "missing", "symlink", "missing-parent"} {
			if shape == "missing-parent" && which != "agentdir" {
				continue
			}
			t.Run(which+"_"+shape, func(t *testing.T) {
				ws, _ := filepath.EvalSymlinks(t.TempDir())
				env := testEnvReal(t)
				env.Home, _ = filepath.EvalSymlinks(env.Home)
				p := DefaultPolicy()
				// Everything writable that can be: the workspace, ~ and the parent of ~.
				p.WritablePaths = []string{".", "~", filepath.Dir(env.Home)}
				p.AgentDir = filepath.Join(env.Home, ".pi", "agent")
				target := filepath.Join(ws, which)
				if which == "agentdir" {
					target = p.AgentDir
				}
				elsewhere := filepath.Join(t.TempDir(), "real")
				switch shape {
				case "exists":
					must(t, os.MkdirAll(target, 0o755))
					must(t, os.WriteFile(filepath.Join(target, "trust.json"), []byte("{}\n"), 0o644))
				case "symlink":
					must(t, os.MkdirAll(elsewhere, 0o755))
					must(t, os.WriteFile(filepath.Join(elsewhere, "trust.json"), []byte("{}\n"), 0o644))
					must(t, os.MkdirAll(filepath.Dir(target), 0o755))
					must(t, os.Symlink(elsewhere, target))
				case "missing":
					if which == "agentdir" {
						must(t, os.MkdirAll(filepath.Dir(target), 0o755))
					}
				}
				before := snapshot(t, target)
				attack := fmt.Sprintf(`t=%q
echo '{"fs":{"mode":"allow-all"},"network":{"mode":"allow-all"}}' > "$t/sandbox.json"
echo '{}' > "$t/trust.json"
mkdir -p "$t"; echo x > "$t/sandbox.json"
mv "$t" "$t.moved"; rm -rf "$t"; mkdir -p "$t" && echo x > "$t/sandbox.json"
ln -sfn /tmp "$t"
mkdir -p "$(dirname "$t")/.pi.new" && mv -T "$(dirname "$t")/.pi.new" "$t"
true`, target)
				pl, err := NewPlan(p, ws, env)
				must(t, err)
				res, err := Run(context.Background(), pl, attack, Options{})
				must(t, err)
				after := snapshot(t, target)
				if shape == "symlink" {
					// A link cannot be mounted over: the command may rename it (what it leaves
					// beside is harmless), and Run restores it before anything reads it.
					after = strings.TrimSuffix(after, " moved")
				}
				if after != before {
					t.Errorf("%s changed from inside:\nbefore %s\nafter  %s\nstderr %s", target, before, after, res.Stderr)
				}
				if shape == "symlink" && len(res.Restored) == 0 {
					// The attack replaces the link; Run must have put it back.
					t.Errorf("replaced link not reported (restored %v)", res.Restored)
				}
				if _, err := os.Stat(filepath.Join(elsewhere, "sandbox.json")); err == nil {
					t.Error("wrote through the symlink")
				}
			})
		}
	}
}

// snapshot describes what is at p (and its parent chain up to 2 levels): kind, link target,
// entries.
func snapshot(t *testing.T, p string) string {
	t.Helper()
	var b strings.Builder
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		b.WriteString("missing")
		if _, err := os.Lstat(filepath.Dir(p)); err != nil {
			b.WriteString(", parent missing")
		}
		return b.String()
	case fi.Mode()&os.ModeSymlink != 0:
		l, _ := os.Readlink(p)
		b.WriteString("link to " + l)
	case fi.IsDir():
		b.WriteString("dir")
	default:
		b.WriteString("file")
	}
	entries, _ := os.ReadDir(p)
	for _, e := range entries {
		if e.Name() == poolName && poolOfPlaceholders(filepath.Join(p, e.Name())) {
			continue // pigo's own pool of empty placeholders (pool.go), made after the run
		}
		data, _ := os.ReadFile(filepath.Join(p, e.Name()))
		fmt.Fprintf(&b, " %s=%q", e.Name(), data)
	}
	if _, err := os.Lstat(p + ".moved"); err == nil {
		b.WriteString(" moved")
	}
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGitFileTargetsProtected(t *testing.T) {
	needBwrap(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	main, _ := filepath.EvalSymlinks(t.TempDir())
	wt := filepath.Join(main, ".git", "worktrees", "x")
	must(t, os.MkdirAll(wt, 0o755))
	must(t, os.WriteFile(filepath.Join(wt, "commondir"), []byte("../..\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+wt+"\n"), 0o644))
	p := DefaultPolicy()
	p.WritablePaths = []string{".", main}
	res := runIn(t, p, ws, fmt.Sprintf("echo evil > %q/config; echo evil > %q/hooks-x; echo 'gitdir: /tmp' > .git", filepath.Join(main, ".git"), wt))
	if _, err := os.Stat(filepath.Join(main, ".git", "config")); err == nil {
		t.Error("wrote the common dir's config")
	}
	if _, err := os.Stat(filepath.Join(wt, "hooks-x")); err == nil {
		t.Error("wrote the worktree's git dir")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git")); !strings.Contains(string(b), wt) {
		t.Errorf(".git file replaced: %q (%s)", b, res.Stderr)
	}
}

func TestDenyPathsApplied(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	env := testEnvReal(t)
	must(t, os.MkdirAll(filepath.Join(env.Home, ".ssh"), 0o700))
	must(t, os.WriteFile(filepath.Join(env.Home, ".ssh", "id"), []byte("KEY"), 0o600))
	must(t, os.WriteFile(filepath.Join(ws, "secrets", "k"), []byte("K2"), 0o600))
	p := DefaultPolicy()
	// A directory without the trailing "/", $HOME and ${HOME} forms, a file with one.
	p.DenyPaths = []string{"secrets", "$HOME/.ssh", "${HOME}/.ssh/", ".env/"}
	pl, err := NewPlan(p, ws, env)
	must(t, err)
	for _, d := range pl.Deny {
		if want := !strings.HasSuffix(d.Path, ".env"); d.Dir != want {
			t.Errorf("%s: dir = %v", d.Path, d.Dir)
		}
	}
	if len(pl.Skipped) != 0 {
		t.Errorf("skipped %v", pl.Skipped)
	}
	res, err := Run(context.Background(), pl, `ls -A secrets ~/.ssh; cat .env secrets/k ~/.ssh/id; echo done`, Options{})
	must(t, err)
	out := string(res.Stdout)
	if strings.Contains(out, "KEY") || strings.Contains(out, "K2") || strings.Contains(out, "TOKEN") || !strings.Contains(out, "done") {
		t.Errorf("deny paths not applied: %q %s", out, res.Stderr)
	}
}

// A denyPaths entry inside a protected directory (.git here) stays denied: the protected
// read-only bind that follows the deny mounts used to show the file again.
func TestDenyPathsInsideProtected(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "private"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "token"), []byte("GITTOKEN"), 0o600))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "private", "k"), []byte("GITDIR"), 0o600))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main"), 0o644))
	p := DefaultPolicy()
	p.DenyPaths = []string{".git/token", ".git/private"}
	pl, err := NewPlan(p, ws, testEnvReal(t))
	must(t, err)
	res, err := Run(context.Background(), pl, `cat .git/token .git/private/k .git/HEAD; echo done`, Options{})
	must(t, err)
	out := string(res.Stdout)
	if strings.Contains(out, "GITTOKEN") || strings.Contains(out, "GITDIR") || !strings.Contains(out, "ref: refs/heads/main") || !strings.Contains(out, "done") {
		t.Errorf("deny paths under .git not applied (or .git hidden): %q %s", out, res.Stderr)
	}
}

// runFailingSetup runs a command in ws under a policy whose bwrap set-up fails (a bind of a
// path that does not exist) and returns Run's error.
func runFailingSetup(t *testing.T, ws string) error {
	t.Helper()
	p := DefaultPolicy()
	p.ExtraArgs = []string{"--bind", "/nonexistent-pigo", "/x"}
	pl, err := NewPlan(p, ws, testEnvReal(t))
	must(t, err)
	_, err = Run(context.Background(), pl, "echo hi", Options{})
	return err
}

func TestSetupFailureReported(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	err := runFailingSetup(t, ws)
	var se *SetupError
	if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "the sandbox could not be set up, the command did not run: bwrap: ") {
		t.Errorf("err = %v", err)
	}
	// A command that fails on its own is not a set-up failure.
	pl, _ := NewPlan(DefaultPolicy(), ws, testEnvReal(t))
	if res, err := Run(context.Background(), pl, "echo oops >&2; exit 1", Options{}); err != nil || res.ExitCode != 1 {
		t.Errorf("plain failure: %v %d", err, res.ExitCode)
	}
}

func TestUnsandboxedTimeoutKillsSetsid(t *testing.T) {
	ws := t.TempDir()
	p := DefaultPolicy()
	p.FSMode, p.NetMode = FSAllowAll, NetAllowAll
	pl, err := NewPlan(p, ws, testEnvReal(t))
	must(t, err)
	for i, tc := range []struct {
		line    string
		timeout time.Duration
	}{
		{"setsid sleep %s & sleep %s", 300 * time.Millisecond},                         // killed by the timeout
		{"setsid sleep %s & disown; echo left %s", 0},                                  // left behind when the shell ends
		{"setsid bash -c 'setsid sleep %s & sleep %s' & wait", 300 * time.Millisecond}, // two sessions deep
	} {
		marker := fmt.Sprintf("%d%d", 7712300+i, os.Getpid())
		line := fmt.Sprintf(tc.line, marker, marker)
		_, err := Run(context.Background(), pl, line, Options{Timeout: tc.timeout})
		if tc.timeout > 0 {
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Errorf("%q: err %v", line, err)
			}
		}
		if !waitGone(marker) {
			t.Errorf("%q: a setsid grandchild survived", line)
			_ = exec.Command("pkill", "-9", "-f", marker).Run()
		}
	}
}

// TestPlaceholdersConcurrent: a run that ends does not remove a placeholder another run still
// has mounted (the flock on the parent), so the other cannot create .pi after it.
func TestPlaceholdersConcurrent(t *testing.T) {
	needBwrap(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	p := DefaultPolicy()
	p.WritablePaths = []string{"."}
	env := testEnvReal(t)
	long, err := NewPlan(p, ws, env)
	must(t, err)
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), long, `sleep 0.6; mkdir -p .pi; echo '{}' > .pi/sandbox.json; ls -la .pi >&2`, Options{})
		done <- res
	}()
	time.Sleep(200 * time.Millisecond)
	short, err := NewPlan(p, ws, env)
	must(t, err)
	if _, err := Run(context.Background(), short, "true", Options{}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if _, err := os.Lstat(filepath.Join(ws, ".pi", "sandbox.json")); err == nil {
		t.Fatalf("the long run created .pi/sandbox.json after the short one ended: %s", res.Stderr)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".pi")); err == nil {
		t.Error("the placeholder was left behind after both runs")
	}
}

// TestHomeStartupFilesProtected: with ~ writable, the shell startup files and git's global
// config (which later unsandboxed commands read) stay read-only; elsewhere in ~ is writable.
func TestHomeStartupFilesProtected(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	env := testEnvReal(t)
	must(t, os.WriteFile(filepath.Join(env.Home, ".bashrc"), []byte("# mine\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(env.Home, ".gitconfig"), []byte("[user]\n"), 0o644))
	p := DefaultPolicy()
	p.WritablePaths = []string{".", "~"}
	pl, err := NewPlan(p, ws, env)
	must(t, err)
	res, err := Run(context.Background(), pl, `echo evil >> ~/.bashrc; printf '[core]\n\tfsmonitor = evil\n' >> ~/.gitconfig; echo ok > ~/other`, Options{})
	must(t, err)
	for name, want := range map[string]string{".bashrc": "# mine\n", ".gitconfig": "[user]\n", "other": "ok\n"} {
		if b, _ := os.ReadFile(filepath.Join(env.Home, name)); string(b) != want {
			t.Errorf("~/%s = %q, want %q (%s)", name, b, want, res.Stderr)
		}
	}
}

// TestRenameAncestorBlocked: a writable parent does not let a command rename the workspace
// or the agent dir's parent away and plant a policy in its place.
func TestRenameAncestorBlocked(t *testing.T) {
	needBwrap(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "proj")
	must(t, os.MkdirAll(filepath.Join(ws, ".pi"), 0o755))
	env := testEnvReal(t)
	env.Home = filepath.Join(base, "home")
	agent := filepath.Join(env.Home, ".pi", "agent")
	must(t, os.MkdirAll(agent, 0o755))
	p := DefaultPolicy()
	p.WritablePaths = []string{base} // the parent of both, not "." itself
	p.AgentDir = agent
	pl, err := NewPlan(p, ws, env)
	must(t, err)
	attack := fmt.Sprintf(`mv %[1]q %[1]q.old; mkdir -p %[1]q/.pi && echo '{}' > %[1]q/.pi/sandbox.json
mv %[2]q %[2]q.old; mkdir -p %[2]q/agent && echo '{}' > %[2]q/agent/sandbox.json
echo ok > %[3]q/free`, ws, filepath.Dir(agent), base)
	res, err := Run(context.Background(), pl, attack, Options{})
	must(t, err)
	for _, planted := range []string{filepath.Join(ws, ".pi", "sandbox.json"), filepath.Join(agent, "sandbox.json")} {
		if _, err := os.Stat(planted); err == nil {
			t.Errorf("planted %s (%s)", planted, res.Stderr)
		}
	}
	for _, moved := range []string{ws + ".old", filepath.Dir(agent) + ".old"} {
		if _, err := os.Stat(moved); err == nil {
			t.Errorf("renamed to %s", moved)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(base, "free")); string(b) != "ok\n" {
		t.Errorf("the writable parent is no longer writable: %q %s", b, res.Stderr)
	}
}

// TestAllowAllDropsWorkspaceProtections is issue 26's row: fs "allow-all" does not bind the
// workspace's .pi, .agent and .git read-only (the reference binds none there), while the
// agent dir, pigo's own global policy and trust.json, stays protected in every sandboxed
// mode (a deliberate addition). The twin: workspace-write keeps all of them.
func TestAllowAllDropsWorkspaceProtections(t *testing.T) {
	needBwrap(t)
	for _, mode := range []string{FSAllowAll, FSWorkspaceWrite} {
		ws, _ := filepath.EvalSymlinks(t.TempDir())
		env := testEnvReal(t)
		p := DefaultPolicy()
		p.FSMode = mode
		p.AgentDir = filepath.Join(env.Home, ".pi", "agent")
		must(t, os.MkdirAll(p.AgentDir, 0o755))
		for _, d := range []string{".pi", ".git", ".agent"} {
			must(t, os.MkdirAll(filepath.Join(ws, d), 0o755))
		}
		res := runIn(t, p, ws, fmt.Sprintf(`AD=%q; for d in .pi .git .agent; do echo x > "$d/f"; done; echo x > "$AD/sandbox.json"; true`, p.AgentDir))
		for _, d := range []string{".pi", ".git", ".agent"} {
			_, err := os.Stat(filepath.Join(ws, d, "f"))
			if written := err == nil; written != (mode == FSAllowAll) {
				t.Errorf("%s: %s written = %v (%s)", mode, d, written, res.Stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(p.AgentDir, "sandbox.json")); err == nil {
			t.Errorf("%s: the agent dir was written", mode)
		}
	}
}

// TestProcessLimit: one sandboxed command cannot start more tasks than its limit (the red
// team started 400 background processes in one call); the safe twin, a command with a few
// children, runs as before. The test uses a small limit; the default is MaxProcesses.
func TestProcessLimit(t *testing.T) {
	needBwrap(t)
	ws := newWorkspace(t)
	p := DefaultPolicy()
	pl, err := NewPlan(p, ws, testEnvReal(t))
	must(t, err)
	res, err := Run(context.Background(), pl, probeCmd(t, "spawn:200"), Options{MaxProcesses: 64})
	must(t, err)
	var started int
	fmt.Sscanf(strings.TrimSpace(string(res.Stdout)), "started %d", &started)
	if started == 0 || started >= 64 {
		t.Fatalf("started %d children under a limit of 64: %q %q", started, res.Stdout, res.Stderr)
	}
	if r := runIn(t, p, ws, `for i in 1 2 3 4 5; do sleep 0.1 & done; wait; echo done`); strings.TrimSpace(string(r.Stdout)) != "done" {
		t.Errorf("a few children: %q %q", r.Stdout, r.Stderr)
	}
	if MaxProcesses != 1024 {
		t.Error("the default limit moved")
	}
}

// TestCgroupJoin: where pigo can make pids cgroups, a sandboxed command runs in its own one,
// joined the cheap way: on cgroup v1 by writing 0 to `tasks` (one thread, no global
// threadgroup lock: writing a pid to cgroup.procs waited 5–14 ms for an RCU grace period),
// on v2 by writing 0 to cgroup.procs.
func TestCgroupJoin(t *testing.T) {
	needBwrap(t)
	root := pidsRoot()
	if root.dir == "" {
		t.Skip("pigo cannot make pids cgroups here (not root, or no pids controller)")
	}
	if _, err := os.Stat("/sys/fs/cgroup/pids"); err == nil && root.join != "tasks" {
		t.Errorf("cgroup v1 joins through %q, want tasks", root.join)
	}
	bwrap, err := exec.LookPath("bwrap")
	must(t, err)
	_, cg, lim, err := limited([]string{bwrap, "x"}, 0, 8, 3)
	must(t, err)
	if lim != nil {
		lim.close()
	}
	removeCgroup(cg)
	if want := filepath.Join(cg, root.join); root.join == "tasks" && (cg == "" || lim == nil || lim.join != want) {
		t.Fatalf("direct start joins %+v: want the join file %s", lim, want)
	}
	argv, cg, _, err := wrapped([]string{bwrap, "x"}, 0, 8)
	must(t, err)
	removeCgroup(cg)
	if want := filepath.Join(cg, root.join); cg == "" || argv[4] != want {
		t.Fatalf("wrapper argv %q: want the join file %s", argv, want)
	}
	ws := newWorkspace(t)
	r := runIn(t, DefaultPolicy(), ws, `cat /proc/self/cgroup`)
	var joined bool
	for _, l := range strings.Split(string(r.Stdout), "\n") {
		if f := strings.SplitN(l, ":", 3); len(f) == 3 && (hasWord(f[1], "pids") || f[0] == "0") &&
			strings.Contains(f[2], fmt.Sprintf("/pigo-%d-", os.Getpid())) {
			joined = true
		}
	}
	if !joined {
		t.Fatalf("the sandboxed command is not in a pigo pids cgroup:\n%s%s", r.Stdout, r.Stderr)
	}
}
