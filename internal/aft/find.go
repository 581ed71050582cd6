package aft

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Env is what the search for the binary and the config file reads from the host; tests give
// their own. Empty fields fall back to the process environment (Getenv nil: os.Getenv).
type Env struct {
	Home     string
	AgentDir string
	Getenv   func(string) string
	// LookPath finds a program on PATH (nil: exec.LookPath).
	LookPath func(string) (string, error)
}

func (e Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

func (e Env) home() string {
	if e.Home != "" {
		return e.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// Binary is a found aft binary and where it came from.
type Binary struct {
	Path string
	// Source is "cache", "npm", "path" or "cargo".
	Source string
}

// PlatformPackage is the npm package holding the binary for this machine
// (@cortexkit/aft-linux-x64, @cortexkit/aft-darwin-arm64, …).
func PlatformPackage() string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x64"
	case "386":
		arch = "ia32"
	}
	os := runtime.GOOS
	if os == "windows" {
		os = "win32"
	}
	return "@cortexkit/aft-" + os + "-" + arch
}

func exe() string {
	if runtime.GOOS == "windows" {
		return "aft.exe"
	}
	return "aft"
}

// Find looks for the aft binary in the seed bridge's order and returns the first one found:
//  1. the versioned cache its GitHub-release download fills ($XDG_CACHE_HOME/aft/bin, else
//     ~/.cache/aft/bin; the highest v<version> folder holding an aft binary);
//  2. the npm platform package: under the agent dir's npm/node_modules (where pi installs
//     packages), beside the aft-pi package there, and in npm's global node_modules;
//  3. PATH;
//  4. ~/.cargo/bin/aft (cargo install agent-file-tools).
//
// It checks that the file is an executable regular file; it does not run it. Tried lists every
// place looked at, for the warning that names them.
func Find(e Env) (b Binary, tried []string, ok bool) {
	home := e.home()
	try := func(p, source string) bool {
		tried = append(tried, p)
		if executable(p) {
			b = Binary{Path: p, Source: source}
			return true
		}
		return false
	}
	cache := e.getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	cacheDir := filepath.Join(cache, "aft", "bin")
	tried = append(tried, filepath.Join(cacheDir, "v*", exe()))
	if p := highestCached(cacheDir); p != "" {
		return Binary{Path: p, Source: "cache"}, tried, true
	}
	pkg := filepath.FromSlash(PlatformPackage())
	var npmDirs []string
	if e.AgentDir != "" {
		nm := filepath.Join(e.AgentDir, "npm", "node_modules")
		npmDirs = append(npmDirs, nm, filepath.Join(nm, "@cortexkit", "aft-pi", "node_modules"))
	}
	if g := globalNodeModules(e); g != "" {
		npmDirs = append(npmDirs, g, filepath.Join(g, "@cortexkit", "aft-pi", "node_modules"))
	}
	for _, d := range npmDirs {
		if try(filepath.Join(d, pkg, "bin", exe()), "npm") {
			return b, tried, true
		}
	}
	look := e.LookPath
	if look == nil {
		look = exec.LookPath
	}
	tried = append(tried, "PATH")
	if p, err := look("aft"); err == nil && executable(p) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return Binary{Path: p, Source: "path"}, tried, true
	}
	if try(filepath.Join(home, ".cargo", "bin", exe()), "cargo") {
		return b, tried, true
	}
	return Binary{}, tried, false
}

// executable reports whether p is a regular file with an execute bit.
func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0)
}

// highestCached returns the aft binary of the highest v<major>.<minor>.<patch> folder of dir.
func highestCached(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	best, bestPath := []int(nil), ""
	for _, e := range ents {
		v, ok := parseVersion(e.Name())
		if !ok || !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name(), exe())
		if !executable(p) {
			continue
		}
		if best == nil || slices.Compare(v, best) > 0 {
			best, bestPath = v, p
		}
	}
	return bestPath
}

// parseVersion reads "v1.2.3" (a pre-release suffix is ignored).
func parseVersion(tag string) ([]int, bool) {
	s, ok := strings.CutPrefix(tag, "v")
	if !ok {
		return nil, false
	}
	s, _, _ = strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, false
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// globalNodeModules is npm's global node_modules: $NPM_CONFIG_PREFIX, else the prefix of the
// npm on PATH (<prefix>/bin/npm → <prefix>/lib/node_modules). Found without running npm.
func globalNodeModules(e Env) string {
	if p := e.getenv("NPM_CONFIG_PREFIX"); p != "" {
		return filepath.Join(p, "lib", "node_modules")
	}
	look := e.LookPath
	if look == nil {
		look = exec.LookPath
	}
	npm, err := look("npm")
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(npm); err == nil {
		// <prefix>/lib/node_modules/npm/bin/npm-cli.js when npm is the usual link.
		if i := strings.LastIndex(r, string(filepath.Separator)+"node_modules"+string(filepath.Separator)+"npm"+string(filepath.Separator)); i >= 0 {
			return r[:i+len("/node_modules")]
		}
	}
	return filepath.Join(filepath.Dir(filepath.Dir(npm)), "lib", "node_modules")
}
