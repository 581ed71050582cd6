package toolkit

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/pitest"
)

func TestPatchHunkHeaders(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		// One line changed: both counts written, as jsdiff writes them.
		{"Hello, world!", "Hello, testing!", "--- f\n+++ f\n@@ -1,1 +1,1 @@\n-Hello, world!\n\\ No newline at end of file\n+Hello, testing!\n\\ No newline at end of file\n"},
		// Lines added to an empty file: the empty side starts at 0.
		{"", "a\nb\n", "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		// All lines removed.
		{"a\n", "", "--- f\n+++ f\n@@ -1,1 +0,0 @@\n-a\n"},
		// Removed lines come before added ones, with four lines of context.
		{"1\n2\n3\n4\n5\n6\n", "1\n2\nX\n4\n5\n6\n", "--- f\n+++ f\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n"},
		// No change: the headers alone.
		{"same\n", "same\n", "--- f\n+++ f\n"},
	} {
		if got := unifiedPatch("f", c.old, c.new, 4); got != c.want {
			t.Errorf("%q → %q:\n got %q\nwant %q", c.old, c.new, got, c.want)
		}
	}
}

// TestPatchAgainstJsdiff writes details.patch for random edits with pigo and with jsdiff (the
// diff package pi 0.84.3 ships, createTwoFilesPatch with FILE_HEADERS_ONLY and four lines of
// context, as pi's generateUnifiedPatch calls it) and requires the same bytes.
func TestPatchAgainstJsdiff(t *testing.T) {
	pi := pitest.Find(t)
	diffPkg := filepath.Join(pitest.Dir(), "node_modules", "diff")
	if _, err := os.Stat(diffPkg); err != nil {
		t.Skipf("jsdiff is not installed beside pi (%s): run scripts/install-pi.sh", diffPkg)
	}
	rng := rand.New(rand.NewSource(26))
	words := []string{"alpha", "beta", "gamma", "", "delta", "x", "  indented", "\ttab"}
	gen := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte('\n')
		}
		s := b.String()
		if rng.Intn(4) == 0 && s != "" {
			s = s[:len(s)-1] // no final newline
		}
		return s
	}
	type pair struct{ Old, New string }
	var pairs []pair
	for i := 0; i < 300; i++ {
		old := gen(rng.Intn(40))
		lines := splitKeepNL(old)
		// Change a few lines: replace, insert, delete, keep.
		var nb strings.Builder
		for _, l := range lines {
			switch rng.Intn(12) {
			case 0:
				nb.WriteString("changed " + l)
			case 1:
				nb.WriteString(l + "inserted\n")
			case 2:
			default:
				nb.WriteString(l)
			}
		}
		if rng.Intn(6) == 0 {
			nb.WriteString("tail without newline")
		}
		pairs = append(pairs, pair{old, nb.String()})
	}
	pairs = append(pairs, pair{"a\nb\nc", "a\nb\nc\n"}, pair{"", ""}, pair{"x", ""})
	in, _ := json.Marshal(pairs)
	script := `const Diff = require(` + jsString(diffPkg) + `);
let d = ""; process.stdin.on("data", c => d += c).on("end", () => {
  const out = JSON.parse(d).map(p => Diff.createTwoFilesPatch("f.txt", "f.txt", p.Old, p.New, undefined, undefined, {context: 4, headerOptions: Diff.FILE_HEADERS_ONLY}));
  process.stdout.write(JSON.stringify(out));
});`
	cmd := pi.Command()
	cmd.Args = []string{pi.Node, "-e", script}
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		if got := unifiedPatch("f.txt", p.Old, p.New, 4); got != want[i] {
			t.Errorf("pair %d %q → %q:\n got %q\nwant %q", i, p.Old, p.New, got, want[i])
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
