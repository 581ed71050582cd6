package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/safefile"
)

// Link is a protected path that is a symbolic link: a mount cannot cover the link itself
// (mounts follow it), so [Run] checks it after the command and restores it when the command
// replaced it.
type Link struct {
	Path   string `json:"path"`
	Target string `json:"target"` // the link's text
}

// ProtectedNames are the workspace entries whose content decides pigo's own policy or runs
// code outside the sandbox later: the project's pigo config (.pi), its agent config (.agent)
// and git's config and hooks (.git). With the agent dir and trust.json they make the one
// protected list ([ProtectedList]): bash cannot write them (except under fs "allow-all",
// which drops the three workspace entries as the reference does), and the file tools ask
// before writing them ([WriteProtected]).
var ProtectedNames = []string{".pi", ".agent", ".git"}

// Protection is one entry of the protected list.
type Protection struct {
	Path string `json:"path"`
	// Why says what the path holds, for a dialog or a refusal.
	Why string `json:"why"`
	// Workspace is true for the workspace's .pi, .agent and .git entries (fs "allow-all"
	// leaves those writable to bash).
	Workspace bool `json:"workspace"`
}

// Reasons of the protected list.
const (
	whyPi       = "the project's pi config: its sandbox.json, settings and extensions decide what later commands may do"
	whyAgent    = "the project's agent config"
	whyGit      = "git's config and hooks run outside the sandbox"
	whyAgentDir = "the agent dir: the global sandbox.json, settings and credentials"
	whyTrust    = "trust.json decides which projects' .pi applies"
)

// ProtectedList is the one list of protected paths for workspace ws and agent dir agentDir
// (paths as written: cleaned, not resolved): the workspace's .pi, .agent and .git (what a
// .git file points to, nested .git entries when the workspace has none), the agent dir and
// its trust.json.
func ProtectedList(ws, agentDir string) []Protection {
	var out []Protection
	for _, n := range ProtectedNames {
		why := whyPi
		switch n {
		case ".agent":
			why = whyAgent
		case ".git":
			why = whyGit
		}
		out = append(out, Protection{Path: filepath.Join(ws, n), Why: why, Workspace: true})
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".git")); err != nil || isRunPlaceholder(filepath.Join(ws, ".git"), fi) {
		for _, g := range gitPaths(ws) {
			out = append(out, Protection{Path: g, Why: whyGit, Workspace: true})
		}
	}
	for _, g := range gitFileTargets(filepath.Join(ws, ".git")) {
		out = append(out, Protection{Path: g, Why: whyGit, Workspace: true})
	}
	if agentDir != "" {
		ad := absPath(agentDir)
		out = append(out, Protection{Path: ad, Why: whyAgentDir}, Protection{Path: filepath.Join(ad, "trust.json"), Why: whyTrust})
	}
	return out
}

// protectedPaths are the paths the sandbox keeps read-only: the protected list, less the
// workspace entries under fs "allow-all" (the reference binds none there) and trust.json,
// which the agent dir's bind covers.
func protectedPaths(ws, agentDir string, allowAll bool) []string {
	var ps []string
	for _, p := range ProtectedList(ws, agentDir) {
		if (allowAll && p.Workspace) || p.Why == whyTrust {
			continue
		}
		ps = append(ps, p.Path)
	}
	return ps
}

// ProtectionRow is one entry of the protected list with how bash is kept from it, as
// `pigo sandbox show` prints the list (once, for bash and the file tools).
type ProtectionRow struct {
	Protection
	// Bash is how a sandboxed command is kept from the path: "read-only" (a read-only
	// bind), "placeholder" (missing: an empty read-only tmpfs stops its creation),
	// "missing" (no writable bind could create it), "inside" (under another protected
	// path), "writable" (fs "allow-all" drops the workspace entries), "off" (the sandbox is
	// off), or "bash only" for the shell startup files the file tools do not ask about.
	Bash string `json:"bash"`
}

// ProtectionRows is the protected list of the plan's workspace and agent dir, each with
// how bash is kept from it, then the shell startup files only bash is kept from.
func (pl *Plan) ProtectionRows() []ProtectionRow {
	var rows []ProtectionRow
	seen := map[string]bool{}
	for _, p := range ProtectedList(pl.Workspace, pl.agentDir) {
		r := ProtectionRow{Protection: p}
		real := realIfExists(p.Path)
		switch {
		case !pl.Sandboxed:
			r.Bash = "off"
		case pl.FSMode == FSAllowAll && p.Workspace:
			r.Bash = "writable"
		case slices.Contains(pl.Protected, real):
			r.Bash = "read-only"
		case slices.Contains(pl.Placeholders, firstMissing(p.Path)) || slices.Contains(pl.Placeholders, p.Path):
			r.Bash = "placeholder"
		default:
			r.Bash = "missing"
			for _, q := range pl.Protected {
				if within(q, real) {
					r.Bash = "inside"
				}
			}
		}
		seen[real] = true
		rows = append(rows, r)
	}
	for _, q := range pl.Protected {
		if !seen[q] {
			rows = append(rows, ProtectionRow{Protection: Protection{Path: q, Why: "runs outside the sandbox later"}, Bash: "bash only"})
		}
	}
	return rows
}

