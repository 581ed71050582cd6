package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/safefile"
)

// Shell is the absolute shell every command runs under, as "Shell -lc COMMAND".
const Shell = "/bin/bash"

// HolderPIDPlaceholder stands for the network-holder process id in a previewed
// "limited" argv.
const HolderPIDPlaceholder = "<HOLDER_PID>"

// sandboxPATH is the PATH of the clean environment.
const sandboxPATH = "/usr/local/bin:/usr/bin:/bin"

// Environ is what planning reads from the host: the caller fills it (usually with
// [HostEnviron]) so tests can vary it.
type Environ struct {
	Home string // $HOME; empty means unset
	Path string // $PATH used to discover bwrap, mihomo and slirp4netns
	UID  int    // passed to bwrap --uid
	GID  int    // passed to bwrap --gid
	// RuntimeDir is $XDG_RUNTIME_DIR (sockets of the user's session); "" when unset.
	RuntimeDir string
}

// HostEnviron reads the current process's HOME, PATH, uid and gid.
func HostEnviron() Environ {
	return Environ{Home: os.Getenv("HOME"), Path: os.Getenv("PATH"), UID: os.Getuid(), GID: os.Getgid(), RuntimeDir: os.Getenv("XDG_RUNTIME_DIR")}
}

// Mount is one deny entry as planned.
type Mount struct {
	Path string `json:"path"` // resolved absolute path
	Dir  bool   `json:"dir"`  // true: a tmpfs hides a directory; false: /dev/null over a file
}

// Skipped is a configured path the plan does not mount, with the reason.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Plan is a resolved policy: everything needed to build the argv of one command.
type Plan struct {
	Sandboxed bool     `json:"sandboxed"`
	FSMode    string   `json:"fs_mode"`
	NetMode   string   `json:"net_mode"`
	Workspace string   `json:"workspace"` // real path of the workspace
	Bwrap     string   `json:"bwrap,omitempty"`
	Writable  []string `json:"writable"`  // effective writable paths, resolved
	Extra     []string `json:"extra"`     // extraWritablePaths, resolved
	Deny      []Mount  `json:"deny"`      // denyPaths, resolved
	Protected []string `json:"protected"` // read-only binds over .pi, .agent, .git, the agent dir
	// Placeholders are missing protected paths (or their first missing component) that a
	// writable bind would let a command create: each gets an empty read-only tmpfs.
	Placeholders []string `json:"placeholders,omitempty"`
	// Links are protected paths that are symbolic links, checked and restored after a run.
	Links []Link `json:"links,omitempty"`
	// Pinned are the workspace and the writable ancestors of the protected paths, bound onto
	// themselves (as writable as before) so that they are mount points: a command cannot
	// rename one away and put a policy of its own in its place.
	Pinned  []string  `json:"pinned,omitempty"`
	Skipped []Skipped `json:"skipped,omitempty"`
	// Hidden are directories where host Unix sockets live, hidden behind an empty tmpfs when the
	// network is not allow-all (/run, $XDG_RUNTIME_DIR, /tmp/tmux-*, /tmp/.X11-unix, ...).
	Hidden []string `json:"hidden,omitempty"`
	// UnixSockets are the sockets network.allowUnixSockets names, bound back in; when there are
	// any, the seccomp filter lets the sandbox create Unix sockets.
	UnixSockets []string `json:"unix_sockets,omitempty"`
	Allowlist   []string `json:"allowlist"`
	ExtraArgs   []string `json:"extra_args"`
	Env         []string `json:"env"`
	UID         int      `json:"uid"`
	GID         int      `json:"gid"`

	// Secrets are credential files no sandboxed command may read (the agent dir's auth.json),
	// covered by /dev/null after the protected binds.
	Secrets []string `json:"secrets,omitempty"`

	// memo shares real paths while NewPlan runs (nil after: realPath resolves afresh).
	memo *safefile.Paths

	agentDir              string // absolute, "" when none
	pool                  string // the placeholders' pool (pool.go), "" when mkdir and rmdir
	mihomoPath, slirpPath string // as configured, resolved at run time
	home, pathEnv         string
	fsOrigin, netOrigin   Origin
	seccomp               bool // bwrap gets the filter (network not allow-all)
}

