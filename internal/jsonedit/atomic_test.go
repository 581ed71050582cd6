package jsonedit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFiles returns the names in dir, to spot leftover temporary files.
func onlyFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomicNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "project", ".pi", "settings.json")
	if err := WriteFileAtomic(path, []byte("{}\n"), nil); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "{}\n" {
		t.Errorf("content %q", got)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", st.Mode().Perm())
	}
	// nil expect means "must not exist": a second create is refused.
	err = WriteFileAtomic(path, []byte("{\"a\": 1}\n"), nil)
	if !errors.Is(err, ErrChanged) {
		t.Errorf("second create: %v, want ErrChanged", err)
	}
	if got := readFile(t, path); got != "{}\n" {
		t.Errorf("refused write changed the file: %q", got)
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	old := []byte("{\n  // private\n}\n")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("{}\n"), old); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if got := onlyFiles(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v", got)
	}
}

func TestWriteFileAtomicFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, []byte(`{"a": 1}`), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	if got := readFile(t, real); got != `{"a": 1}` {
		t.Errorf("target content %q", got)
	}
}

// TestWriteFileAtomicConcurrentChange simulates another writer editing the
// file between our read and our write: the write is refused and the other
// writer's bytes survive.
func TestWriteFileAtomicConcurrentChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte("{\n  \"a\": 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited, err := Set(ours, Path{Key("b")}, []byte("2"))
	if err != nil {
		t.Fatal(err)
	}
	theirs := "{\n  \"a\": 1,\n  \"c\": 3\n}\n"
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	err = WriteFileAtomic(path, edited, ours)
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
	if got := readFile(t, path); got != theirs {
		t.Errorf("the other writer's content was lost: %q", got)
	}
	// Removed since read: also a change.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, edited, ours); !errors.Is(err, ErrChanged) {
		t.Errorf("after removal: %v, want ErrChanged", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("refused write created the file: %v", err)
	}
	// Re-reading and re-applying the edit succeeds.
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _ := Set([]byte(theirs), Path{Key("b")}, []byte("2"))
	if err := WriteFileAtomic(path, again, []byte(theirs)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "{\n  \"a\": 1,\n  \"c\": 3,\n  \"b\": 2\n}\n" {
		t.Errorf("content %q", got)
	}
}

func TestWriteFileAtomicFaults(t *testing.T) {
	boom := errors.New("injected failure")
	for _, step := range []string{"sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			old := []byte("{\"a\": 1}\n")
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			switch step {
			case "sync":
				orig := syncFile
				syncFile = func(*os.File) error { return boom }
				t.Cleanup(func() { syncFile = orig })
			case "rename":
				orig := rename
				rename = func(string, string, *state) error { return boom }
				t.Cleanup(func() { rename = orig })
			}
			err := WriteFileAtomic(path, []byte("{\"a\": 2}\n"), old)
			if !errors.Is(err, boom) {
				t.Fatalf("got %v, want the injected failure", err)
			}
			if got := readFile(t, path); got != string(old) {
				t.Errorf("old file damaged: %q", got)
			}
			if got := onlyFiles(t, dir); len(got) != 1 || got[0] != "settings.json" {
				t.Errorf("leftover files: %v", got)
			}
		})
	}
}
