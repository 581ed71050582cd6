package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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
// the reference fallback locations.
func FindBwrap(configured string, env Environ) (string, error) {
	if configured != "" {
		p := expandHome(configured, env.Home)
		if isExecutable(p) {
			return p, nil
		}
		return "", errors.New("bwrap not found at configured path: " + configured)
	}
	if p := lookPath("bwrap", env.Path); p != "" {
		return p, nil
	}
	for _, p := range bwrapFallbacks {
		if isExecutable(p) {
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
	if p := lookPath(name, env.Path); p != "" {
		return p, nil
	}
	return "", missing
}

// lookPath searches a PATH value (not the process's) for an executable name.
func lookPath(name, pathEnv string) string {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on pigo's cwd
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p
		}
	}
	return ""
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
