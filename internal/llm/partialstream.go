package llm

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// PartialJSON follows tool-call arguments as they stream and gives, after each delta, what
// pi's parseStreamingJson gives for the text so far, in O(delta) work per delta plus one copy
// of the result (pi re-parses the whole text every time, which is quadratic on a long write).
// It normalises as it reads (JSON.stringify form) and keeps, for the open member of each
// open object or array, where it started, so a member whose value has not begun (or is an
// unparsable number) is dropped the way partial-json drops it. Input it cannot follow
// (invalid JSON, duplicate keys, NaN/Infinity) switches it to re-parsing the whole text.
type PartialJSON struct {
	raw    strings.Builder
	out    []byte
	stack  []pframe
	top    uint8 // state of the top level: tExpect, tIn, tDone
	tok    byte  // current scalar: 0, 's' string, 'n' number, 'l' literal
	isKey  bool
	esc    []byte // pending escape sequence inside a string
	hi     rune   // pending high surrogate from a \u escape
	lit    []byte // raw chars of the current number or literal
	key    []byte // decoded current key
	trail  int    // trailing white-space bytes of the current string (pi trims the text)
	pend   string // an incomplete UTF-8 sequence at the end of the last delta
	broken bool
}

type pframe struct {
	arr   bool
	state uint8
	start int // len(out) where the open member or element starts (before its comma)
	n     int // members or elements so far
	keys  map[string]struct{}
}

const (
	tExpect uint8 = iota
	tIn
	tDone
)

// Frame states.
const (
	fFirst   uint8 = iota // after '{' or '[': a key/value or the end
	fNext                 // after ',': a key/value
	fInKey                // object: inside the key string
	fColon                // object: after the key, before ':'
	fValue                // object: after ':', before the value
	fInValue              // inside a value (scalar token or nested container)
	fAfter                // after a value: ',' or the end
)

// Feed adds a delta.
func (p *PartialJSON) Feed(delta string) {
	p.raw.WriteString(delta)
	if p.broken {
		return
	}
	// A UTF-8 sequence cut between deltas waits for its end.
	if p.pend != "" {
		delta = p.pend + delta
		p.pend = ""
	}
	if k := lastRuneStart(delta); k >= 0 && !utf8.FullRuneInString(delta[k:]) {
		p.pend = delta[k:]
		delta = delta[:k]
	}
	for i := 0; i < len(delta); {
		c := delta[i]
		if p.tok == 's' {
			n := p.strByte(delta, i)
			i += n
			continue
		}
		if p.tok == 'n' || p.tok == 'l' {
			if isScalarByte(c) {
				p.lit = append(p.lit, c)
				i++
				continue
			}
			if !p.endScalar() {
				p.broken = true
				return
			}
		}
		if !p.structural(c) {
			p.broken = true
			return
		}
		i++
	}
}

func lastRuneStart(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return -1
}

func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.'
}

// Raw is everything fed so far.
func (p *PartialJSON) Raw() string { return p.raw.String() }

func (p *PartialJSON) frame() *pframe {
	if len(p.stack) == 0 {
		return nil
	}
	return &p.stack[len(p.stack)-1]
}

// beginValue is called when a value starts in the current position; it writes the comma
// (or nothing) and records where the member starts.
func (p *PartialJSON) beginValue() bool {
	f := p.frame()
	if f == nil {
		if p.top != tExpect {
			return false
		}
		p.top = tIn
		return true
	}
	if f.arr {
		if f.state != fFirst && f.state != fNext {
			return false
		}
		f.start = len(p.out)
		if f.n > 0 {
			p.out = append(p.out, ',')
		}
		f.state = fInValue
		return true
	}
	if f.state != fValue {
		return false
	}
	f.state = fInValue
	return true
}

// endValue is called when a value completes.
func (p *PartialJSON) endValue() {
	f := p.frame()
	if f == nil {
		p.top = tDone
		return
	}
	f.state = fAfter
	f.n++
}

