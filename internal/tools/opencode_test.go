package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/tools/opencode"
)

func TestOpencodeRead(t *testing.T) {
	e := newFileEnv(t, "opencode")
	p := e.write("f.txt", "one\r\ntwo\rthree\n")
	head := "<path>" + p + "</path>\n<type>file</type>\n<content>\n"
	e.ok("read", map[string]any{"filePath": "f.txt"}, head+"1: one\n2: two\n3: three\n\n(End of file - total 3 lines)\n</content>")
	e.ok("read", map[string]any{"filePath": p, "offset": 2, "limit": 1}, head+"2: two\n\n(Showing lines 2-2 of 3. Use offset=3 to continue.)\n</content>")
	e.ok("read", map[string]any{"filePath": p, "offset": -1}, head+"3: three\n\n(End of file - total 3 lines)\n</content>")
	e.fail("read", map[string]any{"filePath": p, "offset": 5}, "Offset 5 is out of range for this file (3 lines)")
	e.write("f.md", "")
	e.ok("read", map[string]any{"filePath": "f"}, "File not found: "+filepath.Join(e.dir, "f")+"\n\nDid you mean one of these?\n"+filepath.Join(e.dir, "f.md")+"\n"+p)
	bin := e.write("x.so", "text really")
	e.ok("read", map[string]any{"filePath": bin}, "Cannot read binary file: "+bin)
	e.ok("read", map[string]any{"filePath": e.write("n.dat.txt", "a\x00b")}, "Cannot read binary file: "+filepath.Join(e.dir, "n.dat.txt"))
	img := e.write("pic.bin", "GIF89a....")
	r := e.ok("read", map[string]any{"filePath": img}, "Image read successfully")
	if len(r.Content) != 2 || r.Content[1].MimeType != "image/gif" {
		t.Errorf("image: %+v", r.Content)
	}
	e.ok("read", map[string]any{"filePath": e.write("big.txt", strings.Repeat("é", 2001)+"\n")},
		"<path>"+filepath.Join(e.dir, "big.txt")+"</path>\n<type>file</type>\n<content>\n1: "+strings.Repeat("é", 2000)+"... (line truncated to 2000 chars)\n\n(End of file - total 1 lines)\n</content>")

	d := filepath.Join(e.dir, "d")
	for _, n := range []string{"b.txt", "A.txt", "_z", "sub/x"} {
		e.write(filepath.Join(d, n), "")
	}
	if err := os.Symlink(filepath.Join(d, "sub"), filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	e.ok("read", map[string]any{"filePath": d}, "<path>"+d+"</path>\n<type>directory</type>\n<entries>\n_z\nA.txt\nb.txt\nlink/\nsub/\n(5 entries)\n</entries>")
	e.ok("read", map[string]any{"filePath": d, "offset": 2, "limit": 2}, "<path>"+d+"</path>\n<type>directory</type>\n<entries>\nA.txt\nb.txt\n(Showing 2 of 5 entries. Use 'offset' parameter to read beyond entry 4)\n</entries>")
}

func TestOpencodeEditWrite(t *testing.T) {
	e := newFileEnv(t, "opencode")
	p := e.write("m.py", "\ufeffdef f():\r\n    return 1\r\n")
	e.fail("edit", map[string]any{"filePath": p, "oldString": "a", "newString": "a"}, "No changes to apply: oldString and newString are identical.")
	e.fail("edit", map[string]any{"filePath": p, "oldString": "", "newString": "a"}, "oldString cannot be empty when editing an existing file. Provide the exact text to replace, or use write for an intentional full-file replacement.")
	e.fail("edit", map[string]any{"filePath": "nope.py", "oldString": "a", "newString": "b"}, "File "+filepath.Join(e.dir, "nope.py")+" not found")
	e.fail("edit", map[string]any{"filePath": e.dir, "oldString": "a", "newString": "b"}, "Path is a directory, not a file: "+e.dir)
	e.fail("edit", map[string]any{"filePath": p, "oldString": "return 1", "newString": "return 2"}, "File has not been read yet. Read it first before writing to it.")
	e.call("read", map[string]any{"filePath": p})
	// LineTrimmed: the indentation of oldString differs. The BOM is kept;
	// the matched span is the whole line up to "\n", its "\r" included
	// (trim() drops it when comparing), so that line's CR goes, as in the seed.
	e.ok("edit", map[string]any{"filePath": p, "oldString": "\treturn 1", "newString": "    return 2"}, "Edit applied successfully.")
	if got := e.read(p); got != "\ufeffdef f():\r\n    return 2\n" {
		t.Errorf("content %q", got)
	}
	e.fail("edit", map[string]any{"filePath": p, "oldString": "nothing like it", "newString": "x"}, "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.")
	e.ok("edit", map[string]any{"filePath": "new/n.txt", "oldString": "", "newString": "fresh"}, "Edit applied successfully.")
	if got := e.read("new/n.txt"); got != "fresh" {
		t.Errorf("created %q", got)
	}

	// write: lenient (an unread file may be written), BOM kept from the file.
	w := e.write("w.txt", "\ufeffold")
	e.ok("write", map[string]any{"filePath": w, "content": "new"}, "Wrote file successfully.")
	if got := e.read(w); got != "\ufeffnew" {
		t.Errorf("BOM: %q", got)
	}
	os.WriteFile(w, []byte("changed"), 0o644)
	e.fail("write", map[string]any{"filePath": w, "content": "x"}, "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.")
	os.Remove(w)
	e.fail("write", map[string]any{"filePath": w, "content": "x"}, "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.")
	e.ok("write", map[string]any{"filePath": "fresh.txt", "content": "\ufeffbom from content"}, "Wrote file successfully.")
	if got := e.read("fresh.txt"); got != "\ufeffbom from content" {
		t.Errorf("fresh %q", got)
	}
	// Write then edit through a symlinked directory: the read key is stable.
	os.MkdirAll(filepath.Join(e.dir, "realdir"), 0o755)
	os.Symlink(filepath.Join(e.dir, "realdir"), filepath.Join(e.dir, "ln"))
	via := filepath.Join(e.dir, "ln", "s.txt")
	e.ok("write", map[string]any{"filePath": via, "content": "a b"}, "Wrote file successfully.")
	e.ok("edit", map[string]any{"filePath": via, "oldString": "a", "newString": "c"}, "Edit applied successfully.")
}

func TestOpencodeTodoAndQuestion(t *testing.T) {
	e := newFileEnv(t, "opencode")
	r := e.ok("todowrite", map[string]any{"todos": []map[string]any{
		{"content": " a ", "status": "completed", "priority": "high"},
		{"content": "b", "status": "cancelled", "priority": "low"},
		{"content": "c", "status": "in_progress", "priority": "medium"},
	}}, "[\n  {\n    \"content\": \"a\",\n    \"status\": \"completed\",\n    \"priority\": \"high\"\n  },\n  {\n    \"content\": \"b\",\n    \"status\": \"cancelled\",\n    \"priority\": \"low\"\n  },\n  {\n    \"content\": \"c\",\n    \"status\": \"in_progress\",\n    \"priority\": \"medium\"\n  }\n]")
	var d struct {
		Pendant struct {
			Markdown string `json:"markdown"`
		} `json:"pendant"`
	}
	json.Unmarshal(r.Details, &d)
	if d.Pendant.Markdown != "## Tasks\n\n**2 open · 3 total**\n\n- [x] a `high`\n- [-] b `low`\n- [>] c `medium`" {
		t.Errorf("details %s", r.Details)
	}
	if got := strings.Join(opencode.OCTodoWidget(r.Details), "\n"); got != "- [x] a `high`\n- [-] b `low`\n- [>] c `medium`" {
		t.Errorf("widget %q", got)
	}
	e.ok("todowrite", map[string]any{"todos": []map[string]any{}}, "[]")
	q := map[string]any{"questions": []map[string]any{
		{"question": "Lang?", "header": "L", "options": []map[string]any{{"label": "Go", "description": ""}, {"label": "Rust", "description": ""}}, "multiple": true},
		{"question": "Why?", "header": "", "options": []map[string]any{}},
	}}
	e.fail("question", q, "Cannot ask questions: interactive UI is not available in this mode")
	e.s.Headless = false
	fa := &fakeAsker{answers: [][]string{{"Go", "Rust"}, nil}}
	e.s.Approver = fa
	r = e.ok("question", q, `User has answered your questions: "Lang?"="Go, Rust", "Why?"="Unanswered". You can now continue with the user's answers in mind.`)
	if !strings.Contains(string(r.Details), `"answers":[["Go","Rust"],[]]`) {
		t.Errorf("details %s", r.Details)
	}
	if fa.asked[0].Title != "L: Lang?" || fa.asked[1].Title != "Why?" || fa.asked[0].Other != "Type your own answer." || fa.asked[0].Done != "✓ Done" {
		t.Errorf("asked %+v", fa.asked)
	}
}
