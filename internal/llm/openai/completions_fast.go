package openai

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/jsonesc"
)

// fastChunk decodes one streamed chunk into ch (a zero chunk) exactly as json.Unmarshal
// would, in one pass over the data and without copying a string that has no escape. A long
// reply is thousands of these chunks, and encoding/json (which validates every chunk, then
// scans it again through reflection, copying each string) was a quarter of a 100 MB reply's
// CPU. It takes the shapes servers send: the known keys spelled exactly, each once, with
// values of their field's type or null, and any other key with any valid value. Anything
// else — a key that matches a field only case-insensitively, a repeated known key, a value of
// the wrong type, invalid JSON — makes it return false with ch in any state: the caller then
// decodes a fresh chunk with encoding/json, which gives the same result or its error
// (TestFastChunkMatchesEncodingJSON, FuzzFastChunk).
func fastChunk(data string, ch *chunk) bool {
	p := fastParser{s: data, b: unsafe.Slice(unsafe.StringData(data), len(data))}
	p.ws()
	if !p.chunk(ch) {
		return false
	}
	p.ws()
	return p.i == len(p.s)
}

type fastParser struct {
	s     string
	b     []byte // the bytes of s, read only
	i     int
	depth int
}

// maxFastDepth bounds the nesting the parser follows in a skipped value (encoding/json allows
// 10,000): deeper chunks take encoding/json.
const maxFastDepth = 64

