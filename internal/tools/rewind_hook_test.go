package tools

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/rewind"
	"github.com/pigo-agent/pigo/internal/tools/codemode"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// TestRewindSeesEveryWriter: /rewind's store is a hook of the one write path, so it records
// the writes of every writing tool — codemode's fs.write and a write through a link
// included, which its old list of tool names missed — by their real path.
func TestRewindSeesEveryWriter(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	rw := rewind.New("")
	e.s.AddWriteHook(rw)
	e.write("old.txt", "v1")
	e.call("Read", map[string]any{"file_path": e.path("old.txt")})
	rw.Begin("leaf0", "go")
	e.ok("Write", map[string]any{"file_path": e.path("old.txt"), "content": "v2"}, "The file "+e.path("old.txt")+" has been updated successfully.")
	if _, err := (codemode.FS{}).Write(context.Background(), e.s, "made.txt", "x"); err != nil {
		t.Fatal(err)
	}
	e.write("docs/.keep", "")
	mustSymlink(t, "docs/inner.md", e.path("inner.md"))
	e.call("Write", map[string]any{"file_path": e.path("inner.md"), "content": "through a link"})
	plan := rw.Plan(rw.Points()[0])
	var got []string
	for _, r := range plan {
		got = append(got, strings.TrimPrefix(r.Path, e.dir+"/"))
	}
	if strings.Join(got, " ") != "docs/inner.md made.txt old.txt" {
		t.Fatalf("plan %v", got)
	}
	if err := rw.Apply(rw.Points()[0], plan); err != nil {
		t.Fatal(err)
	}
	if e.read("old.txt") != "v1" || toolkit.Exists(e.path("made.txt")) || toolkit.Exists(e.path("docs/inner.md")) {
		t.Fatal("not restored")
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
