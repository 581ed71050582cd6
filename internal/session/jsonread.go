package session

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/jsonesc"
)

// A session file is read once, each line decoded by one pass of this reader straight into the
// final types. encoding/json scans every line twice (checkValid, then the decode) and copies
// every string; on a long session that made loading run at 10–20 MB/s. This reader validates
// as it decodes (a line that is not JSON is refused as a whole, as before), and a string
// without escapes is not copied: it points into the line it came from.
//
// The lines are immutable once read (see lines.go): every string and json.RawMessage of an
// entry shares its line's memory, and the line lives as long as the entry. No code may write
// into an entry's bytes; raw slices are handed out with their capacity capped at their length
// so that an append copies instead of writing over the next value.

// jreader is a cursor over one JSON text.
type jreader struct {
	b   []byte
	i   int
	err error
}

var errSyntax = errors.New("invalid JSON")

// errType is a value of the wrong JSON type for its field (encoding/json refuses the whole
// line then, and so does this reader).
type errType struct {
	field, want string
}

func (e *errType) Error() string { return "field " + strconv.Quote(e.field) + ": expected " + e.want }

func (r *jreader) fail(err error) bool {
	if r.err == nil {
		r.err = err
	}
	r.i = len(r.b)
	return false
}

func (r *jreader) ws() {
	for r.i < len(r.b) && r.b[r.i] <= ' ' {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (r *jreader) peek() byte {
	// pi writes no space between tokens: the next byte is nearly always it (every byte a
	// token may start with is above the space), checked here where peek is inlined; ws's
	// loop was a tenth of a load's instructions.
	if r.i < len(r.b) && r.b[r.i] > ' ' {
		return r.b[r.i]
	}
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

// null consumes a null and reports whether there was one (encoding/json leaves a field
// unchanged for null, whatever its type).
func (r *jreader) null() bool {
	if r.peek() == 'n' {
		if r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "null" {
			r.i += 4
			return true
		}
		r.fail(errSyntax)
		return true
	}
	return false
}

// object starts an object; false (and no error) for a null.
func (r *jreader) object(field string) bool {
	switch r.peek() {
	case '{':
		r.i++
		return true
	case 'n':
		r.null()
		return false
	}
	return r.fail(r.typeErr(field, "an object"))
}

// typeErr is errType for a value that is valid JSON of another type, else errSyntax.
func (r *jreader) typeErr(field, want string) error {
	start := r.i
	if r.skip() && r.err == nil {
		return &errType{field, want}
	}
	r.i = start
	return errSyntax
}

// member moves to the next member of an object and returns its key; false at the closing
// brace or on an error. first is true for the first call on an object.
func (r *jreader) member(first *bool) ([]byte, bool) {
	c := r.peek()
	if c == '}' {
		r.i++
		return nil, false
	}
	if !*first {
		if c != ',' {
			return nil, r.fail(errSyntax)
		}
		r.i++
		c = r.peek()
	}
	*first = false
	if c != '"' {
		return nil, r.fail(errSyntax)
	}
	k, ok := r.strBytes()
	if !ok {
		return nil, false
	}
	if r.peek() != ':' {
		return nil, r.fail(errSyntax)
	}
	r.i++
	return k, true
}

// array starts an array; false (and no error) for a null.
func (r *jreader) array(field string) bool {
	switch r.peek() {
	case '[':
		r.i++
		return true
	case 'n':
		r.null()
		return false
	}
	return r.fail(r.typeErr(field, "an array"))
}

// elem moves to the next element of an array; false at the closing bracket or on an error.
func (r *jreader) elem(first *bool) bool {
	c := r.peek()
	if c == ']' {
		r.i++
		return false
	}
	if !*first {
		if c != ',' {
			return r.fail(errSyntax)
		}
		r.i++
	}
	*first = false
	return r.err == nil
}

// strClass marks the bytes a string scan stops at (quote, backslash, control characters) and
// the non-ASCII ones (which need a UTF-8 check).
var strClass = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 1
	}
	t['"'], t['\\'] = 1, 1
	for c := 0x80; c < 0x100; c++ {
		t[c] = 2
	}
	return t
}()

// strBytes reads a string at the cursor. The result aliases the input when the string has
// no escapes and is valid UTF-8; otherwise it is a decoded copy (invalid UTF-8 and lone
// surrogates become U+FFFD, as encoding/json does).
func (r *jreader) strBytes() ([]byte, bool) {
	b, _, ok := r.strBytesCanon()
	return b, ok
}

// strBytesCanon is strBytes that also reports whether the string's bytes in the input are
// exactly what llm.AppendJSString writes for the decoded string (see quoted).
func (r *jreader) strBytesCanon() (b []byte, canon, ok bool) {
	if r.peek() != '"' {
		return nil, false, r.fail(errSyntax)
	}
	start := r.i + 1
	end, high := plainEnd(r.b, start)
	if end >= len(r.b) {
		return nil, false, r.fail(errSyntax)
	}
	if r.b[end] == '"' && (high == 0 || utf8.Valid(r.b[start:end])) {
		// No escapes and valid UTF-8 (no control character either: that is a syntax error):
		// AppendJSString writes such a string as it is.
		r.i = end + 1
		return r.b[start:end:end], true, true
	}
	return r.strSlow(start, end, high)
}

// quoted reads a string field as str does and also returns its quoted bytes in the line
// (quotes included) when they are canonical — exactly what llm.AppendJSString writes for the
// decoded string —, else "". A request body copies them instead of escaping the text again
// (llm.Content.SetQuoted).
func (r *jreader) quoted(field string) (string, string) {
	if r.peek() != '"' {
		return r.str(field), ""
	}
	start := r.i
	b, canon, ok := r.strBytesCanon()
	if !ok {
		return "", ""
	}
	var s, q string
	if len(b) > 0 {
		s = unsafe.String(&b[0], len(b))
	}
	if canon {
		q = unsafe.String(&r.b[start], r.i-start)
	}
	return s, q
}

// canonicalEscape reports whether the escape e (from its backslash to its end, as
// jsonesc.AppendEscape consumed it) is the one AppendJSString writes for the character it
// stands for: JSON.stringify's short escapes, and \u00xx in lower-case hex for the other
// control characters. \/, \u0041, upper-case hex and surrogate escapes are not.
func canonicalEscape(e []byte) bool {
	switch {
	case len(e) == 2:
		switch e[1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			return true
		}
	case len(e) == 6 && e[1] == 'u' && e[2] == '0' && e[3] == '0' && (e[4] == '0' || e[4] == '1'):
		var v byte
		switch h := e[5]; {
		case '0' <= h && h <= '9':
			v = h - '0'
		case 'a' <= h && h <= 'f':
			v = h - 'a' + 10
		default:
			return false
		}
		v |= (e[4] - '0') << 4
		return v != '\b' && v != '\f' && v != '\n' && v != '\r' && v != '\t'
	}
	return false
}

// plainEnd returns the index of the first byte from i on that needs attention inside a string
// (quote, backslash, control character), or len(b), and non-zero when a byte before it was
// not ASCII.
func plainEnd(b []byte, i int) (int, uint64) {
	var high uint64
	if i >= 0 && i+8 <= len(b) {
		// Most calls end in the first word (a string's plain runs between escapes are mostly
		// under 8 bytes): the words are loaded without bounds checks and the shifts without
		// overflow checks (this function was a quarter of a load's instructions).
		p, last := unsafe.Pointer(unsafe.SliceData(b)), len(b)-8
		for {
			w := binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(p, i)), 8))
			if m := attention(w); m != 0 {
				// m's lowest bit is the high bit of the first byte that needs attention (the
				// test is exact up to it: see attention); the bytes before it count for high.
				k := uint(bits.TrailingZeros64(m)) &^ 7 & 63
				return i + int(k>>3), high | w&highs&(1<<k-1)
			}
			high |= w & highs
			if i += 8; i > last {
				break
			}
		}
	}
	for ; i < len(b); i++ {
		c := strClass[b[i]]
		if c == 1 {
			break
		}
		high |= uint64(c)
	}
	return i, high
}

