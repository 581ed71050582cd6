package toolrun

import (
	"reflect"
	"testing"
)

var fastSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `1E+2`, `-12.25e-3`, `1e400`, `-1e400`, `1e-400`,
	`"plain"`, `"tab\there"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"caf\xc3\xa9"`, "\"bad\xff\"", `"a\"b\\c\/"`,
	`{"type":"object","properties":{"path":{"type":"string","description":"File to read"},"limit":{"type":"number"}},"required":["path"]}`,
	`{"a":1,"b":2,"a":3}`, `{"2":1,"1":2,"x":3}`, ` { "a" : [ 1 , 2 , { } ] } `, "\t[\r\n]\n",
	// not taken by the fast path (the Decoder words the error, or accepts what it accepts)
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `01`, `1.`, `.5`, `1e`, `+1`, `-`, `tru`, `nul`, `[1 2]`,
	`{} {}`, `{}}`, `1x`, "\"ctl\x01\"", `"unterminated`, `"\x"`, `{1:2}`, `[` + "\"\\u12\"" + `]`,
}

// TestParseValueFastMatchesTree: on every seed the fast path either declines or gives what
// the Decoder gives; schemas and plain arguments take it.
func TestParseValueFastMatchesTree(t *testing.T) {
	for _, s := range fastSeeds {
		checkFast(t, []byte(s))
	}
	for _, s := range []string{
		`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
		`{"command":"ls -la","timeout":30}`,
		`{"edits":[{"oldText":"a","newText":"b"}],"path":"x.go"}`,
	} {
		if _, ok := parseFast([]byte(s)); !ok {
			t.Errorf("fast path declined %s", s)
		}
	}
}

func checkFast(t *testing.T, b []byte) {
	t.Helper()
	fv, ok := parseFast(b)
	tv, err := parseTree(b)
	if !ok {
		return
	}
	if err != nil {
		t.Fatalf("%q: fast path accepted what the Decoder refuses (%v)", b, err)
	}
	if !reflect.DeepEqual(fv, tv) {
		fj, _ := fv.MarshalJSON()
		tj, _ := tv.MarshalJSON()
		t.Fatalf("%q: fast %s, Decoder %s", b, fj, tj)
	}
}

func FuzzParseValueFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFast)
}

func BenchmarkParseValueSchema(b *testing.B) {
	s := []byte(`{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},"limit":{"type":"number","description":"Maximum number of lines to read"}},"required":["path"]}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parseFast(s)
		}
	})
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parseTree(s)
		}
	})
}
