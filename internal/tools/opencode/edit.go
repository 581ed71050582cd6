package opencode

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func ocEdit(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		FilePath   string `json:"filePath"`
		OldString  string `json:"oldString"`
		NewString  string `json:"newString"`
		ReplaceAll *bool  `json:"replaceAll"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	abs := toolkit.AbsPath(s.Cwd, a.FilePath)
	if a.OldString == a.NewString {
		return toolrun.Result{}, toolkit.ErrEditIdentical
	}
	fw := toolrun.FileWrite{Tool: "edit", Path: abs, Reads: "opencode", Check: toolrun.Strict, Diagnose: true,
		ReadError: func(err error) error {
			if errors.Is(err, syscall.EISDIR) {
				return errors.New("Path is a directory, not a file: " + abs)
			}
			return fmt.Errorf("Could not edit file: %s. Error code: %s.", a.FilePath, nodeCodeOr(err))
		}}
	if a.OldString == "" {
		fw.Check = toolrun.NoCheck
		fw.ReadError = func(error) error { return toolkit.ErrEditEmptyOld }
		fw.Update = func(_ []byte, exists bool) ([]byte, error) {
			if exists {
				return nil, toolkit.ErrEditEmptyOld
			}
			return []byte(a.NewString), nil
		}
	} else {
		fw.Update = func(old []byte, exists bool) ([]byte, error) {
			if !exists {
				return nil, errors.New("File " + abs + " not found")
			}
			ed, err := toolkit.ApplyEdit(string(old), a.OldString, a.NewString, a.ReplaceAll != nil && *a.ReplaceAll)
			if err != nil {
				return nil, err
			}
			return []byte(ed.Final), nil
		}
	}
	w, err := s.WriteFile(ctx, fw)
	if err != nil {
		return toolrun.Result{}, toolkit.FsError(err)
	}
	var old []byte
	if a.OldString != "" {
		old = w.Old
	}
	return toolrun.TextResult(toolkit.AppendDiagnostics("Edit applied successfully.", w.Diagnostics), toolkit.NewEditDetails(abs, old, w.New, w.Reads)), nil
}

// nodeCodeOr is err's Node error code, or "UNKNOWN".
func nodeCodeOr(err error) string {
	if c := toolkit.NodeCode(err); c != "" {
		return c
	}
	return "UNKNOWN"
}
