package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/claudecode"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// ftEnv is a session of one file toolset in temp dirs.
type ftEnv struct {
	t      *testing.T
	dir    string
	runner *toolrun.Runner
	s      *toolrun.Session
}

var toolsetNames = map[string][]string{
	"claude-code": {"Read", "Edit", "Write", "Grep", "Glob", "Bash", "TodoWrite", "AskUserQuestion"},
	"opencode":    {"read", "edit", "write", "grep", "glob", "bash", "todowrite", "question"},
}

func newFileEnv(t *testing.T, fileIO string) *ftEnv {
	t.Helper()
	return newFileEnvLSP(t, fileIO, "")
}

// newFileEnvLSP is newFileEnv with an lsp.json in the agent dir (when
// given), so the LSP tools are available.
func newFileEnvLSP(t *testing.T, fileIO, lspJSON string) *ftEnv {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	e := &ftEnv{t: t, dir: filepath.Join(root, "ws")}
	agent := filepath.Join(root, "agent")
	for _, d := range []string{e.dir, agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := `{"personalExtensions": {"fileIo": "` + fileIO + `"}}`
	if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := toolsetNames[fileIO]
	if lspJSON != "" {
		if err := os.WriteFile(filepath.Join(agent, "lsp.json"), []byte(lspJSON), 0o644); err != nil {
			t.Fatal(err)
		}
		tools = append(append([]string(nil), tools...), "lsp-rename", "lsp-inspect", "lsp-find-definition", "lsp-find-reference")
	}
	no := false
	cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: e.dir, Home: root, Approve: &no,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Headless: true, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	e.s = &toolrun.Session{Cwd: e.dir, AgentDir: agent, Headless: true}
	e.runner = toolrun.New(res.Tools, All(), e.s)
	return e
}

func (e *ftEnv) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.dir, p)
}

func (e *ftEnv) write(p, content string) string {
	e.t.Helper()
	p = e.path(p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *ftEnv) read(p string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(p))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *ftEnv) call(name string, args map[string]any) toolrun.Result {
	e.t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.runner.Run(context.Background(), toolrun.Call{ID: "c1", Name: name, Arguments: b}, nil)
}

// ok calls and wants a success whose text is want.
func (e *ftEnv) ok(name string, args map[string]any, want string) toolrun.Result {
	e.t.Helper()
	r := e.call(name, args)
	if r.IsError || r.Text() != want {
		e.t.Errorf("%s %v:\n got  %q (error %v)\n want %q", name, args, r.Text(), r.IsError, want)
	}
	return r
}

// fail calls and wants an error result whose text is want.
func (e *ftEnv) fail(name string, args map[string]any, want string) {
	e.t.Helper()
	r := e.call(name, args)
	if !r.IsError || r.Text() != want {
		e.t.Errorf("%s %v:\n got  %q (error %v)\n want error %q", name, args, r.Text(), r.IsError, want)
	}
}

