// Package codemode registers the codemode tool with its fs.read and fs.write primitives,
// which share the file toolset's read state and the one write path.
package codemode

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/codemode"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	// The codemode tool (toolsets/codemode.cue), with its fs.read and fs.write primitives: they
	// are not tools, but share the file toolset's read state and the write guard.
	r.Register("codemode", codemode.Name, codemode.Impl(FS{}))
}

type FS struct{}

// fileIO is the toolset whose read state the primitives share (the session's file tools).
func fileIO(s *toolrun.Session) string {
	if s.FileIO == "" {
		return "claude-code"
	}
	return s.FileIO
}

// Read returns the raw UTF-8 text: no line numbers, no line cap (the content never reaches
// the context unless the script prints it); a regular file only, at most
// [toolrun.MaxWholeFile] bytes; invalid UTF-8 is an error.
func (FS) Read(ctx context.Context, s *toolrun.Session, path string) (string, map[string]toolrun.Snapshot, error) {
	abs := toolkit.AbsPath(s.Cwd, path)
	b, err := safefile.ReadRegular(abs, toolrun.MaxWholeFile, "codemode fs.read")
	if err != nil {
		return "", nil, toolkit.FsErrorAt(err, "open", abs)
	}
	if !utf8.Valid(b) {
		return "", nil, errors.New(`Cannot read "` + abs + `" as UTF-8 text: the file is not valid UTF-8 (binary files are not supported).`)
	}
	return string(b), s.Reads(fileIO(s)).Record(abs, b, true), nil
}

// Write creates parents and writes content through the one write path: an existing file
// must have been read and be unchanged (the strict check), and outside the workspace or on
// the protected list the write guard decides.
func (FS) Write(ctx context.Context, s *toolrun.Session, path, content string) (map[string]toolrun.Snapshot, error) {
	abs := toolkit.AbsPath(s.Cwd, path)
	w, err := s.WriteFile(ctx, toolrun.FileWrite{Tool: "fs.write", Path: abs, Reads: fileIO(s), Check: toolrun.Strict,
		ReadError: func(err error) error { return toolkit.FsErrorAt(err, "open", abs) },
		Update: func(old []byte, exists bool) ([]byte, error) {
			if exists && !utf8.Valid(old) {
				return nil, errors.New(`Cannot read "` + abs + `" as UTF-8 text: the file is not valid UTF-8 (binary files are not supported).`)
			}
			return []byte(content), nil
		}})
	if err != nil {
		return nil, toolkit.FsError(err)
	}
	return w.Reads, nil
}
