package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Paths memoises, for one pass over a configuration tree (one load), the working directory and
// the real paths of the directories that pass resolves again and again: every file of a
// project's .pi is confined to the project (Check resolves its path component by component)
// and every resource directory is resolved before it is listed, so the same few directories
// were lstat'ed once for each file below them, and filepath.Abs asked os.Getwd (two stats) each
// time. A nil *Paths memoises nothing: each method is then exactly its filepath function.
//
// What a Paths answers is what filepath.EvalSymlinks and filepath.Abs answered when it first
// asked, so it lives only as long as one pass over files that do not change meaningfully in
// that time (a load takes milliseconds; a file swapped between the check and the open is
// caught by Read's SameFile as before). A file's path is resolved from its directory's memoised
// real path (or error) and one Lstat of the file itself; a path ending in a link or with ".."
// is resolved by filepath.EvalSymlinks as it was. Not safe for concurrent use.
type Paths struct {
	wd    string
	wdErr error
	wdSet bool
	real  map[string]realPath
}

type realPath struct {
	path string
	err  error
	// direct: the walk reached path's end without following a link, so the walk's own
	// string for the path so far is path itself (after a link it may be "d/../x").
	direct bool
}

// NewPaths returns an empty memo.
func NewPaths() *Paths { return &Paths{real: map[string]realPath{}} }

// Abs is filepath.Abs with the working directory asked once.
func (p *Paths) Abs(path string) (string, error) {
	if p == nil {
		return filepath.Abs(path)
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil // filepath.Abs's own answer (unixAbs)
	}
	if !p.wdSet {
		p.wd, p.wdErr = os.Getwd()
		p.wdSet = true
	}
	if p.wdErr != nil {
		return "", p.wdErr
	}
	return filepath.Join(p.wd, path), nil
}

// EvalSymlinks is filepath.EvalSymlinks, memoised by path.
func (p *Paths) EvalSymlinks(path string) (string, error) {
	if p == nil {
		return filepath.EvalSymlinks(path)
	}
	r := p.resolve(path)
	return r.path, r.err
}

func (p *Paths) resolve(path string) realPath {
	if r, ok := p.real[path]; ok {
		return r
	}
	r := p.eval(path)
	p.real[path] = r
	return r
}

func (p *Paths) eval(path string) realPath {
	walk := func() realPath {
		real, err := filepath.EvalSymlinks(path)
		return realPath{path: real, err: err}
	}
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." || path != filepath.Clean(path) || hasDotDot(path) {
		return walk()
	}
	if dir == "" || dir == string(filepath.Separator) {
		// One component: the walk's string is path unless it followed a link (then it ends
		// elsewhere or fails).
		r := walk()
		r.direct = r.err == nil && r.path == path
		return r
	}
	// filepath.EvalSymlinks walks the components left to right, the same way for path's
	// directory as for the directory alone: where that walk fails, path's fails with the same
	// error; where it ends, it has the directory's real path (its own string for it cleaned),
	// and base is lstat'ed there.
	parent := p.resolve(filepath.Dir(path))
	if parent.err != nil {
		return realPath{err: parent.err}
	}
	candidate := filepath.Join(parent.path, base)
	fi, err := os.Lstat(candidate)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink == 0:
		return realPath{path: candidate, direct: parent.direct}
	case err != nil && parent.direct && !errors.Is(err, syscall.ENOTDIR):
		return realPath{err: err} // the walk's lstat of the same string
	}
	// base is a link, or the walk would name the failure in its own words (a bare ENOTDIR
	// when the directory is a file, its uncleaned string after a link): the whole walk.
	return walk()
}

// hasDotDot reports whether a clean path has a ".." component (EvalSymlinks resolves ".."
// after the links before it, not lexically as filepath.Dir does).
func hasDotDot(path string) bool {
	for _, e := range strings.Split(path, string(filepath.Separator)) {
		if e == ".." {
			return true
		}
	}
	return false
}

// Real is the package's Real with this memo.
func (p *Paths) Real(dir string) string {
	if r, err := p.EvalSymlinks(dir); err == nil {
		if a, err := p.Abs(r); err == nil {
			return a
		}
	}
	if a, err := p.Abs(dir); err == nil {
		return a
	}
	return dir
}