// OffNotice is the one line to print before running a command when the sandbox is off (both
// axes allow-all), naming where each mode was set; "" when the plan is sandboxed. Every
// caller that runs commands (sandbox run, the tool runtime) prints it once: the sandbox off
// is never silent.
func (pl *Plan) OffNotice() string {
	if pl.Sandboxed {
		return ""
	}
	where := func(o Origin) string {
		if o.File == "" {
			return "set by the caller"
		}
		if o.Line == 0 {
			return o.File
		}
		return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
	}
	return fmt.Sprintf("pigo: the sandbox is off: fs.mode \"allow-all\" (%s) and network.mode \"allow-all\" (%s); commands run directly on this machine",
		where(pl.fsOrigin), where(pl.netOrigin))
}

// NewPlan resolves p for workspace (made absolute and real). It fails on an unset HOME, an
// unknown mode, an invalid allowlist entry (limited network only) and a missing bwrap when a
// sandbox is needed (the reference fail-closed message).
func NewPlan(p Policy, workspace string, env Environ) (*Plan, error) {
	if env.Home == "" {
		return nil, ErrHomeUnset
	}
	switch p.FSMode {
	case FSReadonly, FSWorkspaceWrite, FSAllowAll:
	default:
		return nil, fmt.Errorf("fs.mode: expected \"readonly\", \"workspace-write\" or \"allow-all\", got %q", p.FSMode)
	}
	switch p.NetMode {
	case NetBlock, NetLimited, NetAllowAll:
	default:
		return nil, fmt.Errorf("network.mode: expected \"block\", \"limited\" or \"allow-all\", got %q", p.NetMode)
	}
	if p.NetMode == NetLimited {
		for _, e := range p.Allowlist {
			if err := ValidateAllowlistEntry(e); err != nil {
				return nil, err
			}
		}
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", workspace, err)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	pl := &Plan{
		Sandboxed: p.Sandboxed(),
		FSMode:    p.FSMode,
		NetMode:   p.NetMode,
		Workspace: ws,
		Writable:  []string{},
		Extra:     []string{},
		Deny:      []Mount{},
		Protected: []string{},
		Allowlist: append([]string{}, p.Allowlist...),
		ExtraArgs: append([]string{}, p.ExtraArgs...),
		Env: []string{
			"HOME=" + env.Home,
			"SHELL=" + Shell,
			"TERM=dumb",
			"LANG=C.UTF-8",
			"PATH=" + sandboxPATH,
		},
		UID:        env.UID,
		GID:        env.GID,
		agentDir:   absPath(expandHome(p.AgentDir, env.Home)),
		mihomoPath: p.MihomoPath,
		slirpPath:  p.Slirp4netnsPath,
		home:       env.Home,
		pathEnv:    env.Path,
		fsOrigin:   p.FSModeOrigin,
		netOrigin:  p.NetModeOrigin,
	}
	if !pl.Sandboxed {
		return pl, nil
	}
	switch p.FSMode {
	case FSAllowAll:
		pl.Writable = []string{"/"}
	case FSWorkspaceWrite:
		for _, w := range p.WritablePaths {
			pl.Writable = append(pl.Writable, resolvePath(w, ws, env.Home))
		}
	}
	for _, w := range p.ExtraWritablePaths {
		pl.Extra = append(pl.Extra, resolvePath(w, ws, env.Home))
	}
	// bwrap runs outside the sandbox: never one a sandboxed command of this policy could have
	// written (under its writable paths; with fs allow-all, anything not root's).
	var writable []string
	if p.FSMode != FSAllowAll {
		writable = append(slices.Clip(pl.Writable), pl.Extra...)
	}
	if pl.Bwrap, err = findBwrap(p.BwrapPath, env, writable, p.FSMode == FSAllowAll); err != nil {
		return nil, err
	}
	for _, d := range p.DenyPaths {
		r := resolvePath(d, ws, env.Home)
		fi, err := os.Stat(r)
		if err != nil {
			pl.Skipped = append(pl.Skipped, Skipped{Path: d, Reason: "does not exist"})
			continue
		}
		// What the path is decides the mount, not how it is written: /dev/null cannot cover
		// a directory (bwrap would fail every command) and a tmpfs cannot cover a file.
		pl.Deny = append(pl.Deny, Mount{Path: r, Dir: fi.IsDir()})
	}
	pl.denyCredentials()
	if !noRealMemo {
		pl.memo = safefile.NewPaths()
	}
	pl.protect(protectedPaths(ws, pl.agentDir, p.FSMode == FSAllowAll))
	pl.protect(homeStartupFiles(env.Home, pl))
	pl.pin()
	pl.choosePool()
	pl.memo = nil
	if p.NetMode != NetAllowAll {
		// Without the filter, only a policy that lets Unix sockets through anyway may run.
		switch _, err := seccompFilters(); {
		case err == nil:
			pl.seccomp = true
		case len(p.AllowUnixSockets) == 0:
			return nil, err
		}
		for _, s := range p.AllowUnixSockets {
			pl.UnixSockets = append(pl.UnixSockets, resolvePath(s, ws, env.Home))
		}
		pl.Hidden = socketDirs(env, append(append([]string{ws}, pl.Writable...), pl.Extra...))
	}
	return pl, nil
}