// strSlow decodes a string with escapes or invalid UTF-8 in one pass, checking it as it
// goes: into a pooled buffer, then copied once into an exact new one (the decoded string is
// never longer). It scanned each such string three times (strBytes to the first escape, a
// validating skip to size the buffer, then the decode): 22% of a load's CPU. end and high
// are plainEnd's from start, which strBytes has already scanned.
//
// canon reports whether every escape was canonical (canonicalEscape) and the rest valid
// UTF-8: the string's bytes are then what llm.AppendJSString writes for the result.
func (r *jreader) strSlow(start, end int, high uint64) ([]byte, bool, bool) {
	b := r.b
	bufp := slowBuf.Get().(*[]byte)
	out := (*bufp)[:0]
	defer func() {
		*bufp = out[:0]
		slowBuf.Put(bufp)
	}()
	canon := true
	i, j := start, end
	for {
		if high == 0 || utf8.Valid(b[i:j]) {
			out = append(out, b[i:j]...)
		} else {
			canon = false // each invalid byte becomes U+FFFD
			for k := i; k < j; {
				ru, size := utf8.DecodeRune(b[k:j])
				if ru == utf8.RuneError && size == 1 {
					out = utf8.AppendRune(out, utf8.RuneError)
				} else {
					out = append(out, b[k:k+size]...)
				}
				k += size
			}
		}
		if j >= len(b) {
			return nil, false, r.fail(errSyntax) // no closing quote
		}
		switch b[j] {
		case '"':
			r.i = j + 1
			return append(make([]byte, 0, len(out)), out...), canon, true
		case '\\':
			if j+1 < len(b) {
				if d := shortEscape[b[j+1]]; d != 0 {
					// The short escapes JSON.stringify writes (most of a file's escapes: a
					// newline, a quote), decoded here: canonical, no call.
					out = append(out, d)
					i = j + 2
					break
				}
			}
			var ok bool
			if out, i, ok = jsonesc.AppendEscape(out, b, j); !ok {
				return nil, false, r.fail(errSyntax)
			}
			canon = canon && canonicalEscape(b[j:i])
		default:
			return nil, false, r.fail(errSyntax) // a control character
		}
		j, high = plainEnd(b, i)
	}
}