func (p *PartialJSON) structural(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r':
		return true
	case '{', '[':
		if !p.beginValue() {
			return false
		}
		p.out = append(p.out, c)
		p.stack = append(p.stack, pframe{arr: c == '[', state: fFirst, start: len(p.out)})
		return true
	case '}', ']':
		f := p.frame()
		if f == nil || f.arr != (c == ']') || !(f.state == fAfter || (f.state == fFirst && f.n == 0)) {
			return false
		}
		p.out = append(p.out, c)
		p.stack = p.stack[:len(p.stack)-1]
		p.endValue()
		return true
	case ',':
		f := p.frame()
		if f == nil || f.state != fAfter {
			return false
		}
		f.state = fNext
		return true
	case ':':
		f := p.frame()
		if f == nil || f.arr || f.state != fColon {
			return false
		}
		p.out = append(p.out, ':')
		f.state = fValue
		return true
	case '"':
		f := p.frame()
		if f != nil && !f.arr && (f.state == fFirst || f.state == fNext) {
			f.start = len(p.out)
			if f.n > 0 {
				p.out = append(p.out, ',')
			}
			f.state = fInKey
			p.isKey = true
			p.key = p.key[:0]
		} else if !p.beginValue() {
			return false
		} else {
			p.isKey = false
		}
		p.tok = 's'
		p.trail = 0
		p.out = append(p.out, '"')
		return true
	}
	if isScalarByte(c) {
		if !p.beginValue() {
			return false
		}
		p.lit = append(p.lit[:0], c)
		if c == '-' || c >= '0' && c <= '9' {
			p.tok = 'n'
		} else {
			p.tok = 'l'
		}
		return true
	}
	return false
}

// strByte consumes string bytes from s[i:] and returns how many it used.
func (p *PartialJSON) strByte(s string, i int) int {
	if len(p.esc) > 0 {
		p.esc = append(p.esc, s[i])
		p.escape()
		return 1
	}
	c := s[i]
	switch {
	case c == '\\':
		p.esc = append(p.esc[:0], c)
		return 1
	case c == '"':
		if p.hi != 0 {
			p.emitRune(p.hi)
			p.hi = 0
		}
		p.out = append(p.out, '"')
		p.tok = 0
		if p.isKey {
			f := p.frame()
			k := string(p.key)
			if f.keys == nil {
				f.keys = map[string]struct{}{}
			}
			if _, dup := f.keys[k]; dup {
				p.broken = true
			}
			f.keys[k] = struct{}{}
			f.state = fColon
		} else {
			p.endValue()
		}
		return 1
	}
	// A run of plain bytes.
	j := i
	for j < len(s) && s[j] != '"' && s[j] != '\\' {
		j++
	}
	if p.hi != 0 {
		p.emitRune(p.hi)
		p.hi = 0
	}
	chunk := s[i:j]
	// Trailing white space, counted in escaped (output) bytes.
	rest := strings.TrimRightFunc(chunk, isJSSpace)
	t := len(chunk) - len(rest)
	if t > 0 {
		t = len(appendJSStringBody(nil, chunk[len(rest):]))
	}
	if rest == "" {
		p.trail += t
	} else {
		p.trail = t
	}
	p.out = appendJSStringBody(p.out, chunk)
	if p.isKey {
		p.key = append(p.key, chunk...)
	}
	return j - i
}

func (p *PartialJSON) emitRune(r rune) {
	var buf [4]byte
	var s string
	if r >= 0xd800 && r <= 0xdfff {
		// A lone surrogate: JSON.stringify writes it escaped.
		s = ""
		p.out = append(p.out, `\u`...)
		p.out = append(p.out, []byte(strconv.FormatInt(int64(r), 16))...)
		return
	}
	n := utf8.EncodeRune(buf[:], r)
	s = string(buf[:n])
	p.out = appendJSStringBody(p.out, s)
	if p.isKey {
		p.key = append(p.key, s...)
	}
}

