package frontmatter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// billionLaughs is the 381-byte agent file of issue 11 that exhausted memory in every command:
// nine anchors, each a list of nine aliases of the previous one (9^9 strings when expanded).
func billionLaughs() string {
	s := "---\nname: bomb\ndescription: x\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for _, c := range "bcdefghi" {
		s += fmt.Sprintf("%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = string(c)
	}
	return s + "---\nbody\n"
}

// hostile are inputs that once took unbounded memory or time, or put a span outside the file.
// They also seed FuzzFrontmatter.
func hostile() map[string]string {
	var deep strings.Builder
	deep.WriteString("---\na: ")
	for range 5000 {
		deep.WriteString("[")
	}
	for range 5000 {
		deep.WriteString("]")
	}
	deep.WriteString("\n---\n")
	var long strings.Builder
	long.WriteString("---\nname: x\ntools: [")
	for i := range 40000 {
		fmt.Fprintf(&long, "\"t%d\", ", i)
	}
	long.WriteString("]\n---\n")
	var lines strings.Builder
	lines.WriteString("---\nname: x\n")
	for i := range 20000 {
		fmt.Fprintf(&lines, "k%d: v%d\n", i, i)
	}
	lines.WriteString("---\n")
	return map[string]string{
		"billion laughs":   billionLaughs(),
		"deep flow":        deep.String(),
		"long line":        long.String(),
		"20k lines":        lines.String(),
		"huge integer":     "---\nname: x\nmax_turns: " + strings.Repeat("9", 1_000_000) + "\n---\n",
		"bare cr":          "---\n\r\r00:\n---",
		"too large":        "---\nname: x\ndescription: " + strings.Repeat("y", MaxYAML) + "\n---\n",
		"merge in anchors": "---\nbase: &b {tools: read}\na: {<<: *b}\nc: [*b, *b]\n---\n",
	}
}

// TestMain runs the package's tests under a soft memory limit, set once before any test runs:
// a test that changed it while others ran would change it for them too (issue 21).
func TestMain(m *testing.M) {
	debug.SetMemoryLimit(256 << 20)
	os.Exit(m.Run())
}

// boundedResources runs fn (under the package's memory limit) and fails, instead of hanging
// CI, when it does not return within a generous time; it never asserts a speed.
func boundedResources(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("no result within 60s: a super-linear path or a hang")
	}
}

func TestHostileBounded(t *testing.T) {
	for name, src := range hostile() {
		t.Run(name, func(t *testing.T) {
			boundedResources(t, func() { _, _ = Parse([]byte(src)) })
		})
	}
}

func TestAliasBomb(t *testing.T) {
	src := billionLaughs()
	if len(src) != 381 {
		t.Fatalf("the reproduction is %d bytes, want 381", len(src))
	}
	var fe *Error
	_, err := Parse([]byte(src))
	if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "aliases expand to more than") {
		t.Fatalf("got %v, want the alias-expansion error", err)
	}
	if line := 1 + strings.Count(src[:fe.Offset], "\n"); line < 6 || line > 12 || src[fe.Offset] != '*' {
		t.Errorf("error on line %d at %q, want an alias the user wrote", line, src[fe.Offset:fe.Offset+2])
	}
	// A few aliases of a small anchor are fine.
	d, err := Parse([]byte("---\nx: &t [read, grep]\ntools: *t\n---\n"))
	if err != nil || len(d.Data.Get("tools").Elems) != 2 {
		t.Fatalf("a small alias: %v", err)
	}
}

