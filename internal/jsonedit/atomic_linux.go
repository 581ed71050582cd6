package jsonedit

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// commit puts tmp at target as one compare-and-swap (see WriteFileAtomic). old is the file that
// was read, nil when target must not exist.
func commit(tmp, target string, old *state) error {
	if old == nil {
		err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_NOREPLACE)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EEXIST):
			return ErrChanged
		case !unsupported(err):
			return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
		}
		if _, err := os.Lstat(target); err == nil {
			return ErrChanged
		}
		return os.Rename(tmp, target)
	}
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		// tmp now names the file taken out: it must be the one that was read.
		if old.same(tmp) {
			return os.Remove(tmp)
		}
		if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE); err != nil {
			return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
		}
		os.Remove(tmp)
		return ErrChanged
	case errors.Is(err, unix.ENOENT):
		return ErrChanged // removed since it was read
	case !unsupported(err):
		return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
	}
	if !old.same(target) {
		return ErrChanged
	}
	return os.Rename(tmp, target)
}

func unsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)
}

// links returns the hard-link count of a file.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// keepOwner gives f the owner and group of the file it replaces, when they differ.
func keepOwner(f *os.File, was fs.FileInfo) error {
	want, ok := was.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	have := fi.Sys().(*syscall.Stat_t)
	if have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	return f.Chown(int(want.Uid), int(want.Gid))
}
