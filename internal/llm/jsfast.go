package llm

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/jsonesc"
)

// maxFastDepth bounds the nesting the one-pass writer follows; deeper input takes the tree
// (encoding/json's own limit is 10,000).
const maxFastDepth = 200

// appendStringified appends JSON.stringify(JSON.parse(raw)) to b in one pass over raw. It
// reports false, with b in any state, for what it leaves to the tree: invalid JSON, a repeated
// key in an object (JavaScript keeps its first position and last value), nesting deeper than
// maxFastDepth.
func appendStringified(b, raw []byte) ([]byte, bool) {
	w := fastWriter{in: raw}
	w.space()
	b, ok := w.value(b, 0)
	if !ok {
		return b, false
	}
	w.space()
	return b, w.i == len(raw)
}

type fastWriter struct {
	in   []byte
	i    int
	keys []string // the keys of the objects being written, innermost last
}

func (w *fastWriter) space() {
	for w.i < len(w.in) {
		switch w.in[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *fastWriter) value(b []byte, depth int) ([]byte, bool) {
	if w.i >= len(w.in) || depth > maxFastDepth {
		return b, false
	}
	switch c := w.in[w.i]; {
	case c == '{':
		return w.object(b, depth)
	case c == '[':
		w.i++
		b = append(b, '[')
		w.space()
		if w.i < len(w.in) && w.in[w.i] == ']' {
			w.i++
			return append(b, ']'), true
		}
		for {
			var ok bool
			if b, ok = w.value(b, depth+1); !ok {
				return b, false
			}
			w.space()
			if w.i >= len(w.in) {
				return b, false
			}
			switch w.in[w.i] {
			case ',':
				w.i++
				b = append(b, ',')
				w.space()
			case ']':
				w.i++
				return append(b, ']'), true
			default:
				return b, false
			}
		}
	case c == '"':
		if end := w.canonicalStr(); end > 0 {
			b = append(b, w.in[w.i:end]...)
			w.i = end
			return b, true
		}
		s, ok := w.str()
		if !ok {
			return b, false
		}
		return AppendJSString(b, s), true
	case c == '-' || c >= '0' && c <= '9':
		return w.number(b)
	case c == 't':
		return w.literal(b, "true")
	case c == 'f':
		return w.literal(b, "false")
	case c == 'n':
		return w.literal(b, "null")
	}
	return b, false
}

func (w *fastWriter) object(b []byte, depth int) ([]byte, bool) {
	w.i++
	b = append(b, '{')
	w.space()
	if w.i < len(w.in) && w.in[w.i] == '}' {
		w.i++
		return append(b, '}'), true
	}
	mark := len(w.keys)
	defer func() { w.keys = w.keys[:mark] }()
	for {
		if w.i >= len(w.in) || w.in[w.i] != '"' {
			return b, false
		}
		k, ok := w.str()
		if !ok {
			return b, false
		}
		for _, seen := range w.keys[mark:] {
			if seen == k {
				return b, false
			}
		}
		w.keys = append(w.keys, k)
		b = AppendJSString(b, k)
		w.space()
		if w.i >= len(w.in) || w.in[w.i] != ':' {
			return b, false
		}
		w.i++
		b = append(b, ':')
		w.space()
		if b, ok = w.value(b, depth+1); !ok {
			return b, false
		}
		w.space()
		if w.i >= len(w.in) {
			return b, false
		}
		switch w.in[w.i] {
		case ',':
			w.i++
			b = append(b, ',')
			w.space()
		case '}':
			w.i++
			return append(b, '}'), true
		default:
			return b, false
		}
	}
}

// canonicalStr returns the end of the string at the cursor when its bytes are already what
// AppendJSString writes for it (JSON.stringify's own escapes only, valid UTF-8), so that
// they can be copied as they are; else 0. Tool-call arguments are mostly such strings.
func (w *fastWriter) canonicalStr() int {
	in := w.in
	slow := 0
	for j := w.i + 1; j < len(in); {
		// Eight plain bytes at a time (plain8); when a word has another, its bytes one by one.
		if j >= slow && j+8 <= len(in) {
			w := binary.LittleEndian.Uint64(in[j:])
			if plain8(w) {
				j += 8
				continue
			}
			slow = j + 8
			if w&(0x80*ones8) == 0 {
				// An ASCII word: straight to its first quote, backslash or control (escape8).
				j += bits.TrailingZeros64(escape8(w)) >> 3
			}
		}
		c := in[j]
		switch {
		case c == '"':
			return j + 1
		case c < 0x20:
			return 0
		case c == '\\':
			if j+1 >= len(in) {
				return 0
			}
			switch in[j+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				j += 2
				continue
			case 'u':
				// Only a control character without a short escape, as AppendJSString spells it.
				if j+5 >= len(in) || in[j+2] != '0' || in[j+3] != '0' || (in[j+4] != '0' && in[j+4] != '1') {
					return 0
				}
				h := in[j+5]
				var v byte
				switch {
				case h >= '0' && h <= '9':
					v = h - '0'
				case h >= 'a' && h <= 'f':
					v = h - 'a' + 10
				default:
					return 0
				}
				v |= (in[j+4] - '0') << 4
				if v == '\b' || v == '\f' || v == '\n' || v == '\r' || v == '\t' {
					return 0
				}
				j += 6
				continue
			}
			return 0
		case c < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRune(in[j:])
			if r == utf8.RuneError && n == 1 {
				return 0
			}
			j += n
		}
	}
	return 0
}

// str reads the string at the cursor as encoding/json decodes it. Without escapes and with
// valid UTF-8 it is a view of the input (not copied: the writer only reads it while it runs);
// otherwise encoding/json unquotes it (each invalid byte becomes U+FFFD, so two different
// byte strings can be the same key).
func (w *fastWriter) str() (string, bool) {
	start := w.i
	escaped, ascii := false, true
	for j := start + 1; j < len(w.in); j++ {
		switch c := w.in[j]; {
		case c == '"':
			w.i = j + 1
			if s := w.in[start+1 : j]; !escaped && (ascii || utf8.Valid(s)) {
				if len(s) == 0 {
					return "", true
				}
				return unsafe.String(&s[0], len(s)), true
			}
			return unquote(w.in[start+1 : j])
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// number reads a number in JSON's grammar and writes it as JavaScript prints it.
func (w *fastWriter) number(b []byte) ([]byte, bool) {
	in := w.in
	j, _, ok := scanNumber(in, w.i)
	if !ok {
		return b, false
	}
	tok := in[w.i:j]
	w.i = j
	f, err := strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 64)
	if err != nil {
		// Out of range: ±Inf prints as null, as the tree does.
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return append(b, tok...), true
		}
	}
	return AppendJSNumber(b, f), true
}

// scanNumber reads a number in JSON's grammar from in[i] on: where it ends, and whether it
// is plain (no fraction, no exponent).
func scanNumber(in []byte, i int) (end int, plain, ok bool) {
	j := i
	digits := func() bool {
		k := j
		for j < len(in) && in[j] >= '0' && in[j] <= '9' {
			j++
		}
		return j > k
	}
	if in[j] == '-' {
		j++
	}
	if j < len(in) && in[j] == '0' {
		j++
	} else if !digits() {
		return j, false, false
	}
	plain = true
	if j < len(in) && in[j] == '.' {
		j++
		plain = false
		if !digits() {
			return j, false, false
		}
	}
	if j < len(in) && (in[j] == 'e' || in[j] == 'E') {
		j++
		plain = false
		if j < len(in) && (in[j] == '+' || in[j] == '-') {
			j++
		}
		if !digits() {
			return j, false, false
		}
	}
	return j, plain, true
}

func (w *fastWriter) literal(b []byte, lit string) ([]byte, bool) {
	if len(w.in)-w.i < len(lit) || string(w.in[w.i:w.i+len(lit)]) != lit {
		return b, false
	}
	w.i += len(lit)
	return append(b, lit...), true
}

// unquote decodes the inside of a JSON string literal whose bytes are all at or above 0x20,
// as encoding/json decodes it: a lone or unpaired surrogate escape and each byte of invalid
// UTF-8 become U+FFFD; ok is false for an invalid escape.
func unquote(s []byte) (string, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, r)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
			continue
		}
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' && s[j] < utf8.RuneSelf {
				j++
			}
			out = append(out, s[i:j]...)
			i = j
			continue
		}
		var ok bool
		if out, i, ok = jsonesc.AppendEscape(out, s, i); !ok {
			return "", false
		}
	}
	if len(out) == 0 {
		return "", true
	}
	return unsafe.String(&out[0], len(out)), true
}

