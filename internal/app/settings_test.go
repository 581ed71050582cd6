package app

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// parseSettingsDecoded is parseSettings without the empty object's shortcut: what every
// settings document went through before.
func parseSettingsDecoded(raw []byte) settings {
	var s settings
	if len(raw) == 0 {
		return s
	}
	s.raw = raw
	_ = json.Unmarshal(raw, &s)
	var loose map[string]json.RawMessage
	_ = json.Unmarshal(raw, &loose)
	str := func(k string) string {
		var v string
		if json.Unmarshal(loose[k], &v) != nil {
			return ""
		}
		return v
	}
	s.shellPath, s.shellCommandPrefix = str("shellPath"), str("shellCommandPrefix")
	var expose bool
	if b, ok := loose["exposeSessionEnvironment"]; ok && json.Unmarshal(b, &expose) == nil && !expose {
		s.hideSessionEnv = true
	}
	return s
}

// TestParseSettingsEmptyObject: the settings read from an empty object, however spaced, and
// from documents that only look like one, are what decoding them gives; only a real empty
// object takes the shortcut.
func TestParseSettingsEmptyObject(t *testing.T) {
	for _, c := range []struct {
		raw   string
		empty bool
	}{
		{"{}", true}, {" { }\n", true}, {"\t{\r\n}\t", true},
		{"", false}, {"{", false}, {"}", false}, {"{ x }", false}, {"[]", false}, {"null", false}, {"{}{}", false},
		{`{"shellPath":"/bin/zsh"}`, false}, {`{"exposeSessionEnvironment":false}`, false},
		{`{"retry":{"enabled":false,"maxRetries":5}}`, false}, {`{"defaultThinkingLevel":"high"}`, false},
		{"\v{}", false}, {"{\u00a0}", false},
	} {
		if got := jsonc.IsEmptyObject([]byte(c.raw)); got != c.empty {
			t.Errorf("IsEmptyObject(%q) = %v", c.raw, got)
		}
		if got, want := parseSettings([]byte(c.raw)), parseSettingsDecoded([]byte(c.raw)); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v, decoded %+v", c.raw, got, want)
		}
	}
}

// TestParseSettingsEmptyObjectAllocs: the usual `{}` costs no decoding (encoding/json's
// first decode of these types was ~0.07 ms of a session's start).
func TestParseSettingsEmptyObjectAllocs(t *testing.T) {
	raw := []byte("{}")
	if n := testing.AllocsPerRun(100, func() { _ = parseSettings(raw) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
