// Package claudecode implements the claude-code toolset of the seed (Read, Edit, Write,
// Grep, Glob, Bash, TodoWrite, AskUserQuestion), one file per tool.
package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	r.Register("claude-code", "Read", toolrun.Impl{Execute: ccRead})
	r.Register("claude-code", "Edit", toolrun.Impl{Execute: ccEdit})
	r.Register("claude-code", "Write", toolrun.Impl{Execute: ccWrite})
	r.Register("claude-code", "Grep", toolkit.TextTool(func(ctx context.Context, s *toolrun.Session, p *GrepParams) (string, error) {
		return Grep(ctx, s, p)
	}))
	r.Register("claude-code", "Glob", toolkit.TextTool(func(ctx context.Context, s *toolrun.Session, p *toolkit.GlobParams) (string, error) {
		return Glob(ctx, s.Cwd, p.Pattern, p.Path)
	}))
	r.Register("claude-code", "Bash", toolrun.Impl{Execute: ccBash})
	r.Register("claude-code", "TodoWrite", toolrun.Impl{Execute: ccTodoWrite})
	r.Register("claude-code", "AskUserQuestion", toolrun.Impl{Execute: ccAsk, Sequential: true})
	// The list follows the session branch: the last TodoWrite result on it is the current one.
	toolrun.OnReplay(func(s *toolrun.Session, msgs []*llm.Message) {
		var last []ccTodo
		for _, m := range msgs {
			if m.Role != llm.RoleToolResult || m.ToolName != "TodoWrite" || (m.IsError != nil && *m.IsError) || len(m.Details) == 0 {
				continue
			}
			var d struct {
				Todos []ccTodo `json:"todos"`
			}
			if json.Unmarshal(m.Details, &d) == nil && d.Todos != nil {
				last = d.Todos
			}
		}
		l := ccTodos(s)
		l.mu.Lock()
		l.todos = last
		l.mu.Unlock()
	})
}

// fixed1 formats n/unit with one decimal like JavaScript's toFixed(1):
// ties round up (toFixed picks the larger of two equally close values).
func fixed1(n, unit int64) string {
	tenths := (n*20 + unit) / (2 * unit)
	return strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10)
}

// FileSize is the seed's formatFileSize: `<n> B`, `<x.x> KB`, `<x.x> MB`, `<x.x> GB`.
func FileSize(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return fixed1(n, 1<<10) + " KB"
	case n < 1<<30:
		return fixed1(n, 1<<20) + " MB"
	}
	return fixed1(n, 1<<30) + " GB"
}

// ccSimilarFile is a file in the same directory with the same base name and
// another extension (the first in name order), or "".
func ccSimilarFile(path string) string {
	dir := filepath.Dir(path)
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		name := e.Name()
		if strings.TrimSuffix(name, filepath.Ext(name)) == base && filepath.Join(dir, name) != path {
			return name
		}
	}
	return ""
}

// ccPathUnderCwd is the dropped-repo-folder correction: a path under cwd's
// parent but not under cwd, re-rooted at cwd, when that exists.
func ccPathUnderCwd(path, cwd string) string {
	parent := filepath.Dir(cwd)
	resolved := path
	if d, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		resolved = filepath.Join(d, filepath.Base(path))
	}
	prefix := parent + string(filepath.Separator)
	if parent == string(filepath.Separator) {
		prefix = parent
	}
	if resolved == cwd || !strings.HasPrefix(resolved, prefix) || strings.HasPrefix(resolved, cwd+string(filepath.Separator)) {
		return ""
	}
	rel, err := filepath.Rel(parent, resolved)
	if err != nil {
		return ""
	}
	corrected := filepath.Join(cwd, rel)
	if _, err := os.Stat(corrected); err != nil {
		return ""
	}
	return corrected
}

// ccDidYouMean is claude-code's suggestion for a missing path: the cwd
// correction first, then a same-named file with another extension; "" when
// neither exists.
func ccDidYouMean(path, cwd string) string {
	if s := ccPathUnderCwd(path, cwd); s != "" {
		return s
	}
	return ccSimilarFile(path)
}

// ccNotFound is the claude-code text for a missing file or directory; what
// names the thing ("File does not exist", "Path does not exist: <p>", …).
func ccNotFound(what, path, cwd string) error {
	msg := what + ". Note: your current working directory is " + cwd + "."
	if s := ccDidYouMean(path, cwd); s != "" {
		msg += " Did you mean " + s + "?"
	}
	return errors.New(msg)
}

// ccRelPath is a result path relative to cwd, unless that would start with "..".
func ccRelPath(path, cwd string) string {
	rel, err := filepath.Rel(cwd, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return rel
}

const (
	ccGrepHeadLimit = 250
	ccGrepMaxChars  = 30000
	ccGlobLimit     = 100
)

// rgLines splits ripgrep output into lines, without the final newline.
func rgLines(out string) []string {
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// rgResult is one finished ripgrep run.
type rgResult struct {
	stdout, stderr string
	code           int
}

// runRG runs ripgrep in dir to completion, buffering its output. A content search over
// root (s set) runs through [toolrun.Session.SearchCommand], which hides credential files.
func runRG(ctx context.Context, s *toolrun.Session, dir, root string, args []string) (rgResult, error) {
	bin, err := exec.LookPath("rg")
	if err != nil {
		return rgResult{}, toolkit.ErrNoRG
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if s != nil {
		if cmd, err = s.SearchCommand(ctx, dir, root, bin, args); err != nil {
			return rgResult{}, err
		}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		return rgResult{}, ctx.Err()
	}
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return rgResult{}, err
		}
		code = ee.ExitCode()
	}
	return rgResult{out.String(), errb.String(), code}, nil
}
