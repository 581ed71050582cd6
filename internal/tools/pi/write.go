package pi

import (
	"context"
	"errors"
	"fmt"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// jsLen is a string's JavaScript length (UTF-16 code units).
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xffff {
			n++
		}
	}
	return n
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func piWrite(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a writeArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	abs := toolkit.ResolvePath(a.Path, inv.Session.Cwd)
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(toolkit.ErrAborted)
	}
	// pi's write never reads the file it replaces: a file pigo cannot read is still written
	// (the dialog's preview then starts from empty); a FIFO or a device is refused.
	_, err := inv.Session.WriteFile(ctx, toolrun.FileWrite{Tool: "write", Path: abs,
		ReadError: func(err error) error { return nil },
		Update: func([]byte, bool) ([]byte, error) {
			if ctx.Err() != nil {
				return nil, errors.New(toolkit.ErrAborted)
			}
			return []byte(a.Content), nil
		}})
	if err != nil {
		return toolrun.Result{}, toolkit.FsError(err)
	}
	return toolrun.TextResult(fmt.Sprintf("Successfully wrote %d bytes to %s", jsLen(a.Content), a.Path), nil), nil
}
