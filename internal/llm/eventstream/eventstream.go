// Package eventstream reads and writes AWS's binary event-stream framing
// (application/vnd.amazon.eventstream), the wire of Bedrock's ConverseStream: each message is a
// 12-byte prelude (total length, headers length, the prelude's CRC-32), typed headers, a payload
// and the whole message's CRC-32. Messages are bounded; a short read, a bad length or a CRC that
// does not match is an error saying which, never a silent skip.
package eventstream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
)

// Limits of one message. AWS's own bounds are 16 MiB for a message and 128 KiB of headers.
const (
	MaxMessage = 16 << 20
	MaxHeaders = 128 << 10
	prelude    = 12
	minMessage = prelude + 4
)

// Message is one decoded message: its headers (string, bool, integer and timestamp values as
// text; bytes and UUIDs as their raw bytes) and its payload.
type Message struct {
	Headers map[string]string
	Payload []byte
}

// ErrCorrupt marks a malformed stream (bad length, CRC mismatch, bad header).
var ErrCorrupt = errors.New("corrupt event stream")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Reader reads messages from a stream.
type Reader struct {
	r   *bufio.Reader
	buf []byte
	n   int // messages read
}

// NewReader reads messages from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 32<<10)} }

// Next returns the next message; io.EOF at a clean end between messages, io.ErrUnexpectedEOF
// when the stream stops inside one, an error wrapping ErrCorrupt for a malformed one.
func (r *Reader) Next() (Message, error) {
	var pre [prelude]byte
	if _, err := io.ReadFull(r.r, pre[:]); err != nil {
		if err == io.EOF {
			return Message{}, io.EOF
		}
		return Message{}, io.ErrUnexpectedEOF
	}
	total := binary.BigEndian.Uint32(pre[0:4])
	hlen := binary.BigEndian.Uint32(pre[4:8])
	if got, want := crc32.ChecksumIEEE(pre[:8]), binary.BigEndian.Uint32(pre[8:12]); got != want {
		return Message{}, corrupt("message %d: prelude CRC %08x, computed %08x", r.n+1, want, got)
	}
	if total < minMessage || total > MaxMessage {
		return Message{}, corrupt("message %d: length %d outside %d…%d bytes", r.n+1, total, minMessage, MaxMessage)
	}
	if hlen > MaxHeaders || hlen > total-minMessage {
		return Message{}, corrupt("message %d: headers length %d in a message of %d bytes", r.n+1, hlen, total)
	}
	if cap(r.buf) < int(total) {
		r.buf = make([]byte, total)
	}
	buf := r.buf[:total]
	copy(buf, pre[:])
	if _, err := io.ReadFull(r.r, buf[prelude:]); err != nil {
		return Message{}, io.ErrUnexpectedEOF
	}
	if got, want := crc32.ChecksumIEEE(buf[:total-4]), binary.BigEndian.Uint32(buf[total-4:]); got != want {
		return Message{}, corrupt("message %d: message CRC %08x, computed %08x", r.n+1, want, got)
	}
	r.n++
	hs, err := parseHeaders(buf[prelude : prelude+hlen])
	if err != nil {
		return Message{}, corrupt("message %d: %v", r.n, err)
	}
	payload := append([]byte(nil), buf[prelude+hlen:total-4]...)
	return Message{Headers: hs, Payload: payload}, nil
}

// Header value types.
const (
	typeTrue = iota
	typeFalse
	typeByte
	typeShort
	typeInt
	typeLong
	typeBytes
	typeString
	typeTimestamp
	typeUUID
)

func parseHeaders(b []byte) (map[string]string, error) {
	hs := map[string]string{}
	for len(b) > 0 {
		nl := int(b[0])
		if nl == 0 || len(b) < 1+nl+1 {
			return nil, errors.New("truncated header name")
		}
		name := string(b[1 : 1+nl])
		typ := b[1+nl]
		b = b[2+nl:]
		need := func(n int) ([]byte, error) {
			if len(b) < n {
				return nil, fmt.Errorf("truncated value of header %q", name)
			}
			v := b[:n]
			b = b[n:]
			return v, nil
		}
		var val string
		switch typ {
		case typeTrue:
			val = "true"
		case typeFalse:
			val = "false"
		case typeByte:
			v, err := need(1)
			if err != nil {
				return nil, err
			}
			val = strconv.Itoa(int(int8(v[0])))
		case typeShort:
			v, err := need(2)
			if err != nil {
				return nil, err
			}
			val = strconv.Itoa(int(int16(binary.BigEndian.Uint16(v))))
		case typeInt:
			v, err := need(4)
			if err != nil {
				return nil, err
			}
			val = strconv.Itoa(int(int32(binary.BigEndian.Uint32(v))))
		case typeLong, typeTimestamp:
			v, err := need(8)
			if err != nil {
				return nil, err
			}
			val = strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10)
		case typeBytes, typeString:
			l, err := need(2)
			if err != nil {
				return nil, err
			}
			v, err := need(int(binary.BigEndian.Uint16(l)))
			if err != nil {
				return nil, err
			}
			val = string(v)
		case typeUUID:
			v, err := need(16)
			if err != nil {
				return nil, err
			}
			val = string(v)
		default:
			return nil, fmt.Errorf("header %q has unknown type %d", name, typ)
		}
		hs[name] = val
	}
	return hs, nil
}

// Header is one string header of a message to encode.
type Header struct{ Name, Value string }

// Encode frames a message with string headers (in the order given) and a payload.
func Encode(headers []Header, payload []byte) []byte {
	var hb []byte
	for _, h := range headers {
		hb = append(hb, byte(len(h.Name)))
		hb = append(hb, h.Name...)
		hb = append(hb, typeString)
		hb = binary.BigEndian.AppendUint16(hb, uint16(len(h.Value)))
		hb = append(hb, h.Value...)
	}
	total := prelude + len(hb) + len(payload) + 4
	out := make([]byte, 0, total)
	out = binary.BigEndian.AppendUint32(out, uint32(total))
	out = binary.BigEndian.AppendUint32(out, uint32(len(hb)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[:8]))
	out = append(out, hb...)
	out = append(out, payload...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}
