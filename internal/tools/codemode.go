package tools

import (
	"context"
	"errors"
	"os"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/codemode"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// The codemode tool (toolsets/codemode.cue), with its fs.read and fs.write primitives: they
// are not tools, but share the file toolset's read state and the write guard.
func init() {
	Register("codemode", codemode.Name, codemode.Impl(codemodeFS{}))
}

type codemodeFS struct{}

// fileIO is the toolset whose read state the primitives share (the session's file tools).
func fileIO(s *toolrun.Session) string {
	if s.FileIO == "" {
		return "claude-code"
	}
	return s.FileIO
}

// Read returns the raw UTF-8 text: no line numbers, no cap (the content never reaches the
// context unless the script prints it); invalid UTF-8 is an error.
func (codemodeFS) Read(ctx context.Context, s *toolrun.Session, path string) (string, map[string]toolrun.Snapshot, error) {
	abs := resolvePath(s.Cwd, path)
	b, err := os.ReadFile(abs)
	if err != nil {
		return "", nil, NodeError(err, "open", abs)
	}
	if !utf8.Valid(b) {
		return "", nil, errors.New(`Cannot read "` + abs + `" as UTF-8 text: the file is not valid UTF-8 (binary files are not supported).`)
	}
	return string(b), s.Reads(fileIO(s)).Record(abs, b, true), nil
}

// Write creates parents and writes content: an existing file must have been read and be
// unchanged (the strict check), and outside the workspace the write guard decides.
func (codemodeFS) Write(ctx context.Context, s *toolrun.Session, path, content string) (map[string]toolrun.Snapshot, error) {
	abs := resolvePath(s.Cwd, path)
	var rec map[string]toolrun.Snapshot
	err := s.WithFile(abs, func() error {
		old, exists, err := toolrun.ReadFile(abs)
		if err != nil {
			return NodeError(err, "open", abs)
		}
		reads := s.Reads(fileIO(s))
		if exists {
			if err := reads.CheckStrict(abs, old, true); err != nil {
				return err
			}
		}
		if exists && !utf8.Valid(old) {
			return errors.New(`Cannot read "` + abs + `" as UTF-8 text: the file is not valid UTF-8 (binary files are not supported).`)
		}
		newb := []byte(content)
		if err := s.GuardWrite(ctx, toolrun.Write{Tool: "fs.write", Path: abs, Old: old, Exists: exists, New: newb}); err != nil {
			return err
		}
		if err := writeFileAll(abs, newb); err != nil {
			return err
		}
		rec = reads.Record(abs, newb, true)
		return nil
	})
	return rec, err
}
