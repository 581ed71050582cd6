package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// projectBinDirs are searched, under the root and then the cwd, for a bare
// bin name before PATH.
var projectBinDirs = []string{filepath.Join("node_modules", ".bin"), filepath.Join(".venv", "bin"), filepath.Join("venv", "bin")}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// findBin resolves bin: an absolute path is used when it exists; a path
// with a separator is taken relative to cwd; a bare name is looked up in
// node_modules/.bin, .venv/bin and venv/bin under root, then under cwd,
// then in PATH.
//
// In an untrusted project nothing of the project runs (D5): the project bin
// directories are not searched, a bin inside the project (relative, or
// absolute under root or cwd) is refused with errUntrustedBin, and PATH
// entries that are relative or inside the project are skipped.
func findBin(bin, root, cwd, pathList string, trusted bool) (string, bool, error) {
	inProject := func(p string) bool { return within(p, cwd) || within(p, root) }
	switch {
	case bin == "":
		return "", false, nil
	case filepath.IsAbs(bin):
		if !trusted && inProject(filepath.Clean(bin)) {
			return "", false, errUntrustedBin(bin)
		}
		return bin, isExecutable(bin), nil
	case strings.ContainsAny(bin, `/\`):
		p := filepath.Join(cwd, filepath.FromSlash(bin))
		if !trusted && inProject(p) {
			return "", false, errUntrustedBin(bin)
		}
		return p, isExecutable(p), nil
	}
	if trusted {
		bases := []string{root}
		if cwd != root {
			bases = append(bases, cwd)
		}
		for _, base := range bases {
			for _, d := range projectBinDirs {
				if p := filepath.Join(base, d, bin); isExecutable(p) {
					return p, true, nil
				}
			}
		}
		p, ok := lookPath(bin, pathList)
		return p, ok, nil
	}
	var safe []string
	for _, dir := range filepath.SplitList(pathList) {
		if dir != "" && filepath.IsAbs(dir) && !inProject(filepath.Clean(dir)) {
			safe = append(safe, dir)
		}
	}
	p, ok := lookPath(bin, strings.Join(safe, string(filepath.ListSeparator)))
	return p, ok, nil
}

// errUntrustedBin refuses a bin that lies in an untrusted project.
func errUntrustedBin(bin string) error {
	return fmt.Errorf("bin %q is inside the project, which is not trusted: it is not run (trust the project to use it)", bin)
}

// lookPath finds a bare name in a PATH-style list (empty entries mean ".").
func lookPath(name, pathList string) (string, bool) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, true
		}
	}
	return "", false
}
