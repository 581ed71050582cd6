package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// ReadExisting reads the file a Target resolved to, through the directory handle and
// without following a link (a link swapped in since Resolve is refused, never read
// through): only a regular file is read (a FIFO or a device is refused before any byte),
// and at most max bytes (0: no limit) — a file over the ceiling is a *Refusal naming it.
// A file that is gone since Resolve gives fs.ErrNotExist.
func (t *Target) ReadExisting(max int64) ([]byte, error) {
	if len(t.missing) > 0 || t.dir < 0 {
		return nil, &os.PathError{Op: "open", Path: t.Real, Err: fs.ErrNotExist}
	}
	fd, err := unix.Openat(t.dir, t.Name(), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, &Refusal{Path: t.Real, Reason: "was replaced by a symbolic link; pigo does not follow it"}
		}
		return nil, &os.PathError{Op: "open", Path: t.Real, Err: err}
	}
	f := os.NewFile(uintptr(fd), t.Real)
	defer f.Close()
	return readRegular(f, t.Real, max, "")
}

// ReadAll reads f, opened by [OpenRegular], at most max bytes (0: no limit); what names the
// ceiling's owner in the refusal.
func ReadAll(f *os.File, path string, max int64, what string) ([]byte, error) {
	return readRegular(f, path, max, what)
}

// readRegular reads an open file after checking through the descriptor that it is a regular
// file, at most max bytes (0: no limit); what names the ceiling in the refusal ("" for the
// generic wording).
func readRegular(f *os.File, path string, max int64, what string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Refusal{Path: path, Reason: kindOf(st.Mode())}
	}
	if max > 0 && st.Size() > max {
		return nil, &Refusal{Path: path, Reason: overCeiling(st.Size(), max, what)}
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	size := st.Size()
	if max > 0 && size > max {
		size = max
	}
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if max > 0 && int64(len(buf)) > max {
		return nil, &Refusal{Path: path, Reason: overCeiling(int64(len(buf)), max, what)}
	}
	return buf, nil
}

// WriteOptions say how [Target.Write] creates what is missing.
type WriteOptions struct {
	// Mkdir creates missing parent directories (0777 less the umask); without it a missing
	// parent is ENOENT.
	Mkdir bool
}

// Write replaces the file a Target resolved to with data, atomically: the bytes go to a new
// file in the same directory (reached through the directory handle, never by path), which
// then takes the file's name with renameat. An existing file keeps its permission bits (and
// its owner where pigo may set it). Missing directories are created one by one with mkdirat
// and opened without following links, so a link put in place of one since Resolve makes the
// write fail instead of following it; a link put in place of the file itself is replaced,
// not written through.
//
// When the directory does not let pigo create a file but the existing file may be written
// (a read-only directory holding a writable file), the file is rewritten in place instead,
// opened without following a link and only when it is a regular file.
func (t *Target) Write(data []byte, o WriteOptions) error {
	return t.write(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, o, data)
}

// WriteStream is [Target.Write] with the content produced by fill (a download): when fill
// fails, the file is left as it was and fill's error is returned.
func (t *Target) WriteStream(fill func(w io.Writer) error, o WriteOptions) error {
	return t.write(fill, o, nil)
}