func TestClaudeRead(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	p := e.write("a.txt", "\ufeffone\r\n\ttwo\r\nthree")
	r := e.ok("Read", map[string]any{"file_path": p}, "1: one\n2: \ttwo\n3: three\n4: ")
	var d toolkit.ReadsDetails
	if err := json.Unmarshal(r.Details, &d); err != nil || len(d.Reads) != 1 || d.Reads[p].Digest != toolrun.Digest([]byte(e.read("a.txt"))) || !d.Reads[p].TextEditable {
		t.Errorf("details %s", r.Details)
	}
	e.ok("Read", map[string]any{"file_path": "a.txt", "offset": 2, "limit": 1}, "2: \ttwo")
	e.ok("Read", map[string]any{"file_path": p, "offset": -1}, "3: three")
	e.ok("Read", map[string]any{"file_path": e.write("latin.txt", "caf\xe9\n")}, "1: caf\ufffd\n2: ")
	e.ok("Read", map[string]any{"file_path": e.write("empty.txt", "")}, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>")
	e.ok("Read", map[string]any{"file_path": p, "offset": 9}, "<system-reminder>Warning: the file exists but is shorter than the provided offset (9). The file has 4 lines.</system-reminder>")
	e.fail("Read", map[string]any{"file_path": p, "offset": 1.5}, "offset must be an integer")
	e.fail("Read", map[string]any{"file_path": p, "limit": 0}, "limit must be a positive integer")
	e.fail("Read", map[string]any{"file_path": "missing.txt"}, "File does not exist. Note: your current working directory is "+e.dir+".")
	e.fail("Read", map[string]any{"file_path": "a.md"}, "File does not exist. Note: your current working directory is "+e.dir+". Did you mean a.txt?")
	sub := e.write("sub/x.go", "package x\n")
	e.fail("Read", map[string]any{"file_path": filepath.Join(filepath.Dir(e.dir), "sub", "x.go")},
		"File does not exist. Note: your current working directory is "+e.dir+". Did you mean "+sub+"?")
	e.fail("Read", map[string]any{"file_path": e.dir}, "EISDIR: illegal operation on a directory, read '"+e.dir+"'")
	// PDFs: TestClaudeReadPDFPages.
	bin := e.write("b.bin", "ab\x00cd")
	e.fail("Read", map[string]any{"file_path": bin}, "Cannot read binary file: "+bin)
	big := e.write("big.txt", strings.Repeat("x", 300*1024))
	e.fail("Read", map[string]any{"file_path": big}, "File content (300.0 KB) exceeds maximum allowed size (256.0 KB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.")
	lines := e.write("lines.txt", strings.Repeat(strings.Repeat("y", 99)+"\n", 1100))
	e.fail("Read", map[string]any{"file_path": lines, "limit": 2000}, "File content (28875 tokens) exceeds maximum allowed tokens (25000). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.")
	img := e.write("p.png", "\x89PNG\r\n\x1a\nxxxx")
	r = e.ok("Read", map[string]any{"file_path": img}, "Read image file [image/png]")
	if len(r.Content) != 2 || r.Content[1].Type != "image" || r.Content[1].MimeType != "image/png" {
		t.Errorf("image content %+v", r.Content)
	}
	// The image read is recorded as not text-editable.
	e.fail("Write", map[string]any{"file_path": img, "content": "x"}, "Cannot edit or overwrite a binary file with a text tool: "+img)
}

func TestClaudeReadThroughSymlinkedDir(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	real := e.write("real/f.txt", "a\n")
	if err := os.Symlink(filepath.Join(e.dir, "real"), filepath.Join(e.dir, "link")); err != nil {
		t.Fatal(err)
	}
	via := filepath.Join(e.dir, "link", "f.txt")
	r := e.ok("Read", map[string]any{"file_path": via}, "1: a\n2: ")
	if !strings.Contains(string(r.Details), `"`+real+`"`) {
		t.Errorf("read key is not the realpath: %s", r.Details)
	}
	// The read counts for the real path too.
	e.ok("Edit", map[string]any{"file_path": real, "old_string": "a", "new_string": "b"}, "The file "+real+" has been updated successfully.")
	if got := e.read(real); got != "b\n" {
		t.Errorf("content %q", got)
	}
}

func TestClaudeEditAndWrite(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	p := e.write("e.txt", "alpha\r\nbeta\r\nalpha\r\n")
	e.fail("Edit", map[string]any{"file_path": p, "old_string": "x", "new_string": "x"}, "No changes to make: old_string and new_string are exactly the same.")
	e.fail("Edit", map[string]any{"file_path": p, "old_string": "beta", "new_string": "gamma"}, "File has not been read yet. Read it first before writing to it.")
	e.call("Read", map[string]any{"file_path": p})
	e.fail("Edit", map[string]any{"file_path": p, "old_string": "alpha", "new_string": "A"},
		"Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: alpha")
	e.fail("Edit", map[string]any{"file_path": p, "old_string": "zeta", "new_string": "A"}, "String to replace not found in file.\nString: zeta")
	e.ok("Edit", map[string]any{"file_path": p, "old_string": "beta\n", "new_string": "b\n"}, "The file "+p+" has been updated successfully.")
	if got := e.read(p); got != "alpha\r\nb\r\nalpha\r\n" {
		t.Errorf("CRLF not kept: %q", got)
	}
	// The edit recorded the new content: a second edit needs no Read.
	e.ok("Edit", map[string]any{"file_path": p, "old_string": "alpha", "new_string": "A", "replace_all": true}, "The file "+p+" has been updated. All occurrences were successfully replaced.")
	if got := e.read(p); got != "A\r\nb\r\nA\r\n" {
		t.Errorf("replace_all: %q", got)
	}
	os.WriteFile(p, []byte("changed\n"), 0o644)
	e.fail("Edit", map[string]any{"file_path": p, "old_string": "changed", "new_string": "x"}, "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.")
	e.fail("Write", map[string]any{"file_path": p, "content": "x"}, "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.")

	// Empty old_string creates (no Read needed) or refuses an existing non-blank file.
	n := e.path("new/dir/n.txt")
	e.ok("Edit", map[string]any{"file_path": n, "old_string": "", "new_string": "hello\n"}, "The file "+n+" has been updated successfully.")
	e.fail("Edit", map[string]any{"file_path": n, "old_string": "", "new_string": "x"}, "Cannot create new file - file already exists.")
	blank := e.write("blank.txt", "  \n")
	e.ok("Edit", map[string]any{"file_path": blank, "old_string": "", "new_string": "filled"}, "The file "+blank+" has been updated successfully.")
	e.fail("Edit", map[string]any{"file_path": "gone.txt", "old_string": "a", "new_string": "b"}, "File does not exist. Note: your current working directory is "+e.dir+".")
	nb := e.write("nb.ipynb", "{}")
	e.call("Read", map[string]any{"file_path": nb})
	e.fail("Edit", map[string]any{"file_path": nb, "old_string": "{}", "new_string": "[]"}, "File is a Jupyter Notebook. Use the NotebookEditTool to edit this file.")

	w := e.path("w/new.txt")
	e.ok("Write", map[string]any{"file_path": w, "content": "one"}, "File created successfully at: "+w)
	e.ok("Write", map[string]any{"file_path": w, "content": "two"}, "The file "+w+" has been updated successfully.")
	unread := e.write("unread.txt", "x")
	e.fail("Write", map[string]any{"file_path": unread, "content": "y"}, "File has not been read yet. Read it first before writing to it.")

	// Outside the workspace (and /tmp), headless: refused before anything
	// is written.
	outDir := outsideDir(t)
	out := filepath.Join(outDir, "outside.txt")
	e.fail("Write", map[string]any{"file_path": out, "content": "x"}, `Path "`+out+`" is outside workspace. No UI available for approval.`)
	if _, err := os.Stat(out); err == nil {
		t.Error("refused write created the file")
	}
	// A symlink inside the workspace to a directory outside is outside.
	if err := os.Symlink(outDir, filepath.Join(e.dir, "up")); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(e.dir, "up", "escape.txt")
	e.fail("Write", map[string]any{"file_path": viaLink, "content": "x"}, `Path "`+viaLink+`" is outside workspace. No UI available for approval.`)
}

func TestClaudeEditKeepsNonUTF8Bytes(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	p := e.write("l1.txt", "caf\xe9\nname = old\n")
	e.call("Read", map[string]any{"file_path": p})
	e.ok("Edit", map[string]any{"file_path": p, "old_string": "old", "new_string": "new"}, "The file "+p+" has been updated successfully.")
	if got := e.read(p); got != "caf\xe9\nname = new\n" {
		t.Errorf("bytes lost: %q", got)
	}
}

func TestClaudeTodoAndAsk(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	r := e.ok("TodoWrite", map[string]any{"todos": []map[string]any{
		{"content": " Write tests ", "status": "in_progress", "activeForm": "Writing tests"},
		{"content": "Ship", "status": "pending", "activeForm": "Shipping"},
		{"content": "Plan", "status": "completed", "activeForm": "Planning"},
	}}, "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable")
	if got := strings.Join(claudecode.CCTodoWidget(r.Details), "\n"); got != "Progress: 1/3 (33%)\n- [>] Writing tests\n- [ ] Ship\n- [x] Plan" {
		t.Errorf("widget %q", got)
	}
	if !strings.Contains(string(r.Details), `"content":"Write tests"`) {
		t.Errorf("details not trimmed: %s", r.Details)
	}
	e.fail("TodoWrite", map[string]any{"todos": []map[string]any{{"content": " ", "status": "pending", "activeForm": "x"}}}, "Todo content and activeForm must not be blank.")
	e.fail("TodoWrite", map[string]any{"todos": []map[string]any{
		{"content": "a", "status": "in_progress", "activeForm": "A"}, {"content": "b", "status": "in_progress", "activeForm": "B"}}}, "Only one todo may be in_progress at a time.")
	q := map[string]any{"questions": []map[string]any{{"question": "Which?", "header": "Pick", "multiSelect": false,
		"options": []map[string]any{{"label": "A", "description": "a"}, {"label": "B", "description": "b"}}}}}
	e.fail("AskUserQuestion", q, "Cannot ask questions: interactive UI is not available")
	e.s.Headless = false
	e.s.Approver = &fakeAsker{answers: [][]string{{"B"}, nil}}
	q2 := map[string]any{"questions": []map[string]any{q["questions"].([]map[string]any)[0],
		{"question": "More?", "header": "M", "multiSelect": true, "options": []map[string]any{{"label": "X", "description": ""}, {"label": "Y", "description": ""}}}}}
	r = e.ok("AskUserQuestion", q2, `User has answered your questions: "Which?"="B", "More?"="Unanswered". You can now continue with the user's answers in mind.`)
	if !strings.Contains(string(r.Details), `"answers":{"Which?":"B","More?":"Unanswered"}`) {
		t.Errorf("details %s", r.Details)
	}
	asked := e.s.Approver.(*fakeAsker).asked
	if len(asked) != 2 || asked[0].Title != "Pick: Which?" || asked[0].Other != "Other" || !asked[1].Multiple || asked[1].Done != "Done" {
		t.Errorf("asked %+v", asked)
	}
}

// outsideDir is a directory outside the workspace and outside /tmp (the
// write guard lets /tmp through).
func outsideDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "pigo-filetools-")
	if err != nil {
		t.Skipf("no directory outside /tmp to test the write guard with: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	d, _ = filepath.EvalSymlinks(d)
	return d
}

// fakeAsker answers questions from a script (the chat's dialog stand-in).
type fakeAsker struct {
	answers [][]string
	asked   []toolkit.Question
}

func (f *fakeAsker) Ask(_ context.Context, r approve.Request) (approve.Decision, error) {
	if r.Kind != approve.KindQuestion {
		return approve.Decision{Choice: approve.Deny}, nil
	}
	f.asked = append(f.asked, *r.Question)
	a := f.answers[0]
	f.answers = f.answers[1:]
	return approve.Decision{Choice: approve.Answered, Answers: a}, nil
}

func TestClaudeEditDetails(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	p := e.write("t.go", "func f() {\n\treturn 1\n}\n")
	e.call("Read", map[string]any{"file_path": p})
	r := e.ok("Edit", map[string]any{"file_path": p, "old_string": "return 1", "new_string": "return 2"}, "The file "+p+" has been updated successfully.")
	var d toolkit.FileEditDetails
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatal(err)
	}
	if d.FirstChangedLine == nil || *d.FirstChangedLine != 2 || !strings.Contains(d.Diff, "-2   return 1") || !strings.Contains(d.Diff, "+2   return 2") {
		t.Errorf("diff (tabs shown as spaces): %q first %v", d.Diff, d.FirstChangedLine)
	}
	if !strings.Contains(d.Patch, "-\treturn 1\n+\treturn 2") || len(d.Reads) != 1 {
		t.Errorf("patch keeps tabs: %q, reads %v", d.Patch, d.Reads)
	}
}

