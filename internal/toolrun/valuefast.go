package toolrun

import (
	"encoding/json"
	"strconv"
)

// parseFast decodes a well-formed JSON document into a Value in one pass over the bytes:
// the start path parses every tool's parameters schema (modelSchema) and every call's
// arguments, and encoding/json's Decoder.Token allocates for each token (~3% of a
// 4-request session's CPU). ok is false for anything it does not take — malformed input,
// nesting beyond encoding/json's limit — and ParseValue then runs the Decoder, which stays
// the reference (FuzzParseValueFast compares both) and words the errors.
func parseFast(b []byte) (v *Value, ok bool) {
	p := fastParser{b: b}
	p.ws()
	v, ok = p.value(0)
	if !ok {
		return nil, false
	}
	p.ws()
	return v, p.i == len(p.b)
}

// maxDepth is encoding/json's nesting limit; deeper input goes to the Decoder for its error.
const maxDepth = 10000

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *fastParser) value(depth int) (*Value, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		if depth >= maxDepth {
			return nil, false
		}
		p.i++
		v := &Value{Kind: Object, Obj: []Member{}}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return v, true
		}
		for {
			p.ws()
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, false
			}
			p.i++
			p.ws()
			e, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			v.Set(k, e) // JSON.parse: a repeated key keeps its first place, last value
			p.ws()
			if p.i >= len(p.b) {
				return nil, false
			}
			if p.b[p.i] == '}' {
				p.i++
				return v, true
			}
			if p.b[p.i] != ',' {
				return nil, false
			}
			p.i++
		}
	case c == '[':
		if depth >= maxDepth {
			return nil, false
		}
		p.i++
		v := &Value{Kind: Array, Arr: []*Value{}}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return v, true
		}
		for {
			p.ws()
			e, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			v.Arr = append(v.Arr, e)
			p.ws()
			if p.i >= len(p.b) {
				return nil, false
			}
			if p.b[p.i] == ']' {
				p.i++
				return v, true
			}
			if p.b[p.i] != ',' {
				return nil, false
			}
			p.i++
		}
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		return &Value{Kind: String, Str: s}, true
	case c == 't':
		return &Value{Kind: Bool, Bool: true}, p.lit("true")
	case c == 'f':
		return &Value{Kind: Bool}, p.lit("false")
	case c == 'n':
		return &Value{Kind: Null}, p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.num()
	}
	return nil, false
}

// str reads a string. Plain printable ASCII is taken as it is; a string with an escape or a
// byte over 0x7f is decoded by encoding/json (its replacement of invalid UTF-8 and lone
// surrogates is the reference's).
func (p *fastParser) str() (string, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	start := p.i
	p.i++
	plain := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if plain {
				return string(p.b[start+1 : p.i-1]), true
			}
			var s string
			if json.Unmarshal(p.b[start:p.i], &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			p.i += 2
			continue
		case c < 0x20:
			return "", false
		case c >= 0x80:
			plain = false
		}
		p.i++
	}
	return "", false
}

// num reads a number with JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
// Out of float64's range it is what strconv gives (±Inf, or 0), as in the Decoder path.
func (p *fastParser) num() (*Value, bool) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	if err != nil && err.(*strconv.NumError).Err != strconv.ErrRange {
		return nil, false
	}
	return &Value{Kind: Number, Num: f}, true
}
