package toolrun

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/internal/pitest"
)

// validationCases cover every schema feature the toolsets use, with arguments models send.
var validationCases = []struct{ schema, args string }{
	{readSchema, `{}`},
	{readSchema, `{"path":5}`},
	{readSchema, `{"path":"a","offset":"x"}`},
	{readSchema, `{"path":"a","offset":"5","limit":null}`},
	{readSchema, `{"path":null}`},
	{readSchema, `{"offset":"abc","limit":true}`},
	{readSchema, `{"path":"a","offset":" 12 ","limit":"0x10"}`},
	{readSchema, `{"path":"a","offset":"1e3","limit":"true"}`},
	{readSchema, `{"path":"a","offset":"","limit":"Infinity"}`},
	{readSchema, `{"path":true,"offset":false}`},
	{readSchema, `"str"`},
	{readSchema, `[1,2]`},
	{readSchema, `{"path":"a","extra":{"b":[1,"2",null]},"2":"x","1":"y"}`},
	{readSchema, `{"path":"é\u2028\u0001\"\\","offset":1.5e-7}`},
	{editSchema, `{"path":"a","edits":[{"oldText":1}]}`},
	{editSchema, `{"path":"a","edits":[],"x":1}`},
	{editSchema, `{"path":"a","edits":{"oldText":"a","newText":"b"}}`},
	{editSchema, `{"path":["a"],"edits":"x"}`},
	{editSchema, `{"path":"a","edits":[{"oldText":"a","newText":"b"},{"oldText":null,"newText":2}]}`},
	{grepSchema, `{"pattern":"x","ignoreCase":"yes","literal":"1","context":"2","limit":"-3"}`},
	{grepSchema, `{"pattern":"x","ignoreCase":"TRUE","literal":0,"context":null}`},
	{ccSchema, `{"output_mode":"lines","head_limit":"7","-n":"false","multiline":null}`},
	{ccSchema, `{"pattern":"a","output_mode":"count","-C":-1,"type":"go","unknown":1}`},
	{ccSchema, `{"pattern":"","todos":[{"content":"","status":"done"}]}`},
	{ccSchema, `{"pattern":"ab","todos":[{"content":"x","status":"pending","priority":"high"}],"tags":["a","a"],"n":7}`},
	{ccSchema, `{"pattern":"ab","tags":["a","b","c","d","e"],"n":"3.5","id":"x1"}`},
	{ccSchema, `{"pattern":"ab","n":0,"id":"ZZ","mode":3,"either":true}`},
	{ccSchema, `{"pattern":"ab","either":"5","mode":"fast"}`},
	{ccSchema, `{"pattern":"ab","either":[1]}`},
}

const readSchema = `{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"offset":{"type":"number"},"limit":{"type":"number"}}}`
const editSchema = `{"type":"object","required":["path","edits"],"additionalProperties":false,"properties":{"path":{"type":"string"},"edits":{"type":"array","minItems":1,"items":{"type":"object","required":["oldText","newText"],"properties":{"oldText":{"type":"string"},"newText":{"type":"string"}}}}}}`
const grepSchema = `{"type":"object","required":["pattern"],"properties":{"pattern":{"type":"string"},"ignoreCase":{"type":"boolean"},"literal":{"type":"boolean"},"context":{"type":"number","minimum":0},"limit":{"type":"integer","exclusiveMinimum":0}}}`
const ccSchema = `{"type":"object","required":["pattern"],"additionalProperties":false,"properties":{
 "pattern":{"type":"string","minLength":1},
 "output_mode":{"type":"string","enum":["content","files_with_matches","count"]},
 "-C":{"type":"number","minimum":0},"-n":{"type":"boolean"},"head_limit":{"type":"number"},"multiline":{"type":"boolean"},"type":{"type":"string"},
 "todos":{"type":"array","items":{"type":"object","required":["content","status"],"properties":{"content":{"type":"string","minLength":1},"status":{"type":"string","enum":["pending","in_progress","completed"]}},"additionalProperties":false}},
 "tags":{"type":"array","maxItems":4,"uniqueItems":true,"items":{"type":"string"}},
 "n":{"type":"integer","minimum":1,"maximum":6,"multipleOf":1},
 "id":{"type":"string","pattern":"^[a-z][0-9]$","maxLength":2},
 "mode":{"const":"fast"},
 "either":{"anyOf":[{"type":"number"},{"type":"boolean"}]}}}`

// TestValidationAgainstPi runs pi-ai's validateToolArguments (the real one, from the installed
// pi) on every case and requires byte-identical errors and converted arguments.
func TestValidationAgainstPi(t *testing.T) {
	pi := pitest.Find(t)
	modules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(pi.CLI))))
	type in struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Args   string          `json:"args"`
	}
	var ins []in
	for _, c := range validationCases {
		ins = append(ins, in{"t", json.RawMessage(c.schema), c.args})
	}
	body, _ := json.Marshal(ins)
	cmd := exec.Command(pi.Node, "testdata/validate.mjs", modules)
	cmd.Stdin = bytes.NewReader(body)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	var want []struct {
		OK    json.RawMessage `json:"ok"`
		Error *string         `json:"error"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(validationCases) {
		t.Fatalf("oracle answered %d of %d cases", len(want), len(validationCases))
	}
	for i, c := range validationCases {
		s, err := CompileSchema(json.RawMessage(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		v, err := ParseValue([]byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		got, gerr := ValidateArguments("t", s, v)
		w := want[i]
		if os.Getenv("SHOW") != "" {
			if w.Error != nil {
				t.Logf("case %d: error %q", i, *w.Error)
			} else {
				t.Logf("case %d: ok %s (pigo %s)", i, w.OK, got)
			}
		}
		switch {
		case w.Error != nil:
			if gerr == nil || gerr.Error() != *w.Error {
				t.Errorf("case %d %s:\n got %v %s\nwant error %q", i, c.args, gerr, got, *w.Error)
			}
		default:
			if gerr != nil {
				t.Errorf("case %d %s: got error %q, want %s", i, c.args, gerr, w.OK)
				continue
			}
			var a, b any
			json.Unmarshal(got, &a)
			json.Unmarshal(w.OK, &b)
			if ga, _ := json.Marshal(a); string(ga) != mustCanon(b) {
				t.Errorf("case %d %s:\n got %s\nwant %s", i, c.args, got, w.OK)
			}
		}
	}
}

func mustCanon(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
