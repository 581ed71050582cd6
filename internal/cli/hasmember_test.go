package cli

import (
	"encoding/json"
	"testing"
)

// hasMemberDecode is the reference hasMember replaced: decode the whole document into a map.
func hasMemberDecode(doc []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

var hasMemberSeeds = []string{
	`{}`, ` { } `, `[]`, `"warnings"`, `null`, `1`, `{"warnings":1}`, `{"warnings":[]}`,
	`{"a":1,"warnings":null}`, `{"a":{"warnings":1}}`, `{"a":[{"warnings":1}],"b":"warnings"}`,
	`{"a":"x\"warnings\":1","b":2}`, `{"a":"\\","warnings":true}`, `{"warning":1,"warningss":2}`,
	`{"w\u0061rnings":1}`, `{"\u0077arnings":{}}`, `{ "a" : [ 1 , { "b" : "}" } ] , "warnings" : "" }`,
	"{\"a\":1,\n \"warnings\":\t[]}", `{"a":1,"a":2}`, `{"a":-1.5e3,"b":false,"c":null}`,
	"{\"\xff\":1}", "{\"\xffwarnings\":1}", `{"\ufffd":1}`, `{"a":"\ud800","warnings":0}`,
	`{"a":[[[]]],"warnings":{"x":[{}]}}`, `{"tools":[{"name":"a","warnings":[]}],"x":1}`,
}

func TestHasMemberMatchesDecode(t *testing.T) {
	for _, doc := range hasMemberSeeds {
		for _, key := range []string{"warnings", "a", "\ufffd", "b", ""} {
			want := hasMemberDecode([]byte(doc), key)
			if got := hasMember([]byte(doc), key); got != want {
				t.Errorf("hasMember(%q, %q) = %v, the decode says %v", doc, key, got, want)
			}
		}
	}
}

// TestHasMemberAllocs: the document is scanned, not decoded (the map decode allocated for
// every member).
func TestHasMemberAllocs(t *testing.T) {
	doc := []byte(`{"tools":[{"name":"read","description":"Read a file","parameters":{"type":"object"}}],"commands":["a","b"],"version":1}`)
	if n := testing.AllocsPerRun(20, func() { hasMember(doc, "warnings") }); n != 0 {
		t.Errorf("hasMember allocates %v times", n)
	}
}

func FuzzHasMember(f *testing.F) {
	for _, s := range hasMemberSeeds {
		f.Add(s, "warnings")
	}
	f.Fuzz(func(t *testing.T, doc, key string) {
		if !json.Valid([]byte(doc)) {
			return // hasMember is given encoding/json's output only
		}
		if got, want := hasMember([]byte(doc), key), hasMemberDecode([]byte(doc), key); got != want {
			t.Errorf("hasMember(%q, %q) = %v, the decode says %v", doc, key, got, want)
		}
	})
}
