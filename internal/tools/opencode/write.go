package opencode

import (
	"context"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func ocWrite(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		FilePath string `json:"filePath"`
		Content  string `json:"content"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	abs := toolkit.AbsPath(s.Cwd, a.FilePath)
	w, err := s.WriteFile(ctx, toolrun.FileWrite{Tool: "write", Path: abs, Reads: "opencode", Check: toolrun.Lenient, Diagnose: true,
		ReadError: toolkit.FsError,
		Update: func(old []byte, _ bool) ([]byte, error) {
			srcBOM, _ := toolkit.StripBOM(string(old))
			nextBOM, text := toolkit.StripBOM(a.Content)
			b := srcBOM
			if b == "" {
				b = nextBOM
			}
			return []byte(b + text), nil
		}})
	if err != nil {
		return toolrun.Result{}, toolkit.FsError(err)
	}
	return toolrun.TextResult(toolkit.AppendDiagnostics("Wrote file successfully.", w.Diagnostics), toolkit.ReadsDetails{Reads: w.Reads}), nil
}
