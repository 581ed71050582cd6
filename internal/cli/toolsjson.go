package cli

import (
	"strconv"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/engine"
)

// appendToolsJSON appends out as writeJSON prints it: encoding/json's bytes (HTML escaping
// off, no newline), compact, or with indent as json.Indent(dst, doc, "", "  ") lays it out,
// written so at once rather than indented afterwards (appendIndented re-read the document:
// 0.39 M instructions and a second buffer; D25.31) — without reflection. encoding/json builds
// its encoders for the result's types on first use, in every `pigo tools --format json`:
// ~1 M instructions, a tenth of the command (docs/decisions/25-speed.md, D25.29). ok is false
// for what it does not write (a sub-agent's part, --agent; no result): writeJSON then uses
// encoding/json. TestToolsJSONAsEncodingJSON compares the two on many results, both forms.
func appendToolsJSON(b []byte, out *toolsJSON, indent bool) (_ []byte, ok bool) {
	r := out.Result
	if r == nil || out.Agent != nil {
		return b, false
	}
	w := &jsonOut{b: b, indent: indent}
	w.b = append(w.b, '{')
	w.member(1, true, "version")
	w.b = strconv.AppendInt(w.b, int64(out.Version), 10)
	w.member(1, false, "model")
	if r.Model == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '{')
		w.member(2, true, "provider")
		w.b = appendJSONString(w.b, r.Model.Provider)
		w.member(2, false, "id")
		w.b = appendJSONString(w.b, r.Model.ID)
		w.end(1, '}')
	}
	w.member(1, false, "file_io")
	w.b = appendJSONString(w.b, r.FileIO)
	w.member(1, false, "tools")
	list(w, 1, r.Tools, w.toolResult)
	w.member(1, false, "active")
	w.strings(1, r.Active)
	w.member(1, false, "codemode_only")
	w.strings(1, r.CodemodeOnly)
	w.member(1, false, "codemode_callable")
	w.strings(1, r.CodemodeCallable)
	w.member(1, false, "system_prompt")
	w.b = append(w.b, '{')
	w.member(2, true, "tools")
	w.strings(2, r.SystemPrompt.Tools)
	w.member(2, false, "guidelines")
	w.strings(2, r.SystemPrompt.Guidelines)
	w.end(1, '}')
	w.member(1, false, "warnings")
	list(w, 1, r.Warnings, w.warning)
	if out.ModelSource != "" {
		w.member(1, false, "model_source")
		w.b = appendJSONString(w.b, out.ModelSource)
	}
	w.end(0, '}')
	return w.b, true
}

// jsonOut appends a JSON document, compact or indented as json.Indent with "" and "  " lays
// it out: each member and element on its own line at its depth, ": " after a key, and the
// closing bracket of a non-empty object or array on its own line. Empty ones are written
// whole ("[]") by the caller.
type jsonOut struct {
	b      []byte
	indent bool
}

// nl starts a line at depth (indented form only).
func (w *jsonOut) nl(depth int) {
	if w.indent {
		w.b = appendNewline(w.b, depth)
	}
}

// member starts the member key of an object whose members are at depth.
func (w *jsonOut) member(depth int, first bool, key string) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.nl(depth)
	w.b = append(w.b, '"')
	w.b = append(w.b, key...)
	w.b = append(w.b, '"', ':')
	if w.indent {
		w.b = append(w.b, ' ')
	}
}

// elem starts an element of an array whose elements are at depth.
func (w *jsonOut) elem(depth int, first bool) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.nl(depth)
}

// end closes a non-empty object or array that was opened at depth.
func (w *jsonOut) end(depth int, c byte) {
	w.nl(depth)
	w.b = append(w.b, c)
}

// strings appends a []string opened at depth as encoding/json does: null when nil.
func (w *jsonOut) strings(depth int, ss []string) {
	list(w, depth, ss, func(_ int, s *string) { w.b = appendJSONString(w.b, *s) })
}

