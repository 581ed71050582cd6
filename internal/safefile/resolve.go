package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks is how many symbolic links one resolution follows before it gives up with ELOOP,
// as the kernel does (MAXSYMLINKS).
const maxLinks = 40

// Target is a write target resolved component by component from directory handles: Real is
// where a write really lands (no symbolic link, "." or ".." left in it), and the handle of
// the deepest existing directory on its way stays open, so a write made through the Target
// goes where Real says even when a component of the path is swapped for a link afterwards.
// A dangling link is followed to where it would lead, so a file about to be created through
// it is judged by its real destination.
//
// Close releases the handle.
type Target struct {
	// Path is the path as asked for (absolute, cleaned).
	Path string
	// Real is the resolved path.
	Real string
	// Exists says the final component exists (Info describes it, without following it: it is
	// never a link).
	Exists bool
	Info   os.FileInfo

	dir     int      // O_PATH handle of the deepest existing directory on Real's way
	dirPath string   // its real path
	missing []string // components below dir that do not exist (the last is the file's name)
}

// Close releases the directory handle.
func (t *Target) Close() error {
	if t == nil || t.dir < 0 {
		return nil
	}
	err := unix.Close(t.dir)
	t.dir = -1
	return err
}

// Dir is the real path of the directory the file is (or will be) in.
func (t *Target) Dir() string { return filepath.Dir(t.Real) }

// Name is the file's name in that directory.
func (t *Target) Name() string { return filepath.Base(t.Real) }

// Resolve resolves the absolute path p as the kernel would for an open that creates the
// file, one component at a time with O_PATH|O_NOFOLLOW handles: each symbolic link is read
// and followed by hand (at most 40), a missing component ends the walk (what follows it does
// not exist either), and a dangling link's text is followed like any other, so Real names
// the file the write would create. A component that is not a directory in the middle of the
// path gives ENOTDIR, as open would.
func Resolve(p string) (*Target, error) {
	if !filepath.IsAbs(p) {
		return nil, &os.PathError{Op: "resolve", Path: p, Err: unix.EINVAL}
	}
	t := &Target{Path: filepath.Clean(p), dir: -1}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: "/", Err: err}
	}
	cur := "/"
	todo := splitPath(t.Path)
	links := 0
	fail := func(op, at string, e error) (*Target, error) {
		unix.Close(fd)
		return nil, &os.PathError{Op: op, Path: at, Err: e}
	}
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if cur == "/" {
				continue
			}
			up, err := unix.Openat(fd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return fail("open", filepath.Dir(cur), err)
			}
			unix.Close(fd)
			fd, cur = up, filepath.Dir(cur)
			continue
		}
		at := filepath.Join(cur, name)
		h, err := unix.Openat(fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			for _, rest := range todo {
				if rest == ".." { // "missing/.." needs missing to exist
					return fail("open", at, unix.ENOENT)
				}
			}
			t.missing = append([]string{name}, nonEmpty(todo)...)
			t.dir, t.dirPath = fd, cur
			t.Real = filepath.Join(append([]string{cur}, t.missing...)...)
			return t, nil
		}
		if err != nil {
			return fail("open", at, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(h, &st); err != nil {
			unix.Close(h)
			return fail("stat", at, err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			links++
			if links > maxLinks {
				unix.Close(h)
				return fail("open", t.Path, unix.ELOOP)
			}
			text, err := readlinkFd(h)
			unix.Close(h)
			if err != nil {
				return fail("readlink", at, err)
			}
			if text == "" {
				return fail("open", at, unix.ENOENT)
			}
			if strings.HasPrefix(text, "/") {
				root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					return fail("open", "/", err)
				}
				unix.Close(fd)
				fd, cur = root, "/"
			}
			todo = append(splitPath(text), todo...)
		case unix.S_IFDIR:
			unix.Close(fd)
			fd, cur = h, at
		default:
			if len(nonEmpty(todo)) > 0 {
				unix.Close(h)
				return fail("open", at, unix.ENOTDIR)
			}
			unix.Close(h)
			t.dir, t.dirPath = fd, cur
			t.Real = at
			t.Exists = true
			t.Info, err = statAt(fd, name, at)
			if err != nil {
				return fail("stat", at, err)
			}
			return t, nil
		}
	}
	// The path names a directory (or "/"): its parent is the directory handle.
	t.Real = cur
	t.Exists = true
	if cur == "/" {
		t.dir, t.dirPath = fd, "/"
		t.Info, err = os.Lstat("/")
		return t, err
	}
	up, err := unix.Openat(fd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	unix.Close(fd)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: filepath.Dir(cur), Err: err}
	}
	t.dir, t.dirPath = up, filepath.Dir(cur)
	t.Info, err = statAt(up, filepath.Base(cur), cur)
	if err != nil {
		unix.Close(up)
		return nil, err
	}
	return t, nil
}

// ResolvePath is the real path a write to p would land on (see [Resolve]); a path that
// cannot be resolved is returned cleaned.
func ResolvePath(p string) string {
	t, err := Resolve(p)
	if err != nil {
		return filepath.Clean(p)
	}
	t.Close()
	return t.Real
}

func splitPath(p string) []string { return strings.Split(p, "/") }

func nonEmpty(xs []string) []string {
	out := xs[:0:0]
	for _, x := range xs {
		if x != "" && x != "." {
			out = append(out, x)
		}
	}
	return out
}

// readlinkFd reads the text of the link an O_PATH|O_NOFOLLOW handle refers to.
func readlinkFd(h int) (string, error) {
	for size := 256; ; size *= 2 {
		b := make([]byte, size)
		n, err := unix.Readlinkat(h, "", b)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(b[:n]), nil
		}
		if size > 1<<16 {
			return "", unix.ENAMETOOLONG
		}
	}
}

// statAt describes dir/name without following it.
func statAt(dir int, name, full string) (os.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &os.PathError{Op: "stat", Path: full, Err: err}
	}
	return fileInfoOf(filepath.Base(full), &st), nil
}