// WriteProtected says why a file tool must ask before writing real (a resolved path: no
// link in it), "" when real is not protected: it is, or lies inside, the real path of an
// entry of the protected list, or of the target of a link directly in the agent dir (a
// settings.json kept in a dotfiles repository), or it has a .git component inside the
// workspace (every nested repository, found or not). Each entry's real path is resolved as
// a write would resolve it (a dangling link followed).
func WriteProtected(real, ws, agentDir string) string {
	r := newResolver()
	rws := r.resolve(ws) // first: the workspace's entries are resolved from it
	for _, p := range ProtectedList(ws, agentDir) {
		if within(r.resolve(p.Path), real) {
			return p.Why
		}
	}
	if agentDir != "" {
		ad := r.resolve(absPath(agentDir))
		if ents, err := os.ReadDir(ad); err == nil {
			for _, e := range ents {
				if e.Type()&os.ModeSymlink != 0 && within(r.resolve(filepath.Join(ad, e.Name())), real) {
					return whyAgentDir
				}
			}
		}
	}
	if rel, err := filepath.Rel(rws, real); err == nil && within(rws, real) {
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			if c == ".git" {
				return whyGit
			}
		}
	}
	return ""
}

// resolver is [safefile.ResolvePath] for the paths of one check, a directory's resolution
// shared by its entries: safefile resolves each path from "/" one component at a time (three
// system calls a component), and WriteProtected resolved seven paths, five of them entries of
// the workspace and the agent dir, for every write. An entry of a directory resolved here
// (to an existing directory, without error) that is not a symbolic link is that directory's
// real path and its name, whether it exists or not, as safefile's walk would find it; one
// lstat tells. Anything else (a link, an error) is resolved by safefile from "/".
type resolver struct {
	done map[string]string // path → what safefile.ResolvePath gives
	dirs map[string]string // path → its real path, for the existing directories resolved
}

func newResolver() *resolver {
	return &resolver{done: map[string]string{}, dirs: map[string]string{}}
}

func (r *resolver) resolve(p string) string {
	if v, ok := r.done[p]; ok {
		return v
	}
	v := r.eval(p)
	r.done[p] = v
	return v
}

func (r *resolver) eval(p string) string {
	if filepath.IsAbs(p) && p == filepath.Clean(p) && p != "/" {
		if rd, ok := r.dirs[filepath.Dir(p)]; ok {
			at := filepath.Join(rd, filepath.Base(p))
			fi, err := os.Lstat(at)
			if (err == nil && fi.Mode()&os.ModeSymlink == 0) || errors.Is(err, syscall.ENOENT) {
				return at
			}
		}
	}
	t, err := safefile.Resolve(p)
	if err != nil {
		return filepath.Clean(p)
	}
	defer t.Close()
	if t.Exists && t.Info != nil && t.Info.IsDir() {
		r.dirs[p] = t.Real
	}
	return t.Real
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// homeStartupNames are files in $HOME that run code outside the sandbox later: the shell
// startup files "bash -lc" reads for every unsandboxed command, and git's global config
// (core.fsmonitor, aliases, hooks path). sandbox-runtime protects the same kind of files.
var homeStartupNames = []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_logout",
	".zshrc", ".zprofile", ".zshenv", ".gitconfig", ".config/git"}

// homeStartupFiles returns the existing startup files under a writable bind (only then can a
// command change them). A missing one is not covered: a placeholder would be a directory
// where the shell expects a file.
func homeStartupFiles(home string, pl *Plan) []string {
	var out []string
	for _, n := range homeStartupNames {
		p := filepath.Join(home, n)
		if _, err := os.Lstat(p); err == nil && pl.writableInside(filepath.Dir(p)) {
			out = append(out, p)
		}
	}
	return out
}

// gitFileTargets reads a .git file ("gitdir: DIR", a worktree or submodule) and returns DIR
// and its common dir: their hooks and config run outside the sandbox too.
func gitFileTargets(gitPath string) []string {
	fi, err := os.Lstat(gitPath)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return nil
	}
	b, err := os.ReadFile(gitPath)
	if err != nil {
		return nil
	}
	line := strings.TrimSpace(string(b))
	dir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return nil
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(gitPath), dir)
	}
	out := []string{filepath.Clean(dir)}
	if c, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(dir, cd)
		}
		out = append(out, filepath.Clean(cd))
	}
	return out
}

