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
