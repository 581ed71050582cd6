package sandbox

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/safefile"
)

// writeProtectedOracle is WriteProtected as it was before the resolver: every path resolved
// by safefile from "/".
func writeProtectedOracle(real, ws, agentDir string) string {
	resolve := safefile.ResolvePath
	for _, p := range ProtectedList(ws, agentDir) {
		if within(resolve(p.Path), real) {
			return p.Why
		}
	}
	if agentDir != "" {
		ad := resolve(absPath(agentDir))
		if ents, err := os.ReadDir(ad); err == nil {
			for _, e := range ents {
				if e.Type()&os.ModeSymlink != 0 && within(resolve(filepath.Join(ad, e.Name())), real) {
					return whyAgentDir
				}
			}
		}
	}
	rws := resolve(ws)
	if rel, err := filepath.Rel(rws, real); err == nil && within(rws, real) {
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			if c == ".git" {
				return whyGit
			}
		}
	}
	return ""
}

// TestWriteProtectedAsResolvedFromRoot: in random trees of directories, files and symbolic
// links (relative, absolute, dangling, looping, to files and to directories, in the place
// of the workspace's .pi, .agent and .git, of the agent dir and its entries, and of the
// workspace itself), WriteProtected says what it said when every path was resolved from
// "/", for every write target.
func TestWriteProtectedAsResolvedFromRoot(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	checked := 0
	for tree := 0; tree < 150; tree++ {
		base, _ := filepath.EvalSymlinks(t.TempDir())
		p := func(rel string) string { return filepath.Join(base, rel) }
		for _, d := range []string{"ws/src", "home/.pi", "other/dir", "ws2/.git"} {
			must(t, os.MkdirAll(p(d), 0o755))
		}
		must(t, os.WriteFile(p("other/file"), []byte("x"), 0o644))
		must(t, os.WriteFile(p("ws/src/a.go"), []byte("x"), 0o644))
		// What each protected place is, at random.
		targets := []string{p("other/dir"), p("other/file"), p("missing/x"), "../other/dir", "../../other/file",
			p("ws2/.git"), "dangling", p("loop1")}
		shape := func(at string, dirOK bool) {
			switch rng.Intn(5) {
			case 0: // absent
			case 1:
				if dirOK {
					must(t, os.MkdirAll(at, 0o755))
				}
			case 2:
				must(t, os.WriteFile(at, []byte("gitdir: "+p("ws2/.git")+"\n"), 0o644))
			default:
				must(t, os.Symlink(targets[rng.Intn(len(targets))], at))
			}
		}
		_ = os.Symlink(p("loop2"), p("loop1"))
		_ = os.Symlink(p("loop1"), p("loop2"))
		for _, n := range []string{".pi", ".agent", ".git"} {
			shape(p("ws/"+n), true)
		}
		agent := p("home/.pi/agent")
		switch rng.Intn(3) {
		case 0:
			must(t, os.MkdirAll(agent, 0o755))
		case 1:
			must(t, os.Symlink(p("other/dir"), agent))
		}
		if fi, err := os.Stat(agent); err == nil && fi.IsDir() {
			_ = os.Symlink(p("other/file"), filepath.Join(agent, "settings.json"))
			_ = os.WriteFile(filepath.Join(agent, "models.json"), nil, 0o644)
			shape(filepath.Join(agent, "trust.json"), false)
		}
		ws := p("ws")
		if rng.Intn(3) == 0 {
			must(t, os.Symlink(ws, p("wslink")))
			ws = p("wslink")
		}
		writes := []string{"ws/src/a.go", "ws/new.txt", "ws/.pi/settings.json", "ws/.git/config", "ws/.agent/x",
			"ws/src/.git/hooks/pre-commit", "other/file", "other/dir/y", "home/.pi/agent/settings.json",
			"home/.pi/agent/trust.json", "home/.pi/agent/models.json", "ws2/.git/config", "missing/x/y", "loop1/z"}
		for _, agentDir := range []string{agent, ""} {
			for _, w := range writes {
				real := safefile.ResolvePath(p(w))
				want := writeProtectedOracle(real, ws, agentDir)
				if got := WriteProtected(real, ws, agentDir); got != want {
					t.Fatalf("tree %d, write %s (%s), agent dir %q: %q, want %q", tree, w, real, agentDir, got, want)
				}
				checked++
			}
		}
	}
	t.Logf("%d checks", checked)
}

// BenchmarkWriteProtected is the check of an edit in the 4-request session's layout (a
// workspace without .pi, .agent and .git; an agent dir with models.json): "oracle" resolves
// every path from "/", "resolver" shares the directories' resolutions.
func BenchmarkWriteProtected(b *testing.B) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	ws, agent := filepath.Join(base, "work"), filepath.Join(base, "home", ".pi", "agent")
	_ = os.MkdirAll(ws, 0o755)
	_ = os.MkdirAll(agent, 0o755)
	_ = os.WriteFile(filepath.Join(agent, "models.json"), nil, 0o644)
	real := filepath.Join(ws, "main.go")
	_ = os.WriteFile(real, nil, 0o644)
	for _, c := range []struct {
		name string
		f    func(string, string, string) string
	}{{"oracle", writeProtectedOracle}, {"resolver", WriteProtected}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.f(real, ws, agent) != "" {
					b.Fatal("protected")
				}
			}
		})
	}
}
