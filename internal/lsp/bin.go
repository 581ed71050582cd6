package lsp

import (
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
func findBin(bin, root, cwd, pathList string) (string, bool) {
	switch {
	case bin == "":
		return "", false
	case filepath.IsAbs(bin):
		return bin, isExecutable(bin)
	case strings.ContainsAny(bin, `/\`):
		p := filepath.Join(cwd, filepath.FromSlash(bin))
		return p, isExecutable(p)
	}
	bases := []string{root}
	if cwd != root {
		bases = append(bases, cwd)
	}
	for _, base := range bases {
		for _, d := range projectBinDirs {
			if p := filepath.Join(base, d, bin); isExecutable(p) {
				return p, true
			}
		}
	}
	return lookPath(bin, pathList)
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