// protect plans the mounts for the protected paths: a read-only bind over each existing one
// (its real path), and for a missing one the first missing component gets an empty,
// read-only tmpfs when a writable bind would let the command create it. A symbolic link is
// remembered for the check after the run, and its target is protected like the rest.
func (pl *Plan) protect(paths []string) {
	seen := map[string]bool{}
	var add func(p string, depth int)
	add = func(p string, depth int) {
		if seen[p] || depth > 8 {
			return
		}
		seen[p] = true
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return
			}
			pl.Links = append(pl.Links, Link{Path: p, Target: t})
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(p), t)
			}
			add(filepath.Clean(t), depth+1)
		case err == nil && !(isRunPlaceholder(p, fi) && pl.writableInside(filepath.Dir(p))):
			r := pl.realPath(p)
			if !seen[r] || r == p {
				seen[r] = true
				pl.Protected = append(pl.Protected, r)
			}
		default:
			m := firstMissingOf(p, pl.realPath)
			if m == "" || seen["missing:"+m] || !pl.writableInside(filepath.Dir(m)) {
				return
			}
			seen["missing:"+m] = true
			pl.Placeholders = append(pl.Placeholders, m)
		}
	}
	for _, p := range paths {
		add(p, 0)
	}
}

// pin computes [Plan.Pinned]: every existing directory from the workspace, and from the
// parent of each protected path, placeholder and link, up to "/", that lies in a writable
// bind. Renaming a directory that merely contains a mount point is allowed ("mv ~/.pi
// ~/.pi.old; mkdir -p ~/.pi/agent" would replace the agent dir); renaming a mount point is
// not (EBUSY). Shallow ones first, so that each bind shows what the one above it showed.
func (pl *Plan) pin() {
	if len(pl.Writable)+len(pl.Extra) == 0 {
		return
	}
	starts := []string{pl.Workspace}
	for _, p := range pl.Protected {
		starts = append(starts, filepath.Dir(p))
	}
	for _, p := range pl.Placeholders {
		starts = append(starts, filepath.Dir(p))
	}
	for _, l := range pl.Links {
		starts = append(starts, filepath.Dir(l.Path))
	}
	binds := append(append([]string{}, pl.Writable...), pl.Extra...)
	// stillMount: a bind whose root no later bind covers is a mount point already.
	stillMount := func(a string) bool {
		i := slices.Index(binds, a)
		if i < 0 {
			return false
		}
		for _, b := range binds[i+1:] {
			if b == "/" || b == a || strings.HasPrefix(a, b+"/") {
				return false
			}
		}
		return true
	}
	seen := map[string]bool{}
	for _, s := range starts {
		for a := pl.realPath(s); a != "/" && a != "." && !seen[a]; a = filepath.Dir(a) {
			seen[a] = true
			if stillMount(a) {
				continue
			}
			if fi, err := os.Stat(a); err == nil && fi.IsDir() && pl.writableInside(a) {
				pl.Pinned = append(pl.Pinned, a)
			}
		}
	}
	sort.Slice(pl.Pinned, func(i, j int) bool {
		di, dj := strings.Count(pl.Pinned[i], "/"), strings.Count(pl.Pinned[j], "/")
		if di != dj {
			return di < dj
		}
		return pl.Pinned[i] < pl.Pinned[j]
	})
}

// firstMissing returns the first component of p that does not exist (its parent exists and
// is a directory, resolved), or "" when no such component can be found.
func firstMissing(p string) string { return firstMissingOf(p, realIfExists) }

// firstMissingOf is firstMissing with real resolving the parent.
func firstMissingOf(p string, real func(string) string) string {
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return ""
		}
		if fi, err := os.Stat(parent); err == nil && !isRunPlaceholder(parent, fi) {
			if !fi.IsDir() {
				return ""
			}
			return filepath.Join(real(parent), filepath.Base(p))
		}
		p = parent
	}
}

// writableInside reports whether dir (resolved) lies in a writable bind of the plan.
func (pl *Plan) writableInside(dir string) bool {
	dir = pl.realPath(dir)
	for _, w := range append(append([]string{}, pl.Writable...), pl.Extra...) {
		if w == "/" || dir == w || strings.HasPrefix(dir, w+"/") {
			return true
		}
	}
	return false
}

// placeholderMode marks a directory pigo created as a mount point: read-only, searchable
// (a concurrent config load finds no file in it rather than a permission error) and sticky,
// a combination no user gives a .pi or .git, so removing an empty one never removes theirs.
const placeholderMode = os.ModeSticky | 0o500

