package llm

import (
	"strings"
	"testing"
	"unsafe"
)

// TestContentSize: a content block is 208 bytes, a size class of its own; the record of its
// JSON form as two strings made it 224 (D25.18).
func TestContentSize(t *testing.T) {
	if n := unsafe.Sizeof(Content{}); n > 208 {
		t.Errorf("Content is %d bytes, want at most 208", n)
	}
}

// TestQuotedRecord: the record gives back the string and its form it was made with, only
// while the text is that very string; it shares a word with Redacted without disturbing it;
// a form that adds more than maxQuotedExtra bytes is not recorded.
func TestQuotedRecord(t *testing.T) {
	line := `{"text":"a\n\"b\"\u0001","thinking":"plain"}`
	q := line[8:strings.Index(line, `,"thinking"`)]
	s := "a\n\"b\"\x01"
	if got := string(AppendJSString(nil, s)); got != q {
		t.Fatalf("fixture: %s != %s", got, q)
	}
	for _, redacted := range []bool{false, true} {
		c := Content{Type: TypeText, Text: s, Redacted: redacted}
		c.SetQuoted(c.Text, q)
		if c.Redacted != redacted || !c.Quoted() {
			t.Errorf("redacted %v: after SetQuoted %v, quoted %v", redacted, c.Redacted, c.Quoted())
		}
		j, ok := c.TextJSON().(*JSString)
		if !ok || j.String() != s || j.quoted() != q || unsafe.StringData(j.String()) != unsafe.StringData(s) {
			t.Fatalf("TextJSON: %#v", c.TextJSON())
		}
		if got := string(AppendJSON(nil, j)); got != q {
			t.Errorf("written %s, want %s", got, q)
		}
		c.Redacted = !redacted
		if j, ok := c.TextJSON().(*JSString); !ok || j.quoted() != q {
			t.Errorf("redacted flipped: the record changed")
		}
		if _, ok := c.ThinkingJSON().(*JSString); ok {
			t.Error("the record stands for Thinking too")
		}
		b := textBlockOf(c.Text, &c)
		if j, ok := b.TextJSON().(*JSString); !ok || j.quoted() != q || b.Redacted {
			t.Errorf("textBlockOf lost the record: %+v", b)
		}
		for _, other := range []string{s[:3], s[1:], strings.Clone(s), ""} {
			c.Text = other
			if v, ok := c.TextJSON().(string); !ok || v != other {
				t.Errorf("text %q: written from the record", other)
			}
		}
		if u := c.Unquoted(); u.Quoted() || u.Redacted != c.Redacted {
			t.Errorf("Unquoted: %+v", u)
		}
	}
	// An empty text is recorded as "" (nil data, as the decoder gives it).
	var c Content
	c.SetQuoted("", `""`)
	if j, ok := c.TextJSON().(*JSString); !ok || j.quoted() != `""` || j.String() != "" {
		t.Errorf("empty text: %#v", c.TextJSON())
	}
	// The extra length's bound: a form that adds more is not recorded (each newline's escape
	// adds one byte, the quotes two).
	for _, extra := range []int{maxQuotedExtra, maxQuotedExtra + 1} {
		s := strings.Repeat("\n", extra-2)
		form := string(AppendJSString(nil, s))
		c := Content{Type: TypeThinking, Thinking: s}
		c.SetQuoted(c.Thinking, form)
		want := extra <= maxQuotedExtra
		if j, ok := c.ThinkingJSON().(*JSString); ok != want || ok && (j.quoted() != form || j.String() != s) {
			t.Errorf("extra %d: recorded %v, want %v", len(form)-len(s), ok, want)
		}
	}
}

// quotedString is a JSString for s with the JSON form q (tests).
func quotedString(s, q string) *JSString {
	c := &Content{Type: TypeText, Text: s}
	c.SetQuoted(s, q)
	j, ok := c.TextJSON().(*JSString)
	if !ok {
		panic("quotedString: not recorded")
	}
	return j
}
