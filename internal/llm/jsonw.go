package llm

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
)

// Obj is a JSON object whose keys keep their order, the way pi's request bodies list them
// (JavaScript objects keep insertion order). A field whose value is Omit is left out, like a
// JavaScript undefined.
type Obj []Field

// Field is one key of an Obj.
type Field struct {
	K string
	V any
}

// omit marks a field JSON.stringify would drop.
type omit struct{}

// Omit is the value of a field that is not written.
var Omit any = omit{}

// Set replaces key's value, or appends it (JavaScript assignment to an object key).
func (o Obj) Set(k string, v any) Obj {
	for i := range o {
		if o[i].K == k {
			o[i].V = v
			return o
		}
	}
	return append(o, Field{k, v})
}

// Get returns key's value.
func (o Obj) Get(k string) (any, bool) {
	for _, f := range o {
		if f.K == k {
			return f.V, true
		}
	}
	return nil, false
}

// MarshalJSON writes the object as JSON.stringify would.
func (o Obj) MarshalJSON() ([]byte, error) { return AppendJSON(nil, o), nil }

// AppendJSON appends v in JSON.stringify form. It knows Obj, []any, []Obj, string, bool,
// int, float64, json.RawMessage (re-serialised), map[string]string (sorted keys), nil and
// anything else through encoding/json re-serialised.
func AppendJSON(b []byte, v any) []byte {
	if b == nil {
		// A request body is written into one buffer of about its size: grown from nothing, a
		// body of megabytes is copied over and over (Go grows a large slice by a quarter).
		if n := sizeHint(v); n > 4096 {
			b = make([]byte, 0, n+n/8)
		}
	}
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case Obj:
		return appendObj(b, t)
	case []any:
		return appendArray(b, t, func(b []byte, e any) []byte { return AppendJSON(b, e) })
	case []Obj:
		return appendArray(b, t, appendObj)
	case []string:
		return appendArray(b, t, AppendJSString)
	case string:
		return AppendJSString(b, t)
	case *JSString:
		return append(b, t.quoted()...)
	case bool:
		return strconv.AppendBool(b, t)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case float64:
		return AppendJSNumber(b, t)
	case json.RawMessage:
		if len(t) == 0 {
			return append(b, "null"...)
		}
		if isStringified(t) {
			return append(b, t...)
		}
		if s, err := JSONStringify(t); err == nil {
			return append(b, s...)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, t); err != nil {
			return append(b, "null"...)
		}
		return append(b, buf.Bytes()...)
	case *memoArray:
		return appendMemo(b, t)
	case JSONText:
		if isStringified(t) {
			// Already in JSON.stringify's form (pi's and pigo's own arguments are): escaped
			// as it is, without a stringified copy.
			return appendStringifiedQuoted(b, t)
		}
		return AppendJSString(b, string(AppendJSON(nil, json.RawMessage(t))))
	case Direct:
		return t.AppendDirect(b)
	case map[string]string:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := make(Obj, 0, len(keys))
		for _, k := range keys {
			o = append(o, Field{k, t[k]})
		}
		return AppendJSON(b, o)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	if s, err := JSONStringify(raw); err == nil {
		return append(b, s...)
	}
	return append(b, raw...)
}

// appendObj appends o as a JSON object (typed: an Obj passed as an any is boxed, an
// allocation for each element of a []Obj).
func appendObj(b []byte, o Obj) []byte {
	if d, ok := directOf(o); ok {
		return d.AppendDirect(b)
	}
	b = append(b, '{')
	first := true
	for _, f := range o {
		if _, skip := f.V.(omit); skip {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendJSString(b, f.K)
		b = append(b, ':')
		b = AppendJSON(b, f.V)
	}
	return append(b, '}')
}

// appendArray appends es as a JSON array, each element written by each.
func appendArray[E any](b []byte, es []E, each func([]byte, E) []byte) []byte {
	b = append(b, '[')
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, e)
	}
	return append(b, ']')
}

// sizeHint is about the length of v in JSON, escapes and numbers not counted.
func sizeHint(v any) int {
	switch t := v.(type) {
	case Obj:
		return objSizeHint(t)
	case []any:
		n := 2
		for _, e := range t {
			n += 1 + sizeHint(e)
		}
		return n
	case []Obj:
		n := 2
		for _, e := range t {
			n += 1 + objSizeHint(e)
		}
		return n
	case []string:
		n := 2
		for _, e := range t {
			n += 3 + len(e)
		}
		return n
	case string:
		return len(t) + 2
	case *JSString:
		return len(t.quoted())
	case json.RawMessage:
		return len(t)
	case JSONText:
		return len(t) + len(t)/8 + 2
	case *memoArray:
		// Written into the last body's buffer (see BodyMemo), the array needs no room in this
		// one: only the elements past the last body's are counted (appendMemo grows the buffer
		// to what it needs when it cannot write in place).
		n := 2
		p := t.prev
		if p != nil && !p.free() {
			p = nil
		}
		if p == nil {
			// All written anew: the hints' prefix sums are kept for appendParallel's cuts.
			t.sum = hintSums(t.elems)
			return n + t.sum[len(t.elems)]
		}
		for i, e := range t.elems {
			if i >= len(p.elems) {
				n += 1 + sizeHint(e)
			}
		}
		return n
	case Direct:
		return t.DirectHint()
	case map[string]string:
		n := 2
		for k, e := range t {
			n += len(k) + len(e) + 6
		}
		return n
	}
	return 8
}

// objSizeHint is sizeHint of an Obj (typed, as appendObj).
func objSizeHint(o Obj) int {
	if d, ok := directOf(o); ok {
		return d.DirectHint()
	}
	n := 2
	for _, f := range o {
		n += len(f.K) + 4 + sizeHint(f.V)
	}
	return n
}

// hintSums is the prefix sums of es's hints, a comma each: sum[i] is about the length of
// es[:i] written as array elements.
func hintSums(es []any) []int {
	sum := make([]int, len(es)+1)
	for i, e := range es {
		sum[i+1] = sum[i] + 1 + sizeHint(e)
	}
	return sum
}
