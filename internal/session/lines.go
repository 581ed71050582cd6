package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxLineBytes bounds one line of a session file. A longer line is skipped with a warning
// naming the file and line, and is never held in memory whole: a 200 MB line (a hostile file,
// or a reply that should have been refused when it streamed) would otherwise take gigabytes
// to decode and show. Nothing pigo or pi writes in a session comes near it: pi caps tool
// output at 50 KB and resizes images, and pigo refuses a streamed reply long before.
var MaxLineBytes = 64 << 20

// A file is read into one block of its size when it is at most twice MaxLineBytes (the
// lines are then never copied), else into blocks of that size.

// line is one line of a file (its bytes without the newline and surrounding space).
type line struct {
	b []byte
	// n is the line number, from 1.
	n int
	// last: no newline follows (the file ends in the middle of a line).
	last bool
}

// lineReader reads a file's lines into blocks that become the lines' memory: a line is a
// slice of its block, never copied again, and a block is never written after its lines are
// handed out (the decoded entries point into them; see jsonread.go).
type lineReader struct {
	r    io.Reader
	path string
	// buf is the current block: buf[:n] holds data, buf[start:n] the line being read, of
	// which buf[start:scanned] has no newline.
	buf               []byte
	n, start, scanned int
	eof               bool
	lineNo            int
	remaining         int64 // bytes of the file not read yet (a hint for block sizes)
	warnings          []string
	endsInNewline     bool
	skipped           int
	// reuse: the caller keeps no line after the next call, so a full block is reused.
	reuse bool
	// chunk, when not 0, bounds one read: the lines of a large file are handed out as it is
	// read, for decoding on other cores meanwhile (Session.open).
	chunk int
}

func newLineReader(r io.Reader, path string, size int64) *lineReader {
	return &lineReader{r: r, path: path, remaining: size, endsInNewline: true}
}

// grow gives the current line room to grow: a new block that holds the line so far and as
// much of the rest of the file as a block may.
func (lr *lineReader) grow() {
	pending := lr.n - lr.start
	if lr.reuse && len(lr.buf) > 0 && pending <= len(lr.buf)/2 {
		copy(lr.buf, lr.buf[lr.start:lr.n])
		lr.n, lr.scanned, lr.start = pending, lr.scanned-lr.start, 0
		return
	}
	size := max(int64(pending)+lr.remaining+1, 4<<10)
	if limit := 2 * int64(MaxLineBytes); size > limit {
		size = limit
	}
	if lr.reuse && size > 1<<20 {
		size = 1 << 20
	}
	if size < int64(2*pending) {
		size = int64(2 * pending)
	}
	buf := make([]byte, size)
	copy(buf, lr.buf[lr.start:lr.n])
	lr.buf, lr.n, lr.scanned, lr.start = buf, pending, lr.scanned-lr.start, 0
}

func (lr *lineReader) fill() error {
	if lr.n == len(lr.buf) {
		lr.grow()
	}
	end := len(lr.buf)
	if lr.chunk > 0 {
		end = min(end, lr.n+lr.chunk)
	}
	k, err := lr.r.Read(lr.buf[lr.n:end])
	lr.n += k
	lr.remaining -= int64(k)
	if errors.Is(err, io.EOF) {
		lr.eof = true
		return nil
	}
	return err
}

// next returns the next line; ok is false at the end of the file.
func (lr *lineReader) next() (l line, ok bool, err error) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.scanned:lr.n], '\n'); i >= 0 {
			end := lr.scanned + i
			lr.lineNo++
			b := lr.buf[lr.start:end:end]
			lr.start, lr.scanned = end+1, end+1
			return line{b: b, n: lr.lineNo}, true, nil
		}
		lr.scanned = lr.n
		if lr.n-lr.start > MaxLineBytes {
			if err := lr.skipLine(); err != nil {
				return line{}, false, err
			}
			continue
		}
		if lr.eof {
			if lr.start < lr.n {
				lr.lineNo++
				b := lr.buf[lr.start:lr.n:lr.n]
				lr.start = lr.n
				lr.endsInNewline = false
				return line{b: b, n: lr.lineNo, last: true}, true, nil
			}
			return line{}, false, nil
		}
		if err := lr.fill(); err != nil {
			return line{}, false, err
		}
	}
}

// skipLine drops the line being read, which is over MaxLineBytes, reading on to its end
// through a small buffer, and keeps what follows it.
func (lr *lineReader) skipLine() error {
	lr.lineNo++
	size := int64(lr.n - lr.start)
	lr.n, lr.scanned = lr.start, lr.start
	scratch := make([]byte, 64<<10)
	for {
		k, err := lr.r.Read(scratch)
		lr.remaining -= int64(k)
		if i := bytes.IndexByte(scratch[:k], '\n'); i >= 0 {
			size += int64(i)
			rest := scratch[i+1 : k]
			if len(lr.buf)-lr.n < len(rest) {
				lr.grow()
			}
			lr.n += copy(lr.buf[lr.n:], rest)
			break
		}
		size += int64(k)
		if errors.Is(err, io.EOF) {
			lr.eof = true
			lr.endsInNewline = false
			break
		}
		if err != nil {
			return err
		}
	}
	lr.skipped++
	lr.warnings = append(lr.warnings, fmt.Sprintf("%s:%d: ignoring a line of %d bytes (longer than %d MiB; it was not loaded)", lr.path, lr.lineNo, size, MaxLineBytes>>20))
	return nil
}

// openRegular opens a file for reading without blocking on a FIFO and refuses anything but a
// regular file (a device would be read forever).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, fi, nil
}