// shortEscape is what each of the two-byte escapes JSON.stringify writes stands for (0: not
// one of them; \/ is valid but not canonical, and goes the long way with \u).
var shortEscape = [256]byte{'"': '"', '\\': '\\', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// slowBuf holds strSlow's decoding buffers.
var slowBuf = sync.Pool{New: func() any { return new([]byte) }}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// attention has the high bit of each byte of w (little-endian: the first byte lowest) set
// when the byte may need attention inside a string: it is below 0x20, a quote or a
// backslash. It has no false negatives, and no false positive below the first byte that
// does need attention: the subtractions borrow only upward from a byte that underflows, and
// a byte underflows only when it is below 0x20 (w), a quote (q) or a backslash (bs); the
// non-ASCII bytes, whose high bit survives a subtraction in all three, are cleared.
func attention(w uint64) uint64 {
	q, bs := w^('"'*ones), w^('\\'*ones)
	return ((w - 0x20*ones) | (q - ones) | (bs - ones)) &^ (w & q & bs) & highs
}

// str reads a string field (null leaves it "").
func (r *jreader) str(field string) string {
	switch r.peek() {
	case '"':
		b, ok := r.strBytes()
		if !ok || len(b) == 0 {
			return ""
		}
		return unsafe.String(&b[0], len(b))
	case 'n':
		r.null()
		return ""
	}
	r.fail(r.typeErr(field, "a string"))
	return ""
}

// strPtr reads a string field that distinguishes null from absent.
func (r *jreader) strPtr(field string) *string {
	if r.null() {
		return nil
	}
	s := r.str(field)
	return &s
}

func (r *jreader) boolean(field string) bool {
	switch r.peek() {
	case 't':
		if r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "true" {
			r.i += 4
			return true
		}
	case 'f':
		if r.i+5 <= len(r.b) && string(r.b[r.i:r.i+5]) == "false" {
			r.i += 5
			return false
		}
	case 'n':
		r.null()
		return false
	default:
		r.fail(r.typeErr(field, "a boolean"))
		return false
	}
	r.fail(errSyntax)
	return false
}

func (r *jreader) boolPtr(field string) *bool {
	if r.null() {
		return nil
	}
	v := r.boolean(field)
	return &v
}

// number reads a JSON number's text (nil for null).
func (r *jreader) number(field string) []byte {
	c := r.peek()
	if c == 'n' {
		r.null()
		return nil
	}
	if c != '-' && (c < '0' || c > '9') {
		r.fail(r.typeErr(field, "a number"))
		return nil
	}
	start := r.i
	if !r.skipNumber() {
		return nil
	}
	return r.b[start:r.i]
}

// pow10 holds the powers of ten that are exact in a float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// plainNumber reads, at r.i, a number of at most 19 digits with no exponent: its digits as an
// integer, how many of them follow the point, and whether it is negative. ok is false (and
// nothing read) for anything else, which the callers leave to skipNumber and strconv: every
// count, timestamp and cost pi writes takes this path (a tenth of a load's instructions were
// strconv's, scanning each number a second time).
func (r *jreader) plainNumber() (mant uint64, frac int, neg, ok bool) {
	b, i := r.b, r.i
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start := i
	if i < len(b) && b[i] == '0' {
		i++
	} else {
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			mant = mant*10 + uint64(b[i]-'0')
			i++
		}
	}
	digits := i - start
	if digits == 0 {
		return 0, 0, false, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			mant = mant*10 + uint64(b[i]-'0')
			i++
		}
		frac = i - d
		if frac == 0 {
			return 0, 0, false, false
		}
		digits += frac
	}
	if digits > 19 || (i < len(b) && (b[i] == 'e' || b[i] == 'E' || ('0' <= b[i] && b[i] <= '9'))) {
		return 0, 0, false, false
	}
	r.i = i
	return mant, frac, neg, true
}

