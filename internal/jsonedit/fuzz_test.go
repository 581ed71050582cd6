package jsonedit

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tailscale/hujson"
)

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"personalExtensions.fileIo", "servers.gopls.args[0]", `m["openai/gpt-5.1"]`,
		`a["x\"y"][2]`, "a..b", "a[-1]", "[0]", `["\u00e9"]`, "a[", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			if _, ok := err.(*PathError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if len(p) == 0 {
			t.Fatalf("ParsePath(%q) returned an empty path", s)
		}
		for _, st := range p {
			if !st.IsIndex && !utf8.ValidString(st.Key) {
				return // quoting replaces invalid UTF-8; no exact round trip
			}
		}
		back, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("String() of %q = %q does not parse: %v", s, p.String(), err)
		}
		if !cmp.Equal(back, p) {
			t.Fatalf("round trip %q -> %q -> %v, want %v", s, p.String(), back, p)
		}
	})
}

func FuzzSet(f *testing.F) {
	for _, c := range corpus(f) {
		f.Add(c, "a.b", `{"x": [1, 2]}`)
		f.Add(c, "personalExtensions.fileIo", `true`)
	}
	f.Add([]byte(""), "a", `1`)
	f.Add([]byte("// only a comment"), "a[0]", `1`)
	f.Add([]byte("{\r\n\t\"a\": [\r\n\t\t1,\r\n\t],\r\n}"), "a", `"x"`)
	f.Add([]byte("\xef\xbb\xbf{\"a\":{}}"), "a.b", `[]`)
	f.Add([]byte("{\n  \"a\": [ // c\n    // x\n    1, // one\n    2\n    // end\n  ],\n}"), "a", `[2, 3, 1]`)
	f.Add([]byte("{\r\n  // b\r\n  \"b\": {\"x\": 1}, // own\r\n  \"c\": {\"y\": 2}\r\n}"), "d", `{"z": 3}`)
	f.Fuzz(func(t *testing.T, src []byte, path, value string) {
		p, err := ParsePath(path)
		if err != nil {
			return
		}
		_, perr := hujson.Parse(bytes.TrimPrefix(src, bom))
		parses := perr == nil || isBlank(bytes.TrimPrefix(src, bom))
		orig := append([]byte(nil), src...)
		for _, op := range []string{"set", "add", "unset"} {
			var out []byte
			var err error
			switch op {
			case "set":
				out, err = Set(src, p, []byte(value))
			case "add":
				out, err = Add(src, p, []byte(value))
			case "unset":
				out, err = Unset(src, p)
			}
			if !bytes.Equal(src, orig) {
				t.Fatalf("%s modified its input", op)
			}
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("%s: error of type %T: %v", op, err, err)
				}
				continue
			}
			if !parses {
				t.Fatalf("%s succeeded on input that does not parse: %v", op, perr)
			}
			if _, err := hujson.Parse(bytes.TrimPrefix(out, bom)); err != nil {
				t.Fatalf("%s %s %s: output does not parse: %v\n--- in\n%q\n--- out\n%q", op, p, value, err, src, out)
			}
			if op == "set" {
				got, found, err := Get(out, p)
				want, _ := parseValue([]byte(value))
				if err != nil || !found || !bytes.Equal(got, want.Pack()) {
					t.Fatalf("Get after Set = %s %v %v, want %s\n%q", got, found, err, want.Pack(), out)
				}
			}
		}
	})
}
