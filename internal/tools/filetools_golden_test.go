package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/toolrun"
)

// goldenCall is one call of the file-toolset golden run; setup (when set)
// prepares the workspace before it.
type goldenCall struct {
	name, args string
}

var claudeGolden = []goldenCall{
	{"Read", `{"file_path":"a.txt"}`},
	{"Read", `{"file_path":"a.txt","offset":2,"limit":2}`},
	{"Read", `{"file_path":"a.txt","offset":0,"limit":1}`},
	{"Read", `{"file_path":"a.txt","offset":-2}`},
	{"Read", `{"file_path":"a.txt","offset":99}`},
	{"Read", `{"file_path":"a.txt","offset":1.5}`},
	{"Read", `{"file_path":"a.txt","limit":0}`},
	{"Read", `{"file_path":"empty.txt"}`},
	{"Read", `{"file_path":"crlf.txt"}`},
	{"Read", `{"file_path":"a.md"}`},
	{"Read", `{"file_path":"dir"}`},
	{"Read", `{"file_path":"a.txt","pages":"1"}`}, // PDFs need poppler: readpdf_test.go
	{"Read", `{"file_path":"bin.dat"}`},
	{"Read", `{"file_path":"big.txt"}`},
	{"Edit", `{"file_path":"a.txt","old_string":"x","new_string":"x"}`},
	{"Edit", `{"file_path":"b.txt","old_string":"beta","new_string":"B"}`},
	{"Read", `{"file_path":"b.txt"}`},
	{"Edit", `{"file_path":"b.txt","old_string":"zeta","new_string":"B"}`},
	{"Edit", `{"file_path":"b.txt","old_string":"beta","new_string":"B"}`},
	{"Edit", `{"file_path":"b.txt","old_string":"beta","new_string":"B","replace_all":true}`},
	{"Edit", `{"file_path":"b.txt","old_string":"gamma","new_string":""}`},
	{"Edit", `{"file_path":"new.txt","old_string":"","new_string":"made\n"}`},
	{"Edit", `{"file_path":"new.txt","old_string":"","new_string":"again"}`},
	{"Edit", `{"file_path":"nb.ipynb","old_string":"a","new_string":"b"}`},
	{"Write", `{"file_path":"w/created.txt","content":"x"}`},
	{"Write", `{"file_path":"w/created.txt","content":"y"}`},
	{"Write", `{"file_path":"unread.txt","content":"y"}`},
	{"Grep", `{"pattern":"alpha"}`},
	{"Grep", `{"pattern":"alpha","output_mode":"content"}`},
	{"Grep", `{"pattern":"alpha","output_mode":"count"}`},
	{"Grep", `{"pattern":"nothing-matches"}`},
	{"Grep", `{"pattern":"x","head_limit":-1}`},
	{"Grep", `{"pattern":"x","offset":0.5}`},
	{"Grep", `{"pattern":"x","path":"nowhere"}`},
	{"Glob", `{"pattern":"dir/*"}`},
	{"Glob", `{"pattern":"*.none"}`},
	{"Glob", `{"pattern":"*","path":"nowhere"}`},
	{"Glob", `{"pattern":"*","path":"a.txt"}`},
	{"TodoWrite", `{"todos":[{"content":"a","status":"pending","activeForm":"A"}]}`},
	{"TodoWrite", `{"todos":[{"content":" ","status":"pending","activeForm":"A"}]}`},
	{"TodoWrite", `{"todos":[{"content":"a","status":"in_progress","activeForm":"A"},{"content":"b","status":"in_progress","activeForm":"B"}]}`},
	{"AskUserQuestion", `{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":""},{"label":"b","description":""}],"multiSelect":false}]}`},
}

