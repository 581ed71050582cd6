package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mustResolve(t *testing.T, p string) *Target {
	t.Helper()
	tg, err := Resolve(p)
	if err != nil {
		t.Fatalf("Resolve(%s): %v", p, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func TestResolve(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(root, "ws")
	ad := filepath.Join(root, "agent")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.MkdirAll(ad, 0o755)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644)
	os.Symlink("../agent/sandbox.json", filepath.Join(ws, "evil"))   // dangling, outside
	os.Symlink("../agent/x/y/z.json", filepath.Join(ws, "deep"))     // dangling through missing dirs
	os.Symlink("sub", filepath.Join(ws, "subl"))                     // a directory link, inside
	os.Symlink("sub/new.txt", filepath.Join(ws, "inner"))            // dangling, inside
	os.Symlink(filepath.Join(ws, "a.txt"), filepath.Join(ws, "abs")) // absolute, existing
	os.Symlink("subl/../../agent/s.json", filepath.Join(ws, "dots")) // ".." after a link is physical
	os.Symlink("loop2", filepath.Join(ws, "loop1"))
	os.Symlink("loop1", filepath.Join(ws, "loop2"))
	cases := []struct {
		in, real string
		exists   bool
	}{
		{"ws/a.txt", "ws/a.txt", true},
		{"ws/new.txt", "ws/new.txt", false},
		{"ws/evil", "agent/sandbox.json", false},
		{"ws/deep", "agent/x/y/z.json", false},
		{"ws/subl/f", "ws/sub/f", false},
		{"ws/inner", "ws/sub/new.txt", false},
		{"ws/abs", "ws/a.txt", true},
		{"ws/dots", "agent/s.json", false},
		{"ws/sub/../a.txt", "ws/a.txt", true},
		{"ws/sub", "ws/sub", true},
		{"ws/missing/dir/f", "ws/missing/dir/f", false},
	}
	for _, c := range cases {
		tg := mustResolve(t, filepath.Join(root, c.in))
		if tg.Real != filepath.Join(root, c.real) || tg.Exists != c.exists {
			t.Errorf("%s: got %s exists=%v, want %s exists=%v", c.in, tg.Real, tg.Exists, c.real, c.exists)
		}
	}
	if _, err := Resolve(filepath.Join(ws, "loop1")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("loop: %v", err)
	}
	if _, err := Resolve(filepath.Join(ws, "a.txt", "x")); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("file as dir: %v", err)
	}
	// ".." in a link's text after a missing component needs that component (as open does).
	os.Symlink("nope/../a.txt", filepath.Join(ws, "gap"))
	if _, err := Resolve(filepath.Join(ws, "gap")); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("missing/..: %v", err)
	}
}

// TestWriteThroughLinks is the critical finding: a link whose target does not exist yet is
// written where it leads, and Real says so before anything is written.
func TestWriteThroughLinks(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.Symlink("sub/new.txt", filepath.Join(ws, "inner"))
	tg := mustResolve(t, filepath.Join(ws, "inner"))
	if err := tg.Write([]byte("hi"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", "new.txt")); string(b) != "hi" {
		t.Fatalf("target holds %q", b)
	}
	if l, err := os.Readlink(filepath.Join(ws, "inner")); err != nil || l != "sub/new.txt" {
		t.Fatalf("the link was replaced: %q %v", l, err)
	}
}

func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.sh")
	os.WriteFile(p, []byte("old"), 0o750)
	os.Chmod(p, 0o750)
	tg := mustResolve(t, p)
	if err := tg.Write([]byte("new"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v", fi.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temp file left behind: %v", ents)
	}
}

