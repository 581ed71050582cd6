package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// spans renders every node of a tree as `path kind [start,end) "text"` (and keys with their
// spans), so that a table can say exactly where each value is.
func spans(src []byte, n *Node) []string {
	var out []string
	Walk(n, func(path []any, n *Node) bool {
		out = append(out, fmt.Sprintf("%v %s %q", path, n.Kind, src[n.Start:n.End]))
		for _, m := range n.Members {
			out = append(out, fmt.Sprintf("%v key %q", append(path, m.Key), src[m.KeyStart:m.KeyEnd]))
		}
		return true
	})
	return out
}

func TestParseSpans(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"scalars", `{"a": 1, "b": true, "c": null, "d": "x"}`, []string{
			`[] object "{\"a\": 1, \"b\": true, \"c\": null, \"d\": \"x\"}"`,
			`[a] key "\"a\""`, `[b] key "\"b\""`, `[c] key "\"c\""`, `[d] key "\"d\""`,
			`[a] number "1"`, `[b] boolean "true"`, `[c] null "null"`, `[d] string "\"x\""`,
		}},
		{"comments and trailing commas", "// c\n{ /* k */ \"a\": [1, 2,], // t\n}", []string{
			`[] object "{ /* k */ \"a\": [1, 2,], // t\n}"`,
			`[a] key "\"a\""`,
			`[a] array "[1, 2,]"`, `[a 0] number "1"`, `[a 1] number "2"`,
		}},
		{"bom keeps offsets", "\uFEFF{\"a\": \"é\"}", []string{
			`[] object "{\"a\": \"é\"}"`, `[a] key "\"a\""`, `[a] string "\"é\""`,
		}},
		{"crlf", "{\r\n  \"a\": {\r\n    \"b\": -1.5e3\r\n  }\r\n}", []string{
			`[] object "{\r\n  \"a\": {\r\n    \"b\": -1.5e3\r\n  }\r\n}"`, `[a] key "\"a\""`,
			`[a] object "{\r\n    \"b\": -1.5e3\r\n  }"`, `[a b] key "\"b\""`, `[a b] number "-1.5e3"`,
		}},
		{"escaped key", `{"a\"b": 1}`, []string{`[] object "{\"a\\\"b\": 1}"`, `[a"b] key "\"a\\\"b\""`, `[a"b] number "1"`}},
		{"top-level array", `[{"x": []}]`, []string{
			`[] array "[{\"x\": []}]"`, `[0] object "{\"x\": []}"`, `[0 x] key "\"x\""`, `[0 x] array "[]"`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := Parse([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, spans([]byte(c.src), n)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	n, err := Parse([]byte(`{"s": "a\nb\u00e9\ud83d\ude00", "n": 12.50, "t": false, "dup": 1, "dup": 2, "o": {"k": [null]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Get("s").Str; got != "a\nbé😀" {
		t.Errorf("string = %q", got)
	}
	if got := n.Get("n").Num; got != "12.50" {
		t.Errorf("number keeps its text: %q", got)
	}
	if n.Get("t").Kind != Bool || n.Get("t").Bool {
		t.Errorf("bool")
	}
	if got := n.Get("dup").Num; got != "2" {
		t.Errorf("the last duplicate wins: %s", got)
	}
	if m := n.Member("dup"); m == nil || m.Value.Num != "2" {
		t.Errorf("Member(dup)")
	}
	if n.Get("missing") != nil || n.Get("s").Get("x") != nil || (*Node)(nil).Get("x") != nil {
		t.Errorf("Get on a missing key or a non-object is nil")
	}
	want := `{"s":"a\nbé😀","n":12.50,"t":false,"dup":2,"o":{"k":[null]}}`
	if got := string(n.JSON()); got != want {
		t.Errorf("JSON() = %s\nwant     %s", got, want)
	}
	var v any
	if err := json.Unmarshal(n.JSON(), &v); err != nil {
		t.Errorf("JSON() is not valid JSON: %v", err)
	}
	if got, _ := json.Marshal(n.Value()); !bytes.Contains(got, []byte(`"dup":2`)) {
		t.Errorf("Value(): %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		off       int
		msg       string
	}{
		{"missing comma", "[\n  \"a\"\n  \"b\"\n]", 10, "after array value"},
		{"trailing garbage", "{}\n}", 3, "after top-level value"},
		{"unterminated string", "{\n  \"a\": \"xy,\n  \"b\": 1\n}", 9, `unterminated string: "xy,`},
		{"unexpected end", "{\"a\": [1, 2\n\n", 11, "unexpected end of file"},
		{"single quotes", "{'a': 1}", 1, "invalid character"},
		{"bom then error", "\uFEFF{\"a\" 1}", 8, "after object name"},
		{"crlf error on line 3", "{\r\n\"a\": 1,\r\n\"b\": ]\r\n}", 17, "invalid character"},
		{"empty", "", 0, "unexpected end of file"},
		{"only a comment", "// nothing\n", 10, "unexpected end of file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("want a *SyntaxError, got %v", err)
			}
			if se.Offset != c.off || !strings.Contains(se.Msg, c.msg) {
				t.Errorf("got offset %d %q, want %d containing %q", se.Offset, se.Msg, c.off, c.msg)
			}
			if strings.ContainsAny(se.Msg, "\n\r") {
				t.Errorf("message spans lines: %q", se.Msg)
			}
		})
	}
}

func TestStringOffset(t *testing.T) {
	// Each case: a JSON string literal placed after a prefix, a rune index into its decoded
	// value, and the source text that starts at the mapped offset.
	cases := []struct {
		name, lit string
		rune      int
		want      string
	}{
		{"plain", `"abc"`, 1, `bc"`},
		{"start", `"abc"`, 0, `abc"`},
		{"past the end maps to the closing quote", `"abc"`, 9, `"`},
		{"after \\n", `"a\nb"`, 2, `b"`},
		{"on the escape", `"a\nb"`, 1, `\nb"`},
		{"after \\u00e9", `"\u00e9x"`, 1, `x"`},
		{"multibyte raw", `"éx"`, 1, `x"`},
		{"surrogate pair is one rune", `"\ud83d\ude00!"`, 1, `!"`},
		{"raw emoji", `"😀!"`, 1, `!"`},
		{"escaped quote and backslash", `"\"\\z"`, 2, `z"`},
		{"mixed", `"é\t\u20ac😀\/end"`, 5, `end"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(`{"k": ` + c.lit + `}`)
			n, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			v := n.Get("k")
			off := StringOffset(src, v, c.rune)
			if got := string(src[off : len(src)-1]); got != c.want {
				t.Errorf("offset %d starts %q, want %q", off, got, c.want)
			}
		})
	}
	if off := StringOffset([]byte("1"), &Node{Kind: Number, Start: 0, End: 1}, 3); off != 0 {
		t.Errorf("non-string maps to its start, got %d", off)
	}
	if off := StringOffset(nil, nil, 3); off != 0 {
		t.Errorf("nil node: %d", off)
	}
}

func TestWalkStops(t *testing.T) {
	n, err := Parse([]byte(`{"a": {"b": 1}, "c": [2]}`))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	Walk(n, func(path []any, n *Node) bool {
		seen = append(seen, fmt.Sprint(path))
		return len(path) == 0 // descend from the root only
	})
	if d := cmp.Diff([]string{"[]", "[a]", "[c]"}, seen); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// FuzzParse: Parse never panics; on success every span lies inside the input and is ordered,
// every member key span starts at a quote, string values span their quotes, and JSON() is
// valid JSON; on failure the offset lies inside the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a": [1, 2,], // c
}`, "\uFEFF{\"a\": \"\\u00e9\\ud83d\\ude00\"}", "{\r\n\t\"x\": null\r\n}", `{"a" 1}`, `{"a": "b`, `[1e400, -0.0]`,
		`/* only a comment */`, `{"k": {"k": {"k": [[[]]]}}}`, "{\"\xff\": 1}",
	} {
		f.Add([]byte(s))
	}
	for _, s := range hostileJSON() {
		if len(s) < 1<<16 {
			f.Add([]byte(s))
		}
	}
	seedFromFiles(f, "../../config/testdata/*/*/agent/*.json", "../../examples/*/*.json", "../../examples/*/extensions/*.jsonc")
	f.Fuzz(func(t *testing.T, src []byte) {
		n, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *SyntaxError: %v", err)
			}
			if se.Offset < 0 || se.Offset > len(src) {
				t.Fatalf("error offset %d outside [0,%d]", se.Offset, len(src))
			}
			return
		}
		Walk(n, func(path []any, v *Node) bool {
			if v.Start < 0 || v.End > len(src) || v.Start >= v.End {
				t.Fatalf("%v: span [%d,%d) outside the input (%d bytes)", path, v.Start, v.End, len(src))
			}
			if v.Kind == String && (src[v.Start] != '"' || src[v.End-1] != '"') {
				t.Fatalf("%v: string span %q does not run quote to quote", path, src[v.Start:v.End])
			}
			for _, m := range v.Members {
				if m.KeyStart < v.Start || m.KeyEnd > v.End || m.KeyStart >= m.KeyEnd || src[m.KeyStart] != '"' {
					t.Fatalf("%v: key %q span [%d,%d) is not a quoted key inside its object", path, m.Key, m.KeyStart, m.KeyEnd)
				}
				if m.Value.Start < m.KeyEnd {
					t.Fatalf("%v: value of %q starts before its key ends", path, m.Key)
				}
			}
			if v.Kind == String {
				if off := StringOffset(src, v, utf8.RuneCountInString(v.Str)+1); off != v.End-1 {
					t.Fatalf("%v: StringOffset past the end = %d, want the closing quote %d", path, off, v.End-1)
				}
			}
			return true
		})
		if !json.Valid(n.JSON()) {
			t.Fatalf("JSON() is not valid JSON:\n%s", n.JSON())
		}
	})
}

// hostileJSON are inputs that once crashed or stalled a parse; they seed FuzzParse too.
func hostileJSON() map[string]string {
	return map[string]string{
		"a million brackets": strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000),
		"deep objects":       strings.Repeat(`{"a":`, 200_000) + "1" + strings.Repeat("}", 200_000),
		"just too deep":      strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		"brackets in text":   `{"a": "` + strings.Repeat("[", 5000) + `", /* ` + strings.Repeat("{", 5000) + ` */ "b": 1}`,
	}
}

// TestTooDeep: deep nesting is a syntax error at the bracket past the limit (a million
// brackets overflowed the stack: a fatal crash of every command), not a crash; brackets in
// strings and comments do not count, and the limit itself parses.
func TestTooDeep(t *testing.T) {
	for name, src := range hostileJSON() {
		done := make(chan error, 1)
		go func() { _, err := Parse([]byte(src)); done <- err }()
		select {
		case err := <-done:
			var se *SyntaxError
			switch {
			case name == "brackets in text":
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			case !errors.As(err, &se) || !strings.Contains(se.Msg, "nested too deeply") ||
				strings.Count(src[:se.Offset], "[")+strings.Count(src[:se.Offset], "{") != MaxDepth:
				t.Errorf("%s: got %v", name, err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: no result in 60s", name)
		}
	}
	if _, err := Parse([]byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth))); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
}
