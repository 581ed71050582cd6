package llm

import (
	"encoding/binary"
	"math/bits"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendJSStringByRune is AppendJSString as it was before it copied runs of plain text at
// once (one character at a time): the reference the faster one must equal byte for byte.
func appendJSStringByRune(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				if c < 0x20 {
					b = append(b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
				} else {
					b = append(b, c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

var jsStringSeeds = []string{"", "plain", "\"", "\\", "a\"b\\c", "line\nbreak\r\n\ttab", "\x00\x01\x1f\x7f", "\b\f",
	"é ✓ 🎉 \u2028 \u2029 <>&", "\ufffd literal", "bad \xff byte", "\xed\xa0\x80 surrogate", "cut \xe2\x9c",
	"\xc3", strings.Repeat("long plain text ", 1000) + "\"end\"", "12345678\"2345678é345678\x01", "1234567é1234567\\", "<script>\u00e9</script>"}

func TestAppendJSStringMatchesByRune(t *testing.T) {
	for _, s := range jsStringSeeds {
		if got, want := string(AppendJSString([]byte("x"), s)), string(appendJSStringByRune([]byte("x"), s)); got != want {
			t.Errorf("%q: got %q, want %q", s, got, want)
		}
	}
}

func FuzzAppendJSString(f *testing.F) {
	for _, s := range jsStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendJSString(nil, s)), string(appendJSStringByRune(nil, s)); got != want {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
	})
}

// plain8 is exactly "every byte is plain ASCII": every byte value at every place of a word of
// plain bytes, and random words (bytes drawn mostly around the edges 0x1f/0x20, '"', '\\',
// 0x7f/0x80).
func TestPlain8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	word := func(b [8]byte) uint64 { return binary.LittleEndian.Uint64(b[:]) }
	for v := range 256 {
		for at := range 8 {
			b := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
			b[at] = byte(v)
			if got := plain8(word(b)); got != plain(byte(v)) {
				t.Fatalf("byte %#x at %d: plain8 %v", v, at, got)
			}
		}
	}
	edges := []byte{0, 1, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 0x7e, 0x7f, 0x80, 0x81, 0xff, 'a'}
	r := rand.New(rand.NewSource(1))
	for range 1_000_000 {
		var b [8]byte
		want := true
		for i := range b {
			if r.Intn(2) == 0 {
				b[i] = edges[r.Intn(len(edges))]
			} else {
				b[i] = byte(r.Intn(256))
			}
			want = want && plain(b[i])
		}
		if got := plain8(word(b)); got != want {
			t.Fatalf("% x: plain8 %v", b[:], got)
		}
	}
}

// TestEscape8 and TestAppendJSStringRandom: an ASCII word's first byte to escape is the
// lowest flagged one (every byte value at every place, after plain bytes and after other
// bytes to escape), and AppendJSString, which jumps to it, writes what the character-by-
// character reference writes for a million random strings weighted towards quotes,
// backslashes, control characters and non-ASCII bytes.
func TestEscape8(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x7f, '"', '\n'} {
		for at := range 8 {
			for c := range 0x80 {
				var w [8]byte
				for k := range w {
					w[k] = 'x'
				}
				for k := at + 1; k < 8; k++ {
					w[k] = fill
				}
				w[at] = byte(c)
				want := 8
				for k, b := range w {
					if b < 0x20 || b == '"' || b == '\\' {
						want = k
						break
					}
				}
				m := escape8(binary.LittleEndian.Uint64(w[:]))
				if got := bits.TrailingZeros64(m) >> 3; got != want {
					t.Fatalf("%q: first byte to escape %d, want %d", w, got, want)
				}
			}
		}
	}
}

func TestAppendJSStringRandom(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	pick := []byte{'"', '\\', 0, 0x1f, '\n', '\t', 0x7f, 0x80, 0xc3, 0xa9, 0xe2, 0x9c, 0x93, 0xff, 0x20}
	var buf []byte
	for range 1_000_000 {
		b := make([]byte, r.Intn(40))
		for k := range b {
			if r.Intn(5) == 0 {
				b[k] = pick[r.Intn(len(pick))]
			} else {
				b[k] = byte(0x20 + r.Intn(0x5f))
			}
		}
		s := string(b)
		buf = AppendJSString(buf[:0], s)
		if want := appendJSStringByRune(nil, s); string(buf) != string(want) {
			t.Fatalf("%q: got %q, want %q", s, buf, want)
		}
	}
}
