package jsonedit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrChanged is returned by WriteFileAtomic when the file no longer holds
// the bytes the edit was computed from (or exists when it should not).
var ErrChanged = errors.New("file changed since it was read")

// ErrRefused is wrapped by the errors of WriteFileAtomic about a file it will not replace:
// one with several hard links (replacing it would cut them) or one whose owner cannot be kept.
var ErrRefused = errors.New("pigo does not replace this file")

// Hooks for fault-injection tests: syncFile syncs the temporary file, rename puts it in place
// (exists says whether the target exists and must be the file that was read).
var (
	syncFile = (*os.File).Sync
	rename   = commit
)

// state is what the file held when it was read: its bytes and its identity.
type state struct {
	info fs.FileInfo
	data []byte
}

// readState reads path without blocking on a FIFO; nil when it does not exist.
func readState(path string) (*state, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file: %w", path, ErrRefused)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return &state{st, data}, nil
}

// same reports whether path still is the file s was read from, with the same bytes.
func (s *state) same(path string) bool {
	now, err := readState(path)
	return err == nil && os.SameFile(now.info, s.info) && bytes.Equal(now.data, s.data)
}

// WriteFileAtomic replaces the file at path with data. expect holds the
// bytes read before the edit; nil means the file must not exist (an empty,
// non-nil slice means it exists and is empty). When the current content
// differs, it returns an error wrapping ErrChanged and writes nothing.
//
// The data goes to a temporary file in the same directory, which is synced
// and put in place with one atomic compare-and-swap: on Linux the new file
// is exchanged with the old one (renameat2 RENAME_EXCHANGE), and the file
// taken out is checked to be the very file that was read, with the bytes
// that were read; when another program saved the file in between, the
// exchange is undone and the error wraps ErrChanged, so that save is never
// lost. A new file is created with RENAME_NOREPLACE. (Where the file system
// cannot exchange, the file is checked just before a plain rename.)
//
// The existing file's permissions and owner are kept (new files get 0644);
// a file with several hard links, or whose owner cannot be kept, is
// refused (ErrRefused). Missing parent directories are created, and a
// symlink is followed so the link itself survives. On failure the old file
// is intact and the temporary file is removed.
func WriteFileAtomic(path string, data []byte, expect []byte) (err error) {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	old, rerr := readState(target)
	switch {
	case rerr == nil:
		if expect == nil {
			return fmt.Errorf("%s: %w: it now exists", path, ErrChanged)
		}
		if !bytes.Equal(old.data, expect) {
			return fmt.Errorf("%s: %w", path, ErrChanged)
		}
		if n := links(old.info); n > 1 {
			return fmt.Errorf("%s has %d hard links; replacing it would cut them (%w: edit it by hand)", path, n, ErrRefused)
		}
	case errors.Is(rerr, fs.ErrNotExist):
		if expect != nil {
			return fmt.Errorf("%s: %w: it was removed", path, ErrChanged)
		}
	default:
		return rerr
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if old != nil {
		mode = old.info.Mode().Perm()
		if err = keepOwner(tmp, old.info); err != nil {
			return fmt.Errorf("%s: %v (%w: its owner would change)", path, err, ErrRefused)
		}
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = syncFile(tmp); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = rename(tmp.Name(), target, old); err != nil {
		if errors.Is(err, ErrChanged) {
			err = fmt.Errorf("%s: %w: another program saved it while pigo wrote it", path, err)
		}
		return err
	}
	// Make the rename durable; failure here leaves the new file in place.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