func isPlaceholder(fi os.FileInfo) bool {
	return fi.IsDir() && fi.Mode()&(os.ModeSticky|os.ModePerm) == placeholderMode
}

// isRunPlaceholder reports whether p (fi its Lstat) is an empty placeholder: one a run under
// way made for a protected path that is missing (this pigo's parallel bash calls, or another
// pigo's command in the same workspace). A plan takes it for missing, as it is for that run
// and as it will be again once that run removes it, so that it makes the path its own
// placeholder (held by the parent's shared lock until its command ends) instead of binding
// a directory that may be gone when bwrap mounts it: a --ro-bind-try of a vanished
// directory binds nothing, and the command could create .git or .pi there.
func isRunPlaceholder(p string, fi os.FileInfo) bool {
	if fi == nil || !isPlaceholder(fi) {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

// guard is the state of one run's placeholders.
type guard struct {
	locks        []dirLock // shared flocks on the placeholders' parent directories
	placeholders []string
	pool         *pool // nil: made by mkdir and removed by rmdir
}

// dirLock is a directory opened for its flock: a descriptor of its own (an *os.File adds five
// system calls at the open, for the poller that refuses a directory).
type dirLock struct {
	fd  int
	dir string
}

// prepare creates the placeholder mount points (bwrap would create them anyway, with a mode
// that cannot be told from a user's) under a shared lock on their parent directory, so that
// a concurrent run does not remove one still mounted.
func (pl *Plan) prepare() (*guard, error) {
	g := &guard{placeholders: pl.Placeholders}
	if pl.pool != "" {
		g.pool = openPool(pl.pool)
	}
	locked := map[string]bool{}
	for _, m := range pl.Placeholders {
		if dir := filepath.Dir(m); !locked[dir] {
			locked[dir] = true
			fd, err := openDir(dir)
			if err != nil {
				g.release()
				return nil, fmt.Errorf("the sandbox could not be set up: %w", err)
			}
			if err := syscall.Flock(fd, syscall.LOCK_SH); err != nil {
				syscall.Close(fd)
				g.release()
				return nil, fmt.Errorf("the sandbox could not be set up: lock %s: %w", dir, err)
			}
			g.locks = append(g.locks, dirLock{fd, dir})
		}
		if g.pool.claim(m) {
			continue
		}
		// IsExist: another run's placeholder, or created since the plan; the tmpfs covers it.
		switch err := os.Mkdir(m, placeholderMode); {
		case err == nil:
			_ = os.Chmod(m, placeholderMode) // the umask may have taken bits away
		case !os.IsExist(err):
			g.release()
			return nil, fmt.Errorf("the sandbox could not be set up: protect %s: %w", m, err)
		}
	}
	return g, nil
}

// release puts the empty placeholders back in the pool, or removes them, when no other run
// holds their parent (an exclusive lock is granted only then), and drops the locks.
func (g *guard) release() {
	for _, l := range g.locks {
		if syscall.Flock(l.fd, syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			for _, p := range g.placeholders {
				if filepath.Dir(p) != l.dir || g.pool.put(p) {
					continue
				}
				if fi, err := os.Lstat(p); err == nil && isPlaceholder(fi) {
					_ = syscall.Rmdir(p) // fails, and keeps it, when not empty
				}
			}
		}
		syscall.Close(l.fd)
	}
	g.locks = nil
	g.pool.close()
}

// openDir opens dir (read-only, close-on-exec) as os.Open does, for a descriptor of its own.
func openDir(dir string) (int, error) {
	for {
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		return fd, nil
	}
}

// checkLinks restores protected symbolic links the command replaced or removed. What it found
// in their place is kept beside them ("<path>.pigo-replaced-<time>"), never deleted.
func (pl *Plan) checkLinks() []string {
	var restored []string
	for _, l := range pl.Links {
		if t, err := os.Readlink(l.Path); err == nil && t == l.Target {
			continue
		}
		if _, err := os.Lstat(l.Path); err == nil {
			aside := fmt.Sprintf("%s.pigo-replaced-%d", l.Path, time.Now().UnixNano())
			if err := os.Rename(l.Path, aside); err != nil {
				restored = append(restored, fmt.Sprintf("%s was replaced and could not be restored: %v", l.Path, err))
				continue
			}
			restored = append(restored, fmt.Sprintf("%s was replaced by the command; restored the link to %s (what it wrote is in %s)", l.Path, l.Target, aside))
		} else {
			restored = append(restored, fmt.Sprintf("%s was removed by the command; restored the link to %s", l.Path, l.Target))
		}
		if err := os.Symlink(l.Target, l.Path); err != nil {
			restored = append(restored, fmt.Sprintf("%s: %v", l.Path, err))
		}
	}
	return restored
}
