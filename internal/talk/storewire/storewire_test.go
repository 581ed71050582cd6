package storewire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestRoundTrip: every byte string comes back as it went, invalid UTF-8 and empty ones included
// (JSON would have turned a stray byte into U+FFFD).
func TestRoundTrip(t *testing.T) {
	items := [][]byte{[]byte("put"), {}, []byte("\xff\xfe not utf-8 \x00"), bytes.Repeat([]byte("x"), 70000)}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := Write(w, items...); err != nil {
		t.Fatal(err)
	}
	if err := WriteStrings(w, "ok"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(&buf)
	got, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(items) {
		t.Fatalf("%d items, want %d", len(got), len(items))
	}
	for i := range items {
		if !bytes.Equal(got[i], items[i]) {
			t.Errorf("item %d: %q, want %q", i, got[i], items[i])
		}
	}
	if got, err := Read(r); err != nil || len(got) != 1 || string(got[0]) != "ok" {
		t.Fatalf("second frame: %q, %v", got, err)
	}
	if _, err := Read(r); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

// TestBounds: a frame that claims more than the limits is refused before anything of its
// claimed size is allocated, and a frame cut short is io.ErrUnexpectedEOF, not a clean end.
func TestBounds(t *testing.T) {
	huge := []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f} // one string of ~2^56 bytes
	if _, err := Read(bufio.NewReader(bytes.NewReader(huge))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a string of 2^56 bytes: %v, want ErrTooLarge", err)
	}
	many := []byte{0xff, 0xff, 0xff, 0x7f} // ~2^28 strings
	if _, err := Read(bufio.NewReader(bytes.NewReader(many))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2^28 strings: %v, want ErrTooLarge", err)
	}
	old := MaxFrame
	MaxFrame = 10
	defer func() { MaxFrame = old }()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := WriteStrings(w, "123456", "789012"); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bufio.NewReader(&buf)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("12 bytes with MaxFrame 10: %v, want ErrTooLarge", err)
	}
	for _, cut := range [][]byte{{2, 3, 'a'}, {2, 1, 'a'}, {1}} {
		if _, err := Read(bufio.NewReader(bytes.NewReader(cut))); err != io.ErrUnexpectedEOF {
			t.Errorf("%v: %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
}