// list appends xs, an array opened at depth, as encoding/json does: null when nil, [] when
// empty, else each element by elem at the next depth.
func list[T any](w *jsonOut, depth int, xs []T, elem func(depth int, x *T)) {
	switch {
	case xs == nil:
		w.b = append(w.b, "null"...)
	case len(xs) == 0:
		w.b = append(w.b, "[]"...)
	default:
		w.b = append(w.b, '[')
		for i := range xs {
			w.elem(depth+1, i == 0)
			elem(depth+1, &xs[i])
		}
		w.end(depth, ']')
	}
}

// toolResult appends t, an object opened at depth.
func (w *jsonOut) toolResult(depth int, t *engine.ToolResult) {
	d := depth + 1
	w.b = append(w.b, '{')
	w.member(d, true, "name")
	w.b = appendJSONString(w.b, t.Name)
	w.member(d, false, "state")
	w.b = appendJSONString(w.b, string(t.State))
	w.member(d, false, "source")
	w.b = appendJSONString(w.b, t.Source)
	if t.File != "" {
		w.member(d, false, "file")
		w.b = appendJSONString(w.b, t.File)
	}
	if t.Line != 0 {
		w.member(d, false, "line")
		w.b = strconv.AppendInt(w.b, int64(t.Line), 10)
	}
	if t.Column != 0 {
		w.member(d, false, "column")
		w.b = strconv.AppendInt(w.b, int64(t.Column), 10)
	}
	w.member(d, false, "unit")
	w.b = appendJSONString(w.b, t.Unit)
	w.member(d, false, "structured")
	w.b = strconv.AppendBool(w.b, t.Structured)
	w.member(d, false, "prompt_snippet")
	w.b = strconv.AppendBool(w.b, t.PromptSnippet)
	w.member(d, false, "reason")
	w.b = appendJSONString(w.b, t.Reason)
	if t.Rule != nil {
		w.member(d, false, "rule")
		w.b = append(w.b, '{')
		w.member(d+1, true, "file")
		w.b = appendJSONString(w.b, t.Rule.File)
		if t.Rule.Line != 0 {
			w.member(d+1, false, "line")
			w.b = strconv.AppendInt(w.b, int64(t.Rule.Line), 10)
		}
		if t.Rule.Column != 0 {
			w.member(d+1, false, "column")
			w.b = strconv.AppendInt(w.b, int64(t.Rule.Column), 10)
		}
		w.member(d+1, false, "text")
		w.b = appendJSONString(w.b, t.Rule.Text)
		w.end(d, '}')
	}
	w.end(depth, '}')
}

// warning appends wn, an object opened at depth.
func (w *jsonOut) warning(depth int, wn *engine.Warning) {
	d := depth + 1
	w.b = append(w.b, '{')
	w.member(d, true, "code")
	w.b = appendJSONString(w.b, wn.Code)
	w.member(d, false, "message")
	w.b = appendJSONString(w.b, wn.Message)
	if wn.File != "" {
		w.member(d, false, "file")
		w.b = appendJSONString(w.b, wn.File)
	}
	if wn.Line != 0 {
		w.member(d, false, "line")
		w.b = strconv.AppendInt(w.b, int64(wn.Line), 10)
	}
	if wn.Column != 0 {
		w.member(d, false, "column")
		w.b = strconv.AppendInt(w.b, int64(wn.Column), 10)
	}
	if wn.Hint != "" {
		w.member(d, false, "hint")
		w.b = appendJSONString(w.b, wn.Hint)
	}
	w.end(depth, '}')
}

// jsonPlain marks the bytes appendJSONString writes as they are, one bit a byte: printable
// ASCII (0x20-0x7F) but `"` (0x22) and `\` (0x5C). A literal: no work at init.
var jsonPlain = [4]uint64{0xFFFFFFFB_00000000, 0xFFFFFFFF_EFFFFFFF}

// appendJSONString appends s quoted as encoding/json writes it with HTML escaping off: `"` and
// `\` escaped, \b \f \n \r \t by name and other control bytes as \u00XX, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped (encoding/json's appendString, escapeHTML false).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// A run of bytes written as they are, one table load each.
		for i < len(s) && jsonPlain[s[i]>>6]&(1<<(s[i]&63)) != 0 {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
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
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
