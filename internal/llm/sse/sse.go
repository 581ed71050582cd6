// Package sse reads Server-Sent Events (the WHATWG event-stream format) as the LLM providers
// stream them: "data:", "event:", "id:" and "retry:" fields, ":" comments, LF, CRLF or lone CR
// line ends, and chunk boundaries anywhere (a CRLF split across two reads is one line end).
// Lines and events are bounded (MaxLine, MaxEvent), so a hostile stream cannot make the reader
// buffer without limit.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"
)

// Event is one dispatched event. Data is the data lines joined by "\n"; Event is "" when the
// stream gave no event field.
type Event struct {
	Event string
	Data  string
	ID    string
	// Retry is the last "retry:" value in milliseconds, -1 when none was given.
	Retry int
}

// Default limits.
const (
	DefaultMaxLine  = 8 << 20
	DefaultMaxEvent = 32 << 20
)

// ErrTooLong reports a line or an event over the reader's limit.
var ErrTooLong = errors.New("sse: line or event too long")

// Reader reads events from an event stream.
type Reader struct {
	r        io.Reader
	buf      []byte
	start    int
	end      int
	skipLF   bool // the previous line ended with CR: a leading LF belongs to it
	err      error
	offset   int64 // bytes consumed, for error positions
	MaxLine  int
	MaxEvent int
	// FlushAtEOF dispatches an event whose blank line never came when the stream ends (pi's
	// own anthropic reader does; the OpenAI SDK drops it).
	FlushAtEOF bool
	// Borrow makes the Data of an event of one data line a view of the reader's buffer, valid
	// until the next call of Next, instead of a copy: the caller copies what it keeps. A long
	// reply's events were a fresh string each, as many bytes as the stream (D25.24).
	Borrow bool

	event, id []byte
	// The data of an event: its first line as the string it will be dispatched as (nearly every
	// event has one data line, copied once), then data holds the lines joined when more come.
	first string
	data  []byte
	// borrowed: first is a view of buf (Borrow), to be copied before buf is written again.
	borrowed bool
	lines    int
	hasData  bool
	retry    int
}

// readSize is the first size of the read buffer: a long reply arrives in reads of up to this
// much (4 KiB made a 100 MB stream 25,000 reads through net/http's body reader).
const readSize = 64 << 10

// NewReader returns a Reader on r with the default limits.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, readSize), MaxLine: DefaultMaxLine, MaxEvent: DefaultMaxEvent, retry: -1}
}

// line returns the next line without its terminator. At the end of the stream a last
// unterminated line is returned, then io.EOF (or the read error).
func (r *Reader) line() ([]byte, error) {
	scanned := 0 // bytes after r.start known to hold no line end
	for {
		if r.skipLF && r.start < r.end {
			if r.buf[r.start] == '\n' {
				r.start++
				r.offset++
			}
			r.skipLF = false
		}
		if !r.skipLF {
			if i := lineEnd(r.buf[r.start+scanned : r.end]); i >= 0 {
				j := r.start + scanned + i
				ln := r.buf[r.start:j]
				if len(ln) > r.MaxLine {
					return nil, fmt.Errorf("%w: the line at byte %d is over %d bytes", ErrTooLong, r.offset, r.MaxLine)
				}
				r.skipLF = r.buf[j] == '\r'
				r.offset += int64(j + 1 - r.start)
				r.start = j + 1
				return ln, nil
			}
			scanned = r.end - r.start
		}
		if r.err != nil {
			r.skipLF = false
			if r.start < r.end {
				ln := r.buf[r.start:r.end]
				r.offset += int64(r.end - r.start)
				r.start = r.end
				return ln, nil
			}
			return nil, r.err
		}
		if r.end-r.start > r.MaxLine {
			return nil, fmt.Errorf("%w: the line at byte %d is over %d bytes", ErrTooLong, r.offset, r.MaxLine)
		}
		if r.borrowed {
			// The event's first data line is in the bytes about to move or be replaced.
			r.first, r.borrowed = strings.Clone(r.first), false
		}
		if r.start > 0 {
			r.end = copy(r.buf, r.buf[r.start:r.end])
			r.start = 0
		}
		if r.end == len(r.buf) {
			nb := make([]byte, 2*len(r.buf))
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.err = err
		}
	}
}

// Next returns the next event, io.EOF at the end of the stream, or the read error.
func (r *Reader) Next() (Event, error) {
	for {
		ln, err := r.line()
		if err != nil {
			if r.FlushAtEOF && (r.hasData || len(r.event) > 0) {
				return r.dispatch(), nil
			}
			return Event{}, err
		}
		if len(ln) == 0 {
			if !r.hasData && len(r.event) == 0 {
				continue
			}
			return r.dispatch(), nil
		}
		if ln[0] == ':' {
			continue
		}
		field, value := ln, []byte(nil)
		if i := bytes.IndexByte(ln, ':'); i >= 0 {
			field, value = ln[:i], ln[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			switch r.lines {
			case 0:
				if r.Borrow && len(value) > 0 {
					r.first, r.borrowed = unsafe.String(&value[0], len(value)), true
				} else {
					r.first = string(value)
				}
			case 1:
				r.data = append(append(append(r.data[:0], r.first...), '\n'), value...)
			default:
				r.data = append(append(r.data, '\n'), value...)
			}
			r.lines++
			r.hasData = true
			if len(r.first) > r.MaxEvent || len(r.data) > r.MaxEvent {
				return Event{}, fmt.Errorf("%w: an event ending after byte %d is over %d bytes", ErrTooLong, r.offset, r.MaxEvent)
			}
		case "event":
			r.event = append(r.event[:0], value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.id = append(r.id[:0], value...)
			}
		case "retry":
			n, ok := 0, len(value) > 0
			for _, c := range value {
				if c < '0' || c > '9' || n > 1<<30 {
					ok = false
					break
				}
				n = n*10 + int(c-'0')
			}
			if ok {
				r.retry = n
			}
		}
	}
}

func (r *Reader) dispatch() Event {
	data := r.first
	if r.lines > 1 {
		data = string(r.data)
	}
	ev := Event{Event: string(r.event), Data: data, ID: string(r.id), Retry: r.retry}
	r.event, r.first, r.data, r.lines, r.hasData, r.borrowed = r.event[:0], "", r.data[:0], 0, false, false
	return ev
}

// lineEnd is the index of the first CR or LF in b, -1 when none: two vectorised byte searches
// (bytes.IndexAny tests a byte at a time).
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}
