package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestThirdPartyInitIsSmall: every pigo process initialises every package linked into it, so the
// copies in third_party/ build on first use what upstream builds at init (each PIGO.md says
// what). The test binary links what pigo links; its own init trace must show each package's
// init within its bound. Upstream's init allocates (bytes, GODEBUG=inittrace=1): bubbletea
// 95,480 (its key tables and two regexps), yaml.v3 25,720 (two regexps), go-udiff 2,904 (one
// regexp); the copies 1,208, 6,096 and 72.
func TestThirdPartyInitIsSmall(t *testing.T) {
	if os.Getenv("PIGO_INITTRACE_CHILD") == "1" {
		return
	}
	bounds := map[string]int{
		"github.com/charmbracelet/bubbletea": 16 << 10,
		"gopkg.in/yaml%2ev3":                 12 << 10,
		"github.com/aymanbagabas/go-udiff":   1 << 10,
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestThirdPartyInitIsSmall$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "PIGO_INITTRACE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		// init gopkg.in/yaml%2ev3 @5.2 ms, 0.08 ms clock, 25720 bytes, 216 allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" {
			continue
		}
		bound, ok := bounds[f[1]]
		if !ok {
			continue
		}
		seen[f[1]] = true
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("cannot read %q", line)
		}
		if bytes > bound {
			t.Errorf("%s: init allocates %d bytes (bound %d): a regexp or table is built at init again", f[1], bytes, bound)
		}
	}
	for name := range bounds {
		if !seen[name] {
			t.Errorf("%s is not in the init trace:\n%s", name, out)
		}
	}
}
