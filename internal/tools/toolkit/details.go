package toolkit

import (
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// ErrDetails is an error result with the seed's details object.
func ErrDetails(text string, details any) toolrun.Result {
	r := toolrun.TextResult(text, details)
	r.IsError = true
	return r
}

func IsJSSpaceRune(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
