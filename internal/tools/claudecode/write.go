package claudecode

import (
	"context"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func ccWrite(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	path := toolkit.AbsPath(s.Cwd, a.FilePath)
	w, err := s.WriteFile(ctx, toolrun.FileWrite{Tool: "Write", Path: path, Reads: "claude-code", Check: toolrun.Strict, Diagnose: true,
		ReadError: toolkit.FsError,
		Update:    func([]byte, bool) ([]byte, error) { return []byte(a.Content), nil }})
	if err != nil {
		return toolrun.Result{}, toolkit.FsError(err)
	}
	msg := "The file " + path + " has been updated successfully."
	if !w.Existed {
		msg = "File created successfully at: " + path
	}
	return toolrun.TextResult(toolkit.AppendDiagnostics(msg, w.Diagnostics), toolkit.ReadsDetails{Reads: w.Reads}), nil
}
