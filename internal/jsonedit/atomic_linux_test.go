package jsonedit

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestWriteFileAtomicExternalSaveInWindow: another program saves the file after pigo checked
// it and before pigo puts the new file in place (in place, as some editors do, or by renaming
// over it). The write is refused and the other program's bytes survive.
func TestWriteFileAtomicExternalSaveInWindow(t *testing.T) {
	for _, how := range []string{"in place", "rename over"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			ours := []byte("{\"a\": 1}\n")
			theirs := "{\"a\": 1, \"theirs\": true}\n"
			if err := os.WriteFile(path, ours, 0o644); err != nil {
				t.Fatal(err)
			}
			orig := syncFile
			t.Cleanup(func() { syncFile = orig })
			syncFile = func(f *os.File) error { // runs between the check and the rename
				if how == "in place" {
					if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
						t.Fatal(err)
					}
				} else {
					tmp := filepath.Join(dir, "editor-tmp")
					if err := os.WriteFile(tmp, []byte(theirs), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(tmp, path); err != nil {
						t.Fatal(err)
					}
				}
				return orig(f)
			}
			err := WriteFileAtomic(path, []byte("{\"a\": 2}\n"), ours)
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("got %v, want ErrChanged", err)
			}
			if got := readFile(t, path); got != theirs {
				t.Errorf("the other program's save was lost: %q", got)
			}
			if got := onlyFiles(t, dir); len(got) != 1 {
				t.Errorf("leftover files: %v", got)
			}
		})
	}
}

// TestWriteFileAtomicCreateRace: the file must not exist; another program creates it in the
// window. The write is refused rather than replacing it.
func TestWriteFileAtomicCreateRace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	orig := syncFile
	t.Cleanup(func() { syncFile = orig })
	syncFile = func(f *os.File) error {
		os.WriteFile(path, []byte("{}"), 0o644)
		return orig(f)
	}
	if err := WriteFileAtomic(path, []byte(`{"a": 1}`), nil); !errors.Is(err, ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
	if got := readFile(t, path); got != "{}" {
		t.Errorf("content %q", got)
	}
}

// TestWriteFileAtomicHardLinks: replacing a file with two names would cut the second name
// loose; the write is refused and both names keep the old bytes.
func TestWriteFileAtomicHardLinks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	old := []byte(`{"a": 1}`)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, filepath.Join(dir, "other-name.json")); err != nil {
		t.Skip(err)
	}
	err := WriteFileAtomic(path, []byte(`{"a": 2}`), old)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("got %v, want ErrRefused", err)
	}
	if got := readFile(t, filepath.Join(dir, "other-name.json")); got != string(old) {
		t.Errorf("content %q", got)
	}
}

// TestWriteFileAtomicKeepsOwner: as root, editing another user's file keeps its owner.
func TestWriteFileAtomicKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to own a file as another user")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	old := []byte(`{"a": 1}`)
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 12345, 23456); err != nil {
		t.Skip(err)
	}
	if err := WriteFileAtomic(path, []byte(`{"a": 2}`), old); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 12345 || sys.Gid != 23456 || st.Mode().Perm() != 0o600 {
		t.Errorf("owner %d:%d mode %v", sys.Uid, sys.Gid, st.Mode().Perm())
	}
}

// TestLockSerializes: a second Lock of the same file waits for the first to be released, and
// gives up with a clear error after its timeout.
func TestLockSerializes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	unlock, err := Lock(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path, 50*time.Millisecond); err == nil {
		t.Fatal("a second lock was granted while the first is held")
	}
	var wg sync.WaitGroup
	got := make(chan error, 1)
	wg.Go(func() {
		u, err := Lock(path, 30*time.Second)
		if err == nil {
			u()
		}
		got <- err
	})
	unlock()
	wg.Wait()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}