func TestClaudeReadBigBinary(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	p := e.write("big.bin", "\x00"+strings.Repeat("x", 300<<10))
	e.fail("Read", map[string]any{"file_path": p}, "Cannot read binary file: "+p)
	e.fail("Read", map[string]any{"file_path": p, "limit": 5}, "Cannot read binary file: "+p)
}

// TestClaudeTodoMergesByContent: TodoWrite merges into the session's list by content (the
// seed README's merge semantics): named items update in place, new ones are appended, the
// others stay; the list is replayed from the session branch.
func TestClaudeTodoMergesByContent(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	e.call("TodoWrite", map[string]any{"todos": []map[string]any{
		{"content": "A", "status": "in_progress", "activeForm": "Doing A"},
		{"content": "B", "status": "pending", "activeForm": "Doing B"},
	}})
	r := e.call("TodoWrite", map[string]any{"todos": []map[string]any{
		{"content": "A", "status": "completed", "activeForm": "Doing A"},
		{"content": "C", "status": "in_progress", "activeForm": "Doing C"},
	}})
	if got := strings.Join(claudecode.CCTodoWidget(r.Details), "\n"); got != "Progress: 1/3 (33%)\n- [x] A\n- [ ] B\n- [>] Doing C" {
		t.Fatalf("merged list: %q", got)
	}
	// A second in_progress item in the merged list is refused, the list unchanged.
	e.fail("TodoWrite", map[string]any{"todos": []map[string]any{{"content": "B", "status": "in_progress", "activeForm": "Doing B"}}},
		"Only one todo may be in_progress at a time.")
	// Replayed from the branch: a session whose last TodoWrite listed X alone merges into X.
	isErr := false
	e.s.Replay([]*llm.Message{{Role: llm.RoleToolResult, ToolName: "TodoWrite", IsError: &isErr,
		Details: json.RawMessage(`{"todos":[{"content":"X","status":"pending","activeForm":"Doing X"}]}`)}})
	r = e.call("TodoWrite", map[string]any{"todos": []map[string]any{{"content": "Y", "status": "pending", "activeForm": "Doing Y"}}})
	if got := strings.Join(claudecode.CCTodoWidget(r.Details), "\n"); got != "Progress: 0/2 (0%)\n- [ ] X\n- [ ] Y" {
		t.Fatalf("after replay: %q", got)
	}
}
