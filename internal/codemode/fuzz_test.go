package codemode

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The options header never panics, keeps the line count (line numbers stay the user's) and
// either returns options inside their bounds or one of the seed's messages.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"", " ", "return 1", "// @options: {}\nx", "// @options: {\"max_output_tokens\": 5, \"timeout_ms\": 1e3}\nx",
		"  // @options: {\"a\":1}\r\nx", "// @options:\n", "// @options: [1,2]\nx", "// @options: {\"timeout_ms\": -1}\nx", "// @options: nul\nx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		code, opts, err := ParseSource(in)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, optionsPrefix) && msg != "Expected JavaScript source text (non-empty)." &&
				msg != "The @options line must be followed by JavaScript source on subsequent lines" {
				t.Fatalf("unexpected message %q", msg)
			}
			return
		}
		if strings.Count(code, "\n") != strings.Count(in, "\n") {
			t.Fatalf("line count changed: %q → %q", in, code)
		}
		if opts.MaxOutputTokens < 0 || opts.Timeout < 0 {
			t.Fatalf("options %+v", opts)
		}
	})
}

// Arguments cross the bridge as JSON: whatever JSON value a script passes arrives as the
// same value, and the host's answer comes back unchanged.
func FuzzBridgeArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2,{"b":null}]}`, `"x"`, `1e300`, `[true,false]`, `{"\u2028":"\ud83d\ude00"}`, `-0`, `{"__proto__":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var want any
		if json.Unmarshal([]byte(in), &want) != nil {
			return
		}
		var got json.RawMessage
		o := Run(context.Background(), Script{
			Code:  "return await call(\"echo\", JSON.parse(" + jsString(in) + "))",
			Tools: []Tool{{Name: "echo"}},
			Call: func(_ context.Context, name string, args json.RawMessage) CallOutcome {
				got = args
				return CallOutcome{OK: true, Value: args}
			},
		})
		if !o.OK {
			// A literal JS cannot parse as an expression the same way (e.g. a bare object
			// literal is fine; nothing valid as JSON should fail).
			t.Fatalf("%q: %s", in, o.Err.Text())
		}
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("args %q: %v", got, err)
		}
		if !reflect.DeepEqual(normal(a), normal(want)) {
			t.Fatalf("args %s, want %s", got, in)
		}
		if err := json.Unmarshal([]byte(o.Value), &b); err != nil || !reflect.DeepEqual(normal(b), normal(want)) {
			t.Fatalf("value %q, want %s", o.Value, in)
		}
	})
}

// normal folds -0 into 0 (JSON.stringify(-0) is "0").
func normal(v any) any {
	switch x := v.(type) {
	case float64:
		if x == 0 {
			return 0.0
		}
	case []any:
		for i := range x {
			x[i] = normal(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normal(x[k])
		}
	}
	return v
}
