package pkgs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Installer installs, updates and removes packages with npm and git, into the folders pi uses,
// with pi's commands — except that npm never runs install scripts (--ignore-scripts): pigo runs
// no package code, so a package's install scripts would only run code from the internet, on
// this machine and outside the sandbox, for nothing (docs/decisions/27-packages.md).
type Installer struct {
	Layout Layout
	// NpmCommand is the settings' npmCommand argv (e.g. ["mise","exec","node@20","--","npm"]);
	// empty means npm.
	NpmCommand []string
	// Out receives the output of the commands as they run (nil: kept for errors only).
	Out io.Writer
	// Env is the commands' environment (nil: this process's).
	Env []string
	// Timeout bounds each command (0: 10 minutes).
	Timeout time.Duration
}

// tailChars is how much of a failed command's output its error keeps (pi keeps 8000).
const tailChars = 8000

// CommandError is a command that failed, with the end of its output.
type CommandError struct {
	Argv []string
	Code int
	Tail string
}

func (e *CommandError) Error() string {
	s := fmt.Sprintf("%s failed with code %d", strings.Join(e.Argv, " "), e.Code)
	if e.Tail != "" {
		s += ":\n" + e.Tail
	}
	if e.Argv[0] == "git" && gitPromptFailure.Get().MatchString(e.Tail) {
		s += "\ngit cannot ask for a password or passphrase while pigo runs. Set up a git credential helper or an ssh agent."
	}
	return s
}

