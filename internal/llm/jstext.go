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
// as a string value of a body (StringOf reads the string back). It is a view of the block's
// record (the block itself), so handing it out allocates nothing.
type JSString struct{ c Content }

// String returns the string j stands for.
func (j *JSString) String() string { return j.c.recorded() }

// quoted returns AppendJSString(nil, j.String()), byte for byte (a view of the session line).
func (j *JSString) quoted() string {
	c := &j.c
	return unsafe.String(c.qq, int(c.qn)+int(c.qdLo)+int(c.qdHi)<<16)
}

// recorded returns the string c's record stands for.
func (c *Content) recorded() string { return unsafe.String(c.qs, int(c.qn)) }

// maxQuotedExtra bounds what a recorded JSON form adds to its string (its quotes and
// escapes): the record keeps it in 24 bits. A text beyond it is not recorded (escaped anew).
const maxQuotedExtra = 1<<24 - 1

// SetQuoted records on c that q is the JSON.stringify form of s, the text or thinking just
// decoded into c: q must be exactly what AppendJSString writes for s (the session decoder
// checks each escape as it decodes). The record is used only while c.Text or c.Thinking is
// still that very string (same bytes in memory and same length): a text changed afterwards
// — a transform, an edit, a compaction — is escaped anew. The record holds s, so no other
// string can be given its address while it lives. It is kept in the block itself (16 bytes
// and the word Redacted leaves): a record apart was an allocation per text at load. A string
// of 4 GiB or more, or whose form adds more than maxQuotedExtra bytes, is not recorded.
func (c *Content) SetQuoted(s, q string) {
	d := len(q) - len(s)
	if q == "" || d < 0 || d > maxQuotedExtra || uint64(len(s)) > 1<<32-1 {
		c.clearQuoted()
		return
	}
	c.qs, c.qq = unsafe.StringData(s), unsafe.StringData(q)
	c.qn, c.qdLo, c.qdHi = uint32(len(s)), uint16(d), uint8(d>>16)
}

func (c *Content) clearQuoted() {
	c.qs, c.qq, c.qn, c.qdLo, c.qdHi = nil, nil, 0, 0, 0
}

// Quoted reports whether c carries a record of its text's or thinking's JSON form (tests).
func (c *Content) Quoted() bool { return c.qq != nil && c.qq != &stringifiedMark }

// Unquoted returns c without the record of its JSON form, as a block built without the
// session decoder is (tests compare decoded blocks with others).
func (c Content) Unquoted() Content {
	c.clearQuoted()
	return c
}

// textBlockOf is TextBlock(s) for a text taken from the block from (its text, or its
// thinking made text for another model): it keeps from's record of its JSON form, which
// applies while s is still the recorded string (quotedFor checks it as always).
func textBlockOf(s string, from *Content) Content {
	c := TextBlock(s)
	c.qs, c.qq, c.qn, c.qdLo, c.qdHi = from.qs, from.qq, from.qn, from.qdLo, from.qdHi
	return c
}

// quotedOff turns the recorded forms off (tests compare bodies written both ways).
var quotedOff bool

// quotedFor returns the record when it stands for s.
func (c *Content) quotedFor(s string) *JSString {
	if c.qq == nil || c.qq == &stringifiedMark || quotedOff || uint64(len(s)) != uint64(c.qn) || unsafe.StringData(s) != c.qs {
		return nil
	}
	return (*JSString)(unsafe.Pointer(c))
}

// A tool call's arguments are JSON, sent as a JSON string of their JSON.stringify form
// (OpenAI's bodies): checking that they already are in that form (isStringified) was, after
// the escaping itself, the largest part of a long session's first body. The session decoder
// checks it while it reads them anyway, and records it in the block's record (a tool call
// has no text): the record's string is the arguments' bytes, and its form is this mark.
var stringifiedMark byte

// SetArgumentsStringified records on c that c.Arguments is in JSON.stringify's form, as
// isStringified finds it, and holds quotes quotes and backslashes (the session decoder
// checks and counts them as it reads them: both must be right, the body trusts them). The
// record is used only while c.Arguments is still that very slice (same bytes in memory and
// length).
func (c *Content) SetArgumentsStringified(quotes int) {
	d := quotes + 2 // what escaping them as a JSON string adds
	if len(c.Arguments) == 0 || uint64(len(c.Arguments)) > 1<<32-1 || quotes < 0 || d > maxQuotedExtra {
		return
	}
	c.qs, c.qq = unsafe.SliceData(c.Arguments), &stringifiedMark
	c.qn, c.qdLo, c.qdHi = uint32(len(c.Arguments)), uint16(d), uint8(d>>16)
}

// argumentsStringified reports whether c's record says that c.Arguments is in
// JSON.stringify's form.
func (c *Content) argumentsStringified() bool {
	return c.qq == &stringifiedMark && !stringifiedOff && uint64(len(c.Arguments)) == uint64(c.qn) &&
		len(c.Arguments) > 0 && unsafe.SliceData(c.Arguments) == c.qs
}

// ArgumentsStringified reports whether c carries the record of SetArgumentsStringified
// (tests).
func (c *Content) ArgumentsStringified() bool { return c.argumentsStringified() }

// AppendArguments appends a tool call's arguments (an empty object when it has none) as
// AppendJSON(b, JSONText(arguments)) does: without checking their form again when the
// record says it.
func (c *Content) AppendArguments(b []byte) []byte {
	if c.argumentsStringified() {
		return appendStringifiedQuotedN(b, c.Arguments, len(c.Arguments)+int(c.qdLo)+int(c.qdHi)<<16)
	}
	args := c.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	return AppendJSONText(b, args)
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
		return t.String(), true
	}
	return "", false
}