// write is Write and WriteStream: data, when not nil, is the content fill writes (the
// in-place fallback needs it again).
func (t *Target) write(fill func(w io.Writer) error, o WriteOptions, data []byte) error {
	if t.dir < 0 {
		return &os.PathError{Op: "open", Path: t.Real, Err: unix.EBADF}
	}
	if t.Exists && t.Info != nil && t.Info.IsDir() {
		return &os.PathError{Op: "open", Path: t.Real, Err: unix.EISDIR}
	}
	dir, dirPath := t.dir, t.dirPath
	if n := len(t.missing); n > 1 {
		if !o.Mkdir {
			return &os.PathError{Op: "open", Path: t.Real, Err: unix.ENOENT}
		}
		for _, name := range t.missing[:n-1] {
			next := filepath.Join(dirPath, name)
			if err := unix.Mkdirat(dir, name, 0o777); err != nil && !errors.Is(err, unix.EEXIST) {
				return &os.PathError{Op: "mkdir", Path: next, Err: err}
			}
			h, err := unix.Openat(dir, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return &os.PathError{Op: "mkdir", Path: next, Err: err}
			}
			if dir != t.dir {
				unix.Close(dir)
			}
			dir, dirPath = h, next
		}
		// The handle now names the file's directory: later writes through t need no mkdir.
		unix.Close(t.dir)
		t.dir, t.dirPath, t.missing = dir, dirPath, t.missing[n-1:]
	}
	name := t.Name()
	perm := uint32(0o666)
	uid, gid := -1, -1
	if t.Exists && t.Info != nil {
		perm = uint32(t.Info.Mode().Perm())
		if st, ok := t.Info.Sys().(*unix.Stat_t); ok {
			uid, gid = int(st.Uid), int(st.Gid)
		}
	}
	tmp := tempName(name)
	fd, err := unix.Openat(t.dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		if t.Exists && data != nil && (errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) {
			return t.writeInPlace(data)
		}
		return &os.PathError{Op: "open", Path: t.Real, Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(t.dirPath, tmp))
	cleanup := func(e error) error {
		f.Close()
		_ = unix.Unlinkat(t.dir, tmp, 0)
		return e
	}
	if err := fill(f); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return cleanup(&os.PathError{Op: "write", Path: t.Real, Err: pe.Err})
		}
		return cleanup(err)
	}
	if t.Exists {
		_ = f.Chmod(os.FileMode(perm)) // the umask took bits away on creation
		if uid >= 0 && (uid != os.Getuid() || gid != os.Getgid()) {
			_ = f.Chown(uid, gid) // only where pigo may (root, or its own group)
		}
	}
	if err := f.Sync(); err != nil {
		return cleanup(&os.PathError{Op: "write", Path: t.Real, Err: unwrapPathErr(err)})
	}
	if err := f.Close(); err != nil {
		_ = unix.Unlinkat(t.dir, tmp, 0)
		return &os.PathError{Op: "write", Path: t.Real, Err: unwrapPathErr(err)}
	}
	replaced := holdReplaced(t.dir, name)
	if err := unix.Renameat(t.dir, tmp, t.dir, name); err != nil {
		_ = unix.Unlinkat(t.dir, tmp, 0)
		if replaced >= 0 {
			unix.Close(replaced)
		}
		return &os.PathError{Op: "rename", Path: t.Real, Err: err}
	}
	if replaced >= 0 {
		releaseReplaced(replaced)
	}
	t.Exists = true
	t.Info, _ = statAt(t.dir, name, t.Real)
	return nil
}

// holdReplaced opens the file that a rename to name in dir is about to replace (O_PATH, no
// link followed: nothing of it is read and no permission is needed), -1 when there is none.
// The rename then only unlinks it: the kernel frees the last link's inode, its pages and its
// blocks when the last reference goes, and that is the descriptor, which releaseReplaced
// hands to a goroutine. On ext4 with `discard` (this machine's disk) that free took
// 0.2–0.45 ms inside the rename, on the edit's path before the model's next request
// (docs/decisions/25-speed.md, D25.51).
func holdReplaced(dir int, name string) int {
	fd, err := unix.Openat(dir, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// releaseReplaced closes the descriptor of a replaced file off the caller's path (a variable
// for the test that checks what it is given).
var releaseReplaced = func(fd int) { go unix.Close(fd) }

// writeInPlace truncates and rewrites the existing regular file (no link followed).
func (t *Target) writeInPlace(data []byte) error {
	fd, err := unix.Openat(t.dir, t.Name(), unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: t.Real, Err: err}
	}
	f := os.NewFile(uintptr(fd), t.Real)
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &Refusal{Path: t.Real, Reason: kindOf(st.Mode())}
	}
	if err := f.Truncate(0); err != nil {
		return &os.PathError{Op: "write", Path: t.Real, Err: unwrapPathErr(err)}
	}
	if _, err := f.Write(data); err != nil {
		return &os.PathError{Op: "write", Path: t.Real, Err: unwrapPathErr(err)}
	}
	return nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// tempName is a hidden name beside name that no other writer picks.
func tempName(name string) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "." + name + ".pigo-" + time.Now().Format("150405.000000000")
	}
	if len(name) > 200 {
		name = name[:200]
	}
	return "." + name + ".pigo-" + hex.EncodeToString(b[:])
}
