package jsonesc

import (
	"encoding/json"
	"testing"
)

// Each escape decodes as encoding/json decodes it, surrogates included; bad escapes fail.
func TestAppendEscapeMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\uFFFF`,
		`\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83d\u0041`, `\ud83dx`} {
		var want string
		if err := json.Unmarshal([]byte(`"`+lit+`"`), &want); err != nil {
			t.Fatal(err)
		}
		b := []byte(lit)
		var out []byte
		for i := 0; i < len(b); {
			if b[i] != '\\' {
				out = append(out, b[i])
				i++
				continue
			}
			var ok bool
			if out, i, ok = AppendEscape(out, b, i); !ok {
				t.Fatalf("%s: refused", lit)
			}
		}
		if string(out) != want {
			t.Errorf("%s: %q, want %q", lit, out, want)
		}
	}
	for _, bad := range []string{`\`, `\x`, `\u12`, `\u12g4`} {
		if _, _, ok := AppendEscape(nil, []byte(bad), 0); ok {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// NumberEnd takes exactly what encoding/json takes for a number, on every string of up to
// five bytes from JSON's number alphabet, and stops where the number stops inside longer text.
func TestNumberEndAsEncodingJSON(t *testing.T) {
	alphabet := []byte("-0189.eE+x")
	var walk func(b []byte)
	n := 0
	walk = func(b []byte) {
		n++
		end, ok := NumberEnd(b, 0)
		whole := ok && end == len(b)
		valid := json.Valid(b) // the alphabet has no quote or bracket: a valid text is a number
		if whole != valid {
			t.Fatalf("%q: NumberEnd says a whole number %v, encoding/json %v", b, whole, valid)
		}
		if whole {
			// Inside text: the same end after a prefix, and the number stops before a comma.
			in := append(append([]byte("[x,"), b...), ',')
			if e, ok := NumberEnd(in, 3); !ok || e != 3+len(b) {
				t.Fatalf("%q inside %q: end %d, %v", b, in, e, ok)
			}
		}
		if len(b) == 5 {
			return
		}
		for _, c := range alphabet {
			walk(append(b[:len(b):len(b)], c))
		}
	}
	walk(nil)
	if n < 100000 {
		t.Fatalf("only %d strings", n)
	}
}
