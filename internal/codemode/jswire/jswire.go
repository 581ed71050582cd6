// Package jswire is the protocol between codemode (in pigo) and its QuickJS VM (the
// pigo-engines helper's `js` engine, internal/codemode/jsvm). Both sides import it; it links
// nothing heavy.
//
// A message is one JSON header line, then the message's strings as raw bytes, as many as the
// header's "n" counts (a length of -1 is an absent string: JavaScript's undefined). Strings are
// not escaped into the line: a script's output, a tool's answer or a returned value can be tens
// of megabytes, which JSON escaping would copy and grow up to six times; counted, each costs
// its own size and each is bounded before it is read.
//
// pigo → helper:
//
//	start   {discover, cpu}     code, tools (JSON), store (JSON); the first message
//	settle  {id, ok}            payload: a call's or a sleep's answer
//
// helper → pigo:
//
//	ready   {}                  the VM and the prelude are set up: the script starts now
//	call    {id}                name, args (JSON, or absent): run a tool for the script
//	out     {kind: text|image}  text, or data and MIME type: one output item
//	done    {ok}                payload, writes: the script finished (the prelude's done)
//	error   {kind}              name, message, stack: the run failed (a script or engine error)
//
// After done or error the helper exits; pigo kills it when the run is aborted or times out.
package jswire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// MaxOutput caps the bytes of text and images a script may output: past it, text() and
// image() throw in the script; pigo holds the output, outside the VM's heap.
const MaxOutput = 32 << 20

// MemoryLimit caps the VM's heap: an allocation loop ends as `InternalError: out of memory`
// inside the script.
const MemoryLimit = 64 << 20

// MaxHeader bounds a header line: it holds the type, numbers and lengths only.
const MaxHeader = 4 << 10

// MaxString bounds one string pigo reads from the helper. The VM's heap is 64 MiB, and a
// string it holds takes at least a byte a character (Latin-1) or two (UTF-16), which is at
// most three bytes of UTF-8: no honest string is longer than 96 MiB.
const MaxString = 128 << 20

// Message is one message.
type Message struct {
	T        string `json:"t"`
	ID       int    `json:"id,omitempty"`
	OK       bool   `json:"ok,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Discover bool   `json:"discover,omitempty"`
	// CPUms is the helper's CPU limit in milliseconds (start; 0: none).
	CPUms int64 `json:"cpu,omitempty"`
	// Mem is the helper's address-space limit beyond its start, in bytes (start; 0: the
	// engine's default). Tests set it low.
	Mem uint64 `json:"mem,omitempty"`
	N   []int  `json:"n,omitempty"`
	// S are the strings that follow the header; nil is absent.
	S []*string `json:"-"`
}

// Str returns S[i], "" when absent.
func (m *Message) Str(i int) string {
	if i < len(m.S) && m.S[i] != nil {
		return *m.S[i]
	}
	return ""
}

// Opt returns S[i] or nil.
func (m *Message) Opt(i int) *string {
	if i < len(m.S) {
		return m.S[i]
	}
	return nil
}

// Ptr is &s.
func Ptr(s string) *string { return &s }

// Write writes m to w (a buffered writer is flushed by the caller).
func Write(w io.Writer, m *Message) error {
	m.N = m.N[:0]
	for _, s := range m.S {
		if s == nil {
			m.N = append(m.N, -1)
		} else {
			m.N = append(m.N, len(*s))
		}
	}
	h, err := json.Marshal(m)
	if err != nil {
		return err
	}
	h = append(h, '\n')
	if _, err := w.Write(h); err != nil {
		return err
	}
	for _, s := range m.S {
		if s != nil && len(*s) > 0 {
			if _, err := io.WriteString(w, *s); err != nil {
				return err
			}
		}
	}
	return nil
}

// ErrProtocol marks a message that breaks the protocol (a header too long or not JSON, a
// string over the bound).
var ErrProtocol = errors.New("protocol error")

// Read reads one message; its strings are at most maxString bytes in all, the header MaxHeader.
// io.EOF means the other side ended between messages.
func Read(r *bufio.Reader, maxString int) (*Message, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) || len(line) >= MaxHeader {
			return nil, fmt.Errorf("%w: a header line longer than %d bytes", ErrProtocol, MaxHeader)
		}
		if err == io.EOF && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(line) > MaxHeader {
		return nil, fmt.Errorf("%w: a header line longer than %d bytes", ErrProtocol, MaxHeader)
	}
	m := &Message{}
	if err := json.Unmarshal(line, m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	if len(m.N) > 8 {
		return nil, fmt.Errorf("%w: %d strings in one message", ErrProtocol, len(m.N))
	}
	m.S = make([]*string, len(m.N))
	total := 0
	for i, n := range m.N {
		switch {
		case n == -1:
			continue
		case n < 0 || n > maxString:
			return nil, fmt.Errorf("%w: a string of %d bytes (at most %d)", ErrProtocol, n, maxString)
		case n > maxString-total:
			// The bound is the message's, not each string's: 8 strings of maxString each
			// would otherwise be 8 times what any VM heap can hold.
			return nil, fmt.Errorf("%w: strings of %d bytes in one message (at most %d)", ErrProtocol, total+n, maxString)
		}
		total += n
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		s := ""
		if n > 0 {
			s = unsafe.String(&b[0], n) // b is not kept: the string is its only reference
		}
		m.S[i] = &s
	}
	return m, nil
}

// NewReader is a reader whose buffer holds a whole header line.
func NewReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, MaxHeader+1) }
