package sandbox

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanSameWithRealMemo: in random trees of directories, files and symbolic links (in the
// workspace's ancestors, in place of .pi, .agent, .git, the agent dir, the home's startup
// files, the writable paths), a plan made with the real-path memo is the plan made
// resolving every path afresh: every field and the argv.
func TestPlanSameWithRealMemo(t *testing.T) {
	if _, err := FindBwrap("", HostEnviron()); err != nil {
		t.Skip("bwrap not installed")
	}
	rng := rand.New(rand.NewSource(3))
	for tree := 0; tree < 120; tree++ {
		base, _ := filepath.EvalSymlinks(t.TempDir())
		p := func(rel string) string { return filepath.Join(base, rel) }
		for _, d := range []string{"real/ws/src", "real/home", "other/dir", "gitdirs/wt"} {
			must(t, os.MkdirAll(p(d), 0o755))
		}
		must(t, os.WriteFile(p("other/file"), nil, 0o644))
		targets := []string{p("other/dir"), p("other/file"), p("missing/x"), "../other/dir", "../../other/dir", "dangling", p("loop1")}
		_ = os.Symlink(p("loop2"), p("loop1"))
		_ = os.Symlink(p("loop1"), p("loop2"))
		shape := func(at string, dirOK bool) {
			switch rng.Intn(5) {
			case 0: // absent
			case 1:
				if dirOK {
					must(t, os.MkdirAll(at, 0o755))
				}
			case 2:
				must(t, os.WriteFile(at, []byte("gitdir: "+p("gitdirs/wt")+"\n"), 0o644))
			default:
				must(t, os.Symlink(targets[rng.Intn(len(targets))], at))
			}
		}
		// The workspace and the home, reached through a link or not.
		must(t, os.Symlink("real", p("link")))
		ws, home := p("real/ws"), p("real/home")
		if rng.Intn(2) == 0 {
			ws = p("link/ws")
		}
		if rng.Intn(2) == 0 {
			home = p("link/home")
		}
		for _, n := range []string{".pi", ".agent", ".git"} {
			shape(p("real/ws/"+n), true)
		}
		for _, n := range []string{".bashrc", ".profile", ".gitconfig"} {
			shape(p("real/home/"+n), false)
		}
		agent := p("real/home/.pi/agent")
		switch rng.Intn(3) {
		case 0:
			must(t, os.MkdirAll(agent, 0o755))
		case 1:
			must(t, os.MkdirAll(p("real/home/.pi"), 0o755))
			must(t, os.Symlink(p("other/dir"), agent))
		}
		env := testEnvReal(t)
		env.Home = home
		pol := DefaultPolicy()
		pol.AgentDir = filepath.Join(home, ".pi", "agent")
		writable := []string{".", "/tmp", "~", "~/.pi", base, p("link"), "src", p("other/dir"), p("missing")}
		pol.WritablePaths = nil
		for _, w := range writable {
			if rng.Intn(3) == 0 {
				pol.WritablePaths = append(pol.WritablePaths, w)
			}
		}
		if rng.Intn(2) == 0 {
			pol.ExtraWritablePaths = []string{"~/.cache", p("link/home")}
		}
		if rng.Intn(2) == 0 {
			pol.FSMode = []string{FSReadonly, FSAllowAll}[rng.Intn(2)]
		}
		noRealMemo = true
		want, errWant := NewPlan(pol, ws, env)
		noRealMemo = false
		got, errGot := NewPlan(pol, ws, env)
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("tree %d: errors %v, %v", tree, errWant, errGot)
		}
		if errWant != nil {
			continue
		}
		if d := cmp.Diff(*want, *got, cmp.AllowUnexported(Plan{}, Origin{})); d != "" {
			t.Fatalf("tree %d: plan (-afresh +memo):\n%s", tree, d)
		}
		if d := cmp.Diff(want.Argv("x", 0), got.Argv("x", 0)); d != "" {
			t.Fatalf("tree %d: argv (-afresh +memo):\n%s", tree, d)
		}
	}
}

// BenchmarkNewPlanSession plans in the 4-request session's layout (the workspace and HOME
// under a temp dir in /tmp, an agent dir, no .pi, .agent or .git): "afresh" resolves every
// path from "/", "memo" shares the directories' real paths.
func BenchmarkNewPlanSession(b *testing.B) {
	if _, err := FindBwrap("", HostEnviron()); err != nil {
		b.Skip("bwrap not installed")
	}
	base, _ := filepath.EvalSymlinks(b.TempDir())
	ws, home := filepath.Join(base, "work"), filepath.Join(base, "home")
	_ = os.MkdirAll(ws, 0o755)
	_ = os.MkdirAll(filepath.Join(home, ".pi", "agent"), 0o755)
	env := HostEnviron()
	env.Home = home
	p := DefaultPolicy()
	p.AgentDir = filepath.Join(home, ".pi", "agent")
	for _, c := range []struct {
		name   string
		afresh bool
	}{{"afresh", true}, {"memo", false}} {
		b.Run(c.name, func(b *testing.B) {
			noRealMemo = c.afresh
			defer func() { noRealMemo = false }()
			for b.Loop() {
				if _, err := NewPlan(p, ws, env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