var gitPromptFailure = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)terminal prompts disabled|could not read (Username|Password)|Permission denied \(publickey|Host key verification failed|passphrase`)
}}

func (in *Installer) env() []string {
	env := in.Env
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	// git and ssh must fail instead of asking on a terminal nobody reads.
	env = append(env, "GIT_TERMINAL_PROMPT=0")
	if !slices.ContainsFunc(env, func(s string) bool { return strings.HasPrefix(s, "GIT_SSH_COMMAND=") }) {
		env = append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	return env
}

// tail keeps the last tailChars bytes written to it.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailChars {
		t.b = append([]byte(nil), t.b[len(t.b)-tailChars:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	b := t.b
	if len(b) > tailChars {
		b = b[len(b)-tailChars:]
	}
	return strings.TrimSpace(string(b))
}

// run runs argv in dir; its output goes to Out and its tail into the error.
func (in *Installer) run(dir string, argv ...string) error {
	_, err := in.runOut(dir, false, argv...)
	return err
}

// capture runs argv in dir and returns its standard output, trimmed.
func (in *Installer) capture(dir string, argv ...string) (string, error) {
	return in.runOut(dir, true, argv...)
}

func (in *Installer) runOut(dir string, capture bool, argv ...string) (string, error) {
	to := in.Timeout
	if to == 0 {
		to = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), to)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = in.env()
	cmd.WaitDelay = 5 * time.Second
	var t tail
	var out bytes.Buffer
	var w io.Writer = &t
	if in.Out != nil && !capture {
		w = io.MultiWriter(&t, in.Out)
	}
	if capture {
		cmd.Stdout = &out
	} else {
		cmd.Stdout = w
	}
	cmd.Stderr = w
	err := cmd.Run()
	if err == nil {
		return strings.TrimSpace(out.String()), nil
	}
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		return "", fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s timed out after %s", strings.Join(argv, " "), to)
	}
	tl := t.String()
	if capture && tl == "" {
		tl = strings.TrimSpace(out.String())
	}
	return "", &CommandError{Argv: argv, Code: code, Tail: tl}
}

// npm returns the npm command (settings npmCommand or npm) followed by args.
func (in *Installer) npm(args ...string) []string {
	base := []string{"npm"}
	if len(in.NpmCommand) > 0 && in.NpmCommand[0] != "" {
		base = in.NpmCommand
	}
	return append(append([]string(nil), base...), args...)
}

// manager is pi's getPackageManagerName: npm, pnpm or bun, looking through wrappers.
func (in *Installer) manager() string {
	argv := in.npm()
	name := func(s string) string {
		return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(s), ".cmd"), ".exe")
	}
	known := map[string]bool{"npm": true, "pnpm": true, "bun": true}
	if i := slices.Index(argv[1:], "--"); i >= 0 && i+2 < len(argv) {
		return name(argv[i+2])
	}
	if known[name(argv[0])] {
		return name(argv[0])
	}
	for _, a := range argv[1:] {
		if known[name(a)] {
			return name(a)
		}
	}
	return name(argv[0])
}

// installArgs are pi's npm install arguments for specs into root, plus --ignore-scripts.
func (in *Installer) installArgs(specs []string, root string) []string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r // npm writes broken lock paths through a symlinked prefix
	}
	switch in.manager() {
	case "bun":
		return in.npm(append(append([]string{"install"}, specs...), "--cwd", root, "--omit=peer", "--ignore-scripts")...)
	case "pnpm":
		return in.npm(append(append([]string{"install"}, specs...), "--prefix", root, "--config.auto-install-peers=false",
			"--config.strict-peer-dependencies=false", "--config.strict-dep-builds=false", "--ignore-scripts")...)
	}
	return in.npm(append(append([]string{"install"}, specs...), "--prefix", root, "--legacy-peer-deps", "--no-audit", "--no-fund", "--ignore-scripts")...)
}

// depsArgs are pi's arguments for installing a git checkout's dependencies, plus --ignore-scripts.
func (in *Installer) depsArgs() []string {
	switch in.manager() {
	case "bun":
		return in.npm("install", "--omit=dev", "--omit=peer", "--ignore-scripts")
	case "pnpm":
		return in.npm("install", "--prod", "--config.auto-install-peers=false", "--config.strict-peer-dependencies=false",
			"--config.strict-dep-builds=false", "--ignore-scripts")
	case "npm":
		return in.npm("install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund", "--ignore-scripts")
	}
	return in.npm("install", "--ignore-scripts")
}

// ensureNpmProject creates pi's npm project folder: a .gitignore ignoring everything and a
// private package.json named pi-extensions.
func ensureNpmProject(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if err := ensureGitIgnore(root); err != nil {
		return err
	}
	pj := filepath.Join(root, "package.json")
	if _, err := os.Stat(pj); err != nil {
		return os.WriteFile(pj, []byte("{\n  \"name\": \"pi-extensions\",\n  \"private\": true\n}"), 0o644)
	}
	return nil
}

func ensureGitIgnore(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(p); err != nil {
		return os.WriteFile(p, []byte("*\n!.gitignore\n"), 0o644)
	}
	return nil
}

// Install installs a source in a scope (a local source only has to exist).
func (in *Installer) Install(src Source, s Scope) error {
	switch src.Kind {
	case NPM:
		return in.InstallNpm([]string{src.Spec}, s)
	case Git:
		return in.installGit(src, s)
	}
	p := in.Layout.InstallPath(src, s)
	if !exists(p) {
		return fmt.Errorf("Path does not exist: %s", p)
	}
	return nil
}

// InstallNpm installs npm specs into a scope's npm project with one npm command.
func (in *Installer) InstallNpm(specs []string, s Scope) error {
	root := in.Layout.NpmRoot(s)
	if err := ensureNpmProject(root); err != nil {
		return err
	}
	return in.run(root, in.installArgs(specs, root)...)
}

func (in *Installer) installGit(src Source, s Scope) error {
	target := in.Layout.InstallPath(src, s)
	if exists(target) {
		return in.reconcileGit(src, target)
	}
	if root := in.Layout.GitRoot(s); root != "" {
		if err := ensureGitIgnore(root); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	_ = os.Remove(marker(target))
	err := in.run(filepath.Dir(target), "git", "clone", src.Repo, target)
	if err == nil && src.Ref != "" {
		err = in.run(target, "git", "checkout", src.Ref)
	}
	if err == nil && exists(filepath.Join(target, "package.json")) {
		err = in.run(target, in.depsArgs()...)
	}
	if err != nil {
		_ = os.RemoveAll(target)
		pruneEmpty(target, in.Layout.GitRoot(s))
		return err
	}
	return nil
}

// marker is pi's "update incomplete" marker of a checkout.
func marker(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".pi-update-incomplete")
}

// reconcileGit fetches the configured ref (or the upstream branch) and resets the checkout to
// it, as pi's installGit/updateGit do for an existing checkout.
func (in *Installer) reconcileGit(src Source, target string) error {
	if src.Ref != "" {
		return in.ensureRef(target, []string{"git", "fetch", "origin", src.Ref}, "FETCH_HEAD")
	}
	fetch, ref := in.upstream(target)
	return in.ensureRef(target, fetch, ref)
}

// upstream is pi's getLocalGitUpdateTarget: the tracked branch, else origin's HEAD.
func (in *Installer) upstream(target string) ([]string, string) {
	if up, err := in.capture(target, "git", "rev-parse", "--abbrev-ref", "@{upstream}"); err == nil && strings.HasPrefix(up, "origin/") && len(up) > len("origin/") {
		b := up[len("origin/"):]
		return []string{"git", "fetch", "--prune", "--no-tags", "origin", "+refs/heads/" + b + ":refs/remotes/origin/" + b}, "@{upstream}"
	}
	_ = in.run(target, "git", "remote", "set-head", "origin", "-a")
	head, _ := in.capture(target, "git", "symbolic-ref", "refs/remotes/origin/HEAD")
	if b := strings.TrimPrefix(head, "refs/remotes/origin/"); b != "" && b != head {
		return []string{"git", "fetch", "--prune", "--no-tags", "origin", "+refs/heads/" + b + ":refs/remotes/origin/" + b}, "origin/HEAD"
	}
	return []string{"git", "fetch", "--prune", "--no-tags", "origin", "+HEAD:refs/remotes/origin/HEAD"}, "origin/HEAD"
}

func (in *Installer) ensureRef(target string, fetch []string, ref string) error {
	if err := in.run(target, fetch...); err != nil {
		return err
	}
	local, err := in.capture(target, "git", "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	want, err := in.capture(target, "git", "rev-parse", ref+"^{commit}")
	if err != nil {
		return err
	}
	m := marker(target)
	if local == want && !exists(m) {
		return nil
	}
	if err := os.WriteFile(m, nil, 0o644); err != nil {
		return err
	}
	if local != want {
		if err := in.run(target, "git", "reset", "--hard", ref+"^{commit}"); err != nil {
			return err
		}
	}
	if err := in.run(target, "git", "clean", "-fdx"); err != nil {
		return err
	}
	if exists(filepath.Join(target, "package.json")) {
		if err := in.run(target, in.depsArgs()...); err != nil {
			return err
		}
	}
	return os.Remove(m)
}

// pruneEmpty removes the empty folders between target and root (pi's pruneEmptyGitParents).
func pruneEmpty(target, root string) {
	if root == "" {
		return
	}
	root = filepath.Clean(root)
	for cur := filepath.Dir(target); inside(cur, root) && cur != root; cur = filepath.Dir(cur) {
		entries, err := os.ReadDir(cur)
		if err != nil {
			continue
		}
		if len(entries) > 0 || os.Remove(cur) != nil {
			return
		}
	}
}

// Remove uninstalls a source from a scope: npm uninstall, or the checkout deleted.
func (in *Installer) Remove(src Source, s Scope) error {
	switch src.Kind {
	case NPM:
		root := in.Layout.NpmRoot(s)
		if !exists(root) {
			return nil
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		args := []string{"uninstall", src.Name, "--prefix", root}
		switch in.manager() {
		case "bun":
			args = []string{"uninstall", src.Name, "--cwd", root}
		case "npm":
			args = append(args, "--legacy-peer-deps", "--no-audit", "--no-fund", "--ignore-scripts")
		}
		return in.run(root, in.npm(args...)...)
	case Git:
		target := in.Layout.InstallPath(src, s)
		root := in.Layout.GitRoot(s)
		if root != "" && !inside(filepath.Clean(target), filepath.Clean(root)) {
			return fmt.Errorf("refusing to remove %s: outside %s", target, root)
		}
		if err := os.RemoveAll(target); err != nil {
			return err
		}
		_ = os.Remove(marker(target))
		pruneEmpty(target, root)
	}
	return nil
}

// Update brings an installed source up to date: an unpinned npm package to the newest version
// its declaration allows, a git checkout to its ref or upstream branch (installed when missing).
// from and to are the versions (npm) or commits (git) before and after.
func (in *Installer) Update(src Source, s Scope) (from, to string, err error) {
	target := in.Layout.InstallPath(src, s)
	switch src.Kind {
	case NPM:
		if src.Pinned {
			v := InstalledVersion(target)
			return v, v, nil
		}
		from = InstalledVersion(target)
		spec := src.Spec
		if src.Version == "" {
			spec = src.Name + "@latest"
		}
		if err := in.InstallNpm([]string{spec}, s); err != nil {
			return from, from, err
		}
		return from, InstalledVersion(target), nil
	case Git:
		from, _ = in.capture(target, "git", "rev-parse", "HEAD")
		if err := in.installGit(src, s); err != nil {
			return from, from, err
		}
		to, _ = in.capture(target, "git", "rev-parse", "HEAD")
		return from, to, nil
	}
	return "", "", nil
}
