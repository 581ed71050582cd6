package toolrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Value is a JSON value that keeps object key order, so arguments can be echoed the way pi's
// JSON.stringify echoes them (insertion order, array-index keys first).
type Value struct {
	Kind Kind
	Bool bool
	Num  float64
	Str  string
	Arr  []*Value
	Obj  []Member
}

// Member is one key of an object Value.
type Member struct {
	Key   string
	Value *Value
}

// Kind is a JSON value's type.
type Kind int

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Get returns the member key of an object, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, m := range v.Obj {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Set replaces or appends the member key of an object.
func (v *Value) Set(key string, x *Value) {
	for i := range v.Obj {
		if v.Obj[i].Key == key {
			v.Obj[i].Value = x
			return
		}
	}
	v.Obj = append(v.Obj, Member{key, x})
}

// Delete removes the member key of an object.
func (v *Value) Delete(key string) {
	for i := range v.Obj {
		if v.Obj[i].Key == key {
			v.Obj = append(v.Obj[:i], v.Obj[i+1:]...)
			return
		}
	}
}

// Clone returns a deep copy.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := *v
	if v.Arr != nil {
		c.Arr = make([]*Value, len(v.Arr))
		for i, e := range v.Arr {
			c.Arr[i] = e.Clone()
		}
	}
	if v.Obj != nil {
		c.Obj = make([]Member, len(v.Obj))
		for i, m := range v.Obj {
			c.Obj[i] = Member{m.Key, m.Value.Clone()}
		}
	}
	return &c
}

// ParseValue decodes one JSON document.
func ParseValue(b []byte) (*Value, error) {
	if v, ok := parseFast(b); ok {
		return v, nil
	}
	return parseTree(b)
}

// parseTree decodes with encoding/json's Decoder, token by token: the reference parseFast
// is checked against, and the path for input parseFast does not take (its errors).
func parseTree(b []byte) (*Value, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (*Value, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	return decodeFrom(d, t)
}

func decodeFrom(d *json.Decoder, t json.Token) (*Value, error) {
	switch x := t.(type) {
	case nil:
		return &Value{Kind: Null}, nil
	case bool:
		return &Value{Kind: Bool, Bool: x}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return nil, err
		}
		return &Value{Kind: Number, Num: f}, nil
	case string:
		return &Value{Kind: String, Str: x}, nil
	case json.Delim:
		switch x {
		case '[':
			v := &Value{Kind: Array, Arr: []*Value{}}
			for d.More() {
				e, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				v.Arr = append(v.Arr, e)
			}
			_, err := d.Token()
			return v, err
		case '{':
			v := &Value{Kind: Object, Obj: []Member{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				e, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				v.Set(kt.(string), e) // JSON.parse: a repeated key keeps its first place, last value
			}
			_, err := d.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected token %v", t)
}

// MarshalJSON renders the value compactly (JSON.stringify without indentation).
func (v *Value) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	v.write(&b, "", "")
	return b.Bytes(), nil
}

// Indent renders the value as JSON.stringify(v, null, 2) does.
func (v *Value) Indent() string {
	var b bytes.Buffer
	v.write(&b, "  ", "\n")
	return b.String()
}

func (v *Value) write(b *bytes.Buffer, indent, prefix string) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case Number:
		b.WriteString(FormatNumber(v.Num))
	case String:
		writeJSString(b, v.Str)
	case Array:
		if len(v.Arr) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		inner := prefix + indent
		for i, e := range v.Arr {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteString(inner)
			}
			e.write(b, indent, inner)
		}
		if indent != "" {
			b.WriteString(prefix)
		}
		b.WriteByte(']')
	case Object:
		if len(v.Obj) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		inner := prefix + indent
		for i, m := range jsKeyOrder(v.Obj) {
			if i > 0 {
				b.WriteByte(',')
			}
			if indent != "" {
				b.WriteString(inner)
			}
			writeJSString(b, m.Key)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			m.Value.write(b, indent, inner)
		}
		if indent != "" {
			b.WriteString(prefix)
		}
		b.WriteByte('}')
	}
}

// jsKeyOrder orders members as a JavaScript object enumerates them: array-index keys first,
// ascending, then the rest in insertion order.
func jsKeyOrder(ms []Member) []Member {
	idx := 0
	for _, m := range ms {
		if isArrayIndex(m.Key) {
			idx++
		}
	}
	if idx == 0 {
		return ms
	}
	out := make([]Member, 0, len(ms))
	for _, m := range ms {
		if isArrayIndex(m.Key) {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := strconv.ParseUint(out[i].Key, 10, 32)
		b, _ := strconv.ParseUint(out[j].Key, 10, 32)
		return a < b
	})
	for _, m := range ms {
		if !isArrayIndex(m.Key) {
			out = append(out, m)
		}
	}
	return out
}

func isArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

// FormatNumber formats a float64 as JavaScript's Number.prototype.toString does.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f), math.IsInf(f, 0):
		return "null" // JSON.stringify
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + string(sign) + exp
}

// writeJSString quotes s as JSON.stringify does (llm.AppendJSString).
func writeJSString(b *bytes.Buffer, s string) {
	b.Write(llm.AppendJSString(b.AvailableBuffer(), s))
}

// JSTruthyString is String(v) of a JavaScript primitive (TypeBox's string conversion).
func jsString(v *Value) (string, bool) {
	switch v.Kind {
	case Bool:
		return strconv.FormatBool(v.Bool), true
	case Number:
		if math.IsNaN(v.Num) {
			return "NaN", true
		}
		if math.IsInf(v.Num, 1) {
			return "Infinity", true
		}
		if math.IsInf(v.Num, -1) {
			return "-Infinity", true
		}
		return FormatNumber(v.Num), true
	case Null:
		return "null", true
	case String:
		return v.Str, true
	}
	return "", false
}
