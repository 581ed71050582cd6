package toolrun

import (
	"encoding/json"
	"testing"
)

// FuzzArguments: any bytes as arguments and any schema never panic; a result that validates
// is valid JSON that validates again unchanged, and the echo is valid JSON.
func FuzzArguments(f *testing.F) {
	for _, c := range validationCases {
		f.Add(c.schema, c.args)
	}
	f.Add(`{"type":"array","items":{"anyOf":[{"type":"integer"},{"const":"x"}]}}`, `["1","x",2.5]`)
	f.Add(`{"type":["string","null"],"pattern":"(["}`, `null`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		s, err := CompileSchema(json.RawMessage(schema))
		if err != nil {
			return
		}
		v, err := ParseValue([]byte(args))
		if err != nil {
			return
		}
		if !json.Valid([]byte(v.Indent())) {
			t.Fatalf("echo is not JSON: %q", v.Indent())
		}
		out, err := ValidateArguments("t", s, v)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("result is not JSON: %s", out)
		}
		again, err := ParseValue(out)
		if err != nil {
			t.Fatal(err)
		}
		if errs := s.Errors(again); len(errs) > 0 {
			t.Fatalf("validated arguments %s fail again: %v", out, errs)
		}
	})
}
