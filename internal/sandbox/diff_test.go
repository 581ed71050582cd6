package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The differential test against real bash: command lines generated from a grammar of shell
// constructs are decided by the approval rules; every line pigo allows is run by real bash
// inside the sandbox, with PATH pointing at logging stubs for every command name and the
// builtins that run commands or print disabled (so they go through the stubs too). Every
// command bash ran must match an allow rule, and nothing may be written. PIGO_DIFF_LINES
// raises the number of lines (task fuzz); PIGO_DIFF_SEED changes the seed.

var diffRules = []Rule{
	allow("echo *"), allow("ls *"), allow("cat *"), allow("grep *"), allow("wc *"), allow("git status *"),
	allow("git log *"), allow("true"), allow("printf *"), allow("eval *"), allow("bash -c *"), allow("sh -c *"),
	allow("sort *"), allow("head *"),
	deny("rm *"), deny("curl *"), deny("git push *"),
}

// diffNames are the command names the grammar uses; each gets a stub.
var diffNames = []string{"echo", "ls", "cat", "grep", "wc", "git", "true", "printf", "sort", "head",
	"rm", "curl", "touch", "make", "foo", "bash", "sh", "test", "["}

// gen is the grammar.
type gen struct{ r *rand.Rand }

func (g gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g gen) word() string {
	switch g.r.Intn(16) {
	case 0:
		return "'" + g.pick("a b", "x", "git push", "; rm -rf /", "$(curl x)") + "'"
	case 1:
		return `"` + g.pick("a b", "x", "$HOME", "$(echo hi)", "`echo hi`", "${X:-d}", "$((1+2))") + `"`
	case 2:
		return "$(" + g.cmd(1) + ")"
	case 3:
		return "`" + g.pick("echo hi", "ls", "curl x", "touch f", "echo '`touch f`'", "echo \\`touch f\\`",
			"echo \\$(touch f)", "echo \\\\$(touch f)", "# `touch f", "echo \"`touch f`\"") + "`"
	case 4:
		return g.pick("$X", "${X}", "${X:-y}", "$1", "$@", "${#X}", "${X/a/b}")
	case 5:
		return g.pick("$((1+2))", "$((X))", "${X@P}", "${!X}", "${a[$i]}", "$((x))", "${a[x]}", "$((x+1))")
	case 6:
		return g.pick("\\;", "\\&\\&", "a\\ b", "\\$X", "\\\\")
	case 7:
		return g.pick("*", "?", "~", "{a,b}", "[ab]")
	case 8:
		return "$'" + g.pick("a\\nb", "\\x72m", "x") + "'"
	case 9:
		return "<(" + g.cmd(1) + ")"
	case 10:
		return g.pick("$(cat <<EOF\n)\nEOF\n)", "$(echo # )\ntouch f\n)", "$(echo ')'; touch f)", "\"$(echo \")\")\"",
			"$\\\n(touch f)", "${x:-`touch f`}", "${x:-'`touch f`'}", "$(case a in a) touch f;; esac)")
	default:
		return g.pick("a", "b", "-l", "-n", "x.txt", "--", "status", "push", "origin", "main")
	}
}

func (g gen) name() string {
	return g.pick("echo", "echo", "ls", "cat", "grep", "wc", "git status", "git log", "git push", "true",
		"printf '%s\\n'", "rm -rf", "curl", "touch", "make", "foo", "sort", "head")
}

func (g gen) simple() string {
	var b strings.Builder
	switch g.r.Intn(10) {
	case 0:
		b.WriteString(g.pick("X=1 ", "PATH=/tmp ", "IFS=, ", "A=$(touch f) ", "GIT_DIR=/x "))
	}
	b.WriteString(g.name())
	for n := g.r.Intn(3); n > 0; n-- {
		b.WriteString(g.pick(" ", " ", " ", " \\\n", "\t", " \r"))
		b.WriteString(g.word())
	}
	switch g.r.Intn(12) {
	case 0:
		b.WriteString(g.pick(" > out.txt", " >> out.txt", " 2>&1", " < /dev/null", " <<< word", " 2>/dev/null", " >&2", " &> f"))
	case 1:
		b.WriteString(g.pick(" # note", " # \\", " #x\\", "#not-a-comment", " # ; rm -rf /"))
	}
	return b.String()
}

