// Package safefile reads configuration files that may come from an untrusted project without
// letting the file decide what pigo reads: only regular files are opened (a FIFO would block, a
// device such as /dev/zero never ends), a size limit holds even for a file that grows while it
// is read, and a file can be confined to a directory tree so that a symbolic link in a cloned
// repository cannot make pigo read (and echo in a snippet) a secret from elsewhere.
//
// The same rules hold for the file tools: [ReadRegular] is their read (regular files only,
// refused before the open when the path is a FIFO or a device, a ceiling named in the
// refusal), and [Resolve] with [Target.Write] is where their writes go: the target resolved
// component by component from directory handles (a dangling link followed to where it
// leads, so the caller judges the real destination), then written through the handle,
// atomically, so nothing swapped in after the decision can redirect the write.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Refusal is a file safefile does not read, with the reason in words.
type Refusal struct {
	Path   string
	Reason string
}

func (r *Refusal) Error() string { return r.Path + ": " + r.Reason }

// Options say what a file may be.
type Options struct {
	// Max is the largest size read, in bytes (0: no limit).
	Max int64
	// Within, when set, is a directory (its real path) the file's real path must be inside.
	Within string
	// WithinName names that directory in the reason ("the project").
	WithinName string
	// Paths, when set, memoises the resolution of Within's check for one load (see Paths).
	Paths *Paths
}

// Real returns the real path of dir (dir itself when it cannot be resolved), for Within.
func Real(dir string) string { return (*Paths)(nil).Real(dir) }

// Inside reports whether real path p is dir or below it.
func Inside(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "is a directory, not a file"
	case m&fs.ModeNamedPipe != 0:
		return "is a named pipe (FIFO), not a regular file; pigo does not read it"
	case m&fs.ModeSocket != 0:
		return "is a socket, not a regular file; pigo does not read it"
	case m&fs.ModeCharDevice != 0:
		return "is a character device, not a regular file; pigo does not read it"
	case m&fs.ModeDevice != 0:
		return "is a block device, not a regular file; pigo does not read it"
	}
	return "is not a regular file; pigo does not read it"
}

// Check returns a *Refusal when path is not a regular file allowed by o, without opening it; the
// error of os.Stat (or of resolving a link) is returned as it is.
func Check(path string, o Options) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return st, &Refusal{Path: path, Reason: kindOf(st.Mode())}
	}
	if o.Within != "" {
		real, err := o.Paths.EvalSymlinks(path)
		if err != nil {
			return st, err
		}
		if real, err = o.Paths.Abs(real); err != nil {
			return st, err
		}
		if !Inside(real, o.Within) {
			name := o.WithinName
			if name == "" {
				name = o.Within
			}
			return st, &Refusal{Path: path, Reason: fmt.Sprintf("is a symbolic link to %s, outside %s; pigo does not follow it", real, name)}
		}
	}
	if o.Max > 0 && st.Size() > o.Max {
		return st, &Refusal{Path: path, Reason: tooLarge(st.Size(), o.Max)}
	}
	return st, nil
}

func tooLarge(n, max int64) string {
	return fmt.Sprintf("file is too large (%d bytes; pigo reads config files up to %d bytes)", n, max)
}

// Read reads the file at path when Check allows it. The file is opened without blocking and
// checked again through the open descriptor, so a file swapped for a FIFO or a device between
// the check and the open is refused too.
func Read(path string, o Options) ([]byte, error) {
	st, err := Check(path, o)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fst.Mode().IsRegular() || !os.SameFile(st, fst) {
		return nil, &Refusal{Path: path, Reason: "changed while pigo opened it; pigo does not read it"}
	}
	var r io.Reader = f
	if o.Max > 0 {
		r = io.LimitReader(f, o.Max+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if o.Max > 0 && int64(len(data)) > o.Max {
		return nil, &Refusal{Path: path, Reason: tooLarge(int64(len(data)), o.Max)}
	}
	return data, nil
}
