package lsp

import (
	"os"
	"path/filepath"
	"strings"
)

// within reports whether path is dir or below it (both clean and absolute).
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(path, dir)
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// serverRoot returns the root of server s for file, both absolute and
// clean, with cwd the invocation directory.
//
// With rootMarkers, the directories from cwd down to the file's directory
// (both ends included) are tried in that order and the first one holding
// any marker (an exact file or directory name) wins, so the outermost match
// is the root; no match means cwd. The walk never goes above cwd: a file
// outside cwd only has cwd checked. Without rootMarkers, workingDir decides
// (relative to cwd, absolute kept), else cwd.
func serverRoot(s *Server, cwd, file string) string {
	if len(s.RootMarkers) > 0 {
		for _, dir := range walkDown(cwd, filepath.Dir(file)) {
			for _, m := range s.RootMarkers {
				if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
					return dir
				}
			}
		}
		return cwd
	}
	if s.HasWorkingDir && s.WorkingDir != "" {
		if filepath.IsAbs(s.WorkingDir) {
			return filepath.Clean(s.WorkingDir)
		}
		return filepath.Join(cwd, s.WorkingDir)
	}
	return cwd
}

// walkDown lists cwd and each directory below it on the way to dir, outermost
// first. When dir is not inside cwd the list is just cwd.
func walkDown(cwd, dir string) []string {
	out := []string{cwd}
	if !within(dir, cwd) || dir == cwd {
		return out
	}
	rel, err := filepath.Rel(cwd, dir)
	if err != nil {
		return out
	}
	cur := cwd
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}
