package llm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// JSONStringify re-serialises a JSON value the way JavaScript's JSON.stringify(JSON.parse(raw))
// does: compact, keys in source order (a repeated key keeps its first position and last
// value), strings with JavaScript's escapes, numbers in JavaScript's shortest form. pi sends
// and stores tool arguments and error bodies this way, so pigo's bytes match pi's.
//
// Well-formed input with no repeated key (what tool schemas, tool-call arguments and request
// bodies are) takes one pass over the bytes (appendStringified); anything else goes through
// the ordered tree below, which is the reference: FuzzJSONStringifyFast checks that both give
// the same bytes. A request estimates its size from its tools' JSON and writes every schema
// and argument this way, each turn: the token-by-token decoder was ~15% of a short -p
// session's CPU.
func JSONStringify(raw []byte) ([]byte, error) {
	if out, ok := appendStringified(make([]byte, 0, len(raw)), raw); ok {
		return out, nil
	}
	return jsonStringifyTree(raw)
}

// jsonStringifyTree is JSONStringify through an ordered tree of encoding/json tokens.
func jsonStringifyTree(raw []byte) ([]byte, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := decodeOrdered(d, &v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, &json.SyntaxError{Offset: d.InputOffset()}
	}
	return appendValue(nil, v), nil
}

// object is a JSON object with its keys in source order.
type object struct {
	keys []string
	vals map[string]any
}

func decodeOrdered(d *json.Decoder, out *any) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return err
				}
				k := kt.(string)
				var v any
				if err := decodeOrdered(d, &v); err != nil {
					return err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			if _, err := d.Token(); err != nil {
				return err
			}
			*out = o
		case '[':
			arr := []any{}
			for d.More() {
				var v any
				if err := decodeOrdered(d, &v); err != nil {
					return err
				}
				arr = append(arr, v)
			}
			if _, err := d.Token(); err != nil {
				return err
			}
			*out = arr
		}
	default:
		*out = t
	}
	return nil
}

func appendValue(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !math.IsInf(f, 0) {
			return append(b, t...)
		}
		return AppendJSNumber(b, f)
	case string:
		return AppendJSString(b, t)
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case *object:
		b = append(b, '{')
		for i, k := range t.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSString(b, k)
			b = append(b, ':')
			b = appendValue(b, t.vals[k])
		}
		return append(b, '}')
	}
	return b
}

// AppendJSNumber appends f as JavaScript's Number#toString writes it inside JSON.stringify
// (non-finite numbers become null).
func AppendJSNumber(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...)
	}
	if f == 0 {
		return append(b, '0')
	}
	a := math.Abs(f)
	if a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	// Go writes e-07 / e+21; JavaScript e-7 / e+21.
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		s = mant + "e" + string(sign) + digits
	}
	return append(b, s...)
}

// plain8 reports whether none of the 8 bytes of x is a control character, '"', '\\' or a
// byte from 0x80 (what a JSON string holds as it is, in ASCII). Each test is the bit hack
// "x has a byte less than n" (exact for n up to 0x80): below 0x20, and below 1 once '"' or
// '\\' is turned to 0 by the xor.
func plain8(x uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := x ^ ('"' * lo)
	b := x ^ ('\\' * lo)
	return ((x-0x20*lo)&^x|(q-lo)&^q|(b-lo)&^b|x)&hi == 0
}

const ones8 = 0x0101010101010101

// escape8 has the high bit of each byte of the ASCII word x (little-endian: the first byte
// lowest) set when the byte may need an escape: below 0x20, a quote or a backslash. It has
// no false negatives and no false positive below the first byte that needs one (a
// subtraction borrows only upward from a byte that underflows, and one underflows only at
// such a byte), so its trailing zeros find that byte.
func escape8(x uint64) uint64 {
	q := x ^ ('"' * ones8)
	b := x ^ ('\\' * ones8)
	return ((x-0x20*ones8)&^x | (q-ones8)&^q | (b-ones8)&^b) & (0x80 * ones8)
}

// appendStringifiedQuoted appends raw, JSON in JSON.stringify's form (isStringified holds),
// as a JSON string: AppendJSString(b, raw) byte for byte. Such JSON is valid UTF-8 and has no
// control character (its strings escape them, and it has no white space), so of
// AppendJSString's escapes only \" and \\ apply: its words of eight bytes are stored whole, in
// pieces at their quotes and backslashes, into room counted first. Tool-call arguments are such JSON with an escape every eight bytes or so (code with
// its \n and \" in edit calls), where AppendJSString's scan stops at each: at 4 MB of pi's
// session it was ~40% of the first body's instructions. TestStringifiedQuotedSame and
// FuzzStringifiedQuoted keep the two the same.
func appendStringifiedQuoted(b []byte, raw []byte) []byte {
	n := len(raw) + 2
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		n += bits.OnesCount64(quoteOrBackslash(binary.LittleEndian.Uint64(raw[i:])))
	}
	for ; i < len(raw); i++ {
		n += int(quoteEscape[raw[i]])
	}
	return appendStringifiedQuotedN(b, raw, n)
}

