package validate

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Values appear in messages as CUE writes them (the wording must not change with the walker):
// strings in CUE's quoting, floats as CUE's decimals print a float64.

// Quote writes s as a CUE string literal in a message: quote and backslash escaped, printable
// characters as they are, \a \b \f \n \r \t \v, and \uXXXX or \UXXXXXXXX (lowercase hex) for
// the other characters; an invalid byte shows as U+FFFD.
func Quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for len(s) > 0 {
		r, w := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s)
		}
		s = s[w:]
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case strconv.IsPrint(r):
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, '\\')
			switch r {
			case '\a':
				b = append(b, 'a')
			case '\b':
				b = append(b, 'b')
			case '\f':
				b = append(b, 'f')
			case '\n':
				b = append(b, 'n')
			case '\r':
				b = append(b, 'r')
			case '\t':
				b = append(b, 't')
			case '\v':
				b = append(b, 'v')
			default:
				if r < 0x10000 {
					b = append(b, 'u')
					b = appendHex(b, uint32(r), 4)
				} else {
					b = append(b, 'U')
					b = appendHex(b, uint32(r), 8)
				}
			}
		}
	}
	return string(append(b, '"'))
}

func appendHex(b []byte, v uint32, digits int) []byte {
	const hex = "0123456789abcdef"
	for s := (digits - 1) * 4; s >= 0; s -= 4 {
		b = append(b, hex[v>>uint(s)&0xF])
	}
	return b
}

// FormatFloat writes a float64 as CUE's decimal of it prints: the shortest digits that read
// back as f, written plainly when the exponent is not positive and the number is not below
// 1e-6, else in scientific notation ("1E+2", "-1.5E-7").
func FormatFloat(f float64) string {
	e := strconv.FormatFloat(f, 'E', -1, 64) // "-1.2345E+02"
	mant, exp, _ := strings.Cut(e, "E")
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	x, err := strconv.Atoi(exp)
	if err != nil {
		return e // Inf or NaN
	}
	exponent := x - (len(digits) - 1)
	adjusted := x
	var out string
	switch {
	case exponent <= 0 && adjusted >= -6:
		if exponent == 0 {
			out = digits
		} else if n := len(digits) + exponent; n > 0 {
			out = digits[:n] + "." + digits[n:]
		} else {
			out = "0." + strings.Repeat("0", -n) + digits
		}
	default:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if adjusted < 0 {
			sign = "-"
			adjusted = -adjusted
		}
		out += "E" + sign + strconv.Itoa(adjusted)
	}
	if neg {
		out = "-" + out
	}
	return out
}
