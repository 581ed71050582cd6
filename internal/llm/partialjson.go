package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode"
)

var errPartial = errors.New("partial json")

// partialParse follows the npm partial-json parser with every partial kind allowed (what
// pi's parseStreamingJson falls back to): it returns the value so far in JSON.stringify form.
func partialParse(s string) (json.RawMessage, bool) {
	s = jsTrim(s)
	if s == "" {
		return nil, false
	}
	p := &pjson{s: s}
	v, err := p.any()
	if err != nil {
		return nil, false
	}
	return appendValue(nil, v), true
}

// isJSSpace is JavaScript's String#trim set: Unicode white space, line terminators and BOM.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }

func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

type pjson struct {
	s string
	i int
}

func (p *pjson) blank() {
	for p.i < len(p.s) && strings.IndexByte(" \n\r\t", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pjson) lit(word string) bool {
	rest := p.s[p.i:]
	if strings.HasPrefix(rest, word) || (len(rest) < len(word) && strings.HasPrefix(word, rest)) {
		p.i += len(word)
		return true
	}
	return false
}

func (p *pjson) any() (any, error) {
	p.blank()
	if p.i >= len(p.s) {
		return nil, errPartial
	}
	switch p.s[p.i] {
	case '"':
		return p.str()
	case '{':
		return p.obj(), nil
	case '[':
		return p.arr(), nil
	}
	switch {
	case p.lit("null"):
		return nil, nil
	case p.lit("true"):
		return true, nil
	case p.lit("false"):
		return false, nil
	case p.lit("Infinity"), p.lit("NaN"):
		return nil, nil // JSON.stringify writes null
	}
	if rest := p.s[p.i:]; len(rest) > 1 && (strings.HasPrefix(rest, "-Infinity") || len(rest) < 9 && strings.HasPrefix("-Infinity", rest)) {
		p.i += 9
		return nil, nil
	}
	return p.num()
}

func (p *pjson) str() (any, error) {
	start := p.i
	esc := false
	p.i++
	for p.i < len(p.s) && (p.s[p.i] != '"' || (esc && p.s[p.i-1] == '\\')) {
		esc = p.s[p.i] == '\\' && !esc
		p.i++
	}
	var out string
	if p.i < len(p.s) {
		p.i++
		end := p.i
		if esc {
			end--
		}
		if err := json.Unmarshal([]byte(p.s[start:end]), &out); err != nil {
			return nil, err
		}
		return out, nil
	}
	end := p.i
	if esc {
		end--
	}
	if err := json.Unmarshal([]byte(p.s[start:end]+`"`), &out); err == nil {
		return out, nil
	}
	if k := strings.LastIndexByte(p.s, '\\'); k >= start {
		if err := json.Unmarshal([]byte(p.s[start:k]+`"`), &out); err == nil {
			return out, nil
		}
	}
	return nil, errPartial
}

func (p *pjson) obj() any {
	p.i++
	p.blank()
	o := &object{vals: map[string]any{}}
	for p.i >= len(p.s) || p.s[p.i] != '}' {
		p.blank()
		if p.i >= len(p.s) {
			return o
		}
		k, err := p.str()
		if err != nil {
			return o
		}
		p.blank()
		p.i++ // the colon
		v, err := p.any()
		if err != nil {
			return o
		}
		key := k.(string)
		if _, dup := o.vals[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = v
		p.blank()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		}
	}
	p.i++
	return o
}

func (p *pjson) arr() any {
	p.i++
	arr := []any{}
	for p.i >= len(p.s) || p.s[p.i] != ']' {
		v, err := p.any()
		if err != nil {
			return arr
		}
		arr = append(arr, v)
		p.blank()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		}
	}
	p.i++
	return arr
}

func (p *pjson) num() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && strings.IndexByte(",]}", p.s[p.i]) < 0 {
		p.i++
	}
	lit := strings.TrimSpace(p.s[start:p.i])
	var n json.Number
	if err := json.Unmarshal([]byte(lit), &n); err == nil {
		return n, nil
	}
	if k := strings.LastIndexByte(lit, 'e'); k > 0 {
		if err := json.Unmarshal([]byte(lit[:k]), &n); err == nil {
			return n, nil
		}
	}
	return nil, errPartial
}
