package jsonedit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrChanged is returned by WriteFileAtomic when the file no longer holds
// the bytes the edit was computed from (or exists when it should not).
var ErrChanged = errors.New("file changed since it was read")

// Hooks for fault-injection tests.
var (
	syncFile = (*os.File).Sync
	rename   = os.Rename
)

// WriteFileAtomic replaces the file at path with data. expect holds the
// bytes read before the edit; nil means the file must not exist (an empty,
// non-nil slice means it exists and is empty). When the current content
// differs, it returns an error wrapping ErrChanged and writes nothing.
//
// The data goes to a temporary file in the same directory, which is synced
// and renamed over the target, so readers see the old or the new file,
// never a mix. The existing file's permissions are kept (new files get
// 0644), missing parent directories are created, and a symlink is followed
// so the link itself survives. On failure the old file is intact and the
// temporary file is removed. The check for concurrent changes and the
// rename are not one atomic step; a writer racing inside that window can
// still be overwritten.
func WriteFileAtomic(path string, data []byte, expect []byte) (err error) {
	mode := fs.FileMode(0o644)
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	cur, rerr := os.ReadFile(target)
	switch {
	case rerr == nil:
		if expect == nil {
			return fmt.Errorf("%s: %w: it now exists", path, ErrChanged)
		}
		if !bytes.Equal(cur, expect) {
			return fmt.Errorf("%s: %w", path, ErrChanged)
		}
		if st, err := os.Stat(target); err == nil {
			mode = st.Mode().Perm()
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
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = syncFile(tmp); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = rename(tmp.Name(), target); err != nil {
		return err
	}
	// Make the rename durable; failure here leaves the new file in place.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