func TestWriteMkdir(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "c.txt")
	tg := mustResolve(t, p)
	if err := tg.Write([]byte("x"), WriteOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("without Mkdir: %v", err)
	}
	if err := tg.Write([]byte("x"), WriteOptions{Mkdir: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "x" {
		t.Fatalf("got %q", b)
	}
}

// A directory swapped for a link after the resolution does not redirect the write: it lands
// in the directory that was resolved (the handle), never where the link points.
func TestWriteSwappedDirectory(t *testing.T) {
	root := t.TempDir()
	ws, out := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.MkdirAll(out, 0o755)
	tg := mustResolve(t, filepath.Join(ws, "sub", "f.txt"))
	os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "sub.old"))
	os.Symlink(out, filepath.Join(ws, "sub"))
	if err := tg.Write([]byte("x"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(out, "f.txt")); err == nil {
		t.Fatal("the write followed the swapped-in link")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub.old", "f.txt")); string(b) != "x" {
		t.Fatalf("resolved directory holds %q", b)
	}

	// A missing directory created as a link in between: the write fails.
	tg2 := mustResolve(t, filepath.Join(ws, "sub.old", "new", "f.txt"))
	os.Symlink(out, filepath.Join(ws, "sub.old", "new"))
	if err := tg2.Write([]byte("x"), WriteOptions{Mkdir: true}); err == nil {
		t.Fatal("wrote through a link created in place of a missing directory")
	}
	if _, err := os.Lstat(filepath.Join(out, "f.txt")); err == nil {
		t.Fatal("the write followed the link")
	}

	// The file itself swapped for a link: the link is replaced, its target untouched.
	os.WriteFile(filepath.Join(out, "secret"), []byte("keep"), 0o644)
	p := filepath.Join(ws, "sub.old", "g.txt")
	os.WriteFile(p, []byte("g"), 0o644)
	tg3 := mustResolve(t, p)
	os.Remove(p)
	os.Symlink(filepath.Join(out, "secret"), p)
	if err := tg3.Write([]byte("new"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "secret")); string(b) != "keep" {
		t.Fatalf("link target rewritten: %q", b)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("got %q", b)
	}
}

func TestReadExistingRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2000), 0o644)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for name, want := range map[string]string{"fifo": "named pipe", "zero": "character device", "big": "reads whole files up to 1000 bytes"} {
			tg, err := Resolve(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			_, err = tg.ReadExisting(1000)
			tg.Close()
			var r *Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, want) {
				t.Errorf("%s: %v, want a refusal with %q", name, err, want)
			}
			if _, err := ReadRegular(filepath.Join(dir, name), 1000, "edit"); !errors.As(err, &r) || !strings.Contains(r.Reason, want) {
				t.Errorf("ReadRegular %s: %v", name, err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a read blocked")
	}
}

// The file a write replaces is held across the rename and handed to releaseReplaced: the
// descriptor is the old inode, unlinked by then (so its free happens at that close, off the
// write's path); a new file has nothing to hold; a failed rename closes what it held.
func TestWriteReleasesReplacedOffPath(t *testing.T) {
	var got []int
	old := releaseReplaced
	releaseReplaced = func(fd int) { got = append(got, fd) }
	t.Cleanup(func() { releaseReplaced = old })
	dir := t.TempDir()
	p := filepath.Join(dir, "main.go")
	os.WriteFile(p, []byte("old"), 0o644)
	var before syscall.Stat_t
	syscall.Stat(p, &before)
	if err := mustResolve(t, p).Write([]byte("new"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("released %d descriptors, want 1", len(got))
	}
	var held syscall.Stat_t
	if err := syscall.Fstat(got[0], &held); err != nil {
		t.Fatal(err)
	}
	syscall.Close(got[0])
	if held.Ino != before.Ino || held.Nlink != 0 {
		t.Fatalf("held inode %d (links %d), want the replaced %d unlinked", held.Ino, held.Nlink, before.Ino)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("got %q", b)
	}
	got = nil
	if err := mustResolve(t, filepath.Join(dir, "new.go")).Write([]byte("x"), WriteOptions{}); err != nil || len(got) != 0 {
		t.Fatalf("new file: err %v, released %v", err, got)
	}
}

// The descriptor a write holds is closed when the rename fails: none is left open.
func TestWriteHeldClosedOnFailedRename(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d")
	os.Mkdir(p, 0o755)
	os.WriteFile(filepath.Join(p, "f"), nil, 0o644) // a non-empty directory: rename over it fails
	tg := mustResolve(t, p)
	tg.Exists, tg.Info = true, nil // as if it were a file when resolved
	n := openFDs(t)
	if err := tg.Write([]byte("x"), WriteOptions{}); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	if m := openFDs(t); m != n {
		t.Fatalf("open descriptors %d before, %d after", n, m)
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(ents)
}
