package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/engine"
)

// encodingJSON is writeJSON's encoder before appendToolsJSON: encoding/json, HTML escaping off.
func encodingJSON(t *testing.T, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

// trickyStrings are strings whose escaping differs between encoders: quotes, backslashes,
// every control byte, HTML characters (not escaped here), invalid UTF-8, U+2028/U+2029, DEL.
var trickyStrings = func() []string {
	out := []string{"", "read", `a "quoted" \ path`, "<b>&amp;</b>", "line\nbreak\ttab\r\b\f", "\x7f",
		"caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf8 \xe2\x80", "\xe2\x80\xa8", "\u2027\u202a"}
	for c := 0; c < 0x20; c++ {
		out = append(out, "x"+string(rune(c))+"y")
	}
	return out
}()

func randString(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return trickyStrings[r.IntN(len(trickyStrings))]
	}
	var b strings.Builder
	for range r.IntN(12) {
		switch r.IntN(6) {
		case 0:
			b.WriteByte(byte(r.IntN(256))) // any byte, valid UTF-8 or not
		case 1:
			b.WriteRune(rune(r.IntN(0x3000)))
		default:
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()
}

func randStrings(r *rand.Rand) []string {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, r.IntN(5)+1)
	for i := range out {
		out[i] = randString(r)
	}
	return out
}

func randInt(r *rand.Rand) int {
	if r.IntN(2) == 0 {
		return 0
	}
	return r.IntN(2000) - 5
}

func randResult(r *rand.Rand) *toolsJSON {
	res := &engine.Result{FileIO: randString(r), Active: randStrings(r), CodemodeOnly: randStrings(r),
		CodemodeCallable: randStrings(r), SystemPrompt: engine.SystemPrompt{Tools: randStrings(r), Guidelines: randStrings(r)}}
	if r.IntN(3) > 0 {
		res.Model = &engine.ModelRef{Provider: randString(r), ID: randString(r)}
	}
	if r.IntN(5) > 0 {
		res.Tools = make([]engine.ToolResult, r.IntN(6))
		for i := range res.Tools {
			t := &res.Tools[i]
			*t = engine.ToolResult{Name: randString(r), State: engine.State(randString(r)), Source: randString(r),
				File: randString(r), Line: randInt(r), Column: randInt(r), Unit: randString(r), Structured: r.IntN(2) == 0,
				PromptSnippet: r.IntN(2) == 0, Reason: randString(r), RuleDisabled: r.IntN(2) == 0}
			if r.IntN(2) == 0 {
				t.Rule = &engine.RuleRef{File: randString(r), Line: randInt(r), Column: randInt(r), Text: randString(r)}
			}
		}
	}
	if r.IntN(4) > 0 {
		res.Warnings = make([]engine.Warning, r.IntN(4))
		for i := range res.Warnings {
			res.Warnings[i] = engine.Warning{Code: randString(r), Message: randString(r), File: randString(r),
				Line: randInt(r), Column: randInt(r), Hint: randString(r)}
		}
	}
	out := &toolsJSON{Version: r.IntN(3), Result: res}
	if r.IntN(2) == 0 {
		out.ModelSource = randString(r)
	}
	return out
}

// TestToolsJSONAsEncodingJSON: appendToolsJSON writes what encoding/json writes for the tools
// result, byte for byte, compact and indented as json.Indent lays it out, on 20,000 random results (every field empty and not, nil and empty
// lists, strings with every kind of escape) and on the shipped examples' real one.
func TestToolsJSONAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 29))
	for i := range 20000 {
		v := randResult(r)
		got, ok := appendToolsJSON(nil, v, false)
		if !ok {
			t.Fatalf("result %d: not written", i)
		}
		want := encodingJSON(t, v)
		if !bytes.Equal(got, want) {
			t.Fatalf("result %d:\n got %s\nwant %s", i, got, want)
		}
		// The indented form is json.Indent's layout of the same document.
		var ind bytes.Buffer
		if err := json.Indent(&ind, want, "", "  "); err != nil {
			t.Fatal(err)
		}
		if got, _ := appendToolsJSON([]byte("prefix"), v, true); !bytes.Equal(got, append([]byte("prefix"), ind.Bytes()...)) {
			t.Fatalf("result %d, indented:\n got %s\nwant %s", i, got, ind.Bytes())
		}
	}
	for _, s := range trickyStrings {
		if got, want := appendJSONString(nil, s), encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	// What it leaves to encoding/json.
	if _, ok := appendToolsJSON(nil, &toolsJSON{Version: 1}, true); ok {
		t.Error("a nil result was written")
	}
	if _, ok := appendToolsJSON(nil, &toolsJSON{Version: 1, Result: &engine.Result{}, Agent: &agentInfo{}}, true); ok {
		t.Error("a sub-agent's result was written")
	}
}

// FuzzJSONString: appendJSONString quotes any string as encoding/json does.
func FuzzJSONString(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendJSONString(nil, s)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimSpace(buf.Bytes()); !bytes.Equal(got, want) {
			t.Fatalf("%q (valid UTF-8: %v): got %s, want %s", s, utf8.ValidString(s), got, want)
		}
	})
}

// TestJSONPlainTable: jsonPlain marks exactly the bytes encoding/json writes as they are (HTML
// escaping off).
func TestJSONPlainTable(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		if got := jsonPlain[c>>6]&(1<<(c&63)) != 0; got != want {
			t.Errorf("byte %#x: plain %v, want %v", c, got, want)
		}
	}
}
