package claudecode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// GlobBase splits an absolute pattern at the last separator before its
// first glob character into a base directory and a relative pattern.
func GlobBase(pattern string) (string, string) {
	i := strings.IndexAny(pattern, "*?[{")
	if i < 0 {
		return filepath.Dir(pattern), filepath.Base(pattern)
	}
	static := pattern[:i]
	sep := strings.LastIndexByte(static, '/')
	if sep < 0 {
		return "", pattern
	}
	base := static[:sep]
	if base == "" && sep == 0 {
		base = "/"
	}
	return base, pattern[sep+1:]
}

// GlobArgs is the Glob command line (run in the search directory).
func GlobArgs(pattern string) []string {
	return []string{"--files", "--glob", pattern, "--sort=modified", "--no-ignore", "--hidden", "--glob", "!.git/**"}
}

// ccGlobFormat renders Glob's result from rg's output run in dir.
func ccGlobFormat(stdout, dir, cwd string) string {
	lines := rgLines(stdout)
	truncated := len(lines) > ccGlobLimit
	if truncated {
		lines = lines[:ccGlobLimit]
	}
	for i, l := range lines {
		if !filepath.IsAbs(l) {
			l = filepath.Join(dir, l)
		}
		lines[i] = ccRelPath(l, cwd)
	}
	if truncated {
		lines = append(lines, "(Results are truncated. Consider using a more specific path or pattern.)")
	}
	if len(lines) == 0 {
		return "No files found"
	}
	return strings.Join(lines, "\n")
}

// Glob is claude-code's Glob.
func Glob(ctx context.Context, cwd, pattern string, path *string) (string, error) {
	root := cwd
	if path != nil && *path != "" {
		root = toolkit.AbsPath(cwd, *path)
		st, err := os.Stat(root)
		if errors.Is(err, os.ErrNotExist) {
			msg := "Directory does not exist: " + *path + ". Note: your current working directory is " + cwd + "."
			if s := ccPathUnderCwd(root, cwd); s != "" {
				msg += " Did you mean " + s + "?"
			}
			return "", errors.New(msg)
		}
		if err != nil {
			return "", err
		}
		if !st.IsDir() {
			return "", errors.New("Path is not a directory: " + *path)
		}
	}
	dir, pat := root, pattern
	if filepath.IsAbs(pattern) {
		if base, rel := GlobBase(pattern); base != "" {
			dir, pat = base, rel
		}
	}
	r, err := runRG(ctx, nil, dir, "", GlobArgs(pat))
	if err != nil {
		if errors.Is(err, toolkit.ErrNoRG) || ctx.Err() != nil {
			return "", err
		}
		return "", errors.New("ripgrep failed: " + err.Error())
	}
	switch r.code {
	case 0:
	case 1:
		r.stdout = ""
	default:
		msg := strings.TrimSpace(r.stderr)
		if msg == "" {
			msg = fmt.Sprintf("Command failed: rg %s", strings.Join(GlobArgs(pat), " "))
		}
		return "", errors.New("ripgrep failed: " + msg)
	}
	return ccGlobFormat(r.stdout, dir, cwd), nil
}
