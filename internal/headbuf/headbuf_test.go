package headbuf

import (
	"bytes"
	"testing"
)

// TestStderr: the first 4 KiB are kept, whatever the writes' sizes; FirstLine skips blank
// lines.
func TestStderr(t *testing.T) {
	var s Buffer
	s.Write([]byte("\n  \n  fatal error: out of memory  \nstack"))
	s.Write(bytes.Repeat([]byte("x"), 10000))
	if n, _ := s.Write([]byte("more")); n != 4 {
		t.Fatalf("Write returned %d", n)
	}
	if got := s.FirstLine(); got != "fatal error: out of memory" {
		t.Fatalf("FirstLine: %q", got)
	}
	if len(s.String()) != DefaultMax {
		t.Fatalf("kept %d bytes, want %d", len(s.String()), DefaultMax)
	}
	var empty Buffer
	if empty.FirstLine() != "" {
		t.Fatal("FirstLine of nothing")
	}
}

// TestMax: a Buffer with its own Max keeps that many bytes.
func TestMax(t *testing.T) {
	b := Buffer{Max: 5}
	b.Write([]byte("abc"))
	b.Write([]byte("defgh"))
	if b.String() != "abcde" {
		t.Fatalf("kept %q", b.String())
	}
}
