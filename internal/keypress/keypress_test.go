package keypress

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Read takes one byte at a time (nothing after the answer is consumed) and reports the end of
// input; Raw does nothing on a reader that is not a terminal.
func TestRead(t *testing.T) {
	r := strings.NewReader("ab")
	defer Raw(r)()
	if k, ok := Read(r); !ok || k != 'a' {
		t.Fatalf("first key %q %v", k, ok)
	}
	if r.Len() != 1 {
		t.Fatalf("read ahead: %d bytes left", r.Len())
	}
	if k, ok := Read(r); !ok || k != 'b' {
		t.Fatalf("second key %q %v", k, ok)
	}
	if _, ok := Read(r); ok {
		t.Fatal("end of input read as a key")
	}
	if _, ok := Read(iotest.ErrReader(io.ErrUnexpectedEOF)); ok {
		t.Fatal("an error read as a key")
	}
}
