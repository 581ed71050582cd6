package llm

import "unsafe"

// Nearly all text of a long session reaches a request body unchanged from the session file:
// pi writes the file with JSON.stringify, pigo with the same escaping (AppendJSString), and a
// body's strings are JSON.stringify's too. Decoding a text at load and escaping it again for
// every body was a fifth of a 64 MB continuation's CPU. The session decoder records, beside a
// content block's text, the quoted bytes it read when they are exactly what AppendJSString
// writes for the decoded string; a body copies them instead of escaping the text again.

// JSString is a string whose JSON.stringify form is known: AppendJSON writes it by copying
// that form. A provider gets one from Content.TextJSON or Content.ThinkingJSON and uses it
// as a string value of a body (StringOf reads the string back).
type JSString struct {
	s string // the decoded string
	q string // AppendJSString(nil, s), byte for byte (a view of the session line)
}

// String returns the string j stands for.
func (j *JSString) String() string { return j.s }

// SetQuoted records on c that q is the JSON.stringify form of s, the text or thinking just
// decoded into c: q must be exactly what AppendJSString writes for s (the session decoder
// checks each escape as it decodes). The record is used only while c.Text or c.Thinking is
// still that very string (same bytes in memory and same length): a text changed afterwards
// — a transform, an edit, a compaction — is escaped anew. The record holds s, so no other
// string can be given its address while it lives. It is kept in the block itself (32 bytes
// more a block): a record apart was an allocation per text at load.
func (c *Content) SetQuoted(s, q string) {
	c.quoted = JSString{s: s, q: q}
}

// Quoted reports whether c carries a record of its text's or thinking's JSON form (tests).
func (c *Content) Quoted() bool { return c.quoted.q != "" }

// Unquoted returns c without the record of its JSON form, as a block built without the
// session decoder is (tests compare decoded blocks with others).
func (c Content) Unquoted() Content {
	c.quoted = JSString{}
	return c
}

// textBlockOf is TextBlock(s) for a text taken from the block from (its text, or its
// thinking made text for another model): it keeps from's record of its JSON form, which
// applies while s is still the recorded string (quotedFor checks it as always).
func textBlockOf(s string, from *Content) Content {
	c := TextBlock(s)
	c.quoted = from.quoted
	return c
}

// quotedOff turns the recorded forms off (tests compare bodies written both ways).
var quotedOff bool

// quotedFor returns the record when it stands for s.
func (c *Content) quotedFor(s string) *JSString {
	j := &c.quoted
	if j.q == "" || quotedOff || len(j.s) != len(s) || unsafe.StringData(j.s) != unsafe.StringData(s) {
		return nil
	}
	return j
}

// TextJSON returns c.Text as a value for AppendJSON: its recorded JSON form when c.Text is
// still the string it was recorded for, else the string.
func (c *Content) TextJSON() any {
	if j := c.quotedFor(c.Text); j != nil {
		return j
	}
	return c.Text
}

// ThinkingJSON is TextJSON for c.Thinking.
func (c *Content) ThinkingJSON() any {
	if j := c.quotedFor(c.Thinking); j != nil {
		return j
	}
	return c.Thinking
}

// StringOf returns the string a body value stands for when it is a string or a JSString.
func StringOf(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case *JSString:
		return t.s, true
	}
	return "", false
}
