//go:build !windows

package aft

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts aft in its own process group so that Close can end the language
// servers and helpers it started along with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
