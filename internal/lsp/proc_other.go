//go:build !unix

package lsp

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist.
func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the started command.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
