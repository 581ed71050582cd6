// Package jsonesc holds the lexical pieces pigo's one-pass JSON readers share (the session
// file's reader, the provider bodies' writer, the fast JSONC reader): the escapes of string
// literals decoded as encoding/json does (a lone or unpaired surrogate escape becomes U+FFFD),
// and JSON's number grammar.
package jsonesc

import (
	"unicode/utf16"
	"unicode/utf8"
)

// AppendEscape decodes the escape that starts at b[i] (a backslash) onto out and returns out
// and the index after the escape; ok is false for an invalid or cut escape.
func AppendEscape(out, b []byte, i int) (_ []byte, next int, ok bool) {
	if i+1 >= len(b) {
		return out, i, false
	}
	switch e := b[i+1]; e {
	case '"', '\\', '/':
		return append(out, e), i + 2, true
	case 'b':
		return append(out, '\b'), i + 2, true
	case 'f':
		return append(out, '\f'), i + 2, true
	case 'n':
		return append(out, '\n'), i + 2, true
	case 'r':
		return append(out, '\r'), i + 2, true
	case 't':
		return append(out, '\t'), i + 2, true
	case 'u':
		r1, ok := Hex4(b, i+2)
		if !ok {
			return out, i, false
		}
		i += 6
		r := r1
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
			if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
				if r2, ok := Hex4(b, i+2); ok {
					if d := utf16.DecodeRune(r1, r2); d != utf8.RuneError {
						r = d
						i += 6
					}
				}
			}
		}
		return utf8.AppendRune(out, r), i, true
	}
	return out, i, false
}

// Hex4 reads the four hex digits at b[i:].
func Hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// NumberEnd reads a number of JSON's grammar, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?,
// from b[i] and returns the index after it; ok is false when b[i:] does not begin with one
// (no digit where the grammar needs one).
func NumberEnd(b []byte, i int) (end int, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		d := i + 1
		if i = digits(b, d); i == d {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		if i = digits(b, d); i == d {
			return i, false
		}
	}
	return i, true
}

// digits is the index after the run of ASCII digits at b[i].
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
