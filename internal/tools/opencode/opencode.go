// Package opencode implements the opencode toolset of the seed (read, edit, write, grep,
// glob, bash, todowrite, question), one file per tool.
package opencode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	r.Register("opencode", "read", toolrun.Impl{Execute: ocRead})
	r.Register("opencode", "edit", toolrun.Impl{Execute: ocEdit})
	r.Register("opencode", "write", toolrun.Impl{Execute: ocWrite})
	r.Register("opencode", "grep", toolkit.TextTool(func(ctx context.Context, s *toolrun.Session, p *ocGrepParams) (string, error) {
		return Grep(ctx, s, p.Pattern, p.Path, p.Include)
	}))
	r.Register("opencode", "glob", toolkit.TextTool(func(ctx context.Context, s *toolrun.Session, p *toolkit.GlobParams) (string, error) {
		return Glob(ctx, s.Cwd, p.Pattern, p.Path)
	}))
	r.Register("opencode", "bash", toolrun.Impl{Execute: ocBash})
	r.Register("opencode", "todowrite", toolrun.Impl{Execute: ocTodoWrite})
	r.Register("opencode", "question", toolrun.Impl{Execute: ocQuestion, Sequential: true})
}

// ocDidYouMean lists up to three entries of the path's directory whose
// lower-cased name contains the requested name or is contained in it.
func ocDidYouMean(path string) string {
	dir, base := filepath.Dir(path), strings.ToLower(filepath.Base(path))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var out []string
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		if strings.Contains(name, base) || strings.Contains(base, name) {
			out = append(out, filepath.Join(dir, e.Name()))
			if len(out) == 3 {
				break
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "\n\nDid you mean one of these?\n" + strings.Join(out, "\n")
}

const (
	ocRGLimit     = 100
	ocRecordBytes = 64 << 10
	ocStderrBytes = 8 << 10
	ocGrepLineMax = 2000
	GlobTruncMsg  = "(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)"
)

// streamRG runs ripgrep in dir, hands each stdout line to parse, and kills
// it once more than limit items were parsed. It returns the items (at most
// limit) and whether there were more. A content search over root (s set) runs through
// [toolrun.Session.SearchCommand], which hides credential files.
func streamRG[T any](ctx context.Context, s *toolrun.Session, dir, root string, args []string, limit int, parse func([]byte) (T, bool, error)) ([]T, bool, error) {
	bin, err := exec.LookPath("rg")
	if err != nil {
		return nil, false, toolkit.ErrNoRG
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if s != nil {
		if cmd, err = s.SearchCommand(ctx, dir, root, bin, args); err != nil {
			return nil, false, err
		}
	}
	stderr := &toolkit.CapBuffer{Buf: &bytes.Buffer{}, Max: ocStderrBytes}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	var (
		items     []T
		truncated bool
		perr      error
	)
	r := bufio.NewReaderSize(out, 64<<10)
	for {
		line, rerr := r.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			// A record longer than the buffer: collect it whole.
			long := append([]byte(nil), line...)
			for rerr == bufio.ErrBufferFull {
				line, rerr = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if rerr != nil && rerr != bufio.ErrBufferFull {
			break // EOF: a partial last record is dropped, as the seed does
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		item, ok, err := parse(line)
		if err != nil {
			perr = err
			break
		}
		if !ok {
			continue
		}
		items = append(items, item)
		if len(items) > limit {
			truncated = true
			break
		}
	}
	if truncated || perr != nil {
		cancel()
	}
	werr := cmd.Wait()
	if perr != nil {
		return nil, false, perr
	}
	if truncated {
		return items[:limit], true, nil
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	code := 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			return nil, false, werr
		}
		code = ee.ExitCode()
	}
	msg := strings.TrimSpace(stderr.Buf.String())
	switch {
	case code == 2 && (strings.Contains(msg, "regex parse error") || strings.Contains(msg, "error parsing regex")):
		return nil, false, errors.New("Invalid pattern: " + msg)
	case code == 1:
		return nil, false, nil
	case code != 0 && code != 2:
		if msg == "" {
			msg = fmt.Sprintf("ripgrep exited with code %d", code)
		}
		return nil, false, errors.New(msg)
	}
	return items, false, nil
}
