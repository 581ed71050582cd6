package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// viewScript prints what a sandboxed command can see and do at each path: whether it exists,
// whether a directory can be made in it, whether it can be renamed away (a mount point
// cannot: EBUSY; a rename that succeeds is undone at once), and the sandbox's mount points
// with their options.
func viewScript(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, `p=%q
if [ -e "$p" ]; then e=exists; else e=missing; fi
if mkdir "$p/.view-probe" 2>/dev/null; then rmdir "$p/.view-probe"; w=writable; else w=readonly; fi
if mv "$p" "$p.view-moved" 2>/dev/null; then mv "$p.view-moved" "$p"; r=renamed; else r=fixed; fi
echo "$p $e $w $r"
`, p)
	}
	b.WriteString("awk '{print $5, $6}' /proc/self/mountinfo | sort -u\n")
	return b.String()
}

// TestRepeatedBindChangesNothing runs a command under the argv without the binds repeated
// later and under the argv with every bind, with real bwrap, in layouts where a path is
// bound twice (the workspace under a writable /tmp, as the benchmarks and pigo's own tests
// place it; writable and extra paths named twice or below one another), and checks that the
// command sees and may do exactly the same at every path that matters: the writable roots,
// the pinned directories, the protected and placeholder paths, the mount table's points and
// options.
func TestRepeatedBindChangesNothing(t *testing.T) {
	needBwrap(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "work")
	home := filepath.Join(base, "home")
	agent := filepath.Join(home, ".pi", "agent")
	for _, d := range []string{ws, filepath.Join(ws, "sub", "deep"), agent} {
		must(t, os.MkdirAll(d, 0o755))
	}
	paths := []string{"/tmp", base, ws, filepath.Join(ws, "sub"), filepath.Join(ws, "sub", "deep"), filepath.Join(ws, ".pi"),
		filepath.Join(ws, ".git"), filepath.Join(ws, ".agent"), home, filepath.Join(home, ".pi"), agent}
	layouts := map[string]func(p *Policy){
		"default": func(p *Policy) {},
		"repeated": func(p *Policy) {
			p.WritablePaths = []string{".", "/tmp", ".", "sub"}
			p.ExtraWritablePaths = []string{"sub/deep", base, "sub"}
		},
		"nested": func(p *Policy) {
			p.WritablePaths = []string{"sub/deep", ".", "/tmp"}
			p.ExtraWritablePaths = []string{home}
		},
	}
	for name, set := range layouts {
		t.Run(name, func(t *testing.T) {
			env := testEnvReal(t)
			env.Home = home
			p := DefaultPolicy()
			p.AgentDir = agent
			set(&p)
			pl, err := NewPlan(p, ws, env)
			must(t, err)
			binds := func() (n int, seen map[string]int) {
				seen = map[string]int{}
				argv := pl.Argv("true", 0)
				for i, a := range argv {
					if a == "--bind-try" {
						n++
						seen[argv[i+1]]++
					}
				}
				return n, seen
			}
			nNew, seen := binds()
			for p, k := range seen {
				if k > 1 {
					t.Errorf("%s bound %d times", p, k)
				}
			}
			keepRepeatedBinds = true
			nOld, _ := binds()
			old, errOld := Run(context.Background(), pl, viewScript(paths), Options{})
			keepRepeatedBinds = false
			if nOld <= nNew {
				t.Fatalf("the layout repeats no bind (%d binds either way)", nNew)
			}
			cur, errNew := Run(context.Background(), pl, viewScript(paths), Options{})
			must(t, errOld)
			must(t, errNew)
			if old.ExitCode != 0 || cur.ExitCode != 0 {
				t.Fatalf("exit %d, %d: %s %s", old.ExitCode, cur.ExitCode, old.Stderr, cur.Stderr)
			}
			if string(old.Stdout) != string(cur.Stdout) {
				t.Errorf("the sandbox differs without the repeated binds:\nwith every bind:\n%s\nwithout:\n%s", old.Stdout, cur.Stdout)
			}
			// The layout's protections, for the record: a pinned directory cannot be renamed,
			// the workspace is writable, a placeholder is not.
			for _, want := range []string{ws + " exists writable fixed", filepath.Join(ws, ".pi") + " exists readonly fixed",
				agent + " exists readonly fixed", filepath.Join(home, ".pi") + " exists"} {
				if !strings.Contains(string(cur.Stdout), want) {
					t.Errorf("no %q in\n%s", want, cur.Stdout)
				}
			}
		})
	}
}
