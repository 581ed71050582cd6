package codemode

import (
	"errors"
	"math"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

const optionsPrefix = "// @options:"

// DefaultOutputTokens is the output budget without a max_output_tokens option.
const DefaultOutputTokens = 10000

// Options are the `// @options:` header's fields.
type Options struct {
	// MaxOutputTokens is the output budget (0: DefaultOutputTokens).
	MaxOutputTokens float64
	// Timeout is timeout_ms (0: not set; the run then gets DefaultTimeout or
	// DefaultHeadlessTimeout, where the seed has none).
	Timeout time.Duration
}

// ParseSource splits the optional `// @options: {...}` first line off a script. The options
// line becomes an empty line, so the script's line numbers stay the user's. The errors are
// the seed's texts.
func ParseSource(input string) (code string, opts Options, err error) {
	if strings.TrimSpace(input) == "" {
		return "", opts, errors.New("Expected JavaScript source text (non-empty).")
	}
	nl := strings.IndexByte(input, '\n')
	first := input
	if nl >= 0 {
		first = input[:nl]
	}
	first = strings.TrimSuffix(first, "\r")
	trimmed := strings.TrimLeft(first, jsSpace)
	if !strings.HasPrefix(trimmed, optionsPrefix) {
		return input, opts, nil
	}
	if nl >= 0 {
		code = input[nl:]
	}
	if strings.TrimSpace(code) == "" {
		return "", opts, errors.New("The @options line must be followed by JavaScript source on subsequent lines")
	}
	opts, err = parseOptions(strings.Trim(trimmed[len(optionsPrefix):], jsSpace))
	return code, opts, err
}

// jsSpace is what String.prototype.trim removes (the common part of it).
const jsSpace = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

func parseOptions(text string) (Options, error) {
	var opts Options
	v, err := toolrun.ParseValue([]byte(text))
	if err != nil {
		return opts, errors.New(optionsPrefix + " expects a JSON object, got " + jsString(text))
	}
	if v.Kind != toolrun.Object {
		return opts, errors.New(optionsPrefix + " expects a JSON object")
	}
	for _, m := range v.Obj {
		if m.Key != "max_output_tokens" && m.Key != "timeout_ms" {
			return opts, errors.New(optionsPrefix + " does not support " + jsString(m.Key) + "; supported fields are `max_output_tokens` and `timeout_ms`")
		}
		if m.Value.Kind != toolrun.Number || math.IsInf(m.Value.Num, 0) || math.IsNaN(m.Value.Num) || m.Value.Num <= 0 {
			return opts, errors.New(optionsPrefix + " " + m.Key + " must be a positive number")
		}
		if m.Key == "max_output_tokens" {
			opts.MaxOutputTokens = m.Value.Num
		} else {
			ms := m.Value.Num
			if ms > float64(math.MaxInt64/int64(time.Millisecond)) {
				ms = float64(math.MaxInt64 / int64(time.Millisecond))
			}
			opts.Timeout = time.Duration(ms * float64(time.Millisecond))
			if opts.Timeout <= 0 {
				opts.Timeout = 1
			}
		}
	}
	return opts, nil
}

// jsString is JSON.stringify of a string (llm.AppendJSString).
func jsString(s string) string { return string(llm.AppendJSString(nil, s)) }
