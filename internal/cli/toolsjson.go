package cli

import (
	"strconv"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/engine"
)

// appendToolsJSON appends out as writeJSON's encoder writes it (encoding/json, HTML escaping
// off, compact, no newline), without reflection. encoding/json builds its encoders for the
// result's types on first use, in every `pigo tools --format json`: ~1 M instructions, a
// tenth of the command (docs/decisions/25-speed.md, D25.29). ok is false for what it does
// not write (a sub-agent's part, --agent; no result): writeJSON then uses encoding/json.
// TestToolsJSONAsEncodingJSON compares the two on many results.
func appendToolsJSON(b []byte, out *toolsJSON) (_ []byte, ok bool) {
	r := out.Result
	if r == nil || out.Agent != nil {
		return b, false
	}
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, int64(out.Version), 10)
	b = append(b, `,"model":`...)
	if r.Model == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"provider":`...)
		b = appendJSONString(b, r.Model.Provider)
		b = append(b, `,"id":`...)
		b = appendJSONString(b, r.Model.ID)
		b = append(b, '}')
	}
	b = append(b, `,"file_io":`...)
	b = appendJSONString(b, r.FileIO)
	b = append(b, `,"tools":`...)
	if r.Tools == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendToolResult(b, &r.Tools[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"active":`...)
	b = appendJSONStrings(b, r.Active)
	b = append(b, `,"codemode_only":`...)
	b = appendJSONStrings(b, r.CodemodeOnly)
	b = append(b, `,"codemode_callable":`...)
	b = appendJSONStrings(b, r.CodemodeCallable)
	b = append(b, `,"system_prompt":{"tools":`...)
	b = appendJSONStrings(b, r.SystemPrompt.Tools)
	b = append(b, `,"guidelines":`...)
	b = appendJSONStrings(b, r.SystemPrompt.Guidelines)
	b = append(b, `},"warnings":`...)
	if r.Warnings == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendWarning(b, &r.Warnings[i])
		}
		b = append(b, ']')
	}
	if out.ModelSource != "" {
		b = append(b, `,"model_source":`...)
		b = appendJSONString(b, out.ModelSource)
	}
	return append(b, '}'), true
}

func appendToolResult(b []byte, t *engine.ToolResult) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, t.Name)
	b = append(b, `,"state":`...)
	b = appendJSONString(b, string(t.State))
	b = append(b, `,"source":`...)
	b = appendJSONString(b, t.Source)
	if t.File != "" {
		b = append(b, `,"file":`...)
		b = appendJSONString(b, t.File)
	}
	if t.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(t.Line), 10)
	}
	if t.Column != 0 {
		b = append(b, `,"column":`...)
		b = strconv.AppendInt(b, int64(t.Column), 10)
	}
	b = append(b, `,"unit":`...)
	b = appendJSONString(b, t.Unit)
	b = append(b, `,"structured":`...)
	b = strconv.AppendBool(b, t.Structured)
	b = append(b, `,"prompt_snippet":`...)
	b = strconv.AppendBool(b, t.PromptSnippet)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, t.Reason)
	if t.Rule != nil {
		b = append(b, `,"rule":{"file":`...)
		b = appendJSONString(b, t.Rule.File)
		if t.Rule.Line != 0 {
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(t.Rule.Line), 10)
		}
		if t.Rule.Column != 0 {
			b = append(b, `,"column":`...)
			b = strconv.AppendInt(b, int64(t.Rule.Column), 10)
		}
		b = append(b, `,"text":`...)
		b = appendJSONString(b, t.Rule.Text)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendWarning(b []byte, w *engine.Warning) []byte {
	b = append(b, `{"code":`...)
	b = appendJSONString(b, w.Code)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, w.Message)
	if w.File != "" {
		b = append(b, `,"file":`...)
		b = appendJSONString(b, w.File)
	}
	if w.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(w.Line), 10)
	}
	if w.Column != 0 {
		b = append(b, `,"column":`...)
		b = strconv.AppendInt(b, int64(w.Column), 10)
	}
	if w.Hint != "" {
		b = append(b, `,"hint":`...)
		b = appendJSONString(b, w.Hint)
	}
	return append(b, '}')
}

// appendJSONStrings appends a []string as encoding/json does: null when nil.
func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONString appends s quoted as encoding/json writes it with HTML escaping off: `"` and
// `\` escaped, \b \f \n \r \t by name and other control bytes as \u00XX, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped (encoding/json's appendString, escapeHTML false).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
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