func (r *jreader) float(field string) float64 {
	if c := r.peek(); c == '-' || ('0' <= c && c <= '9') {
		// Exactly what strconv.ParseFloat gives when the digits and the power of ten are
		// both exact in a float64: one correctly rounded division (strconv's own first case).
		save := r.i
		if mant, frac, neg, ok := r.plainNumber(); ok {
			if mant < 1<<53 && frac < len(pow10) {
				f := float64(mant) / pow10[frac]
				if neg {
					f = -f
				}
				return f
			}
			r.i = save
		}
	}
	n := r.number(field)
	if n == nil {
		return 0
	}
	f, err := strconv.ParseFloat(unsafe.String(&n[0], len(n)), 64)
	if err != nil {
		// Out of range: encoding/json refuses it too.
		r.fail(&errType{field, "a number in range"})
	}
	return f
}

// integer reads a number into an int64. A fraction or an exponent is accepted and truncated
// (pi's JavaScript keeps any number; encoding/json refused the whole line).
func (r *jreader) integer(field string) int64 {
	if c := r.peek(); c == '-' || ('0' <= c && c <= '9') {
		save := r.i
		if mant, frac, neg, ok := r.plainNumber(); ok {
			if frac == 0 && mant < 1<<63 {
				if neg {
					return -int64(mant)
				}
				return int64(mant)
			}
			r.i = save
		}
	}
	n := r.number(field)
	if n == nil {
		return 0
	}
	s := unsafe.String(&n[0], len(n))
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f >= 1<<63 || f < -1<<63 {
		r.fail(&errType{field, "an integer in range"})
		return 0
	}
	return int64(f)
}

