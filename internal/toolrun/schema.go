package toolrun

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Schema is a compiled JSON Schema as the declarations write it (the subset pi's TypeBox
// schemas and the shipped toolsets use). It converts and validates arguments the way pi does:
// TypeBox Value.Convert, then Compile(schema).Errors with TypeBox's en_US messages.
type Schema struct {
	root *Value
	mu   sync.Mutex
	res  map[string]*regexp.Regexp
}

// CompileSchema parses a declared JSON Schema; an empty one accepts any object.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	v, err := ParseValue(raw)
	if err != nil {
		return nil, err
	}
	return &Schema{root: v, res: map[string]*regexp.Regexp{}}, nil
}

// ValidationError is one TypeBox error: its dotted path as pi prints it and the message.
type ValidationError struct {
	Path    string
	Message string
}

func types(s *Value) []string {
	t := s.Get("type")
	if t == nil {
		return nil
	}
	switch t.Kind {
	case String:
		return []string{t.Str}
	case Array:
		var out []string
		for _, e := range t.Arr {
			if e.Kind == String {
				out = append(out, e.Str)
			}
		}
		return out
	}
	return nil
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// DropOptionalNulls removes object members that are null, not required and whose schema does
// not accept null (pi-ai's normalizeOptionalNulls).
func (s *Schema) DropOptionalNulls(v *Value) { s.dropNulls(v, s.root) }

func (s *Schema) dropNulls(v, sch *Value) {
	if v == nil || sch == nil || sch.Kind != Object {
		return
	}
	if v.Kind == Array {
		if items := sch.Get("items"); items != nil {
			if items.Kind == Array {
				for i, e := range v.Arr {
					if i < len(items.Arr) {
						s.dropNulls(e, items.Arr[i])
					}
				}
			} else {
				for _, e := range v.Arr {
					s.dropNulls(e, items)
				}
			}
		}
		return
	}
	props := sch.Get("properties")
	if v.Kind != Object || props == nil || props.Kind != Object {
		return
	}
	req := requiredSet(sch)
	for _, p := range props.Obj {
		x := v.Get(p.Key)
		if x == nil {
			continue
		}
		if x.Kind == Null && !req[p.Key] && p.Value.Get("$ref") == nil && !s.check(&Value{Kind: Null}, p.Value) {
			v.Delete(p.Key)
		} else {
			s.dropNulls(x, p.Value)
		}
	}
}

func requiredSet(sch *Value) map[string]bool {
	req := map[string]bool{}
	if r := sch.Get("required"); r != nil {
		for _, e := range r.Arr {
			req[e.Str] = true
		}
	}
	return req
}

// Convert coerces v towards the schema as TypeBox's Value.Convert does ("5" → 5 for a number,
// 5 → "5" for a string, "true" → true, a lone value → [value] for an array) and returns the
// converted value. Like pi, only the result's interior is used: pi discards Convert's return
// value, so a top-level value that is not an object is left as it was.
func (s *Schema) Convert(v *Value) *Value {
	if v == nil || v.Kind != Object {
		return v
	}
	return s.convert(v, s.root)
}

func (s *Schema) convert(v, sch *Value) *Value {
	if sch == nil || sch.Kind != Object {
		return v
	}
	if any := sch.Get("anyOf"); any != nil && any.Kind == Array {
		for _, b := range any.Arr {
			if s.check(v, b) {
				return v
			}
		}
		for _, b := range any.Arr {
			c := s.convert(v.Clone(), b)
			if s.check(c, sch) {
				return c
			}
		}
		return v
	}
	if c := sch.Get("const"); c != nil {
		return convertLiteral(v, c)
	}
	if sch.Get("enum") != nil {
		return v // pi's StringEnum is Type.Unsafe: TypeBox does not convert it
	}
	ts := types(sch)
	if len(ts) != 1 {
		return v
	}
	switch ts[0] {
	case "number":
		if f, ok := tryNumber(v); ok {
			return &Value{Kind: Number, Num: f}
		}
	case "integer":
		if f, ok := tryNumber(v); ok {
			return &Value{Kind: Number, Num: math.Trunc(f)}
		}
	case "boolean":
		if b, ok := tryBoolean(v); ok {
			return &Value{Kind: Bool, Bool: b}
		}
	case "string":
		if str, ok := jsString(v); ok {
			return &Value{Kind: String, Str: str}
		}
	case "null":
		if tryNull(v) {
			return &Value{Kind: Null}
		}
	case "array":
		arr := v
		if v.Kind != Array {
			arr = &Value{Kind: Array, Arr: []*Value{v}}
		}
		items := sch.Get("items")
		out := &Value{Kind: Array, Arr: make([]*Value, len(arr.Arr))}
		for i, e := range arr.Arr {
			out.Arr[i] = e
			if items != nil && items.Kind == Object {
				out.Arr[i] = s.convert(e, items)
			}
		}
		return out
	case "object":
		if v.Kind != Object {
			return v
		}
		props := sch.Get("properties")
		known := map[string]bool{}
		if props != nil {
			for _, p := range props.Obj {
				known[p.Key] = true
				if x := v.Get(p.Key); x != nil {
					v.Set(p.Key, s.convert(x, p.Value))
				}
			}
		}
		if ap := sch.Get("additionalProperties"); ap != nil && ap.Kind == Object {
			for i, m := range v.Obj {
				if !known[m.Key] {
					v.Obj[i].Value = s.convert(m.Value, ap)
				}
			}
		}
	}
	return v
}

func convertLiteral(v, c *Value) *Value {
	if equalValues(v, c) {
		return v
	}
	var x *Value
	switch c.Kind {
	case Bool:
		if b, ok := tryBoolean(v); ok {
			x = &Value{Kind: Bool, Bool: b}
		}
	case Number:
		if f, ok := tryNumber(v); ok {
			x = &Value{Kind: Number, Num: f}
		}
	case String:
		if str, ok := jsString(v); ok {
			x = &Value{Kind: String, Str: str}
		}
	}
	if x != nil && equalValues(x, c) {
		return x
	}
	return v
}

var jsDecimal = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$`)
}}

// jsUnaryPlus is JavaScript's +string; ok is false for NaN.
func jsUnaryPlus(s string) (float64, bool) {
	s = strings.TrimFunc(s, isJSSpace)
	if s == "" {
		return 0, true
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			if strings.ContainsAny(s[2:], "_+-") {
				return 0, false
			}
			n, err := strconv.ParseUint(s[2:], base, 64)
			if err != nil {
				return 0, false
			}
			return float64(n), true
		}
	}
	if !jsDecimal.Get().MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, false
	}
	return f, true
}

func isJSSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// tryNumber is TypeBox's TryNumber.
func tryNumber(v *Value) (float64, bool) {
	switch v.Kind {
	case Bool:
		if v.Bool {
			return 1, true
		}
		return 0, true
	case Number:
		return v.Num, true
	case Null:
		return 0, true
	case String:
		if f, ok := jsUnaryPlus(v.Str); ok && finite(f) {
			return f, true
		}
		switch strings.ToLower(v.Str) {
		case "false":
			return 0, true
		case "true":
			return 1, true
		}
	}
	return 0, false
}

// tryBoolean is TypeBox's TryBoolean.
func tryBoolean(v *Value) (bool, bool) {
	switch v.Kind {
	case Bool:
		return v.Bool, true
	case Number:
		if v.Num == 0 {
			return false, true
		}
		if v.Num == 1 {
			return true, true
		}
	case Null:
		return false, true
	case String:
		switch {
		case strings.ToLower(v.Str) == "false", v.Str == "0":
			return false, true
		case strings.ToLower(v.Str) == "true", v.Str == "1":
			return true, true
		}
	}
	return false, false
}

// tryNull is TypeBox's TryNull.
func tryNull(v *Value) bool {
	switch v.Kind {
	case Null:
		return true
	case Bool:
		return !v.Bool
	case Number:
		return v.Num == 0
	case String:
		l := strings.ToLower(v.Str)
		return l == "undefined" || l == "null" || v.Str == "" || v.Str == "0"
	}
	return false
}

func equalValues(a, b *Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Number:
		return a.Num == b.Num
	case String:
		return a.Str == b.Str
	case Array:
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !equalValues(a.Arr[i], b.Arr[i]) {
				return false
			}
		}
		return true
	case Object:
		if len(a.Obj) != len(b.Obj) {
			return false
		}
		for _, m := range a.Obj {
			o := b.Get(m.Key)
			if o == nil || !equalValues(m.Value, o) {
				return false
			}
		}
		return true
	}
	return false
}

// Check reports whether v is valid.
func (s *Schema) Check(v *Value) bool { return s.check(v, s.root) }

func (s *Schema) check(v, sch *Value) bool {
	var errs []ValidationError
	return s.errors(v, sch, "", &errs, true)
}

// Errors lists the validation errors of v in TypeBox's order, with pi's paths.
func (s *Schema) Errors(v *Value) []ValidationError {
	var errs []ValidationError
	s.errors(v, s.root, "", &errs, false)
	return errs
}

type rawErr struct {
	keyword  string
	instance string
	msg      string
	first    string // required: the first missing property
}

func (s *Schema) add(errs *[]ValidationError, e rawErr) {
	path := strings.ReplaceAll(strings.TrimPrefix(e.instance, "/"), "/", ".")
	if e.keyword == "required" && e.first != "" {
		if path != "" {
			path += "." + e.first
		} else {
			path = e.first
		}
	}
	if path == "" {
		path = "root"
	}
	*errs = append(*errs, ValidationError{Path: path, Message: e.msg})
}

func typeOK(v *Value, t string) bool {
	switch t {
	case "number":
		return v.Kind == Number && finite(v.Num)
	case "integer":
		return v.Kind == Number && finite(v.Num) && v.Num == math.Trunc(v.Num)
	case "boolean":
		return v.Kind == Bool
	case "string":
		return v.Kind == String
	case "null":
		return v.Kind == Null
	case "array":
		return v.Kind == Array
	case "object":
		return v.Kind == Object
	}
	return false
}

func jsLength(s string) int { return len(utf16.Encode([]rune(s))) }

func limit(sch *Value, key string) (float64, bool) {
	n := sch.Get(key)
	if n == nil || n.Kind != Number {
		return 0, false
	}
	return n.Num, true
}

// errors appends v's errors against sch and reports validity. quick stops at the first error.
func (s *Schema) errors(v, sch *Value, inst string, errs *[]ValidationError, quick bool) bool {
	if sch == nil {
		return true
	}
	if sch.Kind == Bool {
		if !sch.Bool {
			if !quick {
				s.add(errs, rawErr{keyword: "boolean", instance: inst, msg: "schema is false"})
			}
			return false
		}
		return true
	}
	if sch.Kind != Object {
		return true
	}
	ok := true
	fail := func(e rawErr) bool {
		ok = false
		if !quick {
			s.add(errs, e)
		}
		return quick
	}
	if ts := types(sch); len(ts) > 0 {
		good := false
		for _, t := range ts {
			good = good || typeOK(v, t)
		}
		if !good {
			msg := "must be " + ts[0]
			if sch.Get("type").Kind == Array {
				msg = "must be either " + strings.Join(ts, " or ")
			}
			if fail(rawErr{keyword: "type", instance: inst, msg: msg}) {
				return false
			}
		}
	}
	switch v.Kind {
	case Object:
		if r := sch.Get("required"); r != nil {
			var missing []string
			for _, k := range r.Arr {
				if v.Get(k.Str) == nil {
					missing = append(missing, k.Str)
				}
			}
			if len(missing) > 0 && fail(rawErr{keyword: "required", instance: inst, first: missing[0],
				msg: "must have required properties " + strings.Join(missing, ", ")}) {
				return false
			}
		}
		props := sch.Get("properties")
		if ap := sch.Get("additionalProperties"); ap != nil {
			bad := false
			for _, m := range v.Obj {
				if props != nil && props.Get(m.Key) != nil {
					continue
				}
				if !s.check(m.Value, ap) {
					bad = true
				}
			}
			if bad && fail(rawErr{keyword: "additionalProperties", instance: inst, msg: "must not have additional properties"}) {
				return false
			}
		}
		if props != nil {
			for _, p := range props.Obj {
				if x := v.Get(p.Key); x != nil {
					if !s.errors(x, p.Value, inst+"/"+p.Key, errs, quick) {
						ok = false
						if quick {
							return false
						}
					}
				}
			}
		}
		if n, has := limit(sch, "minProperties"); has && float64(len(v.Obj)) < n {
			if fail(rawErr{instance: inst, msg: "must not have fewer than " + FormatNumber(n) + " properties"}) {
				return false
			}
		}
		if n, has := limit(sch, "maxProperties"); has && float64(len(v.Obj)) > n {
			if fail(rawErr{instance: inst, msg: "must not have more than " + FormatNumber(n) + " properties"}) {
				return false
			}
		}
	case Array:
		if items := sch.Get("items"); items != nil && items.Kind != Array {
			for i, e := range v.Arr {
				if !s.errors(e, items, inst+"/"+strconv.Itoa(i), errs, quick) {
					ok = false
					if quick {
						return false
					}
				}
			}
		}
		if n, has := limit(sch, "maxItems"); has && float64(len(v.Arr)) > n {
			if fail(rawErr{instance: inst, msg: "must not have more than " + FormatNumber(n) + " items"}) {
				return false
			}
		}
		if n, has := limit(sch, "minItems"); has && float64(len(v.Arr)) < n {
			if fail(rawErr{instance: inst, msg: "must not have fewer than " + FormatNumber(n) + " items"}) {
				return false
			}
		}
		if u := sch.Get("uniqueItems"); u != nil && u.Kind == Bool && u.Bool {
			dup := false
			for i := range v.Arr {
				for j := i + 1; j < len(v.Arr); j++ {
					dup = dup || equalValues(v.Arr[i], v.Arr[j])
				}
			}
			if dup && fail(rawErr{instance: inst, msg: "must not have duplicate items"}) {
				return false
			}
		}
	case String:
		if n, has := limit(sch, "maxLength"); has && float64(jsLength(v.Str)) > n {
			if fail(rawErr{instance: inst, msg: "must not have more than " + FormatNumber(n) + " characters"}) {
				return false
			}
		}
		if n, has := limit(sch, "minLength"); has && float64(jsLength(v.Str)) < n {
			if fail(rawErr{instance: inst, msg: "must not have fewer than " + FormatNumber(n) + " characters"}) {
				return false
			}
		}
		if p := sch.Get("pattern"); p != nil && p.Kind == String {
			if re := s.regexp(p.Str); re != nil && !re.MatchString(v.Str) {
				if fail(rawErr{instance: inst, msg: `must match pattern "` + p.Str + `"`}) {
					return false
				}
			}
		}
	case Number:
		cmp := []struct {
			key, op string
			bad     func(x, n float64) bool
		}{
			{"exclusiveMaximum", "<", func(x, n float64) bool { return !(x < n) }},
			{"exclusiveMinimum", ">", func(x, n float64) bool { return !(x > n) }},
			{"maximum", "<=", func(x, n float64) bool { return !(x <= n) }},
			{"minimum", ">=", func(x, n float64) bool { return !(x >= n) }},
		}
		for _, c := range cmp {
			if n, has := limit(sch, c.key); has && c.bad(v.Num, n) {
				if fail(rawErr{instance: inst, msg: "must be " + c.op + " " + FormatNumber(n)}) {
					return false
				}
			}
		}
		if n, has := limit(sch, "multipleOf"); has && n != 0 {
			q := v.Num / n
			if q != math.Trunc(q) && fail(rawErr{instance: inst, msg: "must be multiple of " + FormatNumber(n)}) {
				return false
			}
		}
	}
	if c := sch.Get("const"); c != nil && !equalValues(v, c) {
		if fail(rawErr{instance: inst, msg: "must be equal to constant"}) {
			return false
		}
	}
	if e := sch.Get("enum"); e != nil && e.Kind == Array {
		found := false
		for _, x := range e.Arr {
			found = found || equalValues(v, x)
		}
		if !found && fail(rawErr{instance: inst, msg: "must be equal to one of the allowed values"}) {
			return false
		}
	}
	if n := sch.Get("not"); n != nil && s.check(v, n) {
		if fail(rawErr{instance: inst, msg: "must not be valid"}) {
			return false
		}
	}
	if all := sch.Get("allOf"); all != nil {
		for _, b := range all.Arr {
			if !s.errors(v, b, inst, errs, quick) {
				ok = false
				if quick {
					return false
				}
			}
		}
	}
	if any := sch.Get("anyOf"); any != nil && any.Kind == Array {
		matched := false
		var sub []ValidationError
		for _, b := range any.Arr {
			if s.check(v, b) {
				matched = true
				break
			}
			if !quick {
				s.errors(v, b, inst, &sub, false)
			}
		}
		if !matched {
			ok = false
			if quick {
				return false
			}
			*errs = append(*errs, sub...)
			s.add(errs, rawErr{instance: inst, msg: "must match a schema in anyOf"})
		}
	}
	if one := sch.Get("oneOf"); one != nil && one.Kind == Array {
		n := 0
		for _, b := range one.Arr {
			if s.check(v, b) {
				n++
			}
		}
		if n != 1 && fail(rawErr{instance: inst, msg: "must match exactly one schema in oneOf"}) {
			return false
		}
	}
	return ok
}

func (s *Schema) regexp(p string) *regexp.Regexp {
	s.mu.Lock()
	defer s.mu.Unlock()
	if re, ok := s.res[p]; ok {
		return re
	}
	re, _ := regexp.Compile(p)
	s.res[p] = re
	return re
}