func (g gen) cmd(depth int) string {
	if depth > 2 {
		return g.simple()
	}
	switch g.r.Intn(14) {
	case 0:
		return g.cmd(depth+1) + g.pick(" && ", " || ", "; ", " | ", " & ", "\n", " ;\n", "\r\n", " |& ") + g.cmd(depth+1)
	case 1:
		return "(" + g.cmd(depth+1) + ")"
	case 2:
		return "{ " + g.cmd(depth+1) + "; }"
	case 3:
		return "if " + g.cmd(depth+1) + "; then " + g.cmd(depth+1) + "; fi"
	case 4:
		return "for x in a b; do " + g.cmd(depth+1) + "; done"
	case 5:
		return "eval " + shQuote(g.cmd(depth+1))
	case 6:
		return g.pick("bash -c ", "sh -c ") + shQuote(g.cmd(depth+1))
	case 7:
		return g.pick("X=a; ", "PATH=/tmp; ", "x=$(curl y); ", "IFS=/; ", "x='a[$(touch f)]'; ", "x=1; ", "read x; ") + g.cmd(depth+1)
	case 8:
		return "f() { " + g.cmd(depth+1) + "; }; f"
	case 9:
		return g.cmd(depth+1) + g.pick(" \\\n  && ", " # c \\\n", "\n# only a comment\n") + g.cmd(depth+1)
	default:
		return g.simple()
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func TestDifferentialBash(t *testing.T) {
	needBwrap(t)
	lines := envInt("PIGO_DIFF_LINES", 3000)
	seed := int64(envInt("PIGO_DIFF_SEED", 20261201))
	maxRun := envInt("PIGO_DIFF_RUN", 150) // about 20 ms of bash each
	g := gen{r: rand.New(rand.NewSource(seed))}
	rs := CompileRules(diffRules)

	var allowed []string
	decided := map[string]int{}
	seen := map[string]bool{}
	for i := 0; i < lines; i++ {
		line := g.cmd(0)
		if seen[line] {
			continue
		}
		seen[line] = true
		a := rs.Evaluate(line)
		decided[a.Decision]++
		if a.Decision == Allow && len(allowed) < maxRun {
			allowed = append(allowed, line)
		}
	}
	t.Logf("%d distinct lines: %v; running %d allowed ones", len(seen), decided, len(allowed))
	if decided[Allow] < 50 || decided[Ask] < 50 || decided[Deny] < 50 {
		t.Fatalf("the grammar does not exercise every decision: %v", decided)
	}

	// The sandbox: the workspace and a log dir writable, PATH only the stubs.
	ws := t.TempDir()
	root := t.TempDir()
	stubs, logs, lineDir := filepath.Join(root, "stubs"), filepath.Join(root, "logs"), filepath.Join(root, "lines")
	for _, d := range []string{stubs, logs, lineDir} {
		must(t, os.MkdirAll(d, 0o755))
	}
	for _, n := range diffNames {
		body := "#!/bin/sh\nif [ $# -eq 0 ]; then printf '%s\\0' '" + n + "'; else printf '%s\\0' \"" + n + " $*\"; fi >> \"$PIGO_LOG\"\n"
		if n == "bash" || n == "sh" {
			body += "exec /bin/bash \"$@\"\n"
		}
		must(t, os.WriteFile(filepath.Join(stubs, n), []byte(body), 0o755))
	}
	// Builtins that print or test go through the stubs; eval, cd and the rest stay builtins.
	bashEnv := filepath.Join(root, "bashenv")
	must(t, os.WriteFile(bashEnv, []byte("enable -n echo printf true test [ false pwd kill\n"), 0o644))
	for i, l := range allowed {
		must(t, os.WriteFile(filepath.Join(lineDir, fmt.Sprintf("%05d", i)), []byte(l), 0o644))
	}
	driver := `for f in ` + lineDir + `/*; do
  IFS= read -r -d '' line < "$f"
  PATH=` + stubs + ` PIGO_LOG=` + logs + `/${f##*/} /usr/bin/timeout 5 /bin/bash -c "$line" </dev/null >/dev/null
done`
	p := DefaultPolicy()
	p.WritablePaths = []string{"."}
	p.ExtraWritablePaths = []string{logs}
	pl, err := NewPlan(p, ws, testEnvReal(t))
	must(t, err)
	pl.Env = append(pl.Env[:len(pl.Env):len(pl.Env)], "BASH_ENV="+bashEnv)
	for i, kv := range pl.Env {
		if strings.HasPrefix(kv, "PATH=") {
			pl.Env[i] = "PATH=" + stubs
		}
	}
	before := listFiles(t, ws)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Run(ctx, pl, driver, Options{})
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, res.Stderr)
	}
	if after := listFiles(t, ws); after != before {
		t.Errorf("allowed lines wrote files:\nbefore %s\nafter  %s", before, after)
	}
	ran := 0
	for i, l := range allowed {
		data, err := os.ReadFile(filepath.Join(logs, fmt.Sprintf("%05d", i)))
		if err != nil {
			continue // nothing external ran
		}
		for _, cmd := range strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00") {
			ran++
			r := rs.last(cmd)
			if r == nil || r.Action != Allow {
				t.Errorf("allowed line %q ran %q, which no allow rule matches (rule %v)", l, cmd, r)
			}
		}
	}
	t.Logf("%d commands ran", ran)
	if ran == 0 {
		t.Fatalf("no command ran: the stubs or the driver are broken; driver stderr: %.3000s", res.Stderr)
	}
	if entries, _ := os.ReadDir(logs); len(entries) == 0 {
		t.Fatal("no log written")
	}
}

// listFiles lists the files under dir, sorted, for a before/after comparison.
func listFiles(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && p != dir {
			out = append(out, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	sort.Strings(out)
	return string(bytes.Join(func() [][]byte {
		var b [][]byte
		for _, s := range out {
			b = append(b, []byte(s))
		}
		return b
	}(), []byte(" ")))
}