// stringifiedOff turns isStringified off (tests compare bodies written both ways).
var stringifiedOff bool

// isStringified reports whether raw is already JSON.stringify(JSON.parse(raw)) byte for byte,
// so that it can be written as it is: no space between tokens, every string as
// AppendJSString writes it (canonicalStr), every number as JavaScript prints it, no key
// repeated in an object, nesting within maxFastDepth. Tool-call arguments written by pi or
// pigo are in this form; checking it costs one pass and no output buffer, where
// appendStringified writes a copy. A false answer only means the slower writer is used.
func isStringified(raw []byte) bool {
	if stringifiedOff || len(raw) == 0 {
		return false
	}
	// The check's methods recurse, so an array for the keys escapes: one from a pool (an
	// array a call was 256 bytes on the heap, 5.8 MB for a 64 MB session's first body).
	kp := stringifiedKeys.Get().(*[]int)
	c := stringifiedCheck{in: raw, keys: (*kp)[:0]}
	ok := c.value(0) && c.i == len(raw)
	if cap(c.keys) <= 1<<10 {
		*kp = c.keys[:0]
		stringifiedKeys.Put(kp)
	}
	return ok
}

// stringifiedKeys holds isStringified's key arrays.
var stringifiedKeys = sync.Pool{New: func() any { k := make([]int, 0, 32); return &k }}

