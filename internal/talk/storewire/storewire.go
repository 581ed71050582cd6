// Package storewire is the protocol between talk's store (internal/talk, in pigo) and its SQLite
// server (internal/talk/sqlstore, in the pigo-engines helper): frames of byte strings on the
// helper's stdin and stdout. A frame is a count and that many strings, each a length and its
// bytes (uvarints), so values travel exactly as SQLite holds them, whatever their bytes.
//
// A request is the operation's name and its arguments; an answer is "ok" and the results, or
// "err" and the message. The server's first frame, before any request, is the answer to opening
// the file.
package storewire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The operations (Store's methods).
const (
	OpKeys     = "keys"   // namespace → keys
	OpValues   = "values" // namespace → key, value, key, value…
	OpGet      = "get"    // namespace, key → value, or nothing when absent
	OpPut      = "put"    // namespace, key, value
	OpDelete   = "del"    // namespace, key → "1" when it existed, else "0"
	OpHas      = "has"    // namespace → "1" or "0"
	OpDropNS   = "dropns" // namespace
	OpAppend   = "append" // log name, line
	OpLog      = "log"    // log name → lines
	StatusOK   = "ok"
	StatusFail = "err"
)

// MaxFrame bounds a frame's bytes (the strings and their lengths): an answer larger than this —
// a namespace or a log grown beyond any real mailbox, or a hostile file — is an error, never an
// allocation of its claimed size. MaxItems bounds a frame's count the same way.
var (
	MaxFrame = 256 << 20
	MaxItems = 1 << 20
)

// ErrTooLarge is a frame beyond MaxFrame or MaxItems.
var ErrTooLarge = errors.New("frame beyond the store protocol's limit")

// Write writes one frame.
func Write(w *bufio.Writer, items ...[]byte) error {
	var n [binary.MaxVarintLen64]byte
	if _, err := w.Write(n[:binary.PutUvarint(n[:], uint64(len(items)))]); err != nil {
		return err
	}
	for _, it := range items {
		if _, err := w.Write(n[:binary.PutUvarint(n[:], uint64(len(it)))]); err != nil {
			return err
		}
		if _, err := w.Write(it); err != nil {
			return err
		}
	}
	return w.Flush()
}

// WriteStrings writes one frame of strings.
func WriteStrings(w *bufio.Writer, items ...string) error {
	b := make([][]byte, len(items))
	for i, s := range items {
		b[i] = []byte(s)
	}
	return Write(w, b...)
}

// Read reads one frame. io.EOF: the stream ended cleanly before a frame; a frame cut short is
// io.ErrUnexpectedEOF.
func Read(r *bufio.Reader) ([][]byte, error) {
	count, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if count > uint64(MaxItems) {
		return nil, fmt.Errorf("%w (%d strings)", ErrTooLarge, count)
	}
	items := make([][]byte, 0, count)
	total := 0
	for range count {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, unexpected(err)
		}
		if n > uint64(MaxFrame-total) {
			return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, uint64(total)+n)
		}
		total += int(n)
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, unexpected(err)
		}
		items = append(items, b)
	}
	return items, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