// escape handles a complete or growing escape sequence in p.esc.
func (p *PartialJSON) escape() {
	e := p.esc
	if len(e) < 2 {
		return
	}
	var r rune = -1
	p.trail = 0
	switch e[1] {
	case '"':
		r = '"'
	case '\\':
		r = '\\'
	case '/':
		r = '/'
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		if len(e) < 6 {
			return
		}
		v, err := strconv.ParseUint(string(e[2:6]), 16, 16)
		if err != nil {
			p.broken = true
			return
		}
		u := rune(v)
		p.esc = p.esc[:0]
		switch {
		case p.hi != 0 && u >= 0xdc00 && u <= 0xdfff:
			p.emitRune(utf16.DecodeRune(p.hi, u))
			p.hi = 0
		case u >= 0xd800 && u <= 0xdbff:
			if p.hi != 0 {
				p.emitRune(p.hi)
			}
			p.hi = u
		default:
			if p.hi != 0 {
				p.emitRune(p.hi)
				p.hi = 0
			}
			p.emitRune(u)
		}
		return
	default:
		p.broken = true
		return
	}
	p.esc = p.esc[:0]
	if p.hi != 0 {
		p.emitRune(p.hi)
		p.hi = 0
	}
	p.emitRune(r)
}

// endScalar completes a number or literal.
func (p *PartialJSON) endScalar() bool {
	tok := p.tok
	p.tok = 0
	if tok == 'l' {
		switch string(p.lit) {
		case "true", "false", "null":
			p.out = append(p.out, p.lit...)
			p.endValue()
			return true
		}
		return false
	}
	b, ok := jsNumber(p.lit)
	if !ok {
		return false
	}
	p.out = append(p.out, b...)
	p.endValue()
	return true
}

func jsNumber(lit []byte) ([]byte, bool) {
	var n json.Number
	if json.Unmarshal(lit, &n) != nil {
		return nil, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return nil, false
	}
	return AppendJSNumber(nil, f), true
}

// Snapshot is the arguments so far (a fresh slice).
func (p *PartialJSON) Snapshot() json.RawMessage {
	if p.broken {
		return ParseStreamingJSON(p.raw.String())
	}
	cut := len(p.out)
	var tail []byte
	f := p.frame()
	partialScalar := func(start int) {
		switch p.tok {
		case 's':
			if len(p.esc) == 0 {
				cut -= p.trail
			}
			if p.hi != 0 && len(p.esc) == 0 {
				tail = append([]byte(`\u`), strconv.FormatInt(int64(p.hi), 16)...)
			}
			tail = append(tail, '"')
		case 'n':
			if b, ok := jsNumber(p.lit); ok {
				tail = b
			} else if k := strings.LastIndexByte(string(p.lit), 'e'); k > 0 {
				if b, ok := jsNumber(p.lit[:k]); ok {
					tail = b
				} else {
					cut = start
				}
			} else {
				cut = start
			}
		case 'l':
			for _, w := range []string{"true", "false", "null"} {
				if strings.HasPrefix(w, string(p.lit)) {
					tail = []byte(w)
				}
			}
			if tail == nil {
				cut = start
			}
		}
	}
	switch {
	case f == nil:
		switch p.top {
		case tExpect:
			return json.RawMessage("{}")
		case tIn:
			partialScalar(-1)
			if cut < 0 {
				return json.RawMessage("{}") // an unparsable top-level scalar: pi gives {}
			}
		}
	case !f.arr && (f.state == fInKey || f.state == fColon || f.state == fValue):
		cut = f.start
	case f.state == fInValue:
		partialScalar(f.start)
	}
	res := make([]byte, 0, cut+len(tail)+len(p.stack))
	res = append(res, p.out[:cut]...)
	res = append(res, tail...)
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i].arr {
			res = append(res, ']')
		} else {
			res = append(res, '}')
		}
	}
	return res
}

// appendJSStringBody appends s escaped as inside a JSON.stringify string (no quotes).
func appendJSStringBody(b []byte, s string) []byte {
	q := AppendJSString(b, s)
	// AppendJSString wrote the quotes: drop them in place.
	copy(q[len(b):], q[len(b)+1:len(q)-1])
	return q[:len(q)-2]
}
