package claudecode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

type ccEditArgs struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll *bool  `json:"replace_all"`
}

func ccEdit(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a ccEditArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	path := toolkit.AbsPath(s.Cwd, a.FilePath)
	all := a.ReplaceAll != nil && *a.ReplaceAll
	if a.OldString == a.NewString {
		return toolrun.Result{}, errors.New("No changes to make: old_string and new_string are exactly the same.")
	}
	// The size is checked before the file is read, so a huge file is never loaded.
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() > toolkit.MaxEditBytes && a.OldString != "" {
		return toolrun.Result{}, fmt.Errorf("File is too large to edit (%s). Maximum editable file size is %s.", FileSize(st.Size()), FileSize(toolkit.MaxEditBytes))
	}
	if a.OldString != "" && strings.EqualFold(filepath.Ext(path), ".ipynb") && toolkit.Exists(path) {
		return toolrun.Result{}, errors.New("File is a Jupyter Notebook. Use the NotebookEditTool to edit this file.")
	}
	fw := toolrun.FileWrite{Tool: "Edit", Path: path, Reads: "claude-code", Check: toolrun.Strict, Diagnose: true,
		ReadError: func(err error) error {
			if errors.Is(err, syscall.EISDIR) {
				return errors.New("EISDIR: illegal operation on a directory, read")
			}
			return toolkit.FsError(err)
		}}
	if a.OldString == "" {
		// Creating a file needs no read; an existing file must be blank.
		fw.Check = toolrun.NoCheck
		fw.Update = func(old []byte, exists bool) ([]byte, error) {
			if exists && strings.TrimFunc(toolkit.DecodeUTF8(old), toolkit.JsSpace) != "" {
				return nil, errors.New("Cannot create new file - file already exists.")
			}
			return []byte(a.NewString), nil
		}
	} else {
		fw.Update = func(old []byte, exists bool) ([]byte, error) {
			if !exists {
				return nil, ccNotFound("File does not exist", path, s.Cwd)
			}
			updated, err := toolkit.ExactEdit(string(old), a.OldString, a.NewString, all)
			return []byte(updated), err
		}
	}
	w, err := s.WriteFile(ctx, fw)
	if err != nil {
		return toolrun.Result{}, toolkit.FsError(err)
	}
	msg := "The file " + path + " has been updated successfully."
	if all && a.OldString != "" {
		msg = "The file " + path + " has been updated. All occurrences were successfully replaced."
	}
	return toolrun.TextResult(toolkit.AppendDiagnostics(msg, w.Diagnostics), toolkit.NewEditDetails(path, w.Old, w.New, w.Reads)), nil
}
