package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	bodies := []string{`{"a":1}`, ``, `{"text":"é\r\n"}`}
	for _, b := range bodies {
		if err := WriteFrame(&buf, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.HasPrefix(buf.String(), "Content-Length: 7\r\n\r\n{\"a\":1}") {
		t.Errorf("wire form: %q", buf.String())
	}
	r := bufio.NewReader(&buf)
	for _, want := range bodies {
		got, err := ReadFrame(r)
		if err != nil || string(got) != want {
			t.Fatalf("ReadFrame = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := ReadFrame(r); err != io.EOF {
		t.Fatalf("at end: %v, want io.EOF", err)
	}
}

func TestReadFrameErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Content-Length: 9\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"a\":", "stream ended inside a 9-byte body"},
		{"Content-Length: abc\r\n\r\n", `invalid Content-Length "abc"`},
		{"Content-Length: -1\r\n\r\n", `invalid Content-Length "-1"`},
		{"Content-Length: 99999999999\r\n\r\n", "exceeds the limit"},
		{"Content-Type: x\r\n\r\n{}", "missing Content-Length"},
		{"Content-Length: 2\n\n{}", "does not end in CRLF"},
		{"\r\n", "empty header"},
		{"garbage\r\n\r\n", `malformed header line "garbage"`},
		{"Content-Length: 2\r\n", "stream ended inside the header"},
		{strings.Repeat("X-A: b\r\n", 40), "more than 32 header lines"},
		{"X: " + strings.Repeat("a", 70000) + "\r\n", "header line too long"},
	}
	for _, tt := range tests {
		_, err := ReadFrame(bufio.NewReader(strings.NewReader(tt.in)))
		if err == nil || !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadFrame(%.40q) = %v, want ErrFrame containing %q", tt.in, err, tt.want)
		}
	}
	// Header names are case-insensitive.
	got, err := ReadFrame(bufio.NewReader(strings.NewReader("content-length:2\r\n\r\n{}")))
	if err != nil || string(got) != "{}" {
		t.Errorf("lower-case header: %q, %v", got, err)
	}
}

// FuzzReadFrame: the reader never panics, never returns a body larger than
// the limit, and what it reads re-frames to an equal body.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 5\r\nContent-Type: x\r\n\r\n{\"a\":"))
	f.Add([]byte("Content-Length: abc\r\n\r\n"))
	f.Add([]byte("Content-Length: 0\r\n\r\nContent-Length: 1\r\n\r\nx"))
	f.Add([]byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 64)
		for i := 0; i < 8; i++ {
			body, err := ReadFrame(r)
			if err != nil {
				return
			}
			if len(body) > MaxFrameSize {
				t.Fatalf("body of %d bytes", len(body))
			}
			var buf bytes.Buffer
			_ = WriteFrame(&buf, body)
			again, err := ReadFrame(bufio.NewReader(&buf))
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("re-framing %q: %q, %v", body, again, err)
			}
		}
	})
}