func (r *jreader) intPtr(field string) *int {
	if r.null() {
		return nil
	}
	v := int(r.integer(field))
	return &v
}

// raw reads any value and returns its bytes (a null as the bytes "null", as encoding/json
// gives a json.RawMessage). The slice aliases the input.
func (r *jreader) raw() []byte {
	r.ws()
	start := r.i
	if !r.skip() {
		return nil
	}
	return r.b[start:r.i:r.i]
}

// rawStringified is raw for a tool call's arguments, and reports whether they are in
// JSON.stringify's form (llm.Content.SetArgumentsStringified) and how many quotes and
// backslashes they hold: they are checked as they are read, in one pass (a body then
// escapes them without checking or counting them again). Anything the check is not sure of
// (a float, deep nesting) reads as not in that form: the body checks it then.
func (r *jreader) rawStringified() (raw []byte, quotes int, ok bool) {
	r.ws()
	start := r.i
	if end, q, ok := stringifiedEnd(r.b, start, 0); ok {
		r.i = end
		return r.b[start:end:end], q, true
	}
	return r.raw(), 0, false
}

// stringifiedMaxDepth bounds the nesting stringifiedEnd follows (llm's check takes 200).
const stringifiedMaxDepth = 64

// stringifiedEnd returns the end of the JSON value at b[i:] when it is written exactly as
// JSON.stringify writes it: no white space, every string with JSON.stringify's escapes
// only (canonicalEscape) and valid UTF-8, every number an integer of at most 15 digits
// other than -0, no key twice in an object; false when it is not or not surely so (the
// value may still be valid JSON: the caller reads it again the ordinary way). quotes is
// the number of its quotes and backslashes (what escaping it as a JSON string adds).
func stringifiedEnd(b []byte, i, depth int) (end, quotes int, ok bool) {
	if i >= len(b) || depth > stringifiedMaxDepth {
		return 0, 0, false
	}
	switch c := b[i]; {
	case c == '{':
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1, 0, true
		}
		// The keys so far: canonical keys are the same string exactly when their bytes
		// are the same.
		var kb [8][]byte
		keys := kb[:0]
		for {
			if i >= len(b) || b[i] != '"' {
				return 0, 0, false
			}
			end, q, ok := stringifiedStr(b, i)
			if !ok {
				return 0, 0, false
			}
			quotes += q
			k := b[i:end]
			for _, p := range keys {
				if string(p) == string(k) {
					return 0, 0, false
				}
			}
			keys = append(keys, k)
			if end >= len(b) || b[end] != ':' {
				return 0, 0, false
			}
			if i, q, ok = stringifiedEnd(b, end+1, depth+1); !ok || i >= len(b) {
				return 0, 0, false
			}
			quotes += q
			switch b[i] {
			case ',':
				i++
			case '}':
				return i + 1, quotes, true
			default:
				return 0, 0, false
			}
		}
	case c == '[':
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, 0, true
		}
		for {
			var q int
			if i, q, ok = stringifiedEnd(b, i, depth+1); !ok || i >= len(b) {
				return 0, 0, false
			}
			quotes += q
			switch b[i] {
			case ',':
				i++
			case ']':
				return i + 1, quotes, true
			default:
				return 0, 0, false
			}
		}
	case c == '"':
		return stringifiedStr(b, i)
	case c == 't':
		if i+4 <= len(b) && string(b[i:i+4]) == "true" {
			return i + 4, 0, true
		}
	case c == 'f':
		if i+5 <= len(b) && string(b[i:i+5]) == "false" {
			return i + 5, 0, true
		}
	case c == 'n':
		if i+4 <= len(b) && string(b[i:i+4]) == "null" {
			return i + 4, 0, true
		}
	case c == '-' || '0' <= c && c <= '9':
		// An integer JavaScript prints as it is: exact in a float64 (15 digits at most),
		// no leading zero, not -0.
		j := i
		if c == '-' {
			j++
		}
		d := j
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		n := j - d
		if n == 0 || n > 15 || b[d] == '0' && (n > 1 || c == '-') {
			return 0, 0, false
		}
		if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
			return 0, 0, false
		}
		return j, 0, true
	}
	return 0, 0, false
}

