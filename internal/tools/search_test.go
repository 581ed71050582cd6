package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/claudecode"
	"github.com/pigo-agent/pigo/internal/tools/opencode"
)

func needRG(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("ripgrep (rg) is not on PATH; install it (apt-get install ripgrep) to run the search tests")
	}
}

// writeTree creates files (path → content) under a new temp dir, with
// mtimes one second apart in the given order (oldest first).
func writeTree(t testing.TB, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// rgStderr is ripgrep's own error text for an invalid pattern.
func rgStderr(t *testing.T, pattern string) string {
	out, _ := exec.Command("rg", "--", pattern, t.TempDir()).CombinedOutput()
	return strings.TrimSpace(string(out))
}

func sp(s string) *string { return &s }

func fp(f float64) *float64 { return &f }

func bp(b bool) *bool { return &b }

func TestCCGrep(t *testing.T) {
	needRG(t)
	dir := writeTree(t,
		"a.go", "package a\nfunc Foo() {}\n",
		"b.go", "package b\n// Foo here\nvar x = Foo\n",
		"sub/c.txt", "nothing\n",
		".hidden/h.go", "Foo\n",
		".git/config", "Foo\n",
	)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		p    claudecode.GrepParams
		want string
	}{
		{"files newest first", claudecode.GrepParams{Pattern: "Foo"}, "Found 3 files\n.hidden/h.go\nb.go\na.go"},
		{"files paged", claudecode.GrepParams{Pattern: "Foo", HeadLimit: fp(1), Offset: fp(1)}, "Found 1 file limit: 1, offset: 1\nb.go"},
		{"files offset only", claudecode.GrepParams{Pattern: "Foo", Offset: fp(2)}, "Found 1 file offset: 2\na.go"},
		{"no files", claudecode.GrepParams{Pattern: "Zebra"}, "No files found"},
		{"content", claudecode.GrepParams{Pattern: "Foo", OutputMode: sp("content"), Glob: sp("*.go")}, ".hidden/h.go:1:Foo\na.go:2:func Foo() {}\nb.go:2:// Foo here\nb.go:3:var x = Foo"},
		{"content no numbers", claudecode.GrepParams{Pattern: "Foo", OutputMode: sp("content"), LineNums: bp(false), Path: sp("a.go")}, "a.go:func Foo() {}"},
		// A context line has no colon after its path, so it keeps the
		// absolute path (the seed relativises up to the first colon).
		{"content context", claudecode.GrepParams{Pattern: "var", OutputMode: sp("content"), Context: fp(1), Path: sp("b.go")}, dir + "/b.go-2-// Foo here\nb.go:3:var x = Foo"},
		{"content paged", claudecode.GrepParams{Pattern: "Foo", OutputMode: sp("content"), HeadLimit: fp(2)}, ".hidden/h.go:1:Foo\na.go:2:func Foo() {}\n\n[Showing results with pagination = limit: 2]"},
		{"content none", claudecode.GrepParams{Pattern: "Zebra", OutputMode: sp("content")}, "No matches found"},
		{"count", claudecode.GrepParams{Pattern: "Foo", OutputMode: sp("count")}, ".hidden/h.go:1\na.go:1\nb.go:2\n\nFound 4 total occurrences across 3 files."},
		{"count one", claudecode.GrepParams{Pattern: "func", OutputMode: sp("count"), Glob: sp("a.go,zz")}, "a.go:1\n\nFound 1 total occurrence across 1 file."},
		{"count paged", claudecode.GrepParams{Pattern: "Foo", OutputMode: sp("count"), HeadLimit: fp(1)}, ".hidden/h.go:1\n\nFound 1 total occurrence across 1 file. with pagination = limit: 1"},
		{"count none", claudecode.GrepParams{Pattern: "Zebra", OutputMode: sp("count")}, "No matches found\n\nFound 0 total occurrences across 0 files."},
		{"ignore case", claudecode.GrepParams{Pattern: "foo", IgnoreCase: bp(true), Type: sp("go"), OutputMode: sp("count")}, ".hidden/h.go:1\na.go:1\nb.go:2\n\nFound 4 total occurrences across 3 files."},
		{"dash pattern", claudecode.GrepParams{Pattern: "-x", OutputMode: sp("count")}, "No matches found\n\nFound 0 total occurrences across 0 files."},
		{"multiline", claudecode.GrepParams{Pattern: "Foo here.var", Multiline: bp(true)}, "Found 1 file\nb.go"},
	} {
		p := tc.p
		got, err := claudecode.Grep(ctx, &toolrun.Session{Cwd: dir}, &p)
		if err != nil || got != tc.want {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.name, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		p    claudecode.GrepParams
		want string
	}{
		{claudecode.GrepParams{Pattern: "x", Offset: fp(-1)}, "offset must be a non-negative integer"},
		{claudecode.GrepParams{Pattern: "x", HeadLimit: fp(1.5)}, "head_limit must be a non-negative integer"},
		{claudecode.GrepParams{Pattern: "x", Path: sp("nope")}, "Path does not exist: nope. Note: your current working directory is " + dir + "."},
		{claudecode.GrepParams{Pattern: "("}, rgStderr(t, "(")},
	} {
		p := tc.p
		if _, err := claudecode.Grep(ctx, &toolrun.Session{Cwd: dir}, &p); err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestCCGrepOutputCap(t *testing.T) {
	needRG(t)
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "match line %04d %s\n", i, strings.Repeat("z", 20))
	}
	dir := writeTree(t, "big.txt", b.String())
	p := claudecode.GrepParams{Pattern: "match", OutputMode: sp("content"), HeadLimit: fp(0)}
	got, err := claudecode.Grep(context.Background(), &toolrun.Session{Cwd: dir}, &p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "\n\n[Output truncated at 30000 characters]") || len(got) != 30000+len("\n\n[Output truncated at 30000 characters]") {
		t.Errorf("cap: len %d, tail %q", len(got), got[len(got)-60:])
	}
}

func TestCCGlob(t *testing.T) {
	needRG(t)
	dir := writeTree(t,
		"old.go", "", "mid.go", "", "new.go", "", ".hidden.go", "", "sub/x.go", "", ".git/y.go", "",
		"ignored.go", "", ".gitignore", "ignored.go\n",
	)
	ctx := context.Background()
	got, err := claudecode.Glob(ctx, dir, "**/*.go", nil)
	// ripgrep sorts by mtime among the entries of each directory; sub/ is
	// newer than every file, so its contents come last.
	if want := "old.go\nmid.go\nnew.go\n.hidden.go\nignored.go\nsub/x.go"; err != nil || got != want {
		t.Errorf("glob: %q (%v), want %q", got, err, want)
	}
	got, err = claudecode.Glob(ctx, dir, filepath.Join(dir, "sub", "*.go"), nil)
	if err != nil || got != "sub/x.go" {
		t.Errorf("absolute: %q (%v)", got, err)
	}
	got, err = claudecode.Glob(ctx, dir, "*.rs", nil)
	if err != nil || got != "No files found" {
		t.Errorf("none: %q (%v)", got, err)
	}
	if _, err := claudecode.Glob(ctx, dir, "*", sp("old.go")); err == nil || err.Error() != "Path is not a directory: old.go" {
		t.Errorf("not dir: %v", err)
	}
	if _, err := claudecode.Glob(ctx, dir, "*", sp("missing")); err == nil || err.Error() != "Directory does not exist: missing. Note: your current working directory is "+dir+"." {
		t.Errorf("missing: %v", err)
	}
	many := make([]string, 0, 210)
	for i := 0; i < 105; i++ {
		many = append(many, fmt.Sprintf("f%03d.txt", i), "")
	}
	d2 := writeTree(t, many...)
	got, _ = claudecode.Glob(ctx, d2, "*.txt", nil)
	lines := strings.Split(got, "\n")
	if len(lines) != 101 || lines[0] != "f000.txt" || lines[100] != "(Results are truncated. Consider using a more specific path or pattern.)" {
		t.Errorf("truncated: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

func TestCCGlobBase(t *testing.T) {
	for pat, want := range map[string]string{
		"/a/b/*.go": "/a/b|*.go", "/*.txt": "/|*.txt", "/a/b/c.go": "/a/b|c.go", "/a/**/x": "/a|**/x", "/a/{b,c}/d": "/a|{b,c}/d",
	} {
		b, r := claudecode.GlobBase(pat)
		if got := b + "|" + r; got != want {
			t.Errorf("%s: %s, want %s", pat, got, want)
		}
	}
}

func TestOCGrep(t *testing.T) {
	needRG(t)
	dir := writeTree(t,
		"a.go", "package a\nfunc Foo() {}\n",
		"b.go", "Foo\r\nFoo\n",
		".git/x", "Foo\n",
		"long.txt", strings.Repeat("é", 2100)+"Foo\n",
		"latin1.txt", "caf\xe9 Foo\n",
	)
	ctx := context.Background()
	got, err := opencode.Grep(ctx, &toolrun.Session{Cwd: dir}, "Foo", nil, sp("*.go"))
	want := "Found 3 matches\n" + dir + "/a.go:\n  Line 2: func Foo() {}\n\n" + dir + "/b.go:\n  Line 1: Foo\n  Line 2: Foo"
	if err != nil || got != want {
		t.Errorf("grep:\n got %q (%v)\nwant %q", got, err, want)
	}
	got, _ = opencode.Grep(ctx, &toolrun.Session{Cwd: dir}, "Foo", sp("long.txt"), nil)
	if want := "Found 1 matches\n" + dir + "/long.txt:\n  Line 1: " + strings.Repeat("é", 2000) + "..."; got != want {
		t.Errorf("long line: %q", got[:80])
	}
	got, _ = opencode.Grep(ctx, &toolrun.Session{Cwd: dir}, "caf", sp("latin1.txt"), nil)
	if want := "Found 1 matches\n" + dir + "/latin1.txt:\n  Line 1: caf\ufffd Foo"; got != want {
		t.Errorf("latin1: %q", got)
	}
	got, _ = opencode.Grep(ctx, &toolrun.Session{Cwd: dir}, "Zebra", nil, nil)
	if got != "No files found" {
		t.Errorf("none: %q", got)
	}
	for _, tc := range []struct {
		pattern string
		path    *string
		want    string
	}{
		{"", nil, "pattern is required"},
		{"(", nil, "Invalid pattern: " + rgStderr(t, "(")},
		{"x", sp("a.g"), "Path does not exist: a.g. Note: your current working directory is " + dir + ".\n\nDid you mean one of these?\n" + dir + "/a.go"},
	} {
		if _, err := opencode.Grep(ctx, &toolrun.Session{Cwd: dir}, tc.pattern, tc.path, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.pattern, err, tc.want)
		}
	}
	var b strings.Builder
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "hit %d\n", i)
	}
	d2 := writeTree(t, "many.txt", b.String())
	got, _ = opencode.Grep(ctx, &toolrun.Session{Cwd: d2}, "hit", nil, nil)
	lines := strings.Split(got, "\n")
	if lines[0] != "Found 100 matches (more matches available)" || lines[len(lines)-1] != "(Results truncated. Consider using a more specific path or pattern.)" || len(lines) != 104 {
		t.Errorf("truncated: %q … %q (%d lines)", lines[0], lines[len(lines)-1], len(lines))
	}
}

func TestOCGlob(t *testing.T) {
	needRG(t)
	dir := writeTree(t, "b.go", "", "a.go", "", ".h.go", "", "sub/c.go", "", "ig.go", "", ".gitignore", "ig.go\n")
	ctx := context.Background()
	got, err := opencode.Glob(ctx, dir, "**/*.go", nil)
	// An explicit --glob overrides ripgrep's hidden-file and ignore rules,
	// so .h.go and ig.go are listed (the seed's description says otherwise;
	// ripgrep decides).
	if want := dir + "/.h.go\n" + dir + "/a.go\n" + dir + "/b.go\n" + dir + "/ig.go\n" + dir + "/sub/c.go"; err != nil || got != want {
		t.Errorf("glob: %q (%v), want %q", got, err, want)
	}
	if got, _ := opencode.Glob(ctx, dir, "*.rs", nil); got != "No files found" {
		t.Errorf("none: %q", got)
	}
	if _, err := opencode.Glob(ctx, dir, "*", sp("a.go")); err == nil || err.Error() != "glob path must be a directory: "+dir+"/a.go" {
		t.Errorf("not dir: %v", err)
	}
	many := make([]string, 0, 210)
	for i := 0; i < 101; i++ {
		many = append(many, fmt.Sprintf("f%03d.txt", i), "")
	}
	d2 := writeTree(t, many...)
	got, _ = opencode.Glob(ctx, d2, "*.txt", nil)
	if !strings.HasSuffix(got, d2+"/f099.txt\n\n"+opencode.GlobTruncMsg) {
		t.Errorf("truncated tail: %q", got[len(got)-150:])
	}
}
