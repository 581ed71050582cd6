package opencode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// GlobArgs is glob's ripgrep command line (see ocGrepArgs for --sort).
func GlobArgs(pattern string) []string {
	return []string{"--no-config", "--files", "--sort=path", "--glob=" + pattern, "--glob=!**/.git/**", "."}
}

// Glob is opencode's glob.
func Glob(ctx context.Context, cwd, pattern string, path *string) (string, error) {
	search := cwd
	if path != nil {
		search = toolkit.AbsPath(cwd, *path)
	}
	st, err := os.Stat(search)
	if errors.Is(err, os.ErrNotExist) {
		shown := search
		if path != nil {
			shown = *path
		}
		return "", errors.New("Directory does not exist: " + shown + ". Note: your current working directory is " + cwd + "." + ocDidYouMean(search))
	}
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", errors.New("glob path must be a directory: " + search)
	}
	files, truncated, err := streamRG(ctx, nil, search, "", GlobArgs(pattern), ocRGLimit, func(l []byte) (string, bool, error) {
		return filepath.Join(search, strings.TrimPrefix(string(l), "./")), true, nil
	})
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "No files found", nil
	}
	if truncated {
		files = append(files, "", GlobTruncMsg)
	}
	return strings.Join(files, "\n"), nil
}
