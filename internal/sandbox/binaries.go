package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Reference refusal and discovery messages (exact texts).
const (
	msgBwrapMissing = "bwrap (bubblewrap) not found; refusing to execute commands without sandboxing. " +
		"Install bubblewrap and restart the session, or disable sandboxing explicitly with " +
		"/bwrap-fs-allow-all and /bwrap-network-allow-all."
	msgMihomoMissing = "mihomo not found in PATH. Install it from https://github.com/MetaCubeX/mihomo"
	msgSlirpMissing  = "slirp4netns not found in PATH. Install it from https://github.com/rootless-containers/slirp4netns"
	msgHomeUnset     = "HOME is not set; refusing to run in a clean environment"
)

// ErrBwrapNotFound is returned when a sandbox is needed and no bwrap binary exists; its text
// is the reference fail-closed message.
var ErrBwrapNotFound = errors.New(msgBwrapMissing)

// ErrHomeUnset is returned when $HOME is empty: the clean environment cannot be built.
var ErrHomeUnset = errors.New(msgHomeUnset)

// ErrMihomoNotFound and ErrSlirpNotFound are the reference install messages for the helpers
// that a "limited" network needs.
var (
	ErrMihomoNotFound = errors.New(msgMihomoMissing)
	ErrSlirpNotFound  = errors.New(msgSlirpMissing)
)

// bwrapFallbacks are tried, in order, after $PATH.
var bwrapFallbacks = []string{"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/run/current-system/sw/bin/bwrap"}

// FindBwrap locates bwrap: the configured path when set (which must exist), else $PATH, else
// the reference fallback locations. Outside the configured path only a trusted candidate is
// taken (see [trustedBinary]).
func FindBwrap(configured string, env Environ) (string, error) {
	return findBwrap(configured, env, nil, false)
}

// findBwrap is [FindBwrap] for a plan: a candidate under one of the plan's writable paths is
// skipped (a sandboxed command could have put it there), and with rootOnly only one that root
// owns is taken (fs allow-all: the sandbox can write whatever pigo's user can).
func findBwrap(configured string, env Environ, writable []string, rootOnly bool) (string, error) {
	if configured != "" {
		p := expandHome(configured, env.Home)
		if isExecutable(p) {
			return p, nil
		}
		return "", errors.New("bwrap not found at configured path: " + configured)
	}
	if p := lookPath("bwrap", env.Path, writable, rootOnly); p != "" {
		return p, nil
	}
	for _, p := range bwrapFallbacks {
		if isExecutable(p) && trustedBinary(p, writable, rootOnly) {
			return p, nil
		}
	}
	return "", ErrBwrapNotFound
}

// FindMihomo locates mihomo from the configured path or $PATH.
func FindMihomo(configured string, env Environ) (string, error) {
	return findHelper("mihomo", configured, env, ErrMihomoNotFound)
}

// FindSlirp4netns locates slirp4netns from the configured path or $PATH.
func FindSlirp4netns(configured string, env Environ) (string, error) {
	return findHelper("slirp4netns", configured, env, ErrSlirpNotFound)
}

func findHelper(name, configured string, env Environ, missing error) (string, error) {
	if configured != "" {
		p := expandHome(configured, env.Home)
		if isExecutable(p) {
			return p, nil
		}
		return "", errors.New(name + " not found at configured path: " + configured)
	}
	if p := lookPath(name, env.Path, nil, false); p != "" {
		return p, nil
	}
	return "", missing
}

// lookPath searches a PATH value (not the process's) for an executable name.
func lookPath(name, pathEnv string, writable []string, rootOnly bool) string {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on pigo's cwd
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) && trustedBinary(p, writable, rootOnly) {
			return p
		}
	}
	return ""
}

// trustedBinary reports whether p, a sandbox helper found on $PATH or in a fallback location,
// may be run: pigo runs it outside the sandbox, so a sandboxed command must not have been able
// to put it there. Its real path lies under none of writable (the plan's writable paths), and
// the file and every directory above it belong to root or to pigo's user (root only, with
// rootOnly) and are writable by neither group nor others, except a sticky directory such as
// /tmp, where nobody can replace another's entry. A bwrap planted in ~/bin by a command that
// could write ~, or in a group-writable directory, is passed over for the next candidate, as
// a missing one is; the configured bwrapPath is the user's own choice and is not checked.
func trustedBinary(p string, writable []string, rootOnly bool) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !filepath.IsAbs(real) {
		return false
	}
	for _, w := range writable {
		if w != "" && within(filepath.Clean(w), real) {
			return false
		}
	}
	uid := uint32(os.Geteuid())
	for q := real; ; q = filepath.Dir(q) {
		var st unix.Stat_t
		if unix.Lstat(q, &st) != nil {
			return false
		}
		if st.Uid != 0 && (rootOnly || st.Uid != uid) {
			return false
		}
		if st.Mode&0o022 != 0 && (q == real || st.Mode&unix.S_ISVTX == 0) {
			return false
		}
		if q == "/" {
			return true
		}
	}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
