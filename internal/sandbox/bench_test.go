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
	filter, err := pl.SeccompFilter()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := filterPipe(filter)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.Dir, cmd.ExtraFiles = pl.Env, pl.Workspace, []*os.File{r}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// BenchmarkSetup is pigo's own set-up per sandboxed command, beyond bwrap: planning (paths,
// protected paths, socket dirs), the seccomp program (built once per process) through its
// pipe, the placeholders with their locks, the argv, and the checks after the run.
// "existing": .pi, .agent, .git and the agent dir exist (read-only binds only); "missing": three
// of them are missing and get placeholders (a mkdir and an rmdir each, the bulk of the cost);
// "pooled": .pi and .agent are missing, the agent dir exists, and their placeholders come
// from the pool and go back to it (pool.go).
func BenchmarkSetup(b *testing.B) {
	b.Run("existing", func(b *testing.B) { benchSetup(b, true, false) })
	b.Run("missing", func(b *testing.B) { benchSetup(b, false, false) })
	b.Run("pooled", func(b *testing.B) { benchSetup(b, false, true) })
}

func benchSetup(b *testing.B, existing, agentDir bool) {
	if _, err := FindBwrap("", HostEnviron()); err != nil {
		b.Skip("bwrap not installed")
	}
	ws := b.TempDir()
	_ = os.MkdirAll(ws+"/.git", 0o755)
	env := HostEnviron()
	env.Home = b.TempDir()
	if existing {
		for _, d := range []string{ws + "/.pi", ws + "/.agent", env.Home + "/.pi/agent"} {
			_ = os.MkdirAll(d, 0o755)
		}
	}
	if agentDir {
		_ = os.MkdirAll(env.Home+"/.pi/agent", 0o755)
	}
	p := DefaultPolicy()
	p.AgentDir = env.Home + "/.pi/agent"
	for b.Loop() {
		pl, err := NewPlan(p, ws, env)
		if err != nil {
			b.Fatal(err)
		}
		filter, err := pl.SeccompFilter()
		if err != nil {
			b.Fatal(err)
		}
		r, err := filterPipe(filter)
		if err != nil {
			b.Fatal(err)
		}
		g, err := pl.prepare()
		if err != nil {
			b.Fatal(err)
		}
		_ = pl.Argv("true", 0)
		g.release()
		_ = pl.checkLinks()
		r.Close()
	}
}

// BenchmarkSeccompProgram assembles the filter (Run uses the once-per-process copy).
func BenchmarkSeccompProgram(b *testing.B) {
	for b.Loop() {
		_ = seccompProgram(seccompArches["amd64"], true)
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