// ExpandHomeVar replaces a leading "$HOME" or "${HOME}" (alone or before "/") by home; other
// variables are not expanded (check reports them).
func ExpandHomeVar(p, home string) string {
	for _, v := range []string{"${HOME}", "$HOME"} {
		if p == v || strings.HasPrefix(p, v+"/") {
			return home + p[len(v):]
		}
	}
	return p
}

// socketDirs returns the existing directories where host Unix sockets usually live, real
// paths, sorted and without duplicates, leaving out any that holds the workspace or a
// writable path (hiding it would hide them too).
func socketDirs(env Environ, keep []string) []string {
	return hideable(socketCandidates(env), keep)
}

// socketCandidates lists where host Unix sockets usually live (a variable so that golden
// tests do not depend on the sockets of the machine they run on).
var socketCandidates = func(env Environ) []string {
	cands := []string{"/run", "/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix"}
	if env.RuntimeDir != "" && filepath.IsAbs(env.RuntimeDir) {
		cands = append(cands, env.RuntimeDir)
	}
	// The per-user socket directories in /tmp (tmux, ssh-agent, dbus, screen): sockets.go.
	cands = append(cands, tmpSocketDirs()...)
	if env.Home != "" {
		cands = append(cands, filepath.Join(env.Home, ".docker", "run"))
	}
	return cands
}