type stringifiedCheck struct {
	in []byte
	i  int
	// keys holds the [start, end) of the keys of the objects being checked, innermost last.
	keys []int
}

func (c *stringifiedCheck) value(depth int) bool {
	if c.i >= len(c.in) || depth > maxFastDepth {
		return false
	}
	switch b := c.in[c.i]; {
	case b == '{':
		return c.object(depth)
	case b == '[':
		c.i++
		if c.i < len(c.in) && c.in[c.i] == ']' {
			c.i++
			return true
		}
		for {
			if !c.value(depth + 1) {
				return false
			}
			if more, ok := c.sep(']'); !more {
				return ok
			}
		}
	case b == '"':
		return c.str()
	case b == '-' || '0' <= b && b <= '9':
		return c.number()
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	}
	return false
}

func (c *stringifiedCheck) str() bool {
	w := fastWriter{in: c.in, i: c.i}
	end := w.canonicalStr()
	if end == 0 {
		return false
	}
	c.i = end
	return true
}

func (c *stringifiedCheck) object(depth int) bool {
	c.i++
	if c.i < len(c.in) && c.in[c.i] == '}' {
		c.i++
		return true
	}
	mark := len(c.keys)
	defer func() { c.keys = c.keys[:mark] }()
	for {
		if c.i >= len(c.in) || c.in[c.i] != '"' {
			return false
		}
		start := c.i
		if !c.str() {
			return false
		}
		// Canonical keys are equal as strings exactly when their bytes are.
		k := c.in[start:c.i]
		for j := mark; j < len(c.keys); j += 2 {
			if string(c.in[c.keys[j]:c.keys[j+1]]) == string(k) {
				return false
			}
		}
		c.keys = append(c.keys, start, c.i)
		if c.i >= len(c.in) || c.in[c.i] != ':' {
			return false
		}
		c.i++
		if !c.value(depth + 1) {
			return false
		}
		if more, ok := c.sep('}'); !more {
			return ok
		}
	}
}

// sep reads what follows an array element or object member: ',' (more follow) or close (ok,
// none do); anything else fails.
func (c *stringifiedCheck) sep(close byte) (more, ok bool) {
	if c.i < len(c.in) {
		switch c.in[c.i] {
		case ',':
			c.i++
			return true, true
		case close:
			c.i++
			return false, true
		}
	}
	return false, false
}

// number checks that the number at the cursor is written as JavaScript prints it: an
// integer of at most 15 digits other than -0 is (it is exact in a float64 and printed
// without exponent); any other number is parsed and printed as fastWriter.number does, and
// compared.
func (c *stringifiedCheck) number() bool {
	in := c.in
	j, plain, ok := scanNumber(in, c.i)
	if !ok {
		return false
	}
	neg := in[c.i] == '-'
	intStart := c.i
	if neg {
		intStart++
	}
	tok := in[c.i:j]
	c.i = j
	if plain && j-intStart <= 15 && !(neg && in[intStart] == '0') {
		return true
	}
	var buf [32]byte
	f, err := strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 64)
	if err != nil {
		// Out of range: JSON.stringify writes null.
		return false
	}
	return string(AppendJSNumber(buf[:0], f)) == string(tok)
}

func (c *stringifiedCheck) literal(lit string) bool {
	if len(c.in)-c.i < len(lit) || string(c.in[c.i:c.i+len(lit)]) != lit {
		return false
	}
	c.i += len(lit)
	return true
}
