package main

import (
	"os/exec"
	"strings"
	"testing"
)

// cueAllowed are the only packages that may link CUE: the schema's reference evaluator and
// table generator, the test helper that runs it, and the pigo-cue helper command.
var cueAllowed = map[string]bool{
	"github.com/pigo-agent/pigo/internal/cueschema":         true,
	"github.com/pigo-agent/pigo/internal/cueschema/cuetest": true,
	"github.com/pigo-agent/pigo/cmd/pigo-cue":               true,
}

// TestNoCUELinked: pigo does not link CUE (nor protobuf and apd, which CUE brings): its package
// initialisation cost every pigo process milliseconds, and the JSON kinds are checked with
// tables compiled from the schema (internal/validate). No package of the module other than
// cueAllowed reaches cuelang.org, so the start path of pigo -p, pigo tools and pigo check is free
// of it.
func TestNoCUELinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "github.com/pigo-agent/pigo/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	heavy := func(p string) bool {
		return strings.HasPrefix(p, "cuelang.org/") || strings.HasPrefix(p, "google.golang.org/protobuf/") || strings.HasPrefix(p, "github.com/cockroachdb/apd")
	}
	memo := map[string]string{}
	var reach func(p string) string
	reach = func(p string) string {
		if r, ok := memo[p]; ok {
			return r
		}
		memo[p] = ""
		for _, q := range imports[p] {
			if heavy(q) {
				memo[p] = q
				return q
			}
			if r := reach(q); r != "" {
				memo[p] = q + " → " + r
				return memo[p]
			}
		}
		return ""
	}
	n := 0
	for p := range imports {
		if !strings.HasPrefix(p, "github.com/pigo-agent/pigo") || cueAllowed[p] {
			continue
		}
		n++
		if r := reach(p); r != "" {
			t.Errorf("%s links %s", p, r)
		}
	}
	if n < 40 {
		t.Fatalf("only %d packages listed", n)
	}
}