func (p *fastParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (p *fastParser) peek() byte {
	p.ws()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *fastParser) lit(l string) bool {
	if strings.HasPrefix(p.s[p.i:], l) {
		p.i += len(l)
		return true
	}
	return false
}

// null consumes a null value.
func (p *fastParser) null() bool { return p.peek() == 'n' && p.lit("null") }

// object walks an object, calling field with each key (the raw key: one with an escape or a
// byte over 0x7f makes object fail); field consumes the value and returns false to fail.
func (p *fastParser) object(field func(key string) bool) bool {
	if p.peek() != '{' {
		return false
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		if p.peek() != '"' {
			return false
		}
		key, ok := p.key()
		if !ok || p.peek() != ':' {
			return false
		}
		p.i++
		if !field(key) {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// key reads a key of printable ASCII without escapes.
func (p *fastParser) key() (string, bool) {
	start := p.i + 1
	for j := start; j < len(p.s); j++ {
		switch c := p.s[j]; {
		case c == '"':
			p.i = j + 1
			return p.s[start:j], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return "", false
		}
	}
	return "", false
}

// other decides what to do with a key the struct does not have: encoding/json matches keys
// case-insensitively, so a key equal to a field's but for case is left to it; any other key's
// value is skipped (validated).
func (p *fastParser) other(key string, fields []string) bool {
	for _, f := range fields {
		if strings.EqualFold(key, f) {
			return false
		}
	}
	return p.skip()
}

// once marks field bit in *seen, false when it was already seen.
func once(seen *uint32, bit uint32) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

var (
	chunkFields  = []string{"id", "model", "usage", "error", "choices"}
	choiceFields = []string{"finish_reason", "usage", "delta"}
	deltaFields  = []string{"content", "reasoning_content", "reasoning", "reasoning_text", "tool_calls", "reasoning_details"}
	toolFields   = []string{"index", "id", "function"}
	funcFields   = []string{"name", "arguments"}
)

func (p *fastParser) chunk(ch *chunk) bool {
	var seen uint32
	return p.object(func(key string) bool {
		switch key {
		case "id":
			return once(&seen, 1) && p.stringInto(&ch.ID)
		case "model":
			return once(&seen, 2) && p.stringInto(&ch.Model)
		case "usage":
			return once(&seen, 4) && p.raw(&ch.Usage)
		case "error":
			return once(&seen, 8) && p.raw(&ch.Error)
		case "choices":
			return once(&seen, 16) && p.choices(ch)
		}
		return p.other(key, chunkFields)
	})
}

func (p *fastParser) choices(ch *chunk) bool { return array(p, &ch.Choices, p.choice) }

// array reads a JSON array (or null, leaving *dst nil) whose elements elem reads.
func array[T any](p *fastParser, dst *[]T, elem func(*T) bool) bool {
	if p.null() {
		return true
	}
	if p.peek() != '[' {
		return false
	}
	p.i++
	*dst = make([]T, 0, 1)
	if p.peek() == ']' {
		p.i++
		return true
	}
	for {
		*dst = append(*dst, *new(T))
		if !elem(&(*dst)[len(*dst)-1]) {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

func (p *fastParser) choice(c *choice) bool {
	var seen uint32
	return p.object(func(key string) bool {
		switch key {
		case "finish_reason":
			return once(&seen, 1) && p.stringPtr(&c.FinishReason)
		case "usage":
			return once(&seen, 2) && p.raw(&c.Usage)
		case "delta":
			return once(&seen, 4) && objectPtr(p, &c.Delta, p.delta)
		}
		return p.other(key, choiceFields)
	})
}

func (p *fastParser) delta(d *delta) bool {
	var seen uint32
	return p.object(func(key string) bool {
		switch key {
		case "content":
			return once(&seen, 1) && p.stringPtr(&d.Content)
		case "reasoning_content":
			return once(&seen, 2) && p.raw(&d.ReasoningContent)
		case "reasoning":
			return once(&seen, 4) && p.raw(&d.Reasoning)
		case "reasoning_text":
			return once(&seen, 8) && p.raw(&d.ReasoningText)
		case "tool_calls":
			return once(&seen, 16) && p.toolCalls(d)
		case "reasoning_details":
			return once(&seen, 32) && p.raw(&d.ReasoningDetails)
		}
		return p.other(key, deltaFields)
	})
}

// objectPtr reads an object (or null, leaving *dst nil) into a new *T, read reading it.
func objectPtr[T any](p *fastParser, dst **T, read func(*T) bool) bool {
	if p.null() {
		return true
	}
	*dst = new(T)
	return read(*dst)
}

func (p *fastParser) toolCalls(d *delta) bool { return array(p, &d.ToolCalls, p.toolDelta) }

func (p *fastParser) toolDelta(t *toolDelta) bool {
	var seen uint32
	return p.object(func(key string) bool {
		switch key {
		case "index":
			return once(&seen, 1) && p.intPtr(&t.Index)
		case "id":
			return once(&seen, 2) && p.stringInto(&t.ID)
		case "function":
			return once(&seen, 4) && objectPtr(p, &t.Function, p.function)
		}
		return p.other(key, toolFields)
	})
}

func (p *fastParser) function(f *toolFunction) bool {
	var seen uint32
	return p.object(func(key string) bool {
		switch key {
		case "name":
			return once(&seen, 1) && p.stringPtr(&f.Name)
		case "arguments":
			return once(&seen, 2) && p.stringInto(&f.Arguments)
		}
		return p.other(key, funcFields)
	})
}

// stringInto reads a string into *s; null leaves *s alone (as encoding/json does).
func (p *fastParser) stringInto(s *string) bool {
	if p.null() {
		return true
	}
	v, ok := p.str()
	if ok {
		*s = v
	}
	return ok
}

// stringPtr reads a string into a new *string; null leaves nil.
func (p *fastParser) stringPtr(s **string) bool {
	if p.null() {
		return true
	}
	v, ok := p.str()
	if ok {
		*s = &v
	}
	return ok
}

// intPtr reads an integer into a new *int; null leaves nil. A number with a fraction or an
// exponent, or one out of range, is encoding/json's to refuse.
func (p *fastParser) intPtr(n **int) bool {
	if p.null() {
		return true
	}
	start := p.i
	if !p.number() {
		return false
	}
	v, err := strconv.ParseInt(p.s[start:p.i], 10, 0)
	if err != nil {
		return false
	}
	x := int(v)
	*n = &x
	return true
}

// raw keeps a value's bytes (json.RawMessage gets them even for null).
func (p *fastParser) raw(r *json.RawMessage) bool {
	p.ws()
	start := p.i
	if !p.skip() {
		return false
	}
	*r = json.RawMessage(p.s[start:p.i])
	return true
}

// str reads a string value as encoding/json decodes it. A string without escapes, control
// characters or invalid UTF-8 — a streamed delta nearly always — is a substring of the data.
func (p *fastParser) str() (string, bool) {
	if p.peek() != '"' {
		return "", false
	}
	start := p.i + 1
	end := strings.IndexByte(p.s[start:], '"')
	if end < 0 {
		return "", false
	}
	end += start
	run := p.s[start:end]
	if strings.IndexByte(run, '\\') < 0 {
		if plain, ascii := scanPlain(run); plain && (ascii || utf8.ValidString(run)) {
			p.i = end + 1
			return run, true
		}
	}
	return p.strSlow(start)
}

// scanPlain reports whether s has no control character (plain) and no byte over 0x7f
// (ascii), eight bytes at a time.
func scanPlain(s string) (plain, ascii bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	ascii = true
	i := 0
	// Four words a step while they are all ASCII (a delta nearly always is): the words or-ed
	// together for the high bits, their differences or-ed for a control character.
	for ; i+32 <= len(b); i += 32 {
		w0, w1 := binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+8:])
		w2, w3 := binary.LittleEndian.Uint64(b[i+16:]), binary.LittleEndian.Uint64(b[i+24:])
		if (w0|w1|w2|w3)&highs != 0 {
			break
		}
		if ((w0-0x20*ones)|(w1-0x20*ones)|(w2-0x20*ones)|(w3-0x20*ones))&highs != 0 {
			return false, true
		}
	}
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if w&highs != 0 {
			ascii = false
			for _, c := range b[i : i+8] {
				if c < 0x20 {
					return false, false
				}
			}
			continue
		}
		// With every byte under 0x80, subtracting 0x20 from each sets a high bit (or borrows
		// from the next byte) only when some byte is under 0x20.
		if (w-0x20*ones)&highs != 0 {
			return false, true
		}
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c < 0x20:
			return false, ascii
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return true, ascii
}

// strSlow decodes the string whose contents start at start, as encoding/json does: escapes
// decoded (a lone surrogate becomes U+FFFD), each byte of invalid UTF-8 U+FFFD, a control
// character an error.
func (p *fastParser) strSlow(start int) (string, bool) {
	out := make([]byte, 0, 64)
	for i := start; i < len(p.b); {
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			return string(out), true
		case c == '\\':
			var ok bool
			if out, i, ok = jsonesc.AppendEscape(out, p.b, i); !ok {
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(p.b[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, r)
			} else {
				out = append(out, p.b[i:i+size]...)
			}
			i += size
		}
	}
	return "", false
}

// skip consumes one valid JSON value.
func (p *fastParser) skip() bool {
	switch p.peek() {
	case '"':
		return p.skipString()
	case '{':
		if p.depth++; p.depth > maxFastDepth {
			return false
		}
		ok := p.object(func(string) bool { return p.skip() })
		p.depth--
		return ok
	case '[':
		if p.depth++; p.depth > maxFastDepth {
			return false
		}
		ok := p.skipArray()
		p.depth--
		return ok
	case 't':
		return p.lit("true")
	case 'f':
		return p.lit("false")
	case 'n':
		return p.lit("null")
	}
	return p.number()
}

func (p *fastParser) skipArray() bool {
	p.i++
	if p.peek() == ']' {
		p.i++
		return true
	}
	for {
		if !p.skip() {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// skipString consumes a string, checking its escapes (encoding/json refuses a bad one, and a
// control character; invalid UTF-8 it accepts).
func (p *fastParser) skipString() bool {
	for i := p.i + 1; i < len(p.s); i++ {
		switch c := p.s[i]; {
		case c == '"':
			p.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(p.s) {
				return false
			}
			switch p.s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := jsonesc.Hex4(p.b, i+2); !ok {
					return false
				}
				i += 5
			default:
				return false
			}
		case c < 0x20:
			return false
		}
	}
	return false
}

// number consumes a number in JSON's grammar (jsonesc.NumberEnd).
func (p *fastParser) number() bool {
	i, ok := jsonesc.NumberEnd(p.b, p.i)
	if !ok {
		return false
	}
	p.i = i
	return true
}
