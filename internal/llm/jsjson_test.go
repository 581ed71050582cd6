package llm

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestJSONStringify(t *testing.T) {
	for in, want := range map[string]string{
		`{ "b" : 1, "a":[1.0, 2e3, -0.5e-8,"x\u00e9\/"], "b": 2 }`: `{"b":2,"a":[1,2000,-5e-9,"xé/"]}`,
		`"<\u2028>\u0001"`:         "\"<\u2028>\\u0001\"",
		`1e21`:                     `1e+21`,
		`123456789012345678901234`: `1.2345678901234569e+23`,
	} {
		got, err := JSONStringify([]byte(in))
		if err != nil {
			t.Fatal(in, err)
		}
		if string(got) != want {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
	if _, err := JSONStringify([]byte(`{"a":1} x`)); err == nil {
		t.Error("trailing garbage accepted")
	}
}

func TestParseStreamingJSON(t *testing.T) {
	for in, want := range map[string]string{
		``:                               `{}`,
		`{"path":"a.t`:                   `{"path":"a.t"}`,
		`{"path":"a.txt","n":1`:          `{"path":"a.txt","n":1}`,
		`{"a":`:                          `{}`,
		`{"pa`:                           `{}`,
		`{"a":tr`:                        `{"a":true}`,
		`{"a":[1,2`:                      `{"a":[1,2]}`,
		`{"a":"x\`:                       `{"a":"x"}`,
		"{\"a\":\"line\nnext\"}":         `{"a":"line\nnext"}`,
		`{"a":"c:\dir"}`:                 `{"a":"c:\\dir"}`,
		`{"location":"Florence, Italy"}`: `{"location":"Florence, Italy"}`,
		`garbage`:                        `{}`,
	} {
		if got := string(ParseStreamingJSON(in)); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
}

func FuzzParseStreamingJSON(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":[1,{"b":`, `"x\`, `[tr`, `-`, `{"a":-Inf`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := ParseStreamingJSON(s)
		if _, err := JSONStringify(out); err != nil {
			t.Fatalf("%q gave invalid JSON %s: %v", s, out, err)
		}
	})
}

func TestShortHash(t *testing.T) {
	// Values from pi-ai's shortHash run under node.
	for in, want := range map[string]string{"call_abc|fc_123": "jp01dsxufnom", "héllo😀": "1olj6nu1frhbfw"} {
		if got := ShortHash(in); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
}

// stringifySeeds are inputs of every kind for the one-pass writer and the tree to agree on.
var stringifySeeds = []string{
	// Strings copied as they are, and the escapes that must not be (canonicalStr).
	`{"content":"a\"b\\c\n\t\r\b\f\u0001\u001f é ✓"}`, `["\u0008","\u000a","\u0020","\u00e9","\u001F","\/","\u0041"]`,
	"[\"\xff\",\"\xed\xa0\x80\",\"ok\"]",
	`{ "b" : 1, "a":[1.0, 2e3, -0.5e-8,"x\u00e9\/"], "b": 2 }`, `"<\u2028>\u0001"`, `1e21`,
	`123456789012345678901234`, `-0`, `0.0`, `1e400`, `-1e400`, `1e-400`, `[]`, `{}`, ` [ ] `,
	`{"a":{"a":{"a":1}},"b":[{"a":1,"b":2},{"b":1,"a":2}]}`, `"\ud800x"`, `"\udc00\ud800"`,
	"\"\xff\xfe\"", "{\"\xff\":1,\"\xfe\":2}", `{"a":1,"a":2}`, `{"a":{"x":1},"b":{"x":2}}`,
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `01`, `1.`, `.5`, `1e`, `-`, `+1`, `tru`, `nul`, `"a`,
	`{"a":1} x`, `{"a":1}]`, `{}}`, "\"a\tb\"", `"\u0000"`, `"\/\b\f\n\r\t\"\\"`, `[1e+2,1E-2]`,
	`{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},"offset":{"type":"number"}},"required":["path"],"additionalProperties":false}`,
}

// TestJSONStringifyFastPath: well-formed input without repeated keys is written in one pass,
// with a few allocations whatever its size (the tree allocated per token). It fails when
// JSONStringify takes the tree for a tool schema.
func TestJSONStringifyFastPath(t *testing.T) {
	schema := []byte(stringifySeeds[len(stringifySeeds)-1])
	if _, ok := appendStringified(nil, schema); !ok {
		t.Fatal("a tool schema is left to the tree")
	}
	if n := testing.AllocsPerRun(20, func() { _, _ = JSONStringify(schema) }); n > 8 {
		t.Errorf("JSONStringify of a tool schema: %.0f allocations, want at most 8 (the tree: ~150)", n)
	}
	for _, s := range stringifySeeds {
		checkStringifyFast(t, []byte(s))
	}
}

func checkStringifyFast(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := jsonStringifyTree(raw)
	got, ok := appendStringified(nil, raw)
	if !ok {
		return
	}
	if werr != nil {
		t.Fatalf("%q: one pass wrote %s, the tree refuses it: %v", raw, got, werr)
	}
	if string(got) != string(want) {
		t.Fatalf("%q: one pass wrote %s, the tree %s", raw, got, want)
	}
}

func FuzzJSONStringifyFast(f *testing.F) {
	for _, s := range stringifySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkStringifyFast(t, []byte(s)) })
}

func BenchmarkJSONStringifySchema(b *testing.B) {
	schema := []byte(stringifySeeds[len(stringifySeeds)-1])
	for b.Loop() {
		_, _ = JSONStringify(schema)
	}
}

func BenchmarkJSONStringifyTreeSchema(b *testing.B) {
	schema := []byte(stringifySeeds[len(stringifySeeds)-1])
	for b.Loop() {
		_, _ = jsonStringifyTree(schema)
	}
}

// toolsJSLen writes the tools directly and must count what marshalling and re-serialising
// them counted, whatever the tools hold.
func TestToolsJSLenMatchesMarshal(t *testing.T) {
	schema := json.RawMessage(stringifySeeds[len(stringifySeeds)-1])
	sets := [][]Tool{
		{{Name: "read", Description: "Read <files> & more 😀 \u2028", Parameters: schema}},
		{{Name: "a", Parameters: nil}, {Name: "b", Description: "x\ny\t\"q\"", Parameters: json.RawMessage(` { "type" : "object" } `)}},
		{{Name: "dup", Parameters: json.RawMessage(`{"a":1,"a":2}`)}, {Name: "ok", Parameters: schema}},
		{{Name: "bad", Parameters: json.RawMessage(`{"a":`)}, {Name: "ok", Parameters: schema}},
		{{Name: "nums", Parameters: json.RawMessage(`{"max":1e21,"min":-0,"x":1.50}`)}},
		{{Name: "\xff", Description: "\xfe", Parameters: json.RawMessage("{\"k\xff\":\"v\"}")}},
	}
	for i, ts := range sets {
		if got, want := toolsJSLen(ts), toolsJSLenMarshal(ts); got != want {
			t.Errorf("set %d: %d, marshalled %d", i, got, want)
		}
	}
	f := func(name, desc, params string) bool {
		ts := []Tool{{Name: name, Description: desc, Parameters: json.RawMessage(params)}, {Name: "read", Parameters: schema}}
		return toolsJSLen(ts) == toolsJSLenMarshal(ts)
	}
	for _, s := range stringifySeeds {
		if !f("t", "d", s) {
			t.Errorf("parameters %q: %d, marshalled %d", s, toolsJSLen([]Tool{{Name: "t", Description: "d", Parameters: json.RawMessage(s)}}),
				toolsJSLenMarshal([]Tool{{Name: "t", Description: "d", Parameters: json.RawMessage(s)}}))
		}
	}
}

// TestAppendJSNumber: JavaScript's Number#toString, as node 22 prints each value in
// JSON.stringify: exponent form below 1e-6 (1e-7 was written 0.0000001) and from 1e21.
func TestAppendJSNumber(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {9.99e-7, "9.99e-7"}, {1e-6, "0.000001"}, {0.0000015, "0.0000015"},
		{-2.5e-7, "-2.5e-7"}, {1e21, "1e+21"}, {9.99e20, "999000000000000000000"}, {123e-20, "1.23e-18"},
		{0.1, "0.1"}, {math.Copysign(0, -1), "0"}, {5e-324, "5e-324"},
	} {
		if got := string(AppendJSNumber(nil, c.f)); got != c.want {
			t.Errorf("%v: %s, JavaScript %s", c.f, got, c.want)
		}
	}
}

// TestToolsLenMemo: the memoised length follows every change of the tools — a description, a
// schema changed in place after it was measured, a tool more or less, nil parameters against
// empty ones — and equals the direct measure each time.
func TestToolsLenMemo(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	ts := []Tool{{Name: "read", Description: "Read a file", Parameters: params}, {Name: "ls", Description: "List"}}
	check := func(step string) {
		t.Helper()
		if got, want := toolsLen(ts), toolsJSLen(ts); got != want {
			t.Fatalf("%s: memoised %d, measured %d", step, got, want)
		}
	}
	check("first")
	check("again")
	ts[0].Description = "Read a file, longer"
	check("a description changed")
	copy(params[8:], `"array" `) // the schema changed in place, same length
	check("a schema changed in place")
	ts = append(ts, Tool{Name: "x", Description: "y", Parameters: json.RawMessage(`{}`)})
	check("a tool more")
	ts = ts[:2]
	check("a tool fewer")
	ts[1].Parameters = json.RawMessage{}
	check("empty parameters instead of none")
}

// toolsJSLenBuilt is toolsJSLen as it was: the whole array written, then counted.
func toolsJSLenBuilt(tools []Tool) int {
	b := make([]byte, 0, 1024)
	b = append(b, '[')
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = AppendJSString(b, t.Name)
		b = append(b, `,"description":`...)
		b = AppendJSString(b, t.Description)
		b = append(b, `,"parameters":`...)
		if len(t.Parameters) == 0 {
			b = append(b, "null}"...)
			continue
		}
		var ok bool
		if b, ok = appendStringified(b, t.Parameters); !ok {
			return toolsJSLenMarshal(tools)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	return jsLenRange(string(b))
}

// jsLenRange is JSLen as it was: rune by rune.
func jsLenRange(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// TestToolsJSLenSummedAsBuilt: the length summed tool by tool, stringified schemas counted in
// place, is the length of the array written whole, on random tool lists (names and
// descriptions with escapes, astral and invalid bytes; every stringify seed as a schema, some
// not valid JSON, none, empty), with the stringified check on and off.
func TestToolsJSLenSummedAsBuilt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "read", "é", "😀", "\u2028", "\n", "\"", "\\", "\x00", "\xff", "<&>", "abcdefghijklmnop", "\U0010FFFF", "\xed\xa0\x80"}
	str := func() string {
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		return sb.String()
	}
	schemas := append([]string{"", "{", `{"a":1,"a":2}`, ` { "type" : "object" } `}, stringifySeeds...)
	for _, off := range []bool{false, true} {
		stringifiedOff = off
		for range 3000 {
			ts := make([]Tool, r.IntN(5))
			for i := range ts {
				ts[i] = Tool{Name: str(), Description: str()}
				if s := schemas[r.IntN(len(schemas))]; s != "" || r.IntN(2) == 0 {
					ts[i].Parameters = json.RawMessage(s)
				}
			}
			if got, want := toolsJSLen(ts), toolsJSLenBuilt(ts); got != want {
				t.Fatalf("stringifiedOff=%v %+v: %d, built %d", off, ts, got, want)
			}
		}
	}
	stringifiedOff = false
}

// TestJSLenAsRange: the word-at-a-time count is range's, on random strings of ASCII runs,
// multi-byte and astral runes, invalid and cut sequences, at every alignment.
func TestJSLenAsRange(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"a", "abcdefgh", "0123456789abcdef", "é", "€", "😀", "\xff", "\xe2\x82", "\xf0\x9f", "\xed\xa0\x80", "\x7f", "\x80"}
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(20) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		for cut := 0; cut < min(len(s), 3); cut++ {
			if got, want := JSLen(s[cut:]), jsLenRange(s[cut:]); got != want {
				t.Fatalf("%q: %d, range %d", s[cut:], got, want)
			}
		}
	}
}
