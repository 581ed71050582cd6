// Package keypress reads single keys from a terminal for the questions asked before a UI owns
// it (trust a project folder, a session whose folder is gone): raw mode without echo, one byte
// at a time so that nothing after the answer is consumed.
package keypress

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Raw switches a terminal on r to single-key input without echo and returns what restores
// it; for anything else (a pipe, a test) it does nothing.
func Raw(r io.Reader) func() {
	f, ok := r.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if unix.IoctlSetTermios(fd, unix.TCSETS, &raw) != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }
}

// Read reads one key (byte) from r; ok is false at the end of input or on an error.
func Read(r io.Reader) (key byte, ok bool) {
	for {
		var buf [1]byte
		n, err := r.Read(buf[:])
		if n == 1 {
			return buf[0], true
		}
		if err != nil {
			return 0, false
		}
	}
}
