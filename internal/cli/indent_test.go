package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var indentSeeds = []string{
	`{}`, `[]`, `{"a":{}}`, `{"a":[]}`, `[[],{},[{}]]`, `null`, `true`, `-1.5e+30`, `"x"`, `""`,
	`{"a":1,"b":[1,2,{"c":null}],"d":"e"}`, `{"a":"x\"y","b":"\\","c":"\\\"","d":"\\\\"}`,
	`{"a":"{[,:]}","b":"\u2028\u0000","c":"\ud800"}`, "{\"\xff\":\"\xfe\"}",
	`{"a":[1,[2,[3,[4]]]],"warnings":[{"code":"x","message":"y"}]}`, `[0,-0,1e400,true,false,null]`,
	`{"a":"ends with backslash \\"}`, `{"k":"tab\tnew\nline"}`,
	`{ "a": 1 }`, "[1,\n2]", `{"a":1`, `{"a":1]`, `[}`, `"unterminated`, `{"a":"b\"}`, `]`, `{"a":[}`,
}

// TestIndentedMatchesIndent: whatever appendIndented accepts of a valid document, it indents
// as json.Indent does; every compact valid document is accepted; what it declines or cannot
// follow (whitespace, unbalanced brackets) it reports.
func TestIndentedMatchesIndent(t *testing.T) {
	for _, s := range indentSeeds {
		checkIndented(t, s)
	}
	var tools bytes.Buffer
	json.NewEncoder(&tools).Encode(map[string]any{"tools": []map[string]any{{"name": "read",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{}}, "html": "<a&b>"}}})
	checkIndented(t, strings.TrimSpace(tools.String()))
}

func checkIndented(t *testing.T, doc string) {
	t.Helper()
	got, ok := appendIndented([]byte("prefix"), []byte(doc))
	var want bytes.Buffer
	want.WriteString("prefix")
	err := json.Indent(&want, []byte(doc), "", "  ")
	valid := json.Valid([]byte(doc))
	var compact bytes.Buffer
	if valid {
		json.Compact(&compact, []byte(doc))
	}
	switch {
	case ok && valid && (err != nil || !bytes.Equal(got, want.Bytes())):
		t.Errorf("appendIndented(%q) =\n%s\njson.Indent =\n%s (%v)", doc, got, want.Bytes(), err)
	case !ok && valid && compact.String() == doc:
		t.Errorf("appendIndented(%q) declined a compact valid document", doc)
	case ok && !valid && strings.ContainsAny(doc, " \n\t\r") && !strings.Contains(doc, `"`):
		t.Errorf("appendIndented(%q) accepted whitespace outside strings", doc)
	}
}

func FuzzIndented(f *testing.F) {
	for _, s := range indentSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkIndented(t, doc)
		if json.Valid([]byte(doc)) {
			var c bytes.Buffer
			json.Compact(&c, []byte(doc))
			checkIndented(t, c.String())
		}
	})
}

// jsonStringEndLoop is the byte loop jsonStringEnd replaced.
func jsonStringEndLoop(doc []byte, i int) int {
	if i >= len(doc) || doc[i] != '"' {
		return -1
	}
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func FuzzJSONStringEnd(f *testing.F) {
	for _, s := range append(indentSeeds, `"\\\"\\"x`, `"\`, `"\\`, `"a\\\\\"b"`, `x"a"`) {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, doc string, i int) {
		if i < 0 || i > len(doc) {
			return
		}
		if got, want := jsonStringEnd([]byte(doc), i), jsonStringEndLoop([]byte(doc), i); got != want {
			t.Errorf("jsonStringEnd(%q, %d) = %d, the byte loop says %d", doc, i, got, want)
		}
	})
}

// TestWriteJSONIndentFallback: a document appendIndented does not follow still goes through
// json.Indent (a Marshaler's output is compacted by encoding/json, so this is the guard, not
// a path a command takes).
func TestWriteJSONIndentFallback(t *testing.T) {
	if _, ok := appendIndented(nil, []byte(`{"a": 1}`)); ok {
		t.Fatal("appendIndented accepted whitespace outside a string")
	}
}

func BenchmarkIndent(b *testing.B) {
	var doc bytes.Buffer
	tools := make([]map[string]any, 60)
	for i := range tools {
		tools[i] = map[string]any{"name": "read", "state": "overridden", "source": "builtin", "file": "toolsets/pi.cue",
			"reason": "replaced by toolset:opencode (toolsets/opencode.cue)", "structured": false, "params": []string{"a", "b"}}
	}
	json.NewEncoder(&doc).Encode(map[string]any{"version": 1, "tools": tools})
	src := bytes.TrimSpace(doc.Bytes())
	b.Run("json.Indent", func(b *testing.B) {
		for b.Loop() {
			var out bytes.Buffer
			json.Indent(&out, src, "", "  ")
		}
	})
	b.Run("appendIndented", func(b *testing.B) {
		for b.Loop() {
			appendIndented(make([]byte, 0, len(src)+len(src)/2), src)
		}
	})
}