func TestTooLargeAndTooDeep(t *testing.T) {
	for name, want := range map[string]string{"too large": "frontmatter is too large", "deep flow": "nested too deeply"} {
		_, err := Parse([]byte(hostile()[name]))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
}

func TestHugeNumberStaysString(t *testing.T) {
	d, err := Parse([]byte(hostile()["huge integer"]))
	if err != nil {
		t.Fatal(err)
	}
	if v := d.Data.Get("max_turns"); v == nil || v.Kind.String() != "string" {
		t.Fatalf("max_turns = %+v", v)
	}
}

func TestManyLinesOffsets(t *testing.T) {
	src := hostile()["20k lines"]
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := d.Data.Members[len(d.Data.Members)-1]
	if m.Key != "k19999" || src[m.KeyStart:m.KeyEnd] != "k19999" || src[m.Value.Start:m.Value.End] != "v19999" {
		t.Fatalf("last member %q at %q", m.Key, src[m.KeyStart:m.KeyEnd])
	}
}

func TestMergeKeyReported(t *testing.T) {
	src := "---\nbase: &b {model: x}\nname: a\n<<: *b\n---\n"
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || d.Warnings[0].Code != "yaml-merge" {
		t.Fatalf("warnings %+v", d.Warnings)
	}
	if got := src[d.Warnings[0].Offset:][:2]; got != "<<" {
		t.Errorf("warning at %q", got)
	}
	// pi (YAML 1.2) reads "<<" as an ordinary key; so does pigo.
	if d.Data.Get("<<") == nil || d.Data.Get("model") != nil {
		t.Errorf("members %v", d.Data.Members)
	}
}

func TestBareCR(t *testing.T) {
	src := "---\rname: scout\rtools: read\r---\rBody\r"
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Present || d.Data == nil {
		t.Fatal("no frontmatter")
	}
	v := d.Data.Get("tools")
	if v == nil || src[v.Start:v.End] != "read" || src[d.BodyStart:] != "Body\r" {
		t.Fatalf("tools %+v body %q", v, src[d.BodyStart:])
	}
	bad := "---\rname: x\rtools: [a\rmodel: y\r---\r"
	_, err = Parse([]byte(bad))
	var fe *Error
	if !errors.As(err, &fe) || !strings.HasPrefix(bad[fe.Offset:], "tools") {
		t.Fatalf("want an error on the tools line, got %v", err)
	}
}

// TestErrorLines: yaml.v3 reports parser errors one line early (its 0-based line); pigo points
// at the line that is broken.
func TestErrorLines(t *testing.T) {
	cases := []struct {
		yaml string
		line int // 1-based line of the Markdown file
	}{
		{"name: x\nmodel: y\n- item\n", 4},       // did not find expected key
		{"name: x\ntools: [a, b\nmodel: y\n", 3}, // the unclosed flow sequence
		{"name: x\nb: {c: 1\n", 3},               // the unclosed flow mapping
		{"a: b: c\n", 2},                         // scanner error, line 1 of the YAML
		{"name: x\nmodel: y\nfoo\nbar: 1\n", 4},  // scanner error
		{"a: 1\nb:\n\t- x\n", 4},                 // a tab
		{"name: x\ndescription: \"open\ntools: read\n", 3},
		{"- a\n- b\n  c: d\n", 4},
	}
	for _, c := range cases {
		src := "---\n" + c.yaml + "---\n"
		_, err := Parse([]byte(src))
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("%q: want an error, got %v", c.yaml, err)
			continue
		}
		if line := 1 + strings.Count(src[:fe.Offset], "\n"); line != c.line {
			t.Errorf("%q: %s: line %d, want %d", c.yaml, fe.Msg, line, c.line)
		}
	}
}

// TestHostileSeedsKept keeps every hostile input in the fuzz corpus (testdata/fuzz), so that
// `go test` replays them and a fuzz run starts from them. UPDATE_GOLDEN=1 rewrites them.
func TestHostileSeedsKept(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzFrontmatter")
	for name, src := range hostile() {
		if len(src) > 64<<10 {
			continue // the large ones are generated by TestHostileBounded, not stored
		}
		file := filepath.Join(dir, "hostile-"+strings.ReplaceAll(name, " ", "-"))
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", src)
		if os.Getenv("UPDATE_GOLDEN") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(file); err != nil || string(got) != want {
			t.Errorf("%s is missing or stale (UPDATE_GOLDEN=1 go test ./internal/frontmatter)", file)
		}
	}
}
