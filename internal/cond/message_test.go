package cond

import (
	"errors"
	"regexp"
	"testing"
)

// Compile errors shown to users never name Go types, and misspelt fields and names get a
// did-you-mean.
func TestFriendlyMessages(t *testing.T) {
	goType := regexp.MustCompile(`cond\.|\bint\b|\bfloat64\b|\bbool\b|\[\]string|interface \{\}`)
	cases := []struct{ expr, msg, hint string }{
		{"model.inptu", `model has no field "inptu"`, "did you mean model.input?"},
		{"lsp.server", `lsp has no field "server"`, "did you mean lsp.servers?"},
		{"modle.id == 'x'", `unknown name "modle"`, "did you mean model?"},
		{"model.id + 1", "invalid operation: + (mismatched types string and number)", ""},
		{"headless.x", `a boolean has no field "x"`, ""},
		{"model.input in 'x'", "invalid operation: in (mismatched types list of strings and string)", ""},
	}
	for _, c := range cases {
		_, err := Compile(c.expr)
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v", c.expr, err)
		}
		msg, hint := Friendly(ce.Message)
		if msg != c.msg || hint != c.hint {
			t.Errorf("%s: %q / %q, want %q / %q", c.expr, msg, hint, c.msg, c.hint)
		}
		if goType.MatchString(msg) {
			t.Errorf("%s: Go type name in %q", c.expr, msg)
		}
	}
}
