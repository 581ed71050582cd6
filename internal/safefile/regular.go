package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ReadRegular reads the file at path (links followed, as a read tool follows them) when it
// is a regular file: a FIFO, socket or device is refused before it is opened, the file is
// opened without blocking and checked again through the descriptor (a file swapped for a
// FIFO in between is refused too), and at most max bytes are read (0: no limit). A file over
// the ceiling is a *Refusal whose reason names the ceiling and what (the tool or primitive
// the ceiling belongs to, "" for a generic wording). Errors of stat and open are returned
// as they are (*os.PathError), so callers keep their own texts for a missing file.
func ReadRegular(path string, max int64, what string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, path, max, what)
}

// OpenRegular opens path for reading when it is a regular file (see [ReadRegular]); the
// caller reads and closes it.
func OpenRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Refusal{Path: path, Reason: kindOf(st.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fst, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fst.Mode().IsRegular() || !os.SameFile(st, fst) {
		f.Close()
		return nil, &Refusal{Path: path, Reason: "changed while pigo opened it; pigo does not read it"}
	}
	if err := secretRefusal(path, fst); err != nil {
		f.Close()
		return nil, err
	}
	// Reads of a regular file never block; clear the flag so the runtime does not poll.
	_ = unix.SetNonblock(int(f.Fd()), false)
	return f, nil
}

// overCeiling is the reason of a file over a read ceiling.
func overCeiling(n, max int64, what string) string {
	if what == "" {
		return fmt.Sprintf("file is too large (%s; pigo reads whole files up to %s)", Size(n), Size(max))
	}
	return fmt.Sprintf("file is too large (%s; %s reads whole files up to %s)", Size(n), what, Size(max))
}

// Size renders a byte count for a message: "512 bytes", "3.0 KiB", "64 MiB".
func Size(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d bytes", n)
	case n < k*k:
		return trimZero(float64(n)/k) + " KiB"
	case n < k*k*k:
		return trimZero(float64(n)/(k*k)) + " MiB"
	}
	return trimZero(float64(n)/(k*k*k)) + " GiB"
}

func trimZero(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// fileInfo is an os.FileInfo from a stat made through a directory handle.
type fileInfo struct {
	name string
	st   unix.Stat_t
}

func fileInfoOf(name string, st *unix.Stat_t) os.FileInfo { return &fileInfo{name: name, st: *st} }

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.st.Size }
func (fi *fileInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *fileInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *fileInfo) Sys() any           { return &fi.st }
func (fi *fileInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.st.Mode & 0o777)
	switch fi.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if fi.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if fi.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if fi.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
