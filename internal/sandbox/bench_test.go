package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

func benchPlan(b *testing.B) *Plan {
	b.Helper()
	if _, err := FindBwrap("", HostEnviron()); err != nil {
		b.Skip("bwrap not installed")
	}
	ws := b.TempDir()
	env := HostEnviron()
	env.Home = b.TempDir()
	pl, err := NewPlan(DefaultPolicy(), ws, env)
	if err != nil {
		b.Fatal(err)
	}
	return pl
}

// BenchmarkRunTrue runs `true` in bwrap through Run: process group, capture, timers.
func BenchmarkRunTrue(b *testing.B) {
	pl := benchPlan(b)
	for b.Loop() {
		if res, err := Run(context.Background(), pl, "true", Options{}); err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkExecTrue runs the same argv with plain os/exec: the difference with
// BenchmarkRunTrue is Run's own overhead.
func BenchmarkExecTrue(b *testing.B) {
	pl := benchPlan(b)
	argv := pl.Argv("true", 0)
	for b.Loop() {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.Dir = pl.Env, pl.Workspace
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewPlan measures planning (path resolution and the protected-path scan).
func BenchmarkNewPlan(b *testing.B) {
	ws := b.TempDir()
	_ = os.MkdirAll(ws+"/.git", 0o755)
	env := HostEnviron()
	for b.Loop() {
		if _, err := NewPlan(DefaultPolicy(), ws, env); err != nil {
			b.Fatal(err)
		}
	}
}
