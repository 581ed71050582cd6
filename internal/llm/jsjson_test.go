package llm

import (
	"testing"
)

func TestJSONStringify(t *testing.T) {
	for in, want := range map[string]string{
		`{ "b" : 1, "a":[1.0, 2e3, -0.5e-8,"x\u00e9\/"], "b": 2 }`: `{"b":2,"a":[1,2000,-5e-9,"xé/"]}`,
		`"<\u2028>\u0001"`:         "\"<\u2028>\\u0001\"",
		`1e21`:                     `1e+21`,
		`123456789012345678901234`: `1.2345678901234569e+23`,
	} {
		got, err := JSONStringify([]byte(in))
		if err != nil {
			t.Fatal(in, err)
		}
		if string(got) != want {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
	if _, err := JSONStringify([]byte(`{"a":1} x`)); err == nil {
		t.Error("trailing garbage accepted")
	}
}

func TestParseStreamingJSON(t *testing.T) {
	for in, want := range map[string]string{
		``:                               `{}`,
		`{"path":"a.t`:                   `{"path":"a.t"}`,
		`{"path":"a.txt","n":1`:          `{"path":"a.txt","n":1}`,
		`{"a":`:                          `{}`,
		`{"pa`:                           `{}`,
		`{"a":tr`:                        `{"a":true}`,
		`{"a":[1,2`:                      `{"a":[1,2]}`,
		`{"a":"x\`:                       `{"a":"x"}`,
		"{\"a\":\"line\nnext\"}":         `{"a":"line\nnext"}`,
		`{"a":"c:\dir"}`:                 `{"a":"c:\\dir"}`,
		`{"location":"Florence, Italy"}`: `{"location":"Florence, Italy"}`,
		`garbage`:                        `{}`,
	} {
		if got := string(ParseStreamingJSON(in)); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
}

func FuzzParseStreamingJSON(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":[1,{"b":`, `"x\`, `[tr`, `-`, `{"a":-Inf`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := ParseStreamingJSON(s)
		if _, err := JSONStringify(out); err != nil {
			t.Fatalf("%q gave invalid JSON %s: %v", s, out, err)
		}
	})
}

func TestShortHash(t *testing.T) {
	// Values from pi-ai's shortHash run under node.
	for in, want := range map[string]string{"call_abc|fc_123": "jp01dsxufnom", "héllo😀": "1olj6nu1frhbfw"} {
		if got := ShortHash(in); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
}
