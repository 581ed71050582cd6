package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
}

// HostEnviron reads the current process's HOME, PATH, uid and gid.
func HostEnviron() Environ {
	return Environ{Home: os.Getenv("HOME"), Path: os.Getenv("PATH"), UID: os.Getuid(), GID: os.Getgid()}
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
	Sandboxed bool      `json:"sandboxed"`
	FSMode    string    `json:"fs_mode"`
	NetMode   string    `json:"net_mode"`
	Workspace string    `json:"workspace"` // real path of the workspace
	Bwrap     string    `json:"bwrap,omitempty"`
	Writable  []string  `json:"writable"`  // effective writable paths, resolved
	Extra     []string  `json:"extra"`     // extraWritablePaths, resolved
	Deny      []Mount   `json:"deny"`      // denyPaths, resolved
	Protected []string  `json:"protected"` // read-only binds over .pi, .agent, .git
	Skipped   []Skipped `json:"skipped,omitempty"`
	Allowlist []string  `json:"allowlist"`
	ExtraArgs []string  `json:"extra_args"`
	Env       []string  `json:"env"`
	UID       int       `json:"uid"`
	GID       int       `json:"gid"`

	mihomoPath, slirpPath string // as configured, resolved at run time
	home, pathEnv         string
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
		mihomoPath: p.MihomoPath,
		slirpPath:  p.Slirp4netnsPath,
		home:       env.Home,
		pathEnv:    env.Path,
	}
	if !pl.Sandboxed {
		return pl, nil
	}
	if pl.Bwrap, err = FindBwrap(p.BwrapPath, env); err != nil {
		return nil, err
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
	for _, d := range p.DenyPaths {
		dir := strings.HasSuffix(d, "/")
		r := resolvePath(d, ws, env.Home)
		if _, err := os.Lstat(r); err != nil {
			pl.Skipped = append(pl.Skipped, Skipped{Path: d, Reason: "does not exist"})
			continue
		}
		pl.Deny = append(pl.Deny, Mount{Path: r, Dir: dir})
	}
	if p.FSMode != FSAllowAll {
		pl.Protected = append(pl.Protected, realIfExists(filepath.Join(ws, ".pi")), realIfExists(filepath.Join(ws, ".agent")))
		pl.Protected = append(pl.Protected, gitPaths(ws)...)
	}
	return pl, nil
}

// resolvePath expands "~", maps exactly "." to the workspace, resolves other relative paths
// against the workspace, and replaces an existing path by its real path.
func resolvePath(p, ws, home string) string {
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
	if _, err := os.Lstat(root); err == nil {
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
				hits = append(hits, full)
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
	for _, w := range pl.Writable {
		a = append(a, "--bind-try", w, w)
	}
	for _, w := range pl.Extra {
		a = append(a, "--bind-try", w, w)
	}
	for _, d := range pl.Deny {
		if d.Dir {
			a = append(a, "--tmpfs", d.Path)
		} else {
			a = append(a, "--ro-bind-try", "/dev/null", d.Path)
		}
	}
	if pl.NetMode == NetBlock {
		a = append(a, "--unshare-net")
	}
	for _, p := range pl.Protected {
		a = append(a, "--ro-bind-try", p, p)
	}
	a = append(a, pl.ExtraArgs...)
	a = append(a, "--dev", "/dev", "--proc", "/proc", "--")
	return append(a, shell...)
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
