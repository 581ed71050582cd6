package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxFrameSize bounds one message body; a larger Content-Length is a
// protocol error rather than an allocation the server controls.
const MaxFrameSize = 64 << 20

// maxHeaderLines bounds the header block of one frame.
const maxHeaderLines = 32

// ErrFrame is wrapped by every framing error.
var ErrFrame = errors.New("lsp: bad frame")

// ReadFrame reads one base-protocol message: header lines ending in CRLF,
// an empty line, then exactly Content-Length bytes of body. Content-Length
// is required; other headers (Content-Type) are accepted and ignored. It
// returns io.EOF only at a clean end of stream between frames.
func ReadFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for i := 0; ; i++ {
		if i == maxHeaderLines {
			return nil, fmt.Errorf("%w: more than %d header lines", ErrFrame, maxHeaderLines)
		}
		line, err := r.ReadSlice('\n')
		if err != nil {
			if err == io.EOF && i == 0 && len(line) == 0 {
				return nil, io.EOF
			}
			if err == bufio.ErrBufferFull {
				return nil, fmt.Errorf("%w: header line too long", ErrFrame)
			}
			if err == io.EOF {
				return nil, fmt.Errorf("%w: stream ended inside the header", ErrFrame)
			}
			return nil, err
		}
		if !bytes.HasSuffix(line, []byte("\r\n")) {
			return nil, fmt.Errorf("%w: header line %q does not end in CRLF", ErrFrame, line)
		}
		line = line[:len(line)-2]
		if len(line) == 0 {
			if i == 0 {
				return nil, fmt.Errorf("%w: empty header", ErrFrame)
			}
			break
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			return nil, fmt.Errorf("%w: malformed header line %q", ErrFrame, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: invalid Content-Length %q", ErrFrame, strings.TrimSpace(value))
			}
			if n > MaxFrameSize {
				return nil, fmt.Errorf("%w: Content-Length %d exceeds the limit of %d bytes", ErrFrame, n, MaxFrameSize)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: missing Content-Length", ErrFrame)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: stream ended inside a %d-byte body", ErrFrame, length)
		}
		return nil, err
	}
	return body, nil
}

// WriteFrame writes body as one base-protocol message in a single Write.
func WriteFrame(w io.Writer, body []byte) error {
	buf := make([]byte, 0, len(body)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, body...)
	_, err := w.Write(buf)
	return err
}