// hideable keeps the existing directories of cands, as real paths, sorted, without one inside
// another, and without any that holds a path of keep.
func hideable(cands, keep []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cands {
		r, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() || seen[r] {
			continue
		}
		holds := false
		for _, k := range keep {
			if k == r || strings.HasPrefix(k, r+"/") {
				holds = true
				break
			}
		}
		if holds {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	// A directory inside another hidden one needs no mount of its own.
	sort.Strings(out)
	var flat []string
	for _, d := range out {
		if len(flat) > 0 && strings.HasPrefix(d, flat[len(flat)-1]+"/") {
			continue
		}
		flat = append(flat, d)
	}
	return flat
}

// resolvePath expands "~", "$HOME" and "${HOME}", maps exactly "." to the workspace,
// resolves other relative paths against the workspace, and replaces an existing path by its
// real path.
func resolvePath(p, ws, home string) string {
	p = ExpandHomeVar(p, home)
	switch {
	case p == ".":
		p = ws
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = expandHome(p, home)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	return realIfExists(filepath.Clean(p))
}

// absPath makes p absolute against the process's directory ("" stays ""): a relative
// --agent-dir must not reach the bwrap argv as a relative bind, which bwrap would resolve
// against its own working directory.
func absPath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// noRealMemo makes NewPlan resolve every path afresh (the test comparing plans made either
// way sets it).
var noRealMemo = false

// realPath is realIfExists through the plan's memo while NewPlan runs (safefile.Paths: a
// directory's real path shared by the paths below it). filepath.EvalSymlinks lstats every
// component of a path from "/", and planning resolved the workspace's ancestors, each
// protected path, its parent and theirs (pin walks each up to "/", writableInside resolves
// each again): 45% of NewPlan's time. A plan is made from the filesystem as one moment's
// view either way. With no memo (nil) it is realIfExists.
func (pl *Plan) realPath(p string) string {
	if r, err := pl.memo.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func realIfExists(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// Nested .git scan limits and skipped directory names (reference values).
const (
	gitScanDepth = 24
	gitScanHits  = 64
)

var gitScanSkip = map[string]bool{
	"node_modules": true, ".venv": true, "venv": true, ".venvs": true, "dist": true, "build": true,
	"target": true, "__pycache__": true, ".next": true, ".cache": true, ".turbo": true,
	".pytest_cache": true, ".mypy_cache": true, ".hg": true, ".svn": true,
}

// gitPaths returns ws/.git when it exists, else the nested .git entries found by a bounded,
// symlink-free scan, in directory order (sorted names).
func gitPaths(ws string) []string {
	root := filepath.Join(ws, ".git")
	if fi, err := os.Lstat(root); err == nil && !isRunPlaceholder(root, fi) {
		return []string{realIfExists(root)}
	}
	var hits []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > gitScanDepth || len(hits) >= gitScanHits {
			return
		}
		entries, err := os.ReadDir(dir) // sorted by name
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(hits) >= gitScanHits {
				return
			}
			name := e.Name()
			full := filepath.Join(dir, name)
			if name == ".git" {
				if fi, err := os.Lstat(full); err != nil || !isRunPlaceholder(full, fi) {
					hits = append(hits, full) // a run's placeholder is not a repository
				}
				continue
			}
			if e.Type()&os.ModeSymlink != 0 || !e.IsDir() || gitScanSkip[name] {
				continue
			}
			walk(full, depth+1)
		}
	}
	walk(ws, 1)
	return hits
}

// Argv is the full command line for command: the nsenter prefix in limited mode (with pid,
// or [HolderPIDPlaceholder] when pid is 0), bwrap and its arguments, then the shell. When the
// plan is not sandboxed it is just the shell.
func (pl *Plan) Argv(command string, holderPID int) []string {
	shell := []string{Shell, "-lc", command}
	if !pl.Sandboxed {
		return shell
	}
	var a []string
	if pl.NetMode == NetLimited {
		pid := HolderPIDPlaceholder
		if holderPID > 0 {
			pid = strconv.Itoa(holderPID)
		}
		a = append(a, "nsenter", "-U", "-n", "--preserve-credentials", "-t", pid, "--")
	}
	a = append(a, pl.Bwrap, "--ro-bind", "/", "/", "--new-session", "--die-with-parent",
		"--unshare-user", "--unshare-pid", "--uid", strconv.Itoa(pl.UID), "--gid", strconv.Itoa(pl.GID))
	a = appendBinds(a, pl.Writable, pl.Extra, pl.Pinned)
	for _, d := range pl.Deny {
		if d.Dir {
			a = append(a, "--tmpfs", d.Path)
		} else {
			a = append(a, "--ro-bind-try", "/dev/null", d.Path)
		}
	}
	for _, h := range pl.Hidden {
		a = append(a, "--tmpfs", h)
	}
	for _, s := range pl.UnixSockets {
		a = append(a, "--bind-try", s, s)
	}
	if pl.NetMode == NetBlock {
		a = append(a, "--unshare-net")
	}
	for _, p := range pl.Protected {
		a = append(a, "--ro-bind-try", p, p)
	}
	for _, m := range pl.Placeholders {
		a = append(a, "--tmpfs", m, "--remount-ro", m)
	}
	// A user's denyPaths entry inside a protected path (a file under .git or the agent dir) was
	// shown again by the protected bind: cover it once more after it.
	for _, d := range pl.Deny {
		if !underAny(d.Path, pl.Protected) {
			continue
		}
		if d.Dir {
			a = append(a, "--tmpfs", d.Path)
		} else {
			a = append(a, "--ro-bind-try", "/dev/null", d.Path)
		}
	}
	// After the protected binds, which would show the files again.
	for _, f := range pl.Secrets {
		a = append(a, "--ro-bind-try", "/dev/null", f)
	}
	if pl.seccomp {
		a = append(a, "--seccomp", strconv.Itoa(seccompFD))
	}
	a = append(a, pl.ExtraArgs...)
	a = append(a, "--dev", "/dev", "--proc", "/proc", "--")
	return append(a, shell...)
}

// appendBinds appends a writable bind of each path of lists, in order, leaving out a bind
// whose path is bound again further on. Each is `--bind-try P P` from the host, recursive:
// the later bind of the same path mounts the same directory on top of the earlier one,
// whatever was mounted in between (a bind of a path below P is covered by it too, a bind of
// an ancestor covered the earlier one already), so the earlier mount is out of sight and
// out of reach (the command has no capability to unmount what covers it) and changes
// nothing the command sees or may do. It is the workspace under a writable /tmp: "." binds
// it, the /tmp bind covers that, and the pins bind it again as a mount point. Each bind
// costs bwrap a mount and a read of /proc/self/mountinfo, a file that grows with every
// mount.
func appendBinds(a []string, lists ...[]string) []string {
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	for i, w := range all {
		if !keepRepeatedBinds && slices.Contains(all[i+1:], w) {
			continue
		}
		a = append(a, "--bind-try", w, w)
	}
	return a
}

// keepRepeatedBinds makes [Plan.Argv] bind a repeated path each time (the test comparing
// what a command sees either way sets it).
var keepRepeatedBinds = false

// underAny reports whether p is one of dirs or inside one of them.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// ArgvResult is the JSON shape of `pigo sandbox argv` (the caller adds "version").
type ArgvResult struct {
	Sandboxed bool     `json:"sandboxed"`
	Argv      []string `json:"argv"`
	Env       []string `json:"env"`
}

// Preview returns the argv and environment command would run with; a limited network shows
// [HolderPIDPlaceholder].
func (pl *Plan) Preview(command string) ArgvResult {
	return ArgvResult{Sandboxed: pl.Sandboxed, Argv: pl.Argv(command, 0), Env: append([]string{}, pl.Env...)}
}

// ErrLimitedNotImplemented refuses a "limited" network run when mihomo and slirp4netns exist
// but pigo cannot yet build the filtered network stack.
var ErrLimitedNotImplemented = errors.New("network mode \"limited\" is not supported by this pigo yet; refusing to run without the allowlist enforced (use \"block\" or \"allow-all\")")

// denyCredentials hides the agent dir's auth.json and mcp-auth.json (pi's credential stores:
// API keys and OAuth tokens) from sandboxed commands: no secret reaches a sandbox (D24). The reference leaves it
// readable; a deliberate difference (docs/decisions/22-credentials-providers.md).
func (pl *Plan) denyCredentials() {
	pl.Secrets = append(pl.Secrets, CredentialFiles(pl.agentDir)...)
}

// CredentialPaths are the agent dir's credential stores (auth.json, mcp-auth.json: API keys
// and OAuth tokens), whether they exist yet or not: what no sandboxed command, no file tool
// and no search may read.
func CredentialPaths(agentDir string) []string {
	if agentDir == "" {
		return nil
	}
	return []string{filepath.Join(agentDir, "auth.json"), filepath.Join(agentDir, "mcp-auth.json")}
}

// CredentialFiles are the [CredentialPaths] that exist as regular files.
func CredentialFiles(agentDir string) []string {
	var out []string
	for _, f := range CredentialPaths(agentDir) {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			out = append(out, f)
		}
	}
	return out
}
