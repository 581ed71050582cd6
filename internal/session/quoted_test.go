package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/jsonesc"
	"github.com/pigo-agent/pigo/internal/llm"
)

// quotedSeeds are JSON string literals with escapes of every kind, canonical and not.
var quotedSeeds = []string{
	`""`, `"plain"`, `"a\"b\\c\n\t\r\b\f"`, `"\u0000\u0001\u001f\u000b"`, `"\u000a"`, `"\u000A"`,
	`"\u001F"`, `"\u0008"`, `"\u0020"`, `"\u0041"`, `"\u00e9"`, `"\/"`, `"é✓😀"`, "\"\u2028\u2029\"",
	`"\u2028"`, "\"\x7f\"", `"\u007f"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud800x"`,
	"\"\xff\"", "\"\xed\xa0\x80\"", "\"a\xc3\"", "\"\xc3\xa9\\n\xff\"", `"<>&'"`, `"\\u0041"`,
	`"x\n` + strings.Repeat(`y\"`, 40) + `"`, `"\u00` + `"`, `"a`, "\"a\tb\"", `"\x"`,
}

// checkQuotedLiteral decodes lit as a block's text through the session decoder and checks
// that a recorded form is what llm.AppendJSString writes for the decoded text, and the
// literal's own bytes.
func checkQuotedLiteral(t *testing.T, lit string) {
	t.Helper()
	r := jreader{b: []byte(lit)}
	s, q := r.quoted("text")
	if r.err != nil {
		if q != "" {
			t.Fatalf("%q: refused (%v) but recorded %q", lit, r.err, q)
		}
		return
	}
	var want string
	if json.Unmarshal([]byte(lit), &want) == nil && want != s {
		t.Fatalf("%q: decoded %q, encoding/json %q", lit, s, want)
	}
	if q == "" {
		return
	}
	if enc := llm.AppendJSString(nil, s); string(enc) != q {
		t.Fatalf("%q: recorded %s, AppendJSString writes %s", lit, q, enc)
	}
	if q != strings.TrimLeft(lit[:r.i], " \t\r\n") {
		t.Fatalf("%q: recorded %s, not the literal's bytes", lit, q)
	}
}

func TestQuotedRecordsCanonicalForms(t *testing.T) {
	for _, lit := range quotedSeeds {
		checkQuotedLiteral(t, lit)
	}
	// What pi and pigo write is recorded; what AppendJSString would write otherwise is not.
	for lit, want := range map[string]bool{
		`"plain"`: true, `"a\"b\\c\n\t\r\b\f"`: true, `"\u0001\u001f"`: true, "\"\u2028\x7f\"": true,
		`"\u000a"`: false, `"\u0041"`: false, `"\/"`: false, `"\u001F"`: false, `"\ud83d\ude00"`: false,
		"\"\xff\"": false, `"\u2028"`: false,
	} {
		r := jreader{b: []byte(lit)}
		if _, q := r.quoted("text"); (q != "") != want {
			t.Errorf("%s: recorded %v, want %v", lit, q != "", want)
		}
	}
}

func FuzzQuoted(f *testing.F) {
	for _, s := range quotedSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) { checkQuotedLiteral(t, lit) })
}

// TestQuotedNotUsedAfterChange: a block's recorded form stands for the text it was decoded
// with only; a text changed afterwards (to one of the same length, or cut in place) is
// written anew. Without the check of the text's address, the first change below would
// still write the old text.
func TestQuotedNotUsedAfterChange(t *testing.T) {
	line := `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"old \"text\"\n"},{"type":"thinking","thinking":"hm\tm"}],"timestamp":7}}`
	e, err := decodeEntry([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	blocks := e.Message.LLM.Content
	if !blocks[0].Quoted() || !blocks[1].Quoted() {
		t.Fatal("no form recorded")
	}
	body := func(v any) string { return string(llm.AppendJSON(nil, v)) }
	if got := body(blocks[0].TextJSON()); got != `"old \"text\"\n"` {
		t.Fatalf("recorded text written as %s", got)
	}
	if _, ok := blocks[0].TextJSON().(*llm.JSString); !ok {
		t.Fatal("recorded form not used")
	}
	for _, s := range []string{strings.Repeat("x", len(blocks[0].Text)), blocks[0].Text[:3], strings.Clone(blocks[0].Text), ""} {
		c := blocks[0]
		c.Text = s
		if got, want := body(c.TextJSON()), string(llm.AppendJSString(nil, s)); got != want {
			t.Errorf("text changed to %q: written %s, want %s", s, got, want)
		}
		if _, ok := c.TextJSON().(*llm.JSString); ok {
			t.Errorf("text changed to %q: the recorded form is still used", s)
		}
	}
	c := blocks[1]
	if got := body(c.ThinkingJSON()); got != `"hm\tm"` {
		t.Fatalf("thinking written as %s", got)
	}
	c.Thinking = "hm m"
	if got := body(c.ThinkingJSON()); got != `"hm m"` {
		t.Errorf("changed thinking written as %s", got)
	}
	// A text moved to another field of the same block is the same string: its form holds.
	c = blocks[1]
	c.Text = c.Thinking
	if got := body(c.TextJSON()); !bytes.Equal([]byte(got), llm.AppendJSString(nil, c.Text)) {
		t.Errorf("thinking moved to text written as %s", got)
	}
}

// TestShortEscapes: strSlow's own decoding of the short escapes gives what jsonesc and
// canonicalEscape give for every escape byte, alone and between other text: the same text,
// the same refusal, the same canonical form recorded.
func TestShortEscapes(t *testing.T) {
	for c := range 256 {
		esc := []byte{'\\', byte(c)}
		_, next, ok := jsonesc.AppendEscape(nil, esc, 0)
		canon := ok && next == 2 && canonicalEscape(esc)
		for _, f := range []string{`"%s"`, `"a%sb"`, `"%s%s"`, `"x\n%sy\u00e9"`, `"é%s"`} {
			lit := strings.ReplaceAll(f, "%s", string(esc))
			r := jreader{b: []byte(lit)}
			s, q := r.quoted("text")
			if (r.err == nil) != (ok && next == 2) {
				t.Fatalf("%q: error %v, jsonesc ok %v", lit, r.err, ok)
			}
			if r.err != nil {
				continue
			}
			var ref []byte
			for i := 1; i < len(lit)-1; {
				if lit[i] == '\\' {
					ref, i, _ = jsonesc.AppendEscape(ref, []byte(lit), i)
					continue
				}
				ref = append(ref, lit[i])
				i++
			}
			if s != string(ref) {
				t.Fatalf("%q: decoded %q, jsonesc %q", lit, s, ref)
			}
			if wantQ := canon && !strings.Contains(lit, `\u00e9`); (q != "") != wantQ {
				t.Fatalf("%q: recorded %v, want %v", lit, q != "", wantQ)
			}
			checkQuotedLiteral(t, lit)
		}
	}
}