var opencodeGolden = []goldenCall{
	{"read", `{"filePath":"a.txt"}`},
	{"read", `{"filePath":"a.txt","offset":2,"limit":1}`},
	{"read", `{"filePath":"a.txt","offset":-1}`},
	{"read", `{"filePath":"a.txt","offset":9}`},
	{"read", `{"filePath":"a"}`},
	{"read", `{"filePath":"dir"}`},
	{"read", `{"filePath":"dir","limit":1}`},
	{"read", `{"filePath":"bin.dat"}`},
	{"read", `{"filePath":"empty.txt"}`},
	{"edit", `{"filePath":"b.txt","oldString":"a","newString":"a"}`},
	{"edit", `{"filePath":"b.txt","oldString":"","newString":"a"}`},
	{"edit", `{"filePath":"missing.txt","oldString":"a","newString":"b"}`},
	{"edit", `{"filePath":"dir","oldString":"a","newString":"b"}`},
	{"edit", `{"filePath":"b.txt","oldString":"beta","newString":"B"}`},
	{"read", `{"filePath":"b.txt"}`},
	{"edit", `{"filePath":"b.txt","oldString":"zeta","newString":"B"}`},
	{"edit", `{"filePath":"b.txt","oldString":"beta","newString":"B"}`},
	{"edit", `{"filePath":"b.txt","oldString":"  gamma  ","newString":"G"}`},
	{"edit", `{"filePath":"b.txt","oldString":"beta","newString":"[$&]","replaceAll":true}`},
	{"edit", `{"filePath":"made.txt","oldString":"","newString":"new"}`},
	{"write", `{"filePath":"unread.txt","content":"lenient"}`},
	{"grep", `{"pattern":"alpha"}`},
	{"grep", `{"pattern":"nothing-matches"}`},
	{"grep", `{"pattern":""}`},
	{"grep", `{"pattern":"x","path":"nowhere"}`},
	{"glob", `{"pattern":"*.txt"}`},
	{"glob", `{"pattern":"*.none"}`},
	{"glob", `{"pattern":"*","path":"a.txt"}`},
	{"todowrite", `{"todos":[{"content":"a","status":"cancelled","priority":"low"}]}`},
	{"question", `{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":""}]}]}`},
}

func goldenFixture(e *ftEnv) {
	e.write("a.txt", "alpha\nbeta\ngamma\ndelta\n")
	e.write("b.txt", "alpha\nbeta\n  gamma  \nbeta\n")
	e.write("empty.txt", "")
	e.write("crlf.txt", "\ufeffone\r\ntwo\r\n")
	e.write("dir/z.txt", "")
	e.write("dir/Sub/k", "")
	e.write("bin.dat", "\x00\x01\x02")
	e.write("big.txt", strings.Repeat("0123456789abcdef\n", 16500))
	e.write("nb.ipynb", "{}")
	e.write("unread.txt", "old")
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestFileToolsGolden is every text both file toolsets produce for a fixed
// run of real calls on real files, against testdata/filetools.golden
// (UPDATE_GOLDEN=1 rewrites it; the workspace path reads $WS).
func TestFileToolsGolden(t *testing.T) {
	needRG(t)
	var b bytes.Buffer
	for _, set := range []struct {
		fileIO string
		calls  []goldenCall
	}{{"claude-code", claudeGolden}, {"opencode", opencodeGolden}} {
		e := newFileEnv(t, set.fileIO)
		goldenFixture(e)
		fmt.Fprintf(&b, "##### %s\n", set.fileIO)
		for i, c := range set.calls {
			r := e.runner.Run(context.Background(), toolrun.Call{ID: fmt.Sprintf("call_%d", i), Name: c.name, Arguments: json.RawMessage(c.args)}, nil)
			content, _ := json.Marshal(r.Content)
			norm := func(s string) string {
				return uuidRE.ReplaceAllString(strings.ReplaceAll(s, e.dir, "$WS"), "UUID")
			}
			// Normalised before it is cut, so that the cut does not depend on the temp
			// directory's length.
			text := norm(string(content))
			if len(text) > 600 {
				text = text[:300] + "…[" + fmt.Sprint(len(text)) + " bytes]…" + text[len(text)-200:]
			}
			fmt.Fprintf(&b, "=== %s %s\nis_error: %v\ncontent: %s\n", c.name, c.args, r.IsError, text)
			if len(r.Structured) > 0 {
				fmt.Fprintf(&b, "structured: %s\n", norm(string(r.Structured)))
			}
		}
	}
	golden := filepath.Join("testdata", "filetools.golden")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		got, w := strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(got) && i < len(w); i++ {
			if got[i] != w[i] {
				t.Fatalf("line %d:\n got %s\nwant %s", i+1, got[i], w[i])
			}
		}
		t.Fatalf("length differs: got %d lines, want %d", len(got), len(w))
	}
}
