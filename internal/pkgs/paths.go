package pkgs

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Scope is where a package is declared, which decides where it is installed.
type Scope string

// pi's package scopes.
const (
	User      Scope = "user"      // the agent dir's settings.json: installed under the agent dir
	Project   Scope = "project"   // the trusted project's .pi/settings.json: installed under .pi/
	Temporary Scope = "temporary" // -e npm:… / -e git:… for one run: pi's cache in agent/tmp
)

// Layout is where pi keeps packages: the agent dir, the project (cwd) and the home folder.
type Layout struct {
	AgentDir string
	// Cwd is the project folder (its .pi/ holds project packages).
	Cwd  string
	Home string
}

// BaseDir is the folder relative local sources and filters of a scope resolve against: the
// agent dir, the project's .pi/, or the cwd for -e sources.
func (l Layout) BaseDir(s Scope) string {
	switch s {
	case User:
		return l.AgentDir
	case Project:
		return filepath.Join(l.Cwd, ".pi")
	}
	return l.Cwd
}

// ResolvePath is pi's resolvePath: the entry trimmed, ~ expanded, a file:// URL made a path,
// then made absolute against base.
func (l Layout) ResolvePath(p, base string) string {
	p = strings.TrimSpace(p)
	switch {
	case p == "~":
		p = l.Home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(l.Home, p[2:])
	case strings.HasPrefix(p, "file://"):
		if u, err := url.Parse(p); err == nil {
			p = u.Path
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// NpmRoot is the npm project packages of a scope are installed into (npm install --prefix).
func (l Layout) NpmRoot(s Scope) string {
	switch s {
	case Project:
		return filepath.Join(l.Cwd, ".pi", "npm")
	case Temporary:
		return l.tempDir("npm", "", "")
	}
	return filepath.Join(l.AgentDir, "npm")
}

// GitRoot is the folder git packages of a scope are cloned under ("" for -e sources, which
// have one folder each).
func (l Layout) GitRoot(s Scope) string {
	switch s {
	case Project:
		return filepath.Join(l.Cwd, ".pi", "git")
	case Temporary:
		return ""
	}
	return filepath.Join(l.AgentDir, "git")
}

// tempDir is pi's getTemporaryDir: agent/tmp/extensions/PREFIX/HASH/SUFFIX, the hash taken over
// "PREFIX-SUFFIX[@REF]" so that each pinned ref gets its own checkout.
func (l Layout) tempDir(prefix, suffix, ref string) string {
	key := prefix + "-" + suffix
	if ref != "" {
		key += "@" + ref
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(l.AgentDir, "tmp", "extensions", prefix, hex.EncodeToString(sum[:])[:8], suffix)
}

// InstallPath is where pi installs (or finds) a source in a scope: NPMROOT/node_modules/NAME,
// GITROOT/HOST/PATH, or the resolved local path.
func (l Layout) InstallPath(src Source, s Scope) string {
	switch src.Kind {
	case NPM:
		return filepath.Join(l.NpmRoot(s), "node_modules", filepath.FromSlash(src.Name))
	case Git:
		if s == Temporary {
			return l.tempDir("git-"+src.Host, src.Path, src.Ref)
		}
		return filepath.Join(l.GitRoot(s), src.Host, filepath.FromSlash(src.Path))
	}
	return l.ResolvePath(src.Local, l.BaseDir(s))
}

// inside reports whether p is root or below it (both cleaned absolute paths).
func inside(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// realPath resolves symbolic links, or returns the cleaned absolute path when it cannot.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