// stringifiedStr returns the end of the string at b[i] (its quote) when it is as
// JSON.stringify writes it (llm.AppendJSString): valid UTF-8, no control character, only
// canonical escapes; and its number of quotes and backslashes.
func stringifiedStr(b []byte, i int) (end, quotes int, ok bool) {
	i++
	quotes = 2
	for {
		j, high := plainEnd(b, i)
		if j >= len(b) || high != 0 && !utf8.Valid(b[i:j]) {
			return 0, 0, false
		}
		switch b[j] {
		case '"':
			return j + 1, quotes, true
		case '\\':
			if j+1 < len(b) && shortEscape[b[j+1]] != 0 {
				quotes += 1 + int(quoteOrBackslash[b[j+1]])
				i = j + 2
				continue
			}
			if j+6 <= len(b) && canonicalEscape(b[j:j+6]) {
				quotes++
				i = j + 6
				continue
			}
		}
		return 0, 0, false
	}
}

// quoteOrBackslash is 1 for a quote and a backslash.
var quoteOrBackslash = [256]uint8{'"': 1, '\\': 1}

// skip consumes one value of any type, validating it.
func (r *jreader) skip() bool {
	switch c := r.peek(); {
	case c == '{':
		r.i++
		first := true
		for {
			if _, ok := r.member(&first); !ok {
				return r.err == nil
			}
			if !r.skip() {
				return false
			}
		}
	case c == '[':
		r.i++
		first := true
		for r.elem(&first) {
			if !r.skip() {
				return false
			}
		}
		return r.err == nil
	case c == '"':
		_, ok := r.skipString()
		return ok
	case c == 't':
		if r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "true" {
			r.i += 4
			return true
		}
	case c == 'f':
		if r.i+5 <= len(r.b) && string(r.b[r.i:r.i+5]) == "false" {
			r.i += 5
			return true
		}
	case c == 'n':
		if r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "null" {
			r.i += 4
			return true
		}
	case c == '-' || '0' <= c && c <= '9':
		return r.skipNumber()
	}
	return r.fail(errSyntax)
}

// skipString moves past a string without decoding it, validating it; it reports whether the
// string had escapes.
func (r *jreader) skipString() (escaped, ok bool) {
	b := r.b
	i := r.i + 1
	for {
		i, _ = plainEnd(b, i)
		if i >= len(b) {
			return false, r.fail(errSyntax)
		}
		switch b[i] {
		case '"':
			r.i = i + 1
			return escaped, true
		case '\\':
			escaped = true
			if i+1 >= len(b) {
				return false, r.fail(errSyntax)
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := jsonesc.Hex4(b, i+2); !ok {
					return false, r.fail(errSyntax)
				}
				i += 6
			default:
				return false, r.fail(errSyntax)
			}
		default:
			return false, r.fail(errSyntax) // a control character
		}
	}
}

// skipNumber moves past a number, checking JSON's number grammar.
func (r *jreader) skipNumber() bool {
	i, ok := jsonesc.NumberEnd(r.b, r.i)
	if !ok {
		return r.fail(errSyntax)
	}
	r.i = i
	return true
}

// end checks that nothing but space follows the value.
func (r *jreader) end() error {
	if r.err != nil {
		return r.err
	}
	if r.peek() != 0 || r.i < len(r.b) {
		return errSyntax
	}
	return nil
}
