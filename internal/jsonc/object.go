package jsonc

import (
	"bytes"
	"errors"

	"github.com/pigo-agent/pigo/internal/diag"
)

// ParseObject parses a settings-like file that must hold one object: a syntax error is an
// error at its offset, any other value an error over it; suffix ends each message (what is
// ignored because of it, e.g. " (theme ignored)"). The root is nil when there are errors.
func ParseObject(s *diag.Source, what, suffix string) (*Node, diag.List) {
	var ds diag.List
	root, err := Parse(s.Text)
	if err != nil {
		var se *SyntaxError
		sp := diag.FileSpan(s)
		if errors.As(err, &se) {
			sp = diag.At(s, se.Offset, se.Offset)
		}
		ds.Add(sp, diag.Error, "syntax", "", err.Error()+suffix)
		return nil, ds
	}
	if root.Kind != Object {
		ds.Add(diag.At(s, root.Start, root.End), diag.Error, "schema", "", what+" must be an object"+suffix)
		return nil, ds
	}
	return root, nil
}

// IsEmptyObject reports whether b is a JSON object without members: `{}` with JSON's white
// space around and inside. The effective settings of a run without settings.json are that,
// and their readers answer it without a decode.
func IsEmptyObject(b []byte) bool {
	const ws = " \t\r\n"
	b = bytes.Trim(b, ws)
	return len(b) >= 2 && b[0] == '{' && b[len(b)-1] == '}' && len(bytes.Trim(b[1:len(b)-1], ws)) == 0
}