// appendStringifiedQuotedN is appendStringifiedQuoted with the length it writes already
// counted (n: raw's length, its quotes and backslashes, and two).
func appendStringifiedQuotedN(b []byte, raw []byte, n int) []byte {
	b = slices.Grow(b, n)
	out := b[len(b) : len(b)+n]
	out[0] = '"'
	j := 1
	i := 0
	// A word at a time while eight more bytes follow it: its bytes are stored whole, and
	// before each quote or backslash in it the bytes so far are stored as a whole word too
	// (what lands past them is overwritten next), then the backslash. The stores stay
	// within out: the word's output and at least nine more bytes follow where they start.
	for ; i+16 <= len(raw); i += 8 {
		w := binary.LittleEndian.Uint64(raw[i:])
		m := quoteOrBackslash(w)
		start := 0 // the first byte of w not stored yet
		for m != 0 {
			p := bits.TrailingZeros64(m) >> 3
			binary.LittleEndian.PutUint64(out[j:], w>>(8*start))
			j += p - start
			out[j] = '\\'
			j++
			start = p
			m &= m - 1
		}
		binary.LittleEndian.PutUint64(out[j:], w>>(8*start))
		j += 8 - start
	}
	for _, c := range raw[i:] {
		out[j] = '\\'
		j += int(quoteEscape[c])
		out[j] = c
		j++
	}
	out[j] = '"'
	return b[:len(b)+n]
}

// quoteEscape is 1 for the bytes appendStringifiedQuoted escapes (quote, backslash).
var quoteEscape = [256]uint8{'"': 1, '\\': 1}

// quoteOrBackslash has the high bit of each byte of w set exactly where the byte is a quote
// or a backslash (the exact zero-byte test, (x&0x7f..)+0x7f.. setting the high bit of each
// non-zero byte without a carry between bytes, on w with each sought byte made zero).
func quoteOrBackslash(w uint64) uint64 {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	q, bs := w^('"'*ones8), w^('\\'*ones8)
	zq := ^((q&lo7 + lo7) | q | lo7)
	zb := ^((bs&lo7 + lo7) | bs | lo7)
	return zq | zb
}

// AppendJSString appends s as a JSON string with JSON.stringify's escapes: \" \\ \b \f \n \r
// \t, other control characters as \u00xx, everything else (HTML characters, U+2028) raw.
// Invalid UTF-8 bytes become U+FFFD.
func AppendJSString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		// The run of characters written as they are is copied at once: a request body is
		// mostly such text (a long session's body is megabytes of it, rebuilt every turn).
		j, slow := i, i
		for j < len(s) {
			// Eight plain bytes at a time; when a word has another, its bytes one by one.
			if j >= slow && j+8 <= len(s) {
				w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[j:]), 8))
				if plain8(w) {
					j += 8
					continue
				}
				slow = j + 8
				if w&(0x80*ones8) == 0 {
					// An ASCII word: straight to its first byte to escape (escape8).
					j += bits.TrailingZeros64(escape8(w)) >> 3
				}
			}
			if c := s[j]; c < utf8.RuneSelf {
				if c < 0x20 || c == '"' || c == '\\' {
					break
				}
				j++
			} else if r, n := utf8.DecodeRuneInString(s[j:]); r == utf8.RuneError && n == 1 {
				break
			} else {
				j += n
			}
		}
		b = append(b, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				if c < 0x20 {
					b = append(b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
				} else {
					b = append(b, c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// ParseStreamingJSON is pi's parseStreamingJson: the arguments of a tool call whose JSON may be
// incomplete or slightly malformed, as a JSON object or value in JSON.stringify form. It tries
// a strict parse, then one after repairing raw control characters and bad escapes, then
// partial-json's lenient parse (an unterminated string, number, literal, array or object is
// closed; an incomplete member is dropped), and gives {} when nothing parses.
func ParseStreamingJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if out, err := JSONStringify([]byte(s)); err == nil {
		return out
	}
	rep := repairJSON(s)
	if rep != s {
		if out, err := JSONStringify([]byte(rep)); err == nil {
			return out
		}
	}
	if out, ok := partialParse(s); ok {
		return out
	}
	if out, ok := partialParse(rep); ok {
		return out
	}
	return json.RawMessage("{}")
}

// repairJSON escapes raw control characters inside strings and doubles a backslash before
// an invalid escape (pi's repairJson).
func repairJSON(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !in {
			b.WriteByte(c)
			if c == '"' {
				in = true
			}
			continue
		}
		switch {
		case c == '"':
			b.WriteByte(c)
			in = false
		case c == '\\':
			if i+1 >= len(s) {
				b.WriteString(`\\`)
				continue
			}
			n := s[i+1]
			if n == 'u' && i+6 <= len(s) && isHex4(s[i+2:i+6]) {
				b.WriteString(s[i : i+6])
				i += 5
				continue
			}
			if strings.IndexByte("\"\\/bfnrtu", n) >= 0 {
				b.WriteByte('\\')
				b.WriteByte(n)
				i++
				continue
			}
			b.WriteString(`\\`)
		case c < 0x20:
			switch c {
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&15])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// DecodeOrdered decodes JSON keeping object key order: objects become Obj, arrays []any,
// numbers json.Number (AppendJSON writes it back in JSON.stringify form).
func DecodeOrdered(raw []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := decodeOrdered(d, &v); err != nil {
		return nil, err
	}
	return toObj(v), nil
}

func toObj(v any) any {
	switch t := v.(type) {
	case *object:
		o := make(Obj, 0, len(t.keys))
		for _, k := range t.keys {
			o = append(o, Field{k, toObj(t.vals[k])})
		}
		return o
	case []any:
		for i := range t {
			t[i] = toObj(t[i])
		}
		return t
	}
	return v
}

// RepairJSON is pi's repairJson: raw control characters inside strings escaped, a backslash
// before an invalid escape doubled.
func RepairJSON(s string) string { return repairJSON(s) }
