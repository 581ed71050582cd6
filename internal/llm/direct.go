package llm

import "encoding/json"

// A provider converts each message of a context into a body value (an Obj of its fields)
// which AppendJSON then writes: at 64 MB of session ~60,000 objects, their fields and
// boxed values (17 MB of fresh pages) made only to be written once and compared by a
// BodyMemo. A message of a common shape can instead be written straight from the message
// by a Direct value, which holds nothing but the message.

// Direct is a body value that writes its own JSON: exactly what AppendJSON writes for the
// value it stands for (the provider's conversion of one message). Its methods only read
// what it refers to, which is never written (a context's messages and their blocks are not).
type Direct interface {
	// AppendDirect appends the value's JSON to b.
	AppendDirect(b []byte) []byte
	// DirectHint is about the length of that JSON (sizeHint's measure).
	DirectHint() int
	// SameDirect reports whether d writes the same bytes for sure (the same message as
	// the same kind of value): a BodyMemo copies them instead of writing them again.
	SameDirect(d Direct) bool
}

// directKey is the key of a DirectObj's single field: no provider writes it.
const directKey = "\x00direct"

// DirectSlab hands out DirectObjs from blocks of fields (one allocation for 256 of them).
type DirectSlab struct{ f []Field }

// Obj returns an Obj that AppendJSON, sizeHint and the BodyMemo treat as d: it is written by
// d.AppendDirect, not as an object of its field. It has no room for another field (Set
// copies it into an ordinary Obj, which would then be written as one: a provider sets no
// field on it).
func (s *DirectSlab) Obj(d Direct) Obj {
	if len(s.f) == cap(s.f) {
		s.f = make([]Field, 0, 256)
	}
	s.f = append(s.f, Field{K: directKey, V: d})
	n := len(s.f)
	return s.f[n-1 : n : n]
}

// directOf returns the Direct an Obj from DirectSlab.Obj stands for.
func directOf(o Obj) (Direct, bool) {
	if len(o) != 1 || len(o[0].K) != len(directKey) || o[0].K != directKey {
		return nil, false
	}
	d, ok := o[0].V.(Direct)
	return d, ok
}

// AppendText appends c.Text as AppendJSON(b, c.TextJSON()) does, without boxing the string.
func (c *Content) AppendText(b []byte) []byte {
	if j := c.quotedFor(c.Text); j != nil {
		return append(b, j.quoted()...)
	}
	return AppendJSString(b, c.Text)
}

// TextHint is sizeHint(c.TextJSON()).
func (c *Content) TextHint() int {
	if j := c.quotedFor(c.Text); j != nil {
		return len(j.quoted())
	}
	return len(c.Text) + 2
}

// AppendJSONText appends raw as AppendJSON(b, JSONText(raw)) does.
func AppendJSONText(b []byte, raw []byte) []byte {
	if isStringified(raw) {
		return appendStringifiedQuoted(b, raw)
	}
	return AppendJSString(b, string(AppendJSON(nil, json.RawMessage(raw))))
}
